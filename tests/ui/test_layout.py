"""The game screen at every terminal size from 80×24 up: the board and the players panel
(everyone's money and properties) are wholly on screen, the panel keeps at least 34 columns in
the wide layout, and the bottom line says our money and whose turn it is (issue 11, defect 1:
the wide layout used to start at 120 columns with a board 121 wide)."""

from __future__ import annotations

import pytest

from engine.testing import scenario
from pilot_support import sync, until
from ui.app import LanopoliApp
from ui.i18n import format_money
from ui.play import LocalGame
from ui.widgets import Board, PlayersPanel

pytestmark = pytest.mark.usefixtures("english")


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (119, 40), (120, 40), (135, 40), (151, 45),
                                  (160, 50), (220, 60)])
@sync
async def test_money_turn_and_players_panel_fit(size):
    st = scenario(4, cash={0: 1230, 1: 480, 2: 2015, 3: 95}, current=2)
    game = LocalGame(("Marco", "Giulia", "Anna", "Luca"), 0, state=st, delay=0)
    game.human.submit(None)
    app = LanopoliApp(driver=game)
    width, height = size
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: type(app.screen).__name__ == "GameScreen" and app.screen.query(PlayersPanel))
        await pilot.pause(0.1)
        screen = app.screen.region
        board, players = app.screen.query_one(Board).region, app.screen.query_one(PlayersPanel).region
        assert screen.contains_region(board) and screen.contains_region(players)
        assert players.width >= (34 if width >= 120 else width)
        assert players.height >= 4  # one line per player at least
        footer, s = app.screen.footer_text(), game.state
        assert f"You: {format_money(s.cash[0])}" in footer
        assert (f"Turn: {game.names[s.current]}" if s.current else "Your turn") in footer


@sync
async def test_players_panel_marks_a_seat_played_by_a_bot():
    game = LocalGame(("Marco", "Bruno"), 0, state=scenario(2), delay=0)
    game.seat_changes[1] = "bot"  # as NetGame.observe sets it on SeatDropped
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "disconnected, a bot plays" in str(app.screen.query_one(PlayersPanel).render()))
        line = next(x for x in str(app.screen.query_one(PlayersPanel).render()).splitlines() if "Bruno" in x)
        assert "disconnected, a bot plays" in line
