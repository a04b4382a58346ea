"""The end screen's standings and rule per edition and ending (issue 11: "each edition's own rule
and figures"; looked at by hand in tmux by H17): niente-e-come-sembra counts money alone however
its game ended, classico and the timed games show net worth and what it is made of."""

from __future__ import annotations

import pytest

import engine
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
