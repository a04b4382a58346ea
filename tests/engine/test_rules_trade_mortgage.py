"""Mortgages and trades (monopoly-classico-hasbro.txt, "Come ipotecare", "COME FARE AFFARI")."""
import pytest

from engine import IllegalAction, apply_action, legal_actions
from engine.actions import AcceptTrade, LiftMortgage, Mortgage, ProposeTrade, RejectTrade
from engine.testing import scenario, step


def test_mortgage_and_lift_plus_ten_percent():
    """"incassate dalla Banca il valore dell'ipoteca"; "estinguere un'ipoteca, pagate ... il
    valore ipotecario aumentato del 10%\""""
    s = scenario(2, current=1, owners={12: 0})
    s, _ = apply_action(s, 0, Mortgage(12))
    assert s.mort[12] == 1 and s.cash[0] == 1575
    s, _ = apply_action(s, 0, LiftMortgage(12))
    assert s.mort[12] == 0 and s.cash[0] == 1575 - 83


def _offer(**kw):
    base = dict(partner=1, give_squares=(), get_squares=(), give_cash=0, get_cash=0,
                give_cards=(), get_cards=(), lift=())
    base.update(kw)
    return ProposeTrade(**base)


def test_trade_properties_money_and_jail_card():
    """"Le proprietà possono essere scambiate con denaro, con altre proprietà e/o con carte
    Uscite gratis di prigione\""""
    s = scenario(2, owners={1: 0, 39: 1})
    s.decks[1].remove(9)
    s.held[1] = [256 + 9]
    s, _ = step(s, seat0=_offer(give_squares=(1,), give_cash=100, get_squares=(39,),
                                get_cards=(1,)))
    assert AcceptTrade(0, ()) in legal_actions(s, 1) and RejectTrade(0) in legal_actions(s, 1)
    s, _ = step(s, seat1=AcceptTrade(0, ()))
    assert s.owner[1] == 1 and s.owner[39] == 0 and s.held[0] == [256 + 9]
    assert s.cash == [1400, 1600] and s.offers == []


def test_no_trade_of_street_whose_set_has_buildings():
    """"Prima di poter vendere o scambiare una strada ... è obbligatorio vendere alla Banca
    tutte le case o gli alberghi\""""
    s = scenario(2, owners={1: 0, 3: 0}, levels={3: 1})
    with pytest.raises(IllegalAction) as e:
        apply_action(s, 0, _offer(give_squares=(1,), get_cash=10))
    assert e.value.code == "has_buildings"


def test_mortgaged_property_received_pay_ten_percent_or_lift():
    """"Il nuovo proprietario deve immediatamente: cancellare l'ipoteca ... oppure mantenere
    l'ipoteca (pagando subito alla Banca il 10% del valore ipotecario).\""""
    s = scenario(2, owners={39: 0, 37: 0}, mortgaged=[39, 37])
    s, _ = step(s, seat0=_offer(give_squares=(37, 39), get_cash=1))
    s, _ = step(s, seat1=AcceptTrade(0, (39,)))
    assert s.mort[39] == 0 and s.mort[37] == 1
    assert s.cash[1] == 1500 - 1 - 220 - 18


def test_reject_and_stale_offer_refused():
    s = scenario(2, owners={1: 0})
    s, _ = step(s, seat0=_offer(give_squares=(1,), get_cash=50))
    s2, _ = step(s, seat1=RejectTrade(0))
    assert s2.offers == [] and s2.owner[1] == 0
    s.owner[1] = -1  # the property left the proposer meanwhile
    with pytest.raises(IllegalAction):
        apply_action(s, 1, AcceptTrade(0, ()))
