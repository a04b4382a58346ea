"""Pilot tests of the last rough edges a newcomer met on the game screen (issue 11, H17):
j/J say why no vote went out; the centre's turn line names the turn counter and whose move it
is without a seat badge that reads like a turn number; square labels stay recognisable in small
cells in every edition."""

from __future__ import annotations

import pytest

from engine.editions import EDITIONS
from engine.testing import forced_chance, scenario
from pilot_support import commands, log_text, sync, until
from ui.app import LanopoliApp
from ui.board_layout import short_name
from ui.i18n import set_language, term
from ui.play import LocalGame
from ui.screens import GameScreen
from ui.widgets import Board

pytestmark = pytest.mark.usefixtures("english")


class WaitingGame(LocalGame):
    """A local game that reports a wait for Giulia (as a network driver does after
    WAIT_NOTICE_S) but whose j/J votes are refused (already voted)."""

    def waiting(self):
        return (1,), 12.0


def _game(cls=LocalGame):
    return cls(("Marco", "Giulia", "Bruno"), 0, state=scenario(3),
               chance=lambda state, k: forced_chance(state, dice=(1, 2)), delay=0)


@sync
async def test_j_and_capital_j_say_nobody_is_waited_for():
    app = LanopoliApp(driver=_game())
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameScreen) and "roll" in commands(app))
        await pilot.press("J")
        await until(pilot, lambda: "Nobody to skip: the game is not waiting for anyone." in log_text(app))
        await pilot.press("j")
        await until(pilot, lambda: "Nobody to vote out: the game is not waiting for anyone." in log_text(app))


@sync
async def test_a_refused_vote_says_no_vote_was_sent():
    app = LanopoliApp(driver=_game(WaitingGame))
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameScreen) and "roll" in commands(app))
        await pilot.press("J")
        await until(pilot, lambda: "this turn cannot be skipped now" in log_text(app))
        assert "Nobody to skip" not in log_text(app)


def test_no_vote_lines_are_italian():
    set_language("it")
    try:
        from ui.i18n import _
        assert _("Nobody to skip: the game is not waiting for anyone.") == \
            "Nessuno da saltare: la partita non aspetta nessuno."
        assert _("Nobody to vote out: the game is not waiting for anyone.") == \
            "Nessuno da escludere: la partita non aspetta nessuno."
    finally:
        set_language("en")


def _turn_line(lang: str, names: tuple, current: int, turn: int) -> str:
    """The centre's turn line as plain text, rendered by the Board widget's own method."""
    set_language(lang)
    try:
        state = scenario(len(names))
        state.current, state.turn = current, turn
        board = Board()
        board.names = names
        lines = board._centre(state, 60, 10)
        text = [t.plain.rstrip() for t in lines]
        return next(t for t in text if t.startswith(("Turn", "Turno")))
    finally:
        set_language("en")


@pytest.mark.parametrize("lang,expected", [
    ("en", "Turn 20 · Dario to play  4"),
    ("it", "Turno 20 · tocca a Dario  4"),
])
def test_the_turn_line_shows_the_turn_counter_then_whose_move(lang, expected):
    assert _turn_line(lang, ("Anna", "Bruno", "Carla", "Dario"), 3, 20) == expected


def test_the_italian_turn_line_uses_ad_before_a_vowel():
    assert _turn_line("it", ("Anna", "Bruno"), 0, 3) == "Turno 3 · tocca ad Anna  1"



@pytest.mark.parametrize("name,width,kind,expected", [
    ("Borgo 2000", 4, 1, "Bo2k"),  # was "2000": a number alone says nothing
    ("Borgo 2000", 5, 1, "Bor2k"),
    ("Borgo 2000", 7, 1, "B.2000"),
    ("Da Pesci", 4, 4, "Pesc"),  # was "Da"
    ("Da Pesci", 7, 4, "Pesci"),
    ("Bastioni Gran Sasso", 6, 1, "B.Sass"),  # was "B.G.Sa"
    ("Lotti Fischi e Botti", 7, 3, "L.Botti"),  # was "L.F.e.B"
    ("Tassa sugli affitti", 7, 4, "T.Affit"),  # was "T.s.aff", then "T.affit" (lower case: H108)
    ("Riva (VIA!)", 6, 0, "R.VIA"),  # was "R.(VIA"
    ("Commissariato / Transito", 7, 6, "Commiss"),  # was "C.Trans"
    ("Prigione / Transito", 4, 6, "Prig"),
    ("Viale Vesuvio", 7, 1, "V.Vesuv"),
])
def test_square_abbreviations_stay_recognisable(name, width, kind, expected, italian):
    assert short_name(name, width, kind) == expected


@pytest.mark.parametrize("edition", sorted(EDITIONS))
@pytest.mark.parametrize("width", range(4, 12))
def test_every_square_label_fits_and_keeps_a_word(edition, width, each_language):
    """Every square of every edition, at every cell width of 80x24..160x50, in both languages
    (ui.i18n.term): the label fits, is at least three characters long (or the English
    corner's "GO"), and it has a letter of the name (never a bare number, never a small word such as
    "Da")."""
    for sq in EDITIONS[edition].squares:
        label = short_name(term(sq.name), width, sq.kind)
        assert 0 < len(label) <= width, (sq.name, label)
        assert len(label) >= 3 or label == term("VIA!"), (sq.name, label)
        assert any(c.isalpha() for c in label), (sq.name, label)
        assert label.lower() not in {"da", "il", "la", "el", "e", "di", "de"}, (sq.name, label)
        if width <= 5:  # a tiny cell draws the owner's number right after the label
            assert not label[-1].isdigit(), (sq.name, label)
