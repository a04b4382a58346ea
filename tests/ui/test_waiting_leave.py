"""H125's walk (session 12): "Leave [q]" in the waiting room quit the whole program; a player
expects the games list. Leaving now goes back to the lobby screen (``LanopoliApp.leave_room``;
protocol.md Part U "Screens"), where ``q`` still quits. A joiner that leaves tells the host
(LEAVE, protocol.md §C2.2, ``NetGame.leave``): the host frees its seat. A host that leaves closes
its node as when the program quits: its advert is withdrawn. Real loopback sockets (H130)."""

from __future__ import annotations

import asyncio

import pytest

from pilot_support import sync, until
from ui.app import LanopoliApp
from ui.backends import CreateRequest, NetLobby, Settings
from ui.screens import LobbyScreen, WaitingScreen

pytestmark = pytest.mark.usefixtures("english")


@sync
async def test_a_joiner_leaving_the_room_frees_its_seat_and_goes_back_to_the_list(tmp_path):
    """Anna joins Marco's 3-seat game from the list (its advert), sees the room, presses q: the
    lobby screen again (the app runs on, no driver), the host's room lists Marco alone (it got
    Anna's LEAVE: lobby event PlayerLeft) and so does Anna's list; a second q quits the program."""
    lobby = NetLobby("127.0.0.1", log_dir=None, bot_pace=0)
    host = lobby.create("Marco", CreateRequest(seats=3, bots=False))
    host_task = asyncio.ensure_future(host.run())
    app = LanopoliApp(backend=NetLobby("127.0.0.1", log_dir=None, bot_pace=0),
                      settings=Settings(name="Anna", path=tmp_path / "p.json"))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: host.node is not None and host.node.lobby is not None)
            gid = host.node.lobby.game_id

            def marco():  # Marco's advert as Anna's list has it (other games may be on loopback)
                return [(ad.seats_taken, ad.players) for ad in app.backend.games() if ad.game_id == gid]

            await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and marco())
            ad = next(ad for ad in app.backend.games() if ad.game_id == gid)
            app.start_driver(app.backend.join("Anna", ad), False)  # as Enter on its row does
            await until(pilot, lambda: isinstance(app.screen, WaitingScreen) and len(host.lobby_names) == 2)
            anna = app.driver
            await until(pilot, lambda: len(anna.lobby_names) == 2 and marco() == [(2, ("Marco", "Anna"))])
            await pilot.press("q")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            assert app.is_running and app.driver is None
            await until(pilot, lambda: host.lobby_names == ("Marco",))
            # The list says so too (it said "2/4 Marco, Anna" in H125's walk: NetLobby.rescan).
            await until(pilot, lambda: marco() == [(1, ("Marco",))])
            assert host.phase == "lobby" and host.fault is None
            assert anna.node.link is None  # Anna's node is closed
            await pilot.press("q")
            await until(pilot, lambda: not app.is_running)
    finally:
        host_task.cancel()
        await asyncio.gather(host_task, return_exceptions=True)


@sync
async def test_a_host_leaving_the_room_withdraws_its_game_and_goes_back_to_the_list(tmp_path):
    """Marco creates a game, sees the room with its join code, presses q: the lobby screen again,
    his node closed (its zeroconf advert withdrawn: ``Node.discovery`` is None once closed); he
    can create another game from the list."""
    app = LanopoliApp(backend=NetLobby("127.0.0.1", log_dir=None, bot_pace=0),
                      settings=Settings(name="Marco", path=tmp_path / "p.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        app.start_driver(app.backend.create("Marco", CreateRequest(seats=3, bots=False)), False)
        host = app.driver
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen) and host.join_code)
        await pilot.click("#quit")  # the button does what q does
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert app.is_running and app.driver is None
        assert host.node.link is None and host.node.discovery is None
        app.start_driver(app.backend.create("Marco", CreateRequest(seats=2, bots=False)), False)
        await until(pilot, lambda: isinstance(app.screen, WaitingScreen) and app.driver.join_code)
        assert app.driver is not host
        await app.action_quit()
