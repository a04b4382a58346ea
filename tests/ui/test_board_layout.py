"""The board ring follows the edition's board: every square once around the edge, the four
corner squares in the corners (VIA! bottom right, Prigione bottom left, Parcheggio top left,
In prigione! top right, as on the printed boards). classico has 40 squares, 10 a side;
niente-e-come-sembra has 36, 9 a side (rulebooks/monopoly-niente-e-come-sembra.txt: "Non ci
sono né società né tasse da pagare"; engine/editions/niente.py)."""

from __future__ import annotations

import pytest

import engine
from engine.editions import K_FREE, K_GO, K_GOTOJAIL, K_JAIL
from ui.board_layout import cell_of, corner_squares, grid_size


@pytest.mark.parametrize("name", sorted(engine.EDITIONS))
def test_every_square_appears_once_on_the_ring_with_the_corners_in_the_corners(name):
    ed = engine.EDITIONS[name]
    n = len(ed.squares)
    last = grid_size(n) - 1
    cells = [cell_of(sq, n) for sq in range(n)]
    assert len(set(cells)) == n  # no two squares share a cell
    # The ring is exactly the edge of the grid: every edge cell holds one square.
    edge = {(c, r) for c in range(last + 1) for r in range(last + 1) if c in (0, last) or r in (0, last)}
    assert set(cells) == edge
    corners = [(last, last), (0, last), (0, 0), (last, 0)]
    assert [cell_of(sq, n) for sq in corner_squares(n)] == corners
    assert [ed.squares[sq].kind for sq in corner_squares(n)] == [K_GO, K_JAIL, K_FREE, K_GOTOJAIL]
    assert corner_squares(n)[1] == ed.jail_square  # jail at 10, or 9 on the 36-square board
    with pytest.raises(ValueError):
        cell_of(n, n)


def test_sizes_of_the_two_boards():
    assert grid_size(40) == 11 and corner_squares(40) == (0, 10, 20, 30)
    assert grid_size(36) == 10 and corner_squares(36) == (0, 9, 18, 27)
    with pytest.raises(ValueError):
        grid_size(38)


# --- labels: one per name (issue 11, session 3 leftover) -------------------------------------

from ui.board_layout import cell_labels, cell_size, label_width, short_name, wide_board_width  # noqa: E402


@pytest.mark.parametrize("edition", sorted(engine.EDITIONS))
@pytest.mark.parametrize("width", range(2, 17))
def test_two_different_squares_never_share_a_label(edition, width, each_language):
    """Every label width a cell can give (2..16; the layouts use 4..10), in both languages (the
    English board's words, ui.i18n.term): two squares with different names get different
    labels, squares with the same name (the three Probabilità) the same one; every label fits,
    and one-row cells (width <= 5 at 80 columns) never end in a digit, which would run into the
    owner's number drawn after it."""
    squares = engine.EDITIONS[edition].squares
    labels = cell_labels(squares, width)
    by_label: dict[str, set[str]] = {}
    for sq, label in zip(squares, labels):
        by_label.setdefault(label, set()).add(sq.name)
        assert 0 < len(label) <= width, (sq.name, label)
        if 4 <= width <= 5:
            assert not label[-1].isdigit(), (sq.name, label)
    assert {k: v for k, v in by_label.items() if len(v) > 1} == {}


@pytest.mark.parametrize("edition,width,names,before,after", [
    ("classico", 4, ("Tassa patrimoniale", "Tassa di lusso"), "Tass", ("Patr", "Luss")),
    ("classico", 5, ("Tassa patrimoniale", "Tassa di lusso"), "Tassa", ("Patri", "Lusso")),
    ("fabrianopoli", 4, ("Melano Marischio", "Mastro Marino"), "Mari", ("Mela", "Mast")),
    ("fabrianopoli", 6, ("Melano Marischio", "Mastro Marino"), "M.Mari", ("Marisc", "Marino")),
])
def test_the_colliding_labels_of_session_3_now_differ(edition, width, names, before, after, italian):
    """The defect as found: both taxes read "Tass" at 80x24, two Fabriano streets "Mari"
    (80x24) and "M.Mari" (120x40). short_name alone still gives the shared label; the board's
    labels tell them apart, and the other squares keep short_name's label."""
    squares = engine.EDITIONS[edition].squares
    labels = dict(zip((sq.name for sq in squares), cell_labels(squares, width)))
    old = {sq.name: short_name(sq.name, width, sq.kind) for sq in squares}
    assert [old[n] for n in names] == [before, before]
    assert tuple(labels[n] for n in names) == after
    assert {n: lab for n, lab in labels.items() if n not in names} == {n: lab for n, lab in old.items()
                                                                        if n not in names}


def test_cell_size_and_label_width_at_the_three_layouts():
    """The widths the board widget gets at 80x24 (11 rows, full width), 120x40 and 160x50
    (tests/ui/test_layout.py), and the label widths that follow."""
    assert cell_size(80, 11) == (7, 1) and label_width(7, 1) == 4
    assert cell_size(80, 11, 36) == (8, 1) and label_width(8, 1) == 5
    assert cell_size(121, 44) == (11, 4) and label_width(11, 4) == 10
    assert cell_size(77, 38) == (7, 3) and cell_size(110, 44) == (10, 4)  # 120x40, 160x50
    assert cell_size(88, 44) == (8, 3)  # 4 rows only for cells of 9 columns or more


@pytest.mark.parametrize("screen,n,board", [(120, 40, 77), (135, 40, 99), (160, 40, 110), (220, 40, 121),
                                            (160, 36, 120), (120, 36, 80)])
def test_the_wide_board_is_whole_cells_wide(screen, n, board):
    """Session 10's newcomer walk at 160x50: the board widget was 120 columns for 11 cells of 10,
    and its right column read 20 wide. Now it is exactly its cells, within 3/4 of the screen and
    121 columns, leaving the players panel at least 34."""
    assert wide_board_width(screen, n) == board
    assert board % grid_size(n) == 0 and screen - board >= 34 and board <= min(121, screen * 3 // 4)
    assert cell_size(54, 11) is None  # under 5 columns a cell: "needs a wider window"


@pytest.mark.parametrize("name,width,kind,expected", [
    ("In prigione!", 9, 8, "→Prigione"),  # was "I.prigion" at 160x50, "I.prig" at 120x40
    ("In prigione!", 6, 8, "→Prigi"),
    ("In prigione!", 4, 8, "→Pri"),  # tiny cells, as before
    ("La Vigliessa", 9, 8, "→Vigliess"),
    ("Parcheggio gratuito", 9, 7, "Parcheggi"),  # was "P.gratuit"
    ("Parcheggio gratuito", 6, 7, "Parche"),  # was "P.grat"
    ("Porcheggio dei Monticelli", 9, 7, "Porcheggi"),
])
def test_the_corners_read_as_their_place(name, width, kind, expected, italian):
    """Seen at 120x40 and 160x50 (issue 11 newcomer walk): "I.prigion" and "P.gratuit" are
    initials a newcomer cannot read back; the corners read as they do in tiny cells."""
    assert short_name(name, width, kind) == expected


@pytest.mark.parametrize("name,width,kind,expected", [
    ("Go to Jail", 9, 8, "→Jail"), ("Go to Jail", 4, 8, "→Jai"),
    ("Free Parking", 9, 7, "Parking"), ("Free Parking", 4, 7, "Park"),
    ("Jail / Just Visiting", 6, 6, "Jail"), ("Jail / Just Visiting", 4, 6, "Jail"),
    ("GO", 4, 0, "GO"), ("Riva (GO)", 4, 0, "GO"),
    ("Community Chest", 6, 5, "Chest"), ("Chance", 4, 5, "Chan"),
    ("Luxury Tax", 6, 4, "L.Tax"), ("Income Tax", 10, 4, "Income Tax"),
])
def test_the_english_board_words_abbreviate_as_the_italian_ones(name, width, kind, expected, english):
    """--lang en (H108, session 10's walk: "VIA!" and "Imprev" on the English board): the
    English board's names (ui.i18n.term) in the same cells."""
    assert short_name(name, width, kind) == expected


@pytest.mark.parametrize("width,labels", [(6, ("T.Patr", "T.Luss")), (9, ("T.Patrimo", "T.Lusso")),
                                          (4, ("Patr", "Luss"))])
def test_the_taxes_read_with_capitals_as_printed(width, labels, italian):
    """Session 10's walk: "T.luss" / "T.patr" at 120x40 looked like lower-case words; the
    rulebook prints "TASSA PATRIMONIALE", "Tassa di Lusso" (rulebooks/monopoly-classico-hasbro.txt):
    the word after the initials starts with a capital, as every other label ("V.Vesuv")."""
    squares = engine.EDITIONS["classico"].squares
    assert (cell_labels(squares, width)[4], cell_labels(squares, width)[38]) == labels
