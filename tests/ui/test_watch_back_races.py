"""The spectator's way back, on the paths RV16-B found broken (session 16; protocol.md Part U:
``q`` or Escape on a watched board goes back to the list at once, its socket closed).

F1: ``q`` while a RECORDS datagram woke the driver in the same loop turn left the teacher on the
board for good (Python 3.11's ``asyncio.wait_for`` drops a cancel that meets a finished wait);
``WatchDriver.run`` now waits under ``asyncio.timeout``. F2: an advert with a watch port and no
key crashed the list on Enter (``WatchDriver`` pins the seat's key); it is "cannot be watched".
F3: the end of the game while a dialog (legend, chat) was open was posted to the dialog and lost:
the end screen never came; the game's screen below now gets it."""

from __future__ import annotations

import dataclasses

import pytest

from pilot_support import sync, until
from test_watch_back import StandIn, WatchLobby, open_table, port_in_use, running_ad, served, teacher
from ui.app import LanopoliApp
from ui.backends import Settings
from ui.screens import EndScreen, GameScreen
from ui.screens.watch import WatchListScreen

pytestmark = pytest.mark.usefixtures("english")


@sync
async def test_q_while_records_wake_the_driver_in_the_same_turn_goes_back_to_the_list(tmp_path):
    """Part U (RV16-B F1): q goes back at once, the socket and temp copy closed, even when a RECORDS
    datagram woke the driver in the same loop turn."""
    async def run(ad_a, ad_b):
        app = teacher(tmp_path, WatchLobby([ad_a, ad_b]))
        async with app.run_test(size=(80, 24)) as pilot:
            await open_table(pilot, app)
            await pilot.pause(1.0)  # the driver parks in its wait for news
            d, worker = app.driver, app._game
            port = d.link.address[1]
            d._dirty.set()  # what WatchDriver._on_message does when a RECORDS datagram brings news
            app.screen.action_leave()  # q, in the same loop turn
            await until(pilot, lambda: isinstance(app.screen, WatchListScreen), seconds=5)
            assert not worker.is_running and not port_in_use(port) and not d._dir.exists()
        return True

    assert await served(run)


@sync
async def test_an_advert_without_a_key_cannot_be_watched_and_the_list_stays(tmp_path):
    """Part U (RV16-B F2): an advert with `wp` but no `pk`/`xk` is "cannot be watched", no crash."""
    from ui.watch import WatchDriver

    class Lobby(WatchLobby):
        def watch(self, name, ad):
            return WatchDriver(ad, "127.0.0.1", name=name)

    keyless = dataclasses.replace(running_ad(), public_key=None, x25519_key=None)
    app = LanopoliApp(backend=Lobby([keyless]), settings=Settings(name="Prof", path=tmp_path / "p.json"), watch=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, WatchListScreen))
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert app.is_running and isinstance(app.screen, WatchListScreen)
        assert "cannot be watched" in str(app.screen.query_one("#lobby-status").render())


@sync
async def test_the_end_of_a_game_under_an_open_dialog_still_shows_the_end_screen(tmp_path):
    """Part U 'Screens' (RV16-B F3): the end of the game while the legend is open shows the end screen."""
    backend = WatchLobby([running_ad()], make=lambda ad: StandIn())
    app = LanopoliApp(backend=backend, settings=Settings(name="Prof", path=tmp_path / "p.json"), watch=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, WatchListScreen))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await pilot.press("question_mark")
        await until(pilot, lambda: type(app.screen).__name__ == "LegendDialog")
        d = app.driver
        d.phase = "over"
        d._notify("over")
        await until(pilot, lambda: isinstance(app.screen, EndScreen), seconds=3)
