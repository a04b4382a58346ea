"""Regression fingerprint of the engine and the bots: one digest over many whole bot games.

The engine and the bots are part of the consensus (protocol.md part E, protocol.md part B): an
optimisation must not change a single state, event or bot decision. This script plays seeded
bot games on the in-place path with the peers' SHA-256 beacons (``engine.bots.play.beacon`` and
``engine.rng.BeaconRng``, exactly as ``engine.bots.play_game``) and records, per game:
``(edition, seats, seed, turns, steps, winner, state_hash(final state) hex, trace)`` where
``trace`` is the SHA-256 of every decision step's inputs (``encode_action``, None as ``None``)
and every event (``encode_event``), in order. It prints the SHA-256 of all those lines in a
fixed order: two engines print the same digest only if they play the same games.

    /work/venv/bin/python bench/regression_fingerprint.py                  # digest only
    /work/venv/bin/python bench/regression_fingerprint.py --out /tmp/fp.txt  # keep the lines
    /work/venv/bin/python bench/regression_fingerprint.py --compare /tmp/fp.txt

Default set: every edition of ``engine.EDITIONS``, seats 2..6, seeds 0..199, all seats
"default"; plus seeds 0..39 with the profiles cycled "cautious", "aggressive", "default".
Every decision step also checks that ``engine.bots.choose_all`` (when it exists) gives the
same inputs as ``choose`` seat by seat, and every game is played again with
``engine.bots.play_game`` whose turns, steps and winner must agree (AssertionError otherwise).
``--jobs`` runs the games in that many processes (the digest does not depend on it).
``LANOPOLI_ROOT=dir`` imports ``engine`` from another tree (e.g. an old copy, to compare).
The current reference digest is written in protocol.md part B ("Regression fingerprint").
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from hashlib import sha256
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, os.environ.get("LANOPOLI_ROOT") or str(Path(__file__).resolve().parent.parent))
# bench/ itself, for _inplace: run with runpy.run_path (tests/test_compiled_engine.py) the script's
# folder is not on sys.path as it is for `python bench/regression_fingerprint.py`.
sys.path.insert(1, str(Path(__file__).resolve().parent))

from engine import EDITIONS, encode_action, encode_event, new_game, state_hash  # noqa: E402
import engine.bots  # noqa: E402
from engine.bots import choose, play_game  # noqa: E402
from engine.state import P_OVER  # noqa: E402
from _inplace import play_inplace  # noqa: E402 - bench/, the script's own folder

MAX_STEPS = 100_000
MIXED = ("cautious", "aggressive", "default")


def play(edition: str, seats: int, seed: int, names: tuple[str, ...]) -> str:
    """One game; returns its fingerprint line (module docstring)."""
    s = new_game(edition, seats)
    h = sha256()
    steps = 0
    rs = range(seats)
    choose_all = getattr(engine.bots, "choose_all", None)

    def decide(s) -> list:
        inputs = [choose(s, i, names[i]) for i in rs]
        if choose_all is not None and choose_all(s, names) != inputs:
            raise AssertionError(f"choose_all differs: {edition} {seats} {seed} {steps + 1}")
        h.update(repr([None if a is None else encode_action(a) for a in inputs]).encode())
        return inputs

    for _, ev in play_inplace(s, seed, decide, MAX_STEPS):
        steps += 1
        h.update(repr([encode_event(e) for e in ev]).encode())
    winner = s.winner if s.phase == P_OVER else -1
    r = play_game(seats, seed, names, edition=edition, max_steps=MAX_STEPS)
    if (r.turns, r.steps, r.winner) != (s.turn, steps, winner):
        raise AssertionError(f"play_game differs: {edition} {seats} {seed}")
    return (f"{edition} {seats} {seed} {','.join(names)} turns={s.turn} steps={steps} "
            f"winner={winner} hash={state_hash(s).hex()} trace={h.hexdigest()}")


def _play(args) -> str:
    return play(*args)


def games(seeds: int, mixed_seeds: int, seat_counts: list[int], editions: list[str]):
    """The (edition, seats, seed, names) of the fingerprint, in digest order."""
    out = []
    for ed in editions:
        for n in seat_counts:
            for seed in range(seeds):
                out.append((ed, n, seed, ("default",) * n))
            for seed in range(mixed_seeds):
                out.append((ed, n, seed, tuple(MIXED[i % 3] for i in range(n))))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=200, help="seeds 0..N-1 with default bots")
    ap.add_argument("--mixed-seeds", type=int, default=40, help="seeds with mixed profiles")
    ap.add_argument("--seats", default="2,3,4,5,6")
    ap.add_argument("--editions", default=",".join(EDITIONS))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", help="write the per-game lines to this file")
    ap.add_argument("--compare", help="compare the per-game lines with this file")
    args = ap.parse_args(argv)
    todo = games(args.seeds, args.mixed_seeds, [int(x) for x in args.seats.split(",")],
                 args.editions.split(","))
    t0 = time.process_time()
    w0 = time.perf_counter()
    if args.jobs > 1:
        with Pool(args.jobs) as pool:
            lines = pool.map(_play, todo, chunksize=8)
    else:
        lines = [_play(g) for g in todo]
    digest = sha256("\n".join(lines).encode()).hexdigest()
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} games, {time.perf_counter() - w0:.1f} s wall "
          f"({time.process_time() - t0:.1f} s CPU in this process)")
    print(f"digest {digest}")
    if args.compare:
        ref = Path(args.compare).read_text().splitlines()
        diff = [(a, b) for a, b in zip(ref, lines) if a != b]
        if len(ref) != len(lines):
            print(f"DIFFERENT: {len(ref)} reference games, {len(lines)} now")
        for a, b in diff[:10]:
            print(f"- {a}\n+ {b}")
        if diff or len(ref) != len(lines):
            print(f"DIFFERENT: {len(diff)} games differ")
            return 1
        print("identical to", args.compare)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
