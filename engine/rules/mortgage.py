"""Mortgages (rulebook: "Come ipotecare le proprietà").

* Mortgage a property with no buildings in its colour set ("dovete innanzitutto vendere tutti
  gli edifici che sono stati costruiti sulle altre strade dello stesso colore") for its mortgage
  value; lift it for the mortgage value plus 10 % ("valore ipotecario aumentato del 10%"),
  rounded up to the euro (rule choice: ``Tables.lift``).
* A mortgaged property collects no rent (engine.rules.movement.land).
"""
from __future__ import annotations

from ..errors import IllegalAction
from ..events import MortgageLifted, PropertyMortgaged
from .money import R_LIFT, R_MORTGAGE, transfer


def _check_owner(s, seat: int, sq: int) -> None:
    if not 0 <= sq < s.tb.nsq or s.tb.price[sq] <= 0:
        raise IllegalAction("not a property", "not_a_property")
    if s.owner[sq] != seat:
        raise IllegalAction("you do not own that property", "not_owner")


def check_mortgage(s, seat: int, sq: int) -> None:
    """Raise IllegalAction unless ``seat`` may mortgage ``sq``."""
    _check_owner(s, seat, sq)
    if s.mort[sq]:
        raise IllegalAction("already mortgaged", "mortgaged")
    for m in s.tb.group_of[sq]:
        if s.level[m]:
            raise IllegalAction("sell the buildings of the set first", "has_buildings")


def mortgage(s, ev, seat: int, sq: int) -> None:
    """Mortgage: the bank pays the mortgage value."""
    check_mortgage(s, seat, sq)
    s.mort[sq] = 1
    transfer(s, ev, -1, seat, s.tb.mortgage[sq], R_MORTGAGE)
    ev.append(PropertyMortgaged(seat, sq))


def check_lift(s, seat: int, sq: int) -> None:
    """Raise IllegalAction unless ``seat`` may lift the mortgage of ``sq``."""
    _check_owner(s, seat, sq)
    if not s.mort[sq]:
        raise IllegalAction("not mortgaged", "not_mortgaged")
    if s.cash[seat] < s.tb.lift[sq]:
        raise IllegalAction("not enough cash", "insufficient_cash")
    for d in s.debts:
        if d[0] == seat:
            raise IllegalAction("pay your debt first", "in_debt")


def lift(s, ev, seat: int, sq: int) -> None:
    """LiftMortgage: pay mortgage + 10 % to the bank."""
    check_lift(s, seat, sq)
    s.mort[sq] = 0
    transfer(s, ev, seat, -1, s.tb.lift[sq], R_LIFT)
    ev.append(MortgageLifted(seat, sq))
