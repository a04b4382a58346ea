"""Engine-only throughput with bots: whole games of every edition on one core, no network, no
signatures, no state hashing, on the engine's in-place path (``step_inplace``/``chance_inplace``).

Prints, per edition and seat count (the edition's own seat range): games/s, dice rolls/s, steps/s, the share of time spent in the bots
(measured by replaying the recorded inputs through the engine alone), and the distribution of
game lengths (turns, steps, dice); then games/s per edition over its seat counts; then one
JSON line with every figure. Target: ≥ 50,000 dice
rolls/s including bot decisions.

Dice: ``--dice fast`` (default) draws from a SplitMix64 stream so that SHA-256 stays out of the
measurement; ``--dice beacon`` uses ``BeaconRng`` on a SHA-256 beacon per chance step, exactly
as the peers do. ``--profile`` adds a cProfile summary (top functions, and time per module).

    /work/venv/bin/python bench/bench_engine.py                 # every edition, 2..8 seats
    /work/venv/bin/python bench/bench_engine.py --editions classico --seats 4 --games 500 --profile
    # beside gamescomputersplay/monopoly (its source unpacked in /tmp/peer; not committed here)
    /work/venv/bin/python bench/bench_engine.py --editions classico --seats 4 --peer /tmp/peer
    # and beside the USC/ISI GNOME simulator (GNOME-p3 tree in /tmp/gnome; its runner needs an
    # interpreter with numpy: bench/README.md, "Peer engines")
    /work/venv/bin/python bench/bench_engine.py --editions classico --seats 4 --peer /tmp/peer \
        --peer-gnome /tmp/gnome --peer-gnome-python /tmp/gnome-venv/bin/python
    # the compiled engine (setup.py) beside the pure one, in the same run
    /work/venv/bin/python bench/bench_engine.py --editions classico --seats 4 --vs-pure

Every run says whether the engine it measured is compiled (setup.py, engine/_accel.py) and how
many of its modules; ``LANOPOLI_PURE=1`` measures the pure-Python engine of the same install.
``--vs-pure`` runs the same figures again in a ``LANOPOLI_PURE=1`` child right after, and prints
this run / pure.

``--profile`` names files relative to where ``engine`` was imported from (any checkout path).
cProfile sees no Python frames inside compiled modules (their functions are C functions to it:
a compiled engine's own time shows as "python builtins/stdlib"); profile with
``LANOPOLI_PURE=1`` to see where the engine's time goes.
"""
from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import EDITIONS, chance_inplace, new_game, step_inplace  # noqa: E402
from engine.bots import BOTS, choose, play_game  # noqa: E402
from engine.state import CHANCE_PHASES, P_OVER  # noqa: E402
from engine._accel import compiled_modules, pure_forced  # noqa: E402

_MASK = (1 << 64) - 1


class SplitMix64:
    """A fast deterministic dice source with the ``below``/``die`` interface of BeaconRng
    (benchmark only: not the wire PRNG; modulo bias below 2**-60 is irrelevant here)."""

    __slots__ = ("x",)

    def __init__(self, seed: int) -> None:
        self.x = seed & _MASK

    def _next(self) -> int:
        self.x = x = (self.x + 0x9E3779B97F4A7C15) & _MASK
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
        return x ^ (x >> 31)

    def below(self, n: int) -> int:
        """Int in [0, n)."""
        return self._next() % n

    def die(self) -> int:
        """1..6 (``_next() % 6 + 1``, inlined: dice are the hot path of the benchmark)."""
        self.x = x = (self.x + 0x9E3779B97F4A7C15) & _MASK
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
        return (x ^ (x >> 31)) % 6 + 1


def _rng_factory(mode: str, seed: int):
    if mode == "beacon":
        return None  # play_game's default: BeaconRng(SHA-256 beacon) per chance step
    src = SplitMix64(seed * 0x632BE59BD9B4E019 + 1)
    return lambda k: src


def run_game(seats: int, seed: int, mode: str, max_steps: int, decide,
             edition: str = "classico") -> None:
    """One game on the in-place path; ``decide(s)`` gives the inputs of each decision step."""
    from engine.bots.play import beacon
    from engine.rng import BeaconRng
    s = new_game(edition, seats)
    rng = _rng_factory(mode, seed)
    ev: list = []
    k = 0
    steps = 0
    while s.phase != P_OVER and steps < max_steps:
        steps += 1
        if s.phase in CHANCE_PHASES:
            chance_inplace(s, rng(k) if rng else BeaconRng(beacon(seed, k)), ev)
            k += 1
        else:
            step_inplace(s, decide(s), ev)
        ev.clear()


def play_recorded(seats: int, seed: int, names: list[str], mode: str, max_steps: int,
                  edition: str = "classico"):
    """Like play_game, but returns the decision inputs so the engine can be timed alone."""
    log = []
    rs = range(seats)

    def decide(s):
        inputs = [choose(s, i, names[i]) for i in rs]
        log.append(inputs)
        return inputs
    run_game(seats, seed, mode, max_steps, decide, edition)
    return log


def replay_engine_only(seats: int, seed: int, mode: str, log, max_steps: int,
                       edition: str = "classico") -> None:
    """The same game with the recorded inputs: engine work only."""
    it = iter(log)
    run_game(seats, seed, mode, max_steps, lambda s: next(it), edition)


def _pct(values: list[int], p: int) -> int:
    v = sorted(values)
    return v[min(len(v) - 1, (len(v) * p) // 100)]


def bench_seats(seats: int, games: int, names: list[str], mode: str, max_steps: int,
                repeat: int = 3, edition: str = "classico") -> dict:
    """Play ``games`` seeded games (``repeat`` times, keeping the fastest run); return the
    figures for this seat count. Times are CPU seconds of this process."""
    # CPU time of this process (the machine may be shared), best of ``repeat`` runs.
    wall = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        results = [play_game(seats, seed, names, edition=edition, max_steps=max_steps,
                             rng=_rng_factory(mode, seed)) for seed in range(games)]
        wall = min(wall, time.process_time() - t0)
    # Engine alone: replay a sample of the games with their recorded inputs.
    sample = range(min(games, 40))
    sample_wall = engine_s = float("inf")
    for _ in range(repeat):
        t1 = time.process_time()
        logs = [play_recorded(seats, seed, names, mode, max_steps, edition) for seed in sample]
        sample_wall = min(sample_wall, time.process_time() - t1)
        t1 = time.process_time()
        for seed, log in zip(sample, logs):
            replay_engine_only(seats, seed, mode, log, max_steps, edition)
        engine_s = min(engine_s, time.process_time() - t1)
    dice = sum(r.dice for r in results)
    steps = sum(r.steps for r in results)
    done = [r for r in results if r.finished]
    turns = [r.turns for r in results]
    return {
        "edition": edition, "seats": seats, "games": games, "bots": names, "dice_mode": mode,
        "finished": len(done), "finished_pct": 100 * len(done) // games,
        "cpu_s": round(wall, 3), "games_per_s": round(games / wall, 1),
        "dice_per_s": round(dice / wall), "steps_per_s": round(steps / wall),
        "engine_share_pct": round(100 * engine_s / sample_wall) if sample_wall else None,
        "turns": {"p50": _pct(turns, 50), "p90": _pct(turns, 90), "p99": _pct(turns, 99),
                  "max": max(turns), "mean": sum(turns) // games},
        "steps": {"p50": _pct([r.steps for r in results], 50),
                  "p99": _pct([r.steps for r in results], 99),
                  "max": max(r.steps for r in results)},
        "dice": {"p50": _pct([r.dice for r in results], 50), "total": dice},
        "winners": [sum(1 for r in done if r.winner == i) for i in range(seats)],
    }


def _module_of(path: str, roots: list[tuple[str, str]]) -> str:
    """The name ``profile`` files ``path`` under: its path relative to the first of ``roots``
    (``(directory, prefix)``, real paths) that contains it, else "python builtins/stdlib"."""
    if path.startswith(("<", "~")):
        return "python builtins/stdlib"  # cProfile's "~" for built-ins, "<string>" etc.
    real = os.path.realpath(path)
    for root, prefix in roots:
        if real.startswith(root + os.sep):
            return prefix + Path(os.path.relpath(real, root)).as_posix()
    return "python builtins/stdlib"


def _profile_roots() -> list[tuple[str, str]]:
    """Where the project's modules were imported from (the package locations, not a fixed
    checkout path): the tree holding ``engine`` (its modules show as ``engine/...``), and this
    benchmark's folder (``bench/...``)."""
    import engine
    tree = os.path.realpath(Path(engine.__file__).parent.parent)
    here = os.path.realpath(Path(__file__).parent)
    return [(here, "bench/"), (tree, "")]


def profile(seats: int, games: int, names: list[str], mode: str, max_steps: int) -> dict:
    """cProfile over ``games`` games: top functions by own time, and own time per module (files
    named relative to where ``engine`` was imported from, see ``_module_of``)."""
    pr = cProfile.Profile()
    pr.enable()
    for seed in range(games):
        play_game(seats, seed, names, max_steps=max_steps, rng=_rng_factory(mode, seed))
    pr.disable()
    st = pstats.Stats(pr)
    total = sum(v[2] for v in st.stats.values())
    roots = _profile_roots()
    per_module: dict[str, float] = {}
    rows = []
    for (file, line, func), (cc, nc, tt, ct, callers) in st.stats.items():
        mod = _module_of(file, roots)
        per_module[mod] = per_module.get(mod, 0.0) + tt
        rows.append((tt, ct, nc, f"{mod}:{line}({func})"))
    rows.sort(reverse=True)
    return {
        "total_s": round(total, 3),
        "per_module_pct": {m: round(100 * t / total, 1) for m, t in
                           sorted(per_module.items(), key=lambda kv: -kv[1])[:14]},
        "top": [{"fn": name, "own_s": round(tt, 3), "cum_s": round(ct, 3), "calls": nc}
                for tt, ct, nc, name in rows[:20]],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--editions", default="all",
                    help=f"comma-separated editions, or all ({', '.join(sorted(EDITIONS))})")
    ap.add_argument("--seats", default="2,3,4,5,6,7,8",
                    help="comma-separated seat counts (each edition plays those in its range)")
    ap.add_argument("--games", type=int, default=200, help="seeded games per seat count")
    ap.add_argument("--bots", default="default",
                    help=f"comma-separated bot names, cycled over the seats ({', '.join(BOTS)})")
    ap.add_argument("--dice", choices=("fast", "beacon"), default="fast")
    ap.add_argument("--max-steps", type=int, default=100_000, help="step cap per game")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure, fastest kept")
    ap.add_argument("--profile", action="store_true", help="add a cProfile summary")
    ap.add_argument("--profile-games", type=int, default=60)
    ap.add_argument("--peer", metavar="TREE",
                    help="source tree of gamescomputersplay/monopoly: run it beside lanopoli "
                         "(before and after, best kept) and print the ratios")
    ap.add_argument("--peer-games", type=int, default=100)
    ap.add_argument("--peer-runner", default=str(_PEER_RUNNER),
                    help="the runner that counts the peer's dice rolls")
    ap.add_argument("--peer-gnome", metavar="TREE",
                    help="source tree of the USC/ISI GNOME simulator (GNOME-p3): run "
                         "bench/peer_gnome_run.py before and after lanopoli (best kept) and print "
                         "the ratio (target >= 10)")
    ap.add_argument("--peer-gnome-games", type=int, default=100)
    ap.add_argument("--peer-gnome-python", default=sys.executable,
                    help="interpreter for the GNOME runner (needs numpy; default: this one)")
    ap.add_argument("--vs-pure", action="store_true",
                    help="also run the same figures with LANOPOLI_PURE=1 (a child) and print the ratio")
    args = ap.parse_args(argv)
    peer_runs = [run_peer(args.peer_runner, args.peer, args.peer_games)] if args.peer else []
    gnome_runs = [_run_gnome(args)] if args.peer_gnome else []
    bot_cycle = args.bots.split(",")
    for b in bot_cycle:
        if b not in BOTS:
            ap.error(f"unknown bot {b!r}")
    editions = sorted(EDITIONS) if args.editions == "all" else args.editions.split(",")
    for e in editions:
        if e not in EDITIONS:
            ap.error(f"unknown edition {e!r}")
    out: dict = {"bench": "engine", "per_seats": [], "per_edition": [], "engine": _engine_kind()}
    print(f"engine: {out['engine']['kind']}")
    all_dice = all_wall = all_games = 0
    for edition in editions:
        ed = EDITIONS[edition]
        seat_counts = [n for n in (int(x) for x in args.seats.split(","))
                       if ed.min_players <= n <= ed.max_players]
        e_games = e_wall = e_dice = 0
        for seats in seat_counts:
            r = _bench_one(args, bot_cycle, edition, seats, out)
            e_games += r["games"]
            e_wall += r["cpu_s"]
            e_dice += r["dice"]["total"]
        if e_wall:
            out["per_edition"].append({"edition": edition, "seats": seat_counts, "games": e_games,
                                       "games_per_s": round(e_games / e_wall, 1),
                                       "dice_per_s": round(e_dice / e_wall)})
            all_dice += e_dice
            all_wall += e_wall
            all_games += e_games
    out["overall_dice_per_s"] = round(all_dice / all_wall) if all_wall else 0
    out["overall_games_per_s"] = round(all_games / all_wall, 1) if all_wall else 0
    print("games per second per edition (all its seat counts, CPU time of one core):")
    for pe in out["per_edition"]:
        print(f"  {pe['edition']:<22} {pe['games_per_s']:>8} games/s  {pe['dice_per_s']:>7} dice/s  "
              f"({pe['games']} games, seats {','.join(map(str, pe['seats']))})")
    if args.vs_pure:
        _vs_pure(args, out)
    if args.peer:
        peer_runs.append(run_peer(args.peer_runner, args.peer, args.peer_games))
        _peer_ratios(out, peer_runs)
    if args.peer_gnome:
        gnome_runs.append(_run_gnome(args))
        _peer_ratios(out, gnome_runs, "peer_gnome", "USC/ISI GNOME simulator", 10.0, None)
    _finish(args, bot_cycle, out, all_dice, all_wall, all_games)
    return 0


def _engine_kind() -> dict:
    """Whether the engine measured here runs compiled: ``{"kind", "compiled_modules"}``."""
    n = len(compiled_modules())
    if n:
        kind = f"compiled ({n} modules, Cython; setup.py)"
    elif pure_forced():
        kind = "pure Python (LANOPOLI_PURE is set)"
    else:
        kind = "pure Python (not compiled in this install)"
    return {"kind": kind, "compiled_modules": n}


def _vs_pure(args, out: dict) -> None:
    """Run the same figures in a ``LANOPOLI_PURE=1`` child (no peer, no profile); record its
    JSON under ``out["pure"]`` and print this run / pure for each seat count and overall."""
    import subprocess
    cmd = [sys.executable, str(Path(__file__).resolve()), "--editions", args.editions,
           "--seats", args.seats, "--games", str(args.games), "--bots", args.bots,
           "--dice", args.dice, "--max-steps", str(args.max_steps), "--repeat", str(args.repeat)]
    p = subprocess.run(cmd, env=dict(os.environ, LANOPOLI_PURE="1"), capture_output=True,
                       text=True, check=False)
    if p.returncode:
        raise RuntimeError(f"pure child failed ({p.returncode}): {p.stderr.strip()[-400:]}")
    pure = json.loads(p.stdout.strip().splitlines()[-1])
    out["pure"] = {"engine": pure["engine"], "per_seats": pure["per_seats"],
                   "overall": pure["overall"]}
    print(f"same figures, {pure['engine']['kind']} (a child, right after):")
    for mine, theirs in zip(out["per_seats"], pure["per_seats"]):
        print(f"  {mine['edition']} {mine['seats']} seats: {theirs['dice_per_s']} dice/s, "
              f"{theirs['games_per_s']} games/s -> this run / pure: dice "
              f"{mine['dice_per_s'] / theirs['dice_per_s']:.2f}x, games "
              f"{mine['games_per_s'] / theirs['games_per_s']:.2f}x")
    ratio = out["overall_dice_per_s"] / pure["overall"]["dice_per_s"]
    out["vs_pure_dice_ratio"] = round(ratio, 3)
    print(f"  overall: this run / pure {ratio:.2f}x dice/s")


_PEER_RUNNER = (Path(__file__).resolve().parent.parent.parent / "shared" / "tools" / "peer_engines"
                / "gamescomputersplay_run.py")
"""``../shared/tools/peer_engines/gamescomputersplay_run.py`` beside the clone."""


def run_peer(runner: str, tree: str, games: int, python: str = sys.executable) -> dict:
    """Run ``games`` games of a peer engine (source ``tree``: gamescomputersplay/monopoly with
    the default ``runner``, the GNOME simulator with ``bench/peer_gnome_run.py``) in a child
    interpreter ``python`` (CPU time of its games only, counted like ours: one roll of two dice
    is one roll). Returns ``{"games", "rolls", "cpu_s", "games_per_s", "rolls_per_s"}``; raises
    RuntimeError if the runner fails or prints no figures."""
    import subprocess
    p = subprocess.run([python, runner, tree, str(games)], capture_output=True,
                       text=True, check=False)
    line = next((x for x in p.stdout.splitlines() if x.startswith("peer games=")), None)
    if p.returncode or line is None:
        raise RuntimeError(f"peer runner failed ({p.returncode}): {p.stderr.strip()[-400:]}")
    f = dict(kv.split("=") for kv in line.split()[1:])
    return {"games": int(f["games"]), "rolls": int(f["rolls"]), "cpu_s": float(f["cpu"]),
            "games_per_s": float(f["games/s"]), "rolls_per_s": float(f["rolls/s"])}


def _run_gnome(args) -> dict:
    """One run of the GNOME simulator by ``bench/peer_gnome_run.py`` (see ``run_peer``)."""
    return run_peer(str(Path(__file__).resolve().parent / "peer_gnome_run.py"), args.peer_gnome,
                    args.peer_gnome_games, args.peer_gnome_python)


def _peer_ratios(out: dict, runs: list[dict], key: str = "peer",
                 name: str = "gamescomputersplay/monopoly", dice_target: float = 1.0,
                 games_target: float | None = 3) -> None:
    """Print and record (under ``out[key]``) lanopoli / peer ``name`` for dice rolls/s and
    games/s: the peer's best run against classico at 4 seats (the peer's game), else every game
    benched."""
    peer = max(runs, key=lambda r: r["rolls_per_s"])
    ours = next((r for r in out["per_seats"] if r["edition"] == "classico" and r["seats"] == 4),
                None)
    label = "classico 4 seats"
    if ours is None:
        ours = {"dice_per_s": out["overall_dice_per_s"], "games_per_s": out["overall_games_per_s"]}
        label = "all games benched"
    rec = out[key] = {"name": name, "runs": runs,
                      "dice_ratio": round(ours["dice_per_s"] / peer["rolls_per_s"], 2),
                      "games_ratio": round(ours["games_per_s"] / peer["games_per_s"], 2)}
    each = ", ".join(f"{r['rolls_per_s']:.0f}" for r in runs)
    print(f"peer {name} (best of {len(runs)} runs: {each} rolls/s; {peer['games']} games, "
          f"{peer['rolls'] // peer['games']} rolls/game): {peer['rolls_per_s']:.0f} rolls/s, "
          f"{peer['games_per_s']} games/s")
    games_t = f" (target >= {games_target:g})" if games_target else ""
    print(f"lanopoli {label} ({out['engine']['kind']}) / {name}: dice rolls/s "
          f"{rec['dice_ratio']}x (target >= {dice_target:g}), games/s {rec['games_ratio']}x"
          f"{games_t}")
    pure = next((r for r in out.get("pure", {}).get("per_seats", ())
                 if (r["edition"], r["seats"]) == ("classico", 4)), None)
    if pure is not None:
        rec["pure_dice_ratio"] = round(pure["dice_per_s"] / peer["rolls_per_s"], 2)
        rec["pure_games_ratio"] = round(pure["games_per_s"] / peer["games_per_s"], 2)
        print(f"lanopoli classico 4 seats (pure Python) / {name}: dice rolls/s "
              f"{rec['pure_dice_ratio']}x, games/s {rec['pure_games_ratio']}x")


def _bench_one(args, bot_cycle: list[str], edition: str, seats: int, out: dict) -> dict:
    """Bench one edition and seat count, print its line, append it to ``out``."""
    names = [bot_cycle[i % len(bot_cycle)] for i in range(seats)]
    r = bench_seats(seats, args.games, names, args.dice, args.max_steps, args.repeat, edition)
    out["per_seats"].append(r)
    t = r["turns"]
    print(f"{edition} {seats} seats ({','.join(sorted(set(names)))}): {r['finished']}/{r['games']} "
          f"finished | {r['games_per_s']} games/s, {r['dice_per_s']} dice/s, "
          f"{r['steps_per_s']} steps/s, engine {r['engine_share_pct']}% / bots+loop "
          f"{100 - (r['engine_share_pct'] or 0)}% | turns p50 {t['p50']} p90 {t['p90']} "
          f"p99 {t['p99']} max {t['max']} | steps p50 {r['steps']['p50']} "
          f"max {r['steps']['max']}")
    return r


def _finish(args, bot_cycle: list[str], out: dict, all_dice: int, all_wall: float, all_games: int) -> None:
    """Overall figures, the optional profile, and the JSON line."""
    out["overall"] = {"games": all_games, "dice_per_s": round(all_dice / all_wall),
                      "games_per_s": round(all_games / all_wall, 1), "target_dice_per_s": 50_000}
    print(f"overall: {out['overall']['dice_per_s']} dice rolls/s, "
          f"{out['overall']['games_per_s']} games/s (target 50000 dice/s, dice={args.dice})")
    if args.profile:
        seats = int(args.seats.split(",")[0])
        names = [bot_cycle[i % len(bot_cycle)] for i in range(seats)]
        prof = profile(seats, args.profile_games, names, args.dice, args.max_steps)
        out["profile"] = prof
        print(f"profile ({seats} seats, {args.profile_games} games, {prof['total_s']} s "
              f"under cProfile): own time per module")
        for m, p in prof["per_module_pct"].items():
            print(f"  {p:5.1f}%  {m}")
        print("  top functions by own time:")
        for row in prof["top"][:14]:
            print(f"    {row['own_s']:7.3f}s own {row['cum_s']:7.3f}s cum {row['calls']:>8} "
                  f"calls  {row['fn']}")
    print(json.dumps(out, separators=(",", ":")))


if __name__ == "__main__":
    raise SystemExit(main())
