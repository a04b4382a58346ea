"""Append-only game log (DESIGN.md §5; protocol.md §C6).

File layout::

    magic   b"LNPLOG1\\n"                         (8 bytes)
    record* length (4 bytes BE, of payload) | kind (1 byte) | payload | CRC-32 (4 bytes BE,
            zlib.crc32 over kind + payload)

Record kinds: ``KIND_HEADER`` (0) exactly once, first: the payload is ``Lobby.log_header()``
(setup bytes, every seat's SETUP_SIG envelope and SEED envelope). ``KIND_STEP`` (1) once per
applied step, in step order: msgpack ``[step, [STEP envelope of seat 0, seat 1, ...]]`` — the
raw signed bytes as received, never re-encoded.

The msgpack payloads are declared once, as tables like the wire messages (p2p/schema.py):
``HEADER_RECORD``, ``STEP_RECORD``, ``DROP_RECORD``, ``OWN_RECORD``, ``SKIP_RECORD``; their
``encode`` writes a payload and their ``decode`` checks the types and shape of one (raising
``WireError``), before the reader checks what the fields say (signatures, steps, seats). The
ABANDON and COMPLAINT payloads are signed envelopes (``wire.open_envelope``).

The writer hands every record to the OS as it is appended, in one ``write`` of the whole
framed record (the files are unbuffered: no copy into a buffer, no separate flush; ``fsync=True``
also forces it to disk), so a crash loses at most the record being written; the reader detects
that truncated tail (and any corrupted record by its CRC) and reports the byte offset and step
where the log breaks.
"""

from __future__ import annotations

import io
import os
import struct
import zlib
from dataclasses import dataclass
from typing import Iterator, NamedTuple

from . import const as C
from .errors import LocalProtocolError
from .schema import Array, Bin, Nil, Schema, Struct, UInt, pack

KIND_HEADER = 0
KIND_STEP = 1
#: A seat dropped at a step (protocol.md §C8): msgpack [step, seat, [DROP envelopes], escrow or nil].
#: Written just before the record of that step.
KIND_DROP = 2
#: Own-message log only (``OwnLog``): msgpack [step, our STEP envelope], written before the
#: message is first sent, so a restarted peer re-sends exactly what it signed.
KIND_OWN = 3
#: The game ended as abandoned (protocol.md §C8.7): payload = the signed ABANDON envelope; the
#: last record of the log.
KIND_ABANDON = 4
#: A proven complaint (protocol.md §C8.8): payload = the signed COMPLAINT envelope, written when
#: the peer made or accepted it (before the records of the step it belongs to).
KIND_COMPLAINT = 5
#: A seat's turn skipped by a quorum (protocol.md §C8.10): msgpack [step, seat, [SKIP envelopes]],
#: written just before the record of that step (``turn_skip.skip_record``).
KIND_SKIP = 6
_HEAD = struct.Struct(">IB")

#: Log header format version (the header record's first field, protocol.md §C6).
LOG_HEADER_VERSION = 1


# --- record payloads, declared once (protocol.md §C6) --------------------------------------------
# Only types and shape: the reader checks what the fields say (and the unpacker bounds each bin).

class HeaderRecord(NamedTuple):
    """``KIND_HEADER``: format version, the signed setup bytes, every seat's SETUP_SIG and SEED
    envelope in seat order."""

    version: int
    setup: bytes
    sigs: tuple
    seeds: tuple


class StepRecord(NamedTuple):
    """``KIND_STEP``: the step and one STEP envelope per seat (None: a dropped or skipped seat)."""

    step: int
    messages: tuple


class DropRecord(NamedTuple):
    """``KIND_DROP`` (``escrow.drop_record``): the dropped seat, the DROP vote envelopes in voter
    order, its ESCROW envelope or None."""

    step: int
    seat: int
    votes: tuple
    escrow: bytes | None


class OwnRecord(NamedTuple):
    """``KIND_OWN`` (own-message log, protocol.md §C6): one envelope of ``step``: a STEP or
    DROP/SKIP vote of ours; or, version 5, another seat's ESCROW we held (our share survives a
    restart, §C8.2) or another voter's DROP vote of a quorum we released on (§C8.3 rule (b)).
    Only the first two are ours: ``resume.py`` sorts them (``_is_escrow``, ``_voter``)."""

    step: int
    envelope: bytes


class SkipRecord(NamedTuple):
    """``KIND_SKIP`` (``turn_skip.skip_record``): the skipped seat, the SKIP vote envelopes."""

    step: int
    seat: int
    votes: tuple


_STEP = UInt(2**64 - 1)  # a step number; whether it is the right one is the reader's check
_SEAT = UInt(2**64 - 1)  # likewise a seat: range checked against the setup by the reader
HEADER_RECORD = Schema("log header", None, Struct(
    (("version", UInt(2**32 - 1)), ("setup", Bin()), ("sigs", Array(Bin())), ("seeds", Array(Bin()))), HeaderRecord))
STEP_RECORD = Schema("step record", None, Struct((("step", _STEP), ("messages", Array(Nil(Bin())))), StepRecord))
DROP_RECORD = Schema("drop record", None, Struct(
    (("step", _STEP), ("seat", _SEAT), ("votes", Array(Bin())), ("escrow", Nil(Bin()))), DropRecord))
OWN_RECORD = Schema("own record", None, Struct((("step", _STEP), ("envelope", Bin())), OwnRecord))
SKIP_RECORD = Schema("skip record", None, Struct((("step", _STEP), ("seat", _SEAT), ("votes", Array(Bin()))),
                                                 SkipRecord))
#: The table of each record kind that belongs to a step (its payload starts with the step):
#: what a catch-up page or a replay decodes before dispatching on the kind.
STEP_BOUND_RECORDS = {KIND_STEP: STEP_RECORD, KIND_DROP: DROP_RECORD, KIND_SKIP: SKIP_RECORD}
_CRC = struct.Struct(">I")
#: CRC-32 of each one-byte kind: a record's CRC continues from it over the payload, the same
#: value as ``zlib.crc32(kind + payload)`` without building that concatenation.
_KIND_CRC = tuple(zlib.crc32(bytes((k,))) for k in range(256))


def record_crc(kind: int, payload: bytes) -> int:
    """The CRC-32 of a record: ``zlib.crc32`` over the kind byte then the payload (§C6)."""
    return zlib.crc32(payload, _KIND_CRC[kind])


def frame(kind: int, payload: bytes) -> bytes:
    """One whole record as it is in the file: length, kind, payload, CRC-32 (§C6)."""
    return _HEAD.pack(len(payload), kind) + payload + _CRC.pack(zlib.crc32(payload, _KIND_CRC[kind]))


def step_payload(step: int, messages: list) -> bytes:
    """The payload of a ``KIND_STEP`` record: the same bytes as
    ``STEP_RECORD.encode(StepRecord(step, messages))``, built with one type check per element
    instead of the table's generic encoder (it runs once per step, and the session hands the
    same bytes to the log and to the catch-up history). Raises ``LocalProtocolError`` where
    the table's encoder would: ``step`` not a u64, a message neither bytes nor None (our bug:
    the reader would refuse the record)."""
    messages = list(messages)
    if type(step) is not int or not 0 <= step < 2**64 or not all(m is None or type(m) is bytes for m in messages):
        raise LocalProtocolError(f"refusing to encode an invalid step record (step {step!r})")
    return pack([step, messages])


def _write_all(f: io.RawIOBase, data: bytes) -> None:
    """``data`` to the unbuffered file ``f``: one ``write`` call, more only after a short write
    (a signal, a full disk), so a record is never half handed to the OS by us."""
    done = f.write(data)
    while done is not None and done < len(data):
        done += f.write(memoryview(data)[done:])


class LogWriter:
    """Writes a new log file: the header at creation, then ``append_step`` per step.

    ``LogWriter(path, header)`` creates ``path`` (raises ``FileExistsError`` if it exists: a
    log is never overwritten). Use as a context manager or call ``close()``.
    """

    def __init__(self, path: str | os.PathLike[str], header: bytes, *, fsync: bool = False) -> None:
        self.path = os.fspath(path)
        self._f = open(self.path, "xb", buffering=0)
        self._fsync = fsync
        _write_all(self._f, C.LOG_MAGIC)
        self._write(KIND_HEADER, header)
        #: Number of step records written.
        self.steps = 0

    def _write(self, kind: int, payload: bytes) -> None:
        _write_all(self._f, frame(kind, payload))
        if self._fsync:
            os.fsync(self._f.fileno())

    def append_step(self, step: int, messages: list[bytes], payload: bytes | None = None) -> None:
        """Append the accepted STEP envelopes of ``step`` (seat order) and flush.
        ``payload``: ``step_payload(step, messages)`` when the caller already built it (it is
        written as given). Raises ``LocalProtocolError`` if ``step`` is not the next step."""
        if step != self.steps:
            raise LocalProtocolError(f"log expects step {self.steps}, got {step}")
        self._write(KIND_STEP, step_payload(step, messages) if payload is None else payload)
        self.steps += 1

    def append_drop(self, payload: bytes) -> None:
        """Append a DROP record (``seat_loss.drop_record`` bytes) and flush. It belongs to step
        ``self.steps`` (the next step record)."""
        self._write(KIND_DROP, payload)

    def append_abandon(self, envelope: bytes) -> None:
        """Append the ABANDON record (the signed envelope) that ends the game, and flush."""
        self._write(KIND_ABANDON, envelope)

    def append_complaint(self, envelope: bytes) -> None:
        """Append a COMPLAINT record (the signed envelope) and flush."""
        self._write(KIND_COMPLAINT, envelope)

    def append_skip(self, payload: bytes) -> None:
        """Append a SKIP certificate record (``turn_skip.skip_record`` bytes) and flush. It
        belongs to step ``self.steps`` (the next step record)."""
        self._write(KIND_SKIP, payload)

    @classmethod
    def reopen(cls, path: str | os.PathLike[str], good_end: int, steps: int, *,
               fsync: bool = False) -> "LogWriter":
        """Continue an existing log after its last good record, which ends at byte ``good_end``
        and holds ``steps`` step records (as found by ``resume.load_log``). A damaged tail
        beyond ``good_end`` is first copied to ``<path>.damaged-<good_end>`` (never lost), then
        cut off."""
        path = os.fspath(path)
        size = os.path.getsize(path)
        if size > good_end:
            with open(path, "rb") as f:
                f.seek(good_end)
                tail = f.read()
            with open(f"{path}.damaged-{good_end}", "wb") as f:
                f.write(tail)
        w = cls.__new__(cls)
        w.path = path
        w._f = open(path, "r+b", buffering=0)
        w._f.truncate(good_end)
        w._f.seek(good_end)
        w._fsync = fsync
        w.steps = steps
        return w

    def close(self) -> None:
        """Flush and close the file."""
        if not self._f.closed:
            self._f.close()

    def __enter__(self) -> "LogWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class OwnLog:
    """Write-ahead log of our own signed step messages (a separate file, normally
    ``<game log>.own``; per peer, unlike the game log). Same framing as the game log, records
    of kind ``KIND_OWN`` (``OwnRecord``): our STEP envelopes and DROP/SKIP votes, and (version
    5) the other seats' ESCROW envelopes we held and the other voters' DROP votes of a quorum
    we released on, which are not ours: a reader must not re-send them as ours nor count them
    as our promise (``resume.py``'s ``_is_escrow``, ``_voter``; protocol.md §C6, §C8.2, §C8.3).
    Opened in append mode (created if missing)."""

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False) -> None:
        self.path = os.fspath(path)
        new = not os.path.exists(self.path) or os.path.getsize(self.path) == 0
        self._f = open(self.path, "ab", buffering=0)
        self._fsync = fsync
        if new:
            _write_all(self._f, C.LOG_MAGIC)

    def append_own(self, step: int, envelope: bytes) -> None:
        """Record ``envelope`` of ``step`` (``OwnRecord``): our STEP envelope or DROP/SKIP vote
        before it is sent, or another seat's ESCROW we hold, or another voter's DROP vote of a
        quorum we release on (version 5; not ours, ``OwnLog``). Raises
        ``LocalProtocolError`` (nothing written) if ``step`` is not a u64 or ``envelope`` not bytes."""
        if type(step) is int and 0 <= step < 2**64 and type(envelope) is bytes:
            # What ``OWN_RECORD.encode`` checks and packs, without its generic table walk: it
            # runs once per step (issue 14); the same bytes (tests/p2p/test_gamelog_records.py).
            payload = pack([step, envelope])
        else:
            payload = OWN_RECORD.encode(OwnRecord(step, envelope))  # raises, as it always did
        _write_all(self._f, frame(KIND_OWN, payload))
        if self._fsync:
            os.fsync(self._f.fileno())

    def close(self) -> None:
        """Close the file (idempotent). Every record is already flushed by ``append_own``, so
        closing adds nothing to the file; after it ``append_own`` raises ``ValueError``."""
        if not self._f.closed:
            self._f.close()

    def __enter__(self) -> "OwnLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class Record:
    """One log record: ``offset`` of its length field in the file, ``kind``, ``payload``."""

    offset: int
    kind: int
    payload: bytes


class LogReader:
    """Iterates the records of a log file. Iteration stops at the first broken record; then
    ``error`` says why (English) and ``error_offset`` where (bytes from the file start);
    ``records_read`` counts the good records (header included), so the broken step is
    ``records_read - 1``. A clean end leaves ``error`` None.

    ``start``/``end``: read only the bytes [start, end) of the file (``end`` None: to its end),
    ``start`` being the offset of a record (0: the file start, whose magic is checked); offsets
    stay those of the whole file. ``history.History`` reads old records back this way."""

    def __init__(self, path: str | os.PathLike[str], start: int = 0, end: int | None = None) -> None:
        self.path = os.fspath(path)
        self.start = start
        self.end = end
        self.error: str | None = None
        self.error_offset: int | None = None
        self.records_read = 0
        #: Byte offset just after the last good record (where an appender continues).
        self.good_end = 0

    def __iter__(self) -> Iterator[Record]:
        base = self.start
        with open(self.path, "rb") as f:
            f.seek(base)
            data = f.read() if self.end is None else f.read(self.end - base)
        if base == 0 and not data.startswith(C.LOG_MAGIC):
            self._fail("not a lanopoli log (bad magic)", 0)
            return
        # ``off`` indexes ``data``; what is reported is base + off (offsets in the file).
        off = 0 if base else len(C.LOG_MAGIC)
        self.good_end = base + off
        n = len(data)
        while off < n:
            if off + _HEAD.size > n:
                self._fail("truncated record header", base + off)
                return
            length, kind = _HEAD.unpack_from(data, off)
            if length > C.MAX_LOG_RECORD:
                self._fail(f"record length {length} over the limit", base + off)
                return
            end = off + _HEAD.size + length
            if end + _CRC.size > n:
                self._fail("truncated record", base + off)
                return
            payload = data[off + _HEAD.size:end]
            (crc,) = _CRC.unpack_from(data, end)
            if crc != zlib.crc32(payload, _KIND_CRC[kind]):
                self._fail("record checksum mismatch (corrupted)", base + off)
                return
            self.records_read += 1
            self.good_end = base + end + _CRC.size
            yield Record(base + off, kind, payload)
            off = end + _CRC.size

    def _fail(self, why: str, offset: int) -> None:
        self.error, self.error_offset = why, offset
