"""The requester's pace (steps per page request, protocol.md §C9.1 'pace') comes from checked
records: a page's records that nobody checked yet may only raise it (``CatchUp.hold``), only the
STEP records a page applied set it lower (``CatchUp.paced``), and records of other kinds never
count. A COMPLAINT or ABANDON record that is not an envelope of its kind is a bad record: its
responder is named (§C9.5). H94's break: one genuine STEP record + 39 KB of junk per answer
made the pace 1 (251 requests for 250 steps, honest 6), the attacker never named."""

from __future__ import annotations

import pytest

from p2p import const as C
from p2p.catchup import CatchUp
from p2p.gamelog import KIND_ABANDON, KIND_COMPLAINT, KIND_DROP, KIND_STEP
from p2p.history import RECORD_OVERHEAD
from p2p.identity import Identity
from p2p.wire import CatchupResponse, pack

from redteam_s10_kit import catch_up_with, genuine_first_step

GID = b"g" * 16


def _cu() -> CatchUp:
    return CatchUp(Identity.from_seed(b"pace"), GID, 3)


def _steps(first: int, steps: int, size: int = 500) -> list:
    return [[KIND_STEP, pack([k, [b"x" * size]])] for k in range(first, first + steps)]


def test_records_of_other_kinds_do_not_count_in_a_pages_pace():
    plain, padded = _cu(), _cu()
    recs = _steps(10, 4)
    plain.hold(CatchupResponse(GID, 0, 10, 500, recs, [], []), b"a", 10)
    junk = [[KIND_COMPLAINT, b"\x00" * 39_000], [KIND_DROP, b"\x00" * 5_000], [KIND_ABANDON, b"\x00" * 900]]
    padded.hold(CatchupResponse(GID, 0, 10, 500, recs + junk, [], []), b"b", 10)
    assert padded.pace == plain.pace > C.CATCHUP_PAGE_STEPS


def test_unchecked_records_only_raise_the_pace_and_applied_ones_set_it():
    cu = _cu()
    big = _steps(10, 4, size=5_000)  # ~7 steps a page: below the starting 16
    cu.hold(CatchupResponse(GID, 0, 10, 500, big, [], []), b"a", 10)
    assert cu.pace == C.CATCHUP_PAGE_STEPS  # not lowered by records nobody checked
    cu.paced(big, 10, 14)  # ... until they are applied
    assert cu.pace == C.CATCHUP_MAX_BYTES * 9 // (10 * (len(big[0][1]) + RECORD_OVERHEAD))
    small = _steps(14, 4, size=100)
    cu.hold(CatchupResponse(GID, 0, 14, 500, small, [], []), b"b", 14)
    assert cu.pace > C.CATCHUP_PAGE_STEPS  # raised at once: at worst a page comes back short


def test_only_the_first_record_of_each_applied_step_sets_the_pace():
    cu = _cu()
    recs = _steps(10, 3)
    fat = [[KIND_STEP, pack([11, [b"y" * 30_000]])], [KIND_STEP, pack([9, [b"z" * 30_000]])],
           [KIND_STEP, pack([13, [b"w" * 30_000]])]]  # a repeat, a step before, a step not applied
    cu.paced(recs + fat, 10, 13)
    want = 3 * C.CATCHUP_MAX_BYTES * 9 // (10 * 3 * (len(recs[0][1]) + RECORD_OVERHEAD))
    assert cu.pace == min(C.CATCHUP_MAX_RECORDS, want)
    before = cu.pace
    cu.paced(fat, 20, 20)  # applied nothing: unchanged
    assert cu.pace == before


def _pad(kind: int, payload_of):
    def page(a, r) -> list:
        return genuine_first_step(a, r) + [(kind, payload_of(r))]
    return page


PADDINGS = {
    "complaint": _pad(KIND_COMPLAINT, lambda r: b"\x00" * 39_000),
    "abandon": _pad(KIND_ABANDON, lambda r: b"\x00" * 39_000),
    "drop": _pad(KIND_DROP, lambda r: b"\x00" * 39_000),
    "junk_next_step": _pad(KIND_STEP, lambda r: pack([r.from_step + 1, [b"\x00" * 39_000, None, None]])),
}


@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    return catch_up_with(tmp_path_factory.mktemp("honest"), None)


@pytest.mark.parametrize("padding", sorted(PADDINGS))
def test_a_seat_padding_its_pages_neither_sets_the_pace_nor_goes_unnamed(tmp_path, honest, padding):
    """Seat 1 answers each of the resumed seat 2's requests first with the asked step's genuine
    records and 39 KB of junk (a record of another kind, or a junk STEP record of the next
    step): the catch-up costs at most 3x the honest requests (before: 251 for the complaint
    padding, honest 6), every seat ends with one final hash, and seat 1 is named."""
    out = catch_up_with(tmp_path, PADDINGS[padding])
    assert out["finished"] == 3 and out["finals"] == honest["finals"]
    assert out["requests"] <= 3 * honest["requests"], (out["requests"], honest["requests"])
    assert out["misbehaved"] and all(e.seat == 1 and "bad catch-up record" in e.reason for e in out["misbehaved"])
