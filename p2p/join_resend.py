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

A joiner by code sends a PROBE instead (a JOIN with the zero game id, §N3.1), which the host
answers only over a confirmed channel: the first PROBE earns the CHALLENGE, the joiner's
endpoint answers it, and the host answers the PROBE it kept at that RESPONSE (H96). If the
CHALLENGE or the RESPONSE is lost, only a copy starts again. So the PROBE's first copy goes out
``PROBE_RESEND_S`` after it (a LAN round trip is ~1 ms), each next one twice as late up to
``PROBE_RESEND_MAX_S`` (at 30% loss a join by code needs several tries: with copies 2 s apart its
slowest joins neared ``JOIN_TIMEOUT``, H88); the real JOIN that follows the host's answer starts
the usual schedule (``restart``).
"""

from __future__ import annotations

__all__ = ["JOIN_HINT_S", "JOIN_RESEND_S", "PROBE_RESEND_MAX_S", "PROBE_RESEND_S", "JoinResend"]

#: Seconds between two copies of the joiner's JOIN while it has no PROPOSAL.
JOIN_RESEND_S = 2.0

#: Least seconds between two early copies called for by a SETUP_SIG or SEED of our game:
#: at most 1/JOIN_HINT_S more JOINs a second, to the host only.
JOIN_HINT_S = 0.25

#: Seconds between a PROBE and its first copy (then 2x, 4x... up to ``PROBE_RESEND_MAX_S``): the
#: host's CHALLENGE to the first one and our RESPONSE take one round trip (protocol.md §N3.1),
#: ~1 ms on a LAN, tens of ms on a loaded machine.
PROBE_RESEND_S = 0.1

#: Most seconds between two copies of a PROBE: 5 PROBEs (~260 B each) a second to the host until it
#: answers or ``JOIN_TIMEOUT``; each copy is a new chance through 30% loss (H96: 0.4 s before;
#: bench/bench_join_code.py, 4 seats 30% loss: median 0.80 -> 0.69 s, 3 seats max 3.53 -> 2.21 s).
PROBE_RESEND_MAX_S = 0.2


class JoinResend:
    """The next time (seconds, the lobby's clock) our JOIN goes out again. ``at`` is None for a
    host, which never re-sends a JOIN."""

    def __init__(self, now: float | None, probe: bool = False) -> None:
        """``now``: when a joiner sent its first JOIN (or PROBE, ``probe`` True); None for a host."""
        #: Seconds from one copy to the next (a PROBE's grow from ``PROBE_RESEND_S``).
        self._gap = PROBE_RESEND_S if probe else JOIN_RESEND_S
        self._max = PROBE_RESEND_MAX_S if probe else JOIN_RESEND_S
        self.at: float | None = None if now is None else now + self._gap
        self._hint = -JOIN_HINT_S

    def due(self, now: float) -> bool:
        """True if a copy is due at ``now``; then the next one is scheduled a gap later (a
        PROBE's gap doubles up to ``PROBE_RESEND_MAX_S``; the caller sends it, phase and
        deadline permitting)."""
        if self.at is None or now < self.at:
            return False
        self._gap = min(2 * self._gap, self._max)
        self.at = now + self._gap
        return True

    def hint(self, now: float) -> None:
        """A SETUP_SIG or SEED of our game arrived at ``now``: a copy at once (``due``), unless
        one was called for less than ``JOIN_HINT_S`` ago."""
        if self.at is not None and now - self._hint >= JOIN_HINT_S:
            self._hint = now
            self.at = min(self.at, now)

    def restart(self, now: float) -> None:
        """A new round (§C2.2 step 7), or the host answered our PROBE (§N3.1): the caller sends
        our (fresh, or real) JOIN at ``now``; the next copy ``JOIN_RESEND_S`` later."""
        if self.at is not None:
            self._gap = self._max = JOIN_RESEND_S
            self.at = now + JOIN_RESEND_S
