"""Fabrianopoli (rulebooks/fabrianopoli.txt): every rule that differs from classico, each test
quoting the passage it implements; choices: docs/RULES.md."""
import pytest

from engine import EDITIONS, IllegalAction, apply_action, legal_actions, new_game, pending
from engine.actions import (AuctionProperty, Bid, BuildHouse, ClaimRent, DeclareBankruptcy,
                            DeclineProperty, PayJailFine)
from engine.testing import roll, scenario, step

ED = EDITIONS["fabrianopoli"]
TB = ED.tables
CLASSIC = EDITIONS["classico"].tables


def test_board_names_and_prices_from_the_table():
    """Table at the top: "Riva € 200", "Vicolo del Piano € 60", "Melano Marischio € 200",
    "Il Majò € 120", "Parco della Ceresola € 400", "DA PESCI € 200", "La Vigliessa", ..."""
    names = [sq.name for sq in ED.squares]
    assert names[0].startswith("Riva") and names[1] == "Vicolo del Piano"
    assert names[10].startswith("Commissariato") and names[20] == "Porcheggio dei Monticelli"
    assert names[30] == "La Vigliessa" and names[39] == "Parco della Ceresola"
    assert [names[sq] for sq in TB.stations] == [
        "Melano Marischio", "Viacce Rucce Bastia", "Valico de Fossato", "P. L. Borgo Turfco"]
    assert [names[sq] for sq in TB.utilities] == ["El Marchigiano", "Lotti Fischi e Botti"]
    assert TB.price[9] == 120 and TB.price[34] == 320 and TB.price[39] == 400
    assert TB.amount[4] == 200 and TB.amount[38] == 200  # "Pagare € 200", "DA PESCI € 200"
    assert ED.start_cash == 1500 and ED.go_salary == 200 and ED.contracts_dealt == 0


def test_rents_are_the_classic_ones_by_position():
    """The book prints no rents ("l'affitto fissato sul contratto"): the classic rent table of
    the square at the same position and price (rulebooks/README.md)."""
    for sq in TB.properties:
        assert TB.price[sq] == CLASSIC.price[sq]
        assert TB.rent[sq] == CLASSIC.rent[sq] and TB.house_cost[sq] == CLASSIC.house_cost[sq]
        assert TB.mortgage[sq] == TB.price[sq] // 2  # "la metà del prezzo originario"
    assert ED.station_rents == EDITIONS["classico"].station_rents


def test_card_texts_name_fabriano_squares():
    """Classic decks ("16 per ciascun mazzo"), with the squares of this board."""
    texts = " ".join(c.text for d in ED.decks for c in d)
    assert "Parco della Ceresola" in texts and "Parco della Vittoria" not in texts


def test_leaving_jail_by_paying_costs_500_before_rolling():
    """"mediante il pagamento di € 500 al suo turno di gioco, pagamento che dovrà avvenire prima
    di gettare i dadi\""""
    s = scenario(2, edition="fabrianopoli", pos={0: 10}, jail={0: 1})
    s, _ = step(s, seat0=PayJailFine())
    assert s.cash[0] == 1000 and s.jail[0] == 0 and pending(s).kind == "roll"


def test_third_turn_pays_200_unless_double():
    """"Al terzo giro, il giocatore è obbligato ad uscire, pagando una tassa di uscita di € 200,
    a meno che non abbia tirato i dadi doppi, nel qual caso esce gratuitamente.\""""
    s = scenario(2, edition="fabrianopoli", pos={0: 10}, jail={0: 3})
    paid, _ = roll(s, 1, 2)
    assert paid.jail[0] == 0 and paid.pos[0] == 13 and paid.cash[0] == 1300
    free, _ = roll(s, 2, 2)
    assert free.jail[0] == 0 and free.pos[0] == 14 and free.cash[0] == 1500


def test_auction_opens_at_5():
    """"se non la compera, può però partecipare all'asta, che si apre partendo da 5 €\""""
    s = scenario(2, edition="fabrianopoli", pos={0: 3})
    s, _ = roll(s, 1, 2)
    s, _ = step(s, seat0=DeclineProperty())
    assert Bid(5) in legal_actions(s, 1)


def test_rent_must_be_claimed():
    """"I proprietari di terreni devono fare attenzione essi stessi a riscuotere quanto loro è
    dovuto; non è permesso reclamare crediti ... quando il giocatore successivo ha già gettato
    i dadi.\""""
    s = scenario(2, edition="fabrianopoli", owners={6: 1}, pos={0: 3})
    s, _ = roll(s, 1, 2)
    assert s.cash == [1500, 1500] and ClaimRent(6, 0) in legal_actions(s, 1)
    s, _ = step(s, seat1=ClaimRent(6, 0))
    assert s.cash == [1494, 1506]


def _in_debt():
    """Seat 0 lands on Parco della Ceresola with a hotel (rent 2000) owning Vicolo del Piano."""
    s = scenario(3, edition="fabrianopoli", pos={0: 37}, owners={1: 0, 39: 1},
                 levels={39: 5})
    s, _ = roll(s, 1, 1)
    s, _ = step(s, seat1=ClaimRent(39, 0))
    assert pending(s).kind == "raise_money"
    return s


def test_debtor_auction_opens_at_the_property_value():
    """"Quando un debitore decide di saldare il debito con un creditore mediante asta pubblica,
    questa parte dal valore del terreno che vuole mettere all'asta"; "potrà mettere all'asta le
    proprietà tra gli altri giocatori e affidarle ai migliori offerenti\""""
    s = _in_debt()
    s.cash[2] += 600
    s.bank -= 600
    assert AuctionProperty(1) in legal_actions(s, 0)
    s, _ = step(s, seat0=AuctionProperty(1))
    assert pending(s).kind == "auction_bid" and pending(s).actors == (1, 2)
    assert Bid(60) in legal_actions(s, 1)  # opens at the price, not at €5
    with pytest.raises(IllegalAction):
        apply_action(s, 2, Bid(59))
    s, _ = step(s, seat2=Bid(600))
    assert s.owner[1] == 2 and s.cash[2] == 1500 and pending(s).kind == "roll"
    assert s.cash[0] == 1500 + 600 - 2000 and s.cash[1] == 1500 + 2000  # the rent is paid


def test_debtor_auction_without_bids_leaves_the_deed_and_the_debt():
    """Rule choice (docs/RULES.md): no bid, nothing changes; the debtor keeps raising money."""
    s = _in_debt()
    s, _ = step(s, seat0=AuctionProperty(1))
    s, _ = step(s)
    assert s.owner[1] == 0 and pending(s).kind == "raise_money"
    assert DeclareBankruptcy() in legal_actions(s, 0)


def test_debtor_auction_only_for_debtors_and_unbuilt_property():
    """"pagarlo parte in buoni e parte in proprietà (libere da costruzioni)\""""
    s = scenario(2, edition="fabrianopoli", owners={1: 0})
    with pytest.raises(IllegalAction) as e:
        apply_action(s, 0, AuctionProperty(1))
    assert e.value.code == "not_in_debt"
    c = scenario(2, edition="classico", owners={1: 0})
    with pytest.raises(IllegalAction) as e:
        apply_action(c, 0, AuctionProperty(1))
    assert e.value.code == "not_available"


def test_bankruptcy_the_bank_pays_the_creditors_in_full():
    """"tutto quanto egli possiede passa alla Banca che paga integralmente i creditori ... La
    Banca mette all'asta fra i giocatori rimasti tutte le proprietà ritirate dal fallito\""""
    s = _in_debt()
    cash1 = s.cash[1]
    s, _ = step(s, seat0=DeclareBankruptcy())
    assert s.out[0] and s.cash[1] == cash1 + 2000
    assert pending(s).kind == "auction_bid" and s.auc_sq == 1 and s.owner[1] == -1


def test_two_to_six_players():
    """The rulebook gives no number; the classic box has six tokens (docs/RULES.md)."""
    for n in range(2, 7):
        assert new_game("fabrianopoli", n).n == n
    with pytest.raises(ValueError):
        new_game("fabrianopoli", 7)


def test_building_needs_a_complete_group():
    """"Un giocatore può erigerne solamente quando possiede tutti i terreni di uno stesso
    gruppo" (same as classico, on this board's groups)."""
    s = scenario(2, edition="fabrianopoli", owners={1: 0})
    assert BuildHouse(1) not in legal_actions(s, 0)
    s = scenario(2, edition="fabrianopoli", owners={1: 0, 3: 0})
    assert BuildHouse(1) in legal_actions(s, 0)
