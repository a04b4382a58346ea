"""The board's legend (issue 11, newcomer walk at 80x24..160x50): "·", "×", "H", "+" and the
digits that are an owner in one place and a token in the next were explained nowhere. "?"
opens ui/screens/legend.py's dialog from the game screen at every size, the board's centre says
so on its rule line, and Esc closes it; Italian by default."""

from __future__ import annotations

import pytest

from engine.testing import forced_chance, scenario
from pilot_support import sync, until
from ui.app import LanopoliApp
from ui.i18n import set_language
from ui.play import LocalGame
from ui.screens import GameScreen
from ui.screens.legend import LegendDialog, legend_rows
from ui.widgets import Board

pytestmark = pytest.mark.usefixtures("english")


def legend_lines(state):
    """The legend's rows as the dialog's grid shows them (``legend_grid``): "mark  meaning"."""
    return [f"{mark.plain.strip()}  {meaning}" for mark, meaning in legend_rows(state)]


def _game(edition="classico"):
    return LocalGame(("Marco", "Giulia", "Bruno"), 0, state=scenario(3, edition=edition),
                     chance=lambda state, k: forced_chance(state, dice=(1, 2)), delay=0)


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 50)])
@sync
async def test_question_mark_opens_the_legend_and_the_board_says_so(size):
    app = LanopoliApp(driver=_game())
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameScreen) and app.screen.driver.state is not None)
        await pilot.pause(0.1)
        assert "?: legend" in app.screen.query_one(Board).render().plain
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, LegendDialog))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))


def test_every_mark_of_the_board_is_explained_and_niente_adds_its_magnifiers():
    from ui.board_layout import building_mark

    classico = legend_lines(scenario(3))
    marks = {line.split()[0] for line in classico}
    # draw_cell's marks: colour bar, for sale, houses, hotel, mortgaged, more tokens
    assert {"█", "·", "1-4", building_mark(5, False), building_mark(0, True), "+"} <= marks
    assert not any("●" in line for line in classico)
    niente = legend_lines(scenario(3, edition="niente-e-come-sembra"))
    assert len(niente) == len(classico) + 2 and "●" in niente[-2] and niente[-1].split()[0] == "l"


def test_the_legend_is_italian_by_default():
    set_language("it")
    try:
        lines = legend_lines(None)
    finally:
        set_language("en")
    assert any("ipotecata" in line for line in lines) and any("albergo" in line for line in lines)
