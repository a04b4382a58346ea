"""Editrice Giochi euro edition (rulebooks/monopoli-editrice-giochi.txt): every rule that differs
from classico, each test quoting the passage it implements; choices: docs/RULES.md."""
import pytest

from engine import EDITIONS, IllegalAction, apply_action, apply_chance, legal_actions, new_game
from engine import pending
from engine.actions import (AcceptTrade, Bid, BuildHouse, DeclareBankruptcy, DeclineProperty,
                            DrawCardInstead, LiftMortgage, Mortgage, PayCardFine, PayJailFine,
                            ProposeTrade, RollDice, SellBuilding)
from engine.events import ActionRefused, CardChoiceOffered, ContractDealt
from engine.testing import draw_index, forced_chance, roll, scenario, step

ED = EDITIONS["editrice-giochi"]
TB = ED.tables
TABLE = {2: (8750, 7), 3: (7500, 6), 4: (6250, 5), 5: (5000, 4), 6: (3750, 3)}


def _first_player_dice(n):
    return [6, 6] + [1, 2] * (n - 1)  # seat 0 starts, no tie


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_starting_money_and_contracts_paid_to_the_bank(n):
    """"Numero giocatori / Denaro Iniziale / Numero contratti: 2 € 8.750 7, 3 € 7.500 6, 4 € 6.250
    5, 5 € 5.000 4, 6 € 3.750 3"; "Prima di iniziare la partita, i giocatori devono pagare alla
    Banca il valore di acquisto dei contratti che hanno ricevuto.\""""
    start, k = TABLE[n]
    s = new_game("editrice-giochi", n)
    assert s.cash == [start] * n and pending(s).kind == "first_player"
    s, ev = forced_chance(s, dice=_first_player_dice(n), picks=[0] * (n * k))
    assert sum(isinstance(e, ContractDealt) for e in ev) == n * k
    for seat in range(n):
        mine = [sq for sq in TB.properties if s.owner[sq] == seat]
        assert len(mine) == k
        assert s.cash[seat] == start - sum(TB.price[sq] for sq in mine)
    # picks of 0 deal the deck in board order, round-robin from seat 0
    assert s.owner[TB.properties[0]] == 0 and s.owner[TB.properties[1]] == 1 % n
    assert sum(s.cash) + s.bank == 0 and pending(s).kind == "roll" and s.current == 0


def test_contracts_dealt_at_random_from_the_beacon():
    """"I contratti devono essere distribuiti casualmente, dopo averli accuratamente mischiati":
    the deal is a chance outcome of the first chance step, so different beacons deal
    differently and nobody chooses."""
    s = new_game("editrice-giochi", 4)
    deals = {tuple(apply_chance(s, bytes([b]) * 32)[0].owner) for b in range(6)}
    assert len(deals) == 6


@pytest.mark.parametrize("n", [1, 7, 8])
def test_two_to_six_players(n):
    """"Da due a sei giocatori (anche sette, quando chi fa da banchiere non partecipa al
    gioco)": the program is the banker, so 2..6."""
    with pytest.raises(ValueError):
        new_game("editrice-giochi", n)


def test_prices_are_the_classic_ones_times_2_5():
    """"riceve dalla Banca € 500"; "pagamento di € 125"; €3.750 = €1.500 × 2.5. Viale dei Giardini
    900 and the stations 480 as on the printed euro board (docs/RULES.md)."""
    classic = EDITIONS["classico"].tables
    assert ED.go_salary == 500 and ED.jail_fine == 125 and ED.jail_third_fine == 125
    for sq in TB.properties:
        if sq == 37 or TB.kind[sq] == 2:
            continue
        assert TB.price[sq] == classic.price[sq] * 5 // 2
        assert TB.mortgage[sq] == (TB.price[sq] + 1) // 2  # "la metà del prezzo originario"
    assert TB.price[37] == 900 and [TB.price[sq] for sq in TB.stations] == [480] * 4
    assert TB.price[1] == 150 and TB.price[39] == 1000 and TB.price[12] == 375
    assert TB.rent[1] == (5, 10, 25, 75, 225, 400, 625)
    assert TB.rent[37][0] == 88  # 35 × 2.5 = 87,5 rounded up
    assert TB.amount[4] == 500 and TB.amount[38] == 250
    assert ED.station_rents == (63, 125, 250, 500) and ED.utility_multipliers == (10, 25)


def test_rent_is_paid_without_being_claimed():
    """"Quando un giocatore si ferma su una proprietà di un avversario, deve pagare al
    proprietario l'affitto indicato sul contratto" (no claim rule in this rulebook)."""
    s = scenario(2, edition="editrice-giochi", owners={6: 1}, pos={0: 3})
    s, _ = roll(s, 1, 2)
    assert s.claims == [] and s.cash == [8750 - 15, 8750 + 15]


def test_auction_opens_at_5():
    """"Il prezzo di partenza per l'asta è di € 5 per qualsiasi proprietà.\""""
    s = scenario(2, edition="editrice-giochi", pos={0: 3})
    s, _ = roll(s, 1, 2)
    s, _ = step(s, seat0=DeclineProperty())
    assert Bid(5) in legal_actions(s, 0) and Bid(5) in legal_actions(s, 1)
    s, _ = step(s, seat0=Bid(5), seat1=Bid(6))
    s, _ = step(s, seat0=None)
    assert s.owner[6] == 1 and s.cash[1] == 8750 - 6


def test_house_shortage_auction_opens_at_5():
    """"Se le case disponibili sono limitate e due o più giocatori le richiedono, queste vengono
    messe all'asta, una alla volta, partendo da un valore minimo di € 5.\""""
    s = scenario(3, edition="editrice-giochi", owners={1: 0, 3: 0, 37: 1, 39: 1})
    s.houses = 1
    s, ev = step(s, seat0=BuildHouse(3), seat1=BuildHouse(39))
    assert ActionRefused(0, BuildHouse.CODE, "shortage_auction") in ev
    assert Bid(5) in legal_actions(s, 0)
    s, ev = step(s, seat0=Bid(5), seat1=Bid(4))
    assert ActionRefused(1, Bid.CODE, "bid_too_low") in ev
    assert s.level[3] == 1 and s.houses == 0 and s.cash[0] == 7500 - 5  # the bid, not €125


def test_lotteria_di_merano():
    """Probabilità "Avete vinto un premio di consolazione alla Lotteria di Merano: ritirate
    10.000 lire" — € 250 on the euro cards (reference cards_it_classic.json)."""
    card = next(c for c in ED.decks[0] if "Merano" in c.text)
    assert card.kind == "collect" and card.amount == 250
    s = scenario(2, edition="editrice-giochi", pos={0: 0})
    s, _ = roll(s, 1, 1)
    s, _ = forced_chance(s, picks=[draw_index(s, 0, card.index)])
    assert s.cash[0] == 8750 + 250 and pending(s).kind == "roll"  # the double rolls again


def _pay_or_draw_state():
    card = next(c for c in ED.decks[0] if c.kind == "pay_or_draw")
    s = scenario(2, edition="editrice-giochi", pos={0: 0})
    s, _ = roll(s, 1, 1)
    s, ev = forced_chance(s, picks=[draw_index(s, 0, card.index)])
    assert CardChoiceOffered(0, 25, 1) in ev and pending(s).kind == "card_choice"
    assert pending(s).actors == (0,)
    assert PayCardFine() in legal_actions(s, 0) and DrawCardInstead() in legal_actions(s, 0)
    assert PayCardFine() not in legal_actions(s, 1)
    return s


def test_pay_the_fine_or_draw_an_imprevisti():
    """Probabilità "Pagate una multa di 1.000 lire, oppure prendete un cartoncino dagli
    «Imprevisti»" (€ 25): the player chooses."""
    s = _pay_or_draw_state()
    paid, _ = step(s, seat0=PayCardFine())
    assert paid.cash[0] == 8750 - 25 and pending(paid).kind == "roll"
    drew, _ = step(s, seat0=DrawCardInstead())
    assert drew.cash[0] == 8750 and pending(drew).kind == "card" and drew.draw_deck == 1
    merano = next(c for c in ED.decks[1] if "terno al lotto" in c.text)
    drew, _ = forced_chance(drew, picks=[draw_index(drew, 1, merano.index)])
    assert drew.cash[0] == 8750 + 250


def test_silence_at_a_card_choice_pays_the_fine():
    """Rule choice (docs/RULES.md): a player who sends nothing pays, so nobody can block."""
    s = _pay_or_draw_state()
    s2, _ = step(s)
    assert s2.cash[0] == 8750 - 25 and pending(s2).kind == "roll"
    with pytest.raises(IllegalAction):
        apply_action(s, 1, PayCardFine())


def test_lifting_a_mortgage_costs_ten_percent_rounded_up():
    """"occorre pagare alla Banca il valore dell'ipoteca maggiorato del 10% (arrotondando sempre
    per eccesso)": Società Elettrica, mortgage 188, lift 188 + 19."""
    s = scenario(2, edition="editrice-giochi", owners={12: 0})
    s, _ = step(s, seat0=Mortgage(12))
    assert s.cash[0] == 8750 + 188
    s, _ = step(s, seat0=LiftMortgage(12))
    assert s.cash[0] == 8750 + 188 - 207


def test_houses_sell_back_at_half_rounded_up():
    """"possono rivendere le loro case alla Banca a metà del prezzo indicato sul contratto" with
    the book's only rounding rule, "arrotondando sempre per eccesso" (issue 12, item 2): a
    €125 house of Vicolo Corto sells for €63, not €62; a hotel broken into 4 houses too, and
    the money a debtor could still raise counts them the same way."""
    from engine.rules.building import liquidation_value
    assert TB.house_cost[1] == 125 and TB.sell_back[1] == 63
    s = scenario(2, edition="editrice-giochi", owners={1: 0, 3: 0}, levels={1: 1, 3: 5})
    assert liquidation_value(s, 0) == 6 * 63 + 2 * TB.mortgage[1]
    s, _ = step(s, seat0=SellBuilding(3))
    assert s.level[3] == 4 and s.cash[0] == 8750 + 63
    s, _ = step(s, seat0=SellBuilding(3))  # evenly: the higher street first
    assert s.level[3] == 3 and s.cash[0] == 8750 + 2 * 63
    assert sum(s.cash) + s.bank == 0


def test_buying_mortgaged_property_pays_ten_percent_to_the_bank():
    """"Se si vende un terreno ipotecato ad un altro giocatore, il compratore deve pagare alla
    Banca il 10 % dell'ipoteca.\""""
    s = scenario(2, edition="editrice-giochi", owners={12: 1}, mortgaged=[12])
    s, _ = step(s, seat0=ProposeTrade(1, (), (12,), 100, 0, (), (), ()))
    s, _ = step(s, seat1=AcceptTrade(0, ()))
    assert s.owner[12] == 0 and s.mort[12] == 1
    assert s.cash == [8750 - 100 - 19, 8750 + 100]


def test_bankruptcy_goes_to_the_bank_which_pays_the_creditor_in_full():
    """"tutto ciò che egli possiede passa alla Banca che paga integralmente il creditore e
    rimette immediatamente le proprietà all'asta, ad esclusione delle case e degli alberghi.\""""
    s = scenario(3, edition="editrice-giochi", pos={0: 37}, cash={0: 100},
                 owners={1: 0, 3: 0, 39: 1}, levels={1: 1, 3: 1, 39: 5})
    s, _ = roll(s, 1, 1)  # 39 Parco della Vittoria with a hotel: rent 5000
    assert pending(s).kind == "raise_money"
    assert DeclareBankruptcy() in legal_actions(s, 0)
    cash1 = s.cash[1]
    s, _ = step(s, seat0=DeclareBankruptcy())
    assert s.out[0] and s.cash[1] == cash1 + 5000  # paid in full by the bank
    assert s.houses == ED.houses  # the buildings are not auctioned: back to the bank
    assert pending(s).kind == "auction_bid" and s.auc_sq == 1 and s.auc_queue == [3]
    assert s.owner[1] == -1 and s.level[1] == 0
    assert sum(s.cash) + s.bank == 0


def test_jail_pay_125_before_rolling():
    """"mediante il pagamento di € 125 al suo prossimo turno, prima di lanciare i dadi\""""
    s = scenario(2, edition="editrice-giochi", pos={0: 10}, jail={0: 1})
    s, _ = step(s, seat0=PayJailFine())
    assert s.cash[0] == 8750 - 125 and s.jail[0] == 0 and pending(s).kind == "roll"


def test_jail_after_three_turns_pay_125_and_move_by_the_last_roll():
    """"dopo tre turni, è costretto a pagare € 125 di multa e uscire, utilizzando per il
    movimento l'ultimo punteggio ottenuto.\""""
    s = scenario(2, edition="editrice-giochi", pos={0: 10}, jail={0: 3})
    s, _ = roll(s, 1, 2)
    assert s.jail[0] == 0 and s.pos[0] == 13 and s.cash[0] == 8750 - 125
    s = scenario(2, edition="editrice-giochi", pos={0: 10}, jail={0: 2})
    s, _ = roll(s, 3, 3)  # "ottenendo un punteggio doppio ... senza dover pagare nulla"
    assert s.jail[0] == 0 and s.pos[0] == 16 and s.cash[0] == 8750
    assert RollDice() not in legal_actions(s, 0)  # the double does not roll again
