#!/usr/bin/env python3
"""A counting peer process for the network benchmarks (not part of the product).

    python bench/_net_child.py -m ui.cli <lanopoli arguments...>

Runs ``ui.cli`` exactly as ``python -m ui.cli`` would, but first wraps three things so that the
benchmark can see inside the peer without any change to it:

* ``p2p.link.Link.send``: every payload the node queues, counted by message type (the
  first element of the msgpack envelope ``[type, body, sig]``, protocol.md §C1) and by the
  number of chunks it needs (``MAX_CHUNK``);
* ``p2p.node.run_peer``: at the end, the transport's counters (``PeerResult.transport``, the
  sum over every channel, ``Endpoint.totals``) and the session's;
* ``p2p.node.Node.finish``: when the game was over (``over_mono``, ``time.monotonic()``, which is
  one clock for every process of the machine), next to the first progress line's
  (``first_mono``): the game's own window, without the drain after it (§N4 "Draining": a peer
  that saw a retransmission stays ``QUIET_S`` = 0.5 s more, which the last ``done`` line includes);
* ``ui.progress.progress_printer``: each ``progress`` line gains ``rss_kb`` (resident set from
  ``/proc/self/statm``) so that memory can be followed step by step, and ``sent`` (the payloads
  sent so far by message type, as ``sent_by_type``) so that a storm shows when it happens.

``LANOPOLI_BENCH_VERIFY=cryptography`` puts back the signature check of before issue 14
(``cryptography``'s Ed25519 verify instead of libsodium's) for an A/B comparison in one run.

``LANOPOLI_BENCH_TRANSPORT=<file>`` runs the peer with that file as ``p2p.transport`` (an
earlier version, for an A/B comparison in one run).

``LANOPOLI_BENCH_PROFILE=<dir>``: the whole run under cProfile, stats in ``<dir>/<pid>.prof``.

``LANOPOLI_BENCH_SAMPLE=<dir>`` (with ``LANOPOLI_BENCH_OUT``): the game, from the first
``progress`` line to the end, under the statistical sampler ``bench/_sampler.py`` (unbiased CPU
shares, unlike cProfile's), counts in ``<dir>/<pid>.json``; ``python bench/_sampler.py <dir>/*``
prints them merged.

When the environment names ``LANOPOLI_BENCH_OUT`` (a directory), the counters go to
``<dir>/<pid>.json`` as one JSON object: ``transport`` (dict), ``session`` (dict), ``sent_by_type``
({type: payloads}), ``chunks_by_type`` ({type: chunks}), ``rss`` ([[step, kB], ...]), ``rss_end``
([steps, kB] once the game is over: a short game may have no progress line), ``smaps``
({"first"/"end": ``smaps_kb()``}: Rss, Pss, Private_Dirty, Shared_Clean at the first progress
line and at the end).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))  # _sampler

_PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def rss_kb() -> int:
    """Resident set size of this process now, in kB (``/proc/self/statm``, Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE_KB


def smaps_kb() -> dict[str, int]:
    """This process's memory now by kind, kB (``/proc/self/smaps_rollup``, Linux >= 4.14; {} elsewhere):
    ``Rss``; ``Pss`` (shared pages divided among the processes mapping them: the peers of one
    machine share the interpreter's, the libraries' and the compiled engine's pages);
    ``Private_Dirty`` (this peer's own heap, what one more peer costs); ``Shared_Clean``."""
    try:
        with open("/proc/self/smaps_rollup") as f:
            rows = [line.split() for line in f.read().splitlines()[1:]]
    except OSError:
        return {}
    keep = ("Rss:", "Pss:", "Private_Dirty:", "Shared_Clean:")
    return {r[0][:-1]: int(r[1]) for r in rows if len(r) >= 2 and r[0] in keep}


def _old_verify() -> None:
    """Swap ``p2p.identity.verify`` (and the name ``p2p.envelope`` imported, which
    ``Envelope.verify`` calls) for the pre-issue-14 rule: ``cryptography``'s verify with the
    parsed key cached."""
    import functools

    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from p2p import envelope, identity

    key = functools.lru_cache(maxsize=256)(Ed25519PublicKey.from_public_bytes)

    def verify(public_key: bytes, domain: bytes, body: bytes, sig: bytes) -> bool:
        if len(public_key) != 32 or len(sig) != 64:
            return False
        try:
            key(bytes(public_key)).verify(sig, identity.SIG_PREFIX + domain + b"\x00" + body)
        except (InvalidSignature, ValueError):
            return False
        return True

    identity.verify = envelope.verify = verify  # Envelope.verify calls p2p/envelope.py's verify


def _old_transport(path: str) -> None:
    """Load ``path`` (an earlier p2p/transport.py, e.g. ``git show e1caa4b:p2p/transport.py``)
    as ``p2p.transport`` before the node imports it: an A/B of the transport in one run."""
    import importlib.util

    import p2p

    spec = importlib.util.spec_from_file_location("p2p.transport", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["p2p.transport"] = mod
    spec.loader.exec_module(mod)
    p2p.transport = mod
    if hasattr(mod, "Endpoint"):  # from before the Endpoint moved to p2p/endpoint.py (issue 13)
        import types

        shim = types.ModuleType("p2p.endpoint")
        shim.Endpoint = mod.Endpoint
        sys.modules["p2p.endpoint"] = p2p.endpoint = shim


def _install(out_dir: str) -> None:
    import p2p.node as node
    import ui.progress
    from p2p import link, transport

    sent: Counter = Counter()
    chunks: Counter = Counter()
    rss: list[list[int]] = []
    smaps: dict[str, dict[str, int]] = {}  # "first": at the first progress line; "end": after the game
    first: list = []  # (process CPU s, step, monotonic s) at the first progress line
    over: list = []  # monotonic s at GameOver (Node.finish)
    link_send = link.Link.send
    sample_dir = os.environ.get("LANOPOLI_BENCH_SAMPLE")
    sampler = None
    if sample_dir:
        from _sampler import Sampler

        sampler = Sampler()

    def send(self, addr, payload):  # noqa: ANN001 - same signature as Link.send
        mtype = payload[1] if len(payload) > 1 and payload[0] == 0x93 and payload[1] < 0x80 else -1
        sent[mtype] += 1
        chunks[mtype] += max(1, -(-len(payload) // transport.MAX_CHUNK))
        return link_send(self, addr, payload)

    link.Link.send = send

    printer = ui.progress.progress_printer

    def progress_printer(stream=None):  # noqa: ANN001, ANN202
        emit = printer(stream)

        def wrapped(msg: dict) -> None:
            if msg.get("type") == "progress":
                if not first:
                    first.append((time.process_time(), int(msg.get("step") or 0), time.monotonic()))
                    smaps["first"] = smaps_kb()
                    if sampler is not None:
                        sampler.start()
                kb = rss_kb()
                # Payloads sent so far by type: a run can see them step by step (issue 14's storm).
                msg = {**msg, "rss_kb": kb, "sent": dict(sent)}
                rss.append([int(msg.get("step") or 0), kb])
            emit(msg)
        return wrapped

    ui.progress.progress_printer = progress_printer
    run_peer = node.run_peer
    finish = node.Node.finish

    def timed_finish(self, ev, abandoned=None):  # noqa: ANN001, ANN202 - same signature as Node.finish
        if not over:
            over.append(time.monotonic())
        return finish(self, ev, abandoned)

    node.Node.finish = timed_finish

    async def counted_run_peer(cfg):  # noqa: ANN001, ANN202
        try:
            result = await run_peer(cfg)
        finally:
            if sampler is not None:
                sampler.stop()
                sampler.dump(Path(sample_dir, f"{os.getpid()}.json"))
        smaps["end"] = smaps_kb()
        data = {"transport": dict(result.transport), "session": dict(result.session_stats),
                "sent_by_type": dict(sent), "chunks_by_type": dict(chunks), "rss": rss,
                "rss_end": [result.steps, rss_kb()], "smaps": smaps, "steps": result.steps, "seat": result.seat}
        if first:
            data["cpu_game_s"] = time.process_time() - first[0][0]
            data["cpu_steps"] = result.steps - first[0][1]
            data["first_mono"] = first[0][2]
        if over:
            data["over_mono"] = over[0]
        Path(out_dir, f"{os.getpid()}.json").write_text(json.dumps(data))
        return result

    node.run_peer = counted_run_peer


def main() -> int:
    argv = sys.argv[1:]
    if argv[:2] == ["-m", "ui.cli"]:
        argv = argv[2:]
    if os.environ.get("LANOPOLI_BENCH_VERIFY") == "cryptography":
        _old_verify()
    if os.environ.get("LANOPOLI_BENCH_TRANSPORT"):
        _old_transport(os.environ["LANOPOLI_BENCH_TRANSPORT"])
    out_dir = os.environ.get("LANOPOLI_BENCH_OUT")
    if out_dir:
        _install(out_dir)
    from ui.cli import main as cli_main

    prof_dir = os.environ.get("LANOPOLI_BENCH_PROFILE")
    if not prof_dir:
        return cli_main(argv)
    import cProfile

    import time

    prof = cProfile.Profile(time.process_time)  # CPU time: waiting for a core is not our cost
    try:
        return prof.runcall(cli_main, argv)
    finally:
        prof.dump_stats(str(Path(prof_dir, f"{os.getpid()}.prof")))


if __name__ == "__main__":
    sys.exit(main())
