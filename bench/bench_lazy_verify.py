#!/usr/bin/env python3
"""Signatures checked when used (protocol.md §C3.7): CPU per step and peer of an in-memory
lockstep game (N sessions in this one process, real engine, classico) with every STEP verified
on receipt (``eager``: no channel key given, as before), deferred on its seat's own channel
(``deferred``: the sweep before the final attestation, the MAX_DEFERRED overflow checks), and
deferred with no check at all (``no_sweep``: the upper bound, what the hot path alone saves;
not a mode the code has). Games alternate (eager, deferred, no_sweep, eager...) on the same
seed, so the machine's load falls on all three alike; process CPU, not wall time. Prints one
JSON line per game and a summary line of medians and ratios to eager (asserts nothing).

    python bench/bench_lazy_verify.py [--n 4] [--games 3] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# This checkout's packages first (a worktree of another commit measures its own code).
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "p2p"))

import engine as E  # noqa: E402
from p2p import step_auth  # noqa: E402
from p2p.lockstep import LockstepSession  # noqa: E402

from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal  # noqa: E402

MODES = ("eager", "deferred", "no_sweep")


class _KeyedNet(Net):
    """Deliveries name the sender's setup X25519 key, as ``Node._on_message`` does."""

    def __init__(self, sessions, choose):
        super().__init__(sessions, choose)
        self.xkeys = [p.x25519_key for p in sessions[0].setup.players]

    def send_to(self, src, dst, raw):
        dst.receive_message(raw, self.now, self.xkeys[src])


def game(n: int, seed: int, mode: str) -> dict:
    """One in-memory game of ``n`` seats in ``mode``; its CPU per step and peer (ms)."""
    lobbies = make_lobbies(n, edition="classico", demo_seed=b"lazy-%d" % seed)
    pump_lobbies(lobbies)
    sessions = [lob.start_session(E) for lob in sorted(lobbies.values(), key=lambda lob: lob.my_seat)]
    net = (Net if mode == "eager" else _KeyedNet)(sessions, random_legal(E, seed=seed))
    saved = LockstepSession.settle_signatures, step_auth.MAX_DEFERRED
    if mode == "no_sweep":
        LockstepSession.settle_signatures = lambda self, upto=None, limit=None: 0
        step_auth.MAX_DEFERRED = 10 ** 9
    try:
        cpu = time.process_time()
        net.run(max_time=1e9, max_rounds=10_000_000)
        cpu = time.process_time() - cpu
    finally:
        LockstepSession.settle_signatures, step_auth.MAX_DEFERRED = saved
    steps = sessions[0].step
    hashes = {s.state_hash for s in sessions}
    return {"mode": mode, "peers": n, "seed": seed, "steps": steps, "one_final_hash": len(hashes) == 1,
            "deferred": sum(s.stats.get("deferred", 0) for s in sessions),
            "checked_later": sum(s.auth.stats["checked_later"] for s in sessions),
            "cpu_ms_per_step_per_peer": round(1000 * cpu / (steps * n), 4)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--games", type=int, default=3, help="games per mode, alternating")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    cpu: dict = {m: [] for m in MODES}
    for g in range(a.games):
        for mode in MODES:
            r = game(a.n, a.seed + g, mode)
            cpu[mode].append(r["cpu_ms_per_step_per_peer"])
            print(json.dumps(r), flush=True)
    med = {m: statistics.median(v) for m, v in cpu.items()}
    print(json.dumps({"peers": a.n, "median_cpu_ms_per_step_per_peer": med,
                      "ratio_to_eager": {m: round(med[m] / med["eager"], 3) for m in MODES}}), flush=True)


if __name__ == "__main__":
    main()
