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


def _marco_and_anna(tmp_path):
    """Marco's 3-seat game (a NetGame on loopback, its task) and Anna's app (not running yet)."""
    host = NetLobby("127.0.0.1", log_dir=None, bot_pace=0).create("Marco", CreateRequest(seats=3, bots=False))
    app = LanopoliApp(backend=NetLobby("127.0.0.1", log_dir=None, bot_pace=0),
                      settings=Settings(name="Anna", path=tmp_path / "p.json"))
    return host, asyncio.ensure_future(host.run()), app


def _listed(app, gid):
    """(seats taken, players) of game ``gid``'s advert in the app's list (other games may be on loopback)."""
    return [(ad.seats_taken, ad.players) for ad in app.backend.games() if ad.game_id == gid]


async def _join_from_list(pilot, app, host):
    """Anna joins Marco's game from her list, as Enter on its row does; returns its game id once
    both rooms list both players."""
    await until(pilot, lambda: host.node is not None and host.node.lobby is not None)
    gid = host.node.lobby.game_id
    await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and _listed(app, gid))
    app.start_driver(app.backend.join("Anna", next(ad for ad in app.backend.games() if ad.game_id == gid)), False)
    await until(pilot, lambda: isinstance(app.screen, WaitingScreen) and len(host.lobby_names) == 2
                and len(app.driver.lobby_names) == 2)
    return gid


async def _stop(task):
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


@sync
async def test_a_joiner_leaving_the_room_frees_its_seat_and_goes_back_to_the_list(tmp_path):
    """Anna joins Marco's 3-seat game from the list (its advert), sees the room, presses q: the
    lobby screen again (the app runs on, no driver), the host's room lists Marco alone (it got
    Anna's LEAVE: lobby event PlayerLeft) and so does Anna's list; a second q quits the program."""
    host, host_task, app = _marco_and_anna(tmp_path)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            gid = await _join_from_list(pilot, app, host)
            anna = app.driver
            await until(pilot, lambda: _listed(app, gid) == [(2, ("Marco", "Anna"))])
            await pilot.press("q")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            assert app.is_running and app.driver is None
            await until(pilot, lambda: host.lobby_names == ("Marco",))
            # The list says so too (it said "2/4 Marco, Anna" in H125's walk; the advert went back to a
            # TXT Anna's zeroconf had seen < 1 s before: p2p.discovery module doc, H137).
            await until(pilot, lambda: _listed(app, gid) == [(1, ("Marco",))])
            assert host.phase == "lobby" and host.fault is None
            assert anna.node.link is None  # Anna's node is closed
            await pilot.press("q")
            await until(pilot, lambda: not app.is_running)
    finally:
        await _stop(host_task)


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


@sync
async def test_a_joiner_is_told_when_the_host_closes_the_game(tmp_path):
    """Marco (a NetGame outside the app) closes his game while Anna waits in its room: his node
    withdraws the advert (the mDNS goodbye), and the lobby tells joiners nothing else. Anna's
    room then says the host closed the game (WaitingScreen.host_gone: the advert seen in her
    list is gone); q takes her back to the list. Before H130 the room showed Marco "ready" for
    good (H130's walk)."""
    host, host_task, app = _marco_and_anna(tmp_path)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            gid = await _join_from_list(pilot, app, host)
            room = app.screen
            assert not room.host_gone()
            await _stop(host_task)  # Marco leaves: his node closes as when the program quits
            await until(pilot, lambda: "The game's advert is gone" in str(room.query_one("#notice").render()))
            await pilot.press("q")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await until(pilot, lambda: not _listed(app, gid))
            await app.action_quit()
    finally:
        await _stop(host_task)


@sync
async def test_q_does_not_leave_a_game_that_just_started():
    """The room shows until the game screen replaces it; a q in between must not close a running
    game without the game screen's question (WaitingScreen.action_leave: lobby phase only)."""
    from textual.app import App

    from ui.net_game import NetGame

    class Room(App):
        backend = None
        left = 0

        def on_mount(self) -> None:
            self.push_screen(WaitingScreen(driver, bots=False))

        async def leave_room(self) -> None:
            self.left += 1

    driver = NetGame(dict(role="join", name="Anna"))
    app = Room()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        driver.phase = "playing"
        await pilot.press("q")
        await pilot.pause()
        assert app.left == 0 and isinstance(app.screen, WaitingScreen)
        driver.phase = "lobby"
        await pilot.press("q")
        await until(pilot, lambda: app.left == 1)
