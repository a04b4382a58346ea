"""Where the squares go on screen, and how a square is drawn in a small cell.

Pure functions of the engine state (no Textual): the Board widget (ui/widgets/board.py) calls
them, and tests can check them without a terminal.

The board is a ring of ``n`` squares (``n`` a multiple of 4: 40 on classico, 36 on
niente-e-come-sembra) around a square grid of ``n // 4 + 1`` cells per side, VIA! in the
bottom-right corner as on the printed board. With ``side = n // 4``: squares 0..side run
right-to-left along the bottom row, side..2·side bottom-to-top up the left column,
2·side..3·side left-to-right along the top, 3·side..n-1 top-to-bottom down the right column, so
the four corners are 0 (VIA!), side (Prigione), 2·side (Parcheggio) and 3·side (In prigione!).
The inner ``side - 1`` × ``side - 1`` cells are the centre (dice, turn, log).
"""

from __future__ import annotations

import functools
from typing import Any

from rich.style import Style
from rich.text import Text

from engine.editions import K_CARD, K_FREE, K_GO, K_GOTOJAIL, K_JAIL, K_TAX
from ui.i18n import current_language, format_money, term

#: Cells per side of the board grid of the 40-square editions (see grid_size for any board).
GRID = 11

#: Colour of each colour group (classico order: marrone, azzurro, rosa, arancione, rosso,
#: giallo, verde, blu).
GROUP_COLOURS = ("#8b4513", "#87ceeb", "#d63384", "#fd7e14", "#dc3545", "#ffd700", "#198754", "#0d3bb8")
#: Text colour readable on each group colour.
GROUP_TEXT = ("white", "black", "white", "black", "white", "black", "white", "white")
#: Token colour of each seat (8 seats at most).
SEAT_COLOURS = ("#ff5555", "#50fa7b", "#8be9fd", "#f1fa8c", "#ff79c6", "#bd93f9", "#ffb86c", "#ffffff")

#: Small words that say nothing in an abbreviation: Italian articles and prepositions of the
#: editions' square names ("Da Pesci", "Tassa sugli affitti", "El Marchigiano").
_STOP_WORDS = frozenset(("della", "dei", "del", "di", "de", "delle", "degli", "da", "sugli", "e", "il", "la",
                         "el", "/"))
#: Fewest letters of the last word kept when initials go before it ("B.Sass", not "B.G.Sa").
_LAST_WORD_MIN = 4


def grid_size(n: int = 40) -> int:
    """Cells per side of the grid holding a ring of ``n`` squares: ``n // 4 + 1`` (11 for 40
    squares, 10 for 36). ValueError unless ``n`` is a positive multiple of 4 (a board with
    four equal sides)."""
    if n <= 0 or n % 4:
        raise ValueError(f"a board needs a positive multiple of 4 squares, not {n}")
    return n // 4 + 1


def cell_size(width: int, height: int, n: int = 40) -> tuple[int, int] | None:
    """(columns, rows) of one square's cell on a board widget of ``width`` x ``height``
    character cells showing a ring of ``n`` squares: columns ``width // grid`` (at least 5),
    rows 1..3, or 4 when the cells are 9 columns wide or more (10x4 character cells look about
    square; a 160x50 screen left a third of the board's height blank with 3); None when
    ``width`` is under 5 columns a cell (the widget then asks for a wider window)."""
    grid = grid_size(n)
    if width < grid * 5:
        return None
    columns = max(5, width // grid)
    return columns, max(1, min(4 if columns >= 9 else 3, height // grid))


#: The wide layout (from ``WIDE_FROM`` columns, ui/app.py's breakpoint): the board takes at most
#: 3/4 of the width and ``BOARD_MAX_WIDTH`` columns, the players panel at least
#: ``PLAYERS_MIN_WIDTH`` (its border and padding included).
WIDE_FROM = 120
BOARD_MAX_WIDTH = 121
PLAYERS_MIN_WIDTH = 34


def wide_board_width(screen_width: int, n: int = 40) -> int:
    """Columns of the board widget in the wide layout on a screen ``screen_width`` columns wide,
    for a ring of ``n`` squares: the room it may take (``min(BOARD_MAX_WIDTH, 3/4 of the screen,
    the screen less PLAYERS_MIN_WIDTH)``) rounded down to whole cells, so that no blank strip
    is left right of the board's last column; the players panel gets the rest (session 10's
    newcomer walk: at 160x50 the board's right column looked 20 columns wide). Never less than
    one 5-column cell per grid column."""
    grid = grid_size(n)
    room = min(BOARD_MAX_WIDTH, screen_width * 3 // 4, screen_width - PLAYERS_MIN_WIDTH)
    return max(room // grid, 5) * grid


def label_width(columns: int, rows: int) -> int:
    """Characters a square's name gets in a cell of ``columns`` x ``rows`` (draw_cell): one
    row leaves room for the owner, building and token marks after it (3), taller cells only
    for the colour bar before it (1)."""
    return max(columns - 3, 1) if rows <= 1 else columns - 1


def cell_of(square: int, n: int = 40) -> tuple[int, int]:
    """(column, row) of ``square`` (0..n-1) in the grid of a ring of ``n`` squares (module
    doc; ``grid_size(n)`` cells per side). ValueError if ``square`` is out of range or ``n`` is
    not a positive multiple of 4."""
    side = grid_size(n) - 1
    if not 0 <= square < n:
        raise ValueError(f"square must be 0..{n - 1}")
    if square <= side:
        return side - square, side
    if square <= 2 * side:
        return 0, 2 * side - square
    if square <= 3 * side:
        return square - 2 * side, 0
    return side, square - 3 * side


def corner_squares(n: int = 40) -> tuple[int, int, int, int]:
    """The squares in the corners of a ring of ``n``: (VIA!, Prigione, Parcheggio,
    In prigione!), i.e. (0, side, 2·side, 3·side) with ``side = n // 4``."""
    side = grid_size(n) - 1
    return 0, side, 2 * side, 3 * side


#: Names of the special squares in tiny cells (square kind -> text), where the printed name's
#: last word would say nothing ("Transito", "prigione!"); per language (ui.i18n.term: the
#: English board's GO, Jail, Free Parking, Go to Jail).
_TINY = {"it": {K_GO: "VIA!", K_JAIL: "Prig", K_FREE: "Parc", K_GOTOJAIL: "→Pri"},
         "en": {K_GO: "GO", K_JAIL: "Jail", K_FREE: "Park", K_GOTOJAIL: "→Jai"}}


def _words(name: str) -> list[str]:
    """The significant words of a square's name: no small words, brackets or "!" (at least one
    word: the name itself)."""
    words = [w.strip("()") for w in name.replace("!", "").split() if w.lower() not in _STOP_WORDS]
    return [w for w in words if w] or [name]


def short_name(name: str, width: int, kind: int = -1) -> str:
    """``name`` in at most ``width`` characters: whole if it fits; in tiny cells (≤ 5) the
    start of its last significant word ("Viale Vesuvio", 4 -> "Vesu") or a fixed text for the
    corners; else the initials of its first words and the start of the last ("Viale Vesuvio",
    7 -> "V.Vesuv"), dropping middle initials so that the last word keeps ``_LAST_WORD_MIN``
    letters ("Bastioni Gran Sasso", 6 -> "B.Sass").

    Names no rule above keeps recognisable (issue 11, every edition at 80x24..160x50): a last
    word without letters keeps the first word's start ("Borgo 2000", 4 -> "Bo2k", 7 ->
    "B.2000", not "2000"; thousands as "k" so that the owner's number drawn after the label
    does not read as one more digit); small words never stand for
    the name ("Da Pesci", 4 -> "Pesc"); brackets are dropped ("Riva (VIA!)"); the jail corner
    is named by the part before "/" ("Commissariato / Transito", 7 -> "Commiss"), the parking
    corner by its first word ("Parcheggio gratuito", 9 -> "Parcheggi"), the go-to-jail corner
    by an arrow and its last word ("In prigione!", 9 -> "→Prigione", 4 -> "→Pri").

    The word kept after the initials starts with a capital, as the printed board writes it
    ("Tassa di lusso", 6 -> "T.Luss", not "T.luss": rulebooks/monopoly-classico-hasbro.txt
    prints "TASSA DI LUSSO", "Tassa di Lusso"). The English names (ui.i18n.term) follow the same
    rules: a deck of two words by its last ("Community Chest" -> "Chest"), the parking corner by
    its longest word ("Free Parking" -> "Parking"), tiny corners by ``_TINY``."""
    if len(name) <= width:
        return name
    if kind == K_JAIL and width > 5 and "/" in name:
        return short_name(name.split("/")[0].strip(), width)
    words = _words(name)
    if kind == K_FREE and width > 5:  # "Parcheggi", not "P.gratuit": the place, its longest word
        return max(words, key=len)[:width]
    if kind == K_CARD and len(words) > 1:  # "Community Chest" -> "Chest", as players call it
        return words[-1][:width]
    if kind == K_GOTOJAIL and width > 5:  # "→Prigione", as "→Pri" in tiny cells, not "I.prigion"
        return ("→" + words[-1][:1].upper() + words[-1][1:])[:width]
    if not any(c.isalpha() for c in words[-1]) and len(words) > 1:
        if width > 5:
            words = [words[0][0] + ".", words[-1]]
        else:  # "Bo2k": ends in a letter, so the owner's number after it does not read as a digit of it
            num = words[-1][:-3] + "k" if words[-1].endswith("000") else words[-1]
            words = [words[0][:max(width - len(num), 1)] + num]
    if width <= 5:
        tiny = _TINY.get(current_language(), _TINY["en"])
        if kind in tiny:
            return tiny[kind][:width]
        if kind in (K_TAX, K_CARD):  # tax and card squares: the first word says it
            return words[0][:width]
        return words[-1][:width]
    if len(words) <= 1:
        return words[0][:width]
    initials = [w[0] + "." if not w.endswith(".") else w for w in words[:-1]]
    last = words[-1][:1].upper() + words[-1][1:]
    while len(initials) > 1 and len("".join(initials)) + min(len(last), _LAST_WORD_MIN) > width:
        del initials[1]  # the first initial says the kind of place (Via, Piazza); the middle ones least
    return ("".join(initials) + last)[:width]


def _alternatives(name: str, width: int, kind: int) -> list[str]:
    """Other labels for ``name`` in ``width`` characters, most readable first, for when
    :func:`short_name` gives two squares the same one: the start of the last word ("Tassa di
    lusso" -> "Luss"), of the first ("Melano Marischio" -> "Mela"), then ever more of the first
    word before the last ("M.Mar", "Me.Ma" ...). None ends in a digit unless the name does."""
    words = [w[:1].upper() + w[1:] for w in _words(name)]  # "Tassa di lusso" -> "Luss", not "luss"
    first, last = words[0], words[-1]
    out = [short_name(name, width, kind), last[:width], first[:width]]
    dot = "." if width > 5 else ""
    for k in range(1, min(len(first), width - 1) + 1):
        room = width - k - len(dot)
        if room >= 1 and len(words) > 1:
            out.append(first[:k] + dot + last[:room])
    return out


@functools.lru_cache(maxsize=64)
def _unique_labels(names: tuple[str, ...], kinds: tuple[int, ...], width: int, lang: str) -> tuple[str, ...]:
    # ``lang``: part of the cache key only (the tiny corner labels depend on it).
    labels = [short_name(n, width, k) for n, k in zip(names, kinds)]
    by_label: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        by_label.setdefault(label, []).append(i)
    for label, squares in sorted(by_label.items()):
        distinct = sorted({names[i] for i in squares})
        if len(distinct) < 2:
            continue  # the same name on several squares (Probabilità) is the same square kind
        kind_of = {names[i]: kinds[i] for i in squares}
        taken = {lab for lab in labels if lab != label}
        options = [_alternatives(n, width, kind_of[n]) for n in distinct]
        chosen = None
        for choice in zip(*options):  # one scheme for the whole group, so the labels read alike
            if len(set(choice)) == len(choice) and not taken & set(choice):
                chosen = dict(zip(distinct, choice))
                break
        if chosen is None:  # no scheme tells them apart: a free letter in the last place (a, b, c...)
            chosen = {}
            free = (label[:max(width - 1, 1)] + c for c in "abcdefghijklmnopqrstuvwxyz")
            for n in distinct:
                chosen[n] = next(lab for lab in free if lab not in taken)
        for i in squares:
            labels[i] = chosen[names[i]]
    return tuple(labels)


def cell_labels(squares: Any, width: int) -> tuple[str, ...]:
    """The label of every square of a board (``squares``: the edition's Square list) in cells
    of ``width`` characters: :func:`short_name`, except where two different names would read
    the same ("Tassa patrimoniale" and "Tassa di lusso" are both "Tass" in 4 characters, issue
    11): then the first scheme of :func:`_alternatives` that tells all of them apart from each
    other and from every other label ("Patr", "Luss"). Squares with the same name (the three
    Probabilità) keep one label. Names in the current language (ui.i18n.term: "GO", "Chance" in
    English). Cached per (names, width, language)."""
    return _unique_labels(tuple(term(sq.name) for sq in squares), tuple(sq.kind for sq in squares), width,
                          current_language())


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
    height ≥ 2: line 1 bar+name, line 2 owner+building and tokens, line 3 the price of an unowned
    property or the amount of a tax (more lines: padding).
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
        name_w = label_width(width, height)
        line = Text()
        name_style = (Style(color=GROUP_TEXT[group], bgcolor=GROUP_COLOURS[group]) if group >= 0
                      else Style(dim=True) if not sq.price else Style())
        line.append(cell_labels(ed.squares, name_w)[square].ljust(name_w), name_style)
        line.append(own, own_style)
        line.append(mark, Style(color="red", bold=True) if mark == "×" else Style(color="green", bold=True))
        line.append_text(token_text(1) if tokens else Text(" "))
        line.truncate(width, pad=True)
        return [line]
    first = Text()
    first.append(bar, bar_style)
    first.append(cell_labels(ed.squares, label_width(width, height))[square].ljust(width - 1),
                 Style(bold=True) if group >= 0 else Style())
    first.truncate(width, pad=True)
    second = Text()
    second.append(own, own_style)
    second.append(mark, Style(color="red", bold=True) if mark == "×" else Style(color="green", bold=True))
    second.append(" ")
    second.append_text(token_text(width - 3))
    second.truncate(width, pad=True)
    lines = [first, second]
    if height >= 3 and (sq.price and owner < 0 or sq.kind == K_TAX and sq.amount):
        # The price of a property nobody owns; what a tax square takes ("Pagate €200").
        lines.append(Text(f" {format_money(sq.price or sq.amount)}".ljust(width)[:width], Style(dim=True)))
    while len(lines) < height:
        lines.append(Text(" " * width))
    return lines[:height]


__all__ = ["GRID", "WIDE_FROM", "BOARD_MAX_WIDTH", "PLAYERS_MIN_WIDTH", "wide_board_width",
           "GROUP_COLOURS", "GROUP_TEXT", "SEAT_COLOURS", "grid_size", "cell_size", "label_width", "cell_of",
           "corner_squares", "short_name", "cell_labels", "seat_marker", "building_mark", "draw_cell"]
