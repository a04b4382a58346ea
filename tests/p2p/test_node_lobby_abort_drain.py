"""A joiner whose lobby aborts on the host's lie keeps its socket open while the evidence it
forwarded goes out (``p2p.node_lobby.NodeLobby``, ``ABORT_DRAIN_S``; protocol.md §C2.2 step 7 'A
seat that lies'; RV16-A F1): ``Link.drain`` runs before the node fails, so the transport re-sends
a lost copy; an abort with nothing forwarded fails the node at once, as before."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from p2p.lobby import LobbyAborted
from p2p.node_lobby import ABORT_DRAIN_S, NodeLobby


class _Lobby:
    def __init__(self, relayed: int) -> None:
        self.stats = {"relayed": relayed} if relayed else {}
        self._events = [LobbyAborted("seat 0 signed a lie in the setup (the host's seat): two different setup signatures")]

    def next_event(self):
        return self._events.pop(0) if self._events else None


class _Node:
    def __init__(self, loop) -> None:
        self.loop = loop
        self.cfg = SimpleNamespace(role="joiner", observer=None)
        self.calls: list = []
        self.link = SimpleNamespace(endpoint=None, drain=self.drain)

    async def drain(self, timeout: float) -> bool:
        self.calls.append(("drain", timeout))
        await asyncio.sleep(0)
        return True

    def fail(self, err) -> None:
        self.calls.append(("fail", err.code, err.args))


def _abort(relayed: int) -> list:
    async def main():
        node = _Node(asyncio.get_running_loop())
        nl = NodeLobby(node)
        nl.lobby = _Lobby(relayed)
        assert nl._events() is False
        for _ in range(5):
            await asyncio.sleep(0)
        return node.calls, nl.leaving
    return asyncio.run(main())


def test_an_abort_after_forwarding_evidence_drains_before_the_node_fails():
    calls, leaving = _abort(relayed=2)
    assert calls[0] == ("drain", ABORT_DRAIN_S)
    assert [c[0] for c in calls] == ["drain", "fail"] and calls[1][1] == "lobby"
    assert leaving is False


def test_an_abort_with_nothing_forwarded_fails_the_node_at_once():
    calls, _ = _abort(relayed=0)
    assert [c[0] for c in calls] == ["fail"] and calls[0][1] == "lobby"


def test_a_drain_that_fails_still_fails_the_node_with_the_abort():
    """The socket closed under the drain (or a handler failed): the node still stops with the
    lobby's abort, and the task's error is read there, never left for the loop to warn about."""
    async def main():
        node = _Node(asyncio.get_running_loop())

        async def broken(timeout: float) -> bool:
            raise OSError("socket closed")
        node.link.drain = broken
        nl = NodeLobby(node)
        nl.lobby = _Lobby(relayed=1)
        nl._events()
        await nl._abort_drain
        return node.calls
    calls = asyncio.run(main())
    assert [c[0] for c in calls] == ["fail"] and calls[0][1] == "lobby"
