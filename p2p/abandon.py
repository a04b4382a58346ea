"""Abandoning a game (protocol.md §C8.7): our ABANDON, and what another seat's ABANDON does.

A player who does not want to wait any longer for a seat that no quorum can drop ends the game
here: the session signs ABANDON ``[gid, seat, step, state hash, digest]``, broadcasts it and
logs it as the last record (``GameAbandoned``). Another seat's ABANDON, from an active seat at
our step or the next, over our history:

* while Q other active seats could still drop it, it has left: it is voted out at once (our
  vote of this step and epoch, unless we hold its message), and later votes name it first
  (``left``; the session's vote timing reads it);
* otherwise nobody can go on without it: the game ends as abandoned here, its envelope
  logged.

The part owns ``left`` (the seats that signed ABANDON while a drop could go on without them).
It reads the session through ``session_port.SessionView`` and acts through
``session_port.Effects`` (``end_abandoned`` sets the session's phase: the phase is the session's).
"""

from __future__ import annotations

from .errors import LocalProtocolError
from .identity import Identity
from .session_port import Effects, SessionView
from .wire import MSG_ABANDON, Abandon, Envelope, seal_message

__all__ = ["Abandons"]


class Abandons:
    """ABANDON out and in (module docstring). ``identity``: ours (signs our ABANDON);
    ``game_id``: 32 bytes; ``session``: read only; ``effects``: what we do to it."""

    def __init__(self, identity: Identity, game_id: bytes, session: SessionView, effects: Effects) -> None:
        self._identity = identity
        self._game_id = game_id
        self._s = session
        self._fx = effects
        #: Seats that signed ABANDON while a drop could still go on without them: voted out at
        #: once (read by the session's vote timing; never emptied, a seat that left stays left).
        self.left: set[int] = set()

    def abandon(self, reason: str = "") -> None:
        """Sign and send our ABANDON of the current step and end the game (module docstring);
        ``reason``: why, for our player only (``GameAbandoned.reason``; not on the wire).
        Raises ``LocalProtocolError`` unless the game runs and we are seated."""
        s = self._s
        if not s.running or s.spectator:
            raise LocalProtocolError(f"cannot abandon in phase {s.phase}")
        raw = seal_message(self._identity, MSG_ABANDON, Abandon(self._game_id, s.my_seat, s.step, s.state_hash,
                                                                s.steps.prev_digest))
        self._fx.send(raw)
        self._fx.end_abandoned(s.my_seat, raw, reason)

    def receive(self, env: Envelope, a: Abandon, now: float) -> None:
        """ABANDON of another seat: if Q other active seats could still drop it, it is voted
        out at once; otherwise nobody can go on without it and the game ends as abandoned
        here (its envelope logged). Only from an active seat at our step or the next (it may
        have applied our step without us holding its message)."""
        s = self._s
        st = s.stats
        st["abandons"] += 1
        if a.seat >= s.n or a.seat == s.my_seat or not s.active[a.seat] or not s.running \
                or not s.step - 1 <= a.step <= s.step + 1:
            st["ignored"] += 1
            return
        if a.step == s.step and (a.prev_hash != s.state_hash or a.prev_digest != s.steps.prev_digest):
            st["ignored"] += 1  # not our history: it changes nothing here
            return
        if not self._fx.verified(env, a.seat, a.step):
            return
        if s.seats.drop_possible() and not s.spectator:
            self.left.add(a.seat)
            if not s.seats.voted_this_epoch(s.step) and s.steps.held(s.step, a.seat) is None:
                self._fx.vote(a.seat)
            return
        self._fx.end_abandoned(a.seat, env.raw)
