"""Where the 40 squares go on screen, and how a square is drawn in a small cell.

Pure functions of the engine state (no Textual): the Board widget (ui/widgets/board.py) calls
them, and tests can check them without a terminal.

The board is an 11×11 grid of cells, VIA! in the bottom-right corner as on the printed board:
squares 0..10 run right-to-left along the bottom row, 10..20 bottom-to-top up the left column,
20..30 left-to-right along the top, 30..39 top-to-bottom down the right column. The inner 9×9
cells are the centre (dice, turn, log).
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text

#: Cells per side of the board grid.
GRID = 11

#: Colour of each colour group (classico order: marrone, azzurro, rosa, arancione, rosso,
#: giallo, verde, blu).
GROUP_COLOURS = ("#8b4513", "#87ceeb", "#d63384", "#fd7e14", "#dc3545", "#ffd700", "#198754", "#0d3bb8")
#: Text colour readable on each group colour.
GROUP_TEXT = ("white", "black", "white", "black", "white", "black", "white", "white")
#: Token colour of each seat (8 seats at most).
SEAT_COLOURS = ("#ff5555", "#50fa7b", "#8be9fd", "#f1fa8c", "#ff79c6", "#bd93f9", "#ffb86c", "#ffffff")

_STOP_WORDS = frozenset(("della", "dei", "del", "di", "de", "delle", "/"))


def cell_of(square: int) -> tuple[int, int]:
    """(column, row) of ``square`` (0..39) in the 11×11 grid (module doc). ValueError if out of
    range."""
    if not 0 <= square < 40:
        raise ValueError("square must be 0..39")
    if square <= 10:
        return 10 - square, 10
    if square <= 20:
        return 0, 20 - square
    if square <= 30:
        return square - 20, 0
    return 10, square - 30


#: Names of the special squares in tiny cells (kind index -> text), where the printed name's
#: last word would say nothing ("Transito", "prigione!").
_TINY = {0: "VIA!", 6: "Prig", 7: "Parc", 8: "→Pri"}


def short_name(name: str, width: int, kind: int = -1) -> str:
    """``name`` in at most ``width`` characters: whole if it fits; in tiny cells (≤ 5) the
    start of its last significant word ("Viale Vesuvio", 4 -> "Vesu") or a fixed text for the
    corners; else the initials of its first words and the start of the last ("Viale Vesuvio",
    7 -> "V.Vesuv")."""
    if len(name) <= width:
        return name
    words = [w for w in name.replace("!", "").split() if w.lower() not in _STOP_WORDS]
    if width <= 5:
        if kind in _TINY:
            return _TINY[kind][:width]
        if kind in (4, 5):  # tax and card squares: the first word says it
            return words[0][:width]
        return words[-1][:width] if words else name[:width]
    if len(words) <= 1:
        return name[:width]
    head = "".join(w[0] + "." for w in words[:-1])
    return (head + words[-1])[:width]


def seat_marker(seat: int) -> str:
    """The one-character token of a seat: its number from 1."""
    return str(seat + 1)


def building_mark(level: int, mortgaged: bool) -> str:
    """One character for a property's buildings: "1".."4" houses, "H" hotel, "×" mortgaged,
    " " nothing."""
    if mortgaged:
        return "×"
    if level >= 5:
        return "H"
    return str(level) if level else " "


def draw_cell(state: Any, square: int, width: int, height: int) -> list[Text]:
    """``height`` lines of ``width`` cells for one square: name on a colour bar (colour group),
    owner's number in the owner's colour, buildings/mortgage mark, and the tokens on it.

    height 1: ``▌Name·OBT`` (bar, name, owner, building, tokens compressed);
    height ≥ 2: line 1 bar+name, line 2 owner+building and tokens (more lines: padding).
    """
    ed = state.ed
    sq = ed.squares[square]
    group = sq.group
    owner = state.owner[square] if sq.price else -1
    tokens = [i for i in range(state.n) if state.pos[i] == square and not state.out[i]]
    lines: list[Text] = []
    bar_style = Style(color=GROUP_COLOURS[group]) if group >= 0 else Style(dim=True)
    bar = "█" if group >= 0 else "│"
    mark = building_mark(state.level[square], bool(state.mort[square])) if sq.price else " "
    own = seat_marker(owner) if owner >= 0 else ("·" if sq.price else " ")
    own_style = Style(color=SEAT_COLOURS[owner], bold=True) if owner >= 0 else Style(dim=True)

    def token_text(room: int) -> Text:
        t = Text()
        shown = tokens if len(tokens) <= room else tokens[: max(room - 1, 0)]
        for s in shown:
            t.append(seat_marker(s), Style(color="black", bgcolor=SEAT_COLOURS[s], bold=True))
        if len(shown) < len(tokens):
            t.append("+", Style(bold=True))
        return t

    if height <= 1:
        # Tiny cell: the name on the group's colour, then owner, building, token.
        name_w = max(width - 3, 1)
        line = Text()
        name_style = (Style(color=GROUP_TEXT[group], bgcolor=GROUP_COLOURS[group]) if group >= 0
                      else Style(dim=True) if not sq.price else Style())
        line.append(short_name(sq.name, name_w, sq.kind).ljust(name_w), name_style)
        line.append(own, own_style)
        line.append(mark, Style(color="red", bold=True) if mark == "×" else Style(color="green", bold=True))
        line.append_text(token_text(1) if tokens else Text(" "))
        line.truncate(width, pad=True)
        return [line]
    first = Text()
    first.append(bar, bar_style)
    first.append(short_name(sq.name, width - 1).ljust(width - 1),
                 Style(bold=True) if group >= 0 else Style())
    first.truncate(width, pad=True)
    second = Text()
    second.append(own, own_style)
    second.append(mark, Style(color="red", bold=True) if mark == "×" else Style(color="green", bold=True))
    second.append(" ")
    second.append_text(token_text(width - 3))
    second.truncate(width, pad=True)
    lines = [first, second]
    if height >= 3 and sq.price and owner < 0:
        lines.append(Text(f" €{sq.price:,}".replace(",", ".").ljust(width)[:width], Style(dim=True)))
    while len(lines) < height:
        lines.append(Text(" " * width))
    return lines[:height]


__all__ = ["GRID", "GROUP_COLOURS", "GROUP_TEXT", "SEAT_COLOURS", "cell_of", "short_name",
           "seat_marker", "building_mark", "draw_cell"]
