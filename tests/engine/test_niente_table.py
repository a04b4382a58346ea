"""niente-e-come-sembra, the table and the turn: one test per rule, each naming the rulebook passage
(rulebooks/monopoly-niente-e-come-sembra.txt) or the design choice of docs/RULES.md.

The deal of the 1,500, the board (no taxes, no utilities), the three Imprevisti laid face up, the
stations, the Via, jail, and niente actions refused in classico. Shared helpers:
tests/engine/niente_kit.py.
"""

import pytest

from engine import EDITIONS, apply_action, apply_chance, new_game, pending
from engine import actions as A
from engine.rules import banknotes as B
from engine.state import P_END_MOVE
from engine.testing import forced_chance, roll, scenario, step

from niente_kit import ED, IMP, scenario_with_bills as _state


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_new_game_deals_the_1500_split(seats):
    """"Il banchiere mescola le banconote e consegna a ciascun giocatore (Total = 1500)":
    2×500, 3×100, 3×50, 1×20, 3×10 each; two green magnifier tokens each ("Ogni giocatore
    prende due gettoni")."""
    s = new_game(ED, seats)
    den = s.nx[B.NX_DEN]
    for w in s.nx[B.NX_WALLET]:
        assert sorted(den[b] for b in w) == [10, 10, 10, 20, 50, 50, 50, 100, 100, 100, 500, 500]
    assert s.cash == [1500] * seats and s.nx[B.NX_LENS] == [2] * seats
    B.check_bills(s)


def test_board_has_no_taxes_no_utilities():
    """"Non ci sono né società né tasse da pagare": 36 squares, 22 streets, 4 trains."""
    ed = EDITIONS[ED]
    kinds = [sq.kind for sq in ed.squares]
    assert len(ed.squares) == 36 and len(ed.tables.properties) == 22
    assert 3 not in kinds and 4 not in kinds  # K_UTILITY, K_TAX
    assert len(ed.decks[0]) == 14 and len(ed.decks[1]) == 24


def test_first_player_step_lays_three_imprevisti_face_up():
    """"pescatene tre e mettetele ... una su ogni casella" (face up)."""
    s = new_game(ED, 3)
    s, _ = apply_chance(s, b"x" * 32)
    row = s.nx[B.NX_FACEUP]
    assert len(row) == 3 and all(c >= 0 for c in row) and len(s.decks[IMP]) == 21


def test_station_moves_to_next_free_property_buy_or_auction():
    """"Quando vi fermate su una Stazione, avanzate fino alla proprietà libera successiva.
    Dovete acquistarla o metterla all'asta"; passing VIA! pays 200."""
    s = _state(owners={34: 1, 35: 1, 1: 1})
    s.pos[0] = 30
    s, ev = roll(s, 1, 1)  # 32: Stazione Est -> next free is 3 (Vicolo Stretto), via VIA!
    assert s.pos[0] == 3 and pending(s).kind == "buy_or_auction"
    assert s.cash[0] == 1700


def test_station_with_nothing_free_does_nothing():
    """Design: with no unowned property left the train goes nowhere (the game has ended
    anyway unless a property was sold back)."""
    from engine.rules.niente_estate import board_train
    s = _state(owners={sq: 1 for sq in EDITIONS[ED].tables.properties})
    s.pos[0] = 4
    board_train(s, [], 0)
    assert s.pos[0] == 4 and s.phase == P_END_MOVE


def test_via_pays_200_and_turns_tokens_green():
    """"Se con la vostra pedina superate la casella VIA! ... incassate 200 ... Se avete gettoni
    ... rossi, girateli in modo tale che la faccia verde sia rivolta verso l'alto"."""
    s = _state()
    s.nx[B.NX_LENS][0] = 0
    s.pos[0] = 34
    s, _ = roll(s, 1, 2)
    assert s.cash[0] == 1700 and s.nx[B.NX_LENS][0] == 2


def test_niente_actions_refused_in_classico():
    """Actions 40-45 belong to this edition only."""
    s = scenario(2)
    with pytest.raises(Exception) as e:
        apply_action(s, 0, A.TakeCard(0))
    assert e.value.code == "not_in_edition"


def test_third_failed_jail_try_pays_50_and_rolls_again():
    """"Se entro il terzo turno in prigione non riuscite a ottenere due numeri uguali, pagate
    50, tirate di nuovo i dadi e avanzate." (Come si esce di prigione?, 3): the move is by a
    new roll, not by the failed one (classico moves by the failed roll)."""
    from engine.events import LeftJail, Moved
    jail = EDITIONS[ED].jail_square
    s = _state(2, jail={0: 3}, pos={0: jail})
    s, ev = roll(s, 2, 3)  # the third try fails
    assert LeftJail(0, "third_turn") in ev and s.cash[0] == 1500 - 50 and s.jail[0] == 0
    assert not any(isinstance(e, Moved) for e in ev) and s.pos[0] == jail
    while not pending(s).chance:  # an inspection window may open on the fine first
        s, _ = step(s)
    assert pending(s).kind == "dice"
    s, ev = forced_chance(s, dice=(4, 2))
    assert Moved(0, jail, jail + 6) in ev and s.pos[0] == jail + 6
    assert not EDITIONS["classico"].jail_third_try_rerolls
