"""Red team session 14 on main (H156): a hostile HOST names its own addresses as the other seats'
endpoints in its PROPOSAL (protocol.md §C2.1 'Endpoints are not part of the setup hash ... a wrong
endpoint reaches nobody', §N2.2, §N3.2).

The endpoints in a PROPOSAL are the host's word (not signed into the setup) and a joiner keeps
them as every seat's address. The channel key does stop anyone speaking AS a seat: but the host
needs no key to relay. It tells joiner A that joiner B is at an address of its own (R_B), and B
that A is at another (R_A), and forwards each datagram verbatim: the MAC covers the header and
the chunk, not the addresses, so every datagram verifies and every seat starts, with the host on
the only path between A and B for the whole game. From then on it can drop, delay or cut the
A<->B traffic at will: cut all of one seat's, and that seat is silent to every other seat, which
votes it out at the drop timeout (§C8.3) with honest votes only (5 seats: 3 others = Q). Seat
adverts (§N3.2) would move the channel back, but only once the relay address was unheard 5 s,
and never where multicast is blocked: the case join codes are for (§N3.1).
Sans-I/O lobbies and endpoints on ``p2p.faults.SimNetwork``'s virtual clock (as
``p2p.lobby_sim.lobby_game``).
"""

from __future__ import annotations

import pytest

from p2p.faults import FaultPlan, SimNetwork
from p2p.identity import Identity
from p2p.lobby import Lobby
from p2p.lobby_sim import LobbyPeer
from p2p.wire import MSG_PROPOSAL, Proposal, decode_proposal, open_envelope, seal_message

from redteam_s9_kit import Blind

HOST = ("10.0.0.1", 5000)
A, B = ("10.0.0.2", 5000), ("10.0.0.3", 5000)
R_B, R_A = ("10.0.0.1", 6002), ("10.0.0.1", 6003)  # the host's relay ports: "B" for A, "A" for B


class RelayPort(Blind):
    """One of the host's relay ports: a datagram from ``src_ok`` goes verbatim to ``dst``, sent
    from the ``twin`` port (the address ``dst`` was told ``src_ok`` is at; ``Blind.spoof`` queues
    it there); ``on`` False drops everything (the cut)."""

    def __init__(self, src_ok: tuple, dst: tuple) -> None:
        super().__init__()
        self.src_ok, self.dst = src_ok, dst
        self.twin: RelayPort | None = None
        self.on = True
        self.relayed = 0

    def receive_datagram(self, data: bytes, src: tuple, now: float) -> list:
        if self.on and src == self.src_ok and self.twin is not None:
            self.twin.spoof(data, self.dst)
            self.relayed += 1
        return []


def _relayed_lobby(relay: bool):
    host_id = Identity.from_seed(b"h156-relay-host")
    ids = {A: Identity.from_seed(b"h156-relay-a"), B: Identity.from_seed(b"h156-relay-b")}
    host = Lobby.host(host_id, edition="race", seats=3, name="Host", endpoint=HOST, chain_length=8)
    peers = {HOST: LobbyPeer(host_id, host, 100)}
    for i, a in enumerate((A, B), 1):
        peers[a] = LobbyPeer(ids[a], Lobby.join(ids[a], host_addr=HOST, game_id=host.game_id, name="j%d" % i,
                                                 chain_length=8,
                                                 host_keys=(host_id.public_key, host_id.x25519_public_key)), 100 + i)
    if relay:  # the host's PROPOSAL to each joiner names the relay port as the other joiner
        drain = host.messages_to_send

        def lying(out=None):
            msgs = []
            for dst, raw in drain():
                env = open_envelope(raw)
                if env.mtype == MSG_PROPOSAL and tuple(dst) in (A, B):
                    p = decode_proposal(env.body)
                    fake = R_B if tuple(dst) == A else R_A
                    other = B if tuple(dst) == A else A
                    eps = tuple(fake if tuple(e) == other else tuple(e) for e in p.endpoints)
                    raw = seal_message(host_id, MSG_PROPOSAL, Proposal(p.game_id, p.setup_bytes, p.setup, eps))
                msgs.append((dst, raw))
            return msgs

        host.messages_to_send = lying
    net = SimNetwork(FaultPlan(seed=1))
    for addr, peer in peers.items():
        net.attach(addr, peer)
    rb, ra = RelayPort(A, B), RelayPort(B, A)
    rb.twin, ra.twin = ra, rb
    net.attach(R_B, rb)
    net.attach(R_A, ra)
    while net.now < 60.0 and not all(p.done for p in peers.values()) and net.step():
        pass
    return peers, rb, ra


def _seat(peer: LobbyPeer, ident_pk: bytes) -> int:
    return next(i for i, p in enumerate(peer.started.setup.players) if p.public_key == ident_pk)


def test_premise_an_honest_host_gives_each_joiner_the_others_address():
    peers, rb, ra = _relayed_lobby(relay=False)
    a, b = peers[A], peers[B]
    assert a.started is not None and b.started is not None
    assert tuple(a.started.endpoints[_seat(a, b.lobby.identity.public_key)]) == B
    assert rb.relayed == ra.relayed == 0


@pytest.mark.xfail(strict=True, reason="H156 BREAK #4: the host's PROPOSAL names its own relay ports as "
                   "the other joiners' endpoints; every seat starts with the host on the only A<->B path "
                   "(§C2.1 'a wrong endpoint reaches nobody')")
def test_a_host_cannot_put_itself_on_the_only_path_between_two_joiners():
    """Every seat starts one game (same setup, SETUP_SIG and SEED exchanged through the relay,
    MACs valid); A's channel to B is the host's port R_B and B's to A is R_A, both keyed with the
    right seat keys. [MED: the host then cuts one joiner off from the others at will and the
    others' honest drop votes evict it (not tested here: the session side is §C8.3's partition
    rule); needs no advert traffic, i.e. multicast blocked, to stick.]
    Fix ideas: each seat signs its own endpoint (in its SETUP_SIG, or a signed 'I am at' in its
    first game datagram) and a joiner prefers the address a seat's MACed datagrams come from over
    the PROPOSAL's once heard there directly; or a seat's first channel to another is opened at
    the address the seat itself announced, the host's word only a fallback."""
    peers, rb, ra = _relayed_lobby(relay=True)
    a, b = peers[A], peers[B]
    assert a.started is not None and b.started is not None and peers[HOST].started is not None
    assert a.started.setup == b.started.setup
    assert rb.relayed > 0 and ra.relayed > 0  # every A<->B datagram went through the host
    assert tuple(a.started.endpoints[_seat(a, b.lobby.identity.public_key)]) == B, \
        "A plays with B through the host's relay port R_B"
