"""What a seat may send in the next decision step: ``legal_actions`` and ``bid_limits``.

The same checks the handlers run (engine.game dispatches to engine.rules.*), asked without
changing the state: a bot, a UI or a peer's auto-player lists the moves from here, and the
edition's own actions come from its flow strategy (``Edition.flow.extend_legal``,
engine.rules.flow). Apart from engine.game, whose job is applying steps.
"""
from __future__ import annotations

from . import actions as A
from .board import K_STREET
from .errors import IllegalAction
from .rules import auction, bankruptcy, rent, sale, timed, trade
from .state import (CHANCE_PHASES, O_TIMED, P_AUCTION, P_BUY, P_CHOICE, P_INHERIT, P_OVER,
                    P_RAISE, P_ROLL)

__all__ = ["legal_actions", "bid_limits"]


def legal_actions(s: State, seat: int) -> list:
    """Every action ``seat`` may send in the next decision step, sorted (action_sort_key);
    [] during chance steps, once the game is over, or for a bankrupt seat.

    Two families are parameterised and listed by one representative each: ``Bid`` appears
    once with the minimum amount (any amount from it up to the seat's cash is legal, see
    ``bid_limits``); ``ProposeTrade`` is never listed (any offer passing
    ``engine.rules.trade.check_offer`` is legal). AcceptTrade is listed with ``lift=()``.
    """
    ph = s.phase
    if ph in CHANCE_PHASES or ph == P_OVER:
        return []
    if s.out[seat]:
        return []
    out: list = []
    tb = s.tb
    if ph == P_ROLL and s.current == seat:
        out.append(A.RollDice())
        if s.jail[seat]:
            if s.cash[seat] >= s.ed.jail_fine:
                out.append(A.PayJailFine())
            for d in sorted({k >> 8 for k in s.held[seat]}):
                out.append(A.UseJailCard(d))
    elif ph == P_BUY and s.current == seat:
        if s.cash[seat] >= tb.price[s.pos[seat]]:
            out.append(A.BuyProperty())
        out.append(A.DeclineProperty())
    elif ph == P_AUCTION and s.auc_in[seat] and seat != s.auc_bidder:
        m = auction.min_bid(s)
        if s.cash[seat] >= m:
            out.append(A.Bid(m))
        out.append(A.PassBid())
    declare = False
    settle: list = []
    if ph == P_RAISE and s.debts[0][0] == seat:
        try:
            bankruptcy.check_declare(s, seat)
            declare = True
        except IllegalAction:
            pass
    elif ph == P_INHERIT and s.inherit[0] == seat:
        sqs = s.inherit[1:]
        for lift in [()] + [(sq,) for sq in sqs] + ([tuple(sorted(sqs))] if len(sqs) > 1 else []):
            try:
                bankruptcy.check_settle(s, seat, lift)
                settle.append(A.SettleMortgages(lift))
            except IllegalAction:
                pass
        settle.sort(key=A.action_sort_key)
    # Out-of-turn actions, generated in code order so that no sort is needed.
    mine = [sq for sq in tb.properties if s.owner[sq] == seat]
    if mine:
        estate = s.ed.estate  # the edition's estate strategy (engine.rules.estate)
        out += [A.BuildHouse(sq) for sq in mine if tb.kind[sq] == K_STREET
                and estate.build_error(s, seat, sq) is None]
        out += [A.SellBuilding(sq) for sq in mine if s.level[sq]
                and estate.sell_error(s, seat, sq) is None]
        out += [A.Mortgage(sq) for sq in mine if not s.mort[sq]
                and estate.mortgage_error(s, seat, sq) is None]
        out += [A.LiftMortgage(sq) for sq in mine if s.mort[sq]
                and estate.lift_error(s, seat, sq) is None]
    if s.offers:
        rejects = []
        for o in s.offers:
            if o[trade.O_PARTNER] == seat:
                p = o[trade.O_PROPOSER]
                try:
                    trade.check_accept(s, seat, p, ())
                    out.append(A.AcceptTrade(p, ()))
                except IllegalAction:
                    pass
                rejects.append(A.RejectTrade(p))
        out += rejects
        if any(o[trade.O_PROPOSER] == seat for o in s.offers):
            out.append(A.WithdrawTrade())
    if s.claims:
        out += [A.ClaimRent(sq, debtor) for sq, debtor in rent.legal_claims(s, seat)]
    if declare:
        out.append(A.DeclareBankruptcy())
    out += settle
    # Codes 30+ (engine.actions), appended in code order.
    if s.opts[O_TIMED] and not s.time_up & (1 << seat | timed.EXPIRED):
        out.append(A.TimeUp())
    if ph == P_CHOICE and s.current == seat:
        out += [A.PayCardFine(), A.DrawCardInstead()]
    if ph == P_RAISE and s.ed.debtor_auction and s.debts[0][0] == seat:
        out += [A.AuctionProperty(sq) for sq in mine if sale.sale_error(s, seat, sq) is None]
    s.ed.flow.extend_legal(s, seat, out)  # the edition's own actions (engine.rules.flow)
    return out


def bid_limits(s: State, seat: int) -> tuple[int, int] | None:
    """(lowest, highest) legal Bid amount for ``seat`` now, or None if it cannot bid."""
    if s.phase != P_AUCTION or not s.auc_in[seat] or seat == s.auc_bidder:
        return None
    m = auction.min_bid(s)
    return (m, s.cash[seat]) if s.cash[seat] >= m else None
