"""Whole games between bots on the engine's in-place path: for benchmarks, tests and demos.

Not the lockstep path the peers use (they call ``apply_step``/``apply_chance`` on signed inputs),
but the same rules: ``step_inplace``/``chance_inplace`` are what those functions run on a copy.

Beacons: by default a seeded SHA-256 counter, ``SHA-256(b"lanopoli-bots" || seed (8 bytes,
big-endian) || chance step number (8 bytes, big-endian))``, one per chance step, turned into
dice and cards by ``engine.rng.BeaconRng`` as on the wire. A benchmark may pass its own ``rng``
source (any object with ``below(n)`` and ``die()``) to leave SHA-256 out of the measurement.
"""
from __future__ import annotations

from dataclasses import dataclass
from hashlib import sha256
from typing import Callable, Sequence

from ..game import chance_inplace, new_game, step_inplace
from ..rng import BeaconRng
from ..state import CHANCE_PHASES, P_DICE, P_OVER
from ._choose import _choose_all
from ._profile import BOTS, scaled

__all__ = ["GameResult", "beacon", "play_game"]


@dataclass(frozen=True)
class GameResult:
    """Summary of one bot game."""
    seed: int
    """Seed of the beacons."""
    seats: int
    """Number of seats."""
    finished: bool
    """True if the game ended with a winner within the step cap."""
    winner: int
    """Winning seat, -1 if unfinished."""
    turns: int
    """Turns started (the state's ``turn`` counter)."""
    steps: int
    """Steps applied (decision + chance)."""
    dice: int
    """Dice rolls (chance steps of kind "dice")."""
    decisions: int
    """Decision steps."""


def beacon(seed: int, k: int) -> bytes:
    """The 32-byte beacon of chance step ``k`` of game ``seed`` (module docstring)."""
    return sha256(b"lanopoli-bots" + seed.to_bytes(8, "big") + k.to_bytes(8, "big")).digest()


def play_game(seats: int, seed: int, bots: Sequence[str] | None = None, *,
              edition: str = "classico", max_steps: int = 100_000,
              rng: Callable[[int], object] | None = None) -> GameResult:
    """Play one game of ``seats`` bots (``bots[i]`` names the profile of seat i, default
    "default" everywhere) until it ends or ``max_steps`` steps have been applied.

    ``rng(k)``: the dice/card source for chance step k (default ``BeaconRng(beacon(seed, k))``).
    Raises ValueError for a bad seat count, edition or ``len(bots) != seats``; KeyError for an
    unknown bot name.
    """
    names = list(bots) if bots is not None else ["default"] * seats
    if len(names) != seats:
        raise ValueError("one bot name per seat")
    s = new_game(edition, seats)
    for b in names:
        if b not in BOTS:
            raise KeyError(b)
    profs = [scaled(b, s.ed.go_salary) for b in names]
    steps, dice, chances = _run(s, names, profs, seed, max_steps, rng)
    decisions = steps - chances  # every step is a chance step or a decision step
    over = s.phase == P_OVER
    return GameResult(seed, seats, over, s.winner if over else -1, s.turn, steps, dice,
                      decisions)


def _run(s, names: list, profs: list, seed: int, max_steps: int, rng) -> tuple[int, int, int]:
    """play_game's loop: steps ``s`` in place until it is over or ``max_steps`` steps were
    applied; returns (steps, dice rolls, chance steps). A function of its own so that
    play.pxd can type ``s`` (compiled, its fields are then read directly)."""
    ev: list = []
    clear = ev.clear
    steps = dice = chances = 0
    while steps < max_steps:
        ph = s.phase
        if ph == P_OVER:
            break
        steps += 1
        if ph in CHANCE_PHASES:
            if ph == P_DICE:
                dice += 1
            src = rng(chances) if rng is not None else BeaconRng(beacon(seed, chances))
            chances += 1
            chance_inplace(s, src, ev)
        else:
            step_inplace(s, _choose_all(s, names, profs), ev)
        clear()
    return steps, dice, chances
