"""How long a seat has held a decision of its own, across steps (protocol.md §C8.3 'Own decision
across steps', §C8.10 Own decisions, §C13.6): ``TurnClock``.

At five decisions of the classic rules (``turn_skip.OWN_DEFAULTS``: ``roll``, ``jail``,
``buy_or_auction``, ``mortgage_choice``, ``raise_money``) a seat's nil, or any action that does
not make the decision (an out-of-turn ``ProposeTrade``, ``Mortgage``...), leaves the engine
waiting for the same decision of the same seat at the next step. Measured per step, such a seat
is never late (its message is held at once), so the turn time of §C8.3 never applied and one
seat could hold the game for ever (red team s15, H163 BREAK #4). This part measures the seat's
**own-decision streak** instead: the consecutive decision steps, as applied here, at which the
seat is among ``engine.pending(state).actors`` of one of those kinds (the same kind throughout).

* ``since(seat)``: when the streak that covers the current step began (our clock, the
  ``Liveness.step_started`` of its first step), or None: the seat's turn time runs from there,
  not from the current step's start (``SessionVotes.vote_time``);
* ``gate(k, skipped, vote)``: called at the gate just before a complete step k is applied
  (``SessionSkips.promise_kept``). For a seat d (not ours, active, not skipped) whose streak is
  **expired** — ``turn_time`` s passed since it began, or d already left the decision pending at
  ``OWN_DECISION_MAX_STEPS`` earlier steps of it — and whose held step-k message leaves the
  decision pending (``engine.apply_step`` with d's input alone: same kind, d still an actor), we
  treat that message as not held: we cast our DROP(k, d) (§C8.3, open) and the step waits (the
  voter's promise: a certificate or the drop decides, as for a late message). False then.

A local voting policy: nothing on the wire, in the log or in ``verify`` changes; every vote it
casts was already allowed. The step bound is deterministic (the state history is the same on
every honest peer), so the honest peers vote at the same step; the time bound is on each peer's
own clock (a peer that applied the step a moment earlier gives the voters their certificate, and
they all vote at the next step). A restart, a replay or a roll back start the streak again (a
later deadline, never an earlier one). Seats acting during another seat's turn are not actors,
so never counted. It reads the session through ``session_port.SessionView``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .turn_skip import OWN_DEFAULTS

__all__ = ["OWN_DECISION_MAX_STEPS", "TurnClock"]

#: Earlier steps of one own decision (``turn_skip.OWN_DEFAULTS`` kinds) whose message of the
#: seat left it pending, after which a further such message is treated as not held (§C8.3).
#: The bots' longest own-decision streak over 80 games of the four editions (2-6 seats) is 32
#: steps (building before a roll); a human's is bounded by what a turn allows (44 buildings, 28
#: mortgages, trades) and by the turn time. At LAN speed 128 steps take a few seconds.
OWN_DECISION_MAX_STEPS = 128


class _Streak:
    """One seat's own-decision streak: its ``kind``, first and last step, and ``since`` (s)."""

    __slots__ = ("kind", "first", "last", "since")

    def __init__(self, kind: str, step: int, since: float) -> None:
        self.kind, self.first, self.last, self.since = kind, step, step, since


class TurnClock:
    """Own-decision streaks of the seats (module docstring). ``session``: read only."""

    def __init__(self, session: Any) -> None:
        self._s = session
        #: seat -> its streak (only seats that are actors of an own decision at the last step seen).
        self._streaks: dict[int, _Streak] = {}

    def since(self, seat: int) -> float | None:
        """When ``seat``'s own decision pending at the current step became pending (seconds, our
        clock: the start of the streak's first step), or None if it is not an own decision of
        ``seat`` continued from the step before (then the current step's start counts)."""
        st = self._streaks.get(seat)
        if st is None:
            return None
        s = self._s
        k, p = s.step, s.pending
        if st.last == k or (st.last == k - 1 and p is not None and p.kind == st.kind and seat in p.actors):
            return st.since
        return None

    def earliest(self) -> float | None:
        """The earliest ``since`` of any seat at the current step, or None (the vote floor)."""
        times = [t for seat in self._streaks if (t := self.since(seat)) is not None]
        return min(times) if times else None

    def observe(self, k: int) -> None:
        """Step ``k`` (our current step) is complete: extend or start the streaks of its actors."""
        s = self._s
        p = s.pending
        if s.replaying or p is None or p.chance or p.terminal or p.kind not in OWN_DEFAULTS:
            self._streaks.clear()
            return
        streaks, actors = self._streaks, p.actors
        for d in [d for d in streaks if d not in actors]:
            del streaks[d]
        for d in actors:
            st = streaks.get(d)
            if st is not None and st.kind == p.kind and st.last in (k - 1, k):
                st.last = k
            else:
                streaks[d] = _Streak(p.kind, k, s.live.step_started)

    def expired(self, seat: int, k: int) -> bool:
        """True if ``seat``'s streak covering step ``k`` (observed) is over its bound: the turn time
        (unless unlimited) since it began, or ``OWN_DECISION_MAX_STEPS`` earlier steps."""
        st = self._streaks.get(seat)
        if st is None or st.last != k:
            return False
        if k - st.first >= OWN_DECISION_MAX_STEPS:
            return True
        turn = self._s.seats.turn_time
        return bool(turn) and self._s.now >= st.since + turn

    def leaves_pending(self, seat: int, body: Any) -> bool:
        """True if ``seat``'s step message ``body`` leaves its own decision pending: applied alone
        (every other input nil) to the current state, the engine waits for the same kind with
        ``seat`` among the actors. An input that does not decode counts as nil (as when applied,
        §C3.3); an engine error counts as a decision (we never vote on a guess)."""
        s = self._s
        engine, state = s.engine, s.state
        x = body.input
        inputs: list = [None] * s.n
        if type(x) is list:
            try:
                inputs[seat] = engine.decode_action(x)
            except (ValueError, TypeError, KeyError, IndexError):
                pass
        try:
            new, _ = engine.apply_step(state, inputs)
            p = engine.pending(new)
        except Exception:  # noqa: BLE001 - any engine refusal: not a stall we can prove to ourselves
            return False
        return not p.chance and not p.terminal and p.kind == s.pending.kind and seat in p.actors

    def gate(self, k: int, skipped: Sequence[int], vote: Callable[[int], None],
             may_vote: Callable[[], bool]) -> bool:
        """Before applying the complete step ``k``: observe it, then vote against the lowest seat
        whose expired streak its held message prolongs (module docstring). False if we voted (the
        step waits: voter's promise), True otherwise (also when ``may_vote()`` says we may not:
        seat loss off or no drop possible, our vote of this step and epoch cast, or promised)."""
        self.observe(k)
        s = self._s
        if not self._streaks or s.spectator or s.replaying or not s.running:
            return True
        for d in sorted(self._streaks):
            if d == s.my_seat or d in skipped or not s.active[d] or not self.expired(d, k):
                continue
            held = s.steps.held(k, d)
            if held is not None and self.leaves_pending(d, held.body):
                if not may_vote():
                    return True
                vote(d)
                return False
        return True
