#!/usr/bin/env python3
"""Catch-up of a restarted peer, in memory (issue 14: "≥ 1,000 steps/s"). Prints figures,
asserts nothing.

    python bench/bench_catchup.py [--peers 4] [--steps 600] [--missed 500] [--profile] [--net N]

Four lockstep sessions (real engine, classico, random legal inputs; logs on disk) play
``--steps`` steps; seat ``peers-1`` is then "killed": its log is cut ``--missed`` step records
before its end and it is restarted with ``resume.resume_session`` (replay, CATCHUP_REQ). Its
messages reach the others and theirs reach it, in memory, on a virtual clock that jumps to the
clock that runs with the wall clock and jumps ahead to the next timer when nothing moves (the
others wait at the step where the victim died). Two rates:

* **steps/s** — missed steps / (wall seconds + seconds jumped): the catch-up with every rule of
  §C9 (page sizes, pages in flight, the responders' rate limits, timeouts) and zero network
  latency;
* **CPU-limited** — missed steps / wall seconds: what one core does (the responders' work is
  included: all sessions share this process, so it is a lower bound for the requester alone);
  ``catch_up_cpu_s`` is the CPU time of all the process's threads meanwhile (the page
  signatures are checked on both cores, ``identity.verify_many``: CPU time above wall time is
  the second core at work; far below it, the machine's other load).

With ``--net N`` the same run also measures the real thing N times: 4 peer processes on
127.0.0.1 play a bot game, one is SIGKILLed past step ``missed`` + 20, its log cut back by
``missed`` step records (as if it had died ``missed`` steps ago while the others waited at
their step) and restarted; steps/s = ``missed`` / (first ``caught_up`` progress line at the
others' step − its ``resumed`` line) (``bench/bench_faults.py``'s "catch_up" figure, run as a
subprocess). Printed beside the in-memory figure: min, median and max of the N runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "p2p"))
from bench_memory import exchange  # noqa: E402 - the same in-memory round as the memory bench


def play(peers: int, steps: int, d: str) -> tuple[list, list, list]:
    """Sessions at step ``steps`` (or the game's end), their lobbies and log paths."""
    import engine as E
    from p2p_harness import make_lobbies, pump_lobbies, random_legal

    from p2p.gamelog import LogWriter

    lobbies = make_lobbies(peers, edition="classico", chain=4096)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    paths = [os.path.join(d, f"{i}.log") for i in range(peers)]
    writers = [LogWriter(p, lob.log_header()) for p, lob in zip(paths, ordered)]
    sess = [lob.start_session(E, log=w) for lob, w in zip(ordered, writers)]
    choose = random_legal(E, seed=7)
    now = 0.0
    while sess[0].phase == "running" and min(s.step for s in sess) < steps:
        moved = exchange(sess, choose, now)
        if not moved:
            now = _advance(sess, now)
            if now is None:
                break
    return sess, ordered, paths


def _advance(sess: list, now: float) -> float | None:
    timers = [t for s in sess if (t := s.get_timer()) is not None]
    if not timers:
        return None
    now = max(now, min(timers))
    for s in sess:
        t = s.get_timer()
        if t is not None and t <= now:
            s.handle_timer(now)
    return now


def catch_up(peers: int, steps: int, missed: int, profile: bool) -> dict:
    import engine as E

    from p2p.gamelog import LogReader
    from p2p.lockstep import CaughtUp
    from p2p.resume import resume_session

    d = tempfile.mkdtemp(prefix="lanopoli-bench-catchup-")
    sess, lobbies, paths = play(peers, steps, d)
    victim = peers - 1
    head = sess[0].step
    sess[victim].log.close()
    recs = list(LogReader(paths[victim]))
    cut = recs[max(1, len(recs) - missed)]
    with open(paths[victim], "r+b") as f:
        f.truncate(cut.offset)
    now = 1000.0
    t0 = time.perf_counter()
    new, rep = resume_session(paths[victim], lobbies[victim].identity, lobbies[victim].chain_secret, E, now=now)
    t_replay = time.perf_counter() - t0
    start = new.step
    others = [s for i, s in enumerate(sess) if i != victim]
    pages = caught = 0
    prof = None
    if profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
    t0, skipped, c0 = time.perf_counter(), 0.0, time.process_time()
    for _ in range(1_000_000):
        now = 1000.0 + skipped + time.perf_counter() - t0
        if new.step >= head or new.phase != "running":
            break
        moved = False
        for raw in new.messages_to_send():
            moved = True
            for o in others:
                o.receive_message(raw, now)
        for o in others:
            for raw in o.messages_to_send():
                moved = True
                pages += raw[:1] != b""  # every envelope counts; CATCHUP_RESP dominate
                new.receive_message(raw, now)
            while o.next_event() is not None:
                pass
        while (e := new.next_event()) is not None:
            caught += isinstance(e, CaughtUp)
        if not moved:
            later = _advance([new, *others], now)
            if later is None:
                break
            skipped += later - now
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0  # every thread's: the verify pool's too (identity.verify_many)
    if prof is not None:
        import pstats

        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
    got = new.step - start
    return {"peers": peers, "head_step": head, "resumed_at": start, "caught_up_to": new.step,
            "replay_s": round(t_replay, 3), "catch_up_wall_s": round(wall, 3), "catch_up_cpu_s": round(cpu, 3),
            "waited_for_timers_s": round(skipped, 3), "envelopes_to_requester": pages,
            "caught_up_events": caught,
            "steps_per_s_cpu": round(got / wall) if wall else None,
            "steps_per_s": round(got / (wall + skipped)) if wall + skipped else None,
            "stats": {k: v for k, v in new.stats.items() if "catchup" in k or k in ("ignored", "malformed")}}


def net_runs(runs: int, missed: int) -> list[dict]:
    """``runs`` loopback restarts (``bench_faults.py --skip loss,fuzz``), one seed each: their
    "catch_up" figures (a run whose game ended too soon is retried there with another seed)."""
    import subprocess

    out = []
    for i in range(runs):
        p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "bench_faults.py"), "--skip", "loss,fuzz",
                            "--missed", str(missed), "--seed", f"catchup-net-{i}"],
                           cwd=ROOT, capture_output=True, text=True, timeout=900)
        for line in p.stdout.splitlines():
            try:
                fig = json.loads(line)
            except ValueError:
                continue
            if fig.get("figure") == "catch_up" and "steps_per_s" in fig:
                out.append(fig)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peers", type=int, default=4)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--missed", type=int, default=500)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--net", type=int, default=0, metavar="N", help="also N restarts of real peer processes")
    a = ap.parse_args(argv)
    r = catch_up(a.peers, a.steps, a.missed, a.profile)
    print(f"in memory: caught up {r['caught_up_to'] - r['resumed_at']} steps ({r['resumed_at']} -> "
          f"{r['caught_up_to']}): {r['steps_per_s']} steps/s (wall {r['catch_up_wall_s']} s + "
          f"{r['waited_for_timers_s']} s waiting for timers), {r['steps_per_s_cpu']} steps/s of CPU "
          f"(all peers in one process)")
    if a.net:
        figs = net_runs(a.net, a.missed)
        rates = sorted(f["steps_per_s"] for f in figs)
        r["net"] = {"runs": figs, "steps_per_s": rates}
        if rates:
            print(f"loopback, 4 processes: {len(rates)} restarts caught up {a.missed} steps at "
                  f"{rates[0]} / {rates[len(rates) // 2]} / {rates[-1]} steps/s (min / median / max); "
                  f"median = {rates[len(rates) // 2] / r['steps_per_s']:.2f} x in memory")
        else:
            print("loopback: no run finished")
    print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
