"""The bot-game loop the engine benchmarks share: a state played in place, with the peers' dice.

``play_inplace`` drives a state through ``engine.step_inplace`` / ``engine.chance_inplace``
exactly as ``engine.bots.play_game`` does (chance step k throws ``BeaconRng(beacon(seed, k))``,
the SHA-256 beacon of protocol.md part E), and hands each step's events to the caller, so a
benchmark keeps only what it measures (bench_bots: the bots' decisions; bench_auction: the
auction rounds; regression_fingerprint: the digest of inputs and events).

It imports only names that old trees have too (``LANOPOLI_ROOT`` runs a benchmark against an
older engine): the caller puts the engine's tree on ``sys.path`` before importing this module.
Not timed code: bench_engine keeps its own loop (no generator in the figure it times).
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

from engine import chance_inplace, step_inplace
from engine.bots.play import beacon
from engine.rng import BeaconRng
from engine.state import CHANCE_PHASES, P_OVER


def play_inplace(s: Any, seed: int, decide: Callable[[Any], list], max_steps: int,
                 first_chance: int = 0) -> Iterator[tuple[int, list]]:
    """Play ``s`` in place until it is over or ``max_steps`` steps are played.

    A chance step throws ``BeaconRng(beacon(seed, k))`` for k = ``first_chance``,
    ``first_chance + 1``... (a fork of a game goes on with the game's numbering); a decision
    step applies ``decide(s)``, one input per seat (called once per decision step, in order).
    Yields ``(k, events)`` after every step: the number of the next chance step and the
    step's events, a list the next step clears (read it before resuming). The caller reads
    the outcome from ``s`` (``s.phase == P_OVER``, ``s.winner``)."""
    ev: list = []
    k = first_chance
    steps = 0
    while s.phase != P_OVER and steps < max_steps:
        steps += 1
        if s.phase in CHANCE_PHASES:
            chance_inplace(s, BeaconRng(beacon(seed, k)), ev)
            k += 1
        else:
            step_inplace(s, decide(s), ev)
        yield k, ev
        ev.clear()
