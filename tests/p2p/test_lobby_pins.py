"""Lobby pins (protocol.md §N2.6 "Lobby pins", H91; H85's blind JOIN).

A joiner keys a channel to every seat of the PROPOSAL (``node_lobby.pin_lobby``). A seat's endpoint
is where its JOIN came from, and a JOIN with a fresh key is valid from any spoofed source, so the
address may be a victim's. Only the host a joiner joins is an address it chose; a channel a pin
opens to any other address is bounded from its first byte: ``PIN_ALLOWANCE`` bytes of first flight
plus 3x what the address sent, until a RESPONSE to a CHALLENGE sent there proves it; at the game's
start the count starts anew as for any seat channel. Two honest seats that pin each other both
speak first, hear each other and prove each other; if both first flights are lost (a niente
SETUP_SIG is 11,648 B: the flight holds one chunk), ``KNOCKS`` pure acks, paid from the flight,
wake the other side (H94's break of b9052dd). Sans-I/O on a virtual clock: no socket, no timing.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.faults import FaultPlan
from p2p.identity import Identity
from p2p.node_lobby import pin_lobby
from p2p.const import SETUP_TIMEOUT
from p2p.recovery import MAX_RTO
from p2p.return_route import KNOCK_GAP_S, KNOCKS, KNOCKS_EAGER, PIN_ALLOWANCE

from redteam_lan_kit import TICK, VICTIM, bytes_to, forge_intro
from test_lobby_loss import HOST, _lobby_game

ME, HOST_ID, SEAT = (Identity.from_seed(b"h91-lobby-%d" % i) for i in range(3))
ME_ADDR = ("10.0.0.2", 5000)
SEAT_ADDR = ("10.0.0.3", 5000)
SETUP_SIG = b"s" * 124  # a SETUP_SIG-sized lobby message (§C2.2 step 4; the SEED is 158 B)


def _proposed(seat_at: tuple) -> SimpleNamespace:
    """What ``pin_lobby`` reads of a joiner's lobby holding a PROPOSAL: the host it joined and
    every other seat's (address, X25519 key), one of them at ``seat_at``."""
    keys = [(HOST, HOST_ID.x25519_public_key), (seat_at, SEAT.x25519_public_key)]
    return SimpleNamespace(host_address=HOST, peer_keys=lambda: keys)


def _resends(ep: Endpoint, to: tuple):
    """The lobby's SETUP_SIG to ``to`` and its copy every SETUP_RESEND_S = 2 s (§C2.2 step 5)."""
    return lambda now: ep.send(to, SETUP_SIG) if round(now / TICK) % round(2.0 / TICK) == 0 else None


def test_a_joiner_pins_the_host_it_chose_freely_and_a_proposed_seat_bounded():
    """§N2.6 "Lobby pins": the host's channel (the address we joined) is confirmed; a seat's
    address from the PROPOSAL is not: 60 s of SETUP_SIG re-sends to an address that never answers
    send it at most the first flight (was: every copy and its retransmissions, H85: 47 KB per
    joiner per setup round from one spoofed JOIN)."""
    ep = Endpoint(epoch=201, keys=KeyCache(ME), accept_plain=False)
    pin_lobby(ep, _proposed(VICTIM))
    assert ep.confirmed(HOST) and not ep.confirmed(VICTIM)
    assert ep.peer_key(VICTIM) == SEAT.x25519_public_key and VICTIM in ep.trusted
    sent = bytes_to(ep, VICTIM, 60.0, _resends(ep, VICTIM))
    assert 0 < sent <= PIN_ALLOWANCE


def test_pin_lobby_is_cheap_and_changes_nothing_when_called_again():
    """``NodeLobby.pump`` pins on every lobby event: a second call keeps the channels, their
    bound and what they spent (no fresh first flight)."""
    ep = Endpoint(epoch=202, keys=KeyCache(ME), accept_plain=False)
    pin_lobby(ep, _proposed(VICTIM))
    channels = dict(ep.channels)
    sent = bytes_to(ep, VICTIM, 30.0, _resends(ep, VICTIM))
    pin_lobby(ep, _proposed(VICTIM))
    assert ep.channels == channels
    assert sent + bytes_to(ep, VICTIM, 30.0, _resends(ep, VICTIM)) <= PIN_ALLOWANCE


def test_the_games_start_ends_a_lobby_pins_first_flight():
    """§N2.6 "Lobby pins", "Game started" 1: at the start (``restrict``) a lobby-pinned channel
    that never heard its peer counts anew, 3x what the address sent (nothing): what was left of
    its lobby first flight does not carry over to the game's steps."""
    ep = Endpoint(epoch=203, keys=KeyCache(ME), accept_plain=False)
    pin_lobby(ep, _proposed(VICTIM))
    ep.send(VICTIM, SETUP_SIG)
    assert 0 < bytes_to(ep, VICTIM, 1.0) < PIN_ALLOWANCE
    ep.restrict([HOST, VICTIM])
    assert bytes_to(ep, VICTIM, 30.0, lambda now: ep.send(VICTIM, b"t" * 300)) == 0


@pytest.mark.parametrize("seed", range(40))
def test_two_joiners_that_pin_each_other_hear_and_prove_each_other(seed):
    """§N2.6 "Lobby pins": two joiners pin each other from the PROPOSAL (both bounded, neither
    heard the other) and send their SETUP_SIG, re-sent every 2 s, at 30% loss (seeded): each
    first flight earns the other's CHALLENGE, both channels are proven and each SETUP_SIG arrives
    (neither waits for the other to speak first)."""
    plan = FaultPlan(seed=seed, loss=0.3)
    _pinned_pair(SETUP_SIG, 20.0, lambda now: bool(plan.plan(now)))  # delays are not modelled here


def _pinned_pair(setup_sig: bytes, until: float, delivered) -> None:
    """Two joiners pin each other from the PROPOSAL (``chosen`` False) and send ``setup_sig``,
    re-sent every 2 s, until ``until`` s; a datagram arrives if ``delivered(now)``. Asserts that
    each got the other's and that both channels are proven."""
    a = Endpoint(epoch=204, keys=KeyCache(ME), accept_plain=False)
    b = Endpoint(epoch=205, keys=KeyCache(SEAT), accept_plain=False)
    a.pin(SEAT_ADDR, SEAT.x25519_public_key, False)
    b.pin(ME_ADDR, ME.x25519_public_key, False)
    got = {ME_ADDR: [], SEAT_ADDR: []}
    now = 0.0
    while now < until:
        for ep, src, dst, peer in ((a, ME_ADDR, SEAT_ADDR, b), (b, SEAT_ADDR, ME_ADDR, a)):
            if round(now / TICK) % round(2.0 / TICK) == 0:
                ep.send(dst, setup_sig)
            ep.handle_timer(now)
            for d, _dst in ep.datagrams_to_send(now):
                if delivered(now):
                    got[dst] += [p for _, p in peer.receive_datagram(d, src, now)]
        now += TICK
    assert got[ME_ADDR][:1] == [setup_sig] and got[SEAT_ADDR][:1] == [setup_sig]
    assert a.channels[SEAT_ADDR].route.proven and b.channels[ME_ADDR].route.proven


@pytest.mark.parametrize("seats", [3, 4])
def test_honest_lobbies_at_30_percent_loss_start_in_their_first_round(seats):
    """§N2.6 "Lobby pins", liveness: 30 seeded honest lobbies per size at 30% loss (in memory,
    ``test_lobby_loss``'s peers, pinned by ``pin_lobby``), every joiner's channel to every other
    seat bounded from the PROPOSAL: all start the same game, in round 0 (no seat removed)."""
    for seed in range(100, 130):
        peers, _net = _lobby_game(seed, seats, 0.3)
        assert all(p.started is not None for p in peers.values()), seed
        assert peers[HOST].lobby.round == 0, seed


def test_a_silent_address_gets_its_knocks_inside_the_first_flight():
    """§N2.6 "Lobby pins": a lobby pin whose address never answers sends, over 120 s of SETUP_SIG
    re-sends, exactly ``KNOCKS`` pure acks (flags byte 0) beside its data, all of it within
    ``PIN_ALLOWANCE`` (the knocks come out of the flight's reserve)."""
    ep = Endpoint(epoch=206, keys=KeyCache(ME), accept_plain=False)
    pin_lobby(ep, _proposed(VICTIM))
    sent, knocks, now = 0, 0, 0.0
    drive = _resends(ep, VICTIM)
    while now < 120.0:
        drive(now)
        ep.handle_timer(now)
        out = [d for d, a in ep.datagrams_to_send(now) if a == VICTIM]
        sent += sum(map(len, out))
        knocks += sum(d[1] == 0 for d in out)
        now += TICK
    assert knocks == KNOCKS and sent <= PIN_ALLOWANCE


def test_the_first_knocks_go_at_each_timeout_and_the_rest_cover_the_setup_round():
    """§N2.6 "Lobby pins" item 3 (H102): the first ``KNOCKS_EAGER`` knocks leave at the channel's
    retransmission timeouts (at most ``MAX_RTO`` apart: a lost first flight or CHALLENGE costs a
    round trip, not the 0.25-0.5-1-2 s of before), the others ``KNOCK_GAP_S`` apart, the last
    still inside the setup round (after 20 s: a 20 s cut is woken, below) and never more than
    ``KNOCKS`` in all."""
    ep = Endpoint(epoch=211, keys=KeyCache(ME), accept_plain=False)
    pin_lobby(ep, _proposed(VICTIM))
    at, now = [], 0.0
    drive = _resends(ep, VICTIM)
    while now < 60.0:
        drive(now)
        ep.handle_timer(now)
        at += [now for d, a in ep.datagrams_to_send(now) if a == VICTIM and d[1] == 0]
        now += TICK
    gaps = [b - a for a, b in zip(at, at[1:])]
    assert len(at) == KNOCKS
    assert at[0] <= MAX_RTO and all(g <= MAX_RTO + TICK for g in gaps[:KNOCKS_EAGER - 1])
    assert all(g >= KNOCK_GAP_S - TICK for g in gaps[KNOCKS_EAGER - 1:])
    assert 20.0 < at[-1] < SETUP_TIMEOUT


@pytest.mark.parametrize("cut", [1.0, 4.0, 20.0])
def test_two_joiners_whose_first_flights_are_lost_are_woken_by_a_knock(cut):
    """§N2.6 "Lobby pins" (H94's break of b9052dd): two joiners pin each other and send a
    niente-sized SETUP_SIG (11,648 B: the flight holds its first chunk) re-sent every 2 s; every
    datagram between them is lost for ``cut`` s. A knock after the cut earns the other's
    CHALLENGE; both channels are proven and each SETUP_SIG arrives whole."""
    _pinned_pair(b"n" * 11_648, 29.0, lambda now: now >= cut)


def test_a_seat_channel_its_own_datagram_opened_is_bounded_as_a_lobby_pin_on_a_joiner_only():
    """§N2.6 "Lobby pins" (``Endpoint.await_seat``): a seat's SETUP_SIG reached a joiner before
    its PROPOSAL and opened an unconfirmed channel ("Reflection": it would give up after 3
    resends); once the PROPOSAL names the address, ``pin_lobby`` makes it a lobby pin's (never
    gives up, knocks). The host's channels to its members keep H77's bound (no first flight)."""
    intro = forge_intro(SEAT, ME_ADDR, ME.x25519_public_key, SETUP_SIG)
    joiner = Endpoint(epoch=209, keys=KeyCache(ME), accept_plain=False)
    host = Endpoint(epoch=210, keys=KeyCache(ME), accept_plain=True)
    for ep in (joiner, host):
        for d in intro:
            ep.receive_datagram(d, SEAT_ADDR, 0.0)
        assert not ep.channels[SEAT_ADDR].route.seat
    pin_lobby(joiner, _proposed(SEAT_ADDR))
    pin_lobby(host, SimpleNamespace(host_address=None, peer_keys=lambda: [(SEAT_ADDR, SEAT.x25519_public_key)]))
    assert joiner.channels[SEAT_ADDR].route.lobby and not joiner.channels[SEAT_ADDR].confirmed
    assert not host.channels[SEAT_ADDR].route.seat and not host.channels[SEAT_ADDR].confirmed
