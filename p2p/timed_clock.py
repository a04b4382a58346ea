"""Our clock for a timed game: when to send the ``TimeUp`` vote (protocol.md §N8,
protocol.md part E "TimeUp contract").

The engine has no clock. The players agree a duration in the lobby: the engine option
``timed_minutes`` (whole minutes, 1..1440, part of the engine state) and, when the host asked
for a fraction of a minute (tests, demos), the p2p option ``p2p.timed_ms`` (the exact duration
in milliseconds; then ``timed_minutes == ceil(ms / 60000)``). Each peer measures the duration on
its own monotonic clock from the moment its game started (the lobby's end; a peer that
restarted from its log counts again from its restart: it never calls the time early; a roll
back inside the running node keeps the start, ``node_input.NodeInput.restart``) and, once
it has passed, sends ``TimeUp`` as its seat's one input of the next decision step in which
that costs nothing: a step where our seat is not an actor, or where it only waits for our roll
(``roll``/``jail``: the roll then comes one step later). It votes once; the engine ends the
time when a strict majority of the seats still in have voted.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping

from . import const as C

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine

__all__ = ["time_limit_s", "timed_options", "check_timed_options", "TimeKeeper"]

_MS_PER_MIN = 60_000
#: Decision kinds in which our silence costs nothing but a step: our vote goes there even if
#: our seat is an actor (elsewhere silence passes a bid, pays a fine, declines a card ...).
_WAITING_KINDS = ("roll", "jail")


def timed_options(minutes: float) -> dict[str, int]:
    """The setup options for a timed game of ``minutes`` (> 0, at most 1440; fractions
    allowed): ``{"timed_minutes": m}`` for whole minutes, plus ``"p2p.timed_ms"`` otherwise.
    Raises ValueError for a duration out of range."""
    if not (isinstance(minutes, (int, float)) and 0 < minutes <= 1440 and math.isfinite(minutes)):
        raise ValueError("the duration must be more than 0 and at most 1440 minutes")
    ms = round(minutes * _MS_PER_MIN)
    if ms < 1:
        raise ValueError("the duration must be at least a millisecond")
    if ms % _MS_PER_MIN == 0:
        return {"timed_minutes": ms // _MS_PER_MIN}
    return {"timed_minutes": -(-ms // _MS_PER_MIN), C.OPT_TIMED_MS: ms}


def check_timed_options(options: Mapping[str, Any]) -> str | None:
    """None if ``p2p.timed_ms`` is absent or consistent (an int >= 1 with ``timed_minutes ==
    ceil(ms / 60000)``), else why not."""
    ms = options.get(C.OPT_TIMED_MS)
    if ms is None:
        return None
    if type(ms) is not int or ms < 1:
        return f"{C.OPT_TIMED_MS} must be an int of milliseconds >= 1"
    if options.get("timed_minutes") != -(-ms // _MS_PER_MIN):
        return f"{C.OPT_TIMED_MS} needs timed_minutes = ceil(ms / 60000)"
    return None


def time_limit_s(options: Mapping[str, Any]) -> float | None:
    """Agreed duration in seconds, from the setup options; None for an untimed game."""
    minutes = options.get("timed_minutes")
    if type(minutes) is not int or minutes <= 0:
        return None
    if check_timed_options(options) is None and options.get(C.OPT_TIMED_MS) is not None:
        return options[C.OPT_TIMED_MS] / 1000.0
    return minutes * 60.0


class TimeKeeper:
    """When our seat votes ``TimeUp``. ``options``: the setup options; ``now``: loop time (s)
    when our game started or resumed."""

    def __init__(self, options: Mapping[str, Any] | None, now: float) -> None:
        limit = time_limit_s(options or {})
        #: Loop time from which we vote (None: untimed game).
        self.deadline: float | None = None if limit is None else now + limit
        #: True once there is nothing more to do (we voted, or cannot vote).
        self.done = limit is None

    def due(self, engine: Engine, state: Any, seat: int, now: float) -> bool:
        """True when our input of this step should be ``TimeUp``: the time has passed on our
        clock, ``TimeUp`` is legal for our seat (still in, not voted, time not yet up) and
        our silence costs nothing this step (see the module doc)."""
        if self.done or now < self.deadline:  # type: ignore[operator]
            return False
        p = engine.pending(state)
        if p.chance or p.terminal:
            return False
        from engine.actions import TimeUp

        if TimeUp() not in engine.legal_actions(state, seat):
            self.done = True  # voted already, out of the game, or the time is up
            return False
        return seat not in p.actors or p.kind in _WAITING_KINDS

    @staticmethod
    def vote() -> Any:
        """The action to send."""
        from engine.actions import TimeUp

        return TimeUp()
