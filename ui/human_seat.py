"""The human's seat: what a person playing in the UI answers at each decision step (issue 13:
split from ui/play.py, whose drivers take their human decisions from it).

A :class:`HumanSeat` answers each decision step of its seat: an action queued by the UI, or —
when the game waits for our seat — an awaitable that resolves when the UI queues one. With
*autoplay* on, the bot decides for the player (``p2p.seat_answer.SeatAnswer``, the same policy a
bot peer uses, with our private view). Rent is claimed automatically (it lapses when the next
player rolls, rulebook "Se invece non lo fa prima che il giocatore successivo abbia lanciato i
dadi"), which a person would otherwise miss in a fast game. niente-e-come-sembra: the
magnifier window and the choice of bills follow the player's standing policies.

A queued answer to a trade offer (AcceptTrade/RejectTrade, clicked on the board the player saw)
is sent only while that offer is still open to us with the terms it had then: one the proposer
withdrew or replaced before our seat was next asked is dropped, not sent (RV16-D F2: sent, it
answers no open offer, the engine refuses it, and the turn clock counts it as our held step,
protocol.md §C8.3 'Own decision across steps'; an AcceptTrade would accept terms not seen).
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, Callable

import engine
from engine.observation import Offer, offer
from p2p.seat_answer import SeatAnswer

__all__ = ["HumanSeat", "inspect_wanted"]

_NOTHING = object()  # HumanSeat._pop_queued: no queued action left (None is one: "pass")


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
        #: Queued ``(action, offer)``: ``offer`` (engine.observation.Offer) is the offer an
        #: AcceptTrade/RejectTrade answers as it was open to us when it was queued, or None.
        self._queue: deque = deque()
        #: The offers open to our seat at the last ``decide`` (proposer -> Offer): the board
        #: the player answers on.
        self._seen: dict[int, Offer] = {}
        #: Queued answers dropped because their offer closed or changed (RV16-D F2).
        self.stale_dropped = 0
        self._wake: asyncio.Event | None = None
        #: Our private view of hidden statuses (the driver sets it; None: nothing known).
        self.view: Callable[[], dict] | None = None
        #: True while the game waits for this seat's decision (the UI shows "your move").
        self.deciding = False
        #: Called with each action handed to the game (the driver queues an OwnInput).
        self.on_input: Callable[[Any], None] | None = None

    def submit(self, action: Any, shown: Any = None) -> None:
        """Queue ``action`` (an engine Action) for our next decision step. An answer to a trade
        offer is kept with the offer it answers as the player saw it: in ``shown`` (the engine
        state the dialog showed), else as last seen open to us (see the module doc). Before, a
        dialog left open while the proposer withdrew and re-offered answered the new terms
        (RV16S-B F1)."""
        seen = None
        if _is_answer(action):
            offers = self._seen if shown is None else _offers_to(shown, self._seat)
            seen = offers.get(action.proposer)
        self._queue.append((action, seen))
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
        self._seat, self._seen = seat, _offers_to(state, seat)
        legal = engine.legal_actions(state, seat)
        if self.auto_claim:
            for a in legal:
                if type(a).__name__ == "ClaimRent":
                    return a
        queued = self._pop_queued()
        if queued is not _NOTHING:
            return self._sent(queued)
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

    def _pop_queued(self) -> Any:
        """The first queued action still meant for the state being decided (a queued None is
        one: "pass"), or ``_NOTHING``. Answers whose offer is no longer open to us there
        (``_seen``, set by ``decide``) with the terms it had when queued are dropped and counted
        in ``stale_dropped``."""
        while self._queue:
            action, seen = self._queue.popleft()
            if not _is_answer(action):
                return action
            now = self._seen.get(action.proposer)
            if now is not None and (seen is None or seen == now):
                return action
            self.stale_dropped += 1
        return _NOTHING

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
                queued = self._pop_queued()
                if queued is not _NOTHING:
                    return self._sent(queued)
                if engine.pending(state).kind == "inspect_window" and not inspect_wanted(state, seat, self.inspect):
                    return None
                if engine.pending(state).kind == "pay_bills" and self.bills != "ask":
                    return self._sent(self._standing_bills(state, seat))
                await self._wake.wait()
        finally:
            self.deciding = False


def _is_answer(action: Any) -> bool:
    """True for an AcceptTrade or RejectTrade (an answer to one open offer)."""
    return isinstance(action, (engine.actions.AcceptTrade, engine.actions.RejectTrade))


def _offers_to(state: Any, seat: int) -> dict[int, Offer]:
    """The offers open to ``seat`` in ``state``: proposer -> Offer (engine.rules.trade keeps at
    most one open offer per proposer)."""
    return {o.proposer: o for o in map(offer, state.offers) if o.partner == seat}


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
