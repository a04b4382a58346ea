"""Pilot test of a returning player in ``lanopoli play`` (issue 11, protocol.md §C8.9, part U):
when a dropped seat's player takes it back from the bot, everybody's log says so ("Bruno is back
at the table"; for our own seat "You are back at the table" / "Sei di nuovo al tavolo") and the
players panel's "bot plays" mark goes. The network side (request, carriers, the agreed step) is
tested in tests/p2p/test_reseat*.py and tests/e2e/test_reseat_e2e.py; here a LocalGame stands in
for the network driver and receives what ``NetGame.observe`` hands on for ``SeatReturned``
(``seat_returned``)."""

from __future__ import annotations

import pytest

from engine.testing import forced_chance, scenario
from pilot_support import log_text, sync, until
from ui.app import LanopoliApp
from ui.play import LocalGame
from ui.screens import GameScreen
from ui.widgets.players import PlayersPanel, seat_change_mark

pytestmark = pytest.mark.usefixtures("english")


def _game() -> LocalGame:
    game = LocalGame(("Marco", "Giulia", "Bruno"), 0, state=scenario(3),
                     chance=lambda state, k: forced_chance(state, dice=(1, 2)), delay=0)
    game.seat_changes.update({2: "bot", 0: "lost"})  # as after SeatDropped / SeatLost
    return game


def _panel(app) -> str:
    return app.screen.query_one(PlayersPanel).render().plain


@sync
async def test_a_returning_player_is_back_in_the_log_and_loses_the_bot_mark():
    game = _game()
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(160, 50)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        mark = seat_change_mark("bot")
        await until(pilot, lambda: mark in _panel(app))
        game.seat_returned(2, 7)
        await until(pilot, lambda: "Bruno is back at the table" in log_text(app))
        await until(pilot, lambda: mark not in _panel(app))
        game.seat_returned(0, 9)
        await until(pilot, lambda: "You are back at the table (step 9)" in log_text(app))
        assert not game.seat_changes


@sync
async def test_the_line_in_italian():
    from ui.i18n import set_language

    set_language("it")
    game = _game()
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        game.seat_returned(0, 9)
        await until(pilot, lambda: "Sei di nuovo al tavolo (passo 9)" in log_text(app))
        game.seat_returned(2, 11)
        await until(pilot, lambda: "Bruno è di nuovo al tavolo" in log_text(app))
