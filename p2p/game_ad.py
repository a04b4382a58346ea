"""The host's game advert kept current while its lobby fills and its game runs (protocol.md §N3).

``p2p.node.Node`` advertises the game once (``Discovery.advertise``); this module owns what
changes after: the seat count and player names as players join, ``st=running`` once the setup
is proposed, and the live standings (TXT ``sd``: turn, current seat, every seat's net worth)
that ``lanopoli watch`` lists for every game on the LAN without joining it. Zeroconf updates
are coroutines; ``AdUpdates`` runs them one after the other in the background, in the order
asked, so the hot path never waits for them, and a later update never lands before an earlier
one.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from .ad_record import TXT_NAME_BYTES, Standings, clip_utf8, printable
from .discovery import Discovery

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine

__all__ = ["AdUpdates", "STANDINGS_INTERVAL", "ad_name", "live_standings"]

STANDINGS_INTERVAL = 1.0  # s between two re-announcements of the host's TXT ``sd`` (standings)


def ad_name(name: str) -> str:
    """A player name as the TXT record carries it (protocol.md §N3): printable characters,
    clipped to ``ad_record.TXT_NAME_BYTES`` bytes of UTF-8."""
    return clip_utf8(printable(name), TXT_NAME_BYTES)


def live_standings(engine: Engine, state: Any) -> Standings | None:
    """The TXT ``sd`` value of ``state`` (protocol.md §N3): turn, current seat, every seat's net
    worth (``engine.rules.endgame.net_worth``) or None once it is out; None for an engine
    without these (test stand-ins)."""
    standings = getattr(engine, "standings", None)
    if standings is None or not hasattr(state, "out"):
        return None
    worth = dict(standings(state))
    return Standings(turn=min(int(state.turn), 999999), current=int(state.current),
                     worth=tuple(None if state.out[i] else worth.get(i, 0) for i in range(state.n)))


class AdUpdates:
    """Ordered background updates of ``discovery``'s advert (no-ops while nothing is
    advertised, e.g. on a joiner). ``cancel`` stops the ones still pending (at close)."""

    def __init__(self, discovery: Discovery) -> None:
        self.discovery = discovery
        self._last: asyncio.Task | None = None
        self._tasks: set[asyncio.Task] = set()
        self._sd_next = 0.0  # loop time of the next standings re-announcement
        self._sd_sent: Standings | None = None

    def update(self, **changes: Any) -> None:
        """Change these TXT fields (``Discovery.update``) after every update asked before."""
        task = asyncio.ensure_future(self._update(self._last, changes))
        self._last = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _update(self, prev: asyncio.Task | None, changes: dict) -> None:
        if prev is not None:
            await asyncio.gather(prev, return_exceptions=True)
        if self.discovery.advertised is not None:
            await self.discovery.update(**changes)

    def standings(self, engine: Engine, state: Any, now: float) -> None:
        """Re-announce TXT ``sd`` for ``state`` when it changed, at most every
        STANDINGS_INTERVAL s (``now``: loop time)."""
        advertised = self.discovery.advertised
        if advertised is None or now < self._sd_next:
            return
        sd = live_standings(engine, state)
        if sd is not None and sd != advertised.standings and sd != self._sd_sent:
            self._sd_sent, self._sd_next = sd, now + STANDINGS_INTERVAL
            self.update(standings=sd)

    def cancel(self) -> None:
        """Stop the updates still pending."""
        for t in list(self._tasks):
            t.cancel()
