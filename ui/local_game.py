"""``LocalGame``: an in-process game driver (ui/driver.py's ``GameDriver``), no network.

Our seat is the human, every other seat an ``engine.bots`` bot, chance steps from pinned beacons
(``engine.bots.play.beacon``, :func:`pinned_chance`) or any function a test passes (e.g.
``engine.testing.forced_chance`` with scripted dice). Tests, snapshots and ``lanopoli play``'s
local games use it.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

import engine
from engine.bots.play import beacon
from p2p.seat_answer import SeatAnswer
from ui.driver import DriverBase
from ui.hidden import LocalSecrets
from ui.human_seat import HumanSeat

#: Seconds a local game pauses between steps when a person watches (0 in tests).
LOCAL_STEP_DELAY_S = 0.05


def pinned_chance(seed: int) -> Callable[[Any, int], tuple]:
    """Chance steps from pinned beacons: step k uses ``engine.bots.play.beacon(seed, k)``."""
    return lambda state, k: engine.apply_chance(state, beacon(seed, k))


class LocalGame(DriverBase):
    """An in-process game: seat ``human_seat`` is the human, the others are ``bot`` bots.

    ``names``: one per seat; ``state``: the initial state (default ``engine.new_game(edition,
    len(names))``); ``chance(state, k) -> (state, events)`` answers the k-th chance step
    (default: pinned beacons of ``seed``); ``delay``: seconds between steps. Raises ValueError
    for a bad seat or seat count.

    niente-e-come-sembra: ``statuses`` pins fake/genuine statuses (``{("bill", id) |
    ("card", index): fake}``), the others derive from ``seed`` (``ui.hidden.LocalSecrets``);
    an "inspection" step is answered with them through ``apply_reveal`` (as the network does
    with the opened shares), and every seat — bots and us — knows the items it holds or held.
    """

    def __init__(self, names: tuple[str, ...] | list[str], human_seat: int = 0, *, seed: int = 1,
                 bot: str = "default", edition: str = "classico", state: Any = None,
                 chance: Callable[[Any, int], tuple] | None = None, delay: float = LOCAL_STEP_DELAY_S,
                 human: HumanSeat | None = None, statuses: dict | None = None) -> None:
        super().__init__(human)
        if not 0 <= human_seat < len(names):
            raise ValueError("human_seat out of range")
        self.names = tuple(names)
        self.seats_total = len(names)
        self.lobby_names = self.names
        self.seat = human_seat
        self.bot = bot
        self.state = state if state is not None else engine.new_game(edition, len(names))
        self.chance = chance or pinned_chance(seed)
        self.delay = delay
        self.steps = 0
        self._step_t = 0.0
        self.secrets = LocalSecrets(seed, statuses)
        self.secrets.observe(self.state)

    def private_view(self) -> dict:
        """Our seat's view (``ui.hidden.LocalSecrets.view``)."""
        return self.secrets.view(self.state, self.seat)

    async def run(self) -> None:
        """Play until the game is over (or cancelled)."""
        loop = asyncio.get_running_loop()
        self.phase = "playing"
        self._notify("lobby")
        self._notify("step")
        k = 0
        while not engine.is_terminal(self.state):
            self._step_t = loop.time()
            p = engine.pending(self.state)
            if p.kind == "inspection":
                self.state, events = engine.apply_reveal(self.state, self.secrets.outcomes(self.state))
            elif p.chance:
                self.state, events = self.chance(self.state, k)
                k += 1
            else:
                inputs = []
                for seat in range(self.state.n):
                    if seat == self.seat:
                        a = self.human.decide(self.state, seat)
                        if asyncio.iscoroutine(a):
                            self._notify("step")
                            a = await a
                        inputs.append(a)
                    else:
                        inputs.append(self._bot(seat))
                self.state, events = engine.apply_step(self.state, inputs)
            self.secrets.observe(self.state)
            self.steps += 1
            self._new_events.extend(events)
            self._notify("step")
            await asyncio.sleep(0 if self.human.autoplay else self.delay)
        self.phase = "over"
        self._notify("over")

    def _bot(self, seat: int) -> Any:
        # The node's policy for a bot seat (p2p.seat_answer): the edition's bot with that
        # seat's private view (engine.bots.choose in classico).
        return SeatAnswer(self.bot).bot(self.state, seat, lambda: self.secrets.view(self.state, seat))

    def waiting(self) -> tuple[tuple[int, ...], float] | None:
        """Local bots never keep anyone waiting."""
        return None

    async def fill_with_bots(self) -> None:
        """Every other seat is already a bot."""

    async def close(self) -> None:
        """Nothing to release."""


__all__ = ["LocalGame", "pinned_chance", "LOCAL_STEP_DELAY_S"]
