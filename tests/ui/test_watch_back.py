"""A spectator's ``q`` goes back to the list of games (session 16, H172): the teacher running
``lanopoli watch`` opens a table with Enter, and ``q`` (or Escape) on its board — or on its end
screen — closes that spectator (its socket, its temporary copy of the log) and shows the list
again, redrawn; the teacher opens another table; ``q`` on the list quits. In ``lanopoli play``
a game opened with ``w`` goes back to the lobby's list the same way. A player's keys are
unchanged (``q`` asks before leaving, Escape does nothing on the board).

The real-socket tests follow the published sample game (tests/vectors/game.lnplog) with a real
``ui.watch.WatchDriver`` from seat servers on loopback (``test_watch_lying_seat.SeatServer``):
table A serves the first records only (the game runs on), table B the whole log (the
spectator reaches the end screen). DNS-SD is replaced by an empty list of other seats.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

import engine
from p2p.ad_record import GameAd
from p2p.const import PROTOCOL_VERSION
from pilot_support import sync, until
from test_watch_lying_seat import FACTS, GID, SEATS, Found, SeatServer, records
from ui.app import LanopoliApp
from ui.backends import LocalLobby, Settings
from ui.driver import DriverBase
from ui.i18n import _, set_language
from ui.screens import EndScreen, GameScreen, LobbyScreen
from ui.screens.dialogs import ConfirmDialog
from ui.screens.watch import WatchListScreen

pytestmark = pytest.mark.usefixtures("english")


class WatchLobby(LocalLobby):
    """LocalLobby whose running games can be watched: ``watch`` gives a real WatchDriver (or
    ``make(ad)``'s stand-in) and remembers every driver it gave; ``closed`` counts closes."""

    def __init__(self, ads: list, make: Any = None) -> None:
        super().__init__(ads)
        self.make = make
        self.drivers: list = []
        self.closed = 0

    def watch(self, name: str, ad: Any) -> Any:
        from ui.watch import WatchDriver

        if self.make is not None:
            d = self.make(ad)
        else:
            d = WatchDriver(ad, "127.0.0.1", name=name, silence_s=30.0)
            d.browser = Found({})  # no DNS-SD here: the advertised seat is all there is
        self.drivers.append(d)
        return d

    async def close(self) -> None:
        self.closed += 1


def ad_for(host: str, port: int, seat: int = 0) -> GameAd:
    """The advert of the sample game served by ``seat`` at 127.0.0.1:``port``."""
    ident = SEATS[seat]
    return GameAd(version=PROTOCOL_VERSION, game_id=GID, edition=FACTS["edition"], seats_taken=2, seats_total=2,
                  state="running", fingerprint=ident.fingerprint, address="127.0.0.1", port=port, host_name=host,
                  public_key=ident.public_key, x25519_key=ident.x25519_public_key, watch_port=port)


def port_in_use(port: int) -> bool:
    """True while a socket holds UDP 127.0.0.1:``port`` (the spectator's own)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.bind(("127.0.0.1", port))
        return False
    except OSError:
        return True
    finally:
        s.close()


def footer(app) -> str:
    return str(app.screen.query_one("#status").render())


def teacher(tmp_path, backend) -> LanopoliApp:
    """``lanopoli watch`` over ``backend``, as the teacher "Prof"."""
    return LanopoliApp(backend=backend, settings=Settings(name="Prof", path=tmp_path / "p.json"), watch=True)


async def open_table(pilot, app) -> None:
    """From the list, Enter on the row under the cursor; back once its board shows a step."""
    await until(pilot, lambda: isinstance(app.screen, WatchListScreen))
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, GameScreen) and app.driver.steps > 0)


async def served(fn):
    """Run ``fn(ad_a, ad_b)`` with table A (the first 40 records: running) and table B (the whole
    game: over) served on loopback; close the servers after."""
    recs = records()
    seats = [SeatServer(SEATS[0], recs[:40]), SeatServer(SEATS[0], recs)]
    addrs = [await s.open() for s in seats]
    try:
        return await fn(ad_for("Tavolo A", addrs[0][1]), ad_for("Tavolo B", addrs[1][1]))
    finally:
        for s in seats:
            await s.close()


@sync
async def test_q_on_a_watched_board_goes_back_to_the_list_and_the_teacher_opens_another(tmp_path):
    async def run(ad_a, ad_b):
        backend = WatchLobby([ad_a, ad_b])
        app = teacher(tmp_path, backend)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_table(pilot, app)  # table A, under the cursor
            first = app.driver
            assert first.ad is ad_a and first.phase == "playing"
            port = first.link.address[1]
            assert port_in_use(port)
            await until(pilot, lambda: footer(app).endswith("q: back to the list"))
            assert len(footer(app)) <= 80

            await pilot.press("q")
            await until(pilot, lambda: isinstance(app.screen, WatchListScreen))
            assert app.driver is None and first.link is None and first.listener is None
            assert not port_in_use(port)  # the spectator's socket is closed
            assert not first._dir.exists()  # its temporary copy of the log is gone
            assert backend.closed == 0  # the list keeps browsing
            assert app.screen.query_one("#games").row_count == 2

            await pilot.press("down", "enter")  # table B: the whole game, to its end
            await until(pilot, lambda: isinstance(app.screen, EndScreen), seconds=30)
            second = app.driver
            assert second is backend.drivers[1] and second.ad is ad_b and second.phase == "over"
            assert engine.state_hash(second.state).hex() == FACTS["final_state_hash"]
            keys = str(app.screen.query_one("#end-keys").render())
            assert keys == "Press q (or Esc) to go back to the list of games."

            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, WatchListScreen))
            assert app.driver is None and second.link is None
            assert [type(s).__name__ for s in app.screen_stack[1:]] == ["WatchListScreen"]

            await pilot.press("q")  # q on the list quits
            await until(pilot, lambda: backend.closed == 1)
        return True

    assert await served(run)


@sync
async def test_in_play_a_game_opened_with_w_goes_back_to_the_lobby(tmp_path):
    """``lanopoli play``: a player who watches a game from the lobby (``w``) expects the lobby
    back on ``q``, where they can join or create a game; ``q`` there quits as before."""
    async def run(ad_a, ad_b):
        backend = WatchLobby([ad_a])
        app = LanopoliApp(backend=backend, settings=Settings(name="Marco", path=tmp_path / "p.json"))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await pilot.press("w")
            await until(pilot, lambda: isinstance(app.screen, GameScreen) and app.driver.steps > 0)
            watched = app.driver
            await pilot.press("q")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            assert app.driver is None and watched.link is None and backend.closed == 0
            await pilot.press("w")  # the same game again, from the lobby
            await until(pilot, lambda: isinstance(app.screen, GameScreen) and app.driver is backend.drivers[1])
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            assert backend.drivers[1].link is None
        return True

    assert await served(run)


class StandIn(DriverBase):
    """A spectator's driver without a network: a running classico game of 4 named seats
    (long names: the bottom line must still fit), ``over`` after ``run`` if ``ends``."""

    role = "watch"
    spectator = True

    def __init__(self, ends: bool = False) -> None:
        super().__init__(None)
        self.names = ("Giulia Bianchi", "Anna Maria Rossi", "Bruno Esposito", "Carla Ferraroni")
        self.seats_total = 4
        self.state = engine.new_game("classico", 4)
        self.phase = "playing"
        self.ends = ends
        self.log_path = None
        self.closed = 0

    async def run(self) -> None:
        self._notify("step")
        if self.ends:
            self.phase = "over"
            self._notify("over")
            return
        await asyncio.Event().wait()

    def waiting(self) -> None:
        return None

    async def fill_with_bots(self) -> None:
        """Nothing to fill."""

    async def close(self) -> None:
        self.closed += 1


def running_ad() -> GameAd:
    return GameAd(version=PROTOCOL_VERSION, game_id=bytes([3]) * 16, edition="classico", seats_taken=4,
                  seats_total=4, state="running", fingerprint=SEATS[0].fingerprint, address="127.0.0.1", port=40000,
                  host_name="Giulia", public_key=SEATS[0].public_key, x25519_key=SEATS[0].x25519_public_key,
                  watch_port=40001)


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 50)])
@pytest.mark.parametrize("lang", ["it", "en"])
@sync
async def test_the_spectators_bottom_line_names_the_way_back_at_every_size(tmp_path, lang, size):
    """The board's bottom line ends with "q: back to the list" in both languages, whole at 80
    columns (where "read-only" goes short); from 120 columns the whole promise shows."""
    set_language(lang)
    try:
        backend = WatchLobby([running_ad()], make=lambda ad: StandIn())
        app = LanopoliApp(backend=backend, settings=Settings(name="Prof", path=tmp_path / "p.json"), watch=True)
        async with app.run_test(size=size) as pilot:
            await until(pilot, lambda: isinstance(app.screen, WatchListScreen))
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, GameScreen))
            await pilot.pause()
            line = footer(app)
            label = app.screen.query_one("#status")
            assert line.endswith(_("q: back to the list")) and len(line) <= size[0]
            assert label.region.right <= size[0] and label.region.bottom <= size[1]
            assert _("watching: read-only, every move verified") in line or size[0] < 120
            assert _("h: chat") in line
            await pilot.press("q")
            await until(pilot, lambda: isinstance(app.screen, WatchListScreen))
            assert backend.drivers[0].closed >= 1
    finally:
        set_language("en")


@sync
async def test_the_end_screen_of_a_watched_game_goes_back_on_q(tmp_path):
    backend = WatchLobby([running_ad()], make=lambda ad: StandIn(ends=True))
    app = LanopoliApp(backend=backend, settings=Settings(name="Prof", path=tmp_path / "p.json"), watch=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, WatchListScreen))
        for n in (1, 2):  # the same table twice: each time its own driver, closed on q
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, EndScreen))
            await pilot.press("q")
            await until(pilot, lambda: isinstance(app.screen, WatchListScreen))
            assert len(backend.drivers) == n and backend.drivers[-1].closed >= 1 and backend.closed == 0


@sync
async def test_a_spectator_with_no_list_below_still_quits(tmp_path):
    """A spectator's driver given at start (no list to go back to): ``q`` quits, as before, and
    the bottom line says so."""
    d = StandIn()
    app = LanopoliApp(driver=d)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await pilot.pause()
        assert footer(app).endswith("q: quit")
        await pilot.press("q")
        await until(pilot, lambda: d.closed >= 1)


@sync
async def test_a_players_keys_are_unchanged(tmp_path):
    """A player's Escape does nothing on the board and ``q`` still asks before leaving."""
    from ui.local_game import LocalGame

    game = LocalGame(["Marco", "Bot 1"], 0, delay=0)
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen) and app.driver is game
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
