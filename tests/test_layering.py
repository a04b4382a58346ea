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
