"""The game screen's first log line is the table code of a network game (protocol.md §C2.4), in
the current language, so that players compare it out loud at the start (H156 BREAK #3: a host
can seat each player at its own table under one game id). A local game has no code: no line."""

from __future__ import annotations

import pytest

from engine.testing import scenario
from pilot_support import sync, until
from ui.app import LanopoliApp
from ui.i18n import set_language
from ui.play import LocalGame
from ui.screens.game import GameScreen
from ui.widgets import Board

NAMES = ("Marco", "Giulia", "Anna")


async def _shown(code: str | None, lang: str, size=(80, 24)) -> tuple[list[str], str]:
    """The game screen's log lines and the board as drawn, for a game whose driver has ``code``."""
    game = LocalGame(NAMES, 0, state=scenario(3), delay=0)
    if code is not None:
        game.table_code = code  # what ui.net_game.NetGame gives once its session started
    set_language(lang)
    try:
        app = LanopoliApp(driver=game)
        async with app.run_test(size=size) as pilot:
            await until(pilot, lambda: isinstance(app.screen, GameScreen) and app.screen.driver.state is not None)
            await pilot.pause(0.1)
            return list(app.screen.lines), app.screen.query_one(Board).render().plain
    finally:
        set_language("en")


@pytest.mark.parametrize("lang, text", [
    ("en", "Table code: M4GR-G87H — read it out loud: everyone at this table sees the same code."),
    ("it", "Codice del tavolo: M4GR-G87H — leggetelo ad alta voce: tutti a questo tavolo vedono lo stesso codice.")])
@sync
async def test_a_network_game_starts_its_log_with_the_table_code(lang, text):
    lines, board = await _shown("M4GR-G87H", lang)
    assert lines[0] == text
    assert sum("M4GR-G87H" in ln for ln in lines) == 1  # once, not at every redraw
    assert "M4GR-G87H" in board  # on screen at 80x24


@sync
async def test_a_local_game_has_no_table_code_line():
    lines, board = await _shown(None, "en")
    assert not any("Table code" in ln for ln in lines) and "Table code" not in board
