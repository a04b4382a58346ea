"""The game screen's first log line is the table code of a network game (protocol.md §C2.4), in
the current language, so that players compare it out loud at the start (H156 BREAK #3: a host
can seat each player at its own table under one game id), and the rule under the board's head
keeps it for the whole game (RV14-A #3: the log line scrolls away after a few moves), at 80x24,
120x40 and 160x50. A local game has no code: no line, nothing in the rule."""

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


async def _shown(code: str | None, lang: str, size=(80, 24), later: int = 0) -> tuple[list[str], str]:
    """The game screen's log lines and the board as drawn, for a game whose driver has ``code``,
    after ``later`` more log lines (moves narrated after the start)."""
    game = LocalGame(NAMES, 0, state=scenario(3), delay=0)
    if code is not None:
        game.table_code = code  # what ui.net_game.NetGame gives once its session started
    set_language(lang)
    try:
        app = LanopoliApp(driver=game)
        async with app.run_test(size=size) as pilot:
            await until(pilot, lambda: isinstance(app.screen, GameScreen) and app.screen.driver.state is not None)
            await pilot.pause(0.1)
            app.screen.lines.extend(f"Giulia rolls 3+4 and moves to square {k}." for k in range(later))
            app.screen._redraw()
            await pilot.pause(0.1)
            return list(app.screen.lines), app.screen.query_one(Board).render().plain
    finally:
        set_language("en")


@pytest.mark.parametrize("lang, text", [
    ("en", "Table code: M4GR-G87H — read it out loud: whoever sees another code is at another table."),
    ("it", "Codice del tavolo: M4GR-G87H — leggetelo ad alta voce: chi vede un altro codice è a un altro tavolo.")])
@sync
async def test_a_network_game_starts_its_log_with_the_table_code(lang, text):
    lines, board = await _shown("M4GR-G87H", lang)
    assert lines[0] == text
    assert sum("M4GR-G87H" in ln for ln in lines) == 1  # once, not at every redraw
    assert "M4GR-G87H" in board  # on screen at 80x24


@pytest.mark.parametrize("size, lang, word", [((80, 24), "it", "tavolo"), ((120, 40), "en", "table"),
                                              ((160, 50), "it", "tavolo")])
@sync
async def test_the_board_keeps_the_code_after_the_log_line_scrolled_away(size, lang, word):
    lines, board = await _shown("M4GR-G87H", lang, size, later=40)
    assert f"{word} M4GR-G87H" in board
    assert "read it out loud" not in board and "leggetelo" not in board  # the log line scrolled away


@sync
async def test_a_local_game_has_no_table_code_line():
    lines, board = await _shown(None, "en")
    assert not any("Table code" in ln for ln in lines) and "Table code" not in board and "table " not in board
