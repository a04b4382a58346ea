"""Optional compiled engine (docs/ARCHITECTURE.md §1, "Compiled engine").

Everything about the package lives in pyproject.toml; this file only adds the extension
modules. At build time (``pip install .`` or ``pip install -e .``) the engine's modules
(``engine/**/*.py`` except the packages' ``__init__.py``, ``engine/_accel.py``, the import
guard, and ``engine/api.py``, the typing seam) are compiled unchanged by Cython into C
extensions, when

- Cython is importable (pyproject.toml lists it in ``[build-system] requires``), and
- a C compiler that finds ``Python.h`` works (probed once with a tiny file), and
- ``LANOPOLI_NO_COMPILE`` is unset or ``0``.

Otherwise, or if one module fails to compile (``Extension(optional=True)``), the install is
pure Python (or partly compiled) and says so; the rules are the same either way. A pure
editable install (``LANOPOLI_NO_COMPILE=1 pip install -e .``) also deletes an earlier build
from the source tree.

Each build also writes ``engine/_compiled.json`` next to the extensions: the SHA-256 of every
compiled module's source as it was compiled. ``engine/_accel.py`` reads it at ``import engine``
and loads the ``.py`` instead of any extension whose source has changed since (a stale build in
an editable checkout), or of every extension when ``LANOPOLI_PURE=1``.

Cython directives: ``language_level=3``, ``binding=True`` (functions keep their signatures,
docstrings and ``__module__``), ``annotation_typing=False`` (annotations are never turned into C
types: the compiled code keeps Python's semantics exactly, e.g. a ``list[int]`` annotation does
not reject a tuple, which engine/bots/_value.py relies on).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
MANIFEST = "_compiled.json"
"""Written beside the compiled modules, inside the ``engine`` package."""
NOT_COMPILED = {"engine/_accel.py", "engine/api.py"}
"""Modules that stay Python: the guard itself (it runs before any compiled module loads), and
the engine's typing seam (Protocol classes: nothing to speed up, and ``inspect.isfunction`` on
their members must stay true for tests/engine/test_api.py)."""
DIRECTIVES = {"language_level": 3, "binding": True, "annotation_typing": False}


def _engine_modules() -> list[tuple[str, str]]:
    """``(dotted name, relative .py path)`` of every module to compile, sorted."""
    out = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if path.name == "__init__.py" or rel in NOT_COMPILED:
            continue
        out.append((rel[:-3].replace("/", "."), rel))
    return out


_CIMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(engine(?:\.\w+)*)[ \t]+cimport[ \t]+(\([^)]*\)|[^\n]*)"
                      r"|cimport[ \t]+(engine(?:\.\w+)*))", re.M)


def _cimports(name: str) -> list[str]:
    """Engine modules that module ``name``'s ``.pxd`` cimports (``from engine.x cimport T``,
    ``from engine.rules cimport movement``, ``cimport engine.x``), sorted; [] without a .pxd.
    Its extension imports them at load time, so it may load only if they load compiled too
    (``engine/_accel.py``)."""
    pxd = ROOT / (name.replace(".", "/") + ".pxd")
    if not pxd.exists():
        return []
    found = set()
    for m in _CIMPORT.finditer(pxd.read_text(encoding="utf-8")):
        mod = m.group(1) or m.group(3)
        found.add(mod)
        for leaf in re.findall(r"\w+", m.group(2) or ""):
            if (ROOT / (mod.replace(".", "/") + "/" + leaf + ".py")).exists():
                found.add(f"{mod}.{leaf}")  # a module cimported from its package
    return sorted(f for f in found if (ROOT / (f.replace(".", "/") + ".py")).exists())


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _wanted() -> bool:
    return os.environ.get("LANOPOLI_NO_COMPILE", "") in ("", "0")


class BuildCompiledEngine(build_ext):
    """``build_ext`` that cythonizes the engine when it can, else builds nothing."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1  # the C compiles are independent

    def run(self) -> None:
        if not self.extensions:
            return
        reason = self._cannot_compile()
        if reason:
            print(f"lanopoli: engine not compiled ({reason}); pure Python install", file=sys.stderr)
            if self.inplace:
                self._remove_inplace_builds()
            self.extensions = []
            return
        from Cython.Build import cythonize
        generated = cythonize(
            self.extensions, build_dir=os.path.join(self.build_temp, "cython"),
            compiler_directives=DIRECTIVES, nthreads=self.parallel or 1, quiet=True)
        # Keep setuptools' own Extension objects (finalize_options decorated them): only their
        # sources change, from the .py to the generated .c.
        c_sources = {ext.name: ext.sources for ext in generated}
        for ext in self.extensions:
            ext.sources = c_sources[ext.name]
        super().run()
        self._write_manifest()

    def _cannot_compile(self) -> str | None:
        """Why the engine cannot be compiled here, or None."""
        if not _wanted():
            return "LANOPOLI_NO_COMPILE is set"
        try:
            import Cython  # noqa: F401
        except ImportError:
            return "Cython is not installed"
        from setuptools._distutils.ccompiler import new_compiler
        from setuptools._distutils.sysconfig import customize_compiler, get_python_inc
        cc = new_compiler()
        customize_compiler(cc)
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "probe.c")
            with open(src, "w") as f:
                f.write("#include <Python.h>\nint lanopoli_probe(void) { return Py_IsInitialized(); }\n")
            try:
                cc.compile([src], output_dir=tmp, include_dirs=[get_python_inc()])
            except Exception as e:  # CompileError, or the compiler executable is missing
                return f"no working C compiler with Python.h: {type(e).__name__}"
        return None

    def _remove_inplace_builds(self) -> None:
        """A pure editable install removes an earlier build of ours from the source tree (the
        extension of each engine module, and the manifest), so that it really runs pure."""
        for ext in self.extensions:
            built = ROOT / self.get_ext_filename(ext.name)
            if built.exists():
                built.unlink()
        (ROOT / "engine" / MANIFEST).unlink(missing_ok=True)

    def _write_manifest(self) -> None:
        """Record the source hash of every module that was actually built (see _accel.py)."""
        modules = {}
        for ext in self.extensions:
            built = Path(self.get_ext_fullpath(ext.name))
            if self.inplace:
                built = ROOT / self.get_ext_filename(ext.name)
            if built.exists():
                modules[ext.name] = _sha256(ROOT / (ext.name.replace(".", "/") + ".py"))
        import Cython
        needs = {name: deps for name in modules if (deps := _cimports(name))}
        data = {"format": 1, "cython": Cython.__version__, "directives": DIRECTIVES,
                "modules": modules, "needs": needs}
        outdirs = [ROOT / "engine"] if self.inplace else [Path(self.build_lib) / "engine"]
        for d in outdirs:
            d.mkdir(parents=True, exist_ok=True)
            (d / MANIFEST).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        print(f"lanopoli: compiled {len(modules)}/{len(self.extensions)} engine modules",
              file=sys.stderr)


setup(
    ext_modules=[Extension(name, [rel], optional=True) for name, rel in _engine_modules()],
    cmdclass={"build_ext": BuildCompiledEngine},
)
