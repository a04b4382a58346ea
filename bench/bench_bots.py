"""The bots against the bots before issue 14 (engine/bots at ``OLD_REV``, read from git), on the
engine of this tree: same decisions, same strength, and how much faster.

Three figures, in one run:

1. **identity**: seeded games driven by the new bots with the peers' SHA-256 beacons
   (``engine.bots.play.beacon``); at every decision step the old bots' ``choose_all`` must give
   the same inputs. Prints the number of decision steps compared and of differences (the first
   few are shown). Unlike ``bench/regression_fingerprint.py`` this does not depend on the
   engine staying put: both bot versions look at the same states.
2. **win rates, new vs old**: every seed is played twice at 4 seats, new bots in seats 0 and 2
   then in seats 1 and 3 (old bots in the others), so that neither version gets the better
   seats; prints the wins of each version over the finished games.
3. **speed**: whole games with each version's ``play_game`` (fast dice, ``bench_engine``'s
   SplitMix64), interleaved, best of ``--repeat``; prints games/s, dice/s and the ratio.

    /work/venv/bin/python bench/bench_bots.py                       # 200 seeds (400 games)
    /work/venv/bin/python bench/bench_bots.py --seeds 300 --identity-seeds 100
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

_BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(_BENCH.parent))
sys.path.insert(0, str(_BENCH))

OLD_REV = "c3787d7"
"""The bots compared against: engine/bots as of this commit (before issue 14's speed work, with
issue 10's auction rule of 7885500)."""
_BOT_FILES = ("__init__.py", "_decide.py", "_profile.py", "_trade.py", "_value.py", "play.py")


def _load_old_bots(rev: str = OLD_REV):
    """Import engine/bots of commit ``rev`` as the package ``old_bots``, read with ``git show``
    from this checkout (no copy kept in the tree), its ``..`` imports pointed at today's
    ``engine``. Raises ``SystemExit`` with the reason when git or the commit is not there."""
    import importlib
    import re
    import subprocess
    import tempfile
    root = Path(tempfile.mkdtemp(prefix="lanopoli-old-bots-"))
    (root / "old_bots").mkdir()
    for name in _BOT_FILES:
        try:
            src = subprocess.run(["git", "show", f"{rev}:engine/bots/{name}"], cwd=_BENCH.parent, check=True,
                                 capture_output=True, text=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            raise SystemExit(f"bench_bots needs the git history (commit {rev}): {e}") from None
        src = re.sub(r"^(\s*)from \.\.(\w)", r"\1from engine.\2", src, flags=re.M)
        (root / "old_bots" / name).write_text(src)
    sys.path.insert(0, str(root))
    return importlib.import_module("old_bots")


old_bots = _load_old_bots()
import engine.bots as new_bots  # noqa: E402
from engine import EDITIONS, new_game  # noqa: E402
from engine.state import P_OVER  # noqa: E402
from _inplace import play_inplace  # noqa: E402 - bench/, the script's own folder
from bench_engine import _rng_factory  # noqa: E402

MAX_STEPS = 100_000


def _run(edition: str, seats: int, seed: int, decide) -> tuple[int, int]:
    """One game with beacons; ``decide(s)`` gives each decision step's inputs. Returns
    ``(winner or -1, decision steps)``."""
    s = new_game(edition, seats)
    decisions = 0

    def counted(s) -> list:
        nonlocal decisions
        decisions += 1
        return decide(s)

    for _ in play_inplace(s, seed, counted, MAX_STEPS):
        pass
    return (s.winner if s.phase == P_OVER else -1), decisions


def identity(editions: list[str], seat_counts: list[int], seeds: int) -> tuple[int, list[str]]:
    """Decision steps compared and the differences found (figure 1 of the module doc)."""
    compared = 0
    diffs: list[str] = []
    for ed in editions:
        e = EDITIONS[ed]
        for n in seat_counts:
            if not e.min_players <= n <= e.max_players:
                continue
            for seed in range(seeds):
                names = [("default", "cautious", "aggressive")[(i + seed) % 3] if seed % 2
                         else "default" for i in range(n)]

                def decide(s, names=names, ed=ed, n=n, seed=seed):
                    nonlocal compared
                    new = new_bots.choose_all(s, names)
                    old = old_bots.choose_all(s, names)
                    compared += 1
                    if new != old and len(diffs) < 1000:
                        diffs.append(f"{ed} {n} seats seed {seed} turn {s.turn}: "
                                     f"new {new} old {old}")
                    return new
                _run(ed, n, seed, decide)
    return compared, diffs


def win_rates(seeds: int, edition: str = "classico") -> dict:
    """Wins of the new and the old bots over ``2 * seeds`` games at 4 seats (module doc)."""
    wins = {"new": 0, "old": 0}
    unfinished = 0
    for seed in range(seeds):
        for new_seats in ((0, 2), (1, 3)):
            names = ["default"] * 4

            def decide(s, new_seats=new_seats, names=names):
                return [(new_bots._choose if i in new_seats else old_bots._choose)(
                    s, i, names[i], None) for i in range(4)]
            winner, _ = _run(edition, 4, seed, decide)
            if winner < 0:
                unfinished += 1
            else:
                wins["new" if winner in new_seats else "old"] += 1
    return {"games": 2 * seeds, "unfinished": unfinished, **wins}


def speed(games: int, repeat: int, seats: int = 4, edition: str = "classico") -> dict:
    """games/s and dice/s of each version's play_game, interleaved, best of ``repeat``."""
    best = {"old": float("inf"), "new": float("inf")}
    dice = {}
    for _ in range(repeat):
        for name, mod in (("old", old_bots), ("new", new_bots)):
            t0 = time.process_time()
            rs = [mod.play_game(seats, seed, None, edition=edition,
                                rng=_rng_factory("fast", seed)) for seed in range(games)]
            best[name] = min(best[name], time.process_time() - t0)
            dice[name] = sum(r.dice for r in rs)
    return {v: {"games_per_s": round(games / best[v], 1), "dice_per_s": round(dice[v] / best[v])}
            for v in best} | {"ratio": round(best["old"] / best["new"], 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=200, help="win-rate seeds (2 games each)")
    ap.add_argument("--identity-seeds", type=int, default=40, help="seeds per edition and seats")
    ap.add_argument("--identity-seats", default="2,4,6")
    ap.add_argument("--editions", default=",".join(EDITIONS))
    ap.add_argument("--games", type=int, default=200, help="games per speed run")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    compared, diffs = identity(args.editions.split(","),
                               [int(x) for x in args.identity_seats.split(",")],
                               args.identity_seeds)
    print(f"identity: {compared} decision steps compared, {len(diffs)} differ "
          f"(new bots vs engine/bots at {OLD_REV}, same engine, SHA-256 beacons)")
    for d in diffs[:5]:
        print("  " + d)
    w = win_rates(args.seeds)
    done = w["new"] + w["old"]
    print(f"win rates, classico 4 seats, {w['games']} games ({w['unfinished']} unfinished): "
          f"new {w['new']} ({100 * w['new'] / max(done, 1):.1f}%), "
          f"old {w['old']} ({100 * w['old'] / max(done, 1):.1f}%)")
    sp = speed(args.games, args.repeat)
    print(f"speed, classico 4 seats, {args.games} games, best of {args.repeat}: "
          f"old {sp['old']['games_per_s']} games/s {sp['old']['dice_per_s']} dice/s | "
          f"new {sp['new']['games_per_s']} games/s {sp['new']['dice_per_s']} dice/s | "
          f"new/old {sp['ratio']}x")
    return 1 if diffs else 0


if __name__ == "__main__":
    raise SystemExit(main())
