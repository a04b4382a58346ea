"""Payments and debts (rulebook: "AIUTO! NON RIESCO PIÙ A PAGARE!").

A payment the payer can afford happens at once. Otherwise it joins ``s.debts`` (head first) and
the game enters "raise_money" for the head debtor (``engine.game.advance``), who sells buildings,
mortgages or trades until the debt is paid (automatically, as soon as cash covers it) or
declares bankruptcy. The bank (-1) always pays ("la banca non fallisce mai").
"""
from __future__ import annotations

from ..events import MoneyPaid, PropertyBought, maker

_MoneyPaid = maker(MoneyPaid)  # fast constructors (events.maker): several events per step
_PropertyBought = maker(PropertyBought)

REASONS = ("salary", "tax", "card", "jail_fine", "rent", "purchase", "auction", "house", "sale",
           "mortgage", "lift", "mortgage_fee", "trade", "bankruptcy", "pot")
R_SALARY, R_TAX, R_CARD, R_JAIL, R_RENT, R_PURCHASE, R_AUCTION, R_HOUSE, R_SALE, R_MORTGAGE, \
    R_LIFT, R_FEE, R_TRADE, R_BANKRUPTCY, R_POT = range(len(REASONS))
REASONS += ("counterfeit",)
R_COUNTERFEIT = REASONS.index("counterfeit")
"""Niente-è-come-sembra: a fake bill found by an inspector, and the payer paying its value again."""


class Euro:
    """Money strategy of the editions that pay in plain euro (``Edition.money``; every edition
    but niente-e-come-sembra, whose ``engine.rules.banknotes.Banknotes`` moves the bills too).

    The flow never asks which edition it runs: it calls the edition's money object, chosen
    once when the edition is declared (engine/editions). Stateless; one shared instance
    :data:`EURO`."""

    __slots__ = ()
    name = "euro"
    """Short name, for messages and tests."""

    def new_hidden(self, ed, seats: int) -> list:
        """``State.nx`` of a new game: plain euro hides nothing (empty list)."""
        return []

    def transfer(self, s, ev, payer: int, payee: int, amount: int, reason: int) -> None:
        """Move ``amount`` euro from payer to payee (-1 = bank) and tell it (MoneyPaid); see
        :func:`transfer`."""
        if payer < 0:
            s.bank -= amount
        else:
            s.cash[payer] -= amount
        if payee < 0:
            s.bank += amount
            if s.opts[0] and (reason == R_TAX or reason == R_CARD):
                s.pot += amount  # free-parking pot option (engine.rules.house_rules)
        else:
            s.cash[payee] += amount
        ev.append(_MoneyPaid(payer, payee, amount, REASONS[reason]))


EURO = Euro()
"""The plain-euro money strategy (``Edition.money``'s default)."""


def transfer(s, ev, payer: int, payee: int, amount: int, reason: int) -> None:
    """Move ``amount`` euro from payer to payee (-1 = bank). No checks: callers check cash.
    Goes through the edition's money strategy (``s.ed.money``: :class:`Euro` or
    ``engine.rules.banknotes.Banknotes``, which moves the bills too)."""
    m = s.ed.money  # a local: money.pxd types it, so compiled, the call is a C method call
    m.transfer(s, ev, payer, payee, amount, reason)


def round10(x: int) -> int:
    """Round up to a multiple of 10 (the smallest bill; rulebook "arrotondate per eccesso")."""
    return -(-x // 10) * 10


def charge(s, ev, debtor: int, creditor: int, amount: int, reason: int, square: int = -1) -> None:
    """``debtor`` must pay ``amount`` to ``creditor`` (-1 = bank): now if the cash is there and no
    earlier debt waits, else queued in ``s.debts``. ``square`` >= 0 marks an auction price."""
    if amount <= 0:
        return
    if not s.debts and s.cash[debtor] >= amount:
        transfer(s, ev, debtor, creditor, amount, reason)
        if square >= 0:
            _give(s, ev, debtor, square, amount)
        return
    s.debts.append([debtor, creditor, amount, square, reason])


def _give(s, ev, seat: int, square: int, price: int) -> None:
    s.owner[square] = seat
    ev.append(_PropertyBought(seat, square, price))


def settle(s, ev) -> bool:
    """Pay queued debts head first while the head debtor can. True when none is left."""
    debts = s.debts
    while debts:
        debtor, creditor, amount, square, reason = debts[0]
        if s.cash[debtor] < amount:
            return False
        debts.pop(0)
        transfer(s, ev, debtor, creditor, amount, reason)
        if square >= 0:
            _give(s, ev, debtor, square, amount)
    return True


def owed_by(s, seat: int) -> int:
    """Total euro ``seat`` owes in the debt queue."""
    return sum(d[2] for d in s.debts if d[0] == seat)
