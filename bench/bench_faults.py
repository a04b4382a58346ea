#!/usr/bin/env python3
"""Figures for the resilience note: real peer processes on loopback, faults injected by the
node's transport (p2p/faults.py), protocol.md §N5-§6.

1. The loss rates at which a 4-peer game still finishes (``lanopoli demo --loss P``, one
   seed, each run with a deadline), and its wall time; slowdown at 5% and 20% loss against
   no loss (the same seed: the same game, so the same number of steps).
2. Catch-up: a 4-peer game, one peer SIGKILLed past step 500+K, its log cut back by 500 step
   records (at a record boundary, as if it had crashed 500 steps ago), restarted: time from
   the restart to its ``caught_up`` lines reaching the step the others wait at, and steps/s.
3. The fuzz count: runs ``bench/fuzz_session.py`` (random and mutated datagrams at a running
   session, mutated logs through verify) and prints its figures.

    python bench/bench_faults.py [--losses 0,0.05,0.2,0.4,0.6] [--seed S] [--fuzz 20000]

Prints one JSON object per figure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from conftest import PeerProc  # noqa: E402
from p2p.gamelog import LogReader  # noqa: E402
from p2p.identity import Identity  # noqa: E402
from ui.demo import host_join_code  # noqa: E402

HASH = re.compile(r"^final state hash: ([0-9a-f]{64})$", re.M)
STEPS = re.compile(r"^Steps: (\d+)$", re.M)


def demo(seed: str, loss: float, deadline: float, log_dir: Path) -> dict:
    t0 = time.monotonic()
    try:
        p = subprocess.run([sys.executable, "-m", "ui.cli", "--lang", "en", "demo", "--peers", "4", "--seed", seed,
                            "--log-dir", str(log_dir), "--timeout", str(deadline), "--loss", repr(loss)],
                           cwd=ROOT, capture_output=True, text=True, timeout=deadline + 60)
        ok = p.returncode == 0
        out = p.stdout
    except subprocess.TimeoutExpired:
        ok, out = False, ""
    h, s = HASH.search(out), STEPS.search(out)
    return {"loss": loss, "finished": ok, "wall_s": round(time.monotonic() - t0, 2),
            "steps": int(s.group(1)) if s else None, "final_state_hash": h.group(1) if h else None}


def loss_figures(seed: str, losses: list[float], deadline: float, tmp: Path) -> None:
    runs = [demo(seed, p, deadline, tmp / f"loss-{p}") for p in losses]
    for r in runs:
        print(json.dumps({"figure": "demo_under_loss", **r}), flush=True)
    base = next((r for r in runs if r["loss"] == 0 and r["finished"]), None)
    finished = [r["loss"] for r in runs if r["finished"]]
    out = {"figure": "loss_summary", "highest_loss_finished": max(finished) if finished else None,
           "same_game_at_every_finished_rate": len({r["final_state_hash"] for r in runs if r["finished"]}) == 1}
    if base is not None:
        for r in runs:
            if r["finished"] and r["loss"] in (0.05, 0.2):
                out[f"slowdown_at_{int(r['loss'] * 100)}pct"] = round(r["wall_s"] / base["wall_s"], 2)
    print(json.dumps(out), flush=True)


def catch_up_figure(seed: str, missed: int, tmp: Path, tries: int = 6) -> None:
    """Games shorter than ``missed`` + 20 steps are retried with another seed."""
    for t in range(tries):
        if _catch_up_once(f"{seed}-{t}", missed, tmp / f"try-{t}"):
            return
    print(json.dumps({"figure": "catch_up", "error": f"no game of {missed + 20} steps in {tries} seeds"}))


def _catch_up_once(seed: str, missed: int, tmp: Path) -> bool:
    argv = []
    for i in range(4):
        common = ["--bind", "127.0.0.1", "--progress-json", "--seed", f"{seed}-cu-{i}", "--log-dir",
                  str(tmp / f"cu-{i}"), "--config-dir", str(tmp / f"cu-k{i}"), "--timeout", "600"]
        argv.append(common)
    argv[0] = ["host", "--seats", "4", "--drop-timeout", "300", *argv[0]]
    procs = [PeerProc(argv[0])]
    hosting = procs[0].wait_for(lambda m: m["type"] == "hosting", 60)
    # By the host's join code (address + its key, as `lanopoli demo` since H78), not by game id over
    # mDNS: two runs at once on one machine never join each other's game.
    code = host_join_code(hosting, Identity.from_seed(f"{seed}-cu-0".encode("utf-8")).public_key)
    for i in (1, 2, 3):
        argv[i] = ["join", "--code", code, *argv[i]]
        procs.append(PeerProc(argv[i]))
    try:
        victim = procs[3]
        try:
            victim.wait_for(lambda m: m["type"] == "progress" and m["step"] >= missed + 20, 600)
        except AssertionError:
            return False  # the game ended first
        victim.proc.send_signal(signal.SIGKILL)
        victim.proc.wait()
        time.sleep(0.5)  # the others reach the step they will wait at
        (log,) = (tmp / "cu-3").glob("game-*.log")
        recs = list(LogReader(log))
        at = len(recs) - 1  # step records (header excluded)
        keep = recs[at - missed]  # first record to cut: `missed` step records before the end
        with open(log, "r+b") as f:
            f.truncate(keep.offset)
        t0 = time.monotonic()
        again = PeerProc(argv[3])
        resumed = again.wait_for(lambda m: m["type"] == "resumed", 60)
        t_resumed = time.monotonic()
        target = resumed["step"] + missed
        again.wait_for(lambda m: m["type"] == "caught_up" and m["to_step"] >= target, 600)
        t_done = time.monotonic()
        print(json.dumps({"figure": "catch_up", "missed_steps": missed, "resumed_at_step": resumed["step"],
                          "restart_to_caught_up_s": round(t_done - t0, 2),
                          "process_start_to_resumed_s": round(t_resumed - t0, 2),
                          "catch_up_s": round(t_done - t_resumed, 2),
                          "steps_per_s": round(missed / max(t_done - t_resumed, 1e-9))}), flush=True)
        for p in procs[:3] + [again]:
            p.finish(600)
        hashes = {p.of_type("done")[-1]["final_state_hash"] for p in procs[:3] + [again] if p.of_type("done")}
        print(json.dumps({"figure": "catch_up_game_agreed", "agreed": len(hashes) == 1}), flush=True)
        return True
    finally:
        for p in procs + ([again] if "again" in locals() else []):
            if p.proc.poll() is None:
                p.proc.kill()
                p.proc.wait()


def fuzz_figure(n: int, logs: int) -> None:
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "fuzz_session.py"), "--n", str(n), "--logs", str(logs)],
                       cwd=ROOT, capture_output=True, text=True, timeout=3600)
    for line in p.stdout.splitlines():
        print(json.dumps({"figure": "fuzz", **json.loads(line)}) if line.startswith("{") else line, flush=True)
    if p.returncode != 0:
        print(json.dumps({"figure": "fuzz", "error": p.stderr[-500:]}), flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--losses", default="0,0.05,0.2,0.4,0.6", help="loss rates to try, comma-separated")
    ap.add_argument("--seed", default=f"bench-faults-{os.getpid()}")
    ap.add_argument("--deadline", type=float, default=300.0, help="seconds per demo before it counts as failed")
    ap.add_argument("--missed", type=int, default=500, help="steps the restarted peer has to catch up")
    ap.add_argument("--fuzz", type=int, default=20_000, help="datagrams for fuzz_session.py (0: skip)")
    ap.add_argument("--fuzz-logs", type=int, default=500)
    ap.add_argument("--skip", default="", help="comma-separated: loss,catchup,fuzz")
    args = ap.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    with tempfile.TemporaryDirectory(prefix="lanopoli-bench-faults-") as d:
        tmp = Path(d)
        if "loss" not in skip:
            loss_figures(args.seed, [float(x) for x in args.losses.split(",")], args.deadline, tmp)
        if "catchup" not in skip:
            catch_up_figure(args.seed, args.missed, tmp)
        if "fuzz" not in skip and args.fuzz:
            fuzz_figure(args.fuzz, args.fuzz_logs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
