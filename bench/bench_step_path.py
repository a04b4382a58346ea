#!/usr/bin/env python3
"""Where the wall time of one lockstep step goes, across the peer processes (issue 14, H97;
prints figures, asserts nothing).

    python bench/bench_step_path.py [--peers 4] [--games 1]
    python bench/bench_step_path.py --ab plain,before:100,after:100 [--pairs 3] [--mesh]
    python bench/bench_step_path.py --ab plain,batch --pairs 3 --mesh

Bot games on loopback (the demo the ``steps4``/``steps8`` rows play) with ``bench/_path_child.py``
time-stamping, in every peer, each STEP read, its handling and each ``sendto``
(``time.monotonic``: one clock for every process). Per step k, over the game's steady part (the
first and last ``TRIM`` steps left out), medians and 90th percentiles in µs:

* ``period``: between the last peer's first ``sendto`` of step k and of step k+1 (the round);
* ``deliver``: from a peer's ``sendto`` of its step-k message to q to q reading it (the kernel,
  q's wake-up, waiting for a core, the datagrams q handles before it);
* ``turnaround``: from q reading the message that completed step k to its first ``sendto`` of
  step k+1 (``last_peer_*``: the same for the peer that sent step k+1 last, and the delivery
  of the message that completed its step);
* ``segments`` of that turnaround by step kind: read → session inbox (transport, MAC, node) →
  resolve (decode, checks, the signature verify) → resolved (the engine applies the step) →
  commit → record (state hash, escrow acks) → recorded (log write, catch-up history, digest) →
  our message → made (encode, sign, write-ahead log) → handler returned → first ``sendto``
  (the link's flush: MAC, ``sendto``).

``--ab MODES``: games alternated between modes, ``--pairs`` rounds, each game followed by
``mesh_round`` with ``--mesh`` (same scheduling policy as the game): steps/s, the ratio, CPU ms
per step per peer. Modes: ``plain``; ``batch`` (this process and so every peer and
``mesh_round`` process under ``SCHED_BATCH``, Linux: no wake-up preemption); ``before:US`` /
``after:US`` / ``nogc`` / ``noverify`` (``_path_child.py``'s experiments: US µs of CPU spun on the
critical path or right after our message is sent; the cyclic GC off; no signature verify, an
insecure upper bound of a protocol without a verify per STEP).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_rows  # noqa: E402 - bench/, the script's own folder

CHILD = HERE / "_path_child.py"
#: Steps left out at each end of a game (start-up, the attestation round).
TRIM = 20
#: Segment boundaries of the completing message's handling, in order (``segments``).
SEGMENTS = ("read>inbox", "inbox>resolve", "resolve", "resolved>commit", "commit>record", "record",
            "recorded>own", "own", "own>returned", "returned>sendto", "total")


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


def _fig(xs: list[float]) -> dict:
    return {"n": len(xs), "p50_us": round(1e6 * _pct(xs, 50), 1), "p90_us": round(1e6 * _pct(xs, 90), 1),
            "mean_us": round(1e6 * statistics.fmean(xs), 1) if xs else None}


class Peer:
    """One peer's trace (``_path_child`` output), indexed: ``sends[(step, dest)]`` and
    ``first_send[step]`` (first ``sendto`` times), ``reads[(step, seat)]`` (first read times),
    ``done[step]`` = (read time, handled time, seat) of the message that completed the step,
    ``seat`` (ours: the one seat we never read from, -1 if unknown), ``addr``."""

    def __init__(self, trace: dict, n: int) -> None:
        self.addr = tuple(trace.get("addr", ()))
        self.sends: dict = {}
        self.first_send: dict = {}
        self.reads: dict = {}
        self.done: dict = {}
        seen = set()
        for e in trace["ev"]:
            if e[0] == "s":
                self.sends.setdefault((e[2], tuple(e[3])), e[1])
                self.first_send.setdefault(e[2], e[1])
            elif e[0] == "r":
                _, t_read, k, seat, after, t_h = e
                seen.add(seat)
                self.reads.setdefault((k, seat), t_read)
                if after is not None and after > k and k not in self.done:
                    self.done[k] = (t_read, t_h, seat)
        rest = set(range(n)) - seen
        self.seat = rest.pop() if len(rest) == 1 else -1


def analyse(traces: list[dict], trim: int = TRIM) -> dict:
    """The round's figures of one game from every peer's trace (module docstring)."""
    peers = [Peer(t, len(traces)) for t in traces]
    by_seat = {p.seat: p for p in peers}
    common = set.intersection(*(set(p.first_send) for p in peers)) - {-1}
    steps = sorted(common)
    steps = steps[trim:len(steps) - trim] if len(steps) > 3 * trim else steps
    deliver, turn, period, last_turn, last_deliver = [], [], [], [], []
    for q in peers:
        for k in steps:
            for p in peers:
                if p is not q and (k, q.addr) in p.sends and (k, p.seat) in q.reads:
                    deliver.append(q.reads[(k, p.seat)] - p.sends[(k, q.addr)])
            if k in q.done and k + 1 in q.first_send:
                turn.append(q.first_send[k + 1] - q.done[k][0])
    for k in steps:
        if k + 1 not in common:
            continue
        last = max(peers, key=lambda p: p.first_send[k + 1])
        period.append(last.first_send[k + 1] - max(p.first_send[k] for p in peers))
        if k in last.done:
            t_read, _, seat = last.done[k]
            last_turn.append(last.first_send[k + 1] - t_read)
            src = by_seat.get(seat)
            if src is not None and (k, last.addr) in src.sends:
                last_deliver.append(t_read - src.sends[(k, last.addr)])
    return {"steps": len(steps), "period": _fig(period), "deliver": _fig(deliver), "turnaround": _fig(turn),
            "last_peer_turnaround": _fig(last_turn), "last_peer_deliver": _fig(last_deliver)}


def segments(traces: list[dict]) -> dict:
    """Medians (µs) of the completing message's handling, segment by segment (``SEGMENTS``), by
    step kind ("chance", "decision", ...): only handlings with one commit, a record and our
    message in them, followed by a ``sendto``. When that ``sendto`` is inside the handling (our
    message sent as soon as it is made, ``OwnStep.on_sent``), "own" ends at that ``sendto``
    (encoded, signed, written ahead, flushed) and "own>returned", "returned>sendto" are 0."""
    rows: dict[str, dict[str, list[float]]] = {}
    for trace in traces:
        ev = trace["ev"]
        inside: list = []
        for i, e in enumerate(ev):
            if e[0] in "iolvcs":
                inside.append(e)
                continue
            if e[0] != "r":
                continue
            _, t_read, k, _, after, t_h = e
            marks = {tag: [x for x in inside if x[0] == tag] for tag in "iolvc"}
            marks_s = [x for x in inside if x[0] == "s"]
            inside = []
            if after is None or after <= k or len(marks["c"]) != 1 or not all(marks[t] for t in "iolv"):
                continue
            inbox, (_, v0, v1), commit = marks["i"][-1][1], marks["v"][0], marks["c"][0]
            (_, l0, l1), (_, o0, o1) = marks["l"][0], marks["o"][-1]
            sent = next((x for x in marks_s if x[1] >= o0), None)
            if sent is not None:  # out inside the handling (``OwnStep.on_sent``)
                o1 = t_h = sent[1]
            else:
                sent = next((x for x in ev[i + 1:i + 8] if x[0] == "s"), None)
            if sent is None:
                continue
            cuts = (t_read, inbox, v0, v1, commit[1], l0, l1, o0, o1, t_h, sent[1])
            row = rows.setdefault(commit[3], {s: [] for s in SEGMENTS})
            for name, a, b in zip(SEGMENTS, cuts, cuts[1:]):
                row[name].append(b - a)
            row["total"].append(sent[1] - t_read)
    return {kind: {"n": len(r["total"]), **{s: round(1e6 * _pct(v, 50), 1) for s, v in r.items()}}
            for kind, r in rows.items()}


def _policy(batch: bool) -> None:
    """This process (and the peers and ``mesh_round`` it starts, which inherit it) under
    ``SCHED_BATCH`` or back to ``SCHED_OTHER`` (Linux; an unprivileged process may do both)."""
    os.sched_setscheduler(0, os.SCHED_BATCH if batch else os.SCHED_OTHER, os.sched_param(0))


def ab(modes: list[str], pairs: int, peers: int, seed: str, mesh: bool, tmp: Path) -> dict:
    """Games alternated between ``modes`` (module docstring), ``pairs`` rounds: per mode the
    steps/s (game window, ``bench_rows.play``), ``mesh_round`` after each game, the ratio and
    the median CPU ms per step per peer."""
    res: dict[str, dict[str, list]] = {m: {"steps_per_s": [], "mesh_round": [], "ratio": [], "cpu_ms": []}
                                       for m in modes}
    for r in range(pairs):
        for m in modes:
            _policy(m == "batch")
            try:
                env = {} if m in ("plain", "batch") else {"LANOPOLI_PATH_EXPERIMENT": m}
                game = bench_rows.play(peers, f"{seed}-{r % 3}", tmp, env=env, child=CHILD)
                floor = bench_rows.mesh_round(peers, 2000) if mesh else None
            finally:
                _policy(False)
            rate = game["steps_per_s_to_over"] or game["steps_per_s"]
            cpu = statistics.median(bench_rows.cpu_ms_per_step(game))
            row = res[m]
            row["steps_per_s"].append(round(rate, 1))
            row["mesh_round"].append(floor)
            row["ratio"].append(round(rate / floor, 3) if floor else None)
            row["cpu_ms"].append(round(cpu, 3))
            print(f"round {r} {m:12} {game['steps']} steps {rate:7.1f} steps/s mesh_round {floor} "
                  f"ratio {row['ratio'][-1]} CPU {cpu:.3f} ms per step per peer", flush=True)
    for m, row in res.items():
        row["median_steps_per_s"] = statistics.median(row["steps_per_s"])
        row["median_cpu_ms"] = statistics.median(row["cpu_ms"])
        ratios = [x for x in row["ratio"] if x is not None]
        row["median_ratio"] = statistics.median(ratios) if ratios else None
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peers", type=int, default=4)
    ap.add_argument("--games", type=int, default=1, help="traced games (the critical path's figures)")
    ap.add_argument("--seed", default="rows")
    ap.add_argument("--ab", default="", help="comma list of modes to alternate instead (module docstring)")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--mesh", action="store_true", help="with --ab: mesh_round after each game")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="lanopoli-step-path-") as d:
        tmp = Path(d)
        if args.ab:
            print(json.dumps(ab(args.ab.split(","), args.pairs, args.peers, args.seed, args.mesh, tmp)))
            return 0
        for g in range(args.games):
            out = tmp / f"path-{g}"
            out.mkdir()
            game = bench_rows.play(args.peers, f"{args.seed}-{g}", tmp, env={"LANOPOLI_PATH_OUT": str(out)},
                                   child=CHILD)
            traces = [json.loads(f.read_text()) for f in out.glob("*.json")]
            res = {"game": g, "steps_per_s": round(game["steps_per_s_to_over"] or game["steps_per_s"], 1),
                   **analyse(traces), "segments_us": segments(traces)}
            print(json.dumps(res), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
