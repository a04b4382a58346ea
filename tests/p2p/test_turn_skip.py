"""Turn skip (protocol.md §C8.10, p2p/turn_skip.py): SKIP votes, certificates, kind-6 records,
the voter's promise, and a property test that no two honest peers end with different inputs
for a step whose idle seat's turn a majority voted to skip, whatever the delivery order."""

from __future__ import annotations

from types import SimpleNamespace

import msgpack
import pytest
from hypothesis import given, settings, strategies as st

from p2p.errors import WireError
from p2p.identity import Identity
from p2p.turn_skip import (KIND_SKIP, SKIPPED_BODY, TurnSkip, check_skip_payload, message_certified, past_skip,
                           skip_possible, skip_record, skippable_step)
from p2p.wire import MSG_SKIP, decode_skip, open_envelope, pack, seal

GID = bytes(range(16))
IDS = [Identity.from_seed(bytes([i]) * 32) for i in range(8)]
KEYS = [i.public_key for i in IDS]


def parts(n: int) -> list[TurnSkip]:
    return [TurnSkip(GID, KEYS[:n], i, IDS[i]) for i in range(n)]


# -- wire --

def test_skip_body_roundtrip_and_checks():
    raw = seal(IDS[0], MSG_SKIP, [GID, 0, 7, 2, 1])
    env = open_envelope(raw)
    assert env.mtype == MSG_SKIP and env.verify(KEYS[0])
    v = decode_skip(env.body)
    assert (v.game_id, v.voter, v.step, v.seat, v.epoch) == (GID, 0, 7, 2, 1)
    for bad in ([GID, 1, 7, 1, 0], [GID, 0, 7, 2], [GID, 0, 7, 2, 0, None], [GID[:15], 0, 7, 2, 0],
                [GID, 8, 7, 2, 0], [GID, 0, -1, 2, 0]):
        with pytest.raises(WireError):
            decode_skip(pack(bad))


def test_skipped_body_is_never_a_step_body():
    # 0xC1 is the one byte msgpack never uses: no STEP body (a msgpack array) can equal it,
    # and it differs from a dropped seat's empty body (protocol.md §C3.2, §C8.10).
    with pytest.raises(Exception):
        msgpack.unpackb(SKIPPED_BODY)
    assert SKIPPED_BODY != b"" and KIND_SKIP == 6


# -- when a skip is possible --

def test_skip_possible_needs_a_quorum_of_other_active_seats():
    assert not skip_possible(2, 2)  # Q = 2, one other seat
    assert skip_possible(3, 3) and not skip_possible(3, 2)
    assert skip_possible(4, 4) and not skip_possible(4, 3)
    assert skip_possible(5, 4)


def test_only_decision_steps_are_skippable():
    dec = SimpleNamespace(chance=False, terminal=False, kind="buy_or_auction")
    assert skippable_step(dec, final=False, hidden=False)
    assert not skippable_step(dec, final=True, hidden=False)  # the final attestation
    assert not skippable_step(dec, final=False, hidden=True)  # hidden information: deliveries
    assert not skippable_step(SimpleNamespace(chance=True, terminal=False, kind="dice"), final=False, hidden=False)
    assert not skippable_step(SimpleNamespace(chance=False, terminal=True, kind="game_over"), final=False,
                              hidden=False)
    assert not skippable_step(SimpleNamespace(chance=False, terminal=False, kind="inspection"), final=False,
                              hidden=False)


# -- votes and certificates --

def test_quorum_of_votes_makes_a_certificate_4_seats():
    ps = parts(4)
    active = [True] * 4
    assert ps[0].may_vote(5, 3, active, 0, (3,))
    assert not ps[0].may_vote(5, 0, active, 0, (0, 3))  # our own seat
    assert not ps[0].may_vote(5, 3, active, 0, ())  # its message is held
    raws = [ps[i].vote(5, 3, 0) for i in (0, 1, 2)]
    assert not ps[0].may_vote(5, 3, active, 0, (3,))  # one vote per (step, seat, epoch)
    p = ps[1]
    assert p.receive(raws[0], 5, active, 0) == ("held", decode_skip(open_envelope(raws[0]).body))
    t = p.tally(5, 3, active, 0)
    assert (t.votes, t.quorum, t.ours) == (2, 3, True)
    assert p.certificate(5, 3, active, 0) is None
    assert p.receive(raws[2], 5, active, 0)[0] == "held"
    cert = p.certificate(5, 3, active, 0)
    assert cert == raws  # the Q lowest voters, ascending
    assert p.certified_seats(5, active, 0) == [3]
    payload = p.mark_skipped(5, 3, cert)
    assert payload == skip_record(5, 3, raws) and p.skipped(5) == {3: raws}
    # the seat being skipped learns it from the same votes
    d = ps[3]
    for r in raws:
        assert d.receive(r, 5, active, 0)[0] == "held"
    assert d.certificate(5, 3, active, 0) == raws
    assert [x.seat for x in d.tallies(5, active, 0)] == [3]


def test_a_dropped_voter_or_an_old_epoch_does_not_count():
    ps = parts(5)  # Q = 3
    raws = [ps[i].vote(2, 4, 0) for i in (0, 1, 2)]
    p = ps[3]
    for r in raws:
        p.receive(r, 2, [True] * 5, 0)
    assert p.certificate(2, 4, [True] * 5, 0) is not None
    assert p.certificate(2, 4, [True, False, True, True, True], 0) is None  # voter 1 dropped
    assert p.certificate(2, 4, [True] * 5, 1) is None  # a drop at step 2: epoch 1, vote again
    assert p.receive(ps[0].vote(2, 4, 1), 2, [True] * 5, 1)[0] == "held"  # the newer replaces


def test_receive_drops_and_counts_bad_votes():
    ps = parts(3)
    p, active = ps[0], [True] * 3
    good = ps[1].vote(4, 2, 0)
    assert p.receive(b"\x93\x1a", 4, active, 0)[0] == "malformed"
    assert p.receive(seal(IDS[1], MSG_SKIP, [bytes(16), 1, 4, 2, 0]), 4, active, 0)[0] == "wrong_game"
    assert p.receive(seal(IDS[0], MSG_SKIP, [GID, 0, 4, 2, 0]), 4, active, 0)[0] == "bad_seat"  # ours
    assert p.receive(seal(IDS[1], MSG_SKIP, [GID, 1, 4, 5, 0]), 4, active, 0)[0] == "bad_seat"
    assert p.receive(good, 5, active, 0)[0] == "stale"
    assert p.receive(good, 0, active, 0)[0] == "too_far"
    assert p.receive(good, 4, [True, False, True], 0)[0] == "ignored"  # inactive voter
    assert p.receive(good, 4, active, 1)[0] == "ignored"  # older epoch
    forged = seal(IDS[2], MSG_SKIP, [GID, 1, 4, 2, 0])  # seat 2's key signs seat 1's vote
    assert p.receive(forged, 4, active, 0)[0] == "bad_signature"
    assert p.tally(4, 2, active, 0).votes == 0
    assert p.receive(good, 4, active, 0)[0] == "held"
    assert p.receive(good, 4, active, 0)[0] == "ignored"  # a repeat


def test_check_skip_payload():
    ps = parts(4)
    active = [True] * 4
    raws = [ps[i].vote(9, 1, 0) for i in (0, 2, 3)]
    assert check_skip_payload(GID, KEYS[:4], active, 0, 9, skip_record(9, 1, raws)) == (1, raws)
    bad = {
        "too few": skip_record(9, 1, raws[:2]),
        "unsorted": skip_record(9, 1, [raws[1], raws[0], raws[2]]),
        "repeat": skip_record(9, 1, [raws[0], raws[0], raws[2]]),
        "other step": skip_record(8, 1, raws),
        "other seat": skip_record(9, 2, raws),
        "self vote": skip_record(9, 1, [raws[0], seal(IDS[1], MSG_SKIP, [GID, 1, 9, 2, 0]), raws[2]]),
        "forged": skip_record(9, 1, [raws[0], raws[1], seal(IDS[0], MSG_SKIP, [GID, 3, 9, 1, 0])]),
        "drop vote": skip_record(9, 1, [raws[0], raws[1], seal(IDS[3], 18, [GID, 3, 9, 1, 0, None])]),
        "garbage": b"\xc1",
    }
    for why, payload in bad.items():
        with pytest.raises(ValueError):
            check_skip_payload(GID, KEYS[:4], active, 0, 9, payload)
            pytest.fail(why)
    with pytest.raises(ValueError):
        check_skip_payload(GID, KEYS[:4], active, 1, 9, skip_record(9, 1, raws))  # epoch
    with pytest.raises(ValueError):
        check_skip_payload(GID, KEYS[:4], [True, True, False, True], 0, 9, skip_record(9, 1, raws))
    # the record a peer logs can be ingested by another (resume, catch-up)
    q = ps[2]
    assert q.ingest_record(9, skip_record(9, 1, raws), active, 0) == 1
    assert q.certificate(9, 1, active, 0) == raws


def test_past_skip_names_the_overturned_step():
    ps = parts(3)
    raws = [ps[i].vote(3, 2, 0) for i in (0, 1)]
    payload = skip_record(3, 2, raws)
    assert past_skip(GID, KEYS[:3], payload, 4) == (3, 2)
    assert past_skip(GID, KEYS[:3], payload, 3) is None  # not a step we applied
    assert past_skip(GID, KEYS[:3], skip_record(3, 2, raws[:1]), 4) is None
    assert past_skip(GID, KEYS[:3], b"junk", 4) is None


def test_adopt_own_vote_after_restart():
    p = parts(3)[0]
    raw = parts(3)[0].vote(6, 1, 0)
    assert not p.has_voted(6, 1, 0)
    assert not p.adopt_vote(raw, 7, 0) and not p.adopt_vote(raw, 6, 1)
    assert not p.adopt_vote(parts(3)[1].vote(6, 2, 0), 6, 0)  # not ours
    assert p.adopt_vote(raw, 6, 0) and p.has_voted(6, 1, 0)
    assert p.own_votes(6, 0) == [raw] and p.voted_against(6, 0) == [1]
    p.forget(6)
    assert p.own_votes(6, 0) == []


def test_message_certified_counts_seats_that_moved_on():
    # 4 seats, Q = 3: a voter needs active - Q = 1 other seat that signed step k+1 over the
    # idle seat's message (the idle seat itself and we do not count).
    active = [True] * 4
    assert not message_certified(0, 3, active, 4, [])
    assert not message_certified(0, 3, active, 4, [0, 3])
    assert message_certified(0, 3, active, 4, [1])
    # 5 seats, Q = 3: two seats must have moved on
    assert not message_certified(0, 4, [True] * 5, 5, [1])
    assert message_certified(0, 4, [True] * 5, 5, [1, 2])


# -- property: no two honest peers end with different inputs for the step --

class Peer:
    def __init__(self, part: TurnSkip) -> None:
        self.part = part
        self.holds_m = False
        self.applied: str | None = None
        self.rolled_back = 0
        self.voted = False
        self.signers: set[int] = set()


@settings(max_examples=150, deadline=None)
@given(st.integers(3, 6), st.data())
def test_property_no_fork_whatever_the_order(n, data):
    """N peers at step K; seat d is idle. Some players press the skip key (only while their
    peer lacks d's message); d may send its message late. Every message (d's, votes, step-(K+1)
    signatures, pushed kind-6 records) is delivered to every peer, in any order. A peer
    applies K with d skipped when it holds a certificate; with d's message when it holds it
    and, if it voted, ``message_certified``; a peer that applied the message and then sees a
    certificate rolls back (StepOverturned). Checks: every peer ends with the same input for
    d; voters never roll back; a skip is never undone; a certificate anywhere means skip."""
    K = 11
    d = data.draw(st.integers(0, n - 1), "idle seat")
    pressers = data.draw(st.sets(st.sampled_from([i for i in range(n) if i != d])), "pressers")
    d_sends = data.draw(st.booleans(), "d sends late")
    peers = [Peer(p) for p in parts(n)]
    active = [True] * n
    pool: list[tuple] = [("press", p) for p in sorted(pressers)]
    if d_sends:
        pool.append(("sign_m",))
    cert_formed = False

    def try_apply(q: int) -> None:
        nonlocal cert_formed
        pe = peers[q]
        cert = pe.part.certificate(K, d, active, 0)
        if cert is not None:
            cert_formed = True
            if pe.applied == "m":  # a weaker outcome: roll back (StepOverturned, §C8.10)
                pe.rolled_back += 1
                pe.applied = None
            if pe.applied is None:
                pe.applied = "skip"
                payload = pe.part.mark_skipped(K, d, cert)
                pool.extend(("sig", q, "skip", r) for r in range(n) if r != q)
                pool.extend(("rec", payload, r) for r in range(n) if r != q)
            return
        if pe.applied is None and pe.holds_m and (
                not pe.part.has_voted(K, d, 0) or message_certified(q, d, active, n, sorted(pe.signers))):
            pe.applied = "m"
            pool.extend(("sig", q, "m", r) for r in range(n) if r != q)

    while pool:
        ev = pool.pop(data.draw(st.integers(0, len(pool) - 1)))
        kind = ev[0]
        if kind == "sign_m":
            peers[d].holds_m = True
            pool.extend(("m", q) for q in range(n) if q != d)
            try_apply(d)
        elif kind == "m":
            peers[ev[1]].holds_m = True
            try_apply(ev[1])
        elif kind == "press":
            p = ev[1]
            pe = peers[p]
            awaited = () if pe.holds_m else (d,)
            if pe.applied is None and pe.part.may_vote(K, d, active, 0, awaited):
                raw = pe.part.vote(K, d, 0)
                pe.voted = True
                pool.extend(("vote", raw, q) for q in range(n) if q != p)
                try_apply(p)
        elif kind == "vote":
            peers[ev[2]].part.receive(ev[1], K, active, 0)
            try_apply(ev[2])
        elif kind == "sig":
            _, s, outcome, r = ev
            if outcome == "m":
                peers[r].signers.add(s)
            try_apply(r)
        elif kind == "rec":
            _, payload, r = ev
            pe = peers[r]
            if pe.applied != "skip":
                assert past_skip(GID, KEYS[:n], payload, K + 1) == (K, d)
                pe.part.ingest_record(K, payload, active, 0)
                try_apply(r)
    outcomes = {pe.applied for pe in peers}
    assert len(outcomes) == 1, [pe.applied for pe in peers]
    if cert_formed:
        assert outcomes == {"skip"}
    elif d_sends:
        assert outcomes == {"m"}  # live: the voters' certificate comes from the others
    for pe in peers:
        if pe.voted:
            assert pe.rolled_back == 0  # the voter's promise
