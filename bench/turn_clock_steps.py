"""The measurement behind ``p2p.session_turn_clock.OWN_STEPS_PER_TURN`` (protocol.md §C8.3 'Own
decision across steps'): the engine's default bots play whole games (every seat answers every
decision step with ``engine.bots.choose``, as a bot peer does; chance steps get a beacon derived
from the game and step), and for each seat and turn (``state.turn``) we count its held steps as
the session does (``held_seats``): the steps at which it is an actor of an own decision and its
input, applied alone, keeps the turn where it was (not an answer to another seat's offer), or at
which it offers a trade to such an actor.

    python bench/turn_clock_steps.py [--seeds 6] [--seats 2 3 4 6]

Prints one line per game (edition, seats, seed, largest count, steps, ended) and the largest
count over all games. Engine only (no network, no signatures); ~1 min for 96 games.
"""

from __future__ import annotations

import argparse
import collections
import hashlib

import engine as RE
from p2p.session_turn_clock import held_seats, turn_of


def play(edition: str, seats: int, seed: int, cap: int = 6000) -> tuple[int, int, bool]:
    """One game of the default bots: (largest held-step count of a seat in a turn, decision
    steps, game over before ``cap`` steps)."""
    s = RE.new_game(edition, seats)
    counts: collections.Counter = collections.Counter()
    steps = 0
    for k in range(cap):
        p = RE.pending(s)
        if p.terminal:
            break
        if p.chance:
            tag = b"%s %d %d %d" % (edition.encode(), seats, seed, k)
            s, _ = RE.apply_chance(s, hashlib.sha256(tag).digest())
            continue
        inputs = [RE.bots.choose(s, i) for i in range(seats)]
        encoded = {i: None if x is None else RE.encode_action(x) for i, x in enumerate(inputs)}
        for d in held_seats(RE, s, seats, p, encoded):
            counts[(turn_of(s), d)] += 1
        s, _ = RE.apply_step(s, inputs)
        steps += 1
    return max(counts.values(), default=0), steps, RE.pending(s).terminal


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--seats", type=int, nargs="+", default=[2, 3, 4, 6])
    a = ap.parse_args()
    worst, games = 0, 0
    for edition in sorted(RE.EDITIONS):
        for seats in a.seats:
            for seed in range(a.seeds):
                best, steps, over = play(edition, seats, seed)
                games, worst = games + 1, max(worst, best)
                print(edition, seats, seed, "largest", best, "steps", steps, "over" if over else "CAP", flush=True)
    print("games", games, "largest held steps per seat and turn", worst)


if __name__ == "__main__":
    main()
