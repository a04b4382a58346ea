"""Houses and hotels (monopoly-classico-hasbro.txt, "GLI EDIFICI")."""
import pytest

from engine import IllegalAction, apply_action, legal_actions
from engine.actions import BuildHouse, Mortgage, SellBuilding
from engine.testing import scenario

BROWN = {1: 0, 3: 0}


def test_build_needs_complete_set_and_no_mortgage():
    """"Non appena avete completato una serie ... potete iniziare ad acquistare delle case";
    "non si possono costruire edifici se qualsiasi altra strada ... è stata ipotecata\""""
    with pytest.raises(IllegalAction) as e:
        apply_action(scenario(2, owners={1: 0}), 0, BuildHouse(1))
    assert e.value.code == "set_incomplete"
    with pytest.raises(IllegalAction) as e:
        apply_action(scenario(2, owners=BROWN, mortgaged=[3]), 0, BuildHouse(1))
    assert e.value.code == "set_mortgaged"
    s, _ = apply_action(scenario(2, owners=BROWN), 0, BuildHouse(1))
    assert s.level[1] == 1 and s.cash[0] == 1450 and s.houses == 31


def test_even_building_and_out_of_turn():
    """"non si può ad esempio costruire una seconda casa su una stessa strada se su ciascuna
    delle altre ... non avete costruito almeno una casa"; "non occorre attendere il proprio
    turno\""""
    s = scenario(2, current=1, owners=BROWN, levels={1: 1})
    assert BuildHouse(1) not in legal_actions(s, 0) and BuildHouse(3) in legal_actions(s, 0)
    with pytest.raises(IllegalAction) as e:
        apply_action(s, 0, BuildHouse(1))
    assert e.value.code == "uneven"


def test_hotel_after_four_houses_returns_houses():
    """"Quando su tutte le strade ... 4 case, potete passare ad un albergo ... restituite al
    Banchiere le 4 case"; "Ad un albergo non possono essere aggiunte case.\""""
    s = scenario(2, owners=BROWN, levels={1: 4, 3: 4})
    houses = s.houses
    s, _ = apply_action(s, 0, BuildHouse(1))
    assert s.level[1] == 5 and s.houses == houses + 4 and s.hotels == 11
    s, _ = apply_action(s, 0, BuildHouse(3))
    with pytest.raises(IllegalAction):
        apply_action(s, 0, BuildHouse(1))


def test_stock_limit():
    """"La Banca non ha più disponibilità di edifici? ... non si può costruire nulla\""""
    s = scenario(2, owners=BROWN)
    s.bank += s.houses * 0
    s.houses = 0
    with pytest.raises(IllegalAction) as e:
        apply_action(s, 0, BuildHouse(1))
    assert e.value.code == "no_stock"


def test_sell_half_price_evenly():
    """"Potete vendere le case alla Banca alla metà del loro prezzo ... in maniera
    equilibrata\""""
    s = scenario(2, owners=BROWN, levels={1: 2, 3: 1})
    with pytest.raises(IllegalAction):
        apply_action(s, 0, SellBuilding(3))
    s, _ = apply_action(s, 0, SellBuilding(1))
    assert s.level[1] == 1 and s.cash[0] == 1525


def test_hotel_sold_becomes_four_houses_or_set_sells_down():
    """"Potete vendere gli alberghi alla Banca alla metà ... e scambiarli immediatamente con 4
    case"; with fewer than 4 houses in the bank the set goes down evenly (rule choice)."""
    s = scenario(2, owners=BROWN, levels={1: 5, 3: 5})
    s, _ = apply_action(s, 0, SellBuilding(1))
    assert s.level[1] == 4 and s.hotels == 11
    s = scenario(2, owners=BROWN, levels={1: 5, 3: 5})
    s.houses = 3
    s, _ = apply_action(s, 0, SellBuilding(1))
    assert sorted((s.level[1], s.level[3])) == [1, 2] and s.houses == 0 and s.hotels == 12
    assert s.cash[0] == 1500 + (10 - 3) * 25


def test_mortgage_needs_no_buildings_in_set():
    """"Per ipotecare una strada, dovete innanzitutto vendere tutti gli edifici ... sulle altre
    strade dello stesso colore\""""
    s = scenario(2, owners=BROWN, levels={1: 1})
    with pytest.raises(IllegalAction) as e:
        apply_action(s, 0, Mortgage(3))
    assert e.value.code == "has_buildings"


def test_shortage_of_last_house_is_auctioned_among_requesters():
    """"Se più giocatori vogliono comprare l'ultima casa o l'ultimo albergo disponibile, il
    Banchiere deve metterli all'asta. Le offerte partono da a10 ... Il pagamento deve essere
    effettuato alla Banca.\""""
    from engine import pending
    from engine.actions import Bid, RollDice
    from engine.events import ActionRefused
    from engine.testing import step
    s = scenario(3, owners={1: 0, 3: 0, 37: 1, 39: 1})
    s.houses = 1
    s, ev = step(s, seat0=RollDice(), seat1=BuildHouse(39), seat2=None)
    assert ActionRefused(1, BuildHouse.CODE, "shortage_auction") not in ev  # no contention
    s = scenario(3, owners={1: 0, 3: 0, 37: 1, 39: 1})
    s.houses = 1
    s, ev = step(s, seat0=BuildHouse(3), seat1=BuildHouse(39))
    assert ActionRefused(0, BuildHouse.CODE, "shortage_auction") in ev
    p = pending(s)
    assert p.kind == "auction_bid" and p.actors == (0, 1)
    s, _ = step(s, seat0=Bid(10), seat1=Bid(25))
    s, _ = step(s, seat0=None)
    assert s.level[39] == 1 and s.houses == 0 and s.cash[1] == 1475 and s.level[3] == 0
    assert pending(s).kind == "roll" and s.current == 0
