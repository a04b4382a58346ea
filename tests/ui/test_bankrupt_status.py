"""A player whose seat went bankrupt follows the game to its end: the board's centre and the
bottom line say so, and no longer offer "a: let the bot play for me" (H101's walk: a bankrupt
player read "The bot is playing for you (press a to take over)" for the rest of the game)."""

from __future__ import annotations

import pytest

from engine.testing import scenario
from ui.i18n import set_language
from ui.play import LocalGame
from ui.screens.game import GameScreen

NAMES = ["Marco", "Giulia", "Anna"]


def _screen(out: bool, autoplay: bool) -> GameScreen:
    st = scenario(3, current=1)
    if out:
        st.out[0] = 1
    game = LocalGame(NAMES, 0, state=st, delay=0)
    game.human.set_autoplay(autoplay)
    return GameScreen(game)


@pytest.mark.parametrize("autoplay", [False, True])
def test_a_bankrupt_player_reads_that_it_follows_the_game(autoplay):
    screen = _screen(out=True, autoplay=autoplay)
    assert screen.status_text() == "You are bankrupt: you can follow the game to its end."
    footer = screen.footer_text()
    assert "bot" not in footer and footer.endswith("q: quit")


def test_a_player_in_the_game_keeps_the_bot_key():
    screen = _screen(out=False, autoplay=True)
    assert screen.status_text() == "The bot is playing for you (press a to take over)."
    assert "a: let the bot play for me (on)" in screen.footer_text()


def test_the_italian_text():
    set_language("it")
    try:
        assert _screen(out=True, autoplay=True).status_text() == \
            "Sei in bancarotta: puoi seguire la partita fino alla fine."
    finally:
        set_language("en")
