"""The Textual application of ``lanopoli play``: lobby -> waiting room -> game -> end; and of
``lanopoli watch``: watch list -> a watched game -> its end, back to the list (``back_to_list``).

``LanopoliApp(backend=..., settings=...)`` starts at the lobby (ui.backends.NetLobby on a real
network, LocalLobby in tests); ``LanopoliApp(driver=...)`` starts straight at the game of a
driver (tests, snapshots). The app runs the driver as a worker and forwards its notifications
to the current screen as ``DriverChanged`` messages; screens render from the driver and give
it the player's actions. Layout lives in app.tcss; the screen gets the class ``-wide`` from 120
columns (HORIZONTAL_BREAKPOINTS), else ``-narrow`` (80×24 compact layout).
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.binding import Binding

from ui.backends import Settings
from ui.screens import DriverChanged, EndScreen, GameScreen, LobbyScreen, WaitingScreen


class LanopoliApp(App):
    """See the module docstring. ``backend``: lobby backend; ``settings``: remembered name;
    ``driver``: start directly in this game (then ``backend`` is not used)."""

    CSS_PATH = "app.tcss"
    TITLE = "lanopoli"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    BINDINGS = [Binding("q", "quit", "quit", show=False), Binding("ctrl+c", "quit", "quit", show=False)]

    def __init__(self, backend: Any = None, settings: Settings | None = None, driver: Any = None,
                 watch: bool = False) -> None:
        super().__init__()
        self.backend = backend
        self.settings = settings or Settings()
        self.driver = driver
        self._game: Any = None  # the driver's worker (start_driver)
        #: ``lanopoli watch``: start at the list of games to watch (ui/screens/watch.py).
        self.watch = watch

    async def on_mount(self) -> None:
        """Start the driver given on the command line, else the backend and its lobby (or the watch
        list)."""
        if self.driver is not None:
            self.start_driver(self.driver, False)
            return
        await self.backend.start()
        if self.watch:
            from ui.screens.watch import WatchListScreen

            self.push_screen(WatchListScreen(self.backend))
            return
        self.push_screen(LobbyScreen(self.backend, self.settings))

    def start_driver(self, driver: Any, bots: bool) -> None:
        """Run ``driver`` and show its waiting room (or the game once it plays)."""
        self.driver = driver
        driver.listener = self._driver_changed
        self._game = self.run_worker(driver.run(), name="game", exit_on_error=True)
        if driver.phase == "playing" or getattr(driver, "role", "") in ("local", "watch"):
            self.show_game(driver)
        else:
            self.push_screen(WaitingScreen(driver, bots))

    def start_watch(self, ad: Any, status: Any = None) -> None:
        """Watch the advertised game ``ad`` (``backend.watch``: a ui.watch.WatchDriver); when it
        cannot be watched, say why in the ``status`` label."""
        from ui.i18n import _

        # No key, no spectator: WatchDriver pins the seat's key (RV16-B F2: a keyless advert crashed).
        if ad.state != "running" or ad.watch_port is None or ad.public_key is None \
                or not hasattr(self.backend, "watch"):
            if status is not None:
                status.update(_("That game cannot be watched (not started yet, or it serves no spectators)."))
            return
        self.start_driver(self.backend.watch(self.settings.name, ad), False)

    def _driver_changed(self, kind: str) -> None:
        target = self.screen
        if kind in ("over", "fault") and not isinstance(target, (GameScreen, WaitingScreen)):
            # A dialog (chat, legend) is on top: the game's screen below shows the end, or the
            # notice was lost with the dialog and the end screen never came (RV16-B F3).
            target = next((s for s in reversed(self.screen_stack) if isinstance(s, (GameScreen, WaitingScreen))),
                          target)
        target.post_message(DriverChanged(kind))
        if kind == "lobby" and self.driver is not None and self.driver.phase == "playing" \
                and not isinstance(self.screen, (GameScreen, WaitingScreen)):
            self.show_game(self.driver)

    def show_game(self, driver: Any) -> None:
        """Switch to the game screen (once)."""
        if not isinstance(self.screen, GameScreen):
            self.switch_screen(GameScreen(driver)) if isinstance(self.screen, WaitingScreen) \
                else self.push_screen(GameScreen(driver))

    async def leave_room(self) -> None:
        """Leave the waiting room for the games list (protocol.md Part U "Screens"): stop
        listening to the driver, let it tell the host (``driver.leave``: a joiner's LEAVE), stop
        its game (the node withdraws our advert and closes as when the program quits), stop its
        bots, browse afresh (``backend.rescan``) and show the lobby again; ``q`` there quits."""
        driver, self.driver = self.driver, None
        if driver is None:
            return
        await self._stop(driver)
        if self.backend is not None:
            await self.backend.rescan()  # the list as it is now (NetLobby.rescan)
        if isinstance(self.screen, WaitingScreen):
            self.pop_screen()

    async def _stop(self, driver: Any) -> None:
        """Stop listening to ``driver``, let it tell whom it must (``driver.leave``: a joiner's
        LEAVE; nothing for a spectator), cancel its worker and wait for it, then close it."""
        from textual.worker import WorkerCancelled

        driver.listener = None
        await driver.leave()
        self._game.cancel()
        try:
            await self._game.wait()
        except WorkerCancelled:
            pass
        await driver.close()

    @staticmethod
    def is_list(screen: Any) -> bool:
        """``screen`` is a list of games: the watch list (``lanopoli watch``) or the lobby."""
        from ui.screens.watch import WatchListScreen

        return isinstance(screen, (LobbyScreen, WatchListScreen))

    def list_below(self) -> bool:
        """A list of games is under the current screen: the watch list (``lanopoli watch``) or the
        lobby (``lanopoli play``, a game opened with ``w``). A spectator's ``q`` goes back to it
        (``back_to_list``); without one (a driver given at start) ``q`` quits."""
        return any(self.is_list(s) for s in self.screen_stack[:-1])

    async def back_to_list(self, driver: Any) -> None:
        """Stop watching ``driver`` (a spectator's, ``driver.spectator``) and show the list of games
        it was opened from, redrawn: the teacher opens another table from there, and ``q`` on the
        list quits. As ``leave_room`` does for a player (``_stop``): stop listening to the driver,
        cancel its worker and wait for it (ui.watch.WatchDriver.run closes its socket and DNS-SD
        browser and removes its temporary copy of the log), close it (again: idempotent). The
        list is read again from the backend, which kept browsing while we watched (a rescan
        would only empty it for a moment: watching changed no advert, unlike a waiting room we
        sat in). Nothing happens if ``driver`` is no longer ours (a second ``q``)."""
        if driver is None or driver is not self.driver:
            return
        self.driver = None
        await self._stop(driver)
        while len(self.screen_stack) > 1 and not self.is_list(self.screen):
            await self.pop_screen()
        if self.is_list(self.screen):
            self.screen.refresh_games()

    def leave_spectator(self, driver: Any) -> None:
        """A spectator's ``q`` (or Escape) on the board or the end screen: back to the list of
        games (``back_to_list``) if there is one below, else quit."""
        if self.list_below():
            self.run_worker(self.back_to_list(driver), group="back")
        else:
            self.action_quit_now()

    def game_finished(self, driver: Any) -> None:
        """Show the end screen (standings or the fault), unless we stopped following ``driver``."""
        if driver is self.driver and not isinstance(self.screen, EndScreen):
            self.switch_screen(EndScreen(driver))

    def action_quit_now(self) -> None:
        """Quit without asking (the screens ask first where it matters)."""
        self.run_worker(self.action_quit(), exclusive=True)

    async def action_quit(self) -> None:
        """q: close the driver and the backend, then leave."""
        if self.driver is not None:
            await self.driver.close()
        if self.backend is not None:
            await self.backend.close()
        self.exit()


__all__ = ["LanopoliApp"]


def run_play(args: Any) -> int:
    """``lanopoli play``: the network (``--interface``/``--bind``, as host/join), the keys
    (``--config-dir``), the name (``--name``, else the remembered one), then the app on a
    NetLobby. Returns the exit code (0; 2 for a bad network choice via UsageError)."""
    from pathlib import Path

    from ui.peer import _identity, default_log_dir, resolve_endpoint
    from ui.backends import NetLobby

    endpoint = resolve_endpoint(args)
    settings = Settings.load(args.config_dir)
    if args.name:
        settings.name = args.name.strip()[:32]
        settings.save()
    args.seed = None
    log_dir = Path(args.log_dir) if args.log_dir else default_log_dir()
    backend = NetLobby(endpoint.address, log_dir=log_dir, identity=_identity(args))
    LanopoliApp(backend=backend, settings=settings, watch=getattr(args, "watch", False)).run()
    return 0
