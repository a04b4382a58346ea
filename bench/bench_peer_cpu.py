#!/usr/bin/env python3
"""CPU of whole network peers per lockstep step, all in one process (issue 14, H105).

    python bench/bench_peer_cpu.py [--peers 4] [--games 1] [--seed S] [--base-root DIR] [--pairs 3]
    python bench/bench_peer_cpu.py --profile FILE          # the game window under cProfile
    python bench/bench_peer_cpu.py --profile FILE.json     # ... under bench/_sampler.py (CPU shares)
    python bench/bench_peer_cpu.py --critical --experiment sendlate --pairs 5   # plain ("new") vs sendlate ("base")

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
times, and the new/base ratio of each pair; ``--experiment X``: instead, this checkout with
``bench/_path_child.py``'s experiment X ("base") against it plain ("new"). ``--critical``: also
the CPU on a peer's critical path per step (``_trace_path``), which no other process's load
changes. Prints JSON, asserts nothing.
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


def _trace_path() -> tuple[list[float], list[float]]:
    """Stamp each peer's CPU on its critical path (``--critical``): from the start of handling
    the payload that completes its step (``Node._on_message``; the step moved on after it) to
    its first ``sendto`` after that (``Link._sendto``: our next message, sent inside the
    handling or after it), and to the last ``sendto`` of that flush (``Link._flush``: our
    message to every other seat). Every peer runs in this one thread and nothing else runs
    between the stamps, so ``time.thread_time`` deltas are that peer's CPU alone, whatever the
    machine's load (not the time it waited for a core). Returns the lists the deltas (s) go to:
    (to the first ``sendto``, to the last)."""
    from p2p import link, node

    deltas: list[float] = []
    to_last: list[float] = []
    open_at: dict = {}  # Link -> (thread time at the handling's start, the step before it)
    sent_at: dict = {}  # Link -> [the handling's start, the latest sendto] within one flush
    on_message, sendto, flush = node.Node._on_message, link.Link._sendto, link.Link._flush

    def traced_message(self, addr, payload):  # noqa: ANN001, ANN202
        s = self.session
        if s is None:
            return on_message(self, addr, payload)
        lk = self.link
        open_at[lk] = (time.thread_time(), s.step)
        try:
            return on_message(self, addr, payload)
        finally:
            started = open_at.get(lk)
            if started is not None and (self.session is not s or s.step == started[1]):
                del open_at[lk]  # no step completed: not on a critical path

    def traced_sendto(self, data, addr):  # noqa: ANN001, ANN202
        started = open_at.pop(self, None)
        now = time.thread_time()
        if started is not None:
            deltas.append(now - started[0])
            sent_at[self] = [started[0], now]
        elif self in sent_at:
            sent_at[self][1] = now
        return sendto(self, data, addr)

    def traced_flush(self):  # noqa: ANN001, ANN202
        r = flush(self)
        span = sent_at.pop(self, None)
        if span is not None:
            to_last.append(span[1] - span[0])
        return r

    node.Node._on_message = traced_message
    link.Link._sendto = traced_sendto
    link.Link._flush = traced_flush
    return deltas, to_last


def run(peers: int, seed: str, profile: str | None = None, critical: bool = False,
        experiment: str | None = None) -> dict:
    """One game of the checkout first on ``sys.path``: ``_game``'s figures; with ``critical``
    the median and mean CPU µs per step on a peer's critical path (``_trace_path``: these
    stamps cost a few µs of the total). ``experiment``: ``bench/_path_child.py``'s
    ``LANOPOLI_PATH_EXPERIMENT`` modes (e.g. ``sendlate``), applied to every peer."""
    if experiment:
        from _path_child import _experiment

        _experiment(experiment)
    deltas, to_last = _trace_path() if critical else (None, None)
    with tempfile.TemporaryDirectory() as d:
        out = asyncio.run(_game(peers, seed, d, profile))
    if deltas:
        out["critical_us_median"] = round(1e6 * statistics.median(deltas), 1)
        out["critical_us_mean"] = round(1e6 * statistics.fmean(deltas), 1)
        out["critical_n"] = len(deltas)
    if to_last:
        out["critical_last_us_median"] = round(1e6 * statistics.median(to_last), 1)
    return out


def _child(root: Path, peers: int, seed: str, critical: bool = False, experiment: str | None = None) -> dict:
    code = (f"import sys; sys.path.insert(0, {str(root)!r}); sys.path.insert(1, {str(ROOT / 'bench')!r}); "
            f"import json, bench_peer_cpu as b; "
            f"print(json.dumps(b.run({peers}, {seed!r}, critical={critical!r}, experiment={experiment!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=str(root))
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peers", type=int, default=4)
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--seed", default="peer-cpu")
    ap.add_argument("--profile", help="write the game window's cProfile stats here (this checkout, one game)")
    ap.add_argument("--critical", action="store_true", help="also the CPU on each peer's critical path")
    ap.add_argument("--base-root", help="another checkout: alternate its peers with this one's")
    ap.add_argument("--experiment", help="alternate this checkout plain and with a _path_child.py experiment")
    ap.add_argument("--pairs", type=int, default=3)
    args = ap.parse_args(argv)
    if args.profile:
        sys.path.insert(0, str(ROOT))
        sys.path.insert(1, str(ROOT / "bench"))
        print(json.dumps(run(args.peers, args.seed, args.profile, args.critical)))
        return 0
    if not args.base_root and not args.experiment:
        for g in range(args.games):
            print(json.dumps(_child(ROOT, args.peers, f"{args.seed}-{g}", args.critical)), flush=True)
        return 0
    base_root = Path(args.base_root).resolve() if args.base_root else ROOT
    keys = ["cpu_us_per_step_per_peer"] + (["critical_us_median", "critical_us_mean", "critical_last_us_median"]
                                           if args.critical else [])
    sides: dict[str, dict[str, list]] = {side: {k: [] for k in keys} for side in ("base", "new")}
    for g in range(args.pairs):
        seed = f"{args.seed}-{g}"
        games = {"base": _child(base_root, args.peers, seed, args.critical, args.experiment if not args.base_root
                                else None),
                 "new": _child(ROOT, args.peers, seed, args.critical)}
        print(json.dumps(games), flush=True)
        for side, game in games.items():
            for k in keys:
                sides[side][k].append(game[k])
    ratios = {k: [round(n / b, 3) for b, n in zip(sides["base"][k], sides["new"][k])] for k in keys}
    print(json.dumps({"peers": args.peers, "base": sides["base"], "new": sides["new"], "ratios": ratios,
                      "ratio_medians": {k: statistics.median(v) for k, v in ratios.items()}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
