"""One asyncio timer for a sans-I/O core's next deadline: ``LoopTimer``.

A sans-I/O core (``endpoint.Endpoint``, ``lockstep.LockstepSession``, ``lobby.Lobby``) says when
it must be called again (``get_timer()`` / the next timer of ``Endpoint.flush``: an absolute time
on the loop's clock, seconds, or None); its asyncio adapter keeps one loop timer at that time, as
aioquic's ``asyncio/protocol.py`` keeps ``_timer`` and ``_timer_at``. The adapter asks after every
burst of work, so most asks name a deadline later than the armed one: the armed handle is then
kept (it fires first, and the adapter asks again there), which saves a cancel and a new handle per
step on the hot path. Used by ``link.Link`` (the transport's timers) and ``node.Node`` (the
session's or the lobby's).
"""

from __future__ import annotations

import asyncio
from typing import Callable

__all__ = ["LoopTimer"]


class LoopTimer:
    """``fire()`` called once at the earliest deadline ``arm`` was given since it last fired.

    ``loop``: the running asyncio loop (``call_at`` on its clock); ``fire``: no arguments, called
    from the loop with the timer already disarmed (it may ``arm`` again)."""

    __slots__ = ("_loop", "_fire", "_handle", "_at")

    def __init__(self, loop: asyncio.AbstractEventLoop, fire: Callable[[], None]) -> None:
        self._loop = loop
        self._fire = fire
        self._handle: asyncio.TimerHandle | None = None
        self._at: float | None = None

    @property
    def at(self) -> float | None:
        """When the armed handle fires (loop clock, s), or None when nothing is armed (the
        tests read it; the owners only ``arm``)."""
        return self._at

    def arm(self, when: float | None) -> None:
        """Have ``fire`` run at ``when`` (None: nothing new). A handle already armed at or before
        ``when`` is kept: it fires first and the caller arms again then."""
        if when is None:
            return
        handle = self._handle
        if handle is not None:
            if self._at <= when:
                return
            handle.cancel()
        self._at = when
        self._handle = self._loop.call_at(when, self._on_fire)

    def cancel(self) -> None:
        """Disarm (idempotent): ``fire`` does not run for what was armed."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
            self._at = None

    def _on_fire(self) -> None:
        self._handle = None
        self._at = None
        self._fire()
