"""Red team, the hostile laptop on the LAN (H82): a ghost seat at a spoofed address (protocol.md §N2.6
"Game started" and its red-team row).

A seat-holder sees the setup bytes through its own seat, so it can seat a second key of its own (the
ghost) whose JOIN, SETUP_SIG and SEED leave from a victim's address V, MACed with the ghost's static
X25519 channel keys. Before H82 ``Endpoint.restrict`` confirmed every seat's channel when the game
started, so each seat streamed the game's traffic to V (every STEP, its resends) with no bound. Now a
seat channel whose peer has not proven its address (a RESPONSE to a CHALLENGE sent there) is bounded
to 3x what the address sent and challenged at the start; an honest seat answers at once.

Endpoint-level attacks use the red-team kit's tools (tests/p2p/redteam_lan_kit.py); the honest games
are real lobbies plus a lockstep of STEP-sized payloads on ``p2p.faults.SimNetwork`` (virtual clock,
seeded loss): no socket, no timing asserted.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.faults import FaultPlan, SimNetwork
from p2p.identity import Identity
from p2p.lobby import GameStarted, Lobby
from p2p.node_lobby import pin_seats
from p2p.return_route import PIN_ALLOWANCE
from p2p.transport import UNCONFIRMED_FACTOR

from redteam_lan_kit import MALLORY, TICK, VICTIM, bytes_to, forge_intro

SEAT = Identity.from_seed(b"h82-seat")
SEAT_ADDR = ("127.0.0.3", 41000)
OTHER_SEAT = ("127.0.0.4", 41000)
GHOST = Identity.from_seed(b"h82-ghost")  # the seat-holder's second key, seated at VICTIM
MALLORY_ADDR = ("127.0.0.66", 41000)  # the seat-holder's own machine
SETUP_SIG = b"s" * 1500  # a SETUP_SIG-sized lobby message (§C2.2 step 4)
STEP = b"t" * 300  # a STEP-sized game message (§C3)


def _seated_ghost(src: tuple) -> tuple[Endpoint, list[bytes], int]:
    """A seat's endpoint as the PROPOSAL left it: V pinned to the ghost's key (``pin``: a channel
    the seat opened itself, not confirmed by anything V did), the seat's SETUP_SIG sent there, the
    ghost's SETUP_SIG received as introductions from ``src`` (V, or the attacker's own address).
    Returns (endpoint, the ghost's datagrams, the bytes the lobby sent V in 2 s)."""
    ep = Endpoint(epoch=21, keys=KeyCache(SEAT), accept_plain=False)
    ep.pin(VICTIM, GHOST.x25519_public_key)
    ep.pin(OTHER_SEAT, MALLORY.x25519_public_key)
    ep.send(VICTIM, SETUP_SIG)
    ghost = forge_intro(GHOST, SEAT_ADDR, SEAT.x25519_public_key, SETUP_SIG)
    for d in ghost:
        ep.receive_datagram(d, src, 0.0)
    return ep, ghost, bytes_to(ep, VICTIM, 2.0)


def _game(ep: Endpoint):
    """What the seat does once the game started: ``restrict`` to the setup's endpoints, then a
    STEP to every seat each tick (the ghost's included: it is seated)."""
    ep.restrict([VICTIM, OTHER_SEAT])
    return lambda now: ep.send(VICTIM, STEP)


def test_a_ghost_seat_at_a_spoofed_address_gets_at_most_three_times_what_it_sent():
    """§N2.6 "Game started" (H82, was open): the ghost's lobby messages came from V, so the seat's
    channel to V heard them; at the start it is bounded and challenged, the CHALLENGE goes to V,
    which never answers: in 30 s of play the seat sends V at most 3x the bytes V sent it, nothing
    in the last 20 s (before: every STEP and its resends, 419 KB in 30 s, growing with the game)."""
    ep, ghost, _lobby_bytes = _seated_ghost(VICTIM)
    drive = _game(ep)
    ch = ep.channels[VICTIM]
    assert not ch.confirmed
    sent = bytes_to(ep, VICTIM, 10.0, drive)
    spoofed = sum(len(d) for d in ghost)
    assert sent <= UNCONFIRMED_FACTOR * spoofed, f"{spoofed} B from V -> {sent} B to V"
    assert bytes_to(ep, VICTIM, 20.0, drive) == 0
    assert ch.stats["challenges_sent"] >= 1 and ch.stats["unconfirmed_withheld"] > 0 and not ch.confirmed


def test_a_ghost_whose_lobby_messages_came_from_elsewhere_gets_nothing_once_the_game_starts():
    """§N2.6 "Game started" (H82): the ghost's SETUP_SIG came from the attacker's own address (a
    seat checks the channel key, not the address), so V never sent the seat anything: from the
    start the seat's channel to V sends nothing at all (it cannot even name an epoch to challenge)
    until V speaks."""
    ep, _ghost, lobby_bytes = _seated_ghost(MALLORY_ADDR)
    assert lobby_bytes > 0  # the lobby's pinned channel did send V our SETUP_SIG (§N2.6: lobby time)
    drive = _game(ep)
    assert bytes_to(ep, VICTIM, 30.0, drive) == 0
    assert MALLORY_ADDR not in ep.channels  # not a seat's endpoint: forgotten


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 100), min_size=1, max_size=6))
def test_a_ghost_played_from_the_spoofed_address_never_earns_more_than_three_times(gaps):
    """§N2.6 "Game started" (H82), property: the attacker keeps playing the ghost from V (its
    datagrams again at any times, ``gaps``: ticks between them) while the seat sends its STEPs:
    at every moment, after the start, the seat sent V at most 3x every byte V sent it; the
    channel is never confirmed (the nonces go to V)."""
    ep, ghost, _lobby_bytes = _seated_ghost(VICTIM)
    drive = _game(ep)
    spoofed, sent, now = sum(len(d) for d in ghost), 0, 2.0
    for gap in [*gaps, 200]:
        for _ in range(gap):
            drive(now)
            ep.handle_timer(now)
            sent += sum(len(d) for d, a in ep.datagrams_to_send(now) if a == VICTIM)
            assert sent <= UNCONFIRMED_FACTOR * spoofed
            now += TICK
        for d in ghost:
            spoofed += len(d)
            ep.receive_datagram(d, VICTIM, now)
    assert not ep.channels[VICTIM].confirmed


class LockstepSeat:
    """One honest peer on ``SimNetwork``: its lobby and endpoint pumped as
    ``p2p.node_lobby.NodeLobby.pump`` does (pin, send, trust; at ``GameStarted`` ``restrict`` then
    ``pin_seats``), then a lockstep of ``STEP``-sized payloads: step k+1 goes to every other seat
    once this peer holds every seat's step k (§N2.4). ``done_at[k]``: when it held all of step k."""

    def __init__(self, identity: Identity, lobby: Lobby, epoch: int, steps: int) -> None:
        self.ep = Endpoint(epoch=epoch, keys=KeyCache(identity), accept_plain=lobby.role == "host")
        self.lobby = lobby
        self.steps = steps
        self.started: GameStarted | None = None
        self.held: dict[int, set] = {}
        self.done_at: list[float] = []
        self.started_at = 0.0
        self.withheld_at_start = 0

    def _pump(self, now: float) -> None:
        lob, ep = self.lobby, self.ep
        if self.started is None:
            for addr, xk in lob.peer_keys():
                ep.pin(addr, xk)
            for addr, raw in lob.messages_to_send():
                ep.send(tuple(addr), raw)
            ep.trust(lob.peer_addresses())
            while (ev := lob.next_event()) is not None:
                if isinstance(ev, GameStarted):
                    ep.restrict(ev.endpoints)
                    pin_seats(ep, ev.setup.players, ev.endpoints, ev.my_seat)
                    self.started, self.started_at = ev, now
                    self.withheld_at_start = ep.totals()["unconfirmed_withheld"]
                    self._send_step(0)
        if self.started is None:
            return
        others = self._others()
        while len(self.done_at) < self.steps and self.held.get(len(self.done_at), set()) >= others:
            self.done_at.append(now)
            self._send_step(len(self.done_at))

    def _others(self) -> set:
        ev = self.started
        return {tuple(a) for i, a in enumerate(ev.endpoints) if i != ev.my_seat}

    def _send_step(self, k: int) -> None:
        if k < self.steps:
            for addr in self._others():
                self.ep.send(addr, b"STEP%04d" % k + STEP)

    def receive_datagram(self, data: bytes, src: tuple, now: float) -> list:
        for addr, payload in self.ep.receive_datagram(data, src, now):
            if payload.startswith(b"STEP"):
                self.held.setdefault(int(payload[4:8]), set()).add(addr)
            elif self.started is None:
                self.lobby.receive_message(payload, addr, now, self.ep.peer_key(addr))
        self._pump(now)
        return []

    def datagrams_to_send(self, now: float) -> list:
        self._pump(now)
        return self.ep.datagrams_to_send(now)

    def get_timer(self) -> float | None:
        t = [self.ep.get_timer(), None if self.started is not None else self.lobby.get_timer()]
        t = [x for x in t if x is not None]
        return min(t) if t else None

    def handle_timer(self, now: float) -> None:
        self.ep.handle_timer(now)
        t = self.lobby.get_timer()
        if self.started is None and t is not None and now >= t:
            self.lobby.handle_timer(now)
        self._pump(now)


def lockstep_game(seed: int, seats: int, loss: float, steps: int = 10) -> dict:
    """A seeded honest game in memory: a host, ``seats`` - 1 joiners with the host's keys (an
    advert), the lobby to its start, then ``steps`` lockstep rounds. Returns address -> seat."""
    host_id = Identity.from_seed(b"h82-host-%d" % seed)
    host_addr = ("10.0.0.1", 5000)
    host = Lobby.host(host_id, edition="classico", seats=seats, name="host", endpoint=host_addr,
                      demo_seed=b"h82-%d" % seed, chain_length=8)
    peers = {host_addr: LockstepSeat(host_id, host, 100, steps)}
    for i in range(1, seats):
        ident = Identity.from_seed(b"h82-j%d-%d" % (i, seed))
        peers[("10.0.0.%d" % (i + 1), 5000)] = LockstepSeat(ident, Lobby.join(
            ident, endpoint=("10.0.0.%d" % (i + 1), 5000), host_addr=host_addr, game_id=host.game_id, name=f"j{i}",
            chain_length=8,
            host_keys=(host_id.public_key, host_id.x25519_public_key)), 100 + i, steps)
    net = SimNetwork(FaultPlan(seed=seed, loss=loss))
    for addr, peer in peers.items():
        net.attach(addr, peer)
    while net.now < 2 * C.SETUP_TIMEOUT and not all(len(p.done_at) == steps for p in peers.values()) \
            and net.step():
        pass
    return peers


@pytest.mark.parametrize("loss", [0.0, 0.2])
@pytest.mark.parametrize("seats,seed", [(2, 0), (3, 1), (4, 2), (4, 3)])
def test_honest_seats_prove_their_addresses_at_the_start_and_nothing_waits_for_it(seats, seed, loss):
    """§N2.6 "Game started" (H82): in an honest game (seeded, in memory, with and without 20%
    loss) every seat channel not yet proven is bounded at the start until its CHALLENGE is
    answered; every seat plays every step. Without loss every seat channel ends proven and the
    bound holds nothing back (``unconfirmed_withheld`` does not move after the start: no step waits
    for a proof); the credit is 3x what the seat's address sent in the lobby. At 20% loss a
    channel whose CHALLENGEs or RESPONSEs were all lost so far is still a bounded seat channel
    (it never gives up). (At 20% loss a data
    datagram is now and then withheld until the RESPONSE, 12 in 200 games; over 300 games per size
    the mean start-to-first-step time is the same with and without the bound: protocol.md.)"""
    peers = lockstep_game(seed, seats, loss)
    for p in peers.values():
        assert len(p.done_at) == p.steps
        assert set(p.ep.channels) == p._others()
        if loss == 0.0:
            assert p.ep.totals()["unconfirmed_withheld"] == p.withheld_at_start
            assert all(ch.confirmed and ch.route.proven for ch in p.ep.channels.values())
        assert all(ch.route.proven or ch.route.seat for ch in p.ep.channels.values())


def _run(a: Endpoint, b: Endpoint, start: float, end: float, a_to_b_lost: bool = False) -> tuple[float, list]:
    """Tick ``a`` (at SEAT_ADDR) and ``b`` (at OTHER_SEAT) from ``start`` to ``end`` s, every
    datagram delivered at the next tick unless ``a_to_b_lost``; returns (end, payloads b got)."""
    got, now = [], start
    while now < end:
        for ep in (a, b):
            ep.handle_timer(now)
        for d, _dst in a.datagrams_to_send(now):
            if not a_to_b_lost:
                got += [p for _, p in b.receive_datagram(d, SEAT_ADDR, now)]
        for d, _dst in b.datagrams_to_send(now):
            a.receive_datagram(d, OTHER_SEAT, now)
        now += TICK
    return now, got


def _lobby_pair(epoch_a: int, epoch_b: int) -> tuple[Endpoint, Endpoint, float, list]:
    """Seat ``a`` (SEAT at SEAT_ADDR) and seat ``b`` (MALLORY's key at OTHER_SEAT) pin each other,
    and exchange SETUP_SIG for 1 s, in the lobby: (a, b, now, payloads b got)."""
    a = Endpoint(epoch=epoch_a, keys=KeyCache(SEAT), accept_plain=False)
    b = Endpoint(epoch=epoch_b, keys=KeyCache(MALLORY), accept_plain=False)
    a.pin(OTHER_SEAT, MALLORY.x25519_public_key)
    b.pin(SEAT_ADDR, SEAT.x25519_public_key)
    a.send(OTHER_SEAT, SETUP_SIG)
    b.send(SEAT_ADDR, SETUP_SIG)
    now, got = _run(a, b, 0.0, 1.0)
    return a, b, now, got


def test_a_seat_channel_whose_proof_was_lost_never_gives_up():
    """§N2.6 "Game started" (H82): a seat channel bounded since the start does not give up as a
    lobby stranger's does (``UNCONFIRMED_RESENDS``): it re-sends within the bound and challenges
    again at each timeout. Two seats that heard each other in the lobby start; everything the
    first sends is lost for 10 s (its CHALLENGE, its RESPONSE, its STEP and 4+ resends) while the
    second, holding nothing to send, waits for that STEP: with the lobby's rule the first went
    dormant and the game waited for ever; now the STEP arrives once the loss ends and both
    channels end proven."""
    a, b, now, got = _lobby_pair(31, 32)
    assert got == [SETUP_SIG] and a.idle and b.idle
    a.restrict([OTHER_SEAT])
    b.restrict([SEAT_ADDR])
    a.send(OTHER_SEAT, STEP)
    now, got = _run(a, b, now, now + 10.0, a_to_b_lost=True)
    assert got == [] and a.channels[OTHER_SEAT].stats["timeouts"] > 3
    now, got = _run(a, b, now, now + 2.0)
    assert got == [STEP]
    assert a.channels[OTHER_SEAT].route.proven and b.channels[SEAT_ADDR].route.proven


@pytest.mark.parametrize("seats", [3, 4])
def test_honest_games_at_20_percent_loss_play_every_step_under_the_bound(seats):
    """§N2.6 "Game started" (H82), liveness: 30 seeded honest games per size at 20% loss, seat
    channels bounded from the start until their RESPONSE, all play every step (an early version
    that let a seat channel give up stalled one 3-seat game in 100 for ever)."""
    for seed in range(45, 75):
        peers = lockstep_game(seed, seats, 0.2, steps=4)
        assert all(len(p.done_at) == p.steps for p in peers.values()), seed


MOVED_TO = ("127.0.0.5", 41001)  # where a seat says it listens now (an advert, §N3.2)


def _moved(ep: Endpoint, to: tuple) -> None:
    """The game started (restrict, then the seats pinned, as ``Node.route_seats`` does), then the
    other seat moved to ``to`` by an advert: routed again the same way."""
    ep.restrict([OTHER_SEAT])
    ep.pin(OTHER_SEAT, MALLORY.x25519_public_key)
    ep.restrict([to, OTHER_SEAT])  # the new address and the old one (``left_from``)
    ep.pin(to, MALLORY.x25519_public_key)


def test_a_seat_moved_by_an_advert_to_a_victims_address_gets_at_most_a_first_flight():
    """§N2.6 "Game started", §N3.2 (H82, H85's break): anyone can copy a quiet seat's advert with
    the victim's address; the node moves the seat and pins the new address. A pin after
    ``restrict`` is bounded from its first byte with ``PIN_ALLOWANCE`` (not 0: when every seat
    resumed at a new address nobody else speaks first, tests/e2e/test_table_resume_e2e.py): V
    never sent anything, so our steps to that seat (300 B every 50 ms for 30 s) send V at most
    that (before: every step, resent, ~420 KB)."""
    ep = Endpoint(epoch=41, keys=KeyCache(SEAT), accept_plain=False)
    _moved(ep, VICTIM)
    assert bytes_to(ep, VICTIM, 30.0, lambda now: ep.send(VICTIM, STEP)) <= PIN_ALLOWANCE
    assert not ep.channels[VICTIM].confirmed


def test_a_seat_that_really_moved_speaks_first_and_gets_our_steps():
    """§N2.6 "Game started", §N3.2 (H82): the seat that really moved is a restarted peer at its new
    address; it pins us (its own channel, not bounded) and speaks first, so our channel to its new
    address hears it, challenges it, is proven and delivers our steps both ways."""
    ep = Endpoint(epoch=41, keys=KeyCache(SEAT), accept_plain=False)
    _moved(ep, MOVED_TO)
    ep.send(MOVED_TO, STEP)
    moved = Endpoint(epoch=42, keys=KeyCache(MALLORY), accept_plain=False)
    moved.restrict([SEAT_ADDR])  # a restarted peer routes the seats from its log (§N5)
    moved.pin(SEAT_ADDR, SEAT.x25519_public_key)
    moved.send(SEAT_ADDR, STEP + b"!")
    got, now = {SEAT_ADDR: [], MOVED_TO: []}, 0.0
    for _ in range(40):
        for d, _dst in moved.datagrams_to_send(now):
            got[SEAT_ADDR] += [p for _, p in ep.receive_datagram(d, MOVED_TO, now)]
        for d, _dst in ep.datagrams_to_send(now):
            got[MOVED_TO] += [p for _, p in moved.receive_datagram(d, SEAT_ADDR, now)]
        now += TICK
        ep.handle_timer(now)
        moved.handle_timer(now)
    assert got == {SEAT_ADDR: [STEP + b"!"], MOVED_TO: [STEP]}
    assert ep.channels[MOVED_TO].route.proven


def test_each_later_restrict_grants_a_ghost_no_fresh_credit():
    """§N2.6 "Game started" 1 (H82, H85's break): ``restrict`` runs again at every seat move
    (``Node.route_seats``, §N3.2); the bound's count of what went to V starts at the game's start
    once, not at each call: 30 s of steps across two later moves send V at most 3x what V sent."""
    ep, ghost, _lobby_bytes = _seated_ghost(VICTIM)
    drive = _game(ep)
    sent = bytes_to(ep, VICTIM, 10.0, drive)
    for moved in (MOVED_TO, ("127.0.0.6", 41002)):
        ep.restrict([VICTIM, OTHER_SEAT, moved])
        sent += bytes_to(ep, VICTIM, 10.0, drive)
    assert sent <= UNCONFIRMED_FACTOR * sum(len(d) for d in ghost)


def test_a_pinned_address_the_lobby_dropped_and_that_never_spoke_is_forgotten():
    """§N2.6 "What does not" (H82, H85's blind JOIN): a joiner pins every seat of the PROPOSAL,
    the ghost's address V too; when the round is given up and V's seat removed (§C2.2 step 7) the
    lobby no longer names V, so ``trust`` forgets V's channel if V never sent anything: its
    re-sends stop (before: for good, ~2.9 KB/s, 309 KB by 120 s in H85's 3-seat lobby; now the
    round's ~47 KB). A pinned channel that heard its peer is kept (a removed member is owed its
    REJECT over the host's channel, which the member's datagrams opened)."""
    ep = Endpoint(epoch=51, keys=KeyCache(SEAT), accept_plain=False)
    ep.pin(VICTIM, GHOST.x25519_public_key)
    ep.pin(OTHER_SEAT, MALLORY.x25519_public_key)
    ep.trust([VICTIM, OTHER_SEAT, MALLORY_ADDR])
    for d in forge_intro(MALLORY, SEAT_ADDR, SEAT.x25519_public_key, SETUP_SIG):
        ep.receive_datagram(d, OTHER_SEAT, 0.0)  # the other seat spoke
    ep.send(VICTIM, SETUP_SIG)
    ep.send(OTHER_SEAT, SETUP_SIG)
    assert bytes_to(ep, VICTIM, 5.0) > 0
    ep.trust([MALLORY_ADDR])  # a new round: neither seat is named any more
    assert VICTIM not in ep.channels and OTHER_SEAT in ep.channels
    assert bytes_to(ep, VICTIM, 30.0) == 0


def test_a_resumed_peer_sends_a_ghost_seat_at_most_its_first_flight():
    """§N2.6 "Game started", §C10/§N5 (H82, H85's resume break): a peer resuming from its log
    pins every seat on a fresh endpoint (``restrict`` first, on no channel) and must speak first,
    so each of those channels may send ``PIN_ALLOWANCE`` bytes before its peer spoke, then 3x what
    came back. A ghost seat's address that never answers gets at most that, once per resume
    (before: every step to it, resent, for the rest of the game)."""
    ep = Endpoint(epoch=61, keys=KeyCache(SEAT), accept_plain=False)
    ep.restrict([VICTIM, OTHER_SEAT])
    ep.pin(VICTIM, GHOST.x25519_public_key)
    ep.pin(OTHER_SEAT, MALLORY.x25519_public_key)
    assert bytes_to(ep, VICTIM, 30.0, lambda now: ep.send(VICTIM, STEP)) <= PIN_ALLOWANCE


def test_a_resumed_peer_speaks_first_and_is_proven():
    """§N2.6 "Game started", §N2.2 epochs (H82): two seats played (their channels proven); one
    resumes with a fresh endpoint (same keys and address, a new epoch) and sends its first request
    within its allowance; the other proves its new epoch (CHALLENGE/RESPONSE), answers, and the
    resumed seat's channel is proven in turn: both messages arrive."""
    a, b, now, _got = _lobby_pair(71, 72)
    a.restrict([OTHER_SEAT])
    b.restrict([SEAT_ADDR])
    now, _got = _run(a, b, now, now + 1.0)
    assert a.channels[OTHER_SEAT].route.proven and b.channels[SEAT_ADDR].route.proven
    a = Endpoint(epoch=73, keys=KeyCache(SEAT), accept_plain=False)  # seat a resumes from its log
    a.restrict([OTHER_SEAT])
    a.pin(OTHER_SEAT, MALLORY.x25519_public_key)
    a.send(OTHER_SEAT, b"CATCHUP_REQ")
    got_b, got_a = [], []
    for _ in range(40):
        for d, _dst in a.datagrams_to_send(now):
            for _src, p in b.receive_datagram(d, SEAT_ADDR, now):
                got_b.append(p)
                b.send(SEAT_ADDR, b"CATCHUP_RESP")
        for d, _dst in b.datagrams_to_send(now):
            got_a += [p for _, p in a.receive_datagram(d, OTHER_SEAT, now)]
        now += TICK
        a.handle_timer(now)
        b.handle_timer(now)
    assert got_b == [b"CATCHUP_REQ"] and got_a == [b"CATCHUP_RESP"]
    assert a.channels[OTHER_SEAT].route.proven and b.channels[SEAT_ADDR].peer_epoch == 73


def test_moving_a_seat_back_and_forth_does_not_renew_its_first_flight():
    """§N2.6 "Game started" (H82, H85's ping-pong): forged adverts move a seat that never spoke
    between V and another address 20 times; each move forgets the channel and pins the address
    again. What a channel that never heard its peer sent of ``PIN_ALLOWANCE`` stays spent for that
    address: V gets at most one first flight over the 20 moves (was: one per move, 19.8 KB)."""
    ep = Endpoint(epoch=81, keys=KeyCache(SEAT), accept_plain=False)
    ep.restrict([OTHER_SEAT])
    ep.pin(OTHER_SEAT, MALLORY.x25519_public_key)
    sent = 0
    for move in range(20):
        to = VICTIM if move % 2 == 0 else MOVED_TO
        ep.restrict([to])
        ep.pin(to, MALLORY.x25519_public_key)
        sent += bytes_to(ep, VICTIM, 1.0, lambda now: ep.send(to, STEP))
    assert sent <= PIN_ALLOWANCE
