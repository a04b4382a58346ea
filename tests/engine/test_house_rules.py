"""House rules as lobby options (engine.rules.house_rules): off by default, part of the state
hash, unknown options refused; the free-parking pot of fabrianopoli.txt ("Variante")."""
import pytest

from engine import (EDITIONS, decode_state, encode_state, legal_actions, new_game, pending,
                    state_hash)
from engine.actions import DeclareBankruptcy, DeclineProperty
from engine.rules.house_rules import default_options
from engine.testing import draw_index, forced_chance, roll, scenario, step


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_options_are_off_by_default_and_in_the_hash(edition):
    ed = EDITIONS[edition]
    opts = default_options(ed)
    assert not any(opts.values()) and ("timed_minutes" in opts) == ed.timed_game
    base = new_game(edition, 2)
    assert new_game(edition, 2, opts) == base
    for key in ("free_parking_pot", "no_auctions", "double_go_salary"):
        s = new_game(edition, 2, {key: True})
        assert state_hash(s) != state_hash(base)
        assert decode_state(encode_state(s)) == s


@pytest.mark.parametrize("bad", [{"unknown": True}, {"no_auctions": 1},
                                 {"free_parking_pot": "yes"}, {"timed_minutes": -1},
                                 {"timed_minutes": True}, {"timed_minutes": 10_000}])
def test_bad_options_raise(bad):
    with pytest.raises(ValueError):
        new_game("fabrianopoli", 2, bad)


def test_free_parking_pot_collects_taxes_and_cards():
    """fabrianopoli.txt "Variante: In caso di importi da pagare alla Banca, si può decidere ... di
    mettere il denaro dovuto al centro del tabellone di gioco; saranno poi incassati dal
    giocatore che si ferma su 'Porcheggio dei Monticelli'.\""""
    s = scenario(2, edition="fabrianopoli", options={"free_parking_pot": True}, pos={0: 1})
    s, _ = roll(s, 1, 2)  # 4 Tassa sugli affitti 200
    assert s.pot == 200 and s.cash[0] == 1300
    s.pos[1] = 5
    s, _ = roll(s, 2, 3)  # seat 1: 5 -> 10, just visiting
    s.pos[0] = 15
    doctor = next(c for c in s.ed.decks[0] if c.kind == "pay")
    s, _ = roll(s, 1, 1)  # seat 0: 17 Probabilità (a double)
    s, _ = forced_chance(s, picks=[draw_index(s, 0, doctor.index)])
    assert s.pot == 200 + doctor.amount
    s, _ = roll(s, 1, 2)  # 20 Porcheggio dei Monticelli
    assert s.pot == 0 and s.cash[0] == 1500 and sum(s.cash) + s.bank == 0


def test_without_the_option_the_free_parking_does_nothing():
    """"chi ... si ferma sulla casella 'Porcheggio dei Monticelli', vi rimane senza subire alcuna
    conseguenza\""""
    s = scenario(2, edition="fabrianopoli", pos={0: 1})
    s, _ = roll(s, 1, 2)
    assert s.pot == 0
    s.pos[0] = 17
    s, _ = roll(s, 1, 2)
    assert s.cash[0] == 1300


def test_no_auctions_the_deed_stays_with_the_bank():
    s = scenario(2, edition="classico", options={"no_auctions": True}, pos={0: 3})
    s, _ = roll(s, 1, 2)
    s, _ = step(s, seat0=DeclineProperty())
    assert s.owner[6] == -1 and pending(s).kind == "roll" and s.current == 1


def test_no_auctions_a_bankrupt_estate_returns_to_the_bank():
    s = scenario(3, edition="classico", options={"no_auctions": True}, pos={0: 35},
                 cash={0: 50}, owners={5: 0}, mortgaged=[5])
    s, _ = roll(s, 1, 2)  # 38 Tassa di lusso 100
    s, _ = step(s, seat0=DeclareBankruptcy())
    assert s.out[0] and s.owner[5] == -1 and pending(s).kind == "roll"


def test_double_salary_when_a_roll_ends_on_via():
    s = scenario(2, edition="classico", options={"double_go_salary": True}, pos={0: 37})
    landed, _ = roll(s, 1, 2)
    assert landed.pos[0] == 0 and landed.cash[0] == 1900
    passed, _ = roll(s, 2, 3)
    assert passed.pos[0] == 2 and passed.cash[0] == 1700
    plain, _ = roll(scenario(2, edition="classico", pos={0: 37}), 1, 2)
    assert plain.cash[0] == 1700
    assert legal_actions(landed, 1)
