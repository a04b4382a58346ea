"""Bankruptcy (rulebook: "Se dopo aver raccolto questi contanti siete ancora in debito, siete
andati in bancarotta", "Dovete ancora del denaro a qualche altro giocatore?", "Dovete ancora del
denaro alla Banca?").

* DeclareBankruptcy is legal only for the debtor in "raise_money" whose cash plus everything
  the bank would still pay (buildings at half price, mortgage values) cannot cover what they
  owe (rule choice: trades are not counted, nobody can be forced to accept one).
* Buildings go back to the bank at half price first (they cannot pass between players: "Case e
  alberghi non possono essere venduti o scambiati con gli altri giocatori").
* Owed to a player: all cash, all properties (mortgaged ones too) and the jail cards pass to
  the creditor ("Consegnategli tutte le vostre proprietà ipotecate e tutte le carte Uscite
  gratis di prigione"); the creditor then chooses, for each mortgaged one, to lift it or to pay
  10 % (pending "mortgage_choice", action SettleMortgages).
* Owed to the bank: cash to the bank, mortgages cancelled, every property auctioned one at a
  time ("devono essere messe immediatamente all'asta, una alla volta"), jail cards under their
  decks ("Rimettete eventuali carte Uscite gratis di prigione in fondo al mazzo").
* With several creditors (Imprevisti "pagate 50 a ogni giocatore") the estate goes to the
  creditor of the debt at the head of the queue (rule choice, protocol.md part E).
* The last player not bankrupt wins ("fino a quando resta un solo giocatore, che vince").
"""
from __future__ import annotations

from ..errors import IllegalAction
from ..events import GameWon, PropertyTransferred, WentBankrupt
from ..state import O_NO_AUCTIONS, P_INHERIT, P_OVER, P_RAISE
from .auction import drop_bidder, start_auctions
from .building import liquidation_value, sell_all
from .money import R_BANKRUPTCY, R_FEE, R_LIFT, charge, owed_by, transfer
from .trade import void_offers


def check_declare(s, seat: int) -> None:
    """Raise IllegalAction unless ``seat`` may declare bankruptcy now."""
    if s.phase != P_RAISE or not s.debts or s.debts[0][0] != seat:
        raise IllegalAction("you are not raising money for a debt", "not_in_debt")
    if s.cash[seat] + liquidation_value(s, seat) >= owed_by(s, seat):
        raise IllegalAction("you can still pay by selling or mortgaging", "can_still_pay")


def declare(s, ev, seat: int) -> None:
    """DeclareBankruptcy: hand the estate to the creditor (or the bank) and leave the game."""
    check_declare(s, seat)
    creditor = s.debts[0][1]
    s.phase = s.resume.pop()
    go_bankrupt(s, ev, seat, creditor)


def go_bankrupt(s, ev, seat: int, creditor: int) -> None:
    """Eliminate ``seat``; its estate goes to ``creditor`` (-1 = bank). Sets the next phase."""
    # The edition's estate and cards first (niente-e-come-sembra: the bank buys every deed
    # back, kept cards go to the creditor; engine.rules.estate.HotelsOnly, faceup_cards.FaceUp).
    s.ed.estate.before_bankruptcy(s, ev, seat)
    s.ed.cards.give_up(s, ev, seat, creditor)
    if s.ed.bankruptcy_to_bank_only:
        # Editrice Giochi / Fabrianopoli: "tutto ciò che egli possiede passa alla Banca che paga
        # integralmente il creditore" — every player it owed money is paid in full.
        for d in s.debts:
            if d[0] == seat and d[1] >= 0 and not s.out[d[1]]:
                transfer(s, ev, -1, d[1], d[2], R_BANKRUPTCY)
        creditor = -1
    sell_all(s, ev, seat)
    if creditor >= 0 and s.out[creditor]:
        creditor = -1
    cash = s.cash[seat]
    if cash:
        transfer(s, ev, seat, creditor, cash, R_BANKRUPTCY)
    mine = [sq for sq, o in enumerate(s.owner) if o == seat]
    # out[seat] = k: the k-th seat to go out (standings rank the bankrupt by it).
    s.out[seat] = 1 + sum(1 for o in s.out if o)
    s.debts = [d for d in s.debts if d[0] != seat and d[1] != seat]
    s.claims = [c for c in s.claims if c[0] != seat and c[1] != seat]
    drop_bidder(s, ev, seat)
    void_offers(s, ev)
    ev.append(WentBankrupt(seat, creditor))
    cards = s.held[seat]
    s.held[seat] = []
    if creditor >= 0:
        for sq in mine:
            s.owner[sq] = creditor
            ev.append(PropertyTransferred(seat, creditor, sq))
        s.held[creditor] = sorted(s.held[creditor] + cards)
    else:
        for k in cards:
            s.decks[k >> 8].append(k & 255)
        for sq in mine:
            s.owner[sq] = -1
            s.mort[sq] = 0
    alive = [i for i in range(s.n) if not s.out[i]]
    if len(alive) == 1:
        _game_over(s, ev, alive[0])
        return
    if creditor >= 0:
        mortgaged = [sq for sq in mine if s.mort[sq]]
        if mortgaged:
            s.resume.append(s.phase)
            s.inherit = [creditor] + mortgaged
            s.phase = P_INHERIT
    elif mine and not s.opts[O_NO_AUCTIONS]:
        start_auctions(s, mine, s.phase)


def _game_over(s, ev, seat: int) -> None:
    s.winner = seat
    s.phase = P_OVER
    s.resume = []
    s.debts = []
    s.claims = []
    s.offers = []
    s.auc_queue = []
    s.auc_sq = -1
    s.auc_high = 0
    s.auc_bidder = -1
    s.auc_in = [0] * s.n
    s.auc_lot = 0
    s.auc_target = [-1] * s.n
    s.step_bids = []
    s.inherit = []
    ev.append(GameWon(seat))


def check_settle(s, seat: int, lift) -> int:
    """Raise IllegalAction unless ``seat`` may settle its inherited mortgages lifting ``lift``;
    returns the euro due."""
    if s.phase != P_INHERIT or s.inherit[0] != seat:
        raise IllegalAction("no inherited mortgages to settle", "not_inheriting")
    tb = s.tb
    squares = s.inherit[1:]
    total = 0
    for sq in lift:
        if sq not in squares:
            raise IllegalAction("not an inherited mortgaged property", "bad_lift")
    for sq in squares:
        total += tb.lift[sq] if sq in lift else tb.fee[sq]
    if lift and total > s.cash[seat]:
        raise IllegalAction("not enough cash to lift those", "insufficient_cash")
    return total


def settle_mortgages(s, ev, seat: int, lift) -> None:
    """SettleMortgages: lift the listed properties, pay 10 % on the others (a debt if short)."""
    check_settle(s, seat, lift)
    tb = s.tb
    squares = s.inherit[1:]
    s.inherit = []
    s.phase = s.resume.pop()
    for sq in squares:
        if sq in lift:
            s.mort[sq] = 0
            transfer(s, ev, seat, -1, tb.lift[sq], R_LIFT)
    fees = sum(tb.fee[sq] for sq in squares if sq not in lift)
    charge(s, ev, seat, -1, fees, R_FEE)
