"""The child-process progress lines of protocol.md part L, written as JSON.

A peer (``p2p.node.run_peer``) reports its progress as dicts through the callback
``PeerConfig.progress`` (p2p never imports ui: the node takes a callback); this module is the
writer ``lanopoli host|join --progress-json`` plugs in: one compact JSON object per line,
flushed at once so that a parent process (tests/e2e, bench, the classroom runner) reads each
line as it happens.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["progress_printer"]


def progress_printer(stream: Any = None) -> Callable[[dict], None]:
    """A progress callback writing each dict as one JSON line to ``stream`` (default: the
    current ``sys.stdout``, looked up at each line), flushed at once (protocol.md part L,
    "Child progress lines")."""

    def emit(msg: dict) -> None:
        out = stream if stream is not None else sys.stdout
        out.write(json.dumps(msg, separators=(",", ":")) + "\n")
        out.flush()

    return emit
