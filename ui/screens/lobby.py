"""The lobby: your name, the games on the network (live), create / join / join by address;
then the waiting room of the chosen game until it starts."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Input, Label

from ui.i18n import _
from ui.backends import CreateRequest, contest_cells, contested, cursor_row, joined_host_key, row_identity
from ui.screens.dialogs import CreateDialog, JoinCodeDialog
from ui.screens.modal import InOrderInput


class LobbyScreen(Screen):
    """Lists ``backend.games()`` (ui.backends.NetLobby or LocalLobby), refreshed when the backend
    reports a change; ``settings`` (ui.backends.Settings) remembers the name."""

    BINDINGS = [Binding("c", "create", "create"), Binding("j", "join", "join"),
                Binding("i", "join_code", "address"), Binding("w", "watch", "watch"),
                Binding("r", "refresh", "refresh", show=False)]

    def __init__(self, backend: Any, settings: Any) -> None:
        super().__init__()
        self.backend = backend
        self.settings = settings
        self._had_games = False  # the "no games yet" hint goes away when one appears
        #: The rows as last drawn: Enter / j / w act on what the player sees under the cursor, never on a
        #: list read again since, where a goodbye may have moved another advert to that row (RV13-C #1).
        self._shown: list = []

    def compose(self) -> ComposeResult:
        """Name field, the live table of games, a status line and the buttons."""
        with Vertical(id="lobby"):
            yield Label(_("lanopoli — Monopoly on your local network"), classes="title")
            with Horizontal(classes="row"):
                yield Label(_("Your name:"), classes="prompt")
                yield InOrderInput(self.settings.name, placeholder=_("your name"), id="name", max_length=32)
            yield Label(_("Games on the network (they appear by themselves):"), classes="subtitle")
            yield DataTable(id="games", cursor_type="row", zebra_stripes=True)
            yield Label("", id="lobby-status", classes="error")
            with Horizontal(classes="buttons"):
                yield Button(escape(_("Create a game [c]")), id="create", variant="primary", compact=True)
                yield Button(escape(_("Join [j]")), id="join", compact=True)
                yield Button(escape(_("Join by address [i]")), id="join_code", compact=True)
                yield Button(escape(_("Watch [w]")), id="watch", compact=True)
                yield Button(escape(_("Quit [q]")), id="quit", compact=True)

    def on_mount(self) -> None:
        """Fill the games table, refresh it when the backend reports a change and every 2 s; focus
        the name field until a name is known."""
        table = self.query_one("#games", DataTable)
        table.add_columns(_("Host"), _("Edition"), _("Players"), _("State"), _("Where"))
        self.backend.listener = lambda: self.app.call_later(self.refresh_games)
        self.refresh_games()
        self.set_interval(2.0, self.refresh_games)
        if not self.settings.name:
            self.query_one("#name", Input).focus()
        else:
            table.focus()

    def rows(self) -> list:
        """What the list shows, in order: our unfinished games first (``backend.mine()``,
        ``ui.play.MyGame``: Enter rejoins), then the advertised games (``GameAd``) not ours."""
        mine = list(getattr(self.backend, "mine", list)())
        ours = {g.game_id for g in mine}
        return mine + [ad for ad in self.backend.games() if ad.game_id not in ours]

    def refresh_games(self) -> None:
        """Redraw the list of games from the backend (keeps the cursor on the same game)."""
        table = self.query_one("#games", DataTable)
        ads = self.rows()
        keep = table.cursor_row
        chosen = row_identity(self._shown[keep]) if 0 <= keep < len(self._shown) else None
        self._shown = ads
        table.clear()
        hosts = [ad.host_name for ad in ads if hasattr(ad, "state")]
        for ad in ads:
            if not hasattr(ad, "state"):  # ui.play.MyGame
                table.add_row("★ " + _("your game"), ad.edition, players_cell(len(ad.names), len(ad.names), ad.names),
                              _("Enter: rejoin"), "", key="mine-" + ad.game_id.hex())
                continue
            # Short, so that a row of a classico game fits 80 columns with its address whole
            # ("1/4" already says seats are free; "in corso, turno 5" cut "127.0.0.1:34346" to
            # "127.0.0.1:3434"): the names stay before it, they matter more.
            state = _("waiting") if ad.state == "lobby" else _("playing")
            if ad.standings is not None:
                state = _("turn {turn}").format(turn=ad.standings.turn)
            host = escape(ad.host_name) if ad.host_name else ad.game_id.hex()[:8]
            if ad.host_name and hosts.count(ad.host_name) > 1 and not contested(self.backend, ad):
                host += " · " + ad.game_id.hex()[:4]  # two hosts of one name: tell them apart
            # protocol.md §N3 "Contested game ids": "⚠" and the fingerprint under the address (choose by key).
            host, where, height = contest_cells(self.backend, ad, host)
            # No row key: two adverts of one game id (a contest) are two rows (a key would clash).
            table.add_row(host, ad.edition, players_cell(ad.seats_taken, ad.seats_total, ad.players), state,
                          where, height=height)
        if ads:
            table.move_cursor(row=cursor_row(ads, chosen, keep))
            if not self._had_games:
                self.query_one("#lobby-status", Label).update("")
            self._had_games = True
        else:
            self.query_one("#lobby-status", Label).update(_("No games yet. Create one, or wait for one to appear."))

    def player_name(self) -> str | None:
        """The typed player name (saved in the settings when it changed), or None after asking for
        one."""
        name = self.query_one("#name", Input).value.strip()
        if not name:
            self.query_one("#lobby-status", Label).update(_("Type your name first."))
            self.query_one("#name", Input).focus()
            return None
        if name != self.settings.name:
            self.settings.name = name
            self.settings.save()
        return name

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A button runs the action of its key."""
        actions = {"create": self.action_create, "join": self.action_join, "join_code": self.action_join_code,
                   "watch": self.action_watch, "quit": self.action_quit}
        handler = actions.get(event.button.id or "")
        if handler is not None:
            handler()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the name field: keep the name, go to the games table."""
        if self.player_name():
            self.query_one("#games", DataTable).focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a game: join it."""
        self.action_join()

    def action_refresh(self) -> None:
        """r: read the games again."""
        self.refresh_games()

    def action_quit(self) -> None:
        """q: leave the program."""
        self.app.exit()

    def action_create(self) -> None:
        """c: ask for the new game's settings, then open it (with bots in the free seats if asked)."""
        if self.player_name() is None:
            return

        def created(req: CreateRequest | None) -> None:
            """The create dialog closed: open the game, unless cancelled."""
            if req is not None:
                self.app.start_driver(self.backend.create(self.settings.name, req), req.bots)

        self.app.push_screen(CreateDialog(), created)

    def action_join(self) -> None:
        """j: join the selected game (or rejoin our unfinished one)."""
        name = self.player_name()
        if name is None:
            return
        ads = self._shown
        table = self.query_one("#games", DataTable)
        if not ads:
            self.query_one("#lobby-status", Label).update(_("There is no game to join yet."))
            return
        ad = ads[min(table.cursor_row, len(ads) - 1)]
        if not hasattr(ad, "state"):  # our unfinished game: rejoin it from the log
            self.app.start_driver(self.backend.rejoin(name, ad), False)
            return
        if ad.state != "lobby" or ad.free_seats <= 0:
            self.query_one("#lobby-status", Label).update(_("That game has already started or is full."))
            return
        self.app.start_driver(self.backend.join(name, ad), False)

    def action_watch(self) -> None:
        """w: follow the running game under the cursor as a spectator (protocol.md §N10)."""
        rows = self._shown
        if not rows:
            return
        ad = rows[min(self.query_one("#games", DataTable).cursor_row, len(rows) - 1)]
        if hasattr(ad, "state"):  # an advertised game, not one of ours
            self.app.start_watch(ad, self.query_one("#lobby-status", Label))

    def action_join_code(self) -> None:
        """i: ask for a join code (address:port/tag), then join by it."""
        name = self.player_name()
        if name is None:
            return

        def joined(code: str | None) -> None:
            """The join-code dialog closed: join by the code, unless cancelled."""
            if code:
                self.app.start_driver(self.backend.join_code(name, code), False)

        self.app.push_screen(JoinCodeDialog(), joined)


#: Characters of the players column's names (the table scrolls sideways beyond that).
PLAYERS_CELL = 20


def players_cell(taken: int, total: int, names: tuple | list) -> str:
    """``"2/4 Giulia, Marco"`` clipped to PLAYERS_CELL characters (names escaped for markup)."""
    text = f"{taken}/{total}" + (" " + ", ".join(names) if names else "")
    if len(text) > PLAYERS_CELL:
        text = text[: PLAYERS_CELL - 1] + "…"
    return escape(text)


#: Chat lines the waiting room shows (the newest).
CHAT_LINES = 5


class WaitingScreen(Screen):
    """The waiting room: who is in, how many seats are free, the join code, what the host should
    know (``driver.notices``: a player who joined with our own key), the chat (``c``
    types a line, Enter sends, Esc goes back to the buttons), (host with bots) the Start
    button that fills the empty seats with bots and Leave (``q``: back to the games list). The
    buttons have the focus first, so that ``s`` and ``q`` are never typed into the chat by mistake."""

    BINDINGS = [Binding("s", "start", "start"), Binding("c", "chat", "chat"), Binding("q", "leave", "leave"),
                Binding("escape", "buttons", show=False)]
    AUTO_FOCUS = "Button"

    def __init__(self, driver: Any, bots: bool) -> None:
        super().__init__()
        self.driver = driver
        self.bots = bots
        self._ad_seen = False  # a joiner saw the game's advert in the list (host_gone)

    def compose(self) -> ComposeResult:
        """Seats, players, the join code to share, the chat and the buttons."""
        with Vertical(id="waiting"):
            yield Label(_("Waiting room"), classes="title")
            yield Label("", id="seats")
            yield Label("", id="who")
            yield Label("", id="code")
            yield Label("", id="notice", classes="error")
            yield Label("", id="chat-log")
            yield InOrderInput(placeholder=_("c: chat — type a message, Enter sends, Esc: back"), id="chat",
                               max_length=200)
            with Horizontal(classes="buttons"):
                if self.bots:
                    yield Button(escape(_("Start: bots take the empty seats [s]")), id="start", variant="primary", compact=True)
                yield Button(escape(_("Leave [q]")), id="quit", compact=True)

    def on_mount(self) -> None:
        """Show the room now and every 0.5 s."""
        self.update_view()
        self.set_interval(0.5, self.update_view)

    def update_view(self) -> None:
        """Redraw from the driver."""
        d = self.driver
        total = d.seats_total or "?"
        seats = _("Players: {taken} of {total}. The game starts when every seat is taken.").format(
            taken=len(d.lobby_names), total=total)
        if not getattr(d, "can_fill", True):  # a joiner: the host may have a Start button (NetGame.fill_with_bots)
            seats += "\n" + _("The host may also start sooner: bots then take the empty seats.")
        self.query_one("#seats", Label).update(seats)
        # Host: who was removed for not confirming the setup (protocol.md §C2.2 step 7).
        removed = [f"  ✘ {n} — " + _("removed: did not confirm") for n in getattr(d, "lobby_removed", ())]
        self.query_one("#who", Label).update("\n".join([f"  ✔ {n} — " + _("ready") for n in d.lobby_names]
                                                       + removed))
        if d.join_code:
            code = _("Others can join from the list, or by address with the code: {code}").format(code=d.join_code)
            if getattr(d, "host_fingerprint", ""):  # what a "⚠" row of the games lists shows (§N3)
                code += "\n" + _("If their list shows this game twice (⚠), yours has the fingerprint {fp}.").format(
                    fp=d.host_fingerprint)
            self.query_one("#code", Label).update(code)
        else:
            self.query_one("#code", Label).update(_("Looking for the game and asking for a seat…")
                                                  if not d.lobby_names or d.seats_total == 0 else "")
        # Host: a player who tried to join with our own key (NetGame.notices, translated).
        notices = list(getattr(d, "notices", ()))
        if self.host_gone():
            notices.append(_("The game's advert is gone: the host has probably closed it "
                             "(q goes back to the games list)."))
        notice = self.query_one("#notice", Label)
        notice.update("\n".join(escape(n) for n in notices))
        notice.display = bool(notices)
        from ui.narrate import chat_line

        lines = list(getattr(d, "chat_lines", ()))[-CHAT_LINES:]
        self.query_one("#chat-log", Label).update("\n".join(escape(chat_line(x)) for x in lines))

    def host_gone(self) -> bool:
        """Joiner: True once the advert of the game we joined, seen in the games list
        (``app.backend.games()``), is gone: the host left its waiting room or quit, which withdraws
        the advert (the mDNS goodbye, §N3) and tells the joiners nothing else in the lobby
        (protocol.md Part U "Leaving the waiting room"). The advert is the one of that game id
        *and the host's key* (``joined_host_key``; the game id alone if the key is unknown): a clone
        of the game id under another key (§N3 "Contested game ids") stays listed after the host's
        goodbye and must not hide it (RV13-C #6). Joined from the list, also *at the address and
        port* we joined (the advert's own, ``NetGame.cfg["host_addr"]``): ``pk`` is public, so a
        clone may carry the host's key too, under another name (RV14-A #4); only a clone that also
        names the host's address (whose joins reach the real host) still hides the goodbye, as
        mDNS cannot tell them apart. A game never seen there (multicast blocked) is never gone."""
        gid = getattr(self.driver, "advert_id", None)
        backend = getattr(self.app, "backend", None)
        if gid is None or backend is None or self.driver.phase != "lobby":
            return False
        key = joined_host_key(self.driver)
        cfg = getattr(self.driver, "cfg", None) or {}  # a join by code: the code's address may be another
        where = tuple(cfg["host_addr"]) if key is not None and cfg.get("host_keys") and cfg.get("host_addr") else None
        listed = any(ad.game_id == gid and (key is None or ad.public_key == key)
                     and (where is None or (ad.address, ad.port) == where) for ad in backend.games())
        self._ad_seen |= listed
        return self._ad_seen and not listed

    def action_chat(self) -> None:
        """c: focus the chat field."""
        self.query_one("#chat", Input).focus()

    def action_buttons(self) -> None:
        """Esc: leave the chat field for the buttons."""
        self.query_one(Button).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Send the chat line typed in the waiting room (protocol.md §N9)."""
        from p2p.chat import ChatLimited

        try:
            self.driver.say(event.value)
        except ChatLimited:
            self.query_one("#chat-log", Label).update(_("Too many messages: wait a moment."))
            return
        except ValueError:
            return
        event.input.value = ""
        self.update_view()

    def on_driver_changed(self, message: Any) -> None:
        """The driver changed: redraw; the game screen once playing, the end screen on a fault or
        the end."""
        self.update_view()
        if message.kind in ("fault", "over"):
            self.app.game_finished(self.driver)
        elif self.driver.phase == "playing":
            self.app.show_game(self.driver)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Start (bots take the free seats) or leave."""
        if event.button.id == "start":
            self.action_start()
        else:
            self.action_leave()

    def action_leave(self) -> None:
        """q: back to the games list (``LanopoliApp.leave_room``: a joiner's seat is freed at the
        host, a host's game withdrawn); ``q`` there quits the program. Nothing once the game
        started (its screen is on its way, whose ``q`` asks first)."""
        if self.driver.phase != "lobby":
            return
        self.query_one("#code", Label).update(_("Leaving the game…"))
        self.app.run_worker(self.app.leave_room(), exclusive=True, group="leave")

    def action_start(self) -> None:
        """Host: bots take the empty seats, so that the game starts."""
        if self.bots and self.driver.can_fill:
            self.run_worker(self.driver.fill_with_bots())
            self.query_one("#code", Label).update(_("Bots are taking the empty seats…"))


__all__ = ["LobbyScreen", "WaitingScreen"]
