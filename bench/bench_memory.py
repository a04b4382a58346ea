#!/usr/bin/env python3
"""A peer's memory over a long game (issue 14: "≤ 50 MB, flat over 10k steps"). Prints figures,
asserts nothing.

    python bench/bench_memory.py [--steps 10000] [--peers 4] [--trace]

A synthetic session in memory: ``--peers`` lockstep sessions in one process (the lobby, the
signatures, the logs on disk and the sessions' catch-up history are the real ones; the engine
is the test suite's dice race, ``tests/p2p/fake_engine.py``, whose games last as long as one
asks, with a hash chain long enough for them). The events and sent messages are dropped as a
node drops them once handled. Every 250 steps the process's resident set (``/proc/self/statm``)
is sampled; the figure is its growth per step and per peer over the second half of the game
(least squares), next to the same game with the catch-up history kept wholly in memory as
before issue 14 (``CatchUp.use_log`` disabled): the ``before`` and ``after`` runs are fresh
child processes, started one after the other in this run. ``--trace``: tracemalloc's 12
biggest growths between 25 % and 75 % of the game instead (slow).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "p2p"))

_PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def rss_kb() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE_KB


def slope(points: list[tuple[int, int]]) -> float:
    """Least-squares slope of kB over steps."""
    n = len(points)
    if n < 2:
        return 0.0
    mx = sum(s for s, _ in points) / n
    my = sum(k for _, k in points) / n
    den = sum((s - mx) ** 2 for s, _ in points)
    return sum((s - mx) * (k - my) for s, k in points) / den if den else 0.0


def exchange(sess: list, choose, now: float) -> bool:
    """One in-memory lockstep round for the benches: every session that waits for local input
    gets ``choose(session)``, every queued message reaches every other session at ``now`` (s),
    events are drained. Returns whether anything moved (else the caller advances time)."""
    moved = False
    for s in sess:
        if s.needs_local_input() is not None:
            s.submit_local_input(choose(s), now=now)
            moved = True
    for i, s in enumerate(sess):
        for raw in s.messages_to_send():
            moved = True
            for j, o in enumerate(sess):
                if j != i:
                    o.receive_message(raw, now)
        while s.next_event() is not None:
            pass
    return moved


def run_game(steps: int, peers: int, history_in_memory: bool, trace: bool) -> dict:
    """One synthetic game of at least ``steps`` steps; RSS samples and figures."""
    import fake_engine as E
    from p2p_harness import make_lobbies, pump_lobbies, random_legal

    from p2p.catchup import CatchUp
    from p2p.gamelog import LogWriter

    if history_in_memory:
        CatchUp.use_log = lambda self, path: None  # before issue 14: every record in memory
    # The race moves ~1.75 squares per turn of 2 steps; the target ends the game past `steps`.
    lobbies = make_lobbies(peers, edition="race", options={"target": steps}, chain=steps + 64)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    d = tempfile.mkdtemp(prefix="lanopoli-bench-memory-")
    writers = [LogWriter(os.path.join(d, f"{i}.log"), lob.log_header()) for i, lob in enumerate(ordered)]
    sess = [lob.start_session(E, log=w) for lob, w in zip(ordered, writers)]
    del lobbies, ordered
    choose = random_legal(E, seed=1)
    samples: list[tuple[int, int]] = []
    snaps: dict = {}
    now, next_sample = 0.0, 0
    t0 = time.perf_counter()
    while sess[0].phase == "running" and sess[0].step < steps:
        moved = exchange(sess, choose, now)
        if not moved:
            timers = [t for s in sess if (t := s.get_timer()) is not None]
            if not timers:
                break
            now = max(now, min(timers))
            for s in sess:
                t = s.get_timer()
                if t is not None and t <= now:
                    s.handle_timer(now)
        step = sess[0].step
        if step >= next_sample:
            samples.append((step, rss_kb()))
            next_sample += 250
        if trace:
            import tracemalloc

            if step >= steps // 4 and "a" not in snaps:
                tracemalloc.start(4)
                snaps["a"] = (tracemalloc.take_snapshot(), step)
            if step >= 3 * steps // 4 and "b" not in snaps:
                snaps["b"] = (tracemalloc.take_snapshot(), step)
    wall = time.perf_counter() - t0
    for w in writers:
        w.close()
    out = {"history_in_memory": history_in_memory, "steps": sess[0].step, "peers": peers,
           "wall_s": round(wall, 1), "rss_first_kb": samples[0][1], "rss_last_kb": samples[-1][1],
           "max_rss_kb": max(k for _, k in samples),
           "kb_per_step_per_peer": round(slope(samples[len(samples) // 2:]) / peers, 4),
           "history_payloads_in_memory": sess[0].catchup.history.in_memory,
           "history_stats": sess[0].catchup.history.stats}
    if trace and "b" in snaps:
        (a, sa), (b, sb) = snaps["a"], snaps["b"]
        top = []
        for st in b.compare_to(a, "traceback")[:12]:
            top.append({"bytes_per_step": round(st.size_diff / (sb - sa), 1), "count": st.count_diff,
                        "where": st.traceback.format()[-2:]})
        out["growth"] = top
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=10_000)
    ap.add_argument("--peers", type=int, default=4)
    ap.add_argument("--trace", action="store_true")
    ap.add_argument("--child", choices=("before", "after"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        print(json.dumps(run_game(a.steps, a.peers, a.child == "before", a.trace)), flush=True)
        return 0
    res = {}
    for which in ("before", "after"):
        cmd = [sys.executable, os.path.abspath(__file__), "--child", which, "--steps", str(a.steps),
               "--peers", str(a.peers)] + (["--trace"] if a.trace else [])
        line = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        res[which] = json.loads(line)
        r = res[which]
        print(f"{which:6}: {r['steps']} steps, {r['peers']} sessions in one process: RSS {r['rss_first_kb'] / 1024:.1f}"
              f" -> {r['rss_last_kb'] / 1024:.1f} MB, {r['kb_per_step_per_peer']:+.3f} kB/step per peer "
              f"(2nd half), history payloads in memory {r['history_payloads_in_memory']}, {r['wall_s']} s",
              flush=True)
        for g in r.get("growth", []):
            print(f"        {g['bytes_per_step']:8.1f} B/step  {g['where']}")
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
