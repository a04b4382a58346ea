"""Imports go one way: ui -> p2p -> engine (DESIGN.md "Layout"; ARCHITECTURE.md intro).

Every ``.py`` file under engine/ and p2p/ is parsed with ``ast`` (nothing is imported, so a
module with side effects cannot hide an import); absolute imports, relative imports resolved
against the file's package, and ``importlib.import_module("...")`` / ``__import__("...")``
calls with a literal name all count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: package -> top-level packages it must never import.
FORBIDDEN = {"engine": {"p2p", "ui"}, "p2p": {"ui"}}


def module_name(path: Path, root: Path = ROOT) -> str:
    """Dotted module name of a file under ``root`` ("engine/rules/rent.py" -> "engine.rules.rent")."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute dotted name) of every module ``source`` imports.

    ``module`` is the dotted name of the file, ``is_package`` True for an ``__init__.py``
    (relative imports then start from the package itself).
    """
    package = module.split(".") if is_package else module.split(".")[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                if node.level - 1 > len(package):
                    base = []
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((node.lineno, name))
            # "from . import p2p" names a module in the alias, not in node.module.
            found += [(node.lineno, f"{name}.{alias.name}" if name else alias.name) for alias in node.names]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return found


def violations(package: str, root: Path = ROOT) -> list[str]:
    """"file:line imports X" for every forbidden import in ``package``'s files."""
    bad = []
    for path in sorted((root / package).rglob("*.py")):
        module = module_name(path, root)
        lines = {}  # one report per line: "from ui import cli" names ui and ui.cli
        for line, name in imported_modules(path.read_text(encoding="utf-8"), module, path.name == "__init__.py"):
            if name.split(".")[0] in FORBIDDEN[package]:
                lines.setdefault(line, name)
        bad += [f"{path.relative_to(root)}:{line} imports {name}" for line, name in sorted(lines.items())]
    return bad


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_only_lower_layers(package: str) -> None:
    assert list((ROOT / package).rglob("*.py")), f"{package}/ has no Python files to check"
    assert violations(package) == []


@pytest.mark.parametrize(
    ("source", "module", "is_package", "expected"),
    [
        ("import p2p.wire", "engine.state", False, "p2p.wire"),
        ("from ..p2p import wire", "engine.rules.rent", False, "engine.p2p"),
        ("from ... import ui", "engine.rules.rent", False, "ui"),
        ("from .. import ui", "p2p", True, "ui"),
        ("from . import lockstep", "p2p", True, "p2p.lockstep"),
        ("from ui.cli import main", "p2p.node", False, "ui.cli"),
        ("import importlib\nimportlib.import_module('ui.display')", "p2p.node", False, "ui.display"),
        ("__import__('ui')", "engine.game", False, "ui"),
    ],
)
def test_checker_resolves_every_import_form(source: str, module: str, is_package: bool, expected: str) -> None:
    assert expected in [name for _, name in imported_modules(source, module, is_package)]


def test_checker_flags_a_forbidden_import(tmp_path: Path) -> None:
    (tmp_path / "engine" / "rules").mkdir(parents=True)
    (tmp_path / "engine" / "__init__.py").write_text("")
    (tmp_path / "engine" / "rules" / "rent.py").write_text("x = 1\nfrom ...ui import cli\n")
    assert violations("engine", tmp_path) == ["engine/rules/rent.py:2 imports ui"]


# --- p2p/ and ui/ see the engine only through its public names (issue 13) -------------------

#: Engine modules p2p/ and ui/ may import (besides the names in ``engine.__all__``): the
#: action and event types, the editions' data, the observation API, the seam's Protocol
#: classes (engine.api) and the public bot entry points. Everything else (engine.rules.*, engine.state, engine.game, engine.hashing,
#: engine.bots._*) is the engine's own layout and may change with it.
PUBLIC_ENGINE_MODULES = {"engine", "engine.actions", "engine.api", "engine.editions", "engine.errors",
                         "engine.events", "engine.observation", "engine.bots", "engine.bots.play"}

def public_engine_names(root: Path = ROOT) -> set[str]:
    """The dotted names p2p/ and ui/ may import from the engine: PUBLIC_ENGINE_MODULES and
    ``engine.<name>`` for every name of ``engine.__all__`` (read with ``ast``, nothing run)."""
    tree = ast.parse((root / "engine" / "__init__.py").read_text(encoding="utf-8"))
    names = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets))
    return PUBLIC_ENGINE_MODULES | {f"engine.{n}" for n in names}


def is_internal(name: str, public: set[str]) -> bool:
    """Whether dotted ``name`` reaches inside the engine: a private part (``_x``), or neither
    a public name nor a public name of a public module other than the package itself
    ("engine.observation.FAKE" is public, "engine.rules" and "engine.state" are not)."""
    if name.split(".")[0] != "engine":
        return False
    if any(part.startswith("_") for part in name.split(".")):
        return True
    parent = name.rsplit(".", 1)[0]
    return name not in public and not (parent in public and parent != "engine")


def raw_layout_uses(source: str) -> list[tuple[int, str]]:
    """(line, what) for every read of the engine's hidden-information layout: the ``.nx``
    attribute, an ``NX_*`` name, or ``getattr(x, "nx")``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "nx":
            found.append((node.lineno, ".nx"))
        elif isinstance(node, ast.Name) and node.id.startswith("NX_"):
            found.append((node.lineno, node.id))
        elif isinstance(node, ast.alias) and (node.asname or node.name).startswith("NX_"):
            found.append((node.lineno, node.name))
        elif (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "getattr" and len(node.args) > 1
              and isinstance(node.args[1], ast.Constant) and node.args[1].value == "nx"):
            found.append((node.lineno, 'getattr "nx"'))
    return found


def engine_seam_uses(root: Path = ROOT) -> list[tuple[str, int, str]]:
    """(file, line, name) for every internal engine import or raw layout read in p2p/ and ui/."""
    public = public_engine_names(root)
    out = []
    for package in ("p2p", "ui"):
        for path in sorted((root / package).rglob("*.py")):
            rel = str(path.relative_to(root))
            source = path.read_text(encoding="utf-8")
            imports = imported_modules(source, module_name(path, root), path.name == "__init__.py")
            out += [(rel, line, name) for line, name in imports if is_internal(name, public)]
            out += [(rel, line, what) for line, what in raw_layout_uses(source)]
    return out


def test_p2p_and_ui_use_only_public_engine_names() -> None:
    found = [f"{f}:{line} {name}" for f, line, name in engine_seam_uses()]
    assert found == [], "use engine's public names (engine.__all__, engine.observation) instead"


@pytest.mark.parametrize(
    ("name", "internal"),
    [("engine", False), ("engine.apply_reveal", False), ("engine.observation", False),
     ("engine.observation.FAKE", False), ("engine.actions.TimeUp", False), ("engine.bots.play.beacon", False),
     ("engine.rules", True), ("engine.rules.banknotes.NX_DEN", True), ("engine.state", True),
     ("engine.bots._niente", True), ("engine.bots._niente.choose", True), ("engine.nx_layout", True),
     ("p2p.wire", False)],
)
def test_checker_tells_public_engine_names_from_internal_ones(name: str, internal: bool) -> None:
    assert is_internal(name, public_engine_names()) is internal


def test_checker_flags_raw_layout_reads() -> None:
    source = "from engine.rules.banknotes import NX_DEN\nx = s.nx[NX_DEN]\ny = getattr(s, 'nx', None)\n"
    assert sorted(raw_layout_uses(source)) == [(1, "NX_DEN"), (2, ".nx"), (2, "NX_DEN"), (3, 'getattr "nx"')]


# --- no new import circle (issue 13) -------------------------------------------------------

#: Import circles allowed (a circle may shrink or go: nothing here fails then; any circle not
#: inside one of these fails). None is left, counting imports inside functions too (issue 13:
#: the shared rules' circle went when engine.game and niente_flow took the niente hooks, and the
#: moves the trains and face-up Imprevisti landings); tests/test_import_cycles.py checks import
#: time alone and that the engine keeps no import inside a function without a circle's reason.
KNOWN_CIRCLES: list[set[str]] = []


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """module -> the modules of engine/, p2p/, ui/ it imports (anywhere in the file).
    ``from pkg import sub`` counts ``pkg.sub`` only when ``sub`` is a module (not ``pkg``)."""
    files = {module_name(p, root): p for pkg in ("engine", "p2p", "ui") for p in (root / pkg).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        deps: set[str] = set()
        found = imported_modules(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")
        by_line: dict[int, list[str]] = {}
        for line, name in found:
            by_line.setdefault(line, []).append(name)
        for names in by_line.values():
            subs = [n for n in names if n in files and any(n.startswith(o + ".") for o in names)]
            for name in names:
                if subs and any(s.startswith(name + ".") for s in subs):
                    continue  # "from pkg import sub": the submodule, not the package
                parts = name.split(".")
                while parts and ".".join(parts) not in files:
                    parts.pop()
                if parts and ".".join(parts) != module:
                    deps.add(".".join(parts))
        graph[module] = deps
    return graph


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(comp)
    return out


def test_no_new_import_circle() -> None:
    new = [sorted(c) for c in circles(import_graph()) if not any(c <= known for known in KNOWN_CIRCLES)]
    assert new == [], "break the circle (move the shared piece down a layer) rather than list it"


def test_checker_finds_circles_and_reads_from_package_imports(tmp_path: Path) -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert circles({"a": {"b"}, "b": set()}) == []
    (tmp_path / "engine" / "rules").mkdir(parents=True)
    (tmp_path / "p2p").mkdir()
    (tmp_path / "ui").mkdir()
    (tmp_path / "engine" / "__init__.py").write_text("from .rules import rent\n")
    (tmp_path / "engine" / "rules" / "__init__.py").write_text("")
    (tmp_path / "engine" / "rules" / "rent.py").write_text("from .. import rules\nfrom ..rules import x\n")
    graph = import_graph(tmp_path)
    assert graph["engine"] == {"engine.rules.rent"}
    assert graph["engine.rules.rent"] == {"engine.rules"}


# --- no module reads another module's private attributes (issue 13) -------------------------

#: The namedtuple API: public despite the underscore.
NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}


def private_names(tree: ast.Module) -> set[str]:
    """The private names (``_x``, not dunder) a module defines: functions, classes, module or
    class variables, ``__slots__`` entries and attributes it assigns (``self._x = ...``)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets):
            if isinstance(node.value, (ast.Tuple, ast.List)):
                out |= {e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return {n for n in out if n.startswith("_") and not n.startswith("__")}


def base_modules(tree: ast.Module, module: str, is_package: bool, files: dict[str, Path]) -> set[str]:
    """The modules (of ``files``) that the base classes of ``tree``'s classes are imported from:
    a subclass may use what its base class defines (``Lobby(Admission)``)."""
    bases = {b.id for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
             for b in node.bases if isinstance(b, ast.Name)}
    package = module.split(".") if is_package else module.split(".")[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) in bases for a in node.names):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name in files:
                out.add(name)
    return out


def private_reaches(root: Path = ROOT) -> list[str]:
    """"file:line expr" for every read or write of ``x._name`` in p2p/ and ui/ where ``x`` is
    not ``self``/``cls`` and ``_name`` is defined neither in that module nor in the module of
    one of its base classes: another module's private state, which that module may change
    (the node used to read the lockstep session's ``_step_started``)."""
    files = {module_name(p, root): p for pkg in ("p2p", "ui") for p in (root / pkg).rglob("*.py")
             if "__pycache__" not in p.parts}
    trees = {m: ast.parse(p.read_text(encoding="utf-8")) for m, p in files.items()}
    bad = []
    for module, path in sorted(files.items()):
        tree = trees[module]
        mine = private_names(tree)
        for other in base_modules(tree, module, path.name == "__init__.py", files):
            mine |= private_names(trees[other])
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                    and node.attr not in NAMEDTUPLE_API and node.attr not in mine
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
                bad.append(f"{path.relative_to(root)}:{node.lineno} {ast.unparse(node)}")
    return bad


def test_p2p_and_ui_read_no_other_modules_private_attributes() -> None:
    assert private_reaches() == [], "ask the owning module for it (a public method or property)"


def test_checker_flags_a_private_read_of_another_module(tmp_path: Path) -> None:
    (tmp_path / "p2p").mkdir()
    (tmp_path / "ui").mkdir()
    (tmp_path / "p2p" / "base.py").write_text("class Base:\n    def __init__(self):\n        self._kept = 1\n")
    (tmp_path / "p2p" / "sub.py").write_text(
        "from .base import Base\nclass Sub(Base):\n    def f(self, other):\n        return other._kept\n")
    (tmp_path / "p2p" / "node.py").write_text(
        "from collections import namedtuple\nP = namedtuple('P', 'a')\n"
        "def g(session, p):\n    return session._step_started, p._replace(a=1), session.public\n")
    assert private_reaches(tmp_path) == ["p2p/node.py:4 session._step_started"]
