"""Rent (rulebook: "Proprietà già possedute da qualche altro giocatore", "Collezionate serie
complete", contracts; stations and utilities: regole-monopoly-guida-web.txt).

* Streets: printed rent; double on a complete set with no buildings; a mortgaged street of the
  set does not cancel the double rent on the others ("è sempre possibile riscuotere affitti di
  importo superiore su tutte le altre strade ... che non sono state ipotecate"); with buildings
  the house/hotel rent.
* Stations: 25/50/100/200 by stations owned (mortgaged ones count, same passage).
* Utilities: 4x / 10x the dice of the roll that brought the player there.
* No rent on a mortgaged property.
* ``rent_must_be_claimed``: the rent becomes a claim the owner must make (ClaimRent) before the
  next player rolls ("Se invece non lo fa prima che il giocatore successivo abbia lanciato i
  dadi, non dovete pagargli più nulla!").
"""
from __future__ import annotations

from ..board import K_STATION, K_STREET, K_UTILITY
from ..errors import IllegalAction
from ..events import RentDue, RentLapsed, maker
from .money import R_RENT, charge

_RentDue = maker(RentDue)  # fast constructor (events.maker)


def rent_of(s, sq: int, dice_total: int) -> int:
    """Rent in euro for landing on ``sq`` (owned, not mortgaged) with ``dice_total`` rolled."""
    tb = s.tb
    k = tb.kind[sq]
    o = s.owner[sq]
    owner = s.owner
    if k == K_STREET:
        lv = s.level[sq]
        if lv:
            return tb.rent[sq][lv + 1]
        for m in tb.group_of[sq]:
            if owner[m] != o:
                return tb.rent[sq][0]
        return tb.rent[sq][1]
    cnt = 0
    for m in tb.group_of[sq]:
        if owner[m] == o:
            cnt += 1
    if k == K_STATION:
        return s.ed.station_rents[cnt - 1]
    if k == K_UTILITY:
        return s.ed.utility_multipliers[cnt - 1] * dice_total
    return 0


def owe_rent(s, ev, creditor: int, debtor: int, sq: int, amount: int) -> None:
    """Rent is due: a claim (classico) or an immediate payment (editions without the switch)."""
    ev.append(_RentDue(creditor, debtor, sq, amount))
    if s.ed.rent_must_be_claimed:
        s.claims.append([creditor, debtor, sq, amount, s.turn])
    else:
        charge(s, ev, debtor, creditor, amount, R_RENT)


def lapse_claims(s, ev) -> None:
    """Called when a roll's dice are applied: claims from earlier turns lapse."""
    if s.claims:
        keep = []
        for c in s.claims:
            if c[4] == s.turn:
                keep.append(c)
            else:
                ev.append(RentLapsed(c[0], c[1], c[2]))
        s.claims = keep


def claim_rent(s, ev, seat: int, sq: int, debtor: int) -> None:
    """ClaimRent: the owner asks for an open claim; the debtor pays or must raise money."""
    for i, c in enumerate(s.claims):
        if c[0] == seat and c[1] == debtor and c[2] == sq:
            break
    else:
        raise IllegalAction("no rent is claimable from that player for that square",
                            "no_such_claim")
    del s.claims[i]
    charge(s, ev, debtor, seat, c[3], R_RENT)


def legal_claims(s, seat: int) -> list[tuple[int, int]]:
    """(square, debtor) pairs ``seat`` may claim now, sorted."""
    return sorted((c[2], c[1]) for c in s.claims if c[0] == seat)
