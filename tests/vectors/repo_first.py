"""Importing this puts the repository's own ``engine`` and ``p2p`` first on ``sys.path``.

For the vector tests in tests/ (test_vectors.py, test_session_vectors.py), which import the
engine and p2p at module level: pytest puts tests/ on ``sys.path``, and its engine/ and p2p/
test folders (no ``__init__.py``) would be found as namespace packages named "engine"/"p2p"
ahead of the editable install's finder. This puts the repository first and forgets such a
namespace package if one was imported already. Import it after putting tests/vectors/ on the
path (``sys.path.insert(0, str(VEC))``).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))
for _name in ("engine", "p2p"):
    if _name in sys.modules and getattr(sys.modules[_name], "__file__", None) is None:
        del sys.modules[_name]
