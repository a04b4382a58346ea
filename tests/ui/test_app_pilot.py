"""Pilot tests of ``lanopoli play``'s Textual app against in-process bots (ui.play.LocalGame):
a lobby, a purchase, an auction, a trade, a jail exit, a bankruptcy confirmation, and a whole
game by autoplay to the end screen. Dice are pinned with engine.testing.ScriptedRng, so each
test knows where the tokens land (rules: engine tests; here: that the UI offers the legal
actions and sends the chosen one)."""

from __future__ import annotations

import pytest

from engine import actions as A
from engine.testing import forced_chance, scenario
from p2p.const import PROTOCOL_VERSION
from p2p.ad_record import GameAd
from pilot_support import commands, log_text, sync, until
from ui.app import LanopoliApp
from ui.backends import LocalLobby, Settings
from ui.play import LocalGame
from ui.screens import EndScreen, GameScreen
from ui.screens.dialogs import BidDialog, ConfirmDialog, OfferDialog, TradeDialog

NAMES = ("Marco", "Giulia")

pytestmark = pytest.mark.usefixtures("english")


def dice_script(*pairs):
    """chance(state, k) that rolls ``pairs`` in order (then 1+2 forever)."""
    seq = list(pairs)

    def chance(state, k):
        d = seq.pop(0) if seq else (1, 2)
        return forced_chance(state, dice=d)
    return chance


@sync
async def test_purchase_offers_buy_and_auction_then_buys():
    # Marco rolls 1+2 from VIA! to Vicolo Stretto (square 3, €60): buy or auction.
    game = LocalGame(NAMES, 0, state=scenario(2), chance=dice_script((1, 2)), delay=0)
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameScreen) and "roll" in commands(app))
        assert "buy" not in commands(app)
        await pilot.press("r")
        await until(pilot, lambda: "buy" in commands(app))
        assert "decline" in commands(app)
        await pilot.press("b")
        await until(pilot, lambda: game.state.owner[3] == 0)
        assert "Marco buys Vicolo Stretto for €60" in log_text(app)


@sync
async def test_auction_bid_dialog_sends_a_bid_and_pass_leaves():
    game = LocalGame(NAMES, 0, state=scenario(2), chance=dice_script((1, 2)), delay=0)
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "roll" in commands(app))
        await pilot.press("r")
        await until(pilot, lambda: "decline" in commands(app))
        await pilot.press("n")
        await until(pilot, lambda: "bid" in commands(app) or game.state.auc_sq < 0)
        assert "Auction for Vicolo Stretto" in log_text(app)
        if "bid" in commands(app):
            await pilot.press("o")
            await until(pilot, lambda: isinstance(app.screen, BidDialog))
            app.screen.query_one("#amount").value = "5"
            await pilot.press("enter")  # below the minimum: refused by the dialog
            await pilot.pause(0.1)
            assert isinstance(app.screen, BidDialog)
            assert "between" in str(app.screen.query_one("#error").render())
            app.screen.query_one("#amount").value = "400"
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await until(pilot, lambda: "wins Vicolo Stretto at auction" in log_text(app))
        assert "Marco bids €400" in log_text(app)
        assert game.state.owner[3] == 0


@sync
async def test_trade_dialog_proposes_and_bot_answers():
    # Marco owns Vicolo Corto, Giulia Vicolo Stretto: Marco offers €200 for Vicolo Stretto.
    st = scenario(2, owners={1: 0, 3: 1})
    game = LocalGame(NAMES, 0, state=st, chance=dice_script((1, 2)), delay=0)
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "trade" in commands(app))
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TradeDialog))
        dialog = app.screen
        dialog.query_one("#get").select(3)
        dialog.query_one("#give_cash").value = "200"
        await pilot.click("#propose")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        # The offer is Marco's input for this step; then his roll waits, so roll to let Giulia
        # answer. Roll only once the offer is out: a key pressed while an input is still
        # pending is not queued behind it.
        await until(pilot, lambda: "Marco offers a trade to Giulia" in log_text(app))
        await until(pilot, lambda: "roll" in commands(app))
        await pilot.press("r")
        await until(pilot, lambda: "the trade offered by Marco" in log_text(app))


@sync
async def test_trade_offered_to_us_is_answered_after_confirmation():
    from engine.rules import trade as T
    st = scenario(2, owners={1: 0, 3: 1}, current=1)
    # Giulia (bot) offers €100 for our Vicolo Corto: put the open offer in the state directly.
    offer = [1, 0, [], [1], 100, 0, [], [], []]
    assert len(offer) == 9 and T.O_PARTNER == 1
    st.offers.append(offer)
    game = LocalGame(NAMES, 0, state=st, chance=dice_script((1, 2)), delay=0)
    game.human.submit(None)  # a first "nothing" so the screen shows before the bots move on
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameScreen) and "offer" in commands(app))
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, OfferDialog))
        await pilot.click("#accept-1")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("enter")  # the focus starts on No: Enter keeps the offer open
        await until(pilot, lambda: isinstance(app.screen, OfferDialog))
        assert game.state.owner[1] == 0
        await pilot.pause()  # let the dialog that is back on top lay out before clicking it
        await pilot.click("#accept-1")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await until(pilot, lambda: game.state.owner[1] == 1)
        assert "Giulia accepts" not in log_text(app)
        await until(pilot, lambda: "Marco accepts the trade offered by Giulia" in log_text(app))


@sync
async def test_jail_exit_by_paying_the_fine():
    st = scenario(2, pos={0: 10}, jail={0: 1})
    game = LocalGame(NAMES, 0, state=st, chance=dice_script((1, 2)), delay=0)
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "fine" in commands(app))
        assert "roll" in commands(app)
        assert "card" not in commands(app)  # no jail card held
        await pilot.press("f")
        await until(pilot, lambda: game.state.jail[0] == 0)
        assert "Marco gets out of jail paying the fine" in log_text(app)
        assert game.state.cash[0] == 1450


@sync
async def test_bankruptcy_asks_for_confirmation():
    # Marco has €10 and lands on Giulia's hotel: he cannot pay, nothing to sell.
    st = scenario(2, cash={0: 10}, owners={3: 1, 1: 1}, levels={3: 5, 1: 5})
    game = LocalGame(NAMES, 0, state=st, chance=dice_script((1, 2)), delay=0)
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "roll" in commands(app))
        await pilot.press("r")
        await until(pilot, lambda: "bankrupt" in commands(app))
        # Whom, how much, why: in the log and in the status line.
        assert "Marco owes €450 to Giulia (rent for Vicolo Stretto) and lacks the cash" in log_text(app)
        assert "You owe €450 to Giulia and have €10" in app.screen.status_text()
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("enter")  # x then Enter must not end the game: the focus is on No
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert game.state.out[0] == 0
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.click("#yes")
        await until(pilot, lambda: isinstance(app.screen, EndScreen))
        assert game.state.out[0] == 1
        text = " ".join(str(w.render()) for w in app.screen.query("Label"))
        assert "Giulia wins!" in text


@sync
async def test_q_asks_before_leaving_a_running_game():
    game = LocalGame(NAMES, 0, state=scenario(2), chance=dice_script((1, 2)), delay=0)
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "roll" in commands(app))
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert app.is_running and "roll" in commands(app)
        # Our money and whose turn it is are on the bottom line.
        assert "You: €1.500" in app.screen.footer_text() and "Your turn" in app.screen.footer_text()
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await until(pilot, lambda: not app.is_running)


@sync
async def test_lobby_create_game_and_autoplay_to_the_end(tmp_path):
    ad = GameAd(version=PROTOCOL_VERSION, game_id=bytes(range(16)), edition="classico", seats_taken=1, seats_total=3,
                state="lobby", fingerprint="ab" * 8, address="127.0.0.1", port=40000)
    settings = Settings.load(tmp_path)
    app = LanopoliApp(backend=LocalLobby([ad], seed=5), settings=settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#games").row_count == 1
        await pilot.click("#name")
        await pilot.press(*"Marco", "enter")
        await pilot.press("c")
        await until(pilot, lambda: type(app.screen).__name__ == "CreateDialog")
        await pilot.click("#create-game")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert Settings.load(tmp_path).name == "Marco"  # remembered
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, EndScreen), seconds=120)
        text = " ".join(str(w.render()) for w in app.screen.query("Label"))
        assert "Final standings" in text and "wins!" in text


@sync
async def test_our_unfinished_game_is_listed_first_and_enter_rejoins_it(tmp_path):
    """issue 11 "Rejoin from the game itself": restarting play shows our unfinished game first,
    marked as ours; Enter rejoins it at our seat (LocalLobby stands in for NetLobby.rejoin)."""
    from ui.play import MyGame

    ad = GameAd(version=PROTOCOL_VERSION, game_id=bytes(range(16)), edition="classico", seats_taken=1, seats_total=3,
                state="lobby", fingerprint="ab" * 8, address="127.0.0.1", port=40000, host_name="Giulia",
                players=("Giulia",))
    mine = MyGame(bytes(16), "classico", ("Anna", "Marco", "Bruno"), 1, tmp_path / "g.log")
    settings = Settings(name="Marco", path=tmp_path / "play.json")
    app = LanopoliApp(backend=LocalLobby([ad], seed=5, my_games=[mine]), settings=settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#games")
        assert table.row_count == 2
        first = [str(c) for c in table.get_row_at(0)]
        assert "your game" in first[0] and first[2].startswith("3/3 Anna, Marco")
        assert "Giulia" in str(table.get_row_at(1)[0]) and "Giulia" in str(table.get_row_at(1)[2])
        table.focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert app.driver.seat == 1 and app.driver.names[1] == "Marco"
        await app.action_quit()


@sync
async def test_h_opens_the_chat_and_the_line_shows_in_the_log():
    """protocol.md §N9 / issue 11 "Chat": h asks for a line, Enter sends it, the log shows it
    with our name; an empty line is refused in the dialog."""
    from ui.screens.dialogs import ChatDialog

    game = LocalGame(NAMES, 0, state=scenario(2), chance=dice_script((1, 2)), delay=0)
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameScreen) and "roll" in commands(app))
        assert "h: chat" in str(app.screen.query_one("#status").render())
        await pilot.press("h")
        await until(pilot, lambda: isinstance(app.screen, ChatDialog))
        await pilot.press("enter")
        assert isinstance(app.screen, ChatDialog)  # nothing typed: stays open
        await pilot.press(*"ciao!", "enter")
        await until(pilot, lambda: isinstance(app.screen, GameScreen) and "» Marco: ciao!" in log_text(app))


@sync
async def test_watch_lists_every_game_with_live_standings(tmp_path):
    """issue 11 "teacher's view": lanopoli watch lists the games with edition, players and the
    standings of the TXT record (the current player marked ▶, a seat out as such); a game still
    in its lobby cannot be watched yet and the screen says so."""
    from p2p.ad_record import Standings

    running = GameAd(version=PROTOCOL_VERSION, game_id=bytes([1]) * 16, edition="classico", seats_taken=3, seats_total=3,
                     state="running", fingerprint="ab" * 8, address="127.0.0.1", port=40000, host_name="Giulia",
                     players=("Giulia", "Anna", "Bruno"), standings=Standings(7, 1, (1500, 1320, None)),
                     watch_port=40001)
    waiting = GameAd(version=PROTOCOL_VERSION, game_id=bytes([2]) * 16, edition="fabrianopoli", seats_taken=1, seats_total=4,
                     state="lobby", fingerprint="cd" * 8, address="127.0.0.1", port=40002, host_name="Marco",
                     players=("Marco",))
    app = LanopoliApp(backend=LocalLobby([running, waiting]), settings=Settings(name="Prof", path=tmp_path / "p.json"),
                      watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#games")
        first = [str(c) for c in table.get_row_at(0)]
        assert first[0] == "Giulia" and first[2] == "7"
        assert first[3] == "127.0.0.1:40000" and first[4] == "Giulia €1.500 · ▶Anna €1.320 · Bruno out"
        assert "Marco" in str(table.get_row_at(1)[4])
        table.move_cursor(row=1)
        await pilot.press("w")
        await pilot.pause()
        assert "cannot be watched" in str(app.screen.query_one("#lobby-status").render())


@sync
async def test_waiting_room_keys_go_to_the_buttons_and_c_types_a_chat_line(tmp_path):
    """The waiting room of a real (loopback) game: the buttons have the focus, so 's' (and 'q')
    are never typed into the chat; 'c' goes to the chat input, Enter sends the line (it shows
    in the room), Esc goes back to the buttons (protocol.md §N9)."""
    from textual.widgets import Input

    from ui.backends import CreateRequest, NetLobby
    from ui.screens import WaitingScreen

    backend = NetLobby("127.0.0.1", log_dir=None, bot_pace=0)
    app = LanopoliApp(backend=backend, settings=Settings(name="Giulia", path=tmp_path / "p.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.start_driver(backend.create("Giulia", CreateRequest(seats=3, bots=False)), False)
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen) and app.driver.join_code)
        chat = app.screen.query_one("#chat", Input)
        await pilot.press("s")  # Start (nothing to do without bots), not an "s" in the chat
        assert chat.value == "" and not chat.has_focus
        await pilot.press("c")
        assert chat.has_focus
        await pilot.press(*"ciao", "enter")
        await until(pilot, lambda: "» Giulia: ciao" in str(app.screen.query_one("#chat-log").render()))
        await pilot.press("escape")
        assert not chat.has_focus
        await app.action_quit()
