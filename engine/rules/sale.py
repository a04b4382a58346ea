"""A debtor's own auction (fabrianopoli.txt "Aste": "Quando un debitore decide di saldare il
debito con un creditore mediante asta pubblica, questa parte dal valore del terreno che vuole
mettere all'asta."; "Varie": "... questi potrà mettere all'asta le proprietà tra gli altri
giocatori e affidarle ai migliori offerenti").

``AuctionProperty(square)``: legal for the head debtor in "raise_money" on an edition with
``debtor_auction`` (and without the ``no_auctions`` option), for an unmortgaged property it owns
whose colour set has no buildings ("proprietà (libere da costruzioni)"), when no other auction
is being run or interrupted. The auction is the usual sequence of simultaneous-bid steps
(engine.rules.auction) among the other players still in; the first bid is at least the printed
price, later ones raise by ``auction_min_raise``. The owed debts wait while it runs. At the
close the winner pays the debtor (not the bank) and takes the deed; the sale is void (the deed
stays, nobody pays) if nobody bid, if the winner's cash no longer covers the bid, or if the
property changed meanwhile (traded, mortgaged, built on). Then the debt is paid if the cash now
covers it, else the debtor goes on raising money.
"""
from __future__ import annotations

from ..errors import refuse
from ..events import AuctionEnded, AuctionStarted, PropertyTransferred
from ..state import LOT_PROPERTY, O_NO_AUCTIONS, P_AUCTION, P_RAISE
from .money import R_AUCTION, transfer

__all__ = ["sale_error", "start_sale", "is_sale", "close_sale"]


def sale_error(s, seat: int, sq: int) -> tuple[str, str] | None:
    """(code, reason) why ``seat`` may not auction ``sq`` now, or None."""
    if not s.ed.debtor_auction or s.opts[O_NO_AUCTIONS]:
        return ("not_available", "no debtor auctions in this game")
    if s.phase != P_RAISE or not s.debts or s.debts[0][0] != seat:
        return ("not_in_debt", "you are not raising money for a debt")
    if P_AUCTION in s.resume or s.auc_queue:
        return ("auction_running", "another auction is under way")
    tb = s.tb
    if not 0 <= sq < tb.nsq or tb.price[sq] <= 0:
        return ("not_a_property", "not a property")
    if s.owner[sq] != seat:
        return ("not_owner", "you do not own that property")
    if s.mort[sq]:
        return ("mortgaged", "mortgaged")
    for m in tb.group_of[sq]:
        if s.level[m]:
            return ("has_buildings", "sell the buildings of the set first")
    return None


def start_sale(s, ev, seat: int, sq: int) -> None:
    """AuctionProperty: open the auction of ``sq`` among the other players still in."""
    refuse(sale_error(s, seat, sq))
    s.resume.append(P_RAISE)
    s.auc_sq = sq
    s.auc_lot = LOT_PROPERTY
    s.auc_high = 0
    s.auc_bidder = -1
    s.auc_in = [0 if o or i == seat else 1 for i, o in enumerate(s.out)]
    s.step_bids = []
    s.phase = P_AUCTION
    ev.append(AuctionStarted(sq, "sale"))


def is_sale(s) -> bool:
    """True while the running auction is a debtor's sale (the deed still has an owner)."""
    return s.auc_lot == LOT_PROPERTY and s.auc_sq >= 0 and s.owner[s.auc_sq] >= 0


def close_sale(s, ev, sq: int, w: int, amount: int) -> None:
    """End of a debtor's auction (called by engine.rules.auction.close): see module doc.
    Sets the phase back to "raise_money" (the debt is settled by engine.game.advance)."""
    seller = s.debts[0][0] if s.debts else -1
    ok = (w >= 0 and seller >= 0 and s.owner[sq] == seller and not s.mort[sq]
          and not any(s.level[m] for m in s.tb.group_of[sq]) and s.cash[w] >= amount)
    ev.append(AuctionEnded(sq, w if ok else -1, amount if ok else 0))
    s.phase = s.resume.pop()
    if ok:
        transfer(s, ev, w, seller, amount, R_AUCTION)
        s.owner[sq] = w
        ev.append(PropertyTransferred(seller, w, sq))
