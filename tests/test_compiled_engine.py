"""The optional compiled engine (setup.py, engine/_accel.py; docs/ARCHITECTURE.md §1).

- The guard: an extension module loads only if its source still has the SHA-256 recorded at
  build time and LANOPOLI_PURE is not set; otherwise the .py loads, with one warning per
  process for a stale build. Tested on a scratch package (no compiler needed) and, when the
  engine is compiled, on a copy of the installed engine with one source edited.
- Compiled == pure: seeded games (bench/regression_fingerprint.py's per-game lines: turns,
  steps, winner, final state hash, hash of every input and event) played by the compiled engine
  and by a LANOPOLI_PURE=1 child are identical. Skips, saying why, when nothing is compiled.
"""
from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import engine
import engine.bots  # noqa: F401  (the bots' modules are compiled too)
from engine import _accel

ROOT = Path(__file__).resolve().parent.parent
EXT = importlib.machinery.EXTENSION_SUFFIXES[0]
COMPILED = _accel.compiled_modules()
needs_build = pytest.mark.skipif(
    not COMPILED, reason="the engine is not compiled in this install (no Cython or C compiler at "
                         "install time, LANOPOLI_NO_COMPILE=1, or LANOPOLI_PURE=1 is set)")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """``pkg/mod.py`` and ``pkg/other.py``, each with a (fake) extension file beside it, and
    ``pkg/plain.py`` without one. The fake extensions are never loaded: the tests ask the guard
    only which file it would load."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    for name in ("mod", "other", "plain"):
        (pkg / f"{name}.py").write_text(f"NAME = {name!r}\n")
    for name in ("mod", "other"):
        (pkg / f"{name}{EXT}").write_bytes(b"not really an extension")
    return pkg


def _guard(pkg: Path, pure: bool = False, **hashes: str) -> _accel.SourceGuard:
    return _accel.SourceGuard("pkg", {f"pkg.{k}": v for k, v in hashes.items()}, pure)


def _origin(guard: _accel.SourceGuard, pkg: Path, leaf: str) -> str | None:
    spec = guard.find_spec(f"pkg.{leaf}", [str(pkg)])
    return None if spec is None else spec.origin


def test_a_current_build_is_left_to_the_normal_finders(scratch: Path) -> None:
    g = _guard(scratch, mod=_sha(scratch / "mod.py"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _origin(g, scratch, "mod") is None  # -> the import system loads the extension
    assert g.stale == [] and g.forced == []


def test_an_edited_source_loads_instead_of_its_stale_build_with_one_warning(scratch: Path) -> None:
    g = _guard(scratch, mod=_sha(scratch / "mod.py"), other=_sha(scratch / "other.py"))
    (scratch / "mod.py").write_text("NAME = 'edited'\n")
    (scratch / "other.py").write_text("NAME = 'edited too'\n")
    with pytest.warns(RuntimeWarning, match="pkg.mod: its compiled build is older") as seen:
        assert _origin(g, scratch, "mod") == str(scratch / "mod.py")
        assert _origin(g, scratch, "other") == str(scratch / "other.py")
    assert len([w for w in seen if issubclass(w.category, RuntimeWarning)]) == 1  # once
    assert g.stale == ["pkg.mod", "pkg.other"]


def test_a_build_missing_from_the_manifest_is_stale(scratch: Path) -> None:
    g = _guard(scratch)  # no manifest: e.g. a build that failed half-way, or an old one
    with pytest.warns(RuntimeWarning):
        assert _origin(g, scratch, "mod") == str(scratch / "mod.py")
    assert g.stale == ["pkg.mod"]


def test_pure_mode_loads_every_source_without_warning(scratch: Path) -> None:
    g = _guard(scratch, pure=True, mod=_sha(scratch / "mod.py"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _origin(g, scratch, "mod") == str(scratch / "mod.py")
    assert g.forced == ["pkg.mod"] and g.stale == []


def test_modules_without_a_build_and_other_packages_are_not_touched(scratch: Path) -> None:
    g = _guard(scratch, pure=True)
    assert _origin(g, scratch, "plain") is None
    assert g.find_spec("elsewhere.mod", [str(scratch)]) is None
    assert g.find_spec("pkg", None) is None  # the package itself (never compiled)


def test_the_environment_switch() -> None:
    for value, pure in (("1", True), ("yes", True), ("0", False), ("", False)):
        env = dict(os.environ, LANOPOLI_PURE=value)
        out = subprocess.run([sys.executable, "-c", "from engine import _accel; print(_accel.pure_forced())"],
                             env=env, capture_output=True, text=True, check=True, cwd=ROOT)
        assert out.stdout.strip() == str(pure), value


def test_the_guard_is_installed_once_and_first() -> None:
    guards = [f for f in sys.meta_path if isinstance(f, _accel.SourceGuard)]
    assert len(guards) == 1 and _accel.install() is guards[0]


def test_a_manifest_that_is_not_json_means_no_module_is_current(tmp_path: Path) -> None:
    (tmp_path / _accel.MANIFEST).write_text("{not json")
    assert _accel._read_manifest(str(tmp_path / _accel.MANIFEST)) == {}
    (tmp_path / _accel.MANIFEST).write_text(json.dumps({"modules": {"engine.game": 7}}))
    assert _accel._read_manifest(str(tmp_path / _accel.MANIFEST)) == {}


_REPORT = ("import json, warnings, engine, engine.bots, engine.rules.auction\n"
           "from engine import _accel\n"
           "print(json.dumps({'compiled': _accel.compiled_modules(),\n"
           "                  'file': engine.rules.auction.__file__}))\n")


@needs_build
def test_a_real_stale_build_in_a_copied_engine_falls_back_to_the_edited_source(tmp_path: Path) -> None:
    """The installed compiled engine copied, one source edited: that module loads from .py
    (warning on stderr), the others stay compiled."""
    shutil.copytree(Path(engine.__file__).parent, tmp_path / "engine",
                    ignore=shutil.ignore_patterns("__pycache__"))
    source = tmp_path / "engine" / "rules" / "auction.py"
    source.write_text(source.read_text() + "\n# edited after the build\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    env.pop("LANOPOLI_PURE", None)
    out = subprocess.run([sys.executable, "-c", _REPORT], env=env, capture_output=True,
                         text=True, check=True, cwd=tmp_path)
    got = json.loads(out.stdout)
    assert got["file"] == str(source)
    assert "engine.rules.auction" not in got["compiled"] and "engine.game" in got["compiled"]
    assert "engine.rules.auction: its compiled build is older than its source" in out.stderr


def _fingerprint(tmp_path: Path, pure: bool) -> tuple[list[str], list[str]]:
    """Per-game fingerprint lines of a small seeded set (every edition, 2 and 4 seats, default
    and mixed bot profiles) played in a child, and the modules it ran compiled."""
    out_file = tmp_path / ("pure.txt" if pure else "compiled.txt")
    code = ("import json, runpy, sys\n"
            f"g = runpy.run_path({str(ROOT / 'bench' / 'regression_fingerprint.py')!r}, run_name='fp')\n"
            f"g['main'](['--seeds', '4', '--mixed-seeds', '2', '--seats', '2,4', '--jobs', '1', "
            f"'--out', {str(out_file)!r}])\n"
            "from engine import _accel\n"
            "print(json.dumps(_accel.compiled_modules()))\n")
    env = dict(os.environ)
    env.pop("LANOPOLI_PURE", None)
    if pure:
        env["LANOPOLI_PURE"] = "1"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, cwd=ROOT)
    return out_file.read_text().splitlines(), json.loads(out.stdout.splitlines()[-1])


@needs_build
def test_compiled_and_pure_engines_play_identical_games(tmp_path: Path) -> None:
    pure_lines, pure_compiled = _fingerprint(tmp_path, pure=True)
    lines, compiled = _fingerprint(tmp_path, pure=False)
    assert pure_compiled == []
    assert {"engine.game", "engine.bots._decide", "engine.rules.auction"} <= set(compiled)
    assert len(lines) == len(pure_lines) > 0
    assert lines == pure_lines
