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
                         OwnRecord, SkipRecord, StepRecord, frame, record_crc, step_payload)
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
    assert step_payload(step, messages) == payload == step_payload(step, tuple(messages))


@pytest.mark.parametrize("step, messages", [(-1, []), (2**64, []), (True, []), (1, ["str"]), (1, [b"x", 3])])
def test_step_payload_refuses_what_the_table_refuses(step, messages):
    """The fast step-record encoder (issue 14) refuses exactly like ``STEP_RECORD.encode``."""
    with pytest.raises(LocalProtocolError):
        step_payload(step, messages)
    with pytest.raises((LocalProtocolError, ValueError)):
        STEP_RECORD.encode(StepRecord(step, messages))


@given(st.integers(0, 255), st.binary(max_size=300))
def test_a_frame_is_length_kind_payload_crc(kind, payload):
    """§C6 framing: u32 length | u8 kind | payload | u32 CRC-32 of kind + payload."""
    import struct
    import zlib

    crc = zlib.crc32(bytes((kind,)) + payload)
    assert record_crc(kind, payload) == crc
    assert frame(kind, payload) == struct.pack(">IB", len(payload), kind) + payload + struct.pack(">I", crc)


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


def _rewrite(path, index, payload):
    """Replace record ``index`` of the log at ``path`` by ``payload`` (same kind), framed with
    a valid checksum (protocol.md §C6 framing): only the tables can refuse it."""
    import struct
    import zlib

    from p2p import const as C
    from p2p.gamelog import LogReader

    out = bytearray(C.LOG_MAGIC)
    for i, rec in enumerate(LogReader(path)):
        body = payload if i == index else rec.payload
        out += struct.pack(">IB", len(body), rec.kind) + body + struct.pack(">I", zlib.crc32(bytes((rec.kind,)) + body))
    path.write_bytes(bytes(out))


def test_a_step_record_of_the_wrong_shape_is_damage_for_resume_and_verify(tmp_path):
    """A record whose checksum holds but whose payload breaks STEP_RECORD (three fields): resume
    keeps the steps before it and reports the damage there; verify names the step (§C6, §C10)."""
    import fake_engine as E
    from p2p.resume import resume_session
    from p2p.verify import verify_log
    from p2p_harness import Net, random_legal
    from test_resilience import logged_game

    sessions, paths, secrets, _ = logged_game(tmp_path, 3, {"target": 20})
    Net(list(sessions), random_legal(E, seed=4)).run(max_time=1e5)
    for s in sessions:
        s.log.close()
        s.own_log.close()
    _rewrite(paths[0], 6, pack([5, [b"x", b"y", b"z"], 1]))  # record 6: step 5
    report = verify_log(paths[0], engine=E)
    assert not report.ok and report.first_bad_step == 5 and report.error.startswith("malformed step record")
    sess, rep = resume_session(paths[0], sessions[0].identity, secrets[0], E)  # sets the bad tail aside
    assert rep.damage.step == 5 and rep.steps == 5
    assert rep.damage.reason.startswith("malformed record: step record")
    sess.log.close()


@given(steps, st.binary(min_size=1, max_size=300))
def test_the_own_log_writes_the_tables_bytes(tmp_path_factory, step, envelope):
    """``OwnLog.append_own`` packs the record without the table walk (issue 14): the file
    holds the record ``OWN_RECORD.encode`` gives, framed."""
    from p2p.gamelog import KIND_OWN, LogReader, OwnLog

    path = tmp_path_factory.mktemp("own") / "game.own"
    with OwnLog(path) as log:
        log.append_own(step, envelope)
    recs = list(LogReader(path))
    assert [(r.kind, r.payload) for r in recs] == [(KIND_OWN, OWN_RECORD.encode(OwnRecord(step, envelope)))]


@pytest.mark.parametrize("step, envelope", [(-1, b"x"), (2**64, b"x"), (True, b"x"), (1, "x"), (1, bytearray(b"x")),
                                            (1, None)])
def test_the_own_log_refuses_what_the_table_refuses_and_writes_nothing(tmp_path, step, envelope):
    from p2p import const as C
    from p2p.gamelog import OwnLog

    path = tmp_path / "game.own"
    with OwnLog(path) as log:
        with pytest.raises(LocalProtocolError):
            log.append_own(step, envelope)
    assert path.read_bytes() == C.LOG_MAGIC
    with pytest.raises(LocalProtocolError):
        OWN_RECORD.encode(OwnRecord(step, envelope))
