"""The log record payloads declared once (p2p/gamelog.py tables; protocol.md §C6): each table
reads what its writer writes and re-encodes it to the same bytes (canonical msgpack), the
writers that build payloads elsewhere (``escrow.drop_record``, ``turn_skip.skip_record``) agree
with the tables, and a payload of the wrong shape or type is a ``WireError``."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from p2p.errors import LocalProtocolError, WireError
from p2p.escrow import drop_record
from p2p.gamelog import (DROP_RECORD, HEADER_RECORD, OWN_RECORD, SKIP_RECORD, STEP_RECORD, DropRecord, HeaderRecord,
                         OwnRecord, SkipRecord, StepRecord)
from p2p.schema import pack
from p2p.turn_skip import skip_record

envs = st.lists(st.binary(min_size=1, max_size=64), max_size=8)
steps = st.integers(0, 2**40)
seats = st.integers(0, 7)


@given(steps, st.lists(st.none() | st.binary(min_size=1, max_size=64), max_size=8))
def test_step_record_round_trip(step, messages):
    payload = STEP_RECORD.encode(StepRecord(step, messages))
    assert payload == pack([step, messages])  # the bytes the log always had
    assert STEP_RECORD.decode(payload) == (step, tuple(messages))


@given(steps, seats, envs, st.none() | st.binary(min_size=1, max_size=64))
def test_drop_record_table_reads_escrow_drop_record(step, seat, votes, escrow):
    payload = drop_record(step, seat, votes, escrow)
    assert DROP_RECORD.decode(payload) == (step, seat, tuple(votes), escrow)
    assert DROP_RECORD.encode(DropRecord(step, seat, votes, escrow)) == payload


@given(steps, seats, envs)
def test_skip_record_table_reads_turn_skip_skip_record(step, seat, votes):
    payload = skip_record(step, seat, votes)
    assert SKIP_RECORD.decode(payload) == (step, seat, tuple(votes))
    assert SKIP_RECORD.encode(SkipRecord(step, seat, votes)) == payload


@given(steps, st.binary(min_size=1, max_size=64))
def test_own_record_round_trip(step, envelope):
    payload = OWN_RECORD.encode(OwnRecord(step, envelope))
    assert payload == pack([step, envelope]) and OWN_RECORD.decode(payload) == (step, envelope)


def test_header_record_round_trip():
    rec = HeaderRecord(1, b"setup", (b"sig0", b"sig1"), (b"seed0", b"seed1"))
    payload = HEADER_RECORD.encode(rec)
    assert payload == pack([1, b"setup", [b"sig0", b"sig1"], [b"seed0", b"seed1"]])
    assert HEADER_RECORD.decode(payload) == rec


@pytest.mark.parametrize(("table", "obj"), [
    (STEP_RECORD, [1]),  # too short
    (STEP_RECORD, [1, [b"x"], 2]),  # too long
    (STEP_RECORD, [-1, [b"x"]]),  # negative step
    (STEP_RECORD, [True, [b"x"]]),  # a bool is not a step
    (STEP_RECORD, [1, ["text"]]),  # an envelope is bin
    (OWN_RECORD, [1, None]),  # our own record always holds an envelope
    (DROP_RECORD, [1, 0, b"not a list", None]),
    (SKIP_RECORD, [1, "0", []]),
    (HEADER_RECORD, [1, b"setup", [b"sig"]]),
    (HEADER_RECORD, {"not": "a list"}),
])
def test_a_payload_of_the_wrong_shape_is_refused(table, obj):
    payload = pack(obj)
    with pytest.raises(WireError):
        table.decode(payload)


def test_an_invalid_record_of_ours_is_never_written():
    with pytest.raises(LocalProtocolError):
        STEP_RECORD.encode(StepRecord(-1, [b"x"]))
