"""What the one bit of a bad-escrow withholder is worth (issue 10, protocol.md §C8.5 "What a
withholder can still choose"). Engine only, in process: figures, nothing asserted.

A seat that dealt a bad escrow can, at one chance step, once it holds every other reveal,
choose between the outcome of its real reveal (A) and the outcome of its public stand-in (B);
choosing B costs it its seat (a bot plays it from then on). Both beacons are uniformly random
to everyone else, so here A is the bots' beacon of the step and B an independent one.

Seeded bot games (classico, all seats ``engine.bots`` "default"); the chooser is seat
``seed mod seats``. Figures:

* per chance step: how often B is better than A for the chooser's own net worth once the
  step is settled (``engine.standings`` after the bots' decision steps up to the next chance
  step: rent paid, purchases, auctions), and the mean gain E[max(0, nw(B) - nw(A))] in euro;
  the same for hurting the richest other seat (E[max(0, its nw(A) - nw(B))]);
* one-shot: the chooser uses its bit at the first chance step where B beats A by at least
  ``--threshold`` euro for itself (then its seat plays on as the bot, as after the drop), and
  we compare its win rate with the same seeds played honestly (B never taken).

    /work/venv/bin/python bench/escrow_bit.py                      # 4 seats, 60 seeds
    /work/venv/bin/python bench/escrow_bit.py --seeds 100 --seats 3 4 --threshold 300
"""
from __future__ import annotations

import argparse
import hashlib
import math
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.environ.get("LANOPOLI_ROOT") or str(Path(__file__).resolve().parent.parent))

from engine import apply_chance, new_game, standings, step_inplace  # noqa: E402
from engine.bots import choose_all  # noqa: E402
from engine.bots.play import beacon  # noqa: E402
from engine.state import CHANCE_PHASES, P_OVER  # noqa: E402

MAX_STEPS = 60_000


def _settled_worth(state, names: list) -> dict[int, int]:
    """Net worth of every seat once the decision steps that follow a chance step are played by
    the bots (rent paid, purchases and auctions done), up to the next chance step."""
    s = state.copy()
    for _ in range(500):
        if s.phase == P_OVER or s.phase in CHANCE_PHASES:
            break
        step_inplace(s, choose_all(s, names), [])
    return dict(standings(s))


def play(seats: int, seed: int, threshold: int | None, stats: dict | None) -> int | None:
    """One game; the winner's seat (None if unfinished). ``threshold``: the chooser takes B at
    the first chance step where B beats A by that many euro for itself (None: never).
    ``stats``: per-step figures are added to it (A is always what happens there)."""
    s = new_game("classico", seats)
    names = ["default"] * seats
    me = seed % seats
    used = threshold is None
    chances = steps = 0
    while s.phase != P_OVER and steps < MAX_STEPS:
        steps += 1
        if s.phase in CHANCE_PHASES:
            real = beacon(seed, chances)
            alt = hashlib.sha256(b"stand-in" + real).digest()
            a, _ = apply_chance(s, real)
            b, _ = apply_chance(s, alt)
            wa, wb = _settled_worth(a, names), _settled_worth(b, names)
            gain = wb[me] - wa[me]
            if stats is not None:
                rich = max((i for i in range(seats) if i != me), key=lambda i: wa[i])
                stats["steps"] += 1
                stats["better"] += gain > 0
                stats["gain"] += max(0, gain)
                stats["harm"] += max(0, wa[rich] - wb[rich])
            if not used and gain >= threshold:
                used = True
                s = b
                if stats is not None:
                    stats["used"] += 1
                    stats["used_gain"] += gain
            else:
                s = a
            chances += 1
        else:
            step_inplace(s, choose_all(s, names), [])
    return s.winner if s.phase == P_OVER else None


def run(seats: int, seeds: int, threshold: int) -> None:
    t0 = time.perf_counter()
    stats = {"steps": 0, "better": 0, "gain": 0, "harm": 0, "used": 0, "used_gain": 0}
    honest = chooser = finished = 0
    for seed in range(seeds):
        w0 = play(seats, seed, None, stats)
        w1 = play(seats, seed, threshold, stats)
        me = seed % seats
        if w0 is not None and w1 is not None:
            finished += 1
            honest += w0 == me
            chooser += w1 == me
    n = max(1, stats["steps"])
    print(f"{seats} seats, {seeds} seeds, threshold EUR {threshold} ({time.perf_counter() - t0:.0f} s)")
    print(f"  per chance step ({n} steps): B better for the chooser {100 * stats['better'] / n:.1f}%, "
          f"mean own gain EUR {stats['gain'] / n:.1f}, mean harm to the richest rival EUR {stats['harm'] / n:.1f}")
    used = max(1, stats["used"])
    print(f"  one-shot: bit used in {stats['used']} of {seeds} games, mean immediate gain EUR "
          f"{stats['used_gain'] / used:.0f}")
    if finished:
        se = math.sqrt(0.25 / finished)
        print(f"  chooser's win rate over {finished} finished pairs: honest {honest / finished:.3f}, "
              f"with the bit {chooser / finished:.3f} (fair share {1 / seats:.3f}, +-{se:.3f} one s.e.)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=60)
    p.add_argument("--seats", type=int, nargs="+", default=[4])
    p.add_argument("--threshold", type=int, default=200, help="euro the bit must gain to be used")
    args = p.parse_args()
    for n in args.seats:
        run(n, args.seeds, args.threshold)


if __name__ == "__main__":
    main()
