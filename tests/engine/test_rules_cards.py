"""Probabilità and Imprevisti (hasbro_modern_it deck; rulebook "Imprevisti e Probabilità")."""
import pytest

from engine import EDITIONS, apply_chance, pending
from engine.actions import Bid, BuyProperty, DeclineProperty, PassBid
from engine.events import CardDrawn
from engine.testing import draw_index, forced_chance, roll, scenario, step

ED = EDITIONS["classico"]


def _card(deck, text_part):
    return next(c.index for c in ED.decks[deck] if text_part in c.text)


def _draw(s, deck, card):
    assert pending(s).kind == "card"
    return forced_chance(s, picks=[draw_index(s, deck, card)])


def test_face_down_deck_draws_without_replacement_in_a_pass():
    """DESIGN §1: "Draw a uniformly random card among those not yet drawn in this pass, and put
    used cards at the bottom in order"; rulebook "rimettete la carta in fondo al mazzo"."""
    s = scenario(2)
    s, _ = roll(s, 1, 1)  # 2: Probabilità
    seen = []
    for i in range(16):
        s.phase, s.draw_deck, s.current = 5, 0, 0
        s.pos[0] = 2
        s.jail[0] = 0
        s, ev = apply_chance(s, bytes([i]) * 32)
        seen += [e.card for e in ev if isinstance(e, CardDrawn)]
    assert sorted(seen) == list(range(16))  # one full pass, no repeats
    assert s.undrawn[0] == 0


def test_advance_to_go_collects():
    """"Andate avanti fino al VIA! Ritirate 200.\""""
    s = scenario(2, pos={0: 5})
    s, _ = roll(s, 1, 1)  # 7 Imprevisti
    s, _ = _draw(s, 1, _card(1, "fino al VIA"))
    assert s.pos[0] == 0 and s.cash[0] == 1700


def test_birthday_every_player_pays():
    """"È il vostro compleanno: ogni giocatore vi regala 10.\""""
    s = scenario(3)
    s, _ = roll(s, 1, 1)
    s, _ = _draw(s, 0, _card(0, "compleanno"))
    assert s.cash == [1520, 1490, 1490]


def test_jail_card_kept_and_removed_from_deck():
    """"Uscite gratis di prigione ... Potete conservare questa carta\""""
    s = scenario(2)
    s, _ = roll(s, 1, 1)
    s, _ = _draw(s, 0, 4)
    assert s.held[0] == [4] and 4 not in s.decks[0]


def test_nearest_station_double_rent_and_back_three():
    """"Andate avanti fino alla stazione ferroviaria più vicina ... pagate al proprietario il
    doppio dell'affitto"; "Fate 3 passi indietro\""""
    s = scenario(2, pos={0: 5}, owners={15: 1})
    s, _ = roll(s, 1, 1)  # 7 Imprevisti
    s, _ = _draw(s, 1, _card(1, "stazione ferroviaria"))
    assert s.pos[0] == 15 and s.claims[0][3] == 50
    s = scenario(2, pos={0: 5})
    s, _ = roll(s, 1, 1)
    s, _ = _draw(s, 1, _card(1, "3 passi"))
    assert s.pos[0] == 4 and s.cash[0] == 1300  # Tassa patrimoniale


def test_nearest_utility_rolls_new_dice_times_ten():
    """"Andate avanti fino alla società più vicina ... lanciate i dadi e pagate al proprietario
    10 volte il valore uscito sui dadi.\""""
    s = scenario(2, pos={0: 20}, owners={28: 1})
    s, _ = roll(s, 1, 1)  # 22 Imprevisti
    s, _ = _draw(s, 1, _card(1, "società più vicina"))
    assert s.pos[0] == 28 and pending(s).kind == "dice"
    s, _ = forced_chance(s, dice=[2, 3])
    assert s.claims[0][3] == 50


def test_repairs_and_pay_each_player():
    """"Eseguite lavori di manutenzione ... 25 per ogni casa e 100 per ogni albergo";
    "pagate 50 a ogni giocatore\""""
    s = scenario(3, pos={0: 5}, owners={1: 0, 3: 0}, levels={1: 5, 3: 4})
    s, _ = roll(s, 1, 1)
    s, _ = _draw(s, 1, _card(1, "manutenzione"))
    assert s.cash[0] == 1500 - 4 * 25 - 100
    s = scenario(3, pos={0: 5})
    s, _ = roll(s, 1, 1)
    s, _ = _draw(s, 1, _card(1, "presidenza"))
    assert s.cash == [1400, 1550, 1550]


# Issue 12, item 1: the multiplier of "più vicina" cards is for an owned square only. Card
# texts: shared/reference/cards_it_classic.json (the Hasbro classico Imprevisti), the same
# texts in engine/editions/data/fabrianopoli_cards.json.
STATION_CARD = ("\"Andate avanti fino alla stazione ferroviaria più vicina. Se è libera potete "
                "acquistarla dalla Banca; se è posseduta da un altro giocatore pagate al "
                "proprietario il doppio dell'affitto che gli spetta normalmente.\"")
UTILITY_CARD = ("\"Andate avanti fino alla società più vicina. Se è libera potete acquistarla "
                "dalla Banca; se è posseduta da un altro giocatore lanciate i dadi e pagate al "
                "proprietario 10 volte il valore uscito sui dadi.\"")


def _rents(ev):
    from engine.events import RentDue
    return [(e.creditor, e.debtor, e.square, e.amount) for e in ev if isinstance(e, RentDue)]


@pytest.mark.parametrize("edition", ["classico", "fabrianopoli"])
def test_station_card_multiplier_ends_on_an_unowned_station(edition):
    """Card text (STATION_CARD): the double is owed only "se è posseduta da un altro
    giocatore"; buying the free station ends the card, so the double rolled with it lands
    seat 0 on seat 1's Piazza Dante (19, rent 16) at the normal rent, not 32."""
    ed = EDITIONS[edition]
    card = next(c.index for c in ed.decks[1] if "stazione ferroviaria" in c.text)
    s = scenario(2, pos={0: 5}, owners={19: 1}, edition=edition)
    s, _ = roll(s, 1, 1)  # 7 Imprevisti, a double
    s, _ = forced_chance(s, picks=[draw_index(s, 1, card)])
    assert s.pos[0] == 15 and pending(s).kind == "buy_or_auction"
    s, _ = step(s, seat0=BuyProperty())
    assert s.owner[15] == 0 and s.mult == 1
    s, ev = roll(s, 2, 2)  # the double's second roll: 15 -> 19
    assert _rents(ev) == [(1, 0, 19, 16)]


@pytest.mark.parametrize("edition", ["classico", "fabrianopoli"])
def test_utility_card_multiplier_ends_after_an_auction(edition):
    """Card text (UTILITY_CARD): "10 volte il valore uscito sui dadi" only "se è posseduta da
    un altro giocatore". The free utility is auctioned; the next player then pays the plain
    rent of Vicolo Stretto (3, owned with Vicolo Corto by seat 0: 4 x 2 = 8), not 10 times
    it, and no extra dice roll starts."""
    ed = EDITIONS[edition]
    card = next(c.index for c in ed.decks[1] if "società più vicina" in c.text)
    s = scenario(2, pos={0: 19}, owners={1: 0, 3: 0}, edition=edition)
    s, _ = roll(s, 1, 2)  # 22 Imprevisti
    s, _ = forced_chance(s, picks=[draw_index(s, 1, card)])
    assert s.pos[0] == 28 and pending(s).kind == "buy_or_auction"
    s, _ = step(s, seat0=DeclineProperty())
    s, _ = step(s, seat1=Bid(10), seat0=PassBid())
    assert s.owner[28] == 1 and s.mult == 1 and s.current == 1
    s, ev = roll(s, 1, 2)  # seat 1: 0 -> 3
    assert _rents(ev) == [(0, 1, 3, 8)] and pending(s).kind != "dice"
