"""``catchup.ingest_response`` decodes each step-bound record of a page with its table
(``gamelog.STEP_BOUND_RECORDS``, protocol.md §C6) before the session sees it: a malformed or
unknown record stops the page with why, a well-formed one reaches the session's methods."""

from __future__ import annotations

from types import SimpleNamespace

from p2p.catchup import ingest_response
from p2p.escrow import drop_record
from p2p.gamelog import KIND_DROP, KIND_SKIP, KIND_STEP, STEP_RECORD, StepRecord
from p2p.schema import pack


class FakeSession:
    """The public methods ``ingest_response`` calls, recording what reached them (the session's
    parts it reaches, ``ingest``, ``votes`` and ``own``, are this object)."""

    def __init__(self, step: int) -> None:
        self.phase, self.step, self.dropped, self.calls = "running", step, {}, []
        self.ingest = self.votes = self.own = self
        self.setup = SimpleNamespace(players=[])  # the seats' keys (bulk signature check): none here

    def records_coming(self, last):
        self.calls.append(("coming", last))

    def cross_check(self, step, raws, sender):
        self.calls.append(("cross", step, raws))
        return False

    def check_past_drop(self, payload):
        self.calls.append(("past_drop", payload))
        return False

    def ingest_step_record(self, step, raws, word_of=None):
        self.calls.append(("step", step, raws))
        self.step += 1

    def ingest_record(self, payload):  # SessionVotes.ingest_record: a DROP record
        self.calls.append(("drop", payload))

    def receive_message(self, raw, now):
        self.calls.append(("live", raw))


def page(*records):
    return SimpleNamespace(records=list(records), seat=1, escrows=[], pending=[])


def step_rec(step, messages=(b"m0", None)):
    return KIND_STEP, STEP_RECORD.encode(StepRecord(step, list(messages)))


def test_well_formed_records_reach_the_session_as_lists():
    s = FakeSession(3)
    drop = drop_record(3, 1, [], None)
    assert ingest_response(s, page(step_rec(2), (KIND_DROP, drop), step_rec(3)), 0.0) is None
    assert ("coming", 3) in s.calls and ("cross", 2, [b"m0", None]) in s.calls
    assert ("drop", drop) in s.calls and ("step", 3, [b"m0", None]) in s.calls


def test_the_next_steps_messages_are_buffered_live_without_the_nil_entries():
    s = FakeSession(3)
    assert ingest_response(s, page(step_rec(4, (b"a", None, b"b"))), 0.0) == "records skip a step"
    assert [c for c in s.calls if c[0] == "live"] == [("live", b"a"), ("live", b"b")]


def test_a_malformed_record_stops_the_page_with_why():
    for bad in [(KIND_STEP, pack([2, [7]])), (KIND_STEP, pack([3])), (KIND_DROP, pack([3, 1, []])),
                (KIND_SKIP, pack([True, 1, []])), (KIND_STEP, b"\xc1")]:
        s = FakeSession(3)
        problem = ingest_response(s, page(bad, step_rec(3)), 0.0)
        assert problem.startswith("malformed record: "), (bad, problem)
        assert not [c for c in s.calls if c[0] in ("step", "drop", "cross")]


def test_an_unknown_record_kind_stops_the_page():
    s = FakeSession(3)
    assert ingest_response(s, page((9, pack([3, []])), step_rec(3)), 0.0) == "unknown record kind 9"
    assert not [c for c in s.calls if c[0] == "step"]
