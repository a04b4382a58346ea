#!/usr/bin/env python3
"""Figures for the sans-I/O p2p core (protocol.md part C): Ed25519 sign/verify rates,
lockstep steps/s of an in-memory game (N peers in one process, so every step costs N signs and
N*(N-1) verifications), and offline verify_log throughput. Prints JSON lines.

    python bench/p2p_core.py [--n 4] [--engine real|fake]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# This checkout's packages first (not the editable install's), so that a worktree of another
# commit measures its own code (A/B runs), then the test harness.
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "p2p"))

from p2p.gamelog import LogWriter  # noqa: E402
from p2p.identity import Identity, verify  # noqa: E402
from p2p.verify import verify_log  # noqa: E402


def crypto_rates(n: int = 5000) -> dict:
    ident = Identity.from_seed(b"bench")
    body = os.urandom(150)
    t = time.perf_counter()
    for _ in range(n):
        sig = ident.sign(b"step", body)
    sign_s = n / (time.perf_counter() - t)
    t = time.perf_counter()
    for _ in range(n):
        verify(ident.public_key, b"step", body, sig)
    verify_s = n / (time.perf_counter() - t)
    return {"what": "ed25519", "sign_per_s": round(sign_s), "verify_per_s": round(verify_s)}


def game(n: int, engine_name: str) -> dict:
    from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal

    if engine_name == "real":
        import engine as E
        edition, options = "classico", None
    else:
        import fake_engine as E
        edition, options = "race", {"target": 400}
    lobbies = make_lobbies(n, edition=edition, options=options)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    d = tempfile.mkdtemp()
    writers = [LogWriter(os.path.join(d, f"{i}.log"), l.log_header()) for i, l in enumerate(ordered)]
    sessions = [l.start_session(E, log=w) for l, w in zip(ordered, writers)]
    net = Net(sessions, random_legal(E, seed=1))
    t = time.perf_counter()
    cpu = time.process_time()
    net.run(max_time=1e9, max_rounds=10_000_000)
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - t
    for w in writers:
        w.close()
    steps = sessions[0].step
    rep = verify_log(os.path.join(d, "0.log"), engine=E)
    return {
        "what": "in-memory game", "engine": engine_name, "peers": n, "steps": steps,
        "wall_s": round(wall, 3),
        "steps_per_s_all_peers_in_one_process": round(steps / wall, 1),
        "steps_per_s_per_peer_cpu": round(steps * n / wall, 1),
        # Process CPU (not wall) per step and peer: steadier on a loaded machine (A/B runs).
        "cpu_ms_per_step_per_peer": round(1000 * cpu / (steps * n), 4),
        "verify_log_ok": rep.ok, "verify_log_msgs_per_s": round(rep.messages / rep.seconds),
        "verify_log_s": round(rep.seconds, 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--engine", default="both")
    a = ap.parse_args()
    print(json.dumps(crypto_rates()), flush=True)
    for e in (["fake", "real"] if a.engine == "both" else [a.engine]):
        print(json.dumps(game(a.n, e)), flush=True)


if __name__ == "__main__":
    main()
