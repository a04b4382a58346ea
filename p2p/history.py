"""The game's log records after the header, served to stragglers and spectators (protocol.md
§C9.2 'Old records are served from the responder's log file', §N10).

``History`` keeps every record (kind, payload, step) in log order with an index by step and
builds the record list of a catch-up page (``page``: the §C9.2 record and byte caps); once it
knows the game log that holds the same records, old payloads are read back from the file
instead of kept in memory (issue 14: flat memory). ``LogRecords`` is the whole log as a
spectator is served it (header, then the history). The session's ``catchup.CatchUp`` owns
one ``History``.
"""

from __future__ import annotations

from array import array
from typing import Iterator

from . import const as C
from .gamelog import KIND_HEADER, LogReader, frame

#: Bytes a record adds to a CATCHUP_RESP around its payload (msgpack array and bin headers):
#: part of the §C9.2 byte cap (``History.page``, ``catchup.CatchUp.hold``).
RECORD_OVERHEAD = 8
#: Records whose payload ``History`` keeps in memory once it reads old ones from the log: the
#: last ones, which pushes (§C8.3) and stragglers' requests ask for most.
KEEP_RECENT = 64
#: ``History`` matches records against the log file once this many more are in memory.
SPILL_EVERY = 64
#: Bytes of a log record around its payload (length, kind, CRC-32: ``gamelog``).
_FRAME = 9


class History:
    """Every log record of the game after the header, in log order, as (kind, payload, step):
    a read-only sequence (``len``, index, iteration) plus ``first(step)`` and ``page(...)``.

    In memory by default. Once ``use_log(path)`` names the game log that holds the same records
    (the session writes each record to the log before it records it here), every
    ``SPILL_EVERY`` records the ones older than the last ``KEEP_RECENT`` are matched against the
    file (kind and payload byte for byte, CRC-checked by ``gamelog.LogReader``) and their
    payloads are dropped from memory: per record only its kind, step, length and file offset
    stay (~30 bytes in arrays), so a peer's memory stays flat over a long game (issue 14). A
    record that does not match stops the matching for good (the rest stays in memory:
    correct, not flat; counted in ``stats["mismatch"]``); a record that cannot be read back
    (file gone or damaged) ends a page early (``stats["read_failed"]``)."""

    def __init__(self) -> None:
        self._kinds = bytearray()
        self._steps = array("i")
        self._lens = array("i")
        #: File offset of records [0, len(_offs)) (matched against the log).
        self._offs = array("q")
        #: Payloads still in memory, by index (every record not matched, or recent).
        self._mem: dict[int, bytes] = {}
        #: _first[s]: index of the first record of step s (-1: none).
        self._first = array("i")
        self._path: str | None = None
        self._spilling = False
        self._scan = 0  # file offset where matching goes on (0: file start, header first)
        self.stats = {"mismatch": 0, "read_failed": 0, "read_back": 0}

    def use_log(self, path: str) -> None:
        """From now on, old payloads are read back from the log file at ``path``, which holds
        this history's records in the same order after its header. Ignored if another file
        was named before (the offsets found there stay valid)."""
        if self._path is None:
            self._path, self._spilling = path, True
            self._spill()

    def append(self, kind: int, payload: bytes, step: int) -> None:
        """Add the next record (kind 1 STEP, 2 DROP, 4 ABANDON, 5 COMPLAINT) of ``step``."""
        i = len(self._kinds)
        self._kinds.append(kind)
        self._steps.append(step)
        self._lens.append(len(payload))
        self._mem[i] = payload
        first = self._first
        while len(first) <= step:
            first.append(i if len(first) == step else -1)
        if self._spilling and len(self._mem) >= KEEP_RECENT + SPILL_EVERY:
            self._spill()

    def _spill(self) -> None:
        """Match the records older than the last ``KEEP_RECENT`` with the log, dropping their
        payloads from memory."""
        limit = len(self._kinds) - KEEP_RECENT
        j = len(self._offs)
        if limit <= j:
            return
        if self._scan and self._match_bytes(j, limit):
            return
        reader = LogReader(self._path, self._scan)
        try:
            for rec in reader:
                if rec.kind == KIND_HEADER and self._scan == 0:
                    self._scan = reader.good_end
                    continue
                if rec.kind != self._kinds[j] or rec.payload != self._mem[j]:
                    break
                self._offs.append(rec.offset)
                del self._mem[j]
                j += 1
                self._scan = reader.good_end
                if j >= limit:
                    return
        except OSError:
            pass
        self._spilling = False  # the file is not our history (or unreadable): keep the rest here
        self.stats["mismatch"] += 1

    def _match_bytes(self, j: int, limit: int) -> bool:
        """Records [j, limit) matched in one read (issue 14: ``_spill`` parsed each record
        back through ``LogReader``, ~1 % of a lockstep step): the file's bytes from ``_scan``
        are compared with the records framed as ``gamelog`` writes them (length, kind,
        payload, CRC-32). Equal bytes are exactly what ``LogReader`` would accept as these
        records (frames delimit themselves, every CRC is right, no length over the cap), so the
        offsets and ``_scan`` end up as its matching leaves them. False (nothing changed):
        not equal, a length over the cap, or unreadable; the record-by-record path decides."""
        kinds, mem, lens = self._kinds, self._mem, self._lens
        if max(lens[j:limit]) > C.MAX_LOG_RECORD:
            return False
        want = b"".join([frame(kinds[i], mem[i]) for i in range(j, limit)])
        start = self._scan
        try:
            with open(self._path, "rb") as f:
                f.seek(start)
                got = f.read(len(want))
        except OSError:
            return False
        if got != want:
            return False
        offs = self._offs
        off = start
        for i in range(j, limit):
            offs.append(off)
            off += lens[i] + _FRAME
            del mem[i]
        self._scan = off
        return True

    @property
    def in_memory(self) -> int:
        """How many payloads are held in memory (the others are read back from the log)."""
        return len(self._mem)

    def __len__(self) -> int:
        return len(self._kinds)

    def __getitem__(self, i: int) -> tuple[int, bytes, int]:
        if i < 0:
            i += len(self._kinds)
        if not 0 <= i < len(self._kinds):
            raise IndexError(i)
        got = self.span(i, i + 1)
        if not got:
            raise LookupError(f"record {i} cannot be read back from the log")
        return got[0]

    def __iter__(self) -> Iterator[tuple[int, bytes, int]]:
        return self.iter_from(0)

    def iter_from(self, i: int) -> Iterator[tuple[int, bytes, int]]:
        """The records from index ``i`` on, read back from the log 256 at a time as the
        iteration goes (stops early where a record cannot be read back)."""
        n = len(self._kinds)
        while i < n:
            chunk = self.span(i, min(n, i + 256))
            if not chunk:
                return
            yield from chunk
            i += len(chunk)

    def with_head(self, kind: int, payload: bytes) -> "LogRecords":
        """The whole log as (kind, payload) pairs: the header record (``kind``, ``payload``),
        then this history — what a spectator is served (protocol.md §N10), without reading
        the old records before they are sent."""
        return LogRecords((kind, payload), self)

    def first(self, step: int) -> int | None:
        """Index of the first record of ``step``, or None if it has none."""
        if 0 <= step < len(self._first):
            i = self._first[step]
            return None if i < 0 else i
        return None

    def span(self, i: int, j: int) -> list[tuple[int, bytes, int]]:
        """Records [i, j) as (kind, payload, step), reading the dropped payloads back from the
        log in one read; shorter if a record cannot be read back."""
        out: list[tuple[int, bytes, int]] = []
        kinds, steps, mem = self._kinds, self._steps, self._mem
        k = i
        matched = min(j, len(self._offs))
        if k < matched:  # matched records live in the file only
            start = self._offs[k]
            end = self._offs[matched - 1] + self._lens[matched - 1] + _FRAME
            self.stats["read_back"] += 1
            try:
                for rec in LogReader(self._path, start, end):
                    if k >= matched:
                        break
                    if rec.kind != kinds[k] or len(rec.payload) != self._lens[k]:
                        break
                    out.append((kinds[k], rec.payload, steps[k]))
                    k += 1
            except OSError:
                pass
            if k < matched:
                self.stats["read_failed"] += 1
                return out
        while k < j:
            payload = mem[k]
            out.append((kinds[k], payload, steps[k]))
            k += 1
        return out

    def page(self, i: int, to_step: int, max_records: int, max_bytes: int) -> list[list]:
        """[[kind, payload], ...]: records from index ``i`` on, stopping before the first of
        ``to_step`` or later, after ``max_records``, or before the payloads plus
        ``RECORD_OVERHEAD`` each would exceed ``max_bytes`` (at least one record)."""
        n = len(self._kinds)
        steps, lens = self._steps, self._lens
        j, size = i, 0
        while j < n and j - i < max_records and steps[j] < to_step:
            add = lens[j] + RECORD_OVERHEAD
            if j > i and size + add > max_bytes:
                break
            size += add
            j += 1
        return [[kind, payload] for kind, payload, _ in self.span(i, j)]


class LogRecords:
    """A read-only view of a game log as (kind, payload) pairs: one head record, then a
    ``History``. ``len`` and ``view[i:]`` (a lazy iterator from ``i``; the only slice form) are
    what ``spectate.WatchServer.outgoing`` uses."""

    def __init__(self, head: tuple[int, bytes], history: History) -> None:
        self._head = head
        self._history = history

    def __len__(self) -> int:
        return 1 + len(self._history)

    def __getitem__(self, index: slice) -> Iterator[tuple[int, bytes]]:
        if type(index) is not slice or index.stop is not None or index.step is not None:
            raise TypeError("LogRecords supports only view[start:]")
        return self._from(index.start or 0)

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        return self._from(0)

    def _from(self, start: int) -> Iterator[tuple[int, bytes]]:
        if start <= 0:
            yield self._head
            start = 1
        for kind, payload, _ in self._history.iter_from(start - 1):
            yield kind, payload
