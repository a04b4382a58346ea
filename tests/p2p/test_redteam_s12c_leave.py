"""Red team s12c (H135): a joiner's LEAVE from the waiting room (6306fc8, H130; protocol.md §C2.2,
Part U 'Leaving the waiting room'). Since 6306fc8 the UI sends LEAVE, closes the node and may join
the same game again with a NEW node (new transport epoch, same identity and keys, and, with a fixed
port, the same address). Can a captured LEAVE, replayed from the player's address, free the seat of
the player who joined again, or a seat after the setup? Shared tools: tests/p2p/redteam_lan_kit.py."""

from __future__ import annotations

from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.identity import Identity
from p2p.lobby import Lobby

from redteam_lan_kit import HOST, HOST_ID


def _host(seats: int) -> Lobby:
    lob = Lobby.host(HOST_ID, edition="classico", seats=seats, name="host", endpoint=HOST, demo_seed=b"s12c")
    lob.messages_to_send()
    return lob


class _Wire:
    """One joiner node (its own Endpoint, ``epoch``) at ``paddr`` and the host's endpoint and lobby;
    every datagram the joiner sends is kept in ``sent`` (what a LAN sniffer captures)."""

    def __init__(self, lob: Lobby, host_ep: Endpoint, pid: Identity, paddr, epoch: int) -> None:
        self.lob, self.host_ep, self.paddr = lob, host_ep, paddr
        self.ep = Endpoint(epoch=epoch, keys=KeyCache(pid), accept_plain=False)
        self.ep.pin(HOST, HOST_ID.x25519_public_key)
        self.sent: list[bytes] = []

    def pump(self, lobby_msgs, now: float) -> None:
        for _addr, raw in lobby_msgs:
            self.ep.send(HOST, raw)
        for _ in range(3):
            for d, _a in self.ep.datagrams_to_send(now):
                self.sent.append(d)
                for addr, p in self.host_ep.receive_datagram(d, self.paddr, now):
                    self.lob.receive_message(p, addr, now, self.host_ep.peer_key(addr))
            for addr, xk in self.lob.peer_keys():
                self.host_ep.pin(addr, xk)
            for addr, raw in self.lob.messages_to_send():
                self.host_ep.send(addr, raw)
            for d, a in self.host_ep.datagrams_to_send(now):
                if a == self.paddr:
                    self.ep.receive_datagram(d, HOST, now)


def _replay(lob: Lobby, host_ep: Endpoint, datagrams, addr, now: float) -> None:
    for d in datagrams * 3:
        for a, p in host_ep.receive_datagram(d, addr, now):
            lob.receive_message(p, a, now, host_ep.peer_key(a))


def _leave_then_rejoin(new_addr):
    pid = Identity.from_seed(b"s12c-leaver")
    paddr = ("127.0.0.6", 41006)
    host_ep = Endpoint(epoch=6, keys=KeyCache(HOST_ID))
    lob = _host(4)
    hk = (HOST_ID.public_key, HOST_ID.x25519_public_key)
    old = _Wire(lob, host_ep, pid, paddr, epoch=8)
    first = Lobby.join(pid, endpoint=paddr, host_addr=HOST, game_id=lob.game_id, name="p", host_keys=hk)
    old.pump(first.messages_to_send(), 0.0)
    assert paddr in lob.peer_addresses()
    first.leave()
    mark = len(old.sent)
    old.pump(first.messages_to_send(), 0.1)
    leave_datagrams = old.sent[mark:]
    assert leave_datagrams and paddr not in lob.peer_addresses()
    # The player joins again from a new node (Part U: the list browsed afresh, join again).
    addr2 = new_addr or paddr
    new = _Wire(lob, host_ep, pid, addr2, epoch=9)
    again = Lobby.join(pid, endpoint=addr2, host_addr=HOST, game_id=lob.game_id, name="p", host_keys=hk)
    t = 2.0
    while addr2 not in lob.peer_addresses() and t < 8.0:  # JOIN re-sent every JOIN_RESEND_S
        again.handle_timer(t)
        lob.handle_timer(t)
        new.pump(again.messages_to_send(), t)
        t += 0.05
    assert addr2 in lob.peer_addresses()
    return lob, host_ep, leave_datagrams, paddr, addr2


def test_a_replayed_leave_of_an_old_node_does_not_evict_the_player_who_joined_again_at_the_same_address():
    """Holds (§C2.2 LEAVE, §N2.3 epochs): the old node's LEAVE datagrams carry the old transport
    epoch; replayed from the same address after the new node's JOIN they are not delivered (or
    deliver a LEAVE the seat's new channel does not take), and the player keeps its seat."""
    lob, host_ep, leave_dgs, paddr, addr2 = _leave_then_rejoin(None)
    _replay(lob, host_ep, leave_dgs, paddr, 2.5)
    assert addr2 in lob.peer_addresses()


def test_a_replayed_leave_of_an_old_node_does_not_evict_the_player_who_joined_again_from_a_new_port():
    """Holds (§C2.2: only the player joined from THIS address may leave): the seat is now at the
    new node's port; the old LEAVE replayed from the old address names no joined player there."""
    lob, host_ep, leave_dgs, paddr, addr2 = _leave_then_rejoin(("127.0.0.6", 41016))
    _replay(lob, host_ep, leave_dgs, paddr, 2.5)
    assert addr2 in lob.peer_addresses()
