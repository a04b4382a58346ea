"""Catch-up of a peer that is behind (protocol.md §C9).

A peer that restarted, or that missed a message of a step the others completed, asks for the
log records from its step on (CATCHUP_REQ, broadcast). A peer that holds them answers with a
CATCHUP_RESP: up to ``CATCHUP_MAX_RECORDS`` records / ``CATCHUP_MAX_BYTES`` bytes of its
history (exactly the game-log records: STEP and DROP), its current step (``head_step``), the
step messages it holds for that step, and the escrows of the current epoch it holds. The
requester applies the records through the same checks as live messages
(``LockstepSession.ingest_step_record`` / ``ingest_drop_record``) and asks again from its new
step while ``head_step`` is ahead (pagination). The response is signed by the responder, but
its authority comes from the signed messages inside: a bad record only costs the responder a
``PeerMisbehaved`` report and the requester asks again.

Here: ``CatchUp``, the session's catch-up part (history, the peer ahead, rate limits), and
``ingest_response``, which feeds a response into a session through its public methods.
"""

from __future__ import annotations

from typing import Any

from . import const as C
from .errors import WireError
from .gamelog import KIND_ABANDON, KIND_COMPLAINT, KIND_DROP, KIND_STEP
from .wire import MSG_CATCHUP_REQ, MSG_CATCHUP_RESP, MSG_HINT, MSG_STEP, CatchupResponse, open_envelope, seal, unpack

#: Bytes a record adds to the response around its payload (msgpack array and bin headers).
_RECORD_OVERHEAD = 8


class CatchUp:
    """The catch-up part of a session (protocol.md §C9, state machine in §C9.5): the history of
    log records (to answer requests), the peer known to be ahead, and the rate limits of
    requests, answers and hints. It never applies anything: ``ingest_response`` feeds records
    to the session's public methods.

    ``identity``: ours (signs requests, answers, hints); ``game_id``; ``my_seat``."""

    def __init__(self, identity: Any, game_id: bytes, my_seat: int) -> None:
        self._identity = identity
        self._gid = game_id
        self._me = my_seat
        #: Every log record of the game after the header: (kind, payload, step) in log order.
        self._history: list[tuple[int, bytes, int]] = []
        self._hist_index: dict[int, int] = {}
        #: (seat, step) of a peer known to be ahead, or None.
        self.ahead: tuple[int, int] | None = None
        self.last_request = -1e18
        self._served: dict[tuple[int, bool], float] = {}
        self._hinted: dict[int, float] = {}
        self._pushed: dict[int, float] = {}

    def record(self, kind: int, payload: bytes, step: int) -> None:
        """Append a log record (kind 1 STEP, 2 DROP) of ``step`` to the history."""
        self._history.append((kind, payload, step))
        self._hist_index.setdefault(step, len(self._history) - 1)

    def records(self) -> list[tuple[int, bytes, int]]:
        """A copy of the history: (kind, payload, step) in log order."""
        return list(self._history)

    def note_ahead(self, seat: int, step: int) -> None:
        """``seat`` is at ``step``, ahead of us (a later message, a HINT, a head step)."""
        self.ahead = (seat, step)

    def settle_ahead(self, step: int) -> None:
        """Forget the peer ahead once we reached its step."""
        if self.ahead is not None and self.ahead[1] <= step:
            self.ahead = None

    def due(self, step_started: float) -> float | None:
        """When to ask the peer ahead (seconds), or None if nobody is known to be ahead."""
        if self.ahead is None:
            return None
        return max(step_started + C.CATCHUP_AFTER, self.last_request + C.CATCHUP_INTERVAL)

    def request(self, step: int, now: float, to_step: int | None = None) -> bytes:
        """A signed CATCHUP_REQ for [step, to_step) (default: a page ahead); starts the
        request interval."""
        self.last_request = now
        return seal(self._identity, MSG_CATCHUP_REQ,
                    [self._gid, self._me, step, step + C.CATCHUP_MAX_STEPS if to_step is None else to_step])

    def may_request(self, now: float) -> bool:
        """True if the last request is at least ``CATCHUP_INTERVAL`` s old."""
        return now - self.last_request >= C.CATCHUP_INTERVAL

    def restart(self) -> None:
        """Forget the request interval (a resume: the old clock does not apply)."""
        self.last_request = -1e18

    def may_serve(self, seat: int, now: float, one_step: bool = False) -> bool:
        """True if ``seat`` may be answered now: one answer per ``CATCHUP_INTERVAL``, counted
        apart for requests of a single step (``one_step``: a digest dispute asks for the step
        before its own, and must not be starved by the page it just received)."""
        return now - self._served.get((seat, one_step), -1e18) >= C.CATCHUP_INTERVAL

    def served(self, seat: int, now: float, one_step: bool = False) -> None:
        """We answered ``seat`` at ``now`` (``one_step``: as in ``may_serve``)."""
        self._served[(seat, one_step)] = now

    def may_push(self, seat: int, now: float) -> bool:
        """True (and noted) if ``seat`` may be sent records it did not ask for now: one push
        per ``CATCHUP_INTERVAL`` per seat, apart from the answers' limit (a peer that rolls
        back asks again at once)."""
        if now - self._pushed.get(seat, -1e18) < C.CATCHUP_INTERVAL:
            return False
        self._pushed[seat] = now
        return True

    def hint(self, seat: int, step: int, now: float) -> bytes | None:
        """A signed HINT "I am at ``step``" for ``seat``, or None if hinted less than
        ``CATCHUP_INTERVAL`` s ago."""
        if now - self._hinted.get(seat, -1e18) < C.CATCHUP_INTERVAL:
            return None
        self._hinted[seat] = now
        return seal(self._identity, MSG_HINT, [self._gid, self._me, step])

    def build_response(self, from_step: int, to_step: int, head_step: int, pending: list, escrows: list) -> bytes:
        """The signed CATCHUP_RESP for steps [from_step, to_step): history records in log
        order from the first record of ``from_step``, capped by CATCHUP_MAX_RECORDS and
        CATCHUP_MAX_BYTES (at least one record when there is any), our ``head_step``, the step
        messages held for it and the current epoch's escrows."""
        records: list = []
        size = 0
        i = self._hist_index.get(from_step)
        hist = self._history
        while i is not None and i < len(hist):
            kind, payload, step = hist[i]
            if step >= to_step or len(records) >= C.CATCHUP_MAX_RECORDS:
                break
            if records and size + len(payload) + _RECORD_OVERHEAD > C.CATCHUP_MAX_BYTES:
                break
            records.append([kind, payload])
            size += len(payload) + _RECORD_OVERHEAD
            i += 1
        return seal(self._identity, MSG_CATCHUP_RESP,
                    [self._gid, self._me, from_step, head_step, records, pending, escrows])


def _buffer_next(sess: Any, records: list, step: int, now: float) -> None:
    """Feed ``sess`` the messages of the first STEP record of ``step`` in ``records`` (in page
    order, after any DROP records of that step) through the live path."""
    for kind, payload in records:
        if kind not in (KIND_STEP, KIND_DROP):
            continue
        try:
            f = unpack(payload)
        except (WireError, TypeError, ValueError):
            return
        if type(f) is not list or not f or f[0] != step:
            return
        if kind == KIND_STEP:
            if len(f) == 2 and type(f[1]) is list:
                for raw in f[1]:
                    if type(raw) is bytes:
                        sess.receive_message(raw, now)
            return


def ingest_response(sess: Any, r: CatchupResponse, now: float) -> str | None:
    """Apply a verified-signature CATCHUP_RESP to ``sess`` through its public methods: records
    of steps before ours are cross-checked, the record of our step applied, a gap stops. Then
    its escrows and held step messages go through the live path (our own message is adopted).
    Returns None or why a record was refused (English)."""
    problem = None
    for at, (kind, payload) in enumerate(r.records):
        if sess.phase != "running":
            break
        if kind in (KIND_COMPLAINT, KIND_ABANDON):
            sess.receive_message(payload, now)  # a signed message of its own: the live checks
            continue
        try:
            f = unpack(payload)
            step = f[0]
            if type(step) is not int:
                raise WireError("record without a step")
        except (WireError, TypeError, IndexError, KeyError) as e:
            problem = f"malformed record: {e}"
            break
        if step < sess.step:
            if kind == KIND_STEP and len(f) == 2 and sess.cross_check(step, f[1]):
                break  # equivocation found: the session halted
            if kind == KIND_DROP and sess.check_past_drop(payload):
                break  # our seat was dropped at a step we applied: SeatLost
            continue
        if step == sess.step + 1 and kind in (KIND_STEP, KIND_DROP):
            # The next step's messages, signed over our current step: buffered like live ones,
            # they may be the certificate that lets a voter apply its step (§C8.3). A drop at
            # the next step comes first in the page; its step record follows it.
            _buffer_next(sess, r.records[at:], step, now)
        if step > sess.step:
            problem = "records skip a step"
            break
        if kind == KIND_STEP:
            problem = sess.ingest_step_record(step, f[1] if len(f) == 2 else None)
        elif kind == KIND_DROP:
            seat = f[1] if len(f) == 4 else None
            info = sess.dropped.get(seat) if type(seat) is int else None
            if info is not None and info.step == step:
                continue  # already applied (pages may repeat the drop of their first step)
            problem = sess.ingest_drop_record(payload)
        else:
            problem = f"unknown record kind {kind}"
        if problem is not None:
            break
    for raw in r.escrows:
        sess.receive_message(raw, now)
    for raw in r.pending:
        try:
            env = open_envelope(raw, C.MAX_STEP_MSG)
        except WireError:
            continue
        if env.mtype == MSG_STEP and env.verify(sess.identity.public_key):
            sess.adopt_own(raw)  # we signed it before a crash: never sign another
        else:
            sess.receive_message(raw, now)
    return problem
