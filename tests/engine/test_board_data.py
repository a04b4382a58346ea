"""Board and card data of classico (engine/editions/data, from shared/reference)."""
from engine import EDITIONS
from engine.editions import K_STATION, K_STREET, K_TAX, K_UTILITY

ED = EDITIONS["classico"]


def test_forty_squares_with_italian_names():
    """Rulebook "LE CASELLE DEL TABELLONE": VIA!, PRIGIONE/TRANSITO, PARCHEGGIO GRATUITO, ..."""
    assert len(ED.squares) == 40
    assert ED.squares[0].name == "VIA!"
    assert ED.squares[39].name == "Parco della Vittoria"
    assert sum(1 for q in ED.squares if q.kind == K_STREET) == 22
    assert sum(1 for q in ED.squares if q.kind == K_STATION) == 4
    assert sum(1 for q in ED.squares if q.kind == K_UTILITY) == 2
    assert sum(1 for q in ED.squares if q.price) == 28  # "28 contratti"


def test_contract_examples_match_rulebook():
    """Hasbro contracts: "BASTIONI GRAN SASSO A6 A12 A30 A90 A270 A400 A550 ... A50" and
    "VIALE VESUVIO A8 A16 A40 A100 A300 A450 A600 ... A50"."""
    bgs = ED.squares[6]
    assert bgs.name == "Bastioni Gran Sasso"
    assert bgs.rent == (6, 12, 30, 90, 270, 400, 550) and bgs.house_cost == 50
    vv = ED.squares[9]
    assert vv.name == "Viale Vesuvio"
    assert vv.rent == (8, 16, 40, 100, 300, 450, 600) and vv.house_cost == 50


def test_taxes_and_money_rules():
    """"TASSA PATRIMONIALE PAGATE A200", "TASSA DI LUSSO PAGATE A100", "Totale = a1500",
    "RITIRATE AL PASSAGGIO A200", "Pagate b50", "32 case", "12 alberghi"."""
    assert (ED.squares[4].kind, ED.squares[4].name, ED.squares[4].amount) == (
        K_TAX, "Tassa patrimoniale", 200)
    assert (ED.squares[38].name, ED.squares[38].amount) == ("Tassa di lusso", 100)
    assert (ED.start_cash, ED.go_salary, ED.jail_fine, ED.houses, ED.hotels) == (
        1500, 200, 50, 32, 12)
    assert (ED.auction_open, ED.auction_min_raise) == (10, 1)
    assert ED.station_rents == (25, 50, 100, 200)  # guida web "1 stazione: 25 € ..."
    assert ED.utility_multipliers == (4, 10)  # "4 volte ... 10 volte il totale uscito sui dadi"


def test_mortgage_values_and_lift_rounding():
    """"valore ipotecario aumentato del 10%": mortgage = half price, lift rounded up."""
    tb = ED.tables
    for q in ED.squares:
        if q.price:
            assert q.mortgage * 2 == q.price
            assert tb.lift[q.index] == q.mortgage + -(-q.mortgage // 10)
    assert tb.lift[12] == 83  # 75 + 7.5 rounded up


def test_decks_sixteen_cards_each_with_jail_card():
    """"16 carte degli Imprevisti, 16 carte delle Probabilità"; "Uscite gratis di prigione"."""
    assert ED.deck_names == ("Probabilità", "Imprevisti")
    for deck in ED.decks:
        assert len(deck) == 16
        assert sum(c.kind == "get_out_of_jail_free" for c in deck) == 1
        assert all(c.text for c in deck)
    assert any("Largo Colombo" in c.text and c.target == 24 for c in ED.decks[1])
