#!/usr/bin/env python3
"""Where a network peer's per-step CPU goes, by what its adapters do (issue 14; prints, asserts
nothing).

    python bench/bench_step_anatomy.py [--peers 4] [--games 2] [--seed anatomy]

Plays ``--games`` bot games of ``--peers`` peer processes on loopback (``bench_rows.play``, the
demo the ``steps4``/``steps8`` rows play) twice per seed: once plain, once with the adapters'
calls counted (``bench/_anatomy_child.py``; the counting wrappers cost CPU, so the CPU figures
come from the plain game). Per step and peer (median over the peers, then over the games):

* ``user_us`` / ``sys_us``: user and system CPU of the game window (from the first ``progress``
  line to the end; ``os.times``), ``vol_cs`` / ``invol_cs``: context switches (sleeps in epoll,
  preemptions), ``gc_us``: CPU in the cyclic GC, ``datagrams_out``: datagrams sent (the
  transport's counter);
* with counts: loop passes, reader wake-ups (each reads every queued datagram, ``Link``),
  link flushes, ``sendto`` calls, ``LoopTimer.arm`` calls and the loop timer handles made
  (``call_at``; an arm later than the armed handle keeps it), ``call_soon``, node messages and
  session pumps.

Figures of session 9 (compiled engine, 4 peers): bench/README.md, "Per-step anatomy".
Output: one line per figure, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))

import bench_rows  # noqa: E402 - bench/, the script's own folder

CHILD = ROOT / "bench" / "_anatomy_child.py"


def per_step(tmp: Path, peers: int, seed: str, counts: bool) -> dict[str, float]:
    """One game with ``_anatomy_child``: each figure per step, the median over the peers."""
    out = tmp / f"anatomy-{seed}-{int(counts)}"
    out.mkdir()
    env = {"LANOPOLI_ANATOMY_OUT": str(out), "LANOPOLI_ANATOMY_COUNTS": "1" if counts else "0"}
    game = bench_rows.play(peers, seed, tmp, env=env, child=CHILD)
    rows = []
    for f in out.glob("*.json"):
        d = json.loads(f.read_text())
        n = d["steps"]
        if n <= 0:
            continue
        row = {k: d[k] / n for k in ("user_us", "sys_us", "vol_cs", "invol_cs")}
        row["gc_us"] = sum(v[1] for v in d["gc"].values()) / n
        row.update({k: v / n for k, v in d["counts"].items()})
        rows.append(row)
    sent = sum(c["transport"]["datagrams_sent"] for c in game["children"]) / game["steps"] / peers
    keys = sorted({k for r in rows for k in r})
    med = {k: statistics.median(r.get(k, 0.0) for r in rows) for k in keys}
    med["datagrams_out"] = sent
    med["steps_per_s"] = game["steps_per_s"]
    return med


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peers", type=int, default=4)
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--seed", default="anatomy")
    args = ap.parse_args()
    plain: list[dict] = []
    counted: list[dict] = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for g in range(args.games):
            plain.append(per_step(tmp, args.peers, f"{args.seed}-{g}", False))
            counted.append(per_step(tmp, args.peers, f"{args.seed}-{g}", True))
    res = {"peers": args.peers, "games": args.games}
    for label, games, keys in (("plain", plain, ("user_us", "sys_us", "vol_cs", "invol_cs", "gc_us",
                                                 "datagrams_out", "steps_per_s")),
                               ("counted", counted, tuple(k for k in counted[0] if k not in
                                                          ("user_us", "sys_us", "gc_us", "steps_per_s")))):
        res[label] = {k: round(statistics.median(g.get(k, 0.0) for g in games), 3) for k in keys}
        for k, v in res[label].items():
            print(f"{label:7} {k:18} {v:10.3f} per step per peer" if k != "steps_per_s"
                  else f"{label:7} {k:18} {v:10.1f}", flush=True)
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
