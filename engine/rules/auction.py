"""Buying and auctions (rulebook: "Proprietà non possedute da alcun giocatore").

* Landing on an unowned property: buy it at the printed price, or decline and it is auctioned
  at once ("Non volete comprarla? Il Banchiere deve metterla all'asta").
* Auction: open to every player still in the game, including the one who declined ("tutti i
  giocatori vi possono partecipare"); the first bid is at least ``auction_open`` (€10), every
  later one at least ``auction_min_raise`` (€1) over the high bid ("Le offerte partono da a10 ...
  aumentando l'offerta precedente di un minimo di a1"); it ends when nobody raises ("termina
  l'asta quando non c'è più alcun giocatore disposto a rilanciare"); the high bidder pays the
  bank and takes the deed; with no bid the deed stays with the bank.

Lockstep form (ARCHITECTURE.md §1; protocol.md §E6): a sequence of simultaneous-bid decision
steps. The actors of a step are the seats still bidding except the high bidder. Each sends
Bid(amount) — checked against the high bid at the start of the step and against the bidder's
cash — or PassBid. An actor who does not place a valid Bid in the step (PassBid, None, a
refused action, or any other action) leaves the auction for good: a vanished peer cannot block
the game. At the end of the step every bid is told (BidOffered for those that did not become
the high bid, in turn order from the current player) and the highest becomes the high bid
(BidPlaced); a step with no bid, or with nobody left to outbid the high bidder, closes the
auction. If the winner's cash no longer covers the bid (rent paid meanwhile), the price becomes
a debt: the winner raises money, and gets the deed when the price is paid.

Equal highest bids (AuctionTied). The rulebooks' auction is oral: "Chi ha offerto di più, paga
la Banca" and "Per fare un'offerta, non occorre attendere il proprio turno" (niente) — there
is no turn order among bidders, and a sealed step (protocol.md §C13) has no "first to call".
So a tie gives nobody the high bid: the tied seats hold it together (``auc_in`` = TIED) and
every seat still in bids again, at least the tied amount + the minimum raise. A tied seat that
does not raise keeps its tied bid (like a high bidder, it cannot take a bid back; PassBid only
declines to raise); any other seat that does not bid leaves as usual; if somebody raises, the
auction goes on from the new high bid and a tied seat that did not bid leaves. If nobody
raises, the tied seats roll two dice each for the lot at the tied amount, ties rolling again
— the rulebooks' own way of deciding between players ("Chi ha ottenuto il totale più alto
inizia per primo"): the chance phase "auction_tie" (``roll_tie``). Why not the first in turn
order, as before: a seat that always bids the minimum and comes first could then win at a
rival's ceiling equal to the opening bid, one raise below where an ascending auction ends
(issue 10; tests/engine/test_bot_auction.py).
"""
from __future__ import annotations

from ..errors import IllegalAction
from ..events import (AuctionEnded, AuctionStarted, AuctionTied, AuctionTieRolled, BidOffered,
                      BidPassed, BidPlaced)
from ..state import (LOT_HOTEL, LOT_HOUSE, LOT_PROPERTY, O_NO_AUCTIONS, P_AUCTION,
                     P_AUCTION_NEXT, P_AUCTION_TIE, P_BUY, P_END_MOVE)
from .building import build_error, place
from .money import R_AUCTION, R_PURCHASE, charge, transfer
from .sale import close_sale
from ..events import PropertyBought

TIED = 2
"""``auc_in`` value of a seat still bidding that holds a tied high bid (1: still bidding)."""


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
    """Lowest legal bid in the current step, euro: the opening bid (a debtor's sale: the
    printed price) while nobody bid, else the high (or tied) bid + the minimum raise."""
    if s.auc_bidder < 0 and not s.auc_high:
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
    """PassBid: leave the auction; a seat holding a tied bid only declines to raise (its bid
    stands, module doc)."""
    _check_bidder(s, seat)
    if s.auc_in[seat] == TIED:
        return
    s.auc_in[seat] = 0
    ev.append(BidPassed(seat))


def end_step(s, ev, step_actors: tuple[int, ...]) -> None:
    """Close an auction decision step (called by engine.game after the inputs are applied):
    actors without a bid leave (a tied seat stays while nobody raises); every bid is told;
    the highest becomes the high bid, or a tie (module doc); a step with no bid closes the
    auction, or opens the tied seats' roll ("auction_tie")."""
    bids = s.step_bids
    auc_in = s.auc_in
    bidders = {b[0] for b in bids}
    for seat in step_actors:
        if auc_in[seat] and seat not in bidders and (bids or auc_in[seat] != TIED):
            auc_in[seat] = 0
            ev.append(BidPassed(seat))
    if bids:
        n = s.n
        c = s.current
        high = max(b[1] for b in bids)
        tied = sorted(b[0] for b in bids if b[1] == high)
        for b in sorted(bids, key=lambda b: (b[0] - c) % n):
            if b[1] != high or len(tied) > 1:
                ev.append(BidOffered(b[0], b[1]))
        for i, a in enumerate(auc_in):
            if a == TIED:
                auc_in[i] = 1  # an earlier tie is beaten (its holders that bid again stay in)
        s.auc_high = high
        s.step_bids = []
        if len(tied) > 1:
            s.auc_bidder = -1
            for seat in tied:
                auc_in[seat] = TIED
            ev.append(AuctionTied(tuple(tied), high))
            return  # the tied seats are actors of the next step: somebody may raise
        s.auc_bidder = tied[0]
        ev.append(BidPlaced(tied[0], high))
        if actors(s):
            return
        close(s, ev)
        return
    tied = [i for i, a in enumerate(auc_in) if a == TIED]
    if tied:  # two or more (drop_bidder leaves a lone tied seat the high bid)
        s.phase = P_AUCTION_TIE
        return
    close(s, ev)


def roll_tie(s, ev, rng) -> None:
    """Chance "auction_tie": the seats holding a tied bid that nobody outbid each roll two dice
    (``rng.die()``), the highest total wins, ties roll again among the tied (as
    engine.rules.movement.first_player); the winner gets the lot at the tied amount."""
    tied = [i for i, a in enumerate(s.auc_in) if a == TIED]
    while len(tied) > 1:
        totals = [rng.die() + rng.die() for _ in tied]
        ev.append(AuctionTieRolled(tuple(tied), tuple(totals)))
        best = max(totals)
        tied = [seat for seat, t in zip(tied, totals) if t == best]
    s.auc_bidder = tied[0]
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
        close_sale(s, ev, sq, w, amount)
        return
    ev.append(AuctionEnded(sq, w, amount))
    if w >= 0:
        charge(s, ev, w, -1, amount, R_AUCTION, sq)


def drop_bidder(s, ev, seat: int) -> None:
    """A bankrupt seat leaves a running auction; its standing high bid is void. If it held a
    tied bid with one other seat, that seat alone holds the high bid."""
    if s.auc_in[seat]:
        s.auc_in[seat] = 0
    if s.auc_bidder == seat:
        s.auc_bidder = -1
        s.auc_high = 0
    tied = [i for i, a in enumerate(s.auc_in) if a == TIED]
    if len(tied) == 1:
        s.auc_bidder = tied[0]
        s.auc_in[tied[0]] = 1
    s.step_bids = [b for b in s.step_bids if b[0] != seat]
