"""Who answers for our seat at a decision step: the policy shared by ``p2p/node.py`` (a bot
peer, the timed-game vote) and ``ui/play.py`` (a human seat on autoplay, the bot peers that
fill a table), so that both decide the same way (issue 13).

Order (protocol.md §N8 "TimeUp contract", §C12.7 "a bot sees only its own private view"):

1. the timed-game vote: ``TimeUp`` once our clock says the agreed time has passed and the
   vote costs nothing at this step (``timed_clock.TimeKeeper``), unless a local player is
   already deciding this very step (its decision keeps the step);
2. a local player (``PeerConfig.local_input``), when the peer has one (the node asks it);
3. the bot: a configured bot function ``choose(state, seat, bot)`` as given, else the
   edition's bot with our private view, ``engine.choose(state, seat, bot, view)`` (in
   classico that is ``engine.bots.choose``; in niente-e-come-sembra the niente bot, which
   knows only what our seat may know).

Pure policy: no I/O, no clock of its own (times are passed in, seconds of the caller's clock).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine import choose as edition_choose

from .timed_clock import TimeKeeper

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine

__all__ = ["SeatAnswer"]


class SeatAnswer:
    """The policy for one seat of ours.

    ``bot``: a bot name (``engine.bots.BOTS`` key); ``choose``: a bot function
    ``(state, seat, bot) -> action | None`` that replaces the edition's bot (test stand-ins
    and custom bots), or None for the edition's bot with our private view.
    """

    __slots__ = ("bot_name", "_choose", "_clock")

    def __init__(self, bot: str = "default", choose: Callable[[Any, int, str], Any] | None = None) -> None:
        self.bot_name = bot
        self._choose = choose
        #: Untimed until a game starts (``start_clock``).
        self._clock = TimeKeeper(None, 0.0)

    @property
    def custom(self) -> bool:
        """True if a bot function was configured (the edition's bot is not used)."""
        return self._choose is not None

    def start_clock(self, options: Mapping[str, Any] | None, now: float) -> None:
        """Our game started (or resumed) at ``now`` with the setup ``options``: a timed game's
        clock counts from here (protocol.md §N8: a restarted peer counts again, never early)."""
        self._clock = TimeKeeper(options, now)

    def timed_vote(self, engine: Engine, state: Any, seat: int, now: float, local_deciding: bool) -> Any:
        """The ``TimeUp`` action if our seat should vote now (rule 1), else None.
        ``local_deciding``: a local player is deciding this step (then None: it keeps it)."""
        if self._clock.due(engine, state, seat, now) and not local_deciding:
            return self._clock.vote()
        return None

    def bot(self, state: Any, seat: int, view: Callable[[], Any] | None = None) -> Any:
        """The bot's action for ``seat`` at the current decision step of ``state`` (rule 3), or
        None. ``view``: returns our private view (``LockstepSession.private_view``), None when
        the game has no hidden information (or we know nothing)."""
        if self._choose is not None:
            return self._choose(state, seat, self.bot_name)
        return edition_choose(state, seat, self.bot_name, None if view is None else view())
