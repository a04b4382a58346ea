"""The board: the edition's squares (40, or 36 on niente-e-come-sembra) around the edge; the
centre shows dice, whose turn, and the log."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ui.board_layout import SEAT_COLOURS, cell_of, cell_size, draw_cell, grid_size
from ui.i18n import _, to_name


class Board(Widget):
    """Renders ``state`` (an engine State) with ``names`` (seat order), the ``status`` line and
    the last lines of ``log`` (plain sentences, oldest first) in the centre.

    The ring has ``grid_size(n)`` cells per side for the edition's ``n`` squares (11 for 40,
    10 for 36; ui/board_layout.py). Cell size follows the widget's size: width
    ``size.width // grid`` (at least 5), height 1..3 rows. Set the attributes; the widget redraws.
    """

    state: reactive[Any] = reactive(None, always_update=True)
    names: reactive[tuple] = reactive(())
    status: reactive[str] = reactive("")
    log: reactive[tuple] = reactive(())
    #: A network game's table code (protocol.md §C2.4), kept in the rule under the head so that
    #: players can compare it at any time; "" for a local game.
    table_code: reactive[str] = reactive("")

    def render(self) -> Text:
        """The board as a grid of squares scaled to the widget (owners, houses, tokens), or a hint
        when too narrow."""
        s = self.state
        width, height = self.size.width, self.size.height
        n = len(s.ed.squares) if s is not None else 40
        grid = grid_size(n)
        size = cell_size(width, height, n)
        if s is None or size is None:
            return Text(_("The board needs a wider window."))
        cw, ch = size
        cells: dict[tuple[int, int], list[Text]] = {}
        for sq in range(n):
            cells[cell_of(sq, n)] = draw_cell(s, sq, cw, ch)
        centre = self._centre(s, cw * (grid - 2) - 2, ch * (grid - 2))
        out = Text()
        for row in range(grid):
            for line in range(ch):
                for col in range(grid):
                    cell = cells.get((col, row))
                    if cell is not None:
                        out.append_text(cell[line])
                    elif col == 1:
                        idx = (row - 1) * ch + line
                        out.append(" ")
                        out.append_text(centre[idx])
                        out.append(" ")
                out.append("\n")
        out.rstrip()
        return out

    def _code_rule(self, width: int, hint: str) -> Text | None:
        """The rule under the head with the table code (protocol.md §C2.4) before the legend's
        hint, "──── table XXXX-XXXX ─ ?: legend ─"; without the hint (just the code) when
        narrower; None when even the code does not fit."""
        code = " " + _("table {code}").format(code=self.table_code) + " "
        if width >= 3 * len(hint) + len(code) + 1:
            rule = Text("─" * (width - len(hint) - len(code) - 1), Style(dim=True))
            rule.append(code, Style(bold=True))
            rule.append("─", Style(dim=True))
            rule.append(hint[:-1], Style(dim=True, italic=True))
            rule.append("─", Style(dim=True))
            return rule
        code = f" {self.table_code} "
        if width < len(code) + 2:
            return None
        rule = Text("─" * (width - len(code)), Style(dim=True))
        rule.append(code, Style(bold=True))
        return rule

    def _centre(self, s: Any, width: int, height: int) -> list[Text]:
        """``height`` lines of ``width`` cells: dice, turn, status, then the newest log lines."""
        head: list[Text] = []
        if s.d1:
            head.append(Text(_("Dice: {d1} + {d2} = {total}").format(d1=s.d1, d2=s.d2, total=s.d1 + s.d2),
                             Style(bold=True)))
        cur = s.current
        if 0 <= cur < len(self.names):
            # "Turn 20 · Dario to play [4]": the turn counter first, the seat's token after the
            # name (the token beside "Turn" read as a turn number).
            t = Text(_("Turn {turn} · {name} to play").format(
                turn=s.turn, name=self.names[cur], to_name=to_name(self.names[cur])), Style(bold=True))
            t.append(" ")
            t.append(f" {cur + 1} ", Style(color="black", bgcolor=SEAT_COLOURS[cur], bold=True))
            head.append(t)
        if self.status:
            head.append(Text(self.status, Style(color="yellow", bold=True)))
        # The rule under the head says where the marks are explained (the legend, "?"): the
        # footer has no room left at 80 columns.
        hint = " " + _("?: legend") + " ─"
        rule = Text("─" * max(width - len(hint), 0), Style(dim=True))
        if width >= 3 * len(hint):
            rule.append(hint[:-1], Style(dim=True, italic=True))
            rule.append("─", Style(dim=True))
        else:
            rule = Text("─" * width, Style(dim=True))
        if self.table_code:
            rule = self._code_rule(width, hint) or rule
        head.append(rule)
        room = max(height - len(head), 0)
        wrapped: list[Text] = []
        for line in reversed(self.log):
            parts = Text(line).wrap(self.app.console, width) if width > 0 else []
            wrapped[0:0] = list(parts)
            if len(wrapped) >= room:
                break
        body = wrapped[-room:] if room else []
        lines = head[:height] + body
        lines += [Text("")] * (height - len(lines))
        for t in lines:
            t.truncate(width, pad=True)
        return lines


__all__ = ["Board"]
