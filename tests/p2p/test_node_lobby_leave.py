"""A joiner's Leave in the waiting room (``p2p.node_lobby.NodeLobby.leave``; protocol.md §C2.2
"LEAVE": the host frees the seat). RV13-C #5: ``leave`` did not pump, but the node still did: the
lobby timer armed before (the JOIN re-send) or a lobby payload arriving during ``Link.drain`` met
the queued ``LobbyAborted("left the lobby")`` and failed the node, so ``run`` closed the socket
under the drain and a LEAVE whose first copy was lost was never re-sent: the seat lingered until
§C2.2 step 7. Now the abort ends quietly while ``leaving`` and the node fails after the drain.

Sans-I/O: a real joiner ``Lobby`` (harness lobbies), real transport ``Endpoint``s for the joiner
and the host on a virtual clock; the node is what ``NodeLobby`` uses of it, with ``Node._on_timer``'s
pump and ``Link.drain``'s loop, and its socket closed once it failed (``run`` ends).
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from p2p.endpoint import Endpoint
from p2p.lobby import JOINING, REVEALING, SIGNING, WAITING, PlayerLeft
from p2p.node_lobby import LEFT, NodeLobby
from p2p.wire import MSG_LEAVE, open_envelope

from p2p_harness import addr, drain, make_lobbies, pump_lobbies

HOST, ME = addr(0), addr(1)
LOST = 2  # the joiner's first datagrams after the Leave, lost on the way to the host


class _Node:
    """What ``NodeLobby`` uses of ``p2p.node.Node``, with a link over a real ``Endpoint`` pair."""

    def __init__(self, lobby, host_lobby) -> None:
        self.cfg = SimpleNamespace(role="joiner", observer=None)
        self.failed: list = []
        self.lobbying = NodeLobby(self)
        self.lobbying.lobby = lobby
        self.host_lobby = host_lobby
        self.mine, self.hosts = Endpoint(epoch=1), Endpoint(epoch=2)
        self.link = SimpleNamespace(endpoint=SimpleNamespace(pin=lambda *a: None, trust=lambda *a: None,
                                                             await_seat=lambda *a: None),
                                    send=self.mine.send, drain=self.drain)
        self.timer_at = lobby.get_timer()  # the node's timer, armed before the Leave (JOIN re-send)
        self.leaves_sent = self.lost = 0
        self.now = 0.0

    def fail(self, err) -> None:
        self.failed.append(err)

    def _on_timer(self) -> None:  # what Node._on_timer does in the lobby
        self.lobbying.lobby.handle_timer(self.now)
        self.lobbying.pump()

    async def drain(self, timeout: float) -> bool:
        """``Link.drain`` on a virtual clock: the transport re-sends until acked, as long as the
        socket is open (the node has not failed: ``run`` closes it then)."""
        end = self.now + timeout
        while self.now < end and not self.failed:
            if self.timer_at is not None and self.now >= self.timer_at:
                self.timer_at = None
                self._on_timer()
            for data, dst in self.mine.datagrams_to_send(self.now):
                self.leaves_sent += 1
                if self.lost < LOST:
                    self.lost += 1
                    continue
                for src, payload in self.hosts.receive_datagram(data, ME, self.now):
                    self.host_lobby.receive_message(payload, src, self.now, confirmed=True)
            for data, dst in self.hosts.datagrams_to_send(self.now):
                self.mine.receive_datagram(data, HOST, self.now)
            if self.mine.idle:
                return True
            self.now += 0.01
            self.mine.handle_timer(self.now)
            self.hosts.handle_timer(self.now)
            await asyncio.sleep(0)
        return self.mine.idle


def _waiting():
    """The host of a 3-seat lobby and one joiner seated in it (waiting for the third player)."""
    lobbies = make_lobbies(3)
    host, me = lobbies[HOST], lobbies[ME]
    pump_lobbies({HOST: host, ME: me})
    assert me.phase == WAITING and len(host.members()) == 2
    drain(host)
    drain(me)
    return host, me


def test_a_timer_during_the_drain_fails_nothing_and_the_leave_is_resent_until_acked():
    """§C2.2 LEAVE (RV13-C #5): the JOIN re-send timer fires while the Leave drains and its first
    copies are lost: the node is not failed before the host acked the LEAVE, the LEAVE reached
    the host (the seat freed, ``PlayerLeft``) and then the node ends ("left the lobby")."""
    host, me = _waiting()
    node = _Node(me, host)
    node.now = node.timer_at - 0.05  # the Leave just before the JOIN re-send: it fires within the drain

    async def leave():
        drained = asyncio.ensure_future(node.lobbying.leave(2.0))
        await asyncio.sleep(0)
        return await drained, list(node.failed)

    left, failed_at_end = asyncio.run(leave())
    assert node.timer_at is None  # it fired
    assert left and node.mine.idle and node.lost == LOST and node.leaves_sent > LOST
    assert PlayerLeft in [type(ev) for ev in drain(host)] and len(host.members()) == 1
    assert len(failed_at_end) == 1 and (failed_at_end[0].code, str(failed_at_end[0])) == ("lobby", LEFT)
    assert not node.lobbying.leaving


def test_leave_sends_nothing_without_a_lobby():
    """``leave`` is False, nothing sent and nothing failed, when there is no lobby (yet)."""
    node = SimpleNamespace(link=SimpleNamespace(send=lambda *a: sent.append(a)), fail=lambda e: failed.append(e))
    sent: list = []
    failed: list = []
    assert asyncio.run(NodeLobby(node).leave(1.0)) is False and sent == [] and failed == []


def test_leave_sends_nothing_once_the_setup_is_proposed_or_as_the_host():
    """``leave`` is False, nothing sent, when it is too late (the joiner signs the setup) or we
    host (§C2.2: a LEAVE only before the PROPOSAL)."""
    lobbies = make_lobbies(2)
    while lobbies[ME].phase in (JOINING, WAITING):  # deliver batch by batch up to the PROPOSAL
        for src, lob in lobbies.items():
            for dst, raw in lob.messages_to_send():
                lobbies[tuple(dst)].receive_message(raw, src, 0.0, confirmed=True)
    assert lobbies[ME].phase in (SIGNING, REVEALING)
    for lob in lobbies.values():
        sent: list = []
        node = SimpleNamespace(link=SimpleNamespace(send=lambda *a: sent.append(a)), fail=lambda e: sent.append(e))
        nl = NodeLobby(node)
        nl.lobby = lob
        assert asyncio.run(nl.leave(1.0)) is False and sent == []
        assert not any(open_envelope(raw).mtype == MSG_LEAVE for _, raw in lob.messages_to_send())
