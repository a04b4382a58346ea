"""The end screen's standings and rule per edition and ending (issue 11: "each edition's own rule
and figures"; looked at by hand in tmux by H17): niente-e-come-sembra counts money alone however
its game ended, classico and the timed games show net worth and what it is made of."""

from __future__ import annotations

import pytest

import engine
from engine.rules.timed import EXPIRED
from engine.state import P_OVER
from engine.testing import scenario
from ui.screens.end import ending, rule_text, standings_lines

pytestmark = pytest.mark.usefixtures("english")

NAMES = ("Anna", "Bruno", "Carla")


def _last_one_left(edition: str):
    """Anna, owning squares 1 and 3, is the last left: Carla went out first, then Bruno."""
    s = scenario(3, edition=edition, cash={0: 1500}, owners={1: 0, 3: 0})
    s.out[2], s.out[1] = 1, 2
    s.phase, s.winner = P_OVER, 0  # as engine.rules.bankruptcy ends it
    return s


def test_niente_last_player_left_shows_cash_not_a_zero_property_sum():
    s = _last_one_left("niente-e-come-sembra")
    assert ending(s) == "last" and engine.winner(s) == 0
    lines = standings_lines(s, NAMES)
    assert lines == ["1. Anna — €1.500 in cash", "2. Bruno — bankrupt", "3. Carla — bankrupt"]
    assert "last player left" in rule_text(s)


def test_classico_last_player_left_shows_net_worth_and_its_parts():
    s = _last_one_left("classico")
    worth = engine.standings(s)[0][1]
    assert worth == 1500 + 60 + 60  # Vicolo Corto and Vicolo Stretto at their price
    assert standings_lines(s, NAMES)[0] == "1. Anna — €1.620 (cash €1.500 + properties and buildings €120)"
    assert standings_lines(s, NAMES)[1:] == ["2. Bruno — bankrupt", "3. Carla — bankrupt"]


def _time_ran_out(edition: str):
    """Nobody bankrupt; the agreed time ran out (engine.rules.timed: EXPIRED set) with Anna
    owning Vicolo Corto with two houses."""
    s = scenario(3, edition=edition, cash={0: 1000, 1: 900, 2: 800}, owners={1: 0}, levels={1: 2},
                 options={"timed_minutes": 1})
    s.time_up |= EXPIRED
    s.phase, s.winner = P_OVER, 0
    return s


@pytest.mark.parametrize("edition,buildings", [
    ("editrice-giochi", "the buildings at 50% of their cost"),  # "alla metà del loro valore di acquisto"
    ("fabrianopoli", "what the buildings cost"),  # "delle case e degli alberghi", at full value
])
def test_a_timed_game_says_how_its_edition_counts_buildings(edition, buildings):
    s = _time_ran_out(edition)
    assert ending(s) == "timed"
    text = rule_text(s)
    assert "the agreed time ran out" in text and buildings in text
    assert "a tie goes to more cash, then to the first in turn order" in text  # engine.rules.timed.timed_winner
    assert standings_lines(s, NAMES)[0].startswith("1. Anna — €")


def test_a_mortgaged_company_of_editrice_giochi_counts_its_price_less_its_mortgage_value():
    """editrice-giochi's companies cost €375 and mortgage for €188 (the printed value, half
    rounded up); a mortgaged one counts 375 - 188 = €187 (engine.rules.endgame.net_worth). The
    end screen used to call that "half", which is €187,50: it now names the mortgage value, and
    its figures add up to the engine's."""
    ed = engine.EDITIONS["editrice-giochi"]
    company = next(i for i, sq in enumerate(ed.squares) if sq.price == 375)
    assert (ed.squares[company].price, ed.squares[company].mortgage) == (375, 188)
    s = scenario(3, edition="editrice-giochi", cash={0: 1000, 1: 900, 2: 800}, owners={company: 0},
                 mortgaged=[company], options={"timed_minutes": 1})
    s.time_up |= EXPIRED
    s.phase, s.winner = P_OVER, 0
    assert engine.standings(s)[0] == (0, 1187)
    assert standings_lines(s, NAMES)[0] == "1. Anna — €1.187 (cash €1.000 + properties and buildings €187)"
    text = rule_text(s)
    assert "less its mortgage value if mortgaged" in text and "half if mortgaged" not in text
