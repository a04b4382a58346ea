"""The session's side of catch-up (protocol.md §C9): ``SessionCatchUp`` asks for pages, answers
others' requests, pushes records, hints a seat that is behind and applies the pages it gets.

It acts on the session's ``catchup.CatchUp`` (history, peer ahead, pages in flight and held,
rate limits: the catch-up state) and on nothing else of its own. It reads the session through
``session_port.SessionView`` and changes it only through ``session_port.Effects`` and three
callables handed over at construction: the session whose parts take a page's records (``records``,
what ``catchup.ingest_response`` feeds), the referee's dispute settling and the escrow gate's
re-send. Moved out of ``lockstep.py`` (issue 13); the session keeps thin delegates for the
names others call (``request_catchup``, ``_hint``, ``_answer_with_records``).
"""

from __future__ import annotations

from typing import Any, Callable

from .catchup import ingest_response
from .session_events import CaughtUp, PeerMisbehaved
from .session_port import Effects, SessionView
from .wire import CatchupRequest, CatchupResponse, Envelope, Hint

__all__ = ["SessionCatchUp"]


class SessionCatchUp:
    """Catch-up requests, answers, pushes and hints of one session (protocol.md §C9.1-§C9.3).

    ``s``: the session (read only, ``SessionView``); ``fx``: its effects (``send``, ``emit``,
    ``verified``); ``records``: the session whose parts take a page's records (``ingest``,
    ``votes``, ``own``, and ``receive_message``; see ``catchup.ingest_response``);
    ``settle_dispute(seat, head_step, from_step)``: the referee's (§C3.4);
    ``resend_escrow()``: queue our escrow of the epoch again (§C9.2)."""

    def __init__(self, s: SessionView, fx: Effects, records: Any,
                 settle_dispute: Callable[[int, int, int], None], resend_escrow: Callable[[], None]) -> None:
        self._s = s
        self._fx = fx
        self._records = records
        self._settle_dispute = settle_dispute
        self._resend_escrow = resend_escrow

    def request(self, from_step: int | None = None) -> None:
        """Ask every other active seat for the records from our step on (or ``from_step``):
        queues the CATCHUP_REQs that keep the page requests in flight (``CatchUp.requests``,
        broadcast; who answers: §C9.2 'One responder per range'); answers arrive as
        CATCHUP_RESP."""
        s = self._s
        reqs = s.catchup.requests(s.step if from_step is None else from_step, s.now)
        s.stats["catchup_requests"] += len(reqs)
        for raw in reqs:
            self._fx.send(raw)

    def push_records(self, seat: int) -> None:
        """Send ``seat`` our records of the last step and of this one so far (a drop decided
        here) unasked, rate-limited like an answer: it applied the last step otherwise, or
        missed a drop, and needs our drop record."""
        s = self._s
        if not s.catchup.may_push(seat, s.now):
            return
        self._fx.send(s.catchup.build_response(max(0, s.step - 1), s.step + 1, s.step, [], s.seats.escrow_raws()))

    def hint(self, seat: int, now: float) -> None:
        """Tell ``seat``, which is behind, our step (HINT, §C9.3; at most one per
        ``CATCHUP_INTERVAL`` per seat)."""
        s = self._s
        raw = s.catchup.hint(seat, s.step, now)
        if raw is not None:
            s.stats["hints"] += 1
            self._fx.send(raw)

    def on_hint(self, env: Envelope, h: Hint, now: float) -> None:
        """A HINT: a seat says it is at a later step; ask it (rate-limited)."""
        s = self._s
        if h.seat >= s.n or h.seat == s.my_seat or h.step <= s.step:
            s.stats["ignored"] += 1
            return
        if not self._fx.verified(env, h.seat, h.step):
            return
        s.catchup.note_ahead(h.seat, h.step)
        if s.catchup.may_request(now):
            self.request()

    def on_request(self, env: Envelope, r: CatchupRequest, now: float) -> None:
        """A CATCHUP_REQ (§C9.2): answered with a page of our history, our head step, the step
        messages we hold for it and the epoch's escrows, unless a replay, beyond the
        requester's bucket, badly signed, or left to another responder (``CatchUp.defers``)."""
        s = self._s
        cu = s.catchup
        if r.seat >= s.n or r.seat == s.my_seat:
            s.stats["bad_seat"] += 1
            return
        one = r.to_step == r.from_step + 1
        if cu.answered_lately(env.raw, now):
            s.stats["ignored"] += 1  # the same bytes again so soon: a replay, not the requester
            return
        if not cu.may_serve(r.seat, now, one):
            s.stats["ignored"] += 1  # rate limit: answering costs us, asking costs nothing
            return
        if not self._fx.verified(env, r.seat, r.from_step):
            return
        s.live.heard_behind(r.seat, now)  # it is there, catching up: not silent (§C8.3)
        active = s.active
        if cu.defers(r.seat, r.from_step, r.to_step, s.step, [i for i in range(s.n) if i != r.seat and active[i]], now):
            return  # another seat answers first; a repeat of this request is answered (§C9.2)
        cu.served(r.seat, now, one)
        cu.note_answered(env.raw, now)
        s.stats["catchup_served"] += 1
        pending = [h.env.raw for h in s.steps.slots(s.step) if h is not None] if s.running else []
        self._fx.send(cu.build_response(r.from_step, r.to_step, s.step, pending, s.seats.escrow_raws()))
        if s.seats.on and active[s.my_seat] and cu.escrow_due(now):
            self._resend_escrow()

    def on_response(self, env: Envelope, r: CatchupResponse, now: float) -> None:
        """A CATCHUP_RESP (§C9.1, §C9.2): applied if it starts at or before our step, else held
        until we reach it; then every held page we reached is applied."""
        s = self._s
        if r.seat >= s.n or r.seat == s.my_seat:
            s.stats["bad_seat"] += 1
            return
        if not self._fx.verified(env, r.seat, r.from_step):
            return
        if s.running and s.catchup.hold(r, env.raw, s.step):
            if r.head_step > s.step:
                s.catchup.note_ahead(r.seat, r.head_step)
            return  # a later page of the pipeline: applied once we reach its first step
        self._apply_page(r, env.raw, now)
        while s.running and (held := s.catchup.reachable(s.step)) is not None:
            self._apply_page(*held, now)

    def _apply_page(self, r: CatchupResponse, raw: bytes, now: float) -> None:
        """Apply one verified CATCHUP_RESP (``ingest_response``), report a bad record of it,
        and ask for the next pages while its responder is ahead (§C9.1)."""
        s = self._s
        first = s.step
        problem = ingest_response(self._records, r, now)
        s.catchup.paced(r.records, first, s.step)  # from what it applied only (§C9.1 'pace')
        if s.running:
            self._settle_dispute(r.seat, r.head_step, r.from_step)
        if problem is not None:
            self._fx.emit(PeerMisbehaved(r.seat, s.step, f"bad catch-up record: {problem}", raw))
        if s.step > first:
            self._fx.emit(CaughtUp(r.seat, first, s.step))
        if s.running and r.head_step > s.step:
            s.catchup.note_ahead(r.seat, r.head_step)
            self.request()  # the next pages: only those not in flight yet
        else:
            s.catchup.settle_ahead(s.step)
