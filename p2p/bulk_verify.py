"""The signatures of many log records checked in one ``identity.verify_many`` call, before the
records are applied one by one (issue 14; protocol.md §C9.2 'Bulk signature check', Part L).

A catch-up page, a restart's replay of its own log and ``lanopoli verify`` apply STEP records
through checks that verify every message's signature, in order, and stop at the first fault.
Here the signatures of the STEP messages those checks will meet are checked first, on every
core; the good ones are remembered by ``identity``, so the one-by-one check then answers them at
once. Nothing here decides anything: a record that does not decode, a message of an unknown
type or a bad signature is simply left to the one-by-one check, which rejects it with the error
and in the order it always did. The cost of a page of bad signatures is the page's signatures,
as for a page of good ones (at most ``CATCHUP_MAX_RECORDS`` records).

* ``step_record_sigs``: the (public_key, domain, body, sig) of one STEP record's messages,
  but those that look like a forced body (§C3.8: taken without their signature at a plain
  chance step, so not worth checking ahead);
* ``check_records``: a page's STEP records of a step at or after ``from_step``, in one call;
* ``LogAhead``: a log's STEP records checked a chunk ahead of a replay reading the same file.
"""

from __future__ import annotations

from typing import Iterable

from . import const as C
from .errors import WireError
from .gamelog import KIND_STEP, STEP_RECORD, LogReader
from .identity import verify_many
from .wire import DOMAINS, MSG_STEP, open_envelope

__all__ = ["AHEAD_RECORDS", "LogAhead", "check_records", "step_record_sigs"]

#: Log records read (and their STEP signatures checked) per chunk by ``LogAhead``: at most
#: 8 messages each, so a chunk stays within what ``identity`` remembers (GOOD_KEPT).
AHEAD_RECORDS = 256


def step_record_sigs(payload: bytes, pubkeys: list, from_step: int = 0) -> list[tuple]:
    """The signatures in the STEP record ``payload`` (kind 1, §C6) of a step ≥ ``from_step``:
    ``(pubkeys[i], domain, body, sig)`` for the STEP envelope of each seat ``i`` (seat = place in
    the record, as the checks read it). [] for a record that does not decode or of an earlier
    step; a message that does not open, is not a STEP or looks forced (``_forced_looking``)
    is left out."""
    try:
        rec = STEP_RECORD.decode(payload)
    except WireError:
        return []
    if rec.step < from_step or len(rec.messages) > len(pubkeys):
        return []
    out = []
    for i, raw in enumerate(rec.messages):
        if raw is None:
            continue
        try:
            env = open_envelope(raw, C.MAX_STEP_MSG)
        except WireError:
            continue
        if env.mtype == MSG_STEP and not _forced_looking(env.body):
            out.append((pubkeys[i], DOMAINS[MSG_STEP], env.body, env.sig))
    return out


def _forced_looking(body: bytes) -> bool:
    """True if the STEP ``body`` looks like a forced body (protocol.md §C3.8): a 6-field array
    (``0x96``) ending with a 32-byte bin (``0xc4 0x20``, the reveal). At a plain chance step the
    check takes such a body without its signature, so checking it here would be wasted; one
    met elsewhere (an escrow round without acks) is simply checked one by one."""
    return len(body) > 34 and body[0] == 0x96 and body[-34] == 0xC4 and body[-33] == 0x20


def check_records(records: Iterable[tuple[int, bytes]], pubkeys: list, from_step: int = 0, keep: bool = False) -> int:
    """Check in one ``verify_many`` call the STEP messages' signatures of ``records``
    ((kind, payload) pairs, e.g. a CATCHUP_RESP's) of steps ≥ ``from_step``. Returns how many
    signatures were checked; the answers are only remembered (module docstring), until the
    check that uses them unless ``keep`` (``identity.verify_many``)."""
    items = []
    for kind, payload in records:
        if kind == KIND_STEP:
            items += step_record_sigs(payload, pubkeys, from_step)
    verify_many(items, keep)
    return len(items)


class LogAhead:
    """Checks the STEP signatures of the log at ``path`` a chunk of ``AHEAD_RECORDS`` records
    ahead of a replay that reads the same log with its own ``LogReader`` (so the replay's reader,
    its offsets and errors, stay exactly as they were). ``pubkeys``: the seats' keys, in seat
    order (the log header's setup); ``keep``: the answers stay remembered after their use (a log
    checked again, ``verify_log``). Reads the file once more; a broken record ends the
    look-ahead silently (the replay finds and reports it)."""

    def __init__(self, path: str, pubkeys: list, keep: bool = False) -> None:
        self._records = iter(LogReader(path))
        self._pubkeys = pubkeys
        self._keep = keep
        self._upto = -1  # offset of the last record checked
        self._done = False

    def reach(self, offset: int) -> None:
        """Make sure the records up to the one at ``offset`` and the chunk after it are checked:
        call with each record's offset before applying it."""
        if offset <= self._upto or self._done:
            return
        chunk = []
        for rec in self._records:
            chunk.append((rec.kind, rec.payload))
            self._upto = rec.offset
            if len(chunk) >= AHEAD_RECORDS and rec.offset >= offset:
                break
        else:
            self._done = True
        check_records(chunk, self._pubkeys, keep=self._keep)
