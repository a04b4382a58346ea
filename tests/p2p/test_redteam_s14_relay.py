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
Version 6 (H159) closes it: each seat's endpoint is in its own player entry, which it signs in
its JOIN and every seat signs in the setup (§C2.1 'Endpoints'); PROPOSAL carries no endpoints.
The host can now only alter entries in the setup it shows a joiner: its own entry altered, the
joiner refuses; another seat's altered, that seat's SETUP_SIG is over another hash and nobody
starts with it. Sans-I/O lobbies and endpoints on ``p2p.faults.SimNetwork``'s virtual clock (as
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


#: What the hostile host does to the setup it proposes to one joiner: ``honest``; ``other``: the
#: other joiner's endpoint is the relay port; ``own``: the joiner's own endpoint is (so that the
#: others would reach it through the host).
PLANS = ("honest", "other", "own")


def _relayed_lobby(relay: bool | tuple = False):
    """A 3-seat lobby (host, A, B). ``relay``: True = (``other``, ``other``), or a plan per joiner
    (A's, B's) of ``PLANS``: the host re-signs each joiner's PROPOSAL with the setup so altered
    (version 6: the endpoints are in the entries; version 5 put them in the PROPOSAL's list)."""
    plans = ("other", "other") if relay is True else (relay or ("honest", "honest"))
    host_id = Identity.from_seed(b"h156-relay-host")
    ids = {A: Identity.from_seed(b"h156-relay-a"), B: Identity.from_seed(b"h156-relay-b")}
    host = Lobby.host(host_id, edition="race", seats=3, name="Host", endpoint=HOST, chain_length=8)
    peers = {HOST: LobbyPeer(host_id, host, 100)}
    for i, a in enumerate((A, B), 1):
        peers[a] = LobbyPeer(ids[a], Lobby.join(ids[a], endpoint=a, host_addr=HOST, game_id=host.game_id,
                                                 name="j%d" % i, chain_length=8,
                                                 host_keys=(host_id.public_key, host_id.x25519_public_key)), 100 + i)
    if plans != ("honest", "honest"):
        drain = host.messages_to_send
        fake = {A: R_A, B: R_B}  # where the host would have the others reach A, B

        def lying(out=None):
            msgs = []
            for dst, raw in drain():
                env = open_envelope(raw)
                plan = plans[(A, B).index(tuple(dst))] if tuple(dst) in (A, B) else "honest"
                if env.mtype == MSG_PROPOSAL and plan != "honest":
                    p = decode_proposal(env.body)
                    who = tuple(dst) if plan == "own" else (B if tuple(dst) == A else A)
                    players = tuple(q._replace(endpoint=fake[who]) if q.public_key == ids[who].public_key else q
                                    for q in p.setup.players)
                    setup = p.setup._replace(players=players)
                    raw = seal_message(host_id, MSG_PROPOSAL, Proposal(p.game_id, setup.encode(), setup))
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
    peers, rb, ra = _relayed_lobby()
    a, b = peers[A], peers[B]
    assert a.started is not None and b.started is not None
    assert tuple(a.started.endpoints[_seat(a, b.lobby.identity.public_key)]) == B
    assert rb.relayed == ra.relayed == 0


def test_a_host_cannot_put_itself_on_the_only_path_between_two_joiners():
    """H156 BREAK #4 [MED], closed in version 6 (§C2.1 'Endpoints'). Version 5: the host's
    PROPOSAL named its relay ports R_B (to A) and R_A (to B) as the other joiner's endpoint; every
    seat started one game with the host forwarding every A<->B datagram verbatim (MACs valid),
    able to cut a joiner off so that its honest peers' drop votes evicted it. Now the endpoints
    are in the entries the seats sign: the host that shows A a setup with B at R_B has altered
    B's entry, so A's setup hash is not B's; nobody starts with the relay (each joiner gives the
    round up at SETUP_TIMEOUT + SETUP_HOST_GRACE: a host can always refuse to start its lobby)."""
    peers, rb, ra = _relayed_lobby(relay=True)
    a, b = peers[A], peers[B]
    assert a.started is None and b.started is None and peers[HOST].started is None
    assert a.lobby.setup_hash != b.lobby.setup_hash


@pytest.mark.parametrize("plan_a", PLANS)
@pytest.mark.parametrize("plan_b", PLANS)
def test_every_seat_opens_its_channel_to_a_seat_at_the_endpoint_that_seat_signed(plan_a, plan_b):
    """Property (§C2.1 'Endpoints', version 6), exhaustive over what the host may do to each
    joiner's setup (``PLANS``: honest, the other joiner at a relay port, the joiner itself at a
    relay port): whatever the host proposes, every seat that starts holds, for every other joiner
    s, the endpoint s signed (its own ``me``), and the relay ports carry no datagram of a started
    game. The honest plans start everyone."""
    peers, rb, ra = _relayed_lobby(relay=(plan_a, plan_b))
    signed = {peers[x].lobby.identity.public_key: tuple(peers[x].lobby.me.endpoint) for x in (A, B)}
    started = [p for p in peers.values() if p.started is not None]
    for p in started:
        for s, q in enumerate(p.started.setup.players):
            if q.public_key in signed and q.public_key != p.lobby.identity.public_key:
                assert tuple(p.started.endpoints[s]) == signed[q.public_key]
    if (plan_a, plan_b) == ("honest", "honest"):
        assert len(started) == 3 and rb.relayed == ra.relayed == 0
    else:
        assert started == []  # an altered entry: our own refused, another's SETUP_SIG over another hash
