"""The players: money, properties grouped by colour, jail cards, who is in jail or out."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ui.board_layout import GROUP_COLOURS, SEAT_COLOURS, building_mark, short_name
from ui.i18n import _, format_money

#: Width from which each colour group gets its own line with the street names.
WIDE = 30


def holdings(state: Any, seat: int) -> list[tuple[int, list[int]]]:
    """``seat``'s properties grouped: [(group index, squares)] in board order of the groups;
    stations are group -2, utilities -3 (after the colours)."""
    ed = state.ed
    out: list[tuple[int, list[int]]] = []
    for g, members in enumerate(ed.groups):
        mine = [sq for sq in members if state.owner[sq] == seat]
        if mine:
            out.append((g, mine))
    for g, kind in ((-2, 2), (-3, 3)):
        mine = [sq for sq in state.tb.properties if state.tb.kind[sq] == kind and state.owner[sq] == seat]
        if mine:
            out.append((g, mine))
    return out


class PlayersPanel(Widget):
    """One block per seat: token, name, cash, jail, jail cards, properties by colour.

    ``state``: engine State; ``names``: seat order; ``me``: our seat (marked "you").
    Narrow: one line per player with a coloured block per property; wide: a line per group
    with the street names (× mortgaged, 1-4 houses, H hotel).
    """

    state: reactive[Any] = reactive(None, always_update=True)
    names: reactive[tuple] = reactive(())
    me: reactive[int] = reactive(-1)

    def render(self) -> Text:
        s = self.state
        out = Text()
        if s is None:
            return out
        need = s.n + sum(len(holdings(s, i)) for i in range(s.n) if not s.out[i])
        wide = self.size.width >= WIDE and need <= self.size.height
        for seat in range(s.n):
            if seat:
                out.append("\n")
            out.append_text(self._player(s, seat, wide))
        return out

    def _player(self, s: Any, seat: int, wide: bool) -> Text:
        t = Text()
        t.append(f" {seat + 1} ", Style(color="black", bgcolor=SEAT_COLOURS[seat], bold=True))
        name = self.names[seat] if seat < len(self.names) else "?"
        if seat == self.me:
            name += " " + _("(you)")
        t.append(" " + name, Style(bold=seat == s.current, strike=bool(s.out[seat])))
        if s.out[seat]:
            t.append("  " + _("bankrupt"), Style(color="red"))
            return t
        t.append("  " + format_money(s.cash[seat]), Style(color="green", bold=True))
        if s.jail[seat]:
            t.append("  " + _("in jail"), Style(color="red", bold=True))
        cards = len(s.held[seat])
        if cards:
            t.append("  " + _("jail cards: {n}").format(n=cards), Style(color="cyan"))
        groups = holdings(s, seat)
        if not wide:
            t.append("  ")
            for g, squares in groups:
                for sq in squares:
                    t.append_text(self._chip(s, g, sq))
                t.append(" ")
            return t
        for g, squares in groups:
            t.append("\n    ")
            if g >= 0:
                t.append("██ ", Style(color=GROUP_COLOURS[g]))
            else:
                t.append("   ")
            t.append(", ".join(short_name(s.ed.squares[sq].name, 16)
                               + ("" if building_mark(s.level[sq], bool(s.mort[sq])) == " "
                                  else " " + building_mark(s.level[sq], bool(s.mort[sq])))
                               for sq in squares))
        return t

    @staticmethod
    def _chip(s: Any, g: int, sq: int) -> Text:
        mark = building_mark(s.level[sq], bool(s.mort[sq]))
        if g >= 0:
            style = Style(color=GROUP_COLOURS[g], dim=bool(s.mort[sq]))
            return Text(mark if mark != " " else "■", style + Style(bold=True) if mark != " " else style)
        return Text("S" if g == -2 else "U", Style(dim=bool(s.mort[sq]), bold=True))


__all__ = ["PlayersPanel", "holdings"]
