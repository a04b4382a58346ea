"""Buying and auctions (rulebook: "Proprietà non possedute da alcun giocatore").

* Landing on an unowned property: buy it at the printed price, or decline and it is auctioned
  at once ("Non volete comprarla? Il Banchiere deve metterla all'asta").
* Auction: open to every player still in the game, including the one who declined ("tutti i
  giocatori vi possono partecipare"); the first bid is at least ``auction_open`` (€10), every
  later one at least ``auction_min_raise`` (€1) over the high bid ("Le offerte partono da a10 ...
  aumentando l'offerta precedente di un minimo di a1"); it ends when nobody raises ("termina
  l'asta quando non c'è più alcun giocatore disposto a rilanciare"); the high bidder pays the
  bank and takes the deed; with no bid the deed stays with the bank.

Lockstep form (ARCHITECTURE.md §1): a sequence of simultaneous-bid decision steps. The actors of
a step are the seats still bidding except the high bidder. Each sends Bid(amount) — checked
against the high bid at the start of the step and against the bidder's cash — or PassBid.
An actor who does not place a valid Bid in the step (PassBid, None, a refused action, or any
other action) leaves the auction for good: a vanished peer cannot block the game. At the end of
the step the highest bid becomes the high bid (tie: the first in turn order starting from the
current player); a step with no bid, or with nobody left to outbid the high bidder, closes the
auction. If the winner's cash no longer covers the bid (rent paid meanwhile), the price becomes
a debt: the winner raises money, and gets the deed when the price is paid.
"""
from __future__ import annotations

from ..errors import IllegalAction
from ..events import AuctionEnded, AuctionStarted, BidPassed, BidPlaced
from ..state import (LOT_HOTEL, LOT_HOUSE, LOT_PROPERTY, O_NO_AUCTIONS, P_AUCTION,
                     P_AUCTION_NEXT, P_BUY, P_END_MOVE)
from .money import R_AUCTION, R_PURCHASE, charge, transfer
from ..events import PropertyBought


def _check_buyer(s, seat: int) -> int:
    if s.phase != P_BUY or s.current != seat:
        raise IllegalAction("no property is offered to you", "not_offered")
    return s.pos[seat]


def buy(s, ev, seat: int) -> None:
    """BuyProperty: pay the printed price to the bank, take the deed."""
    sq = _check_buyer(s, seat)
    price = s.tb.price[sq]
    if s.cash[seat] < price:
        raise IllegalAction("not enough cash for the price", "insufficient_cash")
    transfer(s, ev, seat, -1, price, R_PURCHASE)
    s.owner[sq] = seat
    ev.append(PropertyBought(seat, sq, price))
    s.phase = P_END_MOVE


def decline(s, ev, seat: int) -> None:
    """DeclineProperty: the square is auctioned."""
    sq = _check_buyer(s, seat)
    if s.opts[O_NO_AUCTIONS]:  # house rule: the deed stays with the bank
        s.phase = P_END_MOVE
        return
    start_auctions(s, [sq], P_END_MOVE)


def start_auctions(s, squares: list[int], after: int) -> None:
    """Auction ``squares`` one at a time, then continue with phase ``after``. If an auction is
    already running (we are inside its interlude) the squares join its queue instead."""
    if P_AUCTION in s.resume or s.phase == P_AUCTION:
        s.auc_queue.extend(squares)
        return
    s.auc_queue.extend(squares)
    s.resume.append(after)
    s.phase = P_AUCTION_NEXT


def auction_next(s, ev) -> None:
    """Auto phase: open the next queued auction, or resume the interrupted flow."""
    while s.auc_queue:
        sq = s.auc_queue.pop(0)
        if s.owner[sq] >= 0:  # pragma: no cover - defensive, queued squares are bank's
            continue
        s.auc_sq = sq
        s.auc_lot = LOT_PROPERTY
        s.auc_high = 0
        s.auc_bidder = -1
        s.auc_in = [0 if o else 1 for o in s.out]
        s.step_bids = []
        s.phase = P_AUCTION
        ev.append(AuctionStarted(sq, "property"))
        return
    s.phase = s.resume.pop()


def actors(s) -> tuple[int, ...]:
    """Seats whose input the current auction step waits for."""
    b = s.auc_bidder
    return tuple([i for i, a in enumerate(s.auc_in) if a and i != b])


def min_bid(s) -> int:
    """Lowest legal bid in the current step, euro."""
    if s.auc_bidder < 0:
        if s.auc_sq >= 0 and s.owner[s.auc_sq] >= 0:  # a debtor's sale opens at the price
            return s.tb.price[s.auc_sq]
        return s.ed.auction_open
    return s.auc_high + s.ed.auction_min_raise


def _check_bidder(s, seat: int) -> None:
    if s.phase != P_AUCTION or not s.auc_in[seat] or seat == s.auc_bidder:
        raise IllegalAction("you are not bidding in an auction now", "not_bidding")
    for b in s.step_bids:
        if b[0] == seat:
            raise IllegalAction("one bid per step", "already_bid")


def bid(s, ev, seat: int, amount: int) -> None:
    """Bid: record the bid for the end of the step."""
    _check_bidder(s, seat)
    u = s.ed.money_unit
    if amount % u:  # niente: only whole banknotes change hands (rounded up; cash is a multiple)
        amount += u - amount % u
    if amount < min_bid(s):
        raise IllegalAction("bid below the minimum", "bid_too_low")
    if amount > s.cash[seat]:
        raise IllegalAction("bid above your cash", "insufficient_cash")
    s.step_bids.append([seat, amount])


def pass_bid(s, ev, seat: int) -> None:
    """PassBid: leave the auction."""
    _check_bidder(s, seat)
    s.auc_in[seat] = 0
    ev.append(BidPassed(seat))


def end_step(s, ev, step_actors: tuple[int, ...]) -> None:
    """Close an auction decision step (called by engine.game after the inputs are applied)."""
    bids = s.step_bids
    bidders = {b[0] for b in bids}
    for seat in step_actors:
        if s.auc_in[seat] and seat not in bidders:
            s.auc_in[seat] = 0
            ev.append(BidPassed(seat))
    if bids:
        n = s.n
        c = s.current
        best = max(bids, key=lambda b: (b[1], -((b[0] - c) % n)))
        s.auc_bidder, s.auc_high = best
        s.step_bids = []
        ev.append(BidPlaced(best[0], best[1]))
        if actors(s):
            return
    close(s, ev)


def start_building(s, ev, lot: int, requests: list[tuple[int, int]]) -> None:
    """Open a building-shortage auction of one ``lot`` among the requesting seats
    (``requests``: (seat, street) pairs); the interrupted phase resumes afterwards."""
    s.resume.append(s.phase)
    s.auc_lot = lot
    s.auc_sq = -1
    s.auc_high = 0
    s.auc_bidder = -1
    s.auc_in = [0] * s.n
    s.auc_target = [-1] * s.n
    for seat, sq in requests:
        s.auc_in[seat] = 1
        s.auc_target[seat] = sq
    s.step_bids = []
    s.phase = P_AUCTION
    ev.append(AuctionStarted(-1, "hotel" if lot == LOT_HOTEL else "house"))


def _close_building(s, ev, w: int, amount: int) -> None:
    from .building import build_error, place
    sq = s.auc_target[w] if w >= 0 else -1
    s.auc_lot = LOT_PROPERTY
    s.auc_target = [-1] * s.n
    ev.append(AuctionEnded(-1, w, amount))
    if w < 0:
        return
    err = build_error(s, w, sq)
    if (err is None or err[0] == "insufficient_cash") and s.cash[w] >= amount:
        place(s, ev, w, sq, amount)


def close(s, ev) -> None:
    """The auction ends: the high bidder pays the bank and takes the deed (or the building)."""
    sq = s.auc_sq
    w = s.auc_bidder
    amount = s.auc_high
    s.auc_sq = -1
    s.auc_high = 0
    s.auc_bidder = -1
    s.auc_in = [0] * s.n
    s.step_bids = []
    s.phase = P_AUCTION_NEXT
    if s.auc_lot != LOT_PROPERTY:
        _close_building(s, ev, w, amount)
        return
    if s.owner[sq] >= 0:  # a debtor's sale (engine.rules.sale)
        from .sale import close_sale
        close_sale(s, ev, sq, w, amount)
        return
    ev.append(AuctionEnded(sq, w, amount))
    if w >= 0:
        charge(s, ev, w, -1, amount, R_AUCTION, sq)


def drop_bidder(s, ev, seat: int) -> None:
    """A bankrupt seat leaves a running auction; its standing high bid is void."""
    if s.auc_in[seat]:
        s.auc_in[seat] = 0
    if s.auc_bidder == seat:
        s.auc_bidder = -1
        s.auc_high = 0
    s.step_bids = [b for b in s.step_bids if b[0] != seat]
