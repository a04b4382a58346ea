"""When a joiner sends its JOIN again (protocol.md §C2.2 step 2, "Lobby re-sends"; §N2.6
"Reflection"): the schedule alone, owned by the joiner's ``Lobby``, which sends the bytes.

The host's channel to a joiner stays unconfirmed until the joiner answers one of its
CHALLENGEs, so the host sends it at most 3x what it received: a STATUS or PROPOSAL that does not
fit waits for the joiner's next datagram. While it has no PROPOSAL (phases ``joining`` and
``waiting``) the joiner therefore re-sends its JOIN, the same bytes, every ``JOIN_RESEND_S``;
each copy raises that bound, wakes a channel that gave up and earns a new CHALLENGE (H77). A
SETUP_SIG or SEED of its game says the host proposed to others (the PROPOSAL may be held under
the bound): the JOIN goes out at once, at most once per ``JOIN_HINT_S`` since those messages are
unchecked bytes anyone can send.
"""

from __future__ import annotations

__all__ = ["JOIN_HINT_S", "JOIN_RESEND_S", "JoinResend"]

#: Seconds between two copies of the joiner's JOIN while it has no PROPOSAL.
JOIN_RESEND_S = 2.0

#: Least seconds between two early copies called for by a SETUP_SIG or SEED of our game:
#: at most 1/JOIN_HINT_S more JOINs a second, to the host only.
JOIN_HINT_S = 0.25


class JoinResend:
    """The next time (seconds, the lobby's clock) our JOIN goes out again. ``at`` is None for a
    host, which never re-sends a JOIN."""

    def __init__(self, now: float | None) -> None:
        """``now``: when a joiner sent its first JOIN; None for a host."""
        self.at: float | None = None if now is None else now + JOIN_RESEND_S
        self._hint = -JOIN_HINT_S

    def due(self, now: float) -> bool:
        """True if a copy is due at ``now``; then the next one is scheduled ``JOIN_RESEND_S``
        later (the caller sends it, phase and deadline permitting)."""
        if self.at is None or now < self.at:
            return False
        self.at = now + JOIN_RESEND_S
        return True

    def hint(self, now: float) -> None:
        """A SETUP_SIG or SEED of our game arrived at ``now``: a copy at once (``due``), unless
        one was called for less than ``JOIN_HINT_S`` ago."""
        if self.at is not None and now - self._hint >= JOIN_HINT_S:
            self._hint = now
            self.at = min(self.at, now)

    def restart(self, now: float) -> None:
        """A new round (§C2.2 step 7): the caller sends our fresh JOIN at ``now``; the next copy
        ``JOIN_RESEND_S`` later."""
        if self.at is not None:
            self.at = now + JOIN_RESEND_S
