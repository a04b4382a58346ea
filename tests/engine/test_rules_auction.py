"""Buying and auctions (monopoly-classico-hasbro.txt, "Proprietà non possedute")."""
import pytest

from engine import IllegalAction, apply_action, legal_actions, pending
from engine.actions import Bid, BuyProperty, DeclineProperty, PassBid
from engine.events import ActionRefused, AuctionEnded
from engine.testing import roll, scenario, step


def _offered(seats=3, cash=None):
    s = scenario(seats, cash=cash or {})
    s, _ = roll(s, 2, 4)  # seat 0 on Bastioni Gran Sasso (100)
    assert pending(s).kind == "buy_or_auction" and pending(s).actors == (0,)
    return s


def test_buy_at_printed_price():
    """"Volete comprarla? Pagate alla Banca il valore indicato sulla casella\""""
    s, _ = step(_offered(), seat0=BuyProperty())
    assert s.owner[6] == 0 and s.cash[0] == 1400 and s.current == 1


def test_cannot_buy_without_cash():
    s = _offered(cash={0: 99})
    assert BuyProperty() not in legal_actions(s, 0)
    with pytest.raises(IllegalAction) as e:
        apply_action(s, 0, BuyProperty())
    assert e.value.code == "insufficient_cash"


def test_decline_opens_auction_to_everyone_including_decliner():
    """"Il Banchiere deve metterla all'asta ... tutti i giocatori vi possono partecipare\""""
    s, _ = step(_offered(), seat0=DeclineProperty())
    p = pending(s)
    assert p.kind == "auction_bid" and p.actors == (0, 1, 2)
    assert Bid(10) in legal_actions(s, 0)


def test_auction_opening_raise_and_winner_pays_bank():
    """"Le offerte partono da a10 ... aumentando l'offerta precedente di un minimo di a1 ...
    Il giocatore che ha formulato l'offerta più alta paga la Banca\""""
    s, _ = step(_offered(), seat0=DeclineProperty())
    s, ev = step(s, seat0=Bid(9), seat1=Bid(10), seat2=Bid(15))
    assert ActionRefused(0, Bid.CODE, "bid_too_low") in ev
    assert (s.auc_bidder, s.auc_high) == (2, 15)
    assert pending(s).actors == (1,)  # seat 0 refused -> out; seat 2 is high bidder
    s, ev = step(s, seat1=Bid(15))
    assert ActionRefused(1, Bid.CODE, "bid_too_low") in ev
    assert s.owner[6] == 2 and s.cash[2] == 1485 and AuctionEnded(6, 2, 15) in ev
    assert s.current == 1  # the turn went on


def test_no_bid_property_stays_with_bank():
    """"Se nessun giocatore è interessato ... il contratto resta in Banca\""""
    s, _ = step(_offered(), seat0=DeclineProperty())
    s, ev = step(s)  # None = pass for every bidder
    assert s.owner[6] == -1 and AuctionEnded(6, -1, 0) in ev and pending(s).kind == "roll"


def test_bid_above_cash_refused():
    s, _ = step(_offered(cash={1: 30}), seat0=DeclineProperty())
    s, ev = step(s, seat1=Bid(31), seat2=Bid(12))
    assert ActionRefused(1, Bid.CODE, "insufficient_cash") in ev
    assert s.owner[6] == 2 and s.cash[2] == 1488  # nobody left to outbid seat 2


def test_bid_outside_an_auction_refused():
    s = scenario(2)
    s2, ev = step(s, seat1=Bid(10))
    assert ev == (ActionRefused(1, Bid.CODE, "not_bidding"),) and s2 == s
