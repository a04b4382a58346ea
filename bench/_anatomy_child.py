#!/usr/bin/env python3
"""A peer process that counts what its asyncio adapters do per lockstep step (not part of the
product; ``bench/bench_step_anatomy.py`` runs it).

    python bench/_anatomy_child.py -m ui.cli <lanopoli arguments...>

Runs ``bench/_net_child.py`` (so ``LANOPOLI_BENCH_OUT`` and its counters work as there) after
installing, when ``LANOPOLI_ANATOMY_OUT`` names a directory:

* the game window: from the first ``progress`` line to the end of ``p2p.node.run_peer``, the
  process's user and system CPU (``os.times``, 10 ms ticks: read them over a whole game) and its
  voluntary / involuntary context switches (``/proc/self/status``, Linux);
* the cyclic GC: collections per generation and the process CPU they took (``gc.callbacks``);
* with ``LANOPOLI_ANATOMY_COUNTS=1``, call counts of the adapters' per-step work, each
  method wrapped by a counting function (the wrappers cost CPU: read the CPU figures from a run
  without counts): the link's reader wake-ups, flushes, ``sendto`` calls and timer firings, the
  ``LoopTimer`` arms and the loop timer handles made (``call_at``), ``call_soon``, loop passes
  (``_run_once``), the node's messages handled and session pumps.

Output: ``<LANOPOLI_ANATOMY_OUT>/<pid>.json``, one object: ``steps`` (of the game window),
``user_us``, ``sys_us``, ``vol_cs``, ``invol_cs``, ``gc`` ({generation: [collections, µs]}) and
``counts`` ({name: calls}), all totals over the window.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))

# What each count is: (object, attribute) wrapped, by the name printed.
_COUNTED = {
    "loop_passes": ("asyncio.base_events", "BaseEventLoop", "_run_once"),
    "call_at": ("asyncio.base_events", "BaseEventLoop", "call_at"),
    "call_soon": ("asyncio.base_events", "BaseEventLoop", "call_soon"),
    "reader_wakeups": ("p2p.link", "Link", "_on_readable"),
    "link_flushes": ("p2p.link", "Link", "_flush"),
    "sendto": ("p2p.link", "Link", "_sendto"),
    "link_timer_fired": ("p2p.link", "Link", "_on_timer"),
    "timer_arms": ("p2p.loop_timer", "LoopTimer", "arm"),
    "node_messages": ("p2p.node", "Node", "_on_message"),
    "session_pumps": ("p2p.node", "Node", "_pump_session"),
}


def _switches() -> tuple[int, int]:
    """(voluntary, involuntary) context switches of this process so far (0, 0 off Linux)."""
    try:
        with open("/proc/self/status") as f:
            rows = dict(line.split(":", 1) for line in f if "ctxt_switches" in line)
        return int(rows["voluntary_ctxt_switches"]), int(rows["nonvoluntary_ctxt_switches"])
    except (OSError, KeyError, ValueError):
        return 0, 0


def _install(out_dir: str, counts: bool) -> None:
    import importlib

    import p2p.node as node
    import ui.progress

    calls: Counter = Counter()
    on = [False]
    if counts:
        for name, (module, cls_name, attr) in _COUNTED.items():
            cls = getattr(importlib.import_module(module), cls_name)
            fn = getattr(cls, attr)

            def counted(*a, _fn=fn, _name=name, **k):  # noqa: ANN002, ANN003, ANN202
                if on[0]:
                    calls[_name] += 1
                return _fn(*a, **k)

            setattr(cls, attr, counted)

    gc_stats: dict[int, list[float]] = {0: [0, 0.0], 1: [0, 0.0], 2: [0, 0.0]}
    gc_start = [0.0]

    def gc_callback(phase: str, info: dict) -> None:
        if phase == "start":
            gc_start[0] = time.process_time()
        elif on[0]:
            row = gc_stats[info["generation"]]
            row[0] += 1
            row[1] += (time.process_time() - gc_start[0]) * 1e6

    gc.callbacks.append(gc_callback)
    first: list = []  # (os.times(), switches, step) at the first progress line
    printer = ui.progress.progress_printer

    def progress_printer(stream=None):  # noqa: ANN001, ANN202
        emit = printer(stream)

        def wrapped(msg: dict) -> None:
            if msg.get("type") == "progress" and not first:
                first.append((os.times(), _switches(), int(msg.get("step") or 0)))
                on[0] = True
            emit(msg)
        return wrapped

    ui.progress.progress_printer = progress_printer
    run_peer = node.run_peer

    async def anatomy_run_peer(cfg):  # noqa: ANN001, ANN202
        result = await run_peer(cfg)
        on[0] = False
        if first:
            t0, (v0, i0), s0 = first[0]
            t1, (v1, i1) = os.times(), _switches()
            data = {"steps": result.steps - s0, "user_us": (t1.user - t0.user) * 1e6,
                    "sys_us": (t1.system - t0.system) * 1e6, "vol_cs": v1 - v0, "invol_cs": i1 - i0,
                    "gc": gc_stats, "counts": dict(calls)}
            Path(out_dir, f"{os.getpid()}.json").write_text(json.dumps(data))
        return result

    node.run_peer = anatomy_run_peer


def main() -> int:
    out_dir = os.environ.get("LANOPOLI_ANATOMY_OUT")
    if out_dir:
        _install(out_dir, os.environ.get("LANOPOLI_ANATOMY_COUNTS") == "1")
    import _net_child  # installs its own wrappers (LANOPOLI_BENCH_OUT) around ours, then runs ui.cli

    return _net_child.main()


if __name__ == "__main__":
    sys.exit(main())
