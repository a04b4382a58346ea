"""``p2p.bulk_verify`` (issue 14; protocol.md §C9.2 'Bulk signature check'): the STEP signatures
of a catch-up page, of a restart's replay and of ``verify`` are checked in one call first; the
one-by-one checks that apply the records then give exactly the answers, errors and order of
errors they give without it — on honest records and on records with a spoiled message."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace

import fake_engine as E
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import p2p.bulk_verify as bulk
import p2p.catchup as catchup
import p2p.identity as identity
from p2p.catchup import ingest_response
from p2p.gamelog import KIND_HEADER, KIND_STEP, STEP_RECORD, LogReader, LogWriter
from p2p.resume import resume_session
from p2p.verify import parse_header, verify_log
from p2p.wire import open_envelope

from p2p_harness import Net, random_legal
from test_resilience import logged_game

STEPS = 40
_GAME: dict = {}


class _Enough(Exception):
    pass


def _stop(net):
    if net.s[0].step >= STEPS:
        raise _Enough


def game() -> dict:
    """One 4-seat fake-engine game of STEPS steps, played once per test run: seat 0's log
    records, its header payload, the seats' keys, seat 3's identity and chain secret."""
    if not _GAME:
        d = Path(tempfile.mkdtemp(prefix="lanopoli-test-bulk-"))
        atexit.register(shutil.rmtree, d, True)
        sessions, paths, _, ordered = logged_game(d, 4, {"target": 400})
        net = Net(list(sessions), random_legal(E, seed=1))
        try:
            net.run(max_time=1e5, hook=_stop)
        except _Enough:
            pass
        recs = list(LogReader(paths[0]))
        assert recs[0].kind == KIND_HEADER and all(r.kind == KIND_STEP for r in recs[1:])
        setup = parse_header(recs[0].payload)[0]
        _GAME.update(dir=d, header=recs[0].payload, steps=[r.payload for r in recs[1:]],
                     pubkeys=[p.public_key for p in setup.players], lobby=ordered[3])
    return _GAME


def write_log(path: Path, steps: list[bytes]) -> None:
    w = LogWriter(path, game()["header"])
    for payload in steps:
        rec = STEP_RECORD.decode(payload)
        w.append_step(rec.step, list(rec.messages))
    w.close()


def spoil(payload: bytes, seat: int, how: str, byte: int) -> bytes:
    """The STEP record ``payload`` with seat ``seat``'s message spoiled."""
    rec = STEP_RECORD.decode(payload)
    msgs = list(rec.messages)
    raw = bytearray(msgs[seat])
    if how == "sig":
        raw[-1 - byte % 64] ^= 1  # the signature is the envelope's last 64 bytes
    elif how == "byte":
        raw[byte % len(raw)] ^= 0x40
    elif how == "swap":
        msgs[seat], msgs[(seat + 1) % len(msgs)] = msgs[(seat + 1) % len(msgs)], msgs[seat]
        return STEP_RECORD.encode(rec._replace(messages=msgs))
    msgs[seat] = bytes(raw)
    return STEP_RECORD.encode(rec._replace(messages=msgs))


def checked(payloads: list[bytes]) -> int:
    """The STEP messages of ``payloads`` the bulk check checks: every one but those that look
    forced (protocol.md §C3.8: taken without their signature at a plain chance step)."""
    return sum(m is not None and not bulk._forced_looking(open_envelope(m).body)
               for p in payloads for m in STEP_RECORD.decode(p).messages)


@pytest.fixture
def fresh_memory(monkeypatch):
    """Nothing remembered from earlier tests."""
    monkeypatch.setattr(identity, "_good", {})


def test_a_page_is_checked_in_one_call_and_remembered(fresh_memory):
    g = game()
    page = [(KIND_STEP, p) for p in g["steps"]]
    n = bulk.check_records(page, g["pubkeys"])
    assert 0 < n == checked(g["steps"]) < 4 * STEPS  # the forced bodies are left out
    assert len(identity._good) == n
    assert bulk.check_records(page, g["pubkeys"], from_step=STEPS - 5) == checked(g["steps"][-5:])


def test_a_spoiled_signature_is_not_remembered(fresh_memory):
    g = game()
    at = next(k for k in range(STEPS) if checked([g["steps"][k]]) == 4)  # no forced body there
    bad = spoil(g["steps"][at], 2, "sig", 5)
    assert bulk.check_records([(KIND_STEP, bad)], g["pubkeys"]) == 4
    assert len(identity._good) == 3
    assert bulk.check_records([(KIND_STEP, b"\xc1junk"), (9, g["steps"][0])], g["pubkeys"]) == 0


def test_log_ahead_checks_a_chunk_ahead_and_stops_at_a_broken_tail(tmp_path, fresh_memory, monkeypatch):
    g = game()
    monkeypatch.setattr(bulk, "AHEAD_RECORDS", 10)
    path = tmp_path / "a.log"
    write_log(path, g["steps"])
    with open(path, "ab") as f:
        f.write(b"\x00\x00\x00\x09")  # a truncated record header
    ahead = bulk.LogAhead(str(path), g["pubkeys"])
    recs = list(LogReader(path))
    ahead.reach(recs[1].offset)
    assert len(identity._good) == checked(g["steps"][:9])  # header + 9 STEP records in the first chunk
    for r in recs:
        ahead.reach(r.offset)
    assert len(identity._good) == checked(g["steps"])


def _outcomes(tmp_path: Path, steps: list[bytes], use_bulk: bool, monkeypatch) -> tuple:
    """What verify_log, a restart's replay and a catch-up page make of ``steps``."""
    g = game()
    monkeypatch.setattr(identity, "_good", {})
    if not use_bulk:
        monkeypatch.setattr(bulk.LogAhead, "reach", lambda self, offset: None)
        monkeypatch.setattr(catchup, "check_records", lambda records, pubkeys, from_step=0: 0)
    d = tmp_path / ("bulk" if use_bulk else "one")
    d.mkdir()
    write_log(d / "v.log", steps)
    rep = verify_log(d / "v.log", engine=E)
    lob = g["lobby"]
    shutil.copy(d / "v.log", d / "r.log")
    _, rr = resume_session(d / "r.log", lob.identity, lob.chain_secret, E)
    write_log(d / "c.log", [])
    sess, _ = resume_session(d / "c.log", lob.identity, lob.chain_secret, E)
    page = SimpleNamespace(records=[[KIND_STEP, p] for p in steps], seat=0, escrows=[], pending=[])
    why = ingest_response(sess, page, 0.0)
    return ((rep.ok, rep.first_bad_step, rep.error, rep.messages), (rr.damage, rr.steps),
            (why, sess.step, sess.phase, type(sess.halt_reason).__name__))


@settings(max_examples=12, deadline=None)
@given(at=st.integers(0, STEPS - 1), seat=st.integers(0, 3), how=st.sampled_from(["sig", "byte", "swap", "none"]),
       byte=st.integers(0, 400))
def test_same_outcome_with_and_without_the_bulk_check(at, seat, how, byte):
    g = game()
    steps = list(g["steps"])
    if how != "none":
        steps[at] = spoil(steps[at], seat, how, byte)
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        one = _outcomes(Path(tmp), steps, False, mp)
        mp.undo()
        both = _outcomes(Path(tmp), steps, True, mp)
    assert both == one
    if how == "none":
        assert one[0][0] is True and one[2][0] is None and one[2][1] == STEPS
