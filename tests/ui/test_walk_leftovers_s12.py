"""What the session 11/12 walks of ``lanopoli play`` left (H125): keys typed in one burst with the
key that opens a dialog act in the dialog ("o 1 2 0 Enter" bids €120; before, the digits went to
the game screen's focused button and Enter pressed that button); the legend's meanings wrap under
themselves (H108's note)."""

from __future__ import annotations

import pytest
from textual import events
from textual.app import App
from textual.css.query import NoMatches

from engine.actions import DeclineProperty
from engine.testing import roll, scenario, step
from pilot_support import commands, log_text, sync, until
from ui.app import LanopoliApp
from ui.play import LocalGame
from ui.screens.dialogs import BidDialog, ChatDialog

NAMES = ("Anna", "Bruno", "Carla")


def _auction_app() -> LanopoliApp:
    """Anna (seat 0, the human) may bid in an auction for Bastioni Gran Sasso (lowest bid €10)."""
    s = scenario(3)
    s, _ = roll(s, 2, 4)
    s, _ = step(s, seat0=DeclineProperty())
    return LanopoliApp(driver=LocalGame(NAMES, 0, state=s, delay=0))


def _burst(app: App, keys: list[str]) -> None:
    """Every key in the app's queue before any is handled, as a terminal delivers a fast typist's."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


def _value(app: App, selector: str) -> str | None:
    """The value of the current screen's input ``selector``, or None while it has none."""
    try:
        return app.screen.query_one(selector).value
    except NoMatches:
        return None


@pytest.mark.parametrize("keys, value", [(["o", "5", "0"], "50"),
                                         (["o", "1", "2", "0"], "120"),
                                         (["o", "backspace", "3", "0"], "30")])
@sync
async def test_digits_typed_with_the_bid_key_go_to_the_bid_box(english, keys, value):
    """'o' and the amount in one burst: the amount is in the box (the box's first value, the
    lowest bid, is selected when it gets the focus, so what is typed replaces it). Before, the
    game screen ran 'o' only once the key had bubbled up from its focused button, after the app
    had handed the digits to that button: they were lost (ui.screens.game: priority bindings)."""
    app = _auction_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "bid" in commands(app))
        _burst(app, keys)
        # In the bid box once the burst is handled; a wrong value times out.
        await until(pilot, lambda: isinstance(app.screen, BidDialog) and _value(app, "#amount") == value)
        # And it stays so: a key delivered twice, late, would change it after the first match (RV13-C #8).
        await pilot.pause()
        assert isinstance(app.screen, BidDialog) and _value(app, "#amount") == value


@sync
async def test_a_whole_bid_typed_at_once_bids_that_amount(english):
    """'o 1 2 0 Enter' in one burst bids €120 (before: Enter reached the game screen's button and
    the dialog bid €10, its first value, or nothing)."""
    app = _auction_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "bid" in commands(app))
        _burst(app, ["o", "1", "2", "0", "enter"])
        await until(pilot, lambda: "Anna bids €120" in log_text(app))
        assert "Anna bids €10\n" not in log_text(app) + "\n"


@sync
async def test_keys_before_a_dialog_is_composed_go_to_its_focused_box(english):
    """A dialog pushed while keys are already queued (not from a key: a click, a message): the app
    hands them to the screen itself, nothing in it having the focus yet; ui.screens.modal._Dialog
    keeps them until its widgets exist and gives them to the focused box, in order, before the
    keys typed after. Without it the line read '' (the keys were lost)."""
    said = []

    class Host(App):
        pass

    app = Host()
    async with app.run_test() as pilot:
        app.push_screen(ChatDialog(said.append))
        _burst(app, ["c", "i", "a", "p", "backspace", "o"])
        await until(pilot, lambda: _value(app, "#chat") == "ciao")  # the first burst is in the box
        _burst(app, ["!", "enter"])
        await until(pilot, lambda: said != [])
    assert said == ["ciao!"]


@pytest.mark.parametrize("language", ["it", "en"])
def test_a_legend_line_wraps_under_its_meaning(language):
    """H108's walk at 80x24: the legend's long meanings went on at the dialog's left edge, under
    the marks ("colour)" alone at column 0). The dialog's text is 72 cells wide at 80x24 (.dialog.wide
    76 less its border and padding): every line that goes on starts where the meanings start."""
    from rich.console import Console

    from engine.testing import scenario
    from ui.i18n import set_language
    from ui.screens.legend import legend_grid, legend_rows

    set_language(language)
    try:
        console = Console(width=72, record=True, color_system=None)
        console.print(legend_grid(scenario(3, edition="niente-e-come-sembra")))
        lines = console.export_text().rstrip("\n").split("\n")
        rows = legend_rows(scenario(3, edition="niente-e-come-sembra"))
    finally:
        set_language("en")
    column = 6  # the marks' 4 cells and 2 of padding
    assert len(lines) > len(rows)  # some meaning needs two lines here
    assert [m for m in (line[:column].strip() for line in lines) if m] == [mark.plain.strip() for mark, _ in rows]
    assert all(line[column] != " " for line in lines), lines


def test_a_jail_card_is_told_once(each_language):
    """Session 12's walk: "Bot 3 uses the card to get out of jail free" was followed by "Bot 3
    gets out of jail with the card" (engine.rules.jail.use_card tells JailCardUsed and
    LeftJail("card")); the second line is left out. Leaving by the fine is still told."""
    from engine.editions import EDITIONS
    from engine.events import JailCardUsed, LeftJail
    from ui.narrate import Narrator

    narrator = Narrator(EDITIONS["classico"], NAMES)
    lines = narrator.lines([JailCardUsed(seat=2, deck=0), LeftJail(seat=2, how="card")])
    assert len(lines) == 1 and "Carla" in lines[0]
    assert len(narrator.lines([LeftJail(seat=1, how="fine")])) == 1


def test_a_line_that_starts_with_the_bank_starts_with_a_capital(each_language):
    """Session 12's walk (niente, a fake bill the bank had taken): "the bank pays €100 again to
    Bot 2 in place of the fake bill" began in lower case; now "The bank ..."/"La banca ..."."""
    from engine.editions import EDITIONS
    from engine.events import MoneyPaid
    from ui.narrate import Narrator

    narrator = Narrator(EDITIONS["niente-e-come-sembra"], NAMES)
    line = narrator.lines([MoneyPaid(payer=-1, payee=1, amount=100, reason="counterfeit")])[0]
    assert line.startswith(("The bank pays €100", "La banca ")) and "Bruno" in line
