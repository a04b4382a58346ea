"""``lanopoli watch``: every game on the LAN with its edition, players and live standings (the
TXT records, protocol.md §N3), refreshed as the hosts re-announce them; Enter opens one,
read-only and verified (ui.watch.WatchDriver, protocol.md §N10); ``q`` or Escape on its board or
end screen comes back here (``LanopoliApp.back_to_list``), ``q`` here quits."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Label

from ui.backends import contest_cells, cursor_row, row_identity
from ui.i18n import _, format_money


def standings_cell(ad: Any) -> str:
    """``"Anna €1.500 · Bruno out"`` in seat order, the current player marked ▶ (TXT ``sd``
    and ``p<i>``); the names alone (or the seat count) before the game runs."""
    sd = ad.standings
    if sd is None:
        return ", ".join(ad.players) or f"{ad.seats_taken}/{ad.seats_total}"
    names = list(ad.players) + [_("seat {seat}").format(seat=i + 1) for i in range(len(ad.players), len(sd.worth))]
    parts = []
    for i, w in enumerate(sd.worth):
        mark = "▶" if i == sd.current else ""
        parts.append(f"{mark}{names[i]} " + (_("out") if w is None else format_money(w)))
    return " · ".join(parts)


class WatchListScreen(Screen):
    """Lists ``backend.games()`` (ui.backends.NetLobby) with live standings; ``w``/Enter watches
    the game under the cursor (running games serving spectators), ``q`` quits."""

    BINDINGS = [Binding("w", "watch", "watch"), Binding("r", "refresh", "refresh", show=False)]

    def __init__(self, backend: Any) -> None:
        super().__init__()
        self.backend = backend
        #: The rows as last drawn (``w`` / Enter act on what is shown under the cursor, RV13-C #1).
        self._shown: list = []
        self._had_games = False  # the status line holds "No games yet" until the first game shows

    def compose(self) -> ComposeResult:
        """The games on the network with their live standings, a status line, the buttons."""
        with Vertical(id="lobby"):
            yield Label(_("lanopoli — the games on your network"), classes="title")
            yield Label(_("Live standings, ▶ whose turn it is; Enter watches a game (every move verified)."),
                        classes="subtitle", id="watch-help")
            yield DataTable(id="games", cursor_type="row", zebra_stripes=True)
            yield Label("", id="lobby-status", classes="error")
            with Horizontal(classes="buttons"):
                yield Button(escape(_("Watch [w]")), id="watch", variant="primary", compact=True)
                yield Button(escape(_("Quit [q]")), id="quit", compact=True)

    def on_mount(self) -> None:
        """Fill the table, refresh it when the backend reports a change and every second."""
        table = self.query_one("#games", DataTable)
        # The standings last: the long cell is cut at its end, never the address (80 columns).
        table.add_columns(_("Host"), _("Edition"), _("Turn"), _("Where"), _("Players and standings"))
        self.backend.listener = lambda: self.app.call_later(self.refresh_games)
        self.refresh_games()
        self.set_interval(1.0, self.refresh_games)
        table.focus()

    def refresh_games(self) -> None:
        """Redraw the list from the backend (keeps the cursor on the same listing, ``cursor_row``)."""
        table = self.query_one("#games", DataTable)
        ads = self.backend.games()
        keep = table.cursor_row
        chosen = row_identity(self._shown[keep]) if 0 <= keep < len(self._shown) else None
        self._shown = ads
        table.clear()
        for ad in ads:
            turn = "—" if ad.standings is None else str(ad.standings.turn)
            if ad.state == "lobby":
                turn = _("waiting")
            # protocol.md §N3 "Contested game ids": "⚠" and the fingerprint under the address (choose by key).
            host, where, height = contest_cells(self.backend, ad, escape(ad.host_name or ad.game_id.hex()[:8]))
            # No row key: two adverts of one game id (a contest) are two rows (a key would clash).
            table.add_row(host, ad.edition, turn, where, escape(standings_cell(ad)), height=height)
        if ads:
            table.move_cursor(row=cursor_row(ads, chosen, keep))
            if not self._had_games:  # clear "No games yet", never a reason ``w``/Enter gave (start_watch)
                self.query_one("#lobby-status", Label).update("")
            self._had_games = True
        else:
            self.query_one("#lobby-status", Label).update(_("No games yet: they appear here by themselves."))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a game: watch it."""
        self.action_watch()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Watch the selected game, or leave."""
        if event.button.id == "watch":
            self.action_watch()
        else:
            self.app.exit()

    def action_refresh(self) -> None:
        """r: read the games again."""
        self.refresh_games()

    def action_watch(self) -> None:
        """w: watch the selected game (every move verified, protocol.md §N10)."""
        ads = self._shown
        if not ads:
            return
        ad = ads[min(self.query_one("#games", DataTable).cursor_row, len(ads) - 1)]
        self.app.start_watch(ad, self.query_one("#lobby-status", Label))


__all__ = ["WatchListScreen", "standings_cell"]
