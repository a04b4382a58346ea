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
