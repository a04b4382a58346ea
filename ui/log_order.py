"""In what order the game log tells a batch of engine events (ui.narrate.Narrator.lines).

The engine tells events in the order it makes them; a few read better moved: an accepted trade
before the transfers it caused (:func:`trade_first`), the outcome of a rent due at a turn's start
before that turn's line (:func:`pull_outcomes`, :func:`rent_key`), a niente payment's bills and
magnifier window with it (:func:`of_window`), and a rent's debt until it is paid or its debtor
goes bankrupt (:func:`settles_debt`). Functions over event lists, no text and no state of their
own: :func:`trade_first` and :func:`pull_outcomes` reorder the list they are given in place, and
:func:`settles_debt` removes the settled debt from the set it is given.
"""

from __future__ import annotations

from typing import Any


def rent_key(e: Any) -> tuple[int, int] | None:
    """(creditor, debtor) of an event that settles a rent claim: its payment, its lapse, the debt
    it opened; None for any other event."""
    k = type(e).__name__
    if k == "MoneyPaid" and e.reason == "rent":
        return (e.payee, e.payer)
    if k in ("RentLapsed", "DebtOpened"):
        return (e.creditor, e.debtor)
    return None


#: niente events after a payment that wait for a later step: the payer's choice of bills
#: (engine.rules.bill_choice), a magnifier window (engine.rules.counterfeit).
WAITS = frozenset(("BillChoiceOpened", "InspectionOpened"))


def of_window(e: Any) -> bool:
    """True for a niente event that follows a payment with bills: bills move, the payer chooses
    them, a magnifier window opens on the payment, a bill is found genuine or fake, the fake's
    payer pays again (engine.rules.bill_choice, engine.rules.counterfeit)."""
    k = type(e).__name__
    if k == "MoneyPaid":
        return e.reason == "counterfeit"
    if k == "InspectionOpened":
        return e.kind != "card"
    return k in ("BillsMoved", "BillChoiceOpened", "BillsChosen", "BillInspected")


def settles_debt(e: Any, debts: set) -> bool:
    """True if ``e`` ends one of ``debts`` ((creditor, debtor) of a held rent whose claim opened a
    debt), which it then removes: the rent's payment (engine.rules.money.settle) or the debtor's
    bankruptcy (engine.rules.bankruptcy.go_bankrupt)."""
    key = rent_key(e)
    if type(e).__name__ == "MoneyPaid" and key in debts:
        debts.discard(key)
        return True
    if type(e).__name__ == "WentBankrupt":
        gone = {d for d in debts if d[1] == e.seat}
        debts -= gone
        return bool(gone)
    return False


def window_follows(queue: list, start: int) -> bool:
    """True if ``queue[start]`` follows a payment with bills (:func:`of_window`)."""
    return start < len(queue) and of_window(queue[start])


#: MoneyPaid reasons of an accepted trade (engine.rules.trade.accept: cash, mortgage lift or fee).
_TRADE_PAYMENTS = frozenset(("trade", "lift", "mortgage_fee"))


def trade_first(queue: list) -> None:
    """Move each accepted ``TradeClosed`` before the transfers it caused: the engine tells the
    cash, the properties (with their mortgage lift or fee) and the bills first
    (engine.rules.trade.accept), the log says "Anna accepts the trade ..." before them."""
    for j, e in enumerate(queue):
        if type(e).__name__ != "TradeClosed" or e.outcome != "accepted":
            continue
        seats = {e.proposer, e.partner, -1}
        k = j
        while k > 0 and _trade_effect(queue[k - 1], seats):
            k -= 1
        queue.insert(k, queue.pop(j))


def _trade_effect(e: Any, seats: set) -> bool:
    """True for an event an accepted trade between ``seats`` (and the bank, -1) makes."""
    k = type(e).__name__
    if k == "MoneyPaid":
        return e.reason in _TRADE_PAYMENTS and {e.payer, e.payee} <= seats
    if k in ("PropertyTransferred", "BillsMoved"):
        return {e.frm, e.to} <= seats
    return False


def pull_outcomes(queue: list, start: int, keys: set) -> None:
    """Move to ``queue[start]`` (in their order) the first event settling each rent of ``keys``
    (``rent_key``) found in ``queue[start:]`` before the next TurnStarted."""
    found: list[int] = []
    seen: set = set()
    for j in range(start, len(queue)):
        if type(queue[j]).__name__ == "TurnStarted":
            break
        key = rent_key(queue[j])
        if key in keys and key not in seen:
            seen.add(key)
            found.append(j)
    moved = [queue[j] for j in found]
    for j in reversed(found):
        del queue[j]
    queue[start:start] = moved


__all__ = ["WAITS", "of_window", "pull_outcomes", "rent_key", "settles_debt", "trade_first",
           "window_follows"]
