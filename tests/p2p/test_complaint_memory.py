"""What a peer keeps of the COMPLAINTs it receives (protocol.md §C8.8 'What a peer keeps',
§N2.6 'Bounds'): the SHA-256 digest of each validly signed complaint it judged (never the
envelope); per complainer at most ``COMPLAINT_BUDGET`` complaints that proved nothing (or the
complainer itself once more), after which that seat's complaints are dropped before their
signature is checked; none naming a seat already proven (dropped before its signature check);
the last ``AGAIN_KEPT`` (log and catch-up records) proving another seat already proven,
uncharged (a replay is a duplicate); nothing for one whose signature fails (its seat may be
anyone).
In memory, fake engine, 3 seats."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import fake_engine as E
from p2p import const as C
from p2p.complaints import AGAIN_KEPT, COMPLAINT_BUDGET, EQUIVOCATION, Complaints, Proof, make_complaint
from p2p.gamelog import KIND_COMPLAINT
from p2p.identity import Identity
from p2p.lockstep import CheaterProven
from p2p.wire import MSG_STEP, seal

from p2p_harness import started_sessions

OPTS = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30}
JUNK = [b"\x99" * 1150, b"\x77" * 1150]


def _table():
    """(victim seat 0's session, the three sessions), the game started."""
    sessions = started_sessions(3, E, options=OPTS)
    return sessions[0], sessions


def _junk(s, i: int, signer=None, seat: int = 2) -> bytes:
    """The ``i``-th distinct complaint of ``seat`` whose evidence proves nothing, signed by
    ``signer`` (default: the seat's own key)."""
    ident = s[seat].identity if signer is None else signer
    return make_complaint(ident, s[0].setup.game_id, seat, 0, 2 if seat == 1 else 1, EQUIVOCATION, [JUNK[0], i.to_bytes(4, "big") + JUNK[1]])


def _equivocation(s, value: bytes = b"b" * 32, complainer: int = 2) -> bytes:
    """A genuine kind-1 complaint of ``complainer``: seat 1 signed two different STEPs for one
    slot (step 5, one history)."""
    gid = s[0].setup.game_id
    one = [seal(s[1].identity, MSG_STEP, [gid, 5, 1, b"\x00" * 32, b"\x00" * 32, v]) for v in (b"a" * 32, value)]
    return make_complaint(s[complainer].identity, gid, complainer, 0, 1, EQUIVOCATION, one)


def _events(session) -> list:
    out = []
    while (ev := session.next_event()) is not None:
        out.append(ev)
    return out


def test_complaints_that_give_nothing_new_spend_their_seats_budget_then_are_dropped_unchecked():
    victim, s = _table()
    extra = 50
    for i in range(COMPLAINT_BUDGET):
        victim.receive_message(_junk(s, i), 0.0)
    assert victim.stats["ignored"] == COMPLAINT_BUDGET and victim.referee.complaints.kept == COMPLAINT_BUDGET
    # Beyond the budget: dropped before the signature check (a bad one is not even counted as such).
    for i in range(extra):
        victim.receive_message(_junk(s, COMPLAINT_BUDGET + i, signer=Identity.from_seed(b"x") if i % 2 else None), 0.0)
    st = victim.stats
    assert st["ignored"] == COMPLAINT_BUDGET + extra and st["bad_signature"] == 0
    assert victim.referee.complaints.over_budget == extra
    assert victim.referee.complaints.kept == COMPLAINT_BUDGET  # digests only, bounded
    # Its spent budget is its own: seat 1's complaints are still judged.
    victim.receive_message(_junk(s, 0, seat=1), 0.0)
    assert victim.referee.complaints.kept == COMPLAINT_BUDGET + 1
    assert victim.phase == "running" and victim.step == 0


def test_forged_complaints_naming_a_seat_neither_are_kept_nor_spend_its_budget():
    victim, s = _table()
    forger = Identity.from_seed(b"not-seat-2")
    for i in range(2 * COMPLAINT_BUDGET):
        victim.receive_message(_junk(s, i, signer=forger), 0.0)
    assert victim.stats["bad_signature"] == 2 * COMPLAINT_BUDGET
    assert victim.referee.complaints.kept == 0 and victim.referee.complaints.over_budget == 0
    _events(victim)
    victim.receive_message(_equivocation(s), 0.0)  # seat 2's genuine complaint still counts
    assert [e.seat for e in _events(victim) if isinstance(e, CheaterProven)] == [1]


def test_a_judged_complaint_is_a_duplicate_and_more_proofs_of_a_proven_seat_spend_nothing():
    """H94's re-attack of 496cdd4: a cheater sending an honest seat many bad messages makes it
    send as many valid complaints; proving the cheater again, they must not spend the honest
    seat's budget (its later complaint about another cheater would be dropped unchecked). Since
    H124 (§C8.8 'What a peer keeps') one naming a seat already proven here is dropped before its
    signature check (``ignored``): nothing judged, kept or charged."""
    victim, s = _table()
    raw = _equivocation(s)
    victim.receive_message(raw, 0.0)
    victim.receive_message(raw, 0.0)
    assert victim.stats["duplicate"] == 1 and victim.referee.complaints.proven(1) is not None
    assert victim.referee.complaints.kept == 1
    again = [_equivocation(s, i.to_bytes(32, "big")) for i in range(2 * COMPLAINT_BUDGET)]
    ignored = victim.stats["ignored"]
    for raw_again in again:  # other proofs against seat 1: dropped unjudged, not charged, not kept
        victim.receive_message(raw_again, 0.0)
    assert victim.stats["ignored"] == ignored + len(again)
    assert victim.referee.complaints.kept == 1 and victim.referee.complaints.over_budget == 0
    gid = victim.setup.game_id
    for i in range(COMPLAINT_BUDGET):  # junk naming seat 0 (not proven): judged, charged
        victim.receive_message(make_complaint(s[2].identity, gid, 2, 0, 0, EQUIVOCATION,
                                              [JUNK[0], i.to_bytes(4, "big") + JUNK[1]]), 0.0)
    assert victim.referee.complaints.over_budget == 0 and victim.referee.complaints.kept == 1 + COMPLAINT_BUDGET
    victim.receive_message(make_complaint(s[2].identity, gid, 2, 0, 0, EQUIVOCATION, [JUNK[1], JUNK[0]]), 0.0)
    assert victim.referee.complaints.over_budget == 1  # 64 that proved nothing: spent


def test_a_liar_proven_again_spends_its_budget():
    """A complaint proving its own complainer (a false one) spends its budget once the
    complainer is proven: a proven liar cannot make us judge its complaints for ever."""
    c = Complaints()
    c.judged(b"first lie", 2, 2)
    c.prove(Proof(2, 0, "false complaint", b"first lie"))
    for i in range(COMPLAINT_BUDGET):
        assert not c.spent(2)
        c.judged(b"lie %d" % i, 2, 2)
    assert c.spent(2) and c.kept == COMPLAINT_BUDGET + 1
    c.judged(b"about seat 2", 1, 2)  # seat 1 proving the proven seat 2: kept uncharged
    assert not c.spent(1) and c.kept == COMPLAINT_BUDGET + 2 and c.seen(b"about seat 2")


def test_a_complaint_record_beyond_its_seats_budget_is_refused():
    """``Referee.ingest_record`` (a log replay) applies the same memory and budget."""
    victim, s = _table()
    raw = _equivocation(s)
    for i in range(COMPLAINT_BUDGET):
        assert victim.referee.ingest_record(KIND_COMPLAINT, _junk(s, i)) == "complaint that proves nothing"
    assert victim.referee.ingest_record(KIND_COMPLAINT, raw) == "complaint beyond its seat's budget"
    assert victim.referee.complaints.proven(1) is None
    fresh, s2 = _table()
    ok = _equivocation(s2)
    assert fresh.referee.ingest_record(KIND_COMPLAINT, ok) is None and fresh.referee.complaints.proven(1) is not None
    assert fresh.referee.ingest_record(KIND_COMPLAINT, ok) is None  # judged before: nothing again
    assert fresh.referee.complaints.kept == 1


@settings(max_examples=80, deadline=None)
@given(ops=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 400), st.sampled_from([None, 0, 1, 2, 3])),
                    max_size=600))
def test_the_complaints_kept_are_bounded_per_seat(ops):
    """Whatever complaints arrive (complainer, which envelope, whom it proves), used as the
    referee uses it (seen, then spent, then judged, then proven): at most COMPLAINT_BUDGET
    digests per seat that proved nothing or the complainer again, plus one per proven seat."""
    c = Complaints()
    charged: dict = {}
    for seat, which, guilty in ops:
        raw = bytes([seat]) + which.to_bytes(2, "big")
        if c.seen(raw) or c.spent(seat):
            continue
        if guilty is None or (guilty in c.cheaters() and guilty == seat):
            charged[seat] = charged.get(seat, 0) + 1
        c.judged(raw, seat, guilty)
        if guilty is not None:
            c.prove(Proof(guilty, 0, "r", raw))
    assert all(v <= COMPLAINT_BUDGET for v in charged.values())
    assert c.kept <= 4 * (COMPLAINT_BUDGET + AGAIN_KEPT) + len(c.cheaters())


def _counting_verifies(monkeypatch) -> list:
    """Every signature check (``p2p.envelope.verify``) from now on, by body."""
    from p2p import envelope

    seen: list = []
    real = envelope.verify
    monkeypatch.setattr(envelope, "verify", lambda *a: (seen.append(a[2]), real(*a))[1])
    return seen


def test_a_proven_seat_and_a_colluder_cannot_make_a_peer_judge_without_end(monkeypatch):
    """§C8.8 'What a peer keeps' (H124, s11 review): seat 1 is proven; its colluder seat 2 wraps
    ever new equivocations of seat 1 in complaints. Naming seat 1, they are dropped before any
    signature check (``ignored``); naming another seat (seat 0) with the same evidence, each
    proves a seat already proven that it does not name: charged like one that proves nothing,
    so after ``COMPLAINT_BUDGET`` of them seat 2's complaints are dropped unchecked. Before:
    every one was judged (3 signature checks each) without end, uncharged."""
    victim, s = _table()
    victim.receive_message(_equivocation(s), 0.0)
    assert victim.referee.complaints.proven(1) is not None
    checks = _counting_verifies(monkeypatch)
    gid = victim.setup.game_id

    def proof(i: int, culprit: int) -> bytes:
        one = [seal(s[1].identity, MSG_STEP, [gid, 5, 1, b"\x00" * 32, b"\x00" * 32, v])
               for v in (b"a" * 32, i.to_bytes(32, "big"))]
        return make_complaint(s[2].identity, gid, 2, 0, culprit, EQUIVOCATION, one)

    n = 3 * COMPLAINT_BUDGET
    for i in range(1, n + 1):
        victim.receive_message(proof(i, 1), 0.0)
    assert checks == [] and victim.referee.complaints.kept == 1
    for i in range(n + 1, 2 * n + 1):
        victim.receive_message(proof(i, 0), 0.0)
    assert len(checks) == 3 * COMPLAINT_BUDGET  # the complaint's and its two STEPs', 64 times
    assert victim.referee.complaints.over_budget == n - COMPLAINT_BUDGET
    assert victim.referee.complaints.kept == 1 + COMPLAINT_BUDGET
    assert victim.referee.complaints.cheaters() == [1] and victim.phase == "running"


def test_a_complaint_naming_an_unproven_seat_still_proves_it():
    """The drop is only for a culprit already proven here: seat 1 proven, its complaint (a
    proven seat's complaints are judged as any) against seat 2, who equivocated, proves seat 2."""
    victim, s = _table()
    victim.receive_message(_equivocation(s), 0.0)
    gid = victim.setup.game_id
    two = [seal(s[2].identity, MSG_STEP, [gid, 5, 2, b"\x00" * 32, b"\x00" * 32, v]) for v in (b"a" * 32, b"b" * 32)]
    victim.receive_message(make_complaint(s[1].identity, gid, 1, 0, 2, EQUIVOCATION, two), 0.0)
    assert victim.referee.complaints.cheaters() == [1, 2]
