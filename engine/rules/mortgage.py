"""Mortgages (rulebook: "Come ipotecare le proprietà").

* Mortgage a property with no buildings in its colour set ("dovete innanzitutto vendere tutti
  gli edifici che sono stati costruiti sulle altre strade dello stesso colore") for its mortgage
  value; lift it for the mortgage value plus 10 % ("valore ipotecario aumentato del 10%"),
  rounded up to the euro (rule choice: ``Tables.lift``).
* A mortgaged property collects no rent (engine.rules.movement.land).
"""
from __future__ import annotations

from ..errors import refuse
from ..events import MortgageLifted
from .money import R_LIFT, transfer


def mortgage_error(s, seat: int, sq: int) -> tuple[str, str] | None:
    """(code, reason) why ``seat`` may not mortgage ``sq`` now, or None (the edition's estate
    strategy, engine.rules.estate; niente: Mortgage = sell back to the bank, only in debt)."""
    return s.ed.estate.mortgage_error(s, seat, sq)


def check_mortgage(s, seat: int, sq: int) -> None:
    """Raise IllegalAction unless ``seat`` may mortgage ``sq``."""
    refuse(s.ed.estate.mortgage_error(s, seat, sq))


def mortgage(s, ev, seat: int, sq: int) -> None:
    """Mortgage: the bank pays the mortgage value (niente: buys the property back)."""
    s.ed.estate.mortgage(s, ev, seat, sq)


def lift_error(s, seat: int, sq: int) -> tuple[str, str] | None:
    """(code, reason) why ``seat`` may not lift the mortgage of ``sq`` now, or None."""
    return s.ed.estate.lift_error(s, seat, sq)


def check_lift(s, seat: int, sq: int) -> None:
    """Raise IllegalAction unless ``seat`` may lift the mortgage of ``sq``."""
    refuse(lift_error(s, seat, sq))


def lift(s, ev, seat: int, sq: int) -> None:
    """LiftMortgage: pay mortgage + 10 % to the bank."""
    check_lift(s, seat, sq)
    s.mort[sq] = 0
    transfer(s, ev, seat, -1, s.tb.lift[sq], R_LIFT)
    ev.append(MortgageLifted(seat, sq))
