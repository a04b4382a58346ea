"""Red team, session 10 (H94), re-attack of H91's b9052dd (protocol.md §N2.6 'Lobby pins'): a joiner
pins every other seat of the PROPOSAL bounded from its first byte, a first flight of
``PIN_ALLOWANCE`` (2,000 B) and then 3x what the address sent until it is proven; "the first
flights of two seats that pin each other reach each other: neither waits for ever".

Liveness: the flight is a byte budget, retransmissions included. In niente-e-come-sembra a
SETUP_SIG carries every leaf of its seat (11,648 B, §C12.2), so the first flight is spent on its
first chunks; if those are lost, every retransmission is withheld, the other joiner (whose
flight met the same fate) never hears anything either, and both wait for the other to speak.

Measured with ``test_lobby_loss`` peers (in memory, seeded, 30% loss, 60 lobbies each of 3 and
4 seats, /tmp/h94/niente_lobby.py): before b9052dd 120 of 120 started in round 0; after it 3 of
120 ended with both honest joiners removed by the host at SETUP_TIMEOUT ("did not confirm the
setup in time") and aborted. Here the loss is made deterministic: the datagrams between the two
joiners are lost for the first second(s), nothing else is.
"""

from __future__ import annotations

import pytest

from p2p import const as C
from p2p.faults import FaultPlan, SimNetwork
from p2p.identity import Identity
from p2p.lobby import Lobby

from test_lobby_loss import HOST, LobbyPeer

J1, J2 = ("10.0.0.2", 5000), ("10.0.0.3", 5000)


class CutFrom:
    """A ``LobbyPeer`` whose datagrams to ``other`` are lost until ``cut`` s (the rest of the
    network is clean)."""

    def __init__(self, peer: LobbyPeer, other: tuple, cut: float) -> None:
        self.peer, self.other, self.cut = peer, other, cut

    def receive_datagram(self, data: bytes, src: tuple, now: float) -> list:
        return self.peer.receive_datagram(data, src, now)

    def datagrams_to_send(self, now: float) -> list:
        return [(d, a) for d, a in self.peer.datagrams_to_send(now) if not (a == self.other and now < self.cut)]

    def get_timer(self) -> float | None:
        return self.peer.get_timer()

    def handle_timer(self, now: float) -> None:
        self.peer.handle_timer(now)


def _lobby(edition: str, cut: float) -> dict:
    """A 3-seat lobby (host and two joiners with the host's keys, as from its advert) whose
    joiners lose what they send each other for ``cut`` s; run until all started or aborted, or
    2 x SETUP_TIMEOUT. Returns the peers by address."""
    host_id = Identity.from_seed(b"h94-pins-host")
    host = Lobby.host(host_id, edition=edition, seats=3, name="host", endpoint=HOST, demo_seed=b"h94-pins",
                      chain_length=8)
    peers = {HOST: LobbyPeer(host_id, host, 100)}
    for i, addr in enumerate((J1, J2), start=1):
        ident = Identity.from_seed(b"h94-pins-j%d" % i)
        peers[addr] = LobbyPeer(ident, Lobby.join(ident, endpoint=addr,
                                                  host_addr=HOST, game_id=host.game_id, name=f"j{i}",
                                                  chain_length=8,
                                                  host_keys=(host_id.public_key, host_id.x25519_public_key)), 100 + i)
    net = SimNetwork(FaultPlan(seed=0))
    net.attach(HOST, peers[HOST])
    net.attach(J1, CutFrom(peers[J1], J2, cut))
    net.attach(J2, CutFrom(peers[J2], J1, cut))
    while net.now < 2 * C.SETUP_TIMEOUT and not all(p.done for p in peers.values()) and net.step():
        pass
    return peers


def test_classico_joiners_whose_first_flights_to_each_other_are_lost_still_start():
    """Classico (a SETUP_SIG of ~200 B), the joiners cut from each other for 1 s: the flight holds
    the retransmissions of that second; every seat starts the same game, in the first round."""
    peers = _lobby("classico", 1.0)
    assert all(p.started is not None for p in peers.values()), [p.lobby.phase for p in peers.values()]
    assert peers[HOST].lobby.round == 0


@pytest.mark.parametrize("edition, cut", [("niente-e-come-sembra", 1.0), ("classico", 4.0)], ids=["niente_1s",
                                                                                                   "classico_4s"])
def test_joiners_whose_first_flights_to_each_other_are_lost_still_start(edition, cut):
    """Niente-e-come-sembra (a SETUP_SIG of 11.6 KB, several chunks) cut for 1 s, classico cut for
    4 s. The rule (§N2.6 'Lobby pins': the first flights of two seats that pin each other reach
    each other, neither waits for ever; §C2.2: an honest lobby starts): every seat starts, in
    round 0. (Fixed by H91's knocks: ``return_route.KNOCKS`` pure acks paid from the flight.)"""
    peers = _lobby(edition, cut)
    assert all(p.started is not None for p in peers.values()), [(p.lobby.phase, p.aborted) for p in peers.values()]
    assert peers[HOST].lobby.round == 0
