"""Which engine modules load compiled (docs/ARCHITECTURE.md §1, "Compiled engine").

setup.py may compile the engine's modules with Cython (same source, same results, ~1.7x
faster). Python's import system prefers an extension module over the ``.py`` beside it, so in
an editable checkout a stale build would silently shadow an edited source file. This module
installs, at ``import engine`` and before any other engine module is imported, a meta-path
finder that loads the ``.py`` instead of an extension when

- ``LANOPOLI_PURE`` is set to anything but ``""``/``0`` (every module pure), or
- the module's source no longer has the SHA-256 recorded for it in ``engine/_compiled.json``
  at build time, or the manifest does not list it (stale build; one RuntimeWarning per
  process names the first such module and how to rebuild), or
- a module it cimports (the manifest's ``needs``, from its ``.pxd``) cannot load compiled: a
  compiled module built against the extension type ``engine.state.State`` cannot import
  beside a pure ``engine.state`` (the type check at import fails), so it loads pure too.

Modules without an extension beside them, and the packages' ``__init__.py`` (never compiled),
are left to the normal import system. The finder costs one stat per extension suffix and one
SHA-256 of the source per compiled engine module imported (~0.1 ms each, once per process).
"""
from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings

MANIFEST = "_compiled.json"
"""Written by setup.py beside the compiled modules: {"modules": {name: sha256 of its .py},
"needs": {name: [engine modules its .pxd cimports]}}."""
ENV_PURE = "LANOPOLI_PURE"

_HERE = os.path.dirname(os.path.abspath(__file__))


def pure_forced() -> bool:
    """True when ``LANOPOLI_PURE`` asks for the pure-Python engine."""
    return os.environ.get(ENV_PURE, "") not in ("", "0")


def _read_manifest(path: str) -> dict[str, str]:
    """``{module name: source sha256}`` from a manifest file; {} if missing or unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            modules = json.load(f).get("modules", {})
    except (OSError, ValueError, AttributeError):
        return {}
    return {k: v for k, v in modules.items() if isinstance(k, str) and isinstance(v, str)}


def _read_needs(path: str) -> dict[str, list[str]]:
    """``{module name: [modules it cimports]}`` from a manifest file; {} if missing, unreadable
    or written before cimports existed."""
    try:
        with open(path, encoding="utf-8") as f:
            needs = json.load(f).get("needs", {})
    except (OSError, ValueError, AttributeError):
        return {}
    if not isinstance(needs, dict):
        return {}
    return {k: [d for d in v if isinstance(d, str)] for k, v in needs.items()
            if isinstance(k, str) and isinstance(v, list)}


class SourceGuard:
    """Meta-path finder for ``engine.*``: decides, per module that has an extension file
    beside its ``.py``, whether the extension may load (see the module docstring).

    ``stale`` lists the modules loaded from ``.py`` because their build is out of date,
    ``forced`` those loaded from ``.py`` because of ``LANOPOLI_PURE``.
    """

    def __init__(self, package: str, manifest: dict[str, str], pure: bool,
                 needs: dict[str, list[str]] | None = None, root: str | None = None) -> None:
        self.package = package
        self.manifest = manifest
        self.pure = pure
        self.needs = needs or {}
        """``{module: [modules it cimports]}``: each must be current for the module to load
        compiled (transitively)."""
        self.root = root
        """Directory of ``package`` (where a needed module's ``.py`` is looked up)."""
        self.stale: list[str] = []
        self.forced: list[str] = []
        self._warned = False
        self._known: dict[str, bool] = {}
        self._cause: dict[str, str] = {}  # a module that is not current -> the stale one why

    def find_spec(self, name: str, path=None, target=None):
        """A source spec for ``name`` when its extension must not load, else None (the normal
        finders then load whatever they find, the extension first)."""
        if not name.startswith(self.package + ".") or not path:
            return None
        leaf = name.rpartition(".")[2]
        for entry in path:
            base = os.path.join(entry, leaf)
            source = base + ".py"
            if not os.path.isfile(source):
                continue
            if not any(os.path.exists(base + s) for s in importlib.machinery.EXTENSION_SUFFIXES):
                return None
            if self.pure:
                self.forced.append(name)
            elif self._current(name, source):
                return None
            else:
                self._stale(name)
            return importlib.util.spec_from_file_location(name, source)
        return None

    def _current(self, name: str, source: str) -> bool:
        """True if ``name``'s build matches ``source`` and every module it needs is current."""
        known = self._known.get(name)
        if known is not None:
            return known
        self._known[name] = False  # a cimport cycle cannot make a module current
        want = self.manifest.get(name)
        ok = False
        if want is not None:
            with open(source, "rb") as f:
                ok = hashlib.sha256(f.read()).hexdigest() == want
        if not ok:
            self._cause[name] = name
        for dep in self.needs.get(name, ()) if ok else ():
            dep_source = self._source_of(dep)
            if dep_source is None or not self._current(dep, dep_source):
                ok = False
                self._cause[name] = self._cause.get(dep, dep)
                break
        self._known[name] = ok
        return ok

    def _source_of(self, name: str) -> str | None:
        """The ``.py`` of module ``name`` of the package, or None if unknown."""
        if self.root is None or not name.startswith(self.package + "."):
            return None
        source = os.path.join(self.root, *name.split(".")[1:]) + ".py"
        return source if os.path.isfile(source) else None

    def _stale(self, name: str) -> None:
        self.stale.append(name)
        if not self._warned:
            self._warned = True
            cause = self._cause.get(name, name)
            also = "" if cause == name else f" (and for {name}, which cimports it)"
            warnings.warn(f"{cause}: its compiled build is older than its source; using the .py{also} "
                          "(rebuild with `pip install -e .`, or set LANOPOLI_NO_COMPILE=1 when "
                          "installing to stay pure Python)", RuntimeWarning, stacklevel=2)

    def invalidate_caches(self) -> None:
        """Part of the finder protocol; nothing is cached across imports."""


def install(package: str = "engine", directory: str = _HERE) -> SourceGuard:
    """Put the guard for ``package`` (its files in ``directory``) first on ``sys.meta_path``,
    once per process; return it."""
    for f in sys.meta_path:
        if isinstance(f, SourceGuard) and f.package == package:
            return f
    path = os.path.join(directory, MANIFEST)
    guard = SourceGuard(package, _read_manifest(path), pure_forced(), _read_needs(path),
                        directory)
    sys.meta_path.insert(0, guard)
    return guard


def compiled_modules(package: str = "engine") -> list[str]:
    """Names of the ``package`` modules imported so far that run compiled, sorted."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return sorted(n for n, m in list(sys.modules.items())
                  if n.startswith(package + ".") and (getattr(m, "__file__", None) or "").endswith(suffixes))
