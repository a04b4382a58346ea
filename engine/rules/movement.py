"""Turns, dice, movement and landing (rulebook: "Al vostro turno", "Avete ottenuto un numero
doppio?", "VIA!", "LE CASELLE DEL TABELLONE", "Chi inizia per primo?").

* Who starts: every seat rolls two dice, highest total starts, ties re-roll among the tied
  ("Chi ha ottenuto il numero più alto inizia per primo"); all from one beacon. Play then goes
  in seat order ("in senso orario").
* A double lets the player roll again after resolving the square; a third double in one turn
  sends them to jail without moving ("per 3 volte di seguito ... andare direttamente in
  prigione").
* Passing or landing on VIA! pays the salary ("Se con la vostra pedina superate o andate a
  fermarvi sulla casella del VIA!, ritirate a200").
* Where a move ends in niente-e-come-sembra (engine.rules.niente_estate quotes the rulebook):
  an unowned station moves the player on to the next free property (``board_train``). A card
  square is the edition's card strategy (``Edition.cards.land``: engine.rules.cards.Deck waits
  for the draw; niente's face-up Imprevisti are offered, engine.rules.faceup_cards).
"""
from __future__ import annotations

from ..board import K_CARD, K_FREE, K_GOTOJAIL, K_STATION, K_STREET, K_TAX, K_UTILITY
from ..events import DiceRolled, FirstPlayerRolled, LeftJail, Moved, TurnStarted, maker
from ..state import (DICE_JAIL, DICE_MOVE, DICE_UTILITY, P_BUY, P_DICE, P_END_MOVE,
                     P_JAIL_MOVE, P_NEXT_TURN, P_ROLL)
from .deal import deal_contracts
from .house_rules import collect_pot, go_salary
from .jail import send_to_jail
from .money import R_JAIL, R_RENT, R_SALARY, R_TAX, charge, transfer
from .rent import lapse_claims, owe_rent, rent_of

# Fast constructors (events.maker) of the events of every turn.
_TurnStarted = maker(TurnStarted)
_DiceRolled = maker(DiceRolled)
_Moved = maker(Moved)

_SHARED_SEATS = 16
"""Seats with prebuilt TurnStarted/DiceRolled events (every edition allows at most 8)."""
_TURN_STARTED = tuple([TurnStarted(seat) for seat in range(_SHARED_SEATS)])
"""``_TURN_STARTED[seat] == TurnStarted(seat)``. Events are frozen and compared by value, so
one instance serves every turn: a tuple read, where building one runs events.maker's code,
interpreted even in the compiled engine (issue 14)."""
_DICE_ROLLED = tuple([DiceRolled(seat, d1, d2) for seat in range(_SHARED_SEATS)
                      for d1 in range(1, 7) for d2 in range(1, 7)])
"""``_DICE_ROLLED[seat * 36 + d1 * 6 + d2 - 7] == DiceRolled(seat, d1, d2)`` for dice 1..6."""


def first_player(s, ev, rng) -> None:
    """Chance "first_player": deal the contracts (editions that deal them, engine.rules.deal),
    then roll for every seat, re-roll ties among the tied."""
    deal_contracts(s, ev, rng)
    tied = [i for i in range(s.n)]
    while len(tied) > 1:
        totals = [rng.die() + rng.die() for _ in tied]
        ev.append(FirstPlayerRolled(tuple(tied), tuple(totals)))
        best = max(totals)
        tied = [seat for seat, t in zip(tied, totals) if t == best]
    start_turn(s, ev, tied[0])


def start_turn(s, ev, seat: int) -> None:
    """``seat`` begins a turn: phase "roll"."""
    s.current = seat
    s.turn += 1
    s.doubles = 0
    s.phase = P_ROLL
    ev.append(_TURN_STARTED[seat] if 0 <= seat < _SHARED_SEATS else _TurnStarted(seat))


def next_turn(s, ev) -> None:
    """Pass the dice to the next seat still in the game."""
    n = s.n
    seat = s.current
    for _ in range(n):
        seat = (seat + 1) % n
        if not s.out[seat]:
            break
    start_turn(s, ev, seat)


def end_move(s, ev) -> None:
    """Auto phase after a square is resolved: roll again on a double, else next turn."""
    c = s.current
    if s.doubles and not s.jail[c] and not s.out[c]:
        s.phase = P_ROLL
    else:
        s.phase = P_NEXT_TURN


def roll_dice(s, ev, seat: int) -> None:
    """RollDice: the roll is a chance step ("dice"); jailed players roll for doubles."""
    s.dice_for = DICE_JAIL if s.jail[seat] else DICE_MOVE
    s.phase = P_DICE


def apply_dice(s, ev, d1: int, d2: int) -> None:
    """Chance "dice": resolve the pending roll with dice d1, d2 (1..6 each)."""
    c = s.current
    s.d1 = d1
    s.d2 = d2
    # A prebuilt event for the usual dice (exact ints 1..6: a bool or another int type keeps
    # its own event, as before); movement.pxd types i as a C integer.
    if type(d1) is int and type(d2) is int and 1 <= d1 <= 6 and 1 <= d2 <= 6 and c < _SHARED_SEATS:
        i = c * 36 + d1 * 6 + d2 - 7
        ev.append(_DICE_ROLLED[i])
    else:
        ev.append(_DiceRolled(c, d1, d2))
    purpose = s.dice_for
    if purpose == DICE_UTILITY:
        # Card "società più vicina": new dice, pay the owner mult x the dice.
        sq = s.pos[c]
        owe_rent(s, ev, s.owner[sq], c, sq, s.mult * (d1 + d2))
        s.mult = 1
        s.phase = P_END_MOVE
        return
    if s.claims:
        lapse_claims(s, ev)
    if purpose == DICE_JAIL:
        if d1 == d2:
            s.jail[c] = 0
            s.doubles = 0
            ev.append(LeftJail(c, "doubles"))
            advance_by(s, ev, c, d1 + d2)
            return
        if s.jail[c] < s.ed.jail_max_turns:
            s.jail[c] += 1
            s.phase = P_NEXT_TURN
            return
        # Third failed try: pay the fine, then move by this roll.
        charge(s, ev, c, -1, s.ed.jail_third_fine, R_JAIL)
        s.phase = P_JAIL_MOVE
        return
    if d1 == d2:
        s.doubles += 1
        if s.doubles >= 3:
            send_to_jail(s, ev, c, "doubles")
            s.phase = P_NEXT_TURN
            return
    else:
        s.doubles = 0
    advance_by(s, ev, c, d1 + d2)


def jail_move(s, ev) -> None:
    """Auto phase: the third-try fine is paid; leave jail and move by the last roll — or, with
    ``Edition.jail_third_try_rerolls``, roll again (a "dice" chance step, an ordinary roll) and
    move by the new roll."""
    c = s.current
    s.jail[c] = 0
    s.doubles = 0
    ev.append(LeftJail(c, "third_turn"))
    if s.ed.jail_third_try_rerolls:
        s.dice_for = DICE_MOVE
        s.phase = P_DICE
        return
    advance_by(s, ev, c, s.d1 + s.d2)


def advance_by(s, ev, seat: int, steps: int) -> None:
    """Move forward ``steps`` squares, salary when passing/landing on VIA!, resolve the square."""
    frm = s.pos[seat]
    to = frm + steps
    nsq = s.tb.nsq
    if to >= nsq:
        to -= nsq
        transfer(s, ev, -1, seat, go_salary(s, to == 0), R_SALARY)
    s.pos[seat] = to
    ev.append(_Moved(seat, frm, to))
    land(s, ev, seat)


def move_to(s, ev, seat: int, target: int, salary: bool) -> None:
    """Move forward to ``target`` (cards); salary if VIA! is passed or reached and ``salary``."""
    frm = s.pos[seat]
    nsq = s.tb.nsq
    steps = (target - frm) % nsq or nsq
    if salary and frm + steps >= nsq:
        transfer(s, ev, -1, seat, s.ed.go_salary, R_SALARY)
    s.pos[seat] = target
    ev.append(_Moved(seat, frm, target))
    land(s, ev, seat)


def move_back(s, ev, seat: int, steps: int) -> None:
    """Move backwards ``steps`` squares (no salary), resolve the square."""
    frm = s.pos[seat]
    to = (frm - steps) % s.tb.nsq
    s.pos[seat] = to
    ev.append(_Moved(seat, frm, to))
    land(s, ev, seat)


def land(s, ev, seat: int) -> None:
    """Resolve the square ``seat`` stands on; sets the next phase."""
    sq = s.pos[seat]
    tb = s.tb
    k = tb.kind[sq]
    if k == K_STREET or k == K_STATION or k == K_UTILITY:
        o = s.owner[sq]
        if o < 0:
            # A card's multiplier ("pagate il doppio", "10 volte il lancio") is for an owned
            # square only: reaching an unowned one ends it, or the next rent anyone paid
            # would be multiplied (issue 12, item 1).
            s.mult = 1
            if k == K_STATION and s.ed.stations_move_to_next_free:
                board_train(s, ev, seat)
                return
            s.phase = P_BUY
            return
        if o != seat and not s.mort[sq]:
            if k == K_UTILITY and s.mult > 1:
                s.dice_for = DICE_UTILITY
                s.phase = P_DICE
                return
            owe_rent(s, ev, o, seat, sq, rent_of(s, sq, s.d1 + s.d2) * s.mult)
        s.mult = 1
        s.phase = P_END_MOVE
        return
    s.mult = 1
    if k == K_TAX:
        charge(s, ev, seat, -1, tb.amount[sq], R_TAX)
    elif k == K_CARD:
        s.ed.cards.land(s, ev, seat, tb.deck[sq])  # draw, or face-up cards (Edition.cards)
        return
    elif k == K_GOTOJAIL:
        send_to_jail(s, ev, seat, "square")
    elif k == K_FREE and s.pot:
        collect_pot(s, ev, seat)
    s.phase = P_END_MOVE


def next_free_property(s, seat: int) -> int:
    """The first unowned property ahead of ``seat`` (board order, wrapping), or -1: where an
    unowned station sends a player when the edition's trains move on (``board_train``), and
    niente-e-come-sembra's "next free property" card (engine.rules.faceup_cards)."""
    tb = s.tb
    p = s.pos[seat]
    nsq = tb.nsq
    for step in range(1, nsq):
        sq = (p + step) % nsq
        if tb.price[sq] > 0 and s.owner[sq] < 0:
            return sq
    return -1


def board_train(s, ev, seat: int) -> None:
    """Landing on an unowned station in an edition whose trains move on
    (``Edition.stations_move_to_next_free``, niente-e-come-sembra): move on to the next unowned
    property and resolve it (buy or auction); with none left nothing happens."""
    sq = next_free_property(s, seat)
    if sq < 0:
        s.phase = P_END_MOVE
        return
    move_to(s, ev, seat, sq, True)


__all__ = ["first_player", "start_turn", "next_turn", "end_move", "roll_dice", "apply_dice",
           "jail_move", "advance_by", "move_to", "move_back", "land", "R_RENT", "next_free_property",
           "board_train"]
