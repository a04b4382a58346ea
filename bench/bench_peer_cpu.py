#!/usr/bin/env python3
"""CPU of whole network peers per lockstep step, all in one process (issue 14, H105).

    python bench/bench_peer_cpu.py [--peers 4] [--games 1] [--seed S] [--base-root DIR] [--pairs 3]
    python bench/bench_peer_cpu.py --profile FILE          # the game window under cProfile
    python bench/bench_peer_cpu.py --profile FILE.json     # ... under bench/_sampler.py (CPU shares)

``--peers`` bot peers (``p2p.node.run_peer``, the real engine, classico, the demo's bots) play
one game on loopback as asyncio tasks of this process, each with its own UDP socket, zeroconf
(127.0.0.1) and game log: everything a peer process runs on a step (socket reads and
``sendto``, the link, the transport's MACs and acks, the session, signatures, the engine and
the bot, the logs) but no scheduling between processes, so the figure is steadier than the
``steps4`` row's on a loaded machine. Printed: process CPU µs per step and peer over the game
window (session events of every peer, from the first ``StepApplied`` to the last ``GameOver``;
user + system, ``time.process_time``). The games are seeded (``--seed``): the same steps at
every run. ``--base-root DIR`` (a ``git worktree add DIR <commit>``, engine compiled as in this
checkout): the same game with that checkout's code in alternating child processes, ``--pairs``
times, and the new/base ratio of each pair. Prints JSON, asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


async def _game(peers: int, seed: str, log_dir: str, profile: str | None) -> dict:
    from p2p.lockstep import GameOver, StepApplied
    from p2p.node import PeerConfig, run_peer

    loop = asyncio.get_running_loop()
    gid = loop.create_future()
    win: dict = {"t0": None, "t1": None, "steps": 0, "over": 0}
    prof = None
    if profile and profile.endswith(".json"):  # the statistical sampler (bench/_sampler.py)
        from _sampler import Sampler

        prof = Sampler(0.0002)
        prof.enable, prof.disable, prof.dump_stats = prof.start, prof.stop, prof.dump
    elif profile:
        import cProfile

        prof = cProfile.Profile()

    def observer(ev: object) -> None:
        if type(ev) is StepApplied and win["t0"] is None:
            win["t0"] = time.process_time()
            if prof is not None:
                prof.enable()
        elif isinstance(ev, GameOver):
            win["over"] += 1
            win["steps"] = max(win["steps"], ev.steps)
            if win["over"] == peers:
                if prof is not None:
                    prof.disable()
                win["t1"] = time.process_time()

    def progress(rep: object) -> None:
        if type(rep).__name__ == "Hosting" and not gid.done():
            gid.set_result(rep.game_id)

    common = dict(bind="127.0.0.1", timeout=120, log_dir=log_dir, discovery_timeout=20, observer=observer)
    host = asyncio.ensure_future(run_peer(PeerConfig(role="host", seats=peers, name="p0", progress=progress,
                                                     demo_seed=f"{seed}-0".encode(), **common)))
    game_id = await asyncio.wait_for(gid, 20)
    joiners = [asyncio.ensure_future(run_peer(PeerConfig(role="join", name=f"p{i}", game_id=game_id,
                                                         demo_seed=f"{seed}-{i}".encode(), **common)))
               for i in range(1, peers)]
    results = await asyncio.gather(host, *joiners)
    if len({r.final_state_hash for r in results}) != 1:
        raise SystemExit("the peers ended on different states")
    if prof is not None:
        prof.dump_stats(profile)
    steps = win["steps"]
    return {"peers": peers, "steps": steps, "hash": results[0].final_state_hash.hex()[:16],
            "cpu_us_per_step_per_peer": round(1e6 * (win["t1"] - win["t0"]) / steps / peers, 1)}


def run(peers: int, seed: str, profile: str | None = None) -> dict:
    """One game of the checkout first on ``sys.path``: ``_game``'s figures."""
    with tempfile.TemporaryDirectory() as d:
        return asyncio.run(_game(peers, seed, d, profile))


def _child(root: Path, peers: int, seed: str) -> dict:
    code = (f"import sys; sys.path.insert(0, {str(root)!r}); sys.path.insert(1, {str(ROOT / 'bench')!r}); "
            f"import json, bench_peer_cpu as b; print(json.dumps(b.run({peers}, {seed!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=str(root))
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peers", type=int, default=4)
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--seed", default="peer-cpu")
    ap.add_argument("--profile", help="write the game window's cProfile stats here (this checkout, one game)")
    ap.add_argument("--base-root", help="another checkout: alternate its peers with this one's")
    ap.add_argument("--pairs", type=int, default=3)
    args = ap.parse_args(argv)
    if args.profile:
        sys.path.insert(0, str(ROOT))
        sys.path.insert(1, str(ROOT / "bench"))
        print(json.dumps(run(args.peers, args.seed, args.profile)))
        return 0
    if not args.base_root:
        for g in range(args.games):
            print(json.dumps(_child(ROOT, args.peers, f"{args.seed}-{g}")), flush=True)
        return 0
    pairs = []
    for g in range(args.pairs):
        seed = f"{args.seed}-{g}"
        b = _child(Path(args.base_root).resolve(), args.peers, seed)
        n = _child(ROOT, args.peers, seed)
        print(json.dumps({"base": b, "new": n}), flush=True)
        pairs.append((b["cpu_us_per_step_per_peer"], n["cpu_us_per_step_per_peer"]))
    ratios = [round(n / b, 3) for b, n in pairs]
    print(json.dumps({"peers": args.peers, "pairs_us": pairs, "ratios": ratios,
                      "ratio_median": statistics.median(ratios)}))
    return 0

if __name__ == "__main__":
    sys.exit(main())
