"""Rent and rent claims (monopoly-classico-hasbro.txt; regole-monopoly-guida-web.txt)."""
from engine import legal_actions, pending
from engine.actions import ClaimRent, RollDice
from engine.testing import roll, scenario, step


def _land_rent(owners, levels=None, mortgaged=(), start=0, dice=(3, 3), claim=True):
    """Seat 1 lands from ``start`` with ``dice`` on a property of seat 0; returns the rent."""
    d1, d2 = dice
    s = scenario(2, current=1, pos={1: start}, owners=owners, levels=levels or {},
                 mortgaged=mortgaged)
    s, _ = roll(s, d1, d2)
    if not claim:
        return s
    claims = [a for a in legal_actions(s, 0) if isinstance(a, ClaimRent)]
    if not claims:
        return 0
    before = s.cash[1]
    s, _ = step(s, seat0=claims[0])
    return before - s.cash[1]


def test_street_rent_and_complete_set_double():
    """Contract "Affitto A6 / Affitto per serie completa A12"; "il valore dell'affitto ...
    raddoppia\""""
    assert _land_rent({6: 0}) == 6
    assert _land_rent({6: 0, 8: 0, 9: 0}) == 12


def test_mortgaged_street_keeps_double_rent_on_others():
    """"è sempre possibile riscuotere affitti di importo superiore su tutte le altre strade
    appartenenti allo stesso colore che non sono state ipotecate.\""""
    assert _land_rent({6: 0, 8: 0, 9: 0}, mortgaged=[8]) == 12
    assert _land_rent({6: 0, 8: 0, 9: 0}, mortgaged=[6]) == 0  # "Non si possono riscuotere"


def test_house_and_hotel_rent():
    """Contract "Affitto con 1..4 case / albergo": Bastioni Gran Sasso 30/90/270/400/550."""
    owners = {6: 0, 8: 0, 9: 0}
    for lv, want in ((1, 30), (2, 90), (3, 270), (4, 400), (5, 550)):
        assert _land_rent(owners, levels={6: lv, 8: lv, 9: lv}) == want


def test_station_rent_by_count():
    """Guida web: "1 stazione: 25 € ... 4 stazioni: 200 €"; mortgaged ones still count."""
    assert _land_rent({5: 0}, start=0, dice=(2, 3)) == 25
    assert _land_rent({5: 0, 15: 0}, dice=(2, 3)) == 50
    assert _land_rent({5: 0, 15: 0, 25: 0, 35: 0}, mortgaged=[35], dice=(2, 3)) == 200


def test_utility_rent_is_dice_times_four_or_ten():
    """"Se il proprietario possiede 1 società, l'affitto è 4 volte il totale uscito sui dadi ...
    2 società, l'affitto è 10 volte\""""
    assert _land_rent({12: 0}, start=7, dice=(2, 3)) == 20
    assert _land_rent({12: 0, 28: 0}, start=7, dice=(2, 3)) == 50


def test_rent_lapses_when_next_player_rolls():
    """"Se invece non lo fa prima che il giocatore successivo abbia lanciato i dadi, non dovete
    pagargli più nulla!" """
    s = scenario(3, current=1, owners={6: 0})
    s, _ = roll(s, 2, 4)  # seat 1 lands on seat 0's street; seat 2 is next
    assert s.current == 2 and ClaimRent(6, 1) in legal_actions(s, 0)
    # Claimed in the same decision step as the next player's RollDice: still in time.
    s_ok, _ = step(s, seat0=ClaimRent(6, 1), seat2=RollDice())
    assert s_ok.cash[1] == 1494 and s_ok.cash[0] == 1506
    s_ok2, _ = step(s, seat2=RollDice(), seat0=None)
    s_late, _ = roll(s, 1, 2)  # next player rolled: the claim lapsed
    assert not [a for a in legal_actions(s_late, 0) if isinstance(a, ClaimRent)]
    assert s_late.cash[1] == 1500 and s_late.claims == []


def test_no_rent_claim_for_own_property():
    s = scenario(2, owners={6: 0})
    s, _ = roll(s, 2, 4)
    assert s.claims == [] and pending(s).actors == (1,)
