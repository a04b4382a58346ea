"""Catch-up of a peer that is behind (protocol.md §C9).

A peer that restarted, or that missed a message of a step the others completed, asks for the
log records from its step on (CATCHUP_REQ, broadcast). A peer that holds them answers with a
CATCHUP_RESP: up to ``CATCHUP_MAX_RECORDS`` records / ``CATCHUP_MAX_BYTES`` bytes of its
history (exactly the game-log records: STEP and DROP), its current step (``head_step``), the
step messages it holds for that step, and the escrows of the current epoch it holds. The
requester applies the records through the same checks as live messages
(``record_ingest.RecordIngest.ingest_step_record``, ``session_votes.SessionVotes.ingest_record``)
and asks again from its new step while ``head_step`` is ahead (pagination). The response is signed by the responder, but
its authority comes from the signed messages inside: a bad record only costs the responder a
``PeerMisbehaved`` report and the requester asks again.

Here: ``CatchUp``, the session's catch-up part (history, the peer ahead, rate limits), and
``ingest_response``, which feeds a response into a session through its public parts. The
history itself (records kept, read back from the log, cut into pages) is ``history.History``.
"""

from __future__ import annotations

from typing import Any

from . import const as C
from .bulk_verify import check_records
from .errors import WireError
from .gamelog import KIND_ABANDON, KIND_COMPLAINT, KIND_DROP, KIND_SKIP, KIND_STEP, STEP_BOUND_RECORDS, STEP_RECORD
from .history import RECORD_OVERHEAD, History
from .wire import (MSG_ABANDON, MSG_CATCHUP_REQ, MSG_CATCHUP_RESP, MSG_COMPLAINT, MSG_HINT, MSG_STEP, CatchupRequest,
                   CatchupResponse, Hint, open_envelope, seal_message)

#: A page request that starts more than this many steps before the responder's step is first
#: left to one designated responder (protocol.md §C9.2 'One responder per range'); nearer
#: ones (a live game's lost message, a dispute) are answered by every seat as before.
DESIGNATE_BEYOND = C.CATCHUP_PAGE_STEPS
#: Deferred requests remembered (``CatchUp.defers``) before the old ones are forgotten.
DEFERRED_KEPT = 256


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
        self.history = History()
        #: (seat, step) of a peer known to be ahead, or None.
        self.ahead: tuple[int, int] | None = None
        self.last_request = -1e18
        #: Answer tokens per (requester, one_step): (tokens, time) of a bucket (§C9.2).
        self._served: dict[tuple[int, bool], tuple[float, float]] = {}
        #: Page requests in flight: first step -> (end step, time asked) (§C9.1).
        self._asked: dict[int, tuple[int, float]] = {}
        #: Pages that start after our step, verified, held until we reach them: first step ->
        #: (the decoded response, the responder's envelope bytes).
        self._held: dict[int, tuple[CatchupResponse, bytes]] = {}
        #: Steps asked per page: CATCHUP_PAGE_STEPS until a page shows how big a step is.
        self.pace = C.CATCHUP_PAGE_STEPS
        #: Request envelope bytes -> when we last answered them (§C9.2 'Replayed requests').
        self._answered: dict[bytes, float] = {}
        self._escrow_sent = -1e18
        self._hinted: dict[int, float] = {}
        self._pushed: dict[int, float] = {}
        #: (requester, from_step) of far page requests left to another responder -> when.
        self._deferred: dict[tuple[int, int], float] = {}
        #: How many requests ``defers`` left to their designated responder.
        self.deferred = 0

    def record(self, kind: int, payload: bytes, step: int) -> None:
        """Append a log record (kind 1 STEP, 2 DROP, 4 ABANDON, 5 COMPLAINT) of ``step`` to the
        history."""
        self.history.append(kind, payload, step)

    def use_log(self, path: str) -> None:
        """The game log at ``path`` holds our records (written before each ``record``): old
        ones are served from it instead of memory (``History.use_log``)."""
        self.history.use_log(path)

    def records(self) -> History:
        """The history: a read-only sequence of (kind, payload, step) in log order."""
        return self.history

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
        return seal_message(self._identity, MSG_CATCHUP_REQ, CatchupRequest(
            self._gid, self._me, step, step + C.CATCHUP_MAX_STEPS if to_step is None else to_step))

    def requests(self, step: int, now: float) -> list[bytes]:
        """The CATCHUP_REQs to send now (broadcast) to keep ``CATCHUP_PIPELINE`` page requests
        in flight from our ``step`` on (protocol.md §C9.1): the range starting at ``step`` if no
        request in flight or held page covers it (a first request, or a page that came back
        short), then consecutive ranges of ``pace`` steps after the last one asked, up to the
        step of the peer known to be ahead. A request unanswered for ``CATCHUP_AFTER`` s is
        forgotten (asked again). Starts the request interval."""
        asked = self._asked
        for f, (t, at) in list(asked.items()):
            if t <= step or now - at >= C.CATCHUP_AFTER:
                del asked[f]
        for f in [f for f in self._held if f < step]:
            del self._held[f]  # only a page whose first step we reached is applied
        goal = max(step + 1, self.ahead[1] if self.ahead is not None else 0)
        out = []
        if step not in self._held and not any(f <= step < t for f, (t, _) in asked.items()):
            out.append(self._ask(step, step + self.pace, now))
        front = max([step] + [t for t, _ in asked.values()] + [f + 1 for f in self._held])
        while len(asked) < C.CATCHUP_PIPELINE and front < goal:
            end = front + self.pace
            out.append(self._ask(front, end, now))
            front = end
        self.last_request = now  # even if all is in flight: the timer (``due``) moves on
        return out

    def _ask(self, start: int, end: int, now: float) -> bytes:
        self._asked[start] = (end, now)
        return seal_message(self._identity, MSG_CATCHUP_REQ, CatchupRequest(self._gid, self._me, start, end))

    def paced(self, records: list, first: int, last: int) -> None:
        """A page's ``records`` took us from step ``first`` to ``last``: set ``pace`` from the
        STEP records it applied (``_pace_of`` over steps [first, last)), higher or lower;
        unchanged if it applied none. Protocol.md §C9.1 'pace'."""
        pace = _pace_of(records, first, last)
        if pace is not None:
            self.pace = pace

    def hold(self, r: CatchupResponse, raw: bytes, step: int) -> bool:
        """Note a verified page: it answers its request (not in flight any more) and may raise
        ``pace`` to what its STEP records show (``_pace_of``): records nobody checked yet may
        only raise it (a too high pace costs a short page, asked again), only the records a page
        applied set it lower (``paced``). True if it starts
        after our ``step`` and is held until we reach it (at most ``CATCHUP_HELD`` pages, the
        earliest kept; a second copy of a held page is dropped): the caller applies it later
        (``reachable``), not now."""
        self._asked.pop(r.from_step, None)
        pace = _pace_of(r.records, r.from_step, r.head_step + 1)
        if pace is not None and pace > self.pace:
            self.pace = pace  # unchecked records may only raise it: at worst a page comes back short
        if r.from_step <= step or not r.records:
            return False
        if r.from_step not in self._held:
            self._held[r.from_step] = (r, raw)
            while len(self._held) > C.CATCHUP_HELD:
                del self._held[max(self._held)]
        return True

    def reachable(self, step: int) -> tuple[CatchupResponse, bytes] | None:
        """A held page whose first step we reached (removed from the held ones), or None."""
        for f in sorted(self._held):
            if f <= step:
                return self._held.pop(f)
            break
        return None

    @property
    def deferrals_kept(self) -> int:
        """How many (requester, first step) deferrals ``defers`` remembers now (at most
        ``DEFERRED_KEPT``)."""
        return len(self._deferred)

    def may_request(self, now: float) -> bool:
        """True if the last request is at least ``CATCHUP_INTERVAL`` s old."""
        return now - self.last_request >= C.CATCHUP_INTERVAL

    def restart(self) -> None:
        """Forget the request interval (a resume: the old clock does not apply)."""
        self.last_request = -1e18

    def _tokens(self, key: tuple[int, bool], now: float) -> float:
        tokens, at = self._served.get(key, (float(C.CATCHUP_BURST), now))
        return min(float(C.CATCHUP_BURST), tokens + max(0.0, now - at) * C.CATCHUP_RATE)

    def may_serve(self, seat: int, now: float, one_step: bool = False) -> bool:
        """True if ``seat`` may be answered now: a token bucket per requester of
        ``CATCHUP_BURST`` answers refilled at ``CATCHUP_RATE`` per second (§C9.2), counted
        apart for requests of a single step (``one_step``: a digest dispute asks for the step
        before its own, and must not be starved by the pages it just received)."""
        return self._tokens((seat, one_step), now) >= 1.0

    def served(self, seat: int, now: float, one_step: bool = False) -> None:
        """We answered ``seat`` at ``now`` (``one_step``: as in ``may_serve``): one token."""
        key = (seat, one_step)
        self._served[key] = (self._tokens(key, now) - 1.0, now)

    def answered_lately(self, raw: bytes, now: float) -> bool:
        """True if we answered these very request bytes less than ``CATCHUP_SAME_REQ`` s ago
        (protocol.md §C9.2 'Replayed requests'): a request carries no time and any seat that
        received it can send it again, so a replay must not spend the requester's bucket. The
        requester itself repeats a request only after ``CATCHUP_AFTER`` > ``CATCHUP_SAME_REQ``."""
        at = self._answered.get(raw)
        return at is not None and now - at < C.CATCHUP_SAME_REQ

    def note_answered(self, raw: bytes, now: float) -> None:
        """We answered the request ``raw`` at ``now`` (see ``answered_lately``); old entries
        are forgotten once more than 64 are kept."""
        self._answered[raw] = now
        if len(self._answered) > 64:
            self._answered = {r: t for r, t in self._answered.items() if now - t < C.CATCHUP_SAME_REQ}

    def defers(self, seat: int, from_step: int, to_step: int, my_step: int, responders: list[int],
               now: float) -> bool:
        """True if we leave ``seat``'s request for [from_step, to_step) to its designated
        responder (protocol.md §C9.2 'One responder per range'): a range request (not a single
        step) starting more than ``DESIGNATE_BEYOND`` steps before ``my_step``, seen for the
        first time from ``seat`` at ``from_step``, whose designated responder
        ``responders[from_step % len(responders)]`` is not us. ``responders``: the active seats
        other than the requester, ascending. A second request of ``seat`` from the same
        ``from_step`` is answered by everyone: the designated answer was lost, late, short of
        that step or bad, and the requester asks again only then (after ``CATCHUP_AFTER``, or
        at once after a bad record)."""
        if to_step - from_step <= 1 or my_step - from_step <= DESIGNATE_BEYOND or not responders \
                or responders[from_step % len(responders)] == self._me:
            return False
        key = (seat, from_step)
        if key in self._deferred:
            return False  # a repeat: everyone answers
        if len(self._deferred) >= DEFERRED_KEPT:
            old = now - 8 * C.CATCHUP_AFTER
            self._deferred = {k: t for k, t in self._deferred.items() if t >= old}
            while len(self._deferred) >= DEFERRED_KEPT:  # all recent: forget the oldest
                del self._deferred[min(self._deferred, key=self._deferred.__getitem__)]
        self._deferred[key] = now
        self.deferred += 1
        return True

    def escrow_due(self, now: float) -> bool:
        """True (and noted) if answering a request should re-send our escrow now: at most once
        per ``CATCHUP_INTERVAL`` (a pipelined catch-up asks several pages at once)."""
        if now - self._escrow_sent < C.CATCHUP_INTERVAL:
            return False
        self._escrow_sent = now
        return True

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
        return seal_message(self._identity, MSG_HINT, Hint(self._gid, self._me, step))

    def build_response(self, from_step: int, to_step: int, head_step: int, pending: list, escrows: list) -> bytes:
        """The signed CATCHUP_RESP for steps [from_step, to_step): history records in log
        order from the first record of ``from_step``, capped by CATCHUP_MAX_RECORDS and
        CATCHUP_MAX_BYTES (at least one record when there is any), our ``head_step``, the step
        messages held for it and the current epoch's escrows."""
        i = self.history.first(from_step)
        records = [] if i is None else self.history.page(i, to_step, C.CATCHUP_MAX_RECORDS, C.CATCHUP_MAX_BYTES)
        return seal_message(self._identity, MSG_CATCHUP_RESP,
                            CatchupResponse(self._gid, self._me, from_step, head_step, records, pending, escrows))


def _pace_of(records: list, first: int, last: int) -> int | None:
    """Steps per page request (protocol.md §C9.1 'pace'): as many as fill ~90 % of a page at
    the size of ``records``' STEP records of steps [first, last) (the first one of each step,
    plus ``RECORD_OVERHEAD``), or None if there is none. Only STEP records count: a page's other
    records (complaints, abandons, drops: a few per game) are no step's size, and counting them
    let a responder padding its pages with junk of another kind set the pace to 1 (H94)."""
    got: set[int] = set()
    size = 0
    for kind, payload in records:
        if kind != KIND_STEP:
            continue
        try:
            k = STEP_RECORD.decode(payload).step
        except WireError:
            continue
        if first <= k < last and k not in got:
            got.add(k)
            size += len(payload) + RECORD_OVERHEAD
    return max(1, min(C.CATCHUP_MAX_RECORDS, len(got) * C.CATCHUP_MAX_BYTES * 9 // (10 * size))) if got else None


#: The envelope type a record of each kind of its own holds (§C9.5).
_RECORD_TYPES = {KIND_COMPLAINT: MSG_COMPLAINT, KIND_ABANDON: MSG_ABANDON}


def _not_its_kind(kind: int, payload: bytes) -> str | None:
    """Why a COMPLAINT or ABANDON record is bad (its payload is not an envelope of its kind's
    message type), or None: what it says the live path judges (§C9.5)."""
    try:
        env = open_envelope(payload, C.MAX_CATCHUP_MSG)  # the live path's bound
    except WireError as e:
        return f"malformed record: {e}"
    return None if env.mtype == _RECORD_TYPES[kind] else f"record kind {kind} does not hold its message type"


def _buffer_next(sess: Any, records: list, step: int, now: float) -> None:
    """Feed ``sess`` the messages of the first STEP record of ``step`` in ``records`` (in page
    order, after any DROP records of that step) through the live path."""
    for kind, payload in records:
        if kind not in (KIND_STEP, KIND_DROP):
            continue
        try:
            rec = STEP_BOUND_RECORDS[kind].decode(payload)
        except WireError:
            return
        if rec.step != step:
            return
        if kind == KIND_STEP:
            for raw in rec.messages:
                if raw is not None:  # a dropped or skipped seat
                    sess.receive_message(raw, now)
            return


def ingest_response(sess: Any, r: CatchupResponse, now: float) -> str | None:
    """Apply a verified-signature CATCHUP_RESP to ``sess`` through the public parts that own each
    record (``sess.ingest``: ``record_ingest.RecordIngest``; ``sess.votes``; ``sess.own``): records
    of steps before ours are cross-checked, the record of our step applied, a gap stops. Then
    its escrows and held step messages go through the live path (our own message is adopted).
    Returns None or why a record was refused (English). While the records are applied the
    session signs nothing for the steps they hold (``own_step.OwnStep.records_coming``)."""
    last = -1
    for kind, payload in r.records:
        if kind == KIND_STEP:
            try:
                last = max(last, STEP_RECORD.decode(payload).step)
            except WireError:
                continue
    sess.own.records_coming(last)
    # The signatures the one-by-one checks below will meet, checked first on every core (§C9.2
    # 'Bulk signature check'): the checks then find them remembered; errors and order unchanged.
    check_records(r.records, [p.public_key for p in sess.setup.players], sess.step)
    try:
        return _ingest(sess, r, now)
    finally:
        sess.own.records_coming(None)


def _ingest(sess: Any, r: CatchupResponse, now: float) -> str | None:
    problem = None
    for at, (kind, payload) in enumerate(r.records):
        if sess.phase != "running":
            break
        if kind in (KIND_COMPLAINT, KIND_ABANDON):
            problem = _not_its_kind(kind, payload)  # no responder logs one that is not (§C9.5)
            if problem is not None:
                break
            sess.receive_message(payload, now)  # a signed message of its own: the live checks
            continue
        table = STEP_BOUND_RECORDS.get(kind)
        if table is None:
            problem = f"unknown record kind {kind}"
            break
        try:
            rec = table.decode(payload)  # types and shape; the session checks what it says
        except WireError as e:
            problem = f"malformed record: {e}"
            break
        step = rec.step
        if step < sess.step:
            if kind == KIND_STEP and sess.ingest.cross_check(step, list(rec.messages), r.seat):
                break  # equivocation found: the session halted
            if kind == KIND_DROP and sess.ingest.check_past_drop(payload):
                break  # our seat was dropped at a step we applied: SeatLost
            if kind == KIND_SKIP and sess.ingest.check_past_skip(payload):
                break  # a quorum skipped a seat whose message we applied: StepOverturned (§C8.10)
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
            # The responder's own message rests on its word alone until another seat's message of
            # the next step is applied over it (§C3.4 'Two versions applied', H179; H182).
            problem = sess.ingest.ingest_step_record(step, list(rec.messages), r.seat)
        elif kind == KIND_DROP:
            info = sess.dropped.get(rec.seat)
            if info is not None and info.step == step:
                continue  # already applied (pages may repeat the drop of their first step)
            problem = sess.votes.ingest_record(payload)
        else:  # KIND_SKIP
            problem = sess.ingest.ingest_skip_record(payload)  # before the step record it allows (§C8.10)
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
            sess.own.adopt_own(raw)  # we signed it before a crash: never sign another
        else:
            sess.receive_message(raw, now)
    return problem
