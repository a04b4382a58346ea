"""The human's seat: what a person playing in the UI answers at each decision step (issue 13:
split from ui/play.py, whose drivers take their human decisions from it).

A :class:`HumanSeat` answers each decision step of its seat: an action queued by the UI, or —
when the game waits for our seat — an awaitable that resolves when the UI queues one. With
*autoplay* on, the bot decides for the player (``p2p.seat_answer.SeatAnswer``, the same policy a
bot peer uses, with our private view). Rent is claimed automatically (it lapses when the next
player rolls, rulebook "Se invece non lo fa prima che il giocatore successivo abbia lanciato i
dadi"), which a person would otherwise miss in a fast game. niente-e-come-sembra: the
magnifier window and the choice of bills follow the player's standing policies.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, Callable

import engine
from p2p.seat_answer import SeatAnswer

__all__ = ["HumanSeat", "inspect_wanted"]


class HumanSeat:
    """The human's inputs for a seat, one per decision step (see the module docstring).

    ``submit(action)`` queues an engine Action from the UI; ``decide(state, seat)`` is the
    ``PeerConfig.local_input`` contract: an Action/None now, or an awaitable of one when the
    game waits for this seat and nothing is queued. ``autoplay``: the ``bot`` decides
    (``engine.choose`` with our private view ``view()``, set by the driver:
    protocol.md §C12.7). ``auto_claim``: claim rent as soon as it is due.
    """

    def __init__(self, bot: str = "default", pace: float = 0.0) -> None:
        self.bot = bot
        #: Seconds the bot thinks before a decision the game waits for (autoplay only): bot
        #: seats filled by ``NetGame.fill_with_bots`` play at a pace people can follow.
        self.pace = pace
        #: When the magnifier is offered (niente-e-come-sembra, "inspect_window"): "ask"
        #: always, "mine" only for payments made to us and cards, "never" (the window passes).
        self.inspect = "ask"
        #: How our bills are chosen when we pay (niente-e-come-sembra, "pay_bills"): "keep"
        #: our known fakes, "spend" them first, or "ask" (ui.hidden.BILL_POLICIES).
        self.bills = "keep"
        self.autoplay = False
        self.auto_claim = True
        self._queue: deque = deque()
        self._wake: asyncio.Event | None = None
        #: Our private view of hidden statuses (the driver sets it; None: nothing known).
        self.view: Callable[[], dict] | None = None
        #: True while the game waits for this seat's decision (the UI shows "your move").
        self.deciding = False
        #: Called with each action handed to the game (the driver queues an OwnInput).
        self.on_input: Callable[[Any], None] | None = None

    def submit(self, action: Any) -> None:
        """Queue ``action`` (an engine Action) for our next decision step."""
        self._queue.append(action)
        if self._wake is not None:
            self._wake.set()

    def set_autoplay(self, on: bool) -> None:
        """Let the bot play for us (True) or give the controls back (False)."""
        self.autoplay = on
        if self._wake is not None:
            self._wake.set()

    def decide(self, state: Any, seat: int) -> Any:
        """Our input for the current decision step of ``state`` (see class doc)."""
        if self.autoplay:
            self._queue.clear()
            if self.pace > 0 and seat in engine.pending(state).actors:
                return self._paced(state, seat)
            return self._sent(self._bot(state, seat))
        legal = engine.legal_actions(state, seat)
        if self.auto_claim:
            for a in legal:
                if type(a).__name__ == "ClaimRent":
                    return a
        if self._queue:
            return self._sent(self._queue.popleft())
        p = engine.pending(state)
        if p.kind == "inspect_window" and not inspect_wanted(state, seat, self.inspect):
            return None  # the player asked not to be offered this window: let it pass
        if p.kind == "pay_bills" and self.bills != "ask":
            return self._sent(self._standing_bills(state, seat))
        if seat in p.actors and legal:
            return self._wait(state, seat)
        return None

    def cycle_inspect(self) -> str:
        """Next magnifier setting (ask -> mine -> never -> ask); returns it."""
        order = ("ask", "mine", "never")
        self.inspect = order[(order.index(self.inspect) + 1) % len(order)]
        if self._wake is not None:
            self._wake.set()
        return self.inspect

    def set_bills(self, policy: str) -> None:
        """Choose how our bills are picked when we pay (``bills``; ui.hidden.BILL_POLICIES).
        Raises ValueError for another value."""
        from ui.hidden import BILL_POLICIES

        if policy not in BILL_POLICIES:
            raise ValueError(f"unknown bill policy {policy!r}")
        self.bills = policy
        if self._wake is not None:
            self._wake.set()

    def _standing_bills(self, state: Any, seat: int) -> Any:
        from ui.hidden import bills_by_policy

        return bills_by_policy(state, seat, self.bills, self.view() if self.view is not None else None)

    async def _paced(self, state: Any, seat: int) -> Any:
        await asyncio.sleep(self.pace)
        return self._sent(self._bot(state, seat))

    def _sent(self, action: Any) -> Any:
        if action is not None and self.on_input is not None:
            self.on_input(action)
        return action

    def _bot(self, state: Any, seat: int) -> Any:
        # The node's policy for a bot seat (p2p.seat_answer): the edition's bot with our
        # private knowledge (engine.choose; the base bot in classico).
        return SeatAnswer(self.bot).bot(state, seat, self.view)

    async def _wait(self, state: Any, seat: int) -> Any:
        if self._wake is None:
            self._wake = asyncio.Event()
        self.deciding = True
        try:
            while True:
                self._wake.clear()
                if self.autoplay:
                    self._queue.clear()
                    return self._sent(self._bot(state, seat))
                if self._queue:
                    return self._sent(self._queue.popleft())
                if engine.pending(state).kind == "inspect_window" and not inspect_wanted(state, seat, self.inspect):
                    return None
                if engine.pending(state).kind == "pay_bills" and self.bills != "ask":
                    return self._sent(self._standing_bills(state, seat))
                await self._wake.wait()
        finally:
            self.deciding = False


def inspect_wanted(state: Any, seat: int, policy: str) -> bool:
    """Whether ``seat`` wants to be offered the open magnifier window of ``state`` under
    ``policy`` (HumanSeat.inspect): "ask" always; "never" never; "mine" when a payment in the
    window was made to ``seat`` or a card is being used (niente-e-come-sembra: "inspect_window",
    ``engine.observation.window_payments`` / ``card_in_use``)."""
    if policy == "ask" or not engine.has_hidden(state):
        return True
    if policy == "never":
        return False
    from engine.observation import card_in_use, window_payments

    return card_in_use(state) is not None or any(p.taker == seat for p in window_payments(state))
