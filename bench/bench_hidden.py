"""Benchmark of the hidden-information layer (protocol.md §C12). Prints figures;
asserts nothing. Run: /work/venv/bin/python bench/bench_hidden.py [--games N] [--no-network]

1. Commitments: time to derive and hash one seat's leaves for the whole money supply (352
   bills + 12 Imprevisti pairs) and the size they add to SETUP_SIG.
2. Bytes per step: a 4-peer niente game on the in-memory network; size of the hidden field in
   every STEP message (deliveries, openings, complaint), per step and at most; messages added
   (none: deliveries ride in the STEP message).
3. Over the network: `lanopoli demo --peers 4` for classico and niente-e-come-sembra with the
   same seeds; wall time per step and per game.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "p2p"))

import engine as E  # noqa: E402
from engine.bots import _niente  # noqa: E402
from p2p.hidden import hidden_secret, layout_for_setup, make_leaves  # noqa: E402
from p2p.lockstep import StepApplied  # noqa: E402
from p2p.wire import pack  # noqa: E402


def commitments() -> None:
    from p2p_harness import make_lobbies
    lob = make_lobbies(4, edition="niente-e-come-sembra")
    host = next(iter(lob.values()))
    from p2p.lobby import Lobby  # noqa: F401
    from p2p_harness import pump_lobbies
    t = time.perf_counter()
    pump_lobbies(lob)
    t_lobby = time.perf_counter() - t
    setup = host.setup
    t = time.perf_counter()
    lay = layout_for_setup(setup)
    t_layout = time.perf_counter() - t
    hs = hidden_secret(b"\x01" * 32)
    n = 20
    t = time.perf_counter()
    for _ in range(n):
        leaves = make_leaves(hs, setup.game_id, 0, lay.items)
    t_leaves = (time.perf_counter() - t) / n
    print(f"commitments: {lay.bills} bills + {lay.pairs} pairs = {lay.items} leaves per seat, "
          f"{len(leaves)} bytes in SETUP_SIG; derive+hash {t_leaves * 1e3:.2f} ms per seat, "
          f"layout {t_layout * 1e3:.2f} ms; whole 4-seat lobby in memory {t_lobby * 1e3:.1f} ms")


def per_step(games: int) -> None:
    from p2p_harness import Net, make_lobbies, pump_lobbies
    sizes, steps, maxes, insp = [], 0, 0, 0
    for g in range(games):
        lob = make_lobbies(4, edition="niente-e-come-sembra", demo_seed=b"bench-%d" % g)
        pump_lobbies(lob)
        ordered = sorted(lob.values(), key=lambda l: l.my_seat)
        sessions = [l.start_session(E) for l in ordered]
        net = Net(sessions, lambda s: _niente.choose(s.state, s.my_seat, "default", s.private_view()))
        net.run(max_time=1e6, max_rounds=5_000_000)
        for _, raw in net.sent_log:
            from p2p.wire import open_envelope, decode_step_body
            env = open_envelope(raw, 65536)
            if env.mtype != 16:
                continue
            b = decode_step_body(env.body)
            if b.hidden is not None:
                sz = len(pack([list(b.hidden[0]), b.hidden[1], b.hidden[2]]))
                sizes.append(sz)
                maxes = max(maxes, len(raw))
        steps += sessions[0].step
        insp += sum(1 for e in net.events[0] if isinstance(e, StepApplied) and e.kind == "inspection")
    print(f"per step ({games} games, {steps} steps, {insp} inspection steps): hidden field "
          f"mean {statistics.mean(sizes):.1f} B, median {statistics.median(sizes):.0f} B, max {max(sizes)} B "
          f"per STEP message (x3 recipients each); largest STEP envelope {maxes} B (limit 1200); "
          f"extra messages per step: 0")


def in_memory(games: int) -> None:
    """CPU per step of the whole p2p path (sign, verify, apply, hidden layer) without sockets."""
    from engine import bots
    from p2p_harness import Net, make_lobbies, pump_lobbies
    res = {}
    for ed in ("classico", "niente-e-come-sembra"):
        t_all, steps = 0.0, 0
        for g in range(games):
            lob = make_lobbies(4, edition=ed, demo_seed=b"mem-%d" % g)
            pump_lobbies(lob)
            sessions = [l.start_session(E) for l in sorted(lob.values(), key=lambda l: l.my_seat)]
            ch = ((lambda s: _niente.choose(s.state, s.my_seat, "default", s.private_view()))
                  if ed != "classico" else (lambda s: bots.choose(s.state, s.my_seat)))
            net = Net(sessions, ch)
            t = time.perf_counter()
            net.run(max_time=1e6, max_rounds=5_000_000)
            t_all += time.perf_counter() - t
            steps += sessions[0].step
        res[ed] = t_all / steps
        print(f"in memory {ed}: {t_all / steps * 1e3:.3f} ms per step for 4 peers ({steps} steps)")
    print(f"in-memory slowdown per step niente / classico: {res['niente-e-come-sembra'] / res['classico']:.2f}x")


def network(seeds: list[str]) -> None:
    out = {}
    for ed in ("classico", "niente-e-come-sembra"):
        per, tot = [], []
        for seed in seeds:
            with tempfile.TemporaryDirectory() as d:
                t = time.perf_counter()
                p = subprocess.run([sys.executable, "-m", "ui.cli", "--lang", "en", "demo", "--edition", ed,
                                    "--peers", "4", "--seed", seed, "--log-dir", d, "--timeout", "240"],
                                   cwd=ROOT, capture_output=True, text=True)
                wall = time.perf_counter() - t
                if p.returncode != 0:
                    print(ed, seed, "failed", p.stdout[-500:], p.stderr[-500:])
                    continue
                log = re.search(r"^  peer-\d+ \(seat \d+\): (.+)$", p.stdout, re.M).group(1)
                v = json.loads(subprocess.run([sys.executable, "-m", "ui.cli", "verify", log, "--json"], cwd=ROOT,
                                              capture_output=True, text=True).stdout)
                per.append(wall / v["steps"])
                tot.append((wall, v["steps"]))
        out[ed] = (statistics.mean(per), tot)
        print(f"network {ed}: {statistics.mean(per) * 1e3:.2f} ms per step (wall, demo incl. start-up), "
              f"games (s, steps): {[(round(w, 2), s) for w, s in tot]}")
    c, n = out["classico"][0], out["niente-e-come-sembra"][0]
    print(f"slowdown per step niente / classico: {n / c:.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--no-network", action="store_true")
    a = ap.parse_args()
    commitments()
    per_step(a.games)
    in_memory(a.games)
    if not a.no_network:
        network([f"bench-hidden-{i}" for i in range(a.games)])


if __name__ == "__main__":
    main()
