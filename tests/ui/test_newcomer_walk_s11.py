"""What session 11's newcomer walk (H108: tmux at 80x24, 120x40, 160x50, Italian and --lang en)
found on the game screen, checked with the Pilot: the English board speaks the English board's
words (GO, Chance, Community Chest, Jail, Free Parking, Go to Jail, Income/Luxury Tax;
ui.i18n.term), the wide board is whole cells wide, and a colour group's line in the players panel
never wraps."""

from __future__ import annotations

import pytest

from engine.testing import scenario
from pilot_support import commands, sync, until
from ui.app import LanopoliApp
from ui.i18n import set_language
from ui.play import LocalGame
from ui.widgets import Board, PlayersPanel

NAMES = ("Marco", "Giulia", "Anna", "Luca")
#: Italian words of the board that must not show in English (the printed card texts may: data).
ITALIAN = ("VIA", "Imprev", "Probab", "Prigi", "Parche", "Tassa", "T.Luss", "T.Patr")


def _game(**kw):
    """A local game waiting for our roll (the human's seat 0 decides nothing: the screen stays)."""
    st = scenario(4, owners={1: 1, 3: 1, 5: 0, 15: 0, 25: 0, 35: 0, 11: 2, 13: 2, 14: 2}, **kw)
    return LocalGame(NAMES, 0, state=st, delay=0)


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 50)])
@sync
async def test_the_english_board_says_go_and_chance(size, english):
    """Seen with --lang en: "VIA!" in the corner, "Imprev"/"Probab"/"T.luss" on the board."""
    game = _game()
    app = LanopoliApp(driver=game)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.screen.query(Board) and "GO" in str(app.screen.query_one(Board).render()))
        board = str(app.screen.query_one(Board).render())
    corners = {80: ("GO", "Jail", "Park", "→Jai"), 120: ("GO", "Jail", "Parkin", "→Jail"),
               160: ("GO", "Jail", "Parking", "→Jail")}[size[0]]
    assert all(c in board for c in corners), board
    assert "Chan" in board and "Ches" in board
    assert not [w for w in ITALIAN if w in board], board


def test_the_english_log_says_go_chance_and_jail(english):
    """The log's words of the game in English; the printed card text stays as printed (data)."""
    import engine
    from engine.events import CardDrawn, MoneyPaid, Moved
    from ui.narrate import Narrator

    n = Narrator(engine.EDITIONS["classico"], NAMES)
    lines = n.lines([MoneyPaid(-1, 0, 200, "salary"), Moved(0, 28, 30), Moved(1, 5, 7), CardDrawn(1, 1, 0),
                     Moved(2, 8, 10), Moved(3, 18, 20), Moved(3, 20, 38), Moved(0, 1, 4)])
    assert lines[:2] == ["Marco collects €200 from the bank (GO)", "Marco moves to Go to Jail"]
    assert lines[2] == "Giulia moves to Chance" and lines[3].startswith("Giulia draws Chance: “")
    assert lines[4:] == ["Anna moves to Jail / Just Visiting", "Luca moves to Free Parking", "Luca moves to Luxury Tax",
                         "Marco moves to Income Tax"]


@sync
async def test_the_italian_board_keeps_the_printed_words():
    set_language("it")
    try:
        game = _game()
        app = LanopoliApp(driver=game)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.screen.query(Board) and "VIA!" in str(app.screen.query_one(Board).render()))
            board = str(app.screen.query_one(Board).render())
    finally:
        set_language("en")
    assert all(w in board for w in ("VIA!", "Prigio", "Parche", "→Prigi", "Imprev", "Probab", "T.Luss", "T.Patr"))
    assert "€100" in board and "€200" in board  # what the taxes take, under their names


@pytest.mark.parametrize("size", [(120, 40), (135, 40), (160, 50), (220, 60)])
@sync
async def test_the_wide_board_is_whole_cells_and_the_panel_gets_the_rest(size, english):
    """Seen at 160x50: the board widget 120 columns for 11 cells of 10, a blank strip right of its
    last column that read as an over-wide column. Now the board is whole cells wide and touches
    the players panel."""
    game = _game()
    app = LanopoliApp(driver=game)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: type(app.screen).__name__ == "GameScreen" and app.screen.query(PlayersPanel))
        await pilot.pause(0.1)
        board, panel = app.screen.query_one(Board).region, app.screen.query_one(PlayersPanel).region
        assert board.width % 11 == 0 and board.right == panel.x
        lines = str(app.screen.query_one(Board).render()).splitlines()
        assert max(len(line) for line in lines) == board.width  # the last column ends at the edge


@sync
async def test_a_colour_group_stays_on_one_line_of_the_panel(english):
    """Seen at 160x50: "██ Via Marco Polo, Corso Magellano, Largo" then "Colombo" at column 0.
    The names shorten (16, 12, 9, 7 characters) until the line fits."""
    st = scenario(4, owners={21: 1, 23: 1, 24: 1, 5: 1, 15: 1, 25: 1, 35: 1})
    game = LocalGame(NAMES, 0, state=st, delay=0)
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(160, 50)) as pilot:
        await until(pilot, lambda: app.screen.query(PlayersPanel) and "Giulia" in str(
            app.screen.query_one(PlayersPanel).render()))
        await pilot.pause(0.1)
        panel = app.screen.query_one(PlayersPanel)
        lines = str(panel.render()).splitlines()
        assert all(len(line) <= panel.size.width for line in lines), lines
    assert "    ██ V.M.Polo, C.Magellano, L.Colombo" in lines and "       S.Sud, S.Ovest, S.Nord, S.Est" in lines


class _Waits(LocalGame):
    """A local game that reports a wait (as NetGame does after WAIT_NOTICE_S) for ``seats``."""

    seats: tuple = (1,)

    def waiting(self):
        return self.seats, 5.0


@pytest.mark.parametrize("seats", [(1,), (1, 2, 3)])
@pytest.mark.parametrize("lang", ["it", "en"])
@sync
async def test_the_bottom_line_keeps_q_quit_while_waiting(seats, lang):
    """Seen at 80x24 (--lang en) while the game waited for Anna: "You: €1.500 · Turn: Anna · Waiting
    for Anna for 5 s · a: let the bot play for me" and no "q: quit". Anna is named once, and the
    autoplay hint goes short ("a: bot") when the line would not fit."""
    set_language(lang)
    try:
        game = _Waits(NAMES, 0, state=scenario(4, current=1), delay=30)  # Giulia's turn stays
        game.seats = seats
        app = LanopoliApp(driver=game)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: type(app.screen).__name__ == "GameScreen" and game.steps)
            footer = app.screen.footer_text()
        quit_key = {"it": "q: esci", "en": "q: quit"}[lang]
    finally:
        set_language("en")
    assert footer.endswith(quit_key) and len(footer) <= 80, footer
    assert footer.count("Giulia") == (1 if seats == (1,) else 2), footer  # seat 1's turn, waited for


class _Still(LocalGame):
    """A local game that shows its state and never steps (the game waits for another player)."""

    async def run(self):
        import asyncio

        self.phase = "playing"
        self._notify("lobby")
        self._notify("step")
        await asyncio.Event().wait()


@pytest.mark.parametrize("auto", [True, False])
@sync
async def test_no_rent_key_while_the_ui_claims_by_itself(auto, english):
    """Seen on the network (session 11's walk): Bot 2 landed on Anna's street; Anna's HumanSeat sent
    the claim with her next input, but the step waited for Bruno's roll and "[g] Ask for the rent"
    stayed on her bar: pressing it only sends a second claim, refused by the rules. The key shows
    only when the seat does not claim by itself (HumanSeat.auto_claim off)."""
    st = scenario(4, current=1, owners={9: 0})
    st.claims.append([0, 2, 9, 8, st.turn])  # Anna (seat 0) may claim Viale Vesuvio's rent from seat 2
    game = _Still(NAMES, 0, state=st, delay=0)
    game.human.auto_claim = auto
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: type(app.screen).__name__ == "GameScreen" and commands(app))
        assert ("claim" in commands(app)) is not auto and "trade" in commands(app)


@sync
async def test_an_unticked_box_is_empty(english):
    """Seen in the create dialog: "▐X▌" before every house rule although all were off (Textual
    tells them apart by colour only: nothing on a monochrome terminal or a pale projector).
    An unticked box is "▐ ▌" now; Space ticks it: "▐X▌"."""
    from textual.app import App
    from textual.widgets import Checkbox

    from ui.screens.dialogs import CreateDialog

    class Host(App):
        def on_mount(self) -> None:
            self.push_screen(CreateDialog())

    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        pot, bots = app.screen.query_one("#pot", Checkbox), app.screen.query_one("#bots", Checkbox)
        assert "▐ ▌" in str(pot.render()) and "▐X▌" in str(bots.render())  # off / on (the default)
        pot.focus()
        await pilot.press("space")
        await pilot.pause(0.05)
        assert pot.value and "▐X▌" in str(pot.render())


@sync
async def test_an_unticked_entry_of_the_trade_lists_is_empty():
    """Seen in the trade dialog: "▐X▌ Viale Vesuvio" with nothing chosen (SelectionList tells a
    ticked entry by colour only). ui.screens.modal.TickList: "▐ ▌" until ticked."""
    from textual.app import App, ComposeResult

    from ui.screens.modal import TickList

    class Lists(App):
        def compose(self) -> ComposeResult:
            yield TickList(("Viale Vesuvio", 9), ("Stazione Sud", 5), id="give")

    app = Lists()
    async with app.run_test(size=(40, 6)) as pilot:
        lst = app.query_one(TickList)
        lst.select(5)
        await pilot.pause(0.05)
        lines = [lst.render_line(y).text for y in range(2)]
    assert lines[0].startswith("▐ ▌ Viale Vesuvio") and lines[1].startswith("▐X▌ Stazione Sud"), lines


@pytest.mark.parametrize("bots, words", [(2, "The 2 bots that took the empty seats run in this program"),
                                         (1, "The bot that took an empty seat runs in this program"),
                                         (0, "The others go on without you")])
@sync
async def test_the_host_is_told_its_bots_leave_with_it(bots, words, english):
    """Seen in the walk: the host quit (the question said "the others go on without you") and its
    two in-process bots (NetGame.fill_with_bots) stopped with it; the joiner was left alone, no
    quorum, and the game ended abandoned. With bots running in our program, q says so."""
    class Hosting(_Still):
        node = object()  # a network game: leaving does not end it by itself
        bots_running = bots

    game = Hosting(NAMES, 0, state=scenario(4), delay=0)
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: type(app.screen).__name__ == "GameScreen")
        await pilot.press("q")
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmDialog")
        assert words in app.screen.question
        await pilot.press("n")


@sync
async def test_bots_running_counts_the_bot_tasks_still_playing():
    import asyncio

    from ui.net_game import NetGame

    host = NetGame({"role": "host", "name": "Anna", "seats": 3})
    assert host.bots_running == 0
    done = asyncio.get_running_loop().create_future()
    done.set_result(None)
    playing = asyncio.get_running_loop().create_future()
    host._bot_tasks += [done, playing]  # what _start_bot appends
    assert host.bots_running == 1
    playing.cancel()
