"""The Cython declarations (engine/**/*.pxd) match the Python classes they compile, and the
compiled-engine guard loads a module pure when a module it cimports cannot load compiled
(docs/ARCHITECTURE.md §1.6, engine/_accel.py). Needs no compiler: the .pxd files are read as
text and the guard runs on a scratch package."""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from engine import _accel
from engine.board import Tables
from engine.bots._value import Static
from engine.state import State

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def _pxd_fields(pxd: Path, cls: str) -> list[str]:
    """Field names the ``cdef class cls`` block of ``pxd`` declares, in order."""
    fields: list[str] = []
    inside = False
    for line in pxd.read_text(encoding="utf-8").splitlines():
        if line.startswith("cdef class "):
            inside = line == f"cdef class {cls}:"
            continue
        if inside and line and not line.startswith(" "):
            break
        m = re.match(r"\s+cdef public \w+ (.+)$", line) if inside else None
        if m:
            fields += [f.strip() for f in m.group(1).split(",")]
    return fields


@pytest.mark.parametrize("pxd, cls", [("state.pxd", State), ("board.pxd", Tables),
                                      ("bots/_value.pxd", Static)])
def test_each_extension_type_declares_exactly_the_slots_of_its_class(pxd: str, cls) -> None:
    # A slot missing from the .pxd would be an AttributeError in the compiled engine only.
    declared = _pxd_fields(ENGINE / pxd, cls.__name__)
    assert sorted(declared) == sorted(cls.__slots__)
    assert len(declared) == len(set(declared))


def test_every_cpdef_in_a_pxd_names_a_function_of_its_module() -> None:
    for pxd in sorted(ENGINE.rglob("*.pxd")):
        source = pxd.with_suffix(".py").read_text(encoding="utf-8")
        for name in re.findall(r"^cpdef (?:\w+ )?(\w+)\(", pxd.read_text(encoding="utf-8"), re.M):
            assert re.search(rf"^def {name}\(", source, re.M), (pxd.name, name)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """``pkg/base.py`` (the extension type), ``pkg/user.py`` (cimports it) and
    ``pkg/alone.py``, each with a fake extension beside it (never loaded)."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    ext = _accel.importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in ("base", "user", "alone"):
        (pkg / f"{name}.py").write_text(f"NAME = {name!r}\n")
        (pkg / f"{name}{ext}").write_bytes(b"not really an extension")
    return pkg


def _guard(pkg: Path) -> _accel.SourceGuard:
    hashes = {f"pkg.{n}": _sha(pkg / f"{n}.py") for n in ("base", "user", "alone")}
    return _accel.SourceGuard("pkg", hashes, False, {"pkg.user": ["pkg.base"]}, str(pkg))


def _origin(guard: _accel.SourceGuard, pkg: Path, leaf: str) -> str | None:
    spec = guard.find_spec(f"pkg.{leaf}", [str(pkg)])
    return None if spec is None else spec.origin


def test_a_current_build_and_its_current_cimports_load_compiled(scratch: Path) -> None:
    g = _guard(scratch)
    assert [_origin(g, scratch, n) for n in ("base", "user", "alone")] == [None, None, None]
    assert g.stale == []


def test_a_module_whose_cimported_module_is_stale_loads_pure_too(scratch: Path) -> None:
    g = _guard(scratch)
    (scratch / "base.py").write_text("NAME = 'edited'\n")
    with pytest.warns(RuntimeWarning, match=r"pkg\.base: its compiled build is older .*"
                                            r"\(and for pkg\.user, which cimports it\)"):
        # user is imported first (as engine.rules.money is before engine.state)
        assert _origin(g, scratch, "user") == str(scratch / "user.py")
    assert _origin(g, scratch, "base") == str(scratch / "base.py")
    assert _origin(g, scratch, "alone") is None  # cimports nothing: stays compiled
    assert g.stale == ["pkg.user", "pkg.base"]


def test_needs_are_read_from_the_manifest(tmp_path: Path) -> None:
    path = tmp_path / _accel.MANIFEST
    path.write_text('{"modules": {}, "needs": {"engine.game": ["engine.state", 3]}}')
    assert _accel._read_needs(str(path)) == {"engine.game": ["engine.state"]}
    path.write_text('{"modules": {}}')  # a manifest written before .pxd files
    assert _accel._read_needs(str(path)) == {}
    path.write_text("{not json")
    assert _accel._read_needs(str(path)) == {}
