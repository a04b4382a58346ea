#!/usr/bin/env python3
"""An 8-peer game through a CPU starvation made on purpose (issue 14): does it crawl after it?

    python bench/bench_starvation.py [--peers 8] [--seed rows-2] [--chaos 8] [--stop-max 0.6]
                                     [--rseed 1] [--base-root DIR]

A demo game (``ui.demo.run_demo``, counting children ``bench/_net_child.py``, loopback only)
runs ``--at`` s; then for ``--chaos`` s random peers are stopped (SIGSTOP) for 20 ms to
``--stop-max`` s each, one every 0-0.2 s (``random.Random(--rseed)``: the same schedule each
run), then every peer continues (SIGCONT); or, with ``--hogs N``, N busy-looping processes run
for ``--chaos`` s instead (no peer stopped, all of them wait for a core). It prints, per second from the first stop on, the
slowest peer's step, steps/s and the payloads sent by all peers (from the children's progress
lines, ``sent``) per step, then the run's transport and session counters (summed over peers).
A clean 8-peer step is 56 STEP payloads.

``--base-root DIR`` runs the same schedule first with the peers of another checkout (e.g. a
``git archive`` of the commit before a change, whose ``bench/_net_child.py`` puts it first on
``sys.path``), then with this one: an A/B in one run. The machine's load changes the figures
a lot; compare the two of one run, and several runs.

Measured (2 cores shared, load 12-27; base 9c1a98a, after = OwnStep.answer's rule, §C3.4):
during the 8 s of stops 2,000-2,800 payloads/s before, 400-1,000 after; session answers
2,395 / 2,113 per game before, 280 / 235 after; STEP payloads per 800-step game 62.7k /
60.7k before, 47.9k / 47.6k after (44.8k without a stop). Once (load 27) the game before
crawled at 1 step per 4-5 s with ~2,000 payloads/s for the 80 s it had left. With ``--hogs 8``
/ ``--hogs 12``: 13 / 9 re-sends became 591 / 480 answers before, 0 / 15 after (bench/README.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))

import bench_rows  # noqa: E402  (bench/ on the path above)


def run(args: argparse.Namespace, child: Path) -> dict:
    """One game with the starvation schedule; its per-second rows and summed counters."""
    from ui.demo import DemoOptions, run_demo

    tmp = Path(tempfile.mkdtemp(prefix="lanopoli-starve-"))
    out = tmp / "out"
    out.mkdir()
    keys = tmp / "keys"
    keys.mkdir()
    opts = DemoOptions(peers=args.peers, seed=args.seed, edition="classico", log_dir=tmp / "game",
                       timeout_s=args.timeout, lang="en", python=bench_rows._child_python(tmp, child))
    os.environ["LANOPOLI_BENCH_OUT"] = str(out)
    t0 = time.monotonic()
    timeline: list[tuple[float, list, int]] = []  # (s since start, each peer's step, payloads sent)
    state: dict = {}

    def starve(peers: list) -> None:
        loop = asyncio.get_running_loop()
        if args.hogs:  # CPU hogs instead of stops: every peer waits for a core, none is stopped
            import subprocess

            hogs = state["hogs"] = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                                    for _ in range(args.hogs)]
            loop.call_later(args.chaos, lambda: [h.kill() for h in hogs])
            return
        rng = random.Random(args.rseed)
        t = 0.0
        while t < args.chaos:
            pid = peers[rng.randrange(len(peers))].pid
            loop.call_later(t, os.kill, pid, signal.SIGSTOP)
            loop.call_later(t + rng.uniform(0.02, args.stop_max), os.kill, pid, signal.SIGCONT)
            t += rng.uniform(0.0, 0.2)

        def go_on() -> None:
            for p in peers:
                os.kill(p.pid, signal.SIGCONT)

        loop.call_later(args.chaos + args.stop_max + 0.01, go_on)

    def update(peers: list) -> None:
        now = time.monotonic() - t0
        progress = [p.progress or {} for p in peers]
        steps = [m.get("step") for m in progress]
        timeline.append((now, steps, sum(sum((m.get("sent") or {}).values()) for m in progress)))
        if "first" not in state and any(s is not None for s in steps):
            state["first"] = now
        if "stop" not in state and "first" in state and now - state["first"] >= args.at:
            state["stop"] = now
            starve(peers)

    try:
        outcome = asyncio.run(run_demo(opts, keys, update))
    finally:
        os.environ.pop("LANOPOLI_BENCH_OUT", None)
        for h in state.get("hogs", ()):  # the game may end before the hogs' time is up
            h.kill()
            h.wait()
    rows = []
    stop = state.get("stop", 0.0)
    t = stop - 2.0
    while timeline and t < timeline[-1][0]:
        a = [x for x in timeline if x[0] <= t]
        b = [x for x in timeline if x[0] <= t + 1]
        if a and b and all(s is not None for s in a[-1][1]) and all(s is not None for s in b[-1][1]):
            s0, s1 = min(a[-1][1]), min(b[-1][1])
            sent = b[-1][2] - a[-1][2]
            rows.append((round(t - stop, 1), s1, s1 - s0, sent, sent / max(1, s1 - s0)))
        t += 1.0
    counters: dict[str, int] = {}
    for f in out.glob("*.json"):
        c = json.loads(f.read_text())
        for prefix, d in (("", c["transport"]), ("session.", c["session"])):
            for k, v in d.items():
                if isinstance(v, int) and v:
                    counters[prefix + k] = counters.get(prefix + k, 0) + v
        for k, v in c["sent_by_type"].items():
            name = "sent." + bench_rows.TYPE_NAMES.get(int(k), str(k))
            counters[name] = counters.get(name, 0) + v
    return {"ok": outcome.ok, "rows": rows, "counters": counters, "dir": str(tmp)}


def show(label: str, r: dict) -> None:
    print(f"== {label}: finished {r['ok']} (logs {r['dir']})")
    print("  t(s)  step  steps/s  payloads/s  per step")
    for t, step, rate, sent, per in r["rows"]:
        print(f"{t:6.1f} {step:5} {rate:8} {sent:11} {per:9.1f}")
    keys = ("sent.STEP", "sent.HINT", "session.answered", "session.answer_needless", "session.resent",
            "session.duplicate", "retransmits", "timeouts", "copies_sent", "pure_acks_sent", "datagrams_sent")
    print("  " + ", ".join(f"{k} {r['counters'].get(k, 0)}" for k in keys))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--peers", type=int, default=8)
    ap.add_argument("--seed", default="rows-2")
    ap.add_argument("--at", type=float, default=2.0, help="s after the first progress line")
    ap.add_argument("--chaos", type=float, default=8.0, help="s of random stops")
    ap.add_argument("--stop-max", type=float, default=0.6, help="longest stop of one peer (s)")
    ap.add_argument("--rseed", type=int, default=1)
    ap.add_argument("--hogs", type=int, default=0, help="instead of stops: this many busy processes")
    ap.add_argument("--timeout", type=float, default=60.0, help="s before the demo gives up")
    ap.add_argument("--base-root", help="another checkout: its peers first, same schedule")
    args = ap.parse_args(argv)
    if args.base_root:
        show("base " + args.base_root, run(args, Path(args.base_root) / "bench" / "_net_child.py"))
    show("this checkout", run(args, bench_rows.CHILD))
    return 0


if __name__ == "__main__":
    sys.exit(main())
