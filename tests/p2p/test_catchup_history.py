"""history.History: the session's log records, old payloads read back from the game log
(protocol.md §C9.6, issue 14 "a peer's memory flat over a long game").

Reference for every figure: the plain list of (kind, payload, step) that the history held in
memory before, and the page rule of §C9.2 written out over that list."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p.catchup import CatchUp
from p2p.gamelog import KIND_COMPLAINT, KIND_DROP, KIND_STEP, LogReader, LogWriter
from p2p.history import KEEP_RECENT, SPILL_EVERY, History
from p2p.identity import Identity
from p2p.wire import CatchupResponse, decode_catchup_resp, open_envelope, pack

_OVERHEAD = 8  # history.RECORD_OVERHEAD, restated: part of the §C9.2 byte cap


def _reference_page(recs: list, from_step: int, to_step: int, max_records: int, max_bytes: int) -> list:
    """§C9.2 over a plain list: from the first record of ``from_step``, in log order, stopping
    before ``to_step``, after ``max_records``, or before exceeding ``max_bytes`` (>= 1 record)."""
    start = next((i for i, r in enumerate(recs) if r[2] == from_step), None)
    out: list = []
    size = 0
    if start is None:
        return out
    for kind, payload, step in recs[start:]:
        if step >= to_step or len(out) >= max_records:
            break
        if out and size + len(payload) + _OVERHEAD > max_bytes:
            break
        out.append([kind, payload])
        size += len(payload) + _OVERHEAD
    return out


def _records(n_steps: int, seed: int = 0) -> list[tuple[int, bytes, int]]:
    """A plausible history: a STEP record per step, now and then a DROP or COMPLAINT before it."""
    out = []
    for k in range(n_steps):
        if (k * 7 + seed) % 23 == 0:
            out.append((KIND_DROP, pack([k, 1, [os.urandom(40)], None]), k))
        if (k * 5 + seed) % 41 == 0:
            out.append((KIND_COMPLAINT, os.urandom(90), k))
        out.append((KIND_STEP, pack([k, [os.urandom(100 + (k * 13) % 300) for _ in range(3)]]), k))
    return out


def _write(path: str, recs: list) -> None:
    """The log as the session writes it: header, then each record (kinds as in ``LogWriter``)."""
    with LogWriter(path, b"header") as w:
        for kind, payload, step in recs:
            if kind == KIND_STEP:
                w.append_step(step, unpack_step(payload))
            elif kind == KIND_DROP:
                w.append_drop(payload)
            else:
                w.append_complaint(payload)


def unpack_step(payload: bytes) -> list:
    from p2p.wire import unpack

    return unpack(payload, big=True)[1]


def _filled(tmp_path, recs: list, *, log_first: bool = True) -> History:
    path = str(tmp_path / "game.log")
    _write(path, recs)
    h = History()
    if log_first:
        h.use_log(path)
    for r in recs:
        h.append(*r)
    if not log_first:
        h.use_log(path)
    return h


def test_history_reads_old_records_back_from_the_log_and_keeps_few_in_memory(tmp_path):
    recs = _records(1500)
    h = _filled(tmp_path, recs)
    assert len(h) == len(recs)
    assert list(h) == recs  # byte for byte, in log order
    assert h[0] == recs[0] and h[-1] == recs[-1] and h[700] == recs[700]
    assert h.in_memory < KEEP_RECENT + SPILL_EVERY  # flat: not one payload per record
    assert h.stats["mismatch"] == 0 and h.stats["read_failed"] == 0


def test_a_log_named_after_a_replay_is_matched_from_its_header(tmp_path):
    """Resume: the records are replayed from the log first, the log is named afterwards."""
    recs = _records(400, seed=3)
    h = _filled(tmp_path, recs, log_first=False)
    assert list(h) == recs
    assert h.in_memory <= KEEP_RECENT


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 300), seed=st.integers(0, 50), frm=st.integers(0, 320), span=st.integers(1, 400),
       max_records=st.integers(1, 60), max_bytes=st.integers(1, 9000))
def test_pages_equal_the_rule_over_the_plain_list(tmp_path_factory, n, seed, frm, span, max_records, max_bytes):
    recs = _records(n, seed)
    h = _filled(tmp_path_factory.mktemp("h"), recs)
    i = h.first(frm)
    got = [] if i is None else h.page(i, frm + span, max_records, max_bytes)
    assert got == _reference_page(recs, frm, frm + span, max_records, max_bytes)


def test_a_log_that_differs_keeps_the_history_in_memory(tmp_path):
    """Not our records (another game's log, a bug): nothing is dropped, every answer still
    comes from memory and is right."""
    recs = _records(300)
    path = str(tmp_path / "other.log")
    _write(path, _records(300, seed=9))
    h = History()
    h.use_log(path)
    for r in recs:
        h.append(*r)
    assert h.stats["mismatch"] == 1
    assert h.in_memory == len(recs)
    assert list(h) == recs


def test_a_log_that_differs_later_keeps_what_matched_and_the_rest_in_memory(tmp_path):
    """After the first spills (matched in one read of the framed bytes, ``History._spill``) the
    log stops being ours at record 300: the records before it are read back from the file,
    every later one stays in memory (counted once), and every answer is right: the one-read
    match decides nothing the record-by-record match would not (issue 14)."""
    recs = _records(600)
    path = str(tmp_path / "game.log")
    other = _records(600, seed=9)
    _write(path, recs[:300] + [r for r in other if r[2] >= recs[300][2]])
    h = History()
    h.use_log(path)
    for r in recs:
        h.append(*r)
    assert h.stats["mismatch"] == 1
    assert len(recs) - 300 <= h.in_memory < len(recs)  # the matched prefix left memory
    assert list(h) == recs
    assert h.page(h.first(0), 10**6, 10**6, 10**9) == [[k, p] for k, p, _ in recs]


def test_a_damaged_log_ends_pages_early_and_is_counted(tmp_path):
    recs = _records(400)
    h = _filled(tmp_path, recs)
    path = str(tmp_path / "game.log")
    offsets = [rec.offset for rec in LogReader(path)][1:]  # records after the header
    bad = 5
    with open(path, "r+b") as f:
        f.seek(offsets[bad] + 12)
        f.write(b"\xff" * 8)  # inside record 5's payload: its CRC fails
    page = h.page(h.first(0), 10**6, 50, 10**6)
    assert page == [[k, p] for k, p, _ in recs[:bad]]  # nothing unverified is served
    assert h.stats["read_failed"] == 1
    assert list(h) == recs[:bad]  # iteration stops where the log cannot be read


def test_catchup_serves_pages_from_the_log(tmp_path):
    """A CATCHUP_RESP built over a history read back from the log carries the §C9.2 page."""
    recs = _records(600)
    ident = Identity.from_seed(b"h8")
    cu = CatchUp(ident, b"g" * 16, 0)
    path = str(tmp_path / "game.log")
    _write(path, recs)
    cu.use_log(path)
    for r in recs:
        cu.record(*r)
    raw = cu.build_response(100, 400, 600, [], [])
    env = open_envelope(raw, C.MAX_CATCHUP_MSG)
    assert env.verify(ident.public_key)
    r: CatchupResponse = decode_catchup_resp(env.body)
    assert [list(x) for x in r.records] == _reference_page(recs, 100, 400, C.CATCHUP_MAX_RECORDS, C.CATCHUP_MAX_BYTES)
    assert r.records and r.head_step == 600


def test_log_records_view_is_the_header_then_the_history_read_lazily(tmp_path):
    """What a spectator is served (protocol.md §N10): the header record, then every record."""
    recs = _records(500)
    h = _filled(tmp_path, recs)
    view = h.with_head(0, b"header")
    want = [(0, b"header")] + [(k, p) for k, p, _ in recs]
    assert len(view) == len(want)
    assert list(view) == want
    assert list(view[0:]) == want and list(view[300:]) == want[300:]
    it = view[1:]
    assert next(it) == want[1]  # an iterator: nothing past what is taken is read
    with pytest.raises(TypeError):
        view[3]
