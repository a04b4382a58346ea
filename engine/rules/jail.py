"""Jail (rulebook: "In prigione!", "Come si esce di prigione?").

* Sent to jail by the "In prigione!" square, a card, or a third double in one turn; no VIA!
  salary, the turn ends.
* Three ways out: pay the fine before rolling, then roll normally; use an "Uscite gratis di
  prigione" card (it goes back under its deck), then roll normally; roll a double: move by it
  and the turn ends (no extra roll). After the third failed roll: pay the fine and move by that
  roll ("pagate b50 e usate il totale ottenuto con l'ultimo lancio per avanzare").
* A jailed player still collects rent, bids, builds, mortgages and trades ("Mentre siete in
  prigione, potete comunque continuare a riscuotere gli affitti, partecipare alle aste, comprare
  case e alberghi, ipotecare e fare scambi") — the engine never checks ``jail`` for those.
"""
from __future__ import annotations

from ..errors import IllegalAction
from ..events import JailCardUsed, LeftJail, SentToJail
from ..state import P_ROLL
from .money import R_JAIL, transfer


def send_to_jail(s, ev, seat: int, why: str) -> None:
    """Token to the jail square, no salary; ``s.jail[seat] = 1`` (first try next turn)."""
    s.pos[seat] = s.ed.jail_square
    s.jail[seat] = 1
    s.doubles = 0
    ev.append(SentToJail(seat, why))


def _check_before_roll(s, seat: int) -> None:
    if s.phase != P_ROLL or s.current != seat:
        raise IllegalAction("only before your own roll", "not_your_roll")
    if not s.jail[seat]:
        raise IllegalAction("you are not in jail", "not_in_jail")


def pay_fine(s, ev, seat: int) -> None:
    """PayJailFine: pay the fine to the bank, leave jail, then roll normally."""
    _check_before_roll(s, seat)
    fine = s.ed.jail_fine
    if s.cash[seat] < fine:
        raise IllegalAction("not enough cash for the fine", "insufficient_cash")
    transfer(s, ev, seat, -1, fine, R_JAIL)
    s.jail[seat] = 0
    ev.append(LeftJail(seat, "fine"))


def use_card(s, ev, seat: int, deck: int) -> None:
    """UseJailCard: the held card goes to the bottom of its deck; leave jail, roll normally.
    (``engine.rules.cards.Deck.use_jail_card``; niente-e-come-sembra's card strategy plays it
    with ``faceup_cards.use_jail_card`` instead, an Imprevisti may be inspected first.)"""
    _check_before_roll(s, seat)
    for key in s.held[seat]:
        if key >> 8 == deck:
            break
    else:
        raise IllegalAction("you hold no jail card of that deck", "no_jail_card")
    s.held[seat].remove(key)
    s.decks[deck].append(key & 255)
    s.jail[seat] = 0
    ev.append(JailCardUsed(seat, deck))
    ev.append(LeftJail(seat, "card"))
