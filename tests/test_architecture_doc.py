"""docs/ARCHITECTURE.md names every module of engine/, p2p/ and ui/, and only modules that exist.

The page is how a newcomer finds the module that owns something (issue 13: it had fallen to
10 of 19 p2p modules). A module added without a line there, or removed with its line left,
fails here; the fix is one table row in the right section.
"""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ARCHITECTURE.md"
PACKAGES = ("engine", "p2p", "ui")


def modules(root: Path = ROOT) -> set[str]:
    """Every ``.py`` file of the three packages, as a path relative to ``root``."""
    return {str(p.relative_to(root)) for pkg in PACKAGES for p in (root / pkg).rglob("*.py")
            if "__pycache__" not in p.parts}


def named_in_doc(text: str) -> set[str]:
    """Module paths written in backticks (`p2p/sealed.py`) in ``text``."""
    return set(re.findall(r"`((?:%s)/[\w/]+\.py)`" % "|".join(PACKAGES), text))


def test_every_module_has_a_line_in_architecture_md() -> None:
    missing = sorted(modules() - named_in_doc(DOC.read_text(encoding="utf-8")))
    assert missing == [], "add a row for each to docs/ARCHITECTURE.md"


def test_architecture_md_names_no_module_that_is_gone() -> None:
    gone = sorted(named_in_doc(DOC.read_text(encoding="utf-8")) - modules())
    assert gone == [], "remove or rename these rows in docs/ARCHITECTURE.md"


def test_the_checker_reads_backticked_paths_only() -> None:
    assert named_in_doc("`p2p/a.py` and p2p/b.py and `ui/x/y.py` `engine/z.pyc`") == {"p2p/a.py", "ui/x/y.py"}
