"""A failure while a peer starts its game ends ``run_peer`` with a NodeError at once.

Review finding: re-running a seeded game into the same log directory made every peer hit
FileExistsError when opening its log (the log is created exclusively, protocol.md §C6); the
error was lost in the transport's receive loop and each peer waited for its whole timeout.
protocol.md part L: the peer stops with an ``error`` line, code ``log``.
"""

import asyncio
import time

import pytest

from p2p.node import NodeError
from test_node import play


def test_a_log_that_already_exists_stops_the_peer_with_a_log_error(tmp_path):
    seed = b"start-failure"
    results, _ = asyncio.run(play(2, tmp_path, seed=seed))
    assert all(r.log_path.exists() for r in results)
    # Same seeds, same directory: the same game id, so the same log file names.
    # The timeout is far beyond the time a refused start takes; the test asserts on the
    # error, and the elapsed time is only reported in the failure message.
    t0 = time.monotonic()
    with pytest.raises(NodeError) as info:
        asyncio.run(play(2, tmp_path, seed=seed, timeout=120))
    assert info.value.code == "log", f"{info.value!r} after {time.monotonic() - t0:.1f} s"
    assert "game-" in str(info.value) and "exists" in str(info.value)
