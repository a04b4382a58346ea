"""Trades between players (rulebook: "COME FARE AFFARI CON GLI ALTRI GIOCATORI").

* At any time players may exchange properties, money and "Uscite gratis di prigione" cards
  ("Le proprietà possono essere scambiate con denaro, con altre proprietà e/o con carte Uscite
  gratis di prigione"). Classico-like editions name the jail cards by deck; niente-e-come-sembra
  names any kept card by its key ``deck*256+card`` ("riuscite a comprarla da un altro
  giocatore"), the receiver still holding at most one Imprevisti ("una sola carta Imprevisti
  alla volta"); a traded card is not being used, so it is not inspected. Which cards may be
  traded and how they move is the edition's card strategy (``Edition.cards``:
  engine.rules.cards.Deck, engine.rules.faceup_cards.FaceUp).
* No street may change hands while its colour set has buildings ("è obbligatorio vendere alla
  Banca tutte le case o gli alberghi ... edificati sulle altre strade dello stesso colore").
* A mortgaged property received: the new owner at once either lifts it (mortgage + 10 %) or
  keeps it paying 10 % ("cancellare l'ipoteca ... oppure mantenere l'ipoteca (pagando subito
  alla Banca il 10% del valore ipotecario)"). Each side names in advance which received
  mortgaged properties it lifts (``lift`` of ProposeTrade / AcceptTrade); the fees are paid when
  the trade is accepted, and the trade is refused if either side could not pay its share.

Lockstep form: ProposeTrade opens (or replaces) the proposer's single offer; the partner answers
AcceptTrade / RejectTrade in any later decision step; the proposer may WithdrawTrade. An offer
is checked again when accepted (ownership, buildings, cash may have changed).
"""
from __future__ import annotations

from ..errors import IllegalAction
from ..events import PropertyTransferred, TradeClosed, TradeProposed
from .money import R_FEE, R_LIFT, R_TRADE, transfer

# Offer layout in s.offers.
O_PROPOSER, O_PARTNER, O_GIVE, O_GET, O_GIVE_CASH, O_GET_CASH, O_GIVE_CARDS, O_GET_CARDS, \
    O_LIFT = range(9)


def _check_squares(s, squares, holder: int) -> None:
    tb = s.tb
    for sq in squares:
        if not 0 <= sq < tb.nsq or tb.price[sq] <= 0:
            raise IllegalAction("not a property", "not_a_property")
        if s.owner[sq] != holder:
            raise IllegalAction("property not owned by the giving side", "not_owner")
        for m in tb.group_of[sq]:
            if s.level[m]:
                raise IllegalAction("sell the buildings of the set first", "has_buildings")


def _costs(s, received, lift) -> int:
    """Euro the receiver of ``received`` pays the bank for its mortgaged properties."""
    tb = s.tb
    total = 0
    for sq in received:
        if s.mort[sq]:
            total += tb.lift[sq] if sq in lift else tb.fee[sq]
    return total


def check_offer(s, o) -> tuple[int, int]:
    """Raise IllegalAction unless offer ``o`` can be carried out now; returns the euro the
    proposer and the partner pay the bank in mortgage costs (without the partner's lift)."""
    p, q = o[O_PROPOSER], o[O_PARTNER]
    if not 0 <= q < s.n or q == p or s.out[q]:
        raise IllegalAction("no such partner", "bad_partner")
    if not (o[O_GIVE] or o[O_GET] or o[O_GIVE_CASH] or o[O_GET_CASH] or o[O_GIVE_CARDS]
            or o[O_GET_CARDS]):
        raise IllegalAction("empty trade", "empty_trade")
    if o[O_GIVE_CASH] < 0 or o[O_GET_CASH] < 0:
        raise IllegalAction("negative money", "bad_amount")
    _check_squares(s, o[O_GIVE], p)
    _check_squares(s, o[O_GET], q)
    # Which cards may change hands, and how they are named: the edition's card strategy.
    s.ed.cards.check_trade(s, p, q, o[O_GIVE_CARDS], o[O_GET_CARDS])
    for sq in o[O_LIFT]:
        if sq not in o[O_GET] or not s.mort[sq]:
            raise IllegalAction("can only lift a mortgaged property you receive", "bad_lift")
    return _costs(s, o[O_GET], o[O_LIFT]), 0


def propose(s, ev, seat: int, a) -> None:
    """ProposeTrade: open (or replace) ``seat``'s offer."""
    u = s.ed.money_unit  # niente: only whole banknotes change hands (amounts rounded up)
    o = [seat, a.partner, list(a.give_squares), list(a.get_squares), -(-a.give_cash // u) * u,
         -(-a.get_cash // u) * u, list(a.give_cards), list(a.get_cards), list(a.lift)]
    fee_p, _ = check_offer(s, o)
    if s.cash[seat] < o[O_GIVE_CASH] + fee_p:
        raise IllegalAction("you cannot pay your side", "insufficient_cash")
    s.offers = [x for x in s.offers if x[O_PROPOSER] != seat]
    s.offers.append(o)
    s.offers.sort(key=lambda x: x[O_PROPOSER])
    ev.append(TradeProposed(seat, a.partner))


def _find(s, proposer: int, partner: int):
    for o in s.offers:
        if o[O_PROPOSER] == proposer and o[O_PARTNER] == partner:
            return o
    raise IllegalAction("no such offer", "no_such_offer")


def check_accept(s, seat: int, proposer: int, lift) -> tuple[list, int, int]:
    """Raise IllegalAction unless ``seat`` may accept ``proposer``'s offer with ``lift``."""
    o = _find(s, proposer, seat)
    fee_p, _ = check_offer(s, o)
    for sq in lift:
        if sq not in o[O_GIVE] or not s.mort[sq]:
            raise IllegalAction("can only lift a mortgaged property you receive", "bad_lift")
    fee_q = _costs(s, o[O_GIVE], lift)
    if s.cash[proposer] - o[O_GIVE_CASH] + o[O_GET_CASH] < fee_p or \
            s.cash[proposer] < o[O_GIVE_CASH]:
        raise IllegalAction("the proposer cannot pay its side", "insufficient_cash")
    if s.cash[seat] - o[O_GET_CASH] + o[O_GIVE_CASH] < fee_q or s.cash[seat] < o[O_GET_CASH]:
        raise IllegalAction("you cannot pay your side", "insufficient_cash")
    return o, fee_p, fee_q


def accept(s, ev, seat: int, proposer: int, lift) -> None:
    """AcceptTrade: carry out the offer."""
    o, _, _ = check_accept(s, seat, proposer, lift)
    s.offers.remove(o)
    p, q = proposer, seat
    if o[O_GIVE_CASH]:
        transfer(s, ev, p, q, o[O_GIVE_CASH], R_TRADE)
    if o[O_GET_CASH]:
        transfer(s, ev, q, p, o[O_GET_CASH], R_TRADE)
    _move_squares(s, ev, o[O_GIVE], p, q, lift)
    _move_squares(s, ev, o[O_GET], q, p, o[O_LIFT])
    cards = s.ed.cards  # engine.rules.cards.Deck (jail cards by deck) or FaceUp (card keys)
    for d in o[O_GIVE_CARDS]:
        cards.give(s, ev, d, p, q)
    for d in o[O_GET_CARDS]:
        cards.give(s, ev, d, q, p)
    ev.append(TradeClosed(p, q, "accepted"))
    void_offers(s, ev)


def _move_squares(s, ev, squares, frm: int, to: int, lift) -> None:
    tb = s.tb
    for sq in squares:
        s.owner[sq] = to
        ev.append(PropertyTransferred(frm, to, sq))
        if s.mort[sq]:
            if sq in lift:
                s.mort[sq] = 0
                transfer(s, ev, to, -1, tb.lift[sq], R_LIFT)
            else:
                transfer(s, ev, to, -1, tb.fee[sq], R_FEE)


def reject(s, ev, seat: int, proposer: int) -> None:
    """RejectTrade: the partner refuses the offer."""
    o = _find(s, proposer, seat)
    s.offers.remove(o)
    ev.append(TradeClosed(proposer, seat, "rejected"))


def withdraw(s, ev, seat: int) -> None:
    """WithdrawTrade: the proposer takes its offer back."""
    for o in s.offers:
        if o[O_PROPOSER] == seat:
            s.offers.remove(o)
            ev.append(TradeClosed(seat, o[O_PARTNER], "withdrawn"))
            return
    raise IllegalAction("you have no open offer", "no_such_offer")


def void_offers(s, ev) -> None:
    """Drop offers that involve a bankrupt seat."""
    keep = []
    for o in s.offers:
        if s.out[o[O_PROPOSER]] or s.out[o[O_PARTNER]]:
            ev.append(TradeClosed(o[O_PROPOSER], o[O_PARTNER], "void"))
        else:
            keep.append(o)
    s.offers = keep
