"""Re-seating a returning player, the pure rules (protocol.md §C8.9, p2p/reseat.py): the RESEAT
request, the STEP body's 8th field, who counts as a carrier, how many are needed, and the
chain of a re-seated seat. The session-level behaviour is in test_reseat_session.py."""

from __future__ import annotations

import os

import msgpack
import pytest
from hypothesis import given, settings, strategies as st

from p2p import const as C
from p2p.beacon import HashChain
from p2p.errors import WireError
from p2p.identity import Identity
from p2p.reseat import (CARRY_DOMAIN, Carrier, OffsetChain, carry_start, counts_at, make_request, needed,
                        open_request, readmissions, request_for)
from p2p.wire import decode_step_body, pack

from p2p_harness import started_sessions

OPTS = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}


@pytest.fixture(scope="module")
def game():
    """A 4-seat setup and its identities (seat order)."""
    sessions = started_sessions(4, options=OPTS)
    return sessions[0].setup, [s.identity for s in sessions]


def _req(setup, ids, seat, at=7, secret=b"\x01" * 32):
    return request_for(ids[seat], setup, seat, at, secret)


def test_needed_is_the_drop_quorum_or_every_active_seat():
    # §C8.9: Q = floor(N/2) + 1 carriers, or all the active seats when fewer are active.
    assert [needed(n, n - 1) for n in range(3, 9)] == [2, 3, 3, 4, 4, 5]
    assert needed(4, 2) == 2 and needed(8, 3) == 3 and needed(3, 2) == 2


def test_request_round_trip_and_only_the_seats_key_can_ask(game):
    setup, ids = game
    raw = _req(setup, ids, 2)
    r = open_request(raw, setup)
    assert (r.seat, r.dropped_at, r.game_id) == (2, 7, setup.game_id)
    assert r.chain_head == HashChain(b"\x01" * 32, setup.chain_length).head
    # A stranger (or another seat) signing a request for seat 2: refused.
    assert open_request(make_request(Identity.from_seed(b"stranger"), setup.game_id, 2, 7, r.chain_head),
                        setup) is None
    assert open_request(make_request(ids[1], setup.game_id, 2, 7, r.chain_head), setup) is None
    # Another game's, and garbage.
    assert open_request(make_request(ids[2], bytes(16), 2, 7, r.chain_head), setup) is None
    assert open_request(b"\x93\x19", setup) is None
    assert open_request(raw[:-1] + bytes([raw[-1] ^ 1]), setup) is None


def test_q_carriers_reseat_and_q_minus_one_do_not(game):
    setup, ids = game
    raw = _req(setup, ids, 3)
    active = [True, True, True, False]
    drops = {3: 7}
    assert set(readmissions(setup, active, drops, [[raw], [raw], [raw], None], 1, {})) == {3}
    assert readmissions(setup, active, drops, [[raw], [raw], None, None], 1, {}) == {}
    # A dropped seat's field never counts, even its own request "carried" by itself.
    assert readmissions(setup, active, drops, [[raw], [raw], None, [raw]], 1, {}) == {}


def test_a_request_of_another_drop_counts_for_nothing(game):
    # A replayed request of an earlier drop of the same seat names another dropped_at.
    setup, ids = game
    old = _req(setup, ids, 3, at=5)
    assert readmissions(setup, [True, True, True, False], {3: 7}, [[old]] * 3 + [None], 1, {}) == {}
    # Nor a request of a seat that is active.
    assert readmissions(setup, [True] * 4, {}, [[_req(setup, ids, 3)]] * 3 + [None], 1, {}) == {}


def test_two_requests_of_one_seat_split_the_carriers(game):
    # The returning player signed two chains (e.g. it crashed before keeping the first secret):
    # a carrier counts one request per seat, so at most one reaches the quorum.
    setup, ids = game
    a, b = _req(setup, ids, 3, secret=b"\x0a" * 32), _req(setup, ids, 3, secret=b"\x0b" * 32)
    active, drops = [True, True, True, False], {3: 7}  # Q = 3 of 4: every active seat must carry
    assert readmissions(setup, active, drops, [[a], [b], [a], None], 1, {}) == {}
    assert readmissions(setup, active, drops, [[b], [b], [b], None], 1, {})[3] == open_request(b, setup)
    # A carrier that carries both counts for the first only.
    assert readmissions(setup, active, drops, [[a, b], [b], [b], None], 1, {}) == {}
    assert readmissions(setup, active, drops, [[b, a], [b], [b], None], 1, {})[3] == open_request(b, setup)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(range(4)), max_size=2), min_size=4, max_size=4),
       st.lists(st.booleans(), min_size=4, max_size=4))
def test_at_most_one_request_per_seat_and_only_dropped_seats(game, picks, active):
    # Property: whatever the carriers put in their fields, the decision names only dropped
    # seats, one request each, carried by at least `needed` distinct active seats.
    setup, ids = game
    reqs = [_req(setup, ids, 2, secret=b"\x0a" * 32), _req(setup, ids, 2, secret=b"\x0b" * 32),
            _req(setup, ids, 3, secret=b"\x0c" * 32), _req(setup, ids, 3, at=1)]
    drops = {i: 7 for i in range(4) if not active[i]}
    fields = [[reqs[p] for p in pick] for pick in picks]
    out = readmissions(setup, active, drops, fields, 1, {})
    for seat, r in out.items():
        assert not active[seat] and r.dropped_at == drops[seat]
        carriers = {i for i, f in enumerate(fields) if active[i] and i != seat
                    and any(open_request(x, setup) == r for x in f)}
        assert len(carriers) >= needed(4, sum(active))


def test_counts_at():
    assert counts_at(False, False, False)
    assert not counts_at(True, False, False)  # a sealed commit step (§C13)
    assert not counts_at(False, True, False)  # the game ended: the next step is the attestation
    assert not counts_at(False, False, True)  # hidden information (§C12.6)


def test_step_body_eighth_field(game):
    setup, ids = game
    raw = _req(setup, ids, 3)
    base = [setup.game_id, 5, 1, bytes(32), bytes(32), None]
    b = decode_step_body(pack(base + [None, [raw]]))
    assert b.reseat == (raw,) and b.hidden is None and b.input is None
    assert decode_step_body(pack(base)).reseat == ()
    for bad in ([None, []], [None, [raw, raw, raw]], [None, [b"x" * (C.MAX_RESEAT_MSG + 1)]], [None, ["s"]],
                [None, raw]):
        with pytest.raises(WireError):
            decode_step_body(pack(base + bad))


def test_offset_chain_reveals_follow_the_game_chance_count():
    inner = HashChain(b"\x05" * 32, 16)
    ch = OffsetChain(HashChain(b"\x05" * 32, 16), base=10)
    assert ch.head == inner.head and ch.length == 26 and ch.value(0) == b"\x05" * 32
    import hashlib
    first = ch.reveal_at(11)
    assert hashlib.sha256(first).digest() == inner.head  # the first reveal after the re-seat
    assert hashlib.sha256(ch.reveal_at(12)).digest() == first
    with pytest.raises(ValueError):
        ch.reveal_at(10)


def test_carrier_keeps_fresh_requests_of_dropped_seats_only(game):
    setup, ids = game
    c = Carrier(setup, 0)
    raw = _req(setup, ids, 3)
    assert c.receive(b"junk", 0.0, {3: 7}) == "bad"
    assert c.receive(_req(setup, ids, 0), 0.0, {0: 7}) == "ignored"  # our own seat
    assert c.receive(_req(setup, ids, 3, at=2), 0.0, {3: 7}) == "ignored"  # another drop
    assert c.receive(raw, 1.0, {3: 7}) == "held"
    assert c.field(1.0 + C.RESEAT_FRESH, {3: 7}, 8) == [raw]
    assert c.field(1.1 + C.RESEAT_FRESH, {3: 7}, 8) == []  # it stopped asking: not carried
    assert c.field(1.0, {}, 8) == []  # no longer dropped
    c.forget(3)
    assert c.field(1.0, {3: 7}, 8) == []
    assert c.stats == {"received": 4, "bad": 1, "ignored": 2, "held": 1}


def test_carry_start_vector():
    # §C8.9 'Carrying': r = SHA-256("lanopoli/1/reseat-carry" 00 || step as u64 BE)[0:4] BE mod seats.
    import hashlib
    assert CARRY_DOMAIN == b"lanopoli/1/reseat-carry\x00"
    assert [carry_start(k, 7) for k in range(12)] == [5, 6, 3, 0, 3, 0, 1, 1, 0, 1, 3, 6]
    assert [carry_start(k, 4) for k in range(12)] == [2, 2, 3, 1, 2, 1, 0, 1, 0, 0, 0, 0]
    k = 2**40 + 3
    want = int.from_bytes(hashlib.sha256(CARRY_DOMAIN + k.to_bytes(8, "big")).digest()[:4], "big") % 8
    assert carry_start(k, 8) == want


def _holding(setup, ids, seats, now=1.0):
    c = Carrier(setup, 0)
    drops = {d: 7 for d in (1, 2, 3)}
    for d in seats:
        assert c.receive(_req(setup, ids, d), now, drops) == "held"
    return c, drops


def test_carrier_with_more_requests_than_slots_turns_them_by_step(game):
    # §C8.9 'Carrying' (H107 s11 #4): three fresh requests, two slots: the two seats first in
    # cyclic order from carry_start(step), listed ascending: every seat in its turn (the lowest
    # seats first, the old rule, left seat 3 out for ever; no step-less call is left, H124).
    setup, ids = game
    c, drops = _holding(setup, ids, (1, 2, 3))
    reqs = {d: _req(setup, ids, d) for d in (1, 2, 3)}
    by_start = {0: (1, 2), 1: (1, 2), 2: (2, 3), 3: (1, 3)}
    for step in range(40):
        assert c.field(1.0, drops, step) == [reqs[d] for d in by_start[carry_start(step, 4)]]
    assert {d for step in range(40) for d in by_start[carry_start(step, 4)]} == {1, 2, 3}
    two, _ = _holding(setup, ids, (2, 3))  # no more than the slots: all of them, whatever the step
    assert all(two.field(1.0, drops, step) == [reqs[2], reqs[3]] for step in range(8))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sets(st.sampled_from((1, 2, 3)), min_size=1), min_size=2, max_size=4),
       st.integers(0, 2**40))
def test_every_carrier_holding_a_seats_request_carries_it_at_that_seats_turn(game, held, step):
    # Property (§C8.9 'Carrying'): at most RESEAT_CARRY requests, all held and fresh; and at a
    # step whose carry_start is d, every carrier holding d's request carries it: a quorum of
    # them carries the same bytes at once, whatever else each one holds.
    setup, ids = game
    d = carry_start(step, 4)
    for seats in held:
        c, drops = _holding(setup, ids, seats)
        got = [open_request(raw, setup).seat for raw in c.field(1.0, drops, step)]
        assert got == sorted(got) and len(got) == min(len(seats), C.RESEAT_CARRY) and set(got) <= seats
        assert d not in seats or d in got


def test_request_is_small_enough_for_two_in_a_step(game):
    setup, ids = game
    raw = _req(setup, ids, 3, at=C.MAX_STEP - 1)
    assert len(raw) <= C.MAX_RESEAT_MSG
    assert msgpack.unpackb(raw)[0] == 25


def test_carrier_checks_the_signature_last(game, monkeypatch):
    """§C8.9 carrying, §C3.4's order: a request the carrier would not carry (a seat not dropped,
    another drop) is ignored before any Ed25519 check, so a flood of them costs no verification;
    a forged request for the dropped seat at its drop step is still refused as bad."""
    from p2p import wire

    setup, ids = game
    c = Carrier(setup, 0)
    checks = []
    real = wire.Envelope.verify
    monkeypatch.setattr(wire.Envelope, "verify", lambda env, key: checks.append(key) or real(env, key))
    forged = make_request(ids[1], setup.game_id, 2, 7, b"\x02" * 32)  # seat 2's request, seat 1's key
    assert c.receive(forged, 0.0, {3: 7}) == "ignored" and checks == []  # seat 2 is not dropped
    assert c.receive(_req(setup, ids, 3, at=2), 0.0, {3: 7}) == "ignored" and checks == []  # another drop
    assert c.receive(forged, 0.0, {2: 7}) == "bad" and len(checks) == 1  # dropped: checked, refused
    assert c.receive(_req(setup, ids, 3), 0.0, {3: 7}) == "held"
    assert c.stats == {"received": 4, "bad": 1, "ignored": 2, "held": 1}


def test_secret_for_keeps_one_secret_per_drop(tmp_path):
    """§C8.9: a restart after the same drop asks with the same secret (two requests would split
    the carriers); a later drop gets a fresh one; the file is created with mode 0600."""
    from p2p.reseat import read_secret_file, secret_for

    path = str(tmp_path / "game.log.reseat")
    first = secret_for(path, 7)
    assert len(first) == 32 and read_secret_file(path) == (first, 7)
    assert (os.stat(path).st_mode & 0o777) == 0o600
    assert secret_for(path, 7) == first
    later = secret_for(path, 9)
    assert later != first and read_secret_file(path) == (later, 9)
