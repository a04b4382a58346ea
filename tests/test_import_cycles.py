"""No import circle among the modules of engine/, p2p/ and ui/ at import time (issue 13).

A circle (a imports b, b imports a, directly or through others) makes the import order matter:
whichever module Python starts first sees the other half-built, so a reordering elsewhere can
turn into an ``ImportError`` or a name missing at import time, and the modules of a circle can
only be read (and tested) together. As in tests/test_layering.py, every ``.py`` file is parsed
with ``ast`` (nothing is imported). Here only the imports that run when the module is imported
count: those of the module body and of class bodies, ``if``/``try``/``with`` blocks included;
not those inside functions (they run later, once every module is built) nor those under
``if TYPE_CHECKING:`` (never at run time).

``from pkg import name`` is an edge to ``pkg.name`` when that is a module, else to ``pkg``;
``import a.b`` an edge to ``a.b``. The package ``__init__`` Python also runs on the way is not
an edge of its own (else a module that imports its own package's name would close a circle with
every package that re-exports it).

There is none left, so there is no allow-list: a circle fails. Counting the imports inside
functions too there is none either (``tests/test_layering.py``, ``KNOWN_CIRCLES`` empty since
issue 13: the classic rules no longer call the niente-e-come-sembra ones through imports inside
functions; ``engine.game`` and ``niente_flow`` route niente's card draw, jail card, window card,
raise and end, and the trains and face-up landings live with the moves). An import inside an
engine function would only ever hide a circle, so the engine keeps none
(``test_engine_defers_an_import_only_to_avoid_a_circle``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from test_layering import ROOT, circles, module_name

PACKAGES = ("engine", "p2p", "ui")


def _import_time_nodes(body: list[ast.stmt]):
    """The import statements of ``body`` that run when the module is imported (module
    docstring): recurses into compound statements and class bodies, not into functions nor
    ``if TYPE_CHECKING:``."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from _import_time_nodes(node.orelse)
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list):
                    yield from _import_time_nodes([n for n in inner if isinstance(n, ast.stmt | ast.excepthandler)])


def _function_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The import statements inside function bodies (they run on call, not at import)."""
    return [n for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
            for stmt in fn.body for n in ast.walk(stmt) if isinstance(n, (ast.Import, ast.ImportFrom))]


def _targets(node: ast.Import | ast.ImportFrom, package: list[str], files: set[str]) -> set[str]:
    """The modules of ``files`` an import statement names (module docstring)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level:
            base = ".".join(package[: len(package) - (node.level - 1)] + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]
    return {n for n in names if n in files}


def _modules(root: Path, packages: tuple[str, ...]) -> dict[str, tuple[Path, list[str], ast.Module]]:
    """{module: (file, its package as name parts, parsed tree)} for every ``.py`` of ``packages``."""
    out = {}
    for pkg in packages:
        for path in sorted((root / pkg).rglob("*.py")):
            module = module_name(path, root)
            package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
            out[module] = (path, package, ast.parse(path.read_text(encoding="utf-8")))
    return out


def import_graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    """{module: the modules of ``packages`` it imports at import time}, for every module file."""
    mods = _modules(root, packages)
    files = set(mods)
    return {m: set().union(*(_targets(n, pkg, files) for n in _import_time_nodes(tree.body))) - {m}
            for m, (_, pkg, tree) in mods.items()}


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        m = todo.pop()
        if m == goal:
            return True
        if m not in seen:
            seen.add(m)
            todo += graph.get(m, ())
    return False


def test_no_import_circle_at_import_time() -> None:
    graph = import_graph()
    assert len(graph) > 100, "the walk found too few modules"
    assert [sorted(c) for c in circles(graph)] == [], "cut the circle (move the shared piece down a layer)"


def test_engine_defers_an_import_only_to_avoid_a_circle() -> None:
    """engine/ is pure Python with no costly dependency, so an import inside one of its
    functions is there only because the same import at module level would close a circle: the
    imported module already imports this one at import time (directly or through others)."""
    mods = _modules(ROOT, PACKAGES)
    graph = import_graph()
    needless = [f"{path.relative_to(ROOT)}:{node.lineno} {target}"
                for m, (path, pkg, tree) in mods.items() if m.split(".")[0] == "engine"
                for node in _function_imports(tree) for target in sorted(_targets(node, pkg, set(mods)))
                if not _reaches(graph, target, m)]
    assert needless == [], "import these at the top of the module"


def test_only_import_time_statements_count(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import b\n"
        "def f():\n    from . import c\n"
        "try:\n    from .d import x\nexcept ImportError:\n    from . import f\n"
        "class K:\n    from . import e\n")
    for name in "bcdef":
        (pkg / f"{name}.py").write_text("")
    assert import_graph(tmp_path, ("pkg",))["pkg.a"] == {"pkg.d", "pkg.e", "pkg.f"}
    assert [n.lineno for n in _function_imports(ast.parse((pkg / "a.py").read_text()))] == [5]


@pytest.mark.parametrize(("source", "edges"), [
    ("from . import b\n", {"pkg.b"}),
    ("from .b import x\n", {"pkg.b"}),
    ("from pkg import b, x\n", {"pkg.b", "pkg"}),
    ("import pkg.b\n", {"pkg.b"}),
    ("def f():\n    import pkg.b\n", set()),
])
def test_edges_name_the_module_imported(tmp_path: Path, source: str, edges: set) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "b.py").write_text("")
    (pkg / "a.py").write_text(source)
    assert import_graph(tmp_path, ("pkg",))["pkg.a"] == edges


def test_a_circle_through_a_package_init_is_found(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .a import x\n")
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "b.py").write_text("import pkg\n")
    (pkg / "c.py").write_text("from . import b\n")
    (pkg / "a.py").write_text("from . import c\nx = 1\n")
    assert [sorted(c) for c in circles(import_graph(tmp_path, ("pkg",)))] == [["pkg", "pkg.a", "pkg.b", "pkg.c"]]
