"""The session's timers (protocol.md §C3.3, §C3.4, §C8.2, §C8.3, §C8.9, §C9.1): ``SessionTimers``.

``next`` is ``LockstepSession.get_timer``: the earliest of the current step's deadlines, which
``liveness.Liveness`` keeps (resend, ALIVE, stall) and the parts that own the others report
(our next drop vote, the digest dispute, a repeated escrow round's dealers, asking a peer that
is ahead, our re-seat request). ``fire`` is ``handle_timer``: whatever came due is done:

* resend: our message of the step, our DROP and SKIP votes of it, and our escrows (at an
  escrow round every escrow we hold, else ours if a seat still lacks one);
* our RESEAT request again, until the carriers take it (§C8.9);
* ALIVE while our message of the step is not sent yet (seat loss on, §C8.3);
* a stall report (``PeerStalled``), and a spectator asks for a catch-up (§C9.1);
* the digest dispute settled at its deadline (§C3.4);
* our drop vote (the seat the most voters named, §C8.3), or against a seat that dealt no
  escrow at a repeated escrow round (§C8.2);
* a catch-up from the peer that is ahead, or forget it.

``on_alive`` takes another seat's ALIVE (§C8.3): the other half of the liveness message.

It owns no state of its own (the timers are ``Liveness``'s). It reads the session through
``session_port.SessionView`` and acts through ``session_port.Effects``. Moved out of
``lockstep.py`` (issue 13).
"""

from __future__ import annotations

from typing import Collection

from .identity import Identity
from .session_events import PeerStalled
from .session_port import Effects, SessionView
from .wire import MSG_ALIVE, Alive, Envelope, seal_message

__all__ = ["SessionTimers"]


class SessionTimers:
    """The timers of one session (module docstring). ``identity``: ours (signs ALIVE);
    ``left``: the seats that signed ABANDON (``abandon.Abandons.left``, read only: such a seat
    is voted out before the vote floor)."""

    def __init__(self, identity: Identity, session: SessionView, effects: Effects, left: Collection[int]) -> None:
        self._identity = identity
        self._s = session
        self._fx = effects
        self._left = left

    def owes_alive(self) -> bool:
        """True while we must send ALIVE: seat loss on, running, our message of this step
        not sent yet (we wait for our player, or for escrows before a reveal)."""
        s = self._s
        if not s.seats.on or not s.running or s.spectator or s.replaying:
            return False
        return not s.steps.has_own(s.step)

    def next(self) -> float | None:
        """Earliest time ``fire`` must be called (the caller's clock, seconds), or None when
        the game no longer runs."""
        s = self._s
        if not s.running:
            return None
        live = s.live  # its deadlines inline: this runs once per read batch and per timer
        t = live.stall_at
        r = live.resend_at
        if r is not None and r < t:
            t = r
        a = live.alive_at
        if a is not None and a < t and self.owes_alive():
            t = a
        # No seat is voted out before the vote floor (unless it left or was proven a cheater):
        # while an earlier deadline comes first, the per-seat vote times need not be computed.
        seats = s.seats
        if t > live.vote_floor(seats.drop_timeout, seats.turn_time) or self._left or s.complaints.cheaters():
            d = s.votes.drop_deadline()
            if d is not None and d < t:
                t = d
        d = s.referee.disputes.deadline()
        if d is not None:
            t = min(t, d)
        d = s.escrows.undealt_deadline()
        if d is not None:
            t = min(t, d)
        d = s.catchup.due(live.step_started)
        if d is not None:
            t = min(t, d)
        d = s.reseat.timer()
        if d is not None:
            t = min(t, d)
        return t

    def on_alive(self, env: Envelope, a: Alive, now: float) -> None:
        """ALIVE (protocol.md §C8.3): an active seat whose message of our current step we lack is
        still there; its silence clock restarts if the counter ``n`` is above every one we
        accepted from it at this step (a replay is ignored). Anything else is ignored (never
        verified: a flood costs one comparison per message)."""
        s = self._s
        st = s.stats
        if a.seat >= s.n or a.seat == s.my_seat or a.step != s.step or not s.running \
                or not s.active[a.seat] or s.steps.held(s.step, a.seat) is not None:
            st["ignored"] += 1
            return
        if not self._fx.verified(env, a.seat, a.step):
            return
        if not s.live.heard_alive(a.seat, a.n, now, env.raw):
            st["ignored"] += 1  # a replay (or a late one): not a new sign of life
            return
        st["alive"] += 1

    def fire(self, now: float) -> None:
        """Do what came due at ``now`` (module docstring)."""
        s, fx = self._s, self._fx
        if not s.running:
            return
        live = s.live
        if live.resend_due(now):
            own = s.steps.own(s.step)
            if own is not None:
                fx.send(own)
                s.stats["resent"] += 1
            # Our DROP vote of this step and epoch too: a vote lost on the way was never sent
            # again, and three peers that had each lost the others' votes waited for ever (§C8.3).
            for raw in s.seats.own_votes(s.step):
                fx.send(raw)
            for raw in s.skips.own_votes(s.step, s.epoch):  # §C8.10
                fx.send(raw)
            if s.own.escrow_round and not s.spectator:
                for raw in s.seats.escrow_raws():  # ours and the ones we forward (§C8.2)
                    fx.send(raw)
            elif not s.escrows.gate_open():
                s.escrows.send(resend=True)
        again = s.reseat.due(now)
        if again is not None:
            fx.send(again)  # our request to play again, until the carriers take it (§C8.9)
        if live.alive_due(now) and self.owes_alive():
            fx.send(seal_message(self._identity, MSG_ALIVE, Alive(s.game_id, s.my_seat, s.step, live.next_alive_n())))
            s.stats["alive_sent"] += 1
        if now >= live.stall_at:
            # Seats we wait for; with none, those we voted against and hold but may not apply
            # yet (``paused``): a split vote is reported as a stall too (§C8.3).
            stalled = live.stalled(now, [i for i in (s.waiting_for() or s.paused()) if i != s.my_seat])
            if stalled is not None:
                fx.emit(PeerStalled(s.step, *stalled))
                if s.spectator:
                    # A spectator sends no step message whose re-send would make the others
                    # answer: it asks (a finished peer answers from its log). Else a lost message
                    # of the last step left it waiting for ever, nobody being ahead (§C9.1).
                    fx.request_catchup()
        d = s.referee.disputes.deadline()
        if d is not None and now >= d:
            s.referee.settle_dispute(None)
            return
        d = s.votes.drop_deadline()
        if d is not None and now >= d:
            # One vote per step and epoch (§C8.3): among the seats whose vote time has come, the
            # one the most voters already voted against (votes that split can never reach a
            # quorum), then the one whose time came first, then the lowest; after its drop the
            # epoch changes and we vote again.
            seat = s.votes.vote_choice(now)
            if seat is not None:
                fx.vote(seat)
        d = s.escrows.undealt_deadline()
        if d is not None and now >= d and s.running:
            fx.vote(s.escrows.undealt()[0])  # §C8.2: no escrow from it, or a false ack
        d = s.catchup.due(live.step_started)
        if d is not None and now >= d and s.running:
            if s.catchup.ahead[1] > s.step:
                fx.request_catchup()
            else:
                s.catchup.settle_ahead(s.step)
