#!/usr/bin/env python3
"""Network benchmark: whole bot games with N peer processes on loopback (prints, asserts nothing).

    python bench/bench_network.py [--peers 4] [--games 3] [--seed bench] [--rounds 2000]

For each game (``lanopoli demo`` machinery, ``ui.demo.run_demo``) it measures, from the
children's JSON lines (protocol.md part L) as the parent receives them:

* lockstep steps per second: (last ``done`` step count − first ``progress`` step) / (time of
  the last ``done`` − time of the first ``progress``), so process start, discovery and the
  lobby are not counted;
* time until the peers see each other: each child's ``found.elapsed_s`` (target < 0.5 s);
* each peer process's peak RSS (``done.maxrss_kb``; target < 80 MB).

Then it runs the bare signed all-to-all round of ``../shared/tools/mesh_round/bench.py --n N``
in the same run and prints both rates and their ratio (target ≥ 0.5). Output: one line per
game, then one JSON summary line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ui.demo import DemoOptions, DemoOutcome, run_demo  # noqa: E402

MESH_ROUND = ROOT.parent / "shared" / "tools" / "mesh_round" / "bench.py"
TARGET_RATIO = 0.5
TARGET_FOUND_S = 0.5
TARGET_RSS_MB = 80.0


def game_figures(outcome: DemoOutcome) -> dict:
    """Steps/s, discovery times and peak RSS of one finished demo run."""
    peers = outcome.peers
    starts = [(p.first_progress_at, p.first_progress_step or 0) for p in peers if p.first_progress_at is not None]
    t_start, step_start = min(starts)
    t_end = max(p.done_at for p in peers)
    steps = max(int(p.done["steps"]) for p in peers)
    found = [float(p.found["elapsed_s"]) for p in peers if p.found is not None]
    rss_mb = [int(p.done["maxrss_kb"]) / 1024 for p in peers if p.done.get("maxrss_kb") is not None]
    return {
        "steps": steps,
        "game_s": round(t_end - t_start, 3),
        "steps_per_s": round((steps - step_start) / (t_end - t_start), 1) if t_end > t_start else None,
        "found_s_max": round(max(found), 3) if found else None,
        "found_s_median": round(statistics.median(found), 3) if found else None,
        "maxrss_mb_max": round(max(rss_mb), 1) if rss_mb else None,
        "final_state_hash": outcome.agreed_hash,
    }


def mesh_round(n: int, rounds: int) -> dict | None:
    """Run the mesh_round floor benchmark; its JSON line, or None if the tool is missing."""
    if not MESH_ROUND.exists():
        print(f"mesh_round not found at {MESH_ROUND}; skipping the floor figure", file=sys.stderr)
        return None
    proc = subprocess.run([sys.executable, str(MESH_ROUND), "--n", str(n), "--rounds", str(rounds)],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        print(f"mesh_round failed ({proc.returncode}): {proc.stderr.strip()[-500:]}", file=sys.stderr)
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--peers", type=int, default=4)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", default="bench", help="game i uses seed '<seed>-<i>'")
    parser.add_argument("--rounds", type=int, default=2000, help="mesh_round rounds")
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args(argv)

    per_game = []
    with tempfile.TemporaryDirectory(prefix="lanopoli-bench-") as tmp:
        for g in range(args.games):
            opts = DemoOptions(peers=args.peers, seed=f"{args.seed}-{g}", edition="classico",
                               log_dir=Path(tmp) / f"game-{g}", timeout_s=args.timeout, lang="en")
            keys = Path(tmp) / f"keys-{g}"
            keys.mkdir()
            outcome = asyncio.run(run_demo(opts, keys, lambda peers: None))
            if not outcome.ok:
                print(f"game {g}: FAILED (timed out: {outcome.timed_out}; hashes: {outcome.groups}); "
                      f"see the children's stderr above", file=sys.stderr)
                return 1
            figures = game_figures(outcome)
            per_game.append(figures)
            print(f"game {g}: {figures['steps']} steps in {figures['game_s']} s = {figures['steps_per_s']} steps/s; "
                  f"peers found each other in ≤ {figures['found_s_max']} s; max RSS {figures['maxrss_mb_max']} MB",
                  flush=True)

    total_steps = sum(f["steps"] for f in per_game)
    rate = statistics.median(f["steps_per_s"] for f in per_game)
    floor = mesh_round(args.peers, args.rounds)
    floor_rate = floor["rounds_per_s"] if floor else None
    ratio = round(rate / floor_rate, 3) if floor_rate else None
    found_max = max(f["found_s_max"] for f in per_game)
    rss_max = max(f["maxrss_mb_max"] for f in per_game)
    print(f"lockstep: {rate} steps/s (median of {len(per_game)} games, {total_steps} steps); "
          f"mesh_round floor: {floor_rate} rounds/s; ratio {ratio} (target ≥ {TARGET_RATIO})")
    print(f"discovery: peers see each other in ≤ {found_max} s (target < {TARGET_FOUND_S} s); "
          f"max RSS per peer {rss_max} MB (target < {TARGET_RSS_MB:g} MB)")
    print(json.dumps({
        "peers": args.peers, "games": per_game, "steps_per_s_median": rate,
        "mesh_round_rounds_per_s": floor_rate, "ratio": ratio, "target_ratio": TARGET_RATIO,
        "found_s_max": found_max, "maxrss_mb_max": rss_max, "mesh_round": floor,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
