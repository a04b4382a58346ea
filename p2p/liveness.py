"""Liveness of one lockstep step: who we heard from, and when to resend, keep alive, report a
stall, or vote a silent seat out (protocol.md §C3.2 resend, §C8.3 ALIVE, drop timeout and turn
time, §9 stall report).

A ``Liveness`` object belongs to one ``LockstepSession`` and holds only clock values (the
caller's clock, seconds) for the step being collected; it is reset when a step begins
(``begin``) and after a resume (``restart``). It never sends anything and never reads the
session: the session asks it what is due and acts (sans-I/O, as aioquic's loss-recovery
timers are apart from its connection).
"""

from __future__ import annotations

from collections.abc import Iterable

from . import const as C

__all__ = ["Liveness"]


class Liveness:
    """Timers of the current step.

    ``keepalive``: seconds between two ALIVE messages while our message of the step is not
    sent (``min(KEEPALIVE_INTERVAL, drop_timeout / 3)``, §C8.3), or None when seat loss is off
    (no ALIVE is ever due). Public read-only attributes: ``step_started`` (when the step
    began), ``stall_at``, ``resend_at`` (None: no resend armed), ``alive_at`` (None: never).
    """

    __slots__ = ("_keepalive", "step_started", "stall_at", "resend_at", "_resend_interval", "_heard",
                 "_behind", "alive_at", "_resend_cap", "_alive_n", "_alive_seen", "_alive_raw")

    def __init__(self, keepalive: float | None, now: float = 0.0) -> None:
        self._keepalive = keepalive
        self.step_started = now
        self.stall_at = now + C.STALL_TIMEOUT
        self.resend_at: float | None = None
        self._resend_interval = C.RESEND_INTERVAL
        #: seat -> when its last valid ALIVE (or COMPLAINT) of this step arrived.
        self._heard: dict[int, float] = {}
        #: seat -> when its last indirect sign of life arrived (``heard_behind``).
        self._behind: dict[int, float] = {}
        self.alive_at: float | None = None
        #: How many ALIVEs we sent at this step: the ``n`` of our next one (§C8.3).
        self._alive_n = 0
        #: seat -> the largest ALIVE ``n`` we accepted from it at this step (§C8.3).
        self._alive_seen: dict[int, int] = {}
        #: seat -> the envelope of the ALIVE with that largest ``n`` (forwarded on a vote, §C8.3).
        self._alive_raw: dict[int, bytes] = {}
        # A waiting seat's re-sends are its keep-alives (it sends no ALIVE once its message is
        # out): never further apart than the keep-alive period, so that a receiver that lost its
        # message hears it several times per drop timeout (§C8.3; issue 10, H22).
        self._resend_cap = C.RESEND_MAX_INTERVAL if keepalive is None else min(C.RESEND_MAX_INTERVAL, keepalive)

    def begin(self, now: float) -> None:
        """A new step begins at ``now``: nothing heard yet, no resend armed (the back-off starts
        again at RESEND_INTERVAL), the stall report STALL_TIMEOUT s away, the first ALIVE one
        keep-alive interval away."""
        self.step_started = now
        self.stall_at = now + C.STALL_TIMEOUT
        self.resend_at = None
        self._resend_interval = C.RESEND_INTERVAL
        self._heard = {}
        self._behind = {}
        self._alive_n = 0
        self._alive_seen = {}
        self._alive_raw = {}
        self.alive_at = now + self._keepalive if self._keepalive is not None else None

    def restart(self, now: float) -> None:
        """Restart the step's timers at ``now`` after a resume (the log's steps happened on
        another clock): as ``begin``, with a resend armed RESEND_INTERVAL s away (§C10)."""
        self.begin(now)
        self.resend_at = now + C.RESEND_INTERVAL

    # -- resend (§C3.2) --

    def arm_resend(self, now: float) -> None:
        """We sent (or wait to send) our message of this step: resend it one back-off
        interval after ``now`` unless the step completes first."""
        self.resend_at = now + self._resend_interval

    @property
    def resend_period(self) -> float:
        """Seconds between two re-sends once the back-off is at its cap: what another seat
        waits at most for a re-sent vote of ours (and we for its)."""
        return self._resend_cap

    def stop_resend(self) -> None:
        """The game ended here: nothing more to resend."""
        self.resend_at = None

    def resend_due(self, now: float) -> bool:
        """True if the resend time has come; then the back-off interval doubles (up to
        RESEND_MAX_INTERVAL, or the keep-alive period if shorter: a waiting seat's re-sends are
        what tells the others it is alive, §C8.3) and the next resend is armed."""
        if self.resend_at is None or now < self.resend_at:
            return False
        self._resend_interval = min(self._resend_interval * 2, self._resend_cap)
        self.resend_at = now + self._resend_interval
        return True

    # -- keep-alive and silence (§C8.3) --

    def alive_due(self, now: float) -> bool:
        """True if an ALIVE is due at ``now`` (the caller sends one only if it still owes its
        message of the step); the next one is then one keep-alive interval away."""
        if self.alive_at is None or now < self.alive_at:
            return False
        self.alive_at = now + self._keepalive
        return True

    def next_alive_n(self) -> int:
        """The counter ``n`` of the ALIVE we send now (§C8.3): 0, 1, 2... over this step's
        ALIVEs, so that each one differs from every earlier one and a replay is recognised."""
        n = self._alive_n
        self._alive_n += 1
        return n

    def heard_alive(self, seat: int, n: int, now: float, raw: bytes = b"") -> bool:
        """A valid ALIVE of this step from ``seat`` with counter ``n`` arrived at ``now``: if
        ``n`` is above the largest we accepted from it at this step, its silence clock restarts
        and True is returned; otherwise it is a replay (or reordered) and changes nothing
        (False). A replayed ALIVE thus counts at most once per receiver, so a crashed seat's
        ALIVEs hold it at most one drop timeout after the last one it really sent (§C8.3)."""
        if n <= self._alive_seen.get(seat, -1):
            return False
        self._alive_seen[seat] = n
        self._alive_raw[seat] = raw
        self._heard[seat] = now
        return True

    def latest_alive(self, seat: int) -> bytes | None:
        """The envelope of ``seat``'s latest accepted ALIVE of this step (the one with the
        largest ``n``), or None: what we forward when a DROP vote against it arrives (§C8.3)."""
        return self._alive_raw.get(seat) or None

    def heard(self, seat: int, now: float) -> None:
        """``seat`` showed at ``now`` that it is there (a valid ALIVE or COMPLAINT of this step):
        its silence clock restarts."""
        self._heard[seat] = now

    def heard_behind(self, seat: int, now: float) -> None:
        """An indirect sign that ``seat`` is alive at ``now``: a re-send of its message of the
        step before ours (it is one step behind, waiting for a message it lacks), its signed
        catch-up request, or its DROP/SKIP vote of this step. Unlike ALIVE it may be a replay by
        another seat (the re-sent bytes are old), so it delays the seat's vote time by at most
        one more drop timeout (``vote_time``): a seat that is really behind has caught up by
        then, and a replay of a crashed seat's old messages cannot hold the step longer."""
        self._behind[seat] = now

    def last_heard(self, seat: int) -> float:
        """When we last heard from ``seat`` in this step (the step's start if never)."""
        return self._heard.get(seat, self.step_started)

    def vote_time(self, seat: int, drop_timeout: float, turn_time: float) -> float:
        """When a seat whose message has not come is voted out (§C8.3): ``drop_timeout`` s
        after we last heard from it (its ALIVE; an indirect sign, ``heard_behind``, counts only
        up to ``drop_timeout`` s after the step's start), and at the latest ``turn_time`` s
        after the step's start (0.0 = unlimited)."""
        started = self.step_started
        behind = min(self._behind.get(seat, started), started + drop_timeout)
        t = max(started, self._heard.get(seat, started), behind) + drop_timeout
        if turn_time:
            t = min(t, started + turn_time)
        return t

    def vote_floor(self, drop_timeout: float, turn_time: float) -> float:
        """The earliest time ``vote_time`` can give in this step (s): ``step_started`` +
        ``min(drop_timeout, turn_time)`` (``turn_time`` 0.0 = unlimited). While an earlier
        deadline is due first, the session skips the per-seat vote times (issue 14: the timer
        is asked for after every message)."""
        return self.step_started + (min(drop_timeout, turn_time) if turn_time else drop_timeout)

    def stalled(self, now: float, waiting: Iterable[int]) -> tuple[tuple[int, ...], float] | None:
        """Every STALL_TIMEOUT s: the seats of ``waiting`` silent for STALL_TIMEOUT s or more
        and how long the least silent of them has been (s), or None (not due, or nobody
        silent). The next report is then STALL_TIMEOUT s away."""
        if now < self.stall_at:
            return None
        self.stall_at = now + C.STALL_TIMEOUT
        last = {i: self._heard.get(i, self.step_started) for i in waiting}
        silent = tuple(i for i, t in last.items() if now - t >= C.STALL_TIMEOUT)
        if not silent:
            return None
        return silent, now - max(last[i] for i in silent)
