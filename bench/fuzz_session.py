#!/usr/bin/env python3
"""Fuzz figures (protocol.md §C1): N random/mutated datagrams at a running 3-seat session (default
100,000), then the game is played to the end and all seats must agree; M mutated logs through
verify_log (default 3,000). Prints JSON lines with counts and rates.

    python bench/fuzz_session.py [--n 100000] [--logs 3000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "p2p"))

import fake_engine as E  # noqa: E402
from fuzzing import fuzz_logs, fuzz_session  # noqa: E402
from p2p.gamelog import LogWriter  # noqa: E402
from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--logs", type=int, default=3000)
    a = ap.parse_args()
    t = time.perf_counter()
    fz, _ = fuzz_session(a.n)
    wall = time.perf_counter() - t
    finals = fz.finish()
    print(json.dumps({"what": "session fuzz", "datagrams": fz.sent, "wall_s": round(wall, 2),
                      "per_s": round(fz.sent / wall), "phase_after": fz.sessions[0].phase,
                      "game_finished_agreed": len(set(finals)) == 1 and all(s.phase == "finished" for s in fz.sessions),
                      "counts": dict(fz.counts())}), flush=True)
    d = tempfile.mkdtemp()
    lobbies = make_lobbies(3, options={"target": 15})
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    path = os.path.join(d, "g.log")
    w = LogWriter(path, ordered[0].log_header())
    Net([l.start_session(E, log=w if i == 0 else None) for i, l in enumerate(ordered)], random_legal(E, seed=1)).run()
    w.close()
    t = time.perf_counter()
    counts = fuzz_logs(path, a.logs)
    wall = time.perf_counter() - t
    print(json.dumps({"what": "verify_log fuzz", "logs": a.logs, "wall_s": round(wall, 2),
                      "per_s": round(a.logs / wall), "outcomes": dict(counts)}), flush=True)


if __name__ == "__main__":
    main()
