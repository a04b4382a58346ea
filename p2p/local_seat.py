"""Our player's side of the current step (protocol.md §C3.1, §C8.3, §C8.10, §C13): ``LocalSeat``.

What the node and the UI ask the lockstep session about our own seat, and what our player
does besides playing: whether an input is awaited from us (``needs_local_input``), our input
(``submit``: encoded, sealed at a sealed decision's commit step, sent, then the step may
advance), the turn-time countdown (``turn_deadline``), our player's votes to drop a stalled
seat (``vote_out``, §C13.6) or to let a seat's turn pass (``skip_turn``, §C8.10), and the seats
we wait for with no drop to come from us (``paused``, §C8.3).

It owns no state: our message is ``own_step.OwnStep``'s, the votes are
``session_votes.SessionVotes``' and ``turn_skip``'s. It reads the session through
``session_port.SessionView`` and acts through ``session_port.Effects``. Moved out of
``lockstep.py`` (issue 13).
"""

from __future__ import annotations

from typing import Any

from .sealed import COMMIT, OPEN
from .session_port import Effects, SessionView
from .step_gate import RUNNING

__all__ = ["LocalSeat"]


class LocalSeat:
    """Our seat's input, countdown and votes at the current step (module docstring).
    ``session``: read only; ``effects``: what we do to it."""

    def __init__(self, session: SessionView, effects: Effects) -> None:
        self._s = session
        self._fx = effects

    def needs_local_input(self) -> Any:
        """The engine's ``Pending`` if our seat must submit an input (action or None) for the
        current decision step, else None (already submitted, chance step, finished, halted,
        or we are a spectator). At chance steps the session makes the reveal itself."""
        s = self._s
        pending = s.own.pending
        # The usual answers first (asked after every message the node hands over, issue 14): a
        # chance step, or our message of this step made.
        if pending.chance or s.steps.has_own(s.step) or s.phase != RUNNING or s.final_step is not None \
                or s.spectator or s.sealed.phase == OPEN:
            return None
        return pending

    def submit(self, action: Any) -> None:
        """Send ``action`` (an engine Action or None) as our input of the current decision
        step, then try the step. Only when ``needs_local_input()`` is not None (the session
        checks it first and raises ``LocalProtocolError``). The action is sent as given: the
        engine refuses it at apply time if it is illegal then (ARCHITECTURE.md §1)."""
        s = self._s
        inp = None if action is None else s.engine.encode_action(action)
        if s.sealed.phase == COMMIT:
            inp = s.sealed.seal(inp)  # §C13.2: the commitment now, the opening next step
        s.own.send_own(inp)
        self._fx.advance()

    def turn_deadline(self) -> float | None:
        """When the others vote our seat out if we still have not sent our input for this
        step (the turn time, §C8.3; seconds, the caller's clock), or None if seat loss is off,
        the turn time unlimited or no local input is awaited."""
        s = self._s
        if not s.seats.on or not s.seats.turn_time or self.needs_local_input() is None:
            return None
        return s.live.step_started + s.seats.turn_time

    def vote_out(self, seat: int) -> bool:
        """Our player votes, now, to drop ``seat``, which the current step waits for (§C13.6):
        the DROP an honest peer sends at the drop timeout or the turn time (§C8.3). False
        (nothing sent) if seat loss is off or cannot drop now, the seat is ours, not active,
        not awaited, we already voted on it at this step, or a message of ours of a later step,
        signed before a restart, promises we never vote here (``OwnStep.promised``, §C10)."""
        s = self._s
        seats = s.seats
        if s.phase != RUNNING or s.spectator or s.replaying or not seats.drop_possible() \
                or not 0 <= seat < s.n or seat == s.my_seat or not seats.active[seat] \
                or seat not in s.waiting_for() or seats.has_voted(s.step, seat) \
                or s.own.promised():
            return False
        self._fx.vote(seat)
        return True

    def skip_turn(self, seat: int) -> bool:
        """Our player votes, now, to let ``seat``'s turn at the current step pass (§C8.10;
        ``turn_skip.SessionSkips.vote``). False (nothing sent) if the step cannot be skipped,
        the seat is ours, not active, not awaited, or we already voted on it in this epoch."""
        s = self._s
        if not s.skipping.may_skip(seat, s.waiting_for()):
            return False
        s.skipping.vote(seat)
        return True

    def paused(self) -> tuple[int, ...]:
        """Seats we wait for with no drop to come from us (§C8.3): seat loss on, and either no
        drop is possible (two seats, or fewer than Q others active) or we already cast our
        vote of this step and epoch, or may cast none (``OwnStep.promised``, §C10). The game
        goes on from this step when they come back (or when a quorum of votes arrives); ()
        when we are not paused. Also paused: a voter that
        holds every message of the step but neither a certificate nor a quorum (the votes
        split, §C8.3 "Split votes"): it names the seats it voted against, which it may not
        apply without one, so that its node reports the stall and gives up after its stall
        limit like any paused peer instead of waiting for ever. Likewise a peer that holds every
        message and a quorum of DROP votes whose releases do not come (colluders that never
        release, version 5, §C8.3 'Not live against them'): it names the seat of that quorum."""
        s = self._s
        seats = s.seats
        if not seats.on or s.phase != RUNNING or s.spectator:
            return ()
        k = s.step
        decided = seats.decided_at(k)  # this epoch's quorum or an earlier one's (s12b #2)
        if decided is not None and not s.waiting_for():
            return (decided,)  # a held quorum waits for its releases (version 5, §C8.3 rule (c))
        if not s.waiting_for() and seats.voted_at(k) and not s.votes.certified(k):
            return tuple(i for i in range(s.n) if seats.active[i] and seats.has_voted(k, i))
        if s.votes.may_vote():  # k is the current step
            return ()
        return tuple(i for i in s.waiting_for() if i != s.my_seat)
