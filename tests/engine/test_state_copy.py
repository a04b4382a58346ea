"""State.copy: every slot copied, lists independent of the original (the functional API
relies on it: apply_step/apply_chance never modify their argument)."""
import pytest

from engine import new_game
from engine.bots import play_game  # noqa: F401  (engine.bots must import)
from engine.game import chance_inplace, step_inplace
from engine.bots import choose_all
from engine.bots.play import beacon
from engine.rng import BeaconRng
from engine.state import CHANCE_PHASES, P_OVER, State


def _mid_game(edition: str, seats: int, steps: int) -> State:
    s = new_game(edition, seats)
    ev: list = []
    k = 0
    for _ in range(steps):
        if s.phase == P_OVER:
            break
        if s.phase in CHANCE_PHASES:
            chance_inplace(s, BeaconRng(beacon(3, k)), ev)
            k += 1
        else:
            step_inplace(s, choose_all(s, ["default"] * seats), ev)
    return s


def _lists_in(v, path="") -> list:
    out = []
    if isinstance(v, list):
        out.append((path, v))
        for i, x in enumerate(v):
            out += _lists_in(x, f"{path}[{i}]")
    return out


@pytest.mark.parametrize("edition", ["classico", "niente-e-come-sembra"])
@pytest.mark.parametrize("steps", [0, 40, 400])
def test_copy_covers_every_slot(edition, steps):
    s = _mid_game(edition, 4, steps)
    c = s.copy()
    assert type(c) is State and c == s
    for f in State.__slots__:
        a, b = getattr(s, f), getattr(c, f)
        assert a == b, f
        # Every list is a new object down to the depth the engine mutates in place.
        for (pa, la), (pb, lb) in zip(_lists_in(a), _lists_in(b)):
            if pa.count("[") <= 1 or f in ("offers", "nx"):
                assert la is not lb, (f, pa)
