"""The board's legend (``?`` on the game screen): what the marks in a square mean. A newcomer
walking the UI at 80x24..160x50 (issue 11) met "·", "×", "H", "+" and digits that are owners
in one place and tokens in the next with nothing on screen to say which."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label

import engine
from ui.board_layout import GROUP_COLOURS, SEAT_COLOURS
from ui.i18n import _
from ui.screens.modal import _Dialog


def legend_rows(state: Any) -> list[tuple[Text, str]]:
    """One (mark, meaning) pair per mark of the board (ui/board_layout.draw_cell), translated:
    the mark in its own colours, centred in 3 cells, then what it means; niente-e-come-sembra
    adds its magnifiers (players panel). ``state``: the engine state shown (for the edition),
    or None."""
    token = Style(color="black", bgcolor=SEAT_COLOURS[1], bold=True)
    rows: list[tuple[str, Style, str]] = [
        ("█", Style(color=GROUP_COLOURS[0]), _("the colour group of a street, before its name")),
        ("·", Style(dim=True), _("for sale: nobody owns it (tall squares show its price)")),
        ("2", Style(color=SEAT_COLOURS[1], bold=True), _("owner: the seat number of its owner, after the name")),
        ("1-4", Style(color="green", bold=True), _("houses on it")),
        ("H", Style(color="green", bold=True), _("a hotel")),
        ("×", Style(color="red", bold=True), _("mortgaged: no rent until the mortgage is lifted")),
        ("2", token, _("a player's token standing there (seat number on the player's colour)")),
        ("+", Style(bold=True), _("more tokens there than the square has room for")),
    ]
    if state is not None and engine.has_hidden(state):
        rows.append(("●", Style(color="green"), _("players panel: a magnifier left (red: used, green again on GO)")))
        rows.append(("l", Style(bold=True), _("when the game offers you the magnifier: always, for you only, never")))
    return [(Text(mark.center(3), style), meaning) for mark, style, meaning in rows]


def legend_grid(state: Any) -> Table:
    """:func:`legend_rows` as a grid whose meanings wrap under themselves, not under the marks
    (H108's walk, 80x24: "a player's token standing there (seat number on the player's" went
    on with "colour)" at the dialog's left edge)."""
    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(width=4, justify="right", no_wrap=True)
    grid.add_column(ratio=1)
    for mark, meaning in legend_rows(state):
        grid.add_row(mark, meaning)
    return grid


class LegendDialog(_Dialog):
    """Read-only: the legend of ``state``'s board; Esc or ``?`` closes it (dismisses None)."""

    BINDINGS = [Binding("escape", "cancel", _("Close")), Binding("question_mark", "cancel", _("Close"))]

    def __init__(self, state: Any) -> None:
        super().__init__()
        self.state = state

    def compose(self) -> ComposeResult:
        """The title, one line per mark, how to close."""
        with Vertical(classes="dialog wide", id="legend"):
            yield Label(_("How to read the board"), classes="title")
            yield Label(_("Each square: its name, the owner, the buildings, the tokens on it. The seat numbers "
                          "are the ones of the players panel."))
            yield Label(legend_grid(self.state))
            yield Label(_("Esc or ?: close"))


__all__ = ["LegendDialog", "legend_grid", "legend_rows"]
