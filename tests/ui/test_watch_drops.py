"""``ui.watch_drops.DropLines``: which DROP and SKIP records of a spectator's copy become lines
(protocol.md §N10, §C8.4, §C8.10 'skipped'). In memory: records as ``WatchClient`` holds them,
(kind, payload), and a stand-in for ``verify_log``'s report."""

from __future__ import annotations

from types import SimpleNamespace

from p2p.gamelog import DROP_RECORD, KIND_DROP, KIND_SKIP, KIND_STEP, SKIP_RECORD, DropRecord, SkipRecord
from ui.driver import SeatChanged
from ui.watch_drops import DropLines

OK = SimpleNamespace(ok=True, first_bad_step=None)


def _drop(step: int, seat: int) -> tuple[int, bytes]:
    return KIND_DROP, DROP_RECORD.encode(DropRecord(step, seat, [], None))


def _skip(step: int, seat: int) -> tuple[int, bytes]:
    return KIND_SKIP, SKIP_RECORD.encode(SkipRecord(step, seat, []))


def test_each_verified_drop_and_skip_is_shown_once_whoever_serves_it():
    """A drop (the setup's rule; a header that does not parse: "bot") and a skip, each once; after a
    switch the copy is cut back and the next seat serves the same records: nothing shown again."""
    records = [(0, b"not a header"), (KIND_STEP, b"s0"), _drop(1, 2), (KIND_STEP, b"s1"), _skip(2, 0)]
    lines = DropLines()
    assert lines.new(records, 3, OK) == [SeatChanged(2, 1, "bot")]
    assert lines.new(records, 5, OK) == [SeatChanged(0, 2, "skipped")] and lines.seen == 5
    lines.cut(2)
    assert lines.seen == 2 and lines.new(records, 5, OK) == [] and lines.seen == 5


def test_a_record_not_verified_or_malformed_is_neither_shown_nor_passed_over():
    """Reading stops at a DROP/SKIP of a step at or after the first step that failed (or with no
    step named), and at one that does not parse; it goes on from there once it verifies."""
    records = [(0, b""), _drop(3, 1), (KIND_STEP, b"s"), _skip(5, 2)]
    lines = DropLines()
    bad_at_5 = SimpleNamespace(ok=False, first_bad_step=5)
    assert lines.new(records, 4, bad_at_5) == [SeatChanged(1, 3, "bot")] and lines.seen == 2
    assert lines.new(records, 4, SimpleNamespace(ok=False, first_bad_step=None)) == [] and lines.seen == 2
    assert lines.new(records, 4, OK) == [SeatChanged(2, 5, "skipped")] and lines.seen == 4
    broken = DropLines()
    assert broken.new([(0, b""), (KIND_SKIP, b"\xc1")], 2, OK) == [] and broken.seen == 1


def test_a_drop_under_the_bankrupt_rule_is_shown_as_bankrupt(monkeypatch):
    """§C8.4: the setup's ``p2p.on_drop`` rule names the change ("bankrupt" when it says so; any
    other value: "bot"), read from the header as verify reads it (RV15-D D-1: only "bot" was
    reached). The header's parse is stood in for: the rule is the point here, not the header."""
    import p2p.log_checks as checks

    rule = {"p2p.on_drop": "bankrupt"}
    setup = SimpleNamespace(options_dict=lambda: rule)
    monkeypatch.setattr(checks, "parse_header", lambda payload: (setup, b"", b"", b""))
    records = [(0, b"header"), _drop(1, 2), _drop(4, 0)]
    assert DropLines().new(records, 3, OK) == [SeatChanged(2, 1, "bankrupt"), SeatChanged(0, 4, "bankrupt")]
    rule["p2p.on_drop"] = "something else"
    assert DropLines().new(records, 3, OK) == [SeatChanged(2, 1, "bot"), SeatChanged(0, 4, "bot")]
