"""engine.api: the real engine and the p2p tests' stand-in both satisfy the seam (issue 13)."""
from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path

import engine
from engine.api import Engine, HiddenInformation

FAKE = Path(__file__).resolve().parent.parent / "p2p" / "fake_engine.py"


def _fake_engine():
    spec = importlib.util.spec_from_file_location("fake_engine_for_api_test", FAKE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_engine_package_is_an_engine_with_hidden_information() -> None:
    assert isinstance(engine, Engine) and isinstance(engine, HiddenInformation)


def test_the_engine_functions_take_the_protocols_parameters() -> None:
    """As many parameters as the protocol, the optional ones in the same places."""
    def shape(f, skip=0):
        return [p.default is inspect.Parameter.empty for p in list(inspect.signature(f).parameters.values())[skip:]]

    for proto in (Engine, HiddenInformation):
        for name, member in vars(proto).items():
            if inspect.isfunction(member) and not name.startswith("_"):
                assert shape(getattr(engine, name)) == shape(member, skip=1), name  # skip self


def test_the_p2p_stand_in_is_an_engine_without_hidden_information() -> None:
    fake = _fake_engine()
    assert isinstance(fake, Engine) and not isinstance(fake, HiddenInformation)
