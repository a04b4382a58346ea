"""Equal bids and every bid told (engine.rules.auction; protocol.md §E6).

Rulebooks: "Le offerte partono da a10 e tutti i giocatori vi possono partecipare aumentando
l'offerta precedente di un minimo di a1 ... termina l'asta quando non c'è più alcun giocatore
disposto a rilanciare" (monopoly-classico-hasbro.txt, "Proprietà non possedute"); "Chi ha
offerto di più, paga la Banca" and "Per fare un'offerta, non occorre attendere il proprio
turno" (monopoly-niente-e-come-sembra.txt): bids have no turn order, so equal highest bids give
nobody the high bid; everybody bids again, and tied bids nobody raises are rolled for like the
"who starts" roll ("Chi ha ottenuto il totale più alto inizia per primo").
"""
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import legal_actions, pending
from engine.actions import Bid, DeclineProperty, PassBid
from engine.events import (AuctionEnded, AuctionTied, AuctionTieRolled, BidOffered, BidPassed,
                           BidPlaced)
from engine.rules.auction import TIED, drop_bidder
from engine.testing import forced_chance, roll, scenario, step

BASTIONI = 6  # Bastioni Gran Sasso, €100: seat 0 lands there with 2 + 4


def _auction(seats=3, cash=None):
    """Seat 0 declines Bastioni Gran Sasso: its auction waits for the first round."""
    s = scenario(seats, cash=cash or {})
    s, _ = roll(s, 2, 4)
    s, _ = step(s, seat0=DeclineProperty())
    assert pending(s).kind == "auction_bid"
    return s


def test_every_bid_of_a_round_is_told_beaten_ones_first_in_turn_order():
    """Issue 11 defect 9: "Anna offre €120" stays in the log when "Bruno offre €130" beats it."""
    s = _auction(4)
    s, ev = step(s, seat0=Bid(15), seat1=Bid(130), seat2=Bid(120), seat3=PassBid())
    bids = [e for e in ev if type(e) in (BidOffered, BidPlaced)]
    assert bids == [BidOffered(0, 15), BidOffered(2, 120), BidPlaced(1, 130)]
    assert (s.auc_bidder, s.auc_high) == (1, 130)


def test_equal_highest_bids_tie_and_everybody_bids_again():
    s = _auction()
    s, ev = step(s, seat0=Bid(15), seat1=Bid(20), seat2=Bid(20))
    assert [e for e in ev if type(e) in (BidOffered, BidPlaced, AuctionTied)] == [
        BidOffered(0, 15), BidOffered(1, 20), BidOffered(2, 20), AuctionTied((1, 2), 20)]
    assert s.auc_bidder == -1 and s.auc_high == 20 and s.auc_in == [1, TIED, TIED]
    p = pending(s)
    assert p.kind == "auction_bid" and p.actors == (0, 1, 2)
    for seat in range(3):  # the minimum is one raise over the tie, for the tied seats too
        assert Bid(21) in legal_actions(s, seat)


def test_a_raise_after_a_tie_wins_and_a_silent_tied_seat_leaves():
    s = _auction()
    s, _ = step(s, seat1=Bid(20), seat2=Bid(20))
    s, ev = step(s, seat2=Bid(21))
    assert BidPassed(1) in ev and BidPlaced(2, 21) in ev
    assert AuctionEnded(BASTIONI, 2, 21) in ev and s.owner[BASTIONI] == 2 and s.cash[2] == 1479


def test_a_tied_bid_stands_when_nobody_raises_and_the_tied_roll_for_it():
    s = _auction()
    s, _ = step(s, seat0=Bid(15), seat1=Bid(20), seat2=Bid(20))
    s, ev = step(s, seat0=PassBid(), seat1=PassBid())  # PassBid of a tied seat: no raise
    assert ev.count(BidPassed(0)) == 1 and BidPassed(1) not in ev and BidPassed(2) not in ev
    p = pending(s)
    assert p.chance and p.kind == "auction_tie"
    # 7 each: roll again; then seat 2's 9 beats seat 1's 5.
    s, ev = forced_chance(s, dice=[3, 4, 5, 2, 2, 3, 4, 5])
    assert [e for e in ev if type(e) is AuctionTieRolled] == [
        AuctionTieRolled((1, 2), (7, 7)), AuctionTieRolled((1, 2), (5, 9))]
    assert AuctionEnded(BASTIONI, 2, 20) in ev and s.owner[BASTIONI] == 2 and s.cash[2] == 1480
    assert pending(s).kind == "roll" and s.current == 1


def test_a_tied_seat_that_goes_bankrupt_leaves_the_high_bid_to_the_other():
    s = _auction()
    s, _ = step(s, seat0=Bid(15), seat1=Bid(20), seat2=Bid(20))
    drop_bidder(s, [], 1)
    assert (s.auc_bidder, s.auc_high) == (2, 20) and s.auc_in == [1, 0, 1]
    assert pending(s).actors == (0,)


@settings(max_examples=60, deadline=None)
@given(rounds=st.lists(st.lists(st.one_of(st.none(), st.integers(0, 40)), min_size=3, max_size=3),
                       min_size=1, max_size=8),
       beacon=st.binary(min_size=32, max_size=32))
def test_every_bid_is_told_once_and_the_winner_paid_the_highest_bid(rounds, beacon):
    """Whatever the bids (amounts relative to the minimum; None: no bid): every accepted bid of
    a step is one BidOffered or BidPlaced event; a step's high bid goes to a seat only when it
    alone bid the most; the auction ends with the last high (or tied) bid paid by a seat that
    made it, and a tie ends only by the roll among the seats that made it."""
    from engine import apply_chance, apply_step
    s = _auction(3, cash={0: 60, 1: 60, 2: 60})
    made: dict[int, set] = {0: set(), 1: set(), 2: set()}
    tied_last = None
    for r in rounds + [[None] * 3] * 2:
        p = pending(s)
        if p.kind == "auction_tie":
            s, ev = apply_chance(s, beacon)
            end = next(e for e in ev if type(e) is AuctionEnded)
            assert end.winner in tied_last.seats and end.amount == tied_last.amount
            break
        if p.kind != "auction_bid":
            break
        from engine.rules.auction import min_bid
        low = min_bid(s)
        inputs = [Bid(low + x) if x is not None and i in p.actors else None for i, x in enumerate(r)]
        s, ev = apply_step(s, inputs)
        accepted = [(i, a.amount) for i, a in enumerate(inputs)
                    if a is not None and a.amount <= 60 and not any(
                        type(e).__name__ == "ActionRefused" and e.seat == i for e in ev)]
        told = [(e.seat, e.amount) for e in ev if type(e) in (BidOffered, BidPlaced)]
        assert sorted(told) == sorted(accepted)
        for i, a in accepted:
            made[i].add(a)
        if accepted:
            top = max(a for _, a in accepted)
            who = [i for i, a in accepted if a == top]
            placed = [e for e in ev if type(e) is BidPlaced]
            tied = [e for e in ev if type(e) is AuctionTied]
            assert (placed == [BidPlaced(who[0], top)]) == (len(who) == 1)
            assert (tied == [AuctionTied(tuple(who), top)]) == (len(who) > 1)
            tied_last = tied[0] if tied else None
        end = [e for e in ev if type(e) is AuctionEnded]
        if end:
            if end[0].winner >= 0:
                assert end[0].amount in made[end[0].winner]
            break
