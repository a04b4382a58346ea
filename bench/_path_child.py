#!/usr/bin/env python3
"""A peer process that time-stamps the critical path of each lockstep step (not part of the
product; ``bench/bench_step_path.py`` runs it).

    python bench/_path_child.py -m ui.cli <lanopoli arguments...>

Runs ``bench/_net_child.py`` (so ``LANOPOLI_BENCH_OUT`` and its counters work as there) after
installing, when ``LANOPOLI_PATH_OUT`` names a directory, time stamps (``time.monotonic``: one
clock for every process of the machine, and the loop's own clock in asyncio) of:

* ``r``: a STEP payload handed to the node (``Node._on_message``): the loop time its datagram
  was read (``Link.now``), its step and seat, the session's step after handling it (the payload
  that completed a step shows: the step moved on) and when the handling returned;
* ``s``: each ``sendto`` of the link (``Link._sendto``): the time, the last STEP step the node
  queued before it (``Link.send``) and the destination, so the first ``sendto`` of our step-k
  message shows;
* inside the handling (``bench_step_path.segments`` reads them between a read and the
  ``sendto`` after it): ``i`` the session inbox starts, ``v`` the step is resolved
  (``StepAdvance.resolve``, start and end: the engine applies it), ``c`` the step is committed
  (``StepGate._commit``, with the step's kind), ``l`` it is logged and recorded
  (``StepAdvance.record``, start and end), ``o`` our message is made (``OwnStep.send_own``, start
  and end: encoded, signed, written ahead to the own-message log).

``LANOPOLI_PATH_EXPERIMENT`` changes the peer for an experiment (``bench_step_path.py --ab``):
``before:US`` spins US µs of CPU before our message is signed (on the critical path),
``after:US`` the same right after the flush that sent it (off the path), ``nogc`` disables the
cyclic GC, ``noverify`` takes every envelope's signature as valid (``Envelope.verify``: an
upper bound of what a protocol without a verify per STEP could gain; INSECURE, measurement only),
``sendlate`` sends our message after the handling returns (the node's pump and the link's flush
after the payload, as before ``OwnStep.on_sent``, H105).
Anything else: unchanged.

Output: ``<LANOPOLI_PATH_OUT>/<pid>.json``: ``addr`` (our link's address) and ``ev`` (the
events as lists). Each hook costs a few µs (a msgpack decode of the STEP header, the stamps).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))

#: The first two bytes of a STEP envelope: msgpack fixarray of 3, type 16 (protocol.md §C1).
STEP_TAG = b"\x93\x10"


def _wrap(cls: type, name: str, make) -> None:  # noqa: ANN001 - make(original) -> replacement
    setattr(cls, name, make(getattr(cls, name)))


def _install(out_dir: str) -> None:
    import msgpack

    import p2p.node as node
    from p2p import link, own_step, session_inbox, step_advance, step_gate

    ev: list = []
    meta: dict = {}
    mono = time.monotonic
    queued = [-1]

    def step_of(payload: bytes) -> tuple[int, int]:
        b = msgpack.unpackb(msgpack.unpackb(payload)[1])
        return b[1], b[2]

    def on_message(orig):  # noqa: ANN001, ANN202
        def traced(self, addr, payload):  # noqa: ANN001, ANN202
            if payload[:2] != STEP_TAG or self.session is None:
                return orig(self, addr, payload)
            step, seat = step_of(payload)
            t_read = self.link.now
            orig(self, addr, payload)
            s = self.session
            ev.append(("r", t_read, step, seat, None if s is None else s.step, mono()))
            return None
        return traced

    def send(orig):  # noqa: ANN001, ANN202
        def traced(self, addr, payload):  # noqa: ANN001, ANN202
            if payload[:2] == STEP_TAG:
                queued[0] = step_of(payload)[0]
                meta.setdefault("addr", list(self.address))
            return orig(self, addr, payload)
        return traced

    def sendto(orig):  # noqa: ANN001, ANN202
        def traced(self, data, addr):  # noqa: ANN001, ANN202
            ev.append(("s", mono(), queued[0], list(addr[:2])))
            return orig(self, data, addr)
        return traced

    def span(tag: str):  # noqa: ANN202 - a method timed from its call to its return
        def make(orig):  # noqa: ANN001, ANN202
            def traced(self, *a, **kw):  # noqa: ANN001, ANN202
                t = mono()
                r = orig(self, *a, **kw)
                ev.append((tag, t, mono()))
                return r
            return traced
        return make

    def commit(orig):  # noqa: ANN001, ANN202
        def traced(self, k, slots, skipped, done):  # noqa: ANN001, ANN202
            ev.append(("c", mono(), k, done.kind))
            return orig(self, k, slots, skipped, done)
        return traced

    def inbox(orig):  # noqa: ANN001, ANN202
        def traced(self, data, now):  # noqa: ANN001, ANN202
            ev.append(("i", mono()))
            return orig(self, data, now)
        return traced

    _wrap(node.Node, "_on_message", on_message)
    _wrap(link.Link, "send", send)
    _wrap(link.Link, "_sendto", sendto)
    _wrap(own_step.OwnStep, "send_own", span("o"))
    _wrap(step_advance.StepAdvance, "record", span("l"))
    _wrap(step_advance.StepAdvance, "resolve", span("v"))
    _wrap(step_gate.StepGate, "_commit", commit)
    _wrap(session_inbox.SessionInbox, "receive", inbox)
    run_peer = node.run_peer

    async def traced_run_peer(cfg):  # noqa: ANN001, ANN202
        try:
            return await run_peer(cfg)
        finally:
            Path(out_dir, f"{os.getpid()}.json").write_text(json.dumps({**meta, "ev": ev}))

    node.run_peer = traced_run_peer


def _experiment(what: str) -> None:
    """The peer changed as ``LANOPOLI_PATH_EXPERIMENT`` says (module docstring)."""
    if what == "nogc":
        import gc

        gc.disable()
        return
    if what == "noverify":
        from p2p import envelope

        envelope.Envelope.verify = lambda self, public_key: True  # INSECURE: an upper bound only
        return
    if what == "sendlate":
        from p2p import node

        node.Node._send_now = lambda self: None  # the queue goes out after the handling, as before H105
        return
    where, _, us = what.partition(":")
    if where not in ("before", "after") or not us:
        return
    from p2p import link, own_step

    spin_s = float(us) / 1e6

    def spin() -> None:
        end = time.perf_counter() + spin_s
        while time.perf_counter() < end:
            pass

    if where == "before":
        def make(orig):  # noqa: ANN001, ANN202
            def slow(self, *a, **kw):  # noqa: ANN001, ANN202
                spin()
                return orig(self, *a, **kw)
            return slow
        _wrap(own_step.OwnStep, "send_own", make)
    else:
        def make(orig):  # noqa: ANN001, ANN202
            def slow(self):  # noqa: ANN001, ANN202
                reply = self.receiving  # the flush of our reply, in the middle of a read batch
                r = orig(self)
                if reply:
                    spin()
                return r
            return slow
        _wrap(link.Link, "_flush", make)


def main() -> int:
    what = os.environ.get("LANOPOLI_PATH_EXPERIMENT")
    if what:
        _experiment(what)
    out = os.environ.get("LANOPOLI_PATH_OUT")
    if out:
        _install(out)
    import _net_child

    return _net_child.main()


if __name__ == "__main__":
    sys.exit(main())
