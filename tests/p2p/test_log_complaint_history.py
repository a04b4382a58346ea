"""A logged kind-2 complaint is judged by ``verify`` as the live judge judges it (protocol.md
§C8.8 kind 2, §C8.3): its STEP is compared with the message the log holds for that seat and
step only when both are signed over the same history (prev hash and prev digest). Two STEPs of
a seat over different histories are no equivocation (a seat re-signs a step after a quorum drop
overturned the history it first signed over), so such a complaint proves nothing, and a log
holding a complaint that proves nothing is not valid (``BadLog``), instead of naming an honest
seat a cheater. ``p2p/log_checks.check_complaint`` (a step the log already read) and
``settle_complaints`` (the step the complaint's record comes just before)."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from p2p.complaints import BAD_STEP, StepNow, check_bad_step, make_complaint
from p2p.identity import Identity
from p2p.log_checks import BadLog, check_complaint, settle_complaints
from p2p.wire import MSG_STEP, decode_step_body, open_envelope, seal

N = 3
GID = bytes(range(16))
IDS = [Identity.from_seed(b"log-complaint-history" + bytes([i])) for i in range(N)]
OURS = (b"\x00" * 32, b"\x00" * 32)  # the history the log applied (prev hash, prev digest)
OTHER = (b"\x02" * 32, b"\x00" * 32)  # one a quorum drop overturned
STEP, CULPRIT, COMPLAINER = 5, 1, 0


class _Setup:
    """The few setup fields ``complaints`` and ``log_checks`` read."""

    def __init__(self) -> None:
        self.game_id, self.seats = GID, N
        self.players = [type("P", (), {"public_key": i.public_key})() for i in IDS]


SETUP = _Setup()


def step_raw(history: tuple, value: bytes | None, seat: int = CULPRIT, step: int = STEP) -> bytes:
    return seal(IDS[seat], MSG_STEP, [GID, step, seat, *history, value])


def complaint(evidence: bytes, at: int) -> bytes:
    return make_complaint(IDS[COMPLAINER], GID, COMPLAINER, at, CULPRIT, BAD_STEP, [evidence])


def judge_past(logged: bytes, evidence: bytes) -> list:
    """The log's verdict on a complaint about step STEP, read at step STEP + 2: the cheaters it
    names (BadLog: the complaint proves nothing, [])."""
    recent = {STEP: [None, logged, None], STEP + 1: [None] * N}
    cheaters: list = []
    check_complaint(SETUP, complaint(evidence, STEP + 1), STEP + 2, [True] * N, recent, [b""] * N, [], cheaters)
    return cheaters


def test_a_complaint_over_another_history_than_the_logged_message_proves_nothing():
    logged = step_raw(OURS, b"r" * 32)
    with pytest.raises(BadLog, match="complaint of seat 0 proves nothing"):
        judge_past(logged, step_raw(OTHER, None))  # before: "seat 1 signed two different messages"


def test_over_the_same_history_a_different_message_is_equivocation_and_the_same_a_false_complaint():
    logged = step_raw(OURS, b"r" * 32)
    assert judge_past(logged, step_raw(OURS, None)) == [
        {"seat": CULPRIT, "step": STEP + 1, "reason": "signed two different messages for one step",
         "complainer": COMPLAINER}]
    assert [c["seat"] for c in judge_past(logged, logged)] == [COMPLAINER]


def settle(logged: bytes, evidence: bytes) -> list:
    """The log's verdict on a complaint about step STEP whose record comes just before step
    STEP's record (deferred, then settled when that record is read)."""
    pending: list = []
    cheaters: list = []
    check_complaint(SETUP, complaint(evidence, STEP), STEP, [True] * N, {}, [b""] * N, pending, cheaters)
    assert pending and not cheaters
    raws = [step_raw(OURS, b"a" * 32, seat=0), logged, step_raw(OURS, b"c" * 32, seat=2)]
    bodies = [decode_step_body(open_envelope(r).body) for r in raws]
    settle_complaints(SETUP, STEP, bodies, {STEP: raws}, [b""] * N, pending, cheaters)
    assert not pending
    return cheaters


def test_a_deferred_complaint_over_another_history_than_the_replayed_step_proves_nothing():
    logged = step_raw(OURS, b"r" * 32)
    with pytest.raises(BadLog, match="signed over another history"):
        settle(logged, step_raw(OTHER, None))
    assert [c["seat"] for c in settle(logged, step_raw(OURS, None))] == [CULPRIT]  # same history: equivocation


@given(logged_hist=st.sampled_from([OURS, OTHER]), ev_hist=st.sampled_from([OURS, OTHER]),
       logged_in=st.sampled_from([b"r" * 32, b"s" * 32, None]), ev_in=st.sampled_from([b"r" * 32, b"s" * 32, None]))
def test_verify_names_whom_the_live_judge_past_the_step_names(logged_hist, ev_hist, logged_in, ev_in):
    """Property: for any logged message and complaint STEP of seat 1 at a step both are past,
    ``verify``'s verdict is the live judge's (``complaints.check_bad_step`` with the logged body
    as the held one): the same guilty seat, or nothing proven (BadLog) where it proves nothing."""
    logged, evidence = step_raw(logged_hist, logged_in), step_raw(ev_hist, ev_in)
    live = check_bad_step(SETUP, evidence, COMPLAINER, open_envelope(logged).body,
                          StepNow(STEP + 2, *OURS, None, None))
    try:
        got = [c["seat"] for c in judge_past(logged, evidence)]
    except BadLog:
        got = []
    assert got == ([] if live is None else [live[0]])
