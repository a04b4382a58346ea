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


def _owner_error(s, seat: int, sq: int) -> tuple[str, str] | None:
    if not 0 <= sq < s.tb.nsq or s.tb.price[sq] <= 0:
        return ("not_a_property", "not a property")
    if s.owner[sq] != seat:
        return ("not_owner", "you do not own that property")
    return None


def mortgage_error(s, seat: int, sq: int) -> tuple[str, str] | None:
    """(code, reason) why ``seat`` may not mortgage ``sq`` now, or None."""
    if s.nx:  # niente-e-come-sembra: no mortgages; Mortgage = sell back to the bank (a debtor)
        from .niente_estate import sell_property_error
        return sell_property_error(s, seat, sq)
    err = _owner_error(s, seat, sq)
    if err:
        return err
    if s.mort[sq]:
        return ("mortgaged", "already mortgaged")
    for m in s.tb.group_of[sq]:
        if s.level[m]:
            return ("has_buildings", "sell the buildings of the set first")
    return None


def check_mortgage(s, seat: int, sq: int) -> None:
    """Raise IllegalAction unless ``seat`` may mortgage ``sq``."""
    err = mortgage_error(s, seat, sq)
    if err:
        raise IllegalAction(err[1], err[0])


def mortgage(s, ev, seat: int, sq: int) -> None:
    """Mortgage: the bank pays the mortgage value."""
    if s.nx:  # niente: the bank buys the property back at its price (engine.rules.niente_estate)
        from .niente_estate import sell_property
        sell_property(s, ev, seat, sq)
        return
    check_mortgage(s, seat, sq)
    s.mort[sq] = 1
    transfer(s, ev, -1, seat, s.tb.mortgage[sq], R_MORTGAGE)
    ev.append(PropertyMortgaged(seat, sq))


def lift_error(s, seat: int, sq: int) -> tuple[str, str] | None:
    """(code, reason) why ``seat`` may not lift the mortgage of ``sq`` now, or None."""
    if s.nx:
        return ("no_mortgages", "there are no mortgages in this edition")
    err = _owner_error(s, seat, sq)
    if err:
        return err
    if not s.mort[sq]:
        return ("not_mortgaged", "not mortgaged")
    if s.cash[seat] < s.tb.lift[sq]:
        return ("insufficient_cash", "not enough cash")
    for d in s.debts:
        if d[0] == seat:
            return ("in_debt", "pay your debt first")
    return None


def check_lift(s, seat: int, sq: int) -> None:
    """Raise IllegalAction unless ``seat`` may lift the mortgage of ``sq``."""
    err = lift_error(s, seat, sq)
    if err:
        raise IllegalAction(err[1], err[0])


def lift(s, ev, seat: int, sq: int) -> None:
    """LiftMortgage: pay mortgage + 10 % to the bank."""
    check_lift(s, seat, sq)
    s.mort[sq] = 0
    transfer(s, ev, seat, -1, s.tb.lift[sq], R_LIFT)
    ev.append(MortgageLifted(seat, sq))
