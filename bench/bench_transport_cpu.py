#!/usr/bin/env python3
"""CPU of the transport alone per lockstep round (issue 14), A/B against another checkout.

    python bench/bench_transport_cpu.py [--peers 4] [--rounds 4000] [--size 230]
                                        [--base-root DIR] [--pairs 3]

``--peers`` keyed ``p2p.endpoint.Endpoint`` objects in one process, no socket, no session: each
round every peer sends one ``--size``-byte payload to every other one and flushes as
``p2p.link.Link`` does after its read batch (``Endpoint.flush``: datagrams and next timer; a
checkout without it: ``datagrams_to_send`` then ``get_timer``), then every peer takes the
datagrams addressed to it and flushes again (the acks wait for the next round's data, as in a
lockstep game). Printed: process CPU µs per round per peer (the channel's MACs, acks, framing,
timers), the figure the network peer pays besides its session. ``--base-root DIR`` (a
``git worktree add DIR <commit>``): the same exchange with that checkout's transport in
alternating child processes, ``--pairs`` times, and the new/base ratio of each pair. Prints,
asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def exchange(peers: int, rounds: int, size: int) -> float:
    """CPU µs per round per peer of the transport of the checkout first on ``sys.path``."""
    from p2p.channel_auth import KeyCache
    from p2p.endpoint import Endpoint
    from p2p.identity import Identity

    ids = [Identity.from_seed(b"bench-transport-%d" % i) for i in range(peers)]
    addrs = [("127.0.0.1", 40000 + i) for i in range(peers)]
    eps = [Endpoint(epoch=100 + i, keys=KeyCache(ids[i]), accept_plain=False) for i in range(peers)]
    for i, ep in enumerate(eps):
        ep.restrict([a for j, a in enumerate(addrs) if j != i])
        for j in range(peers):
            if j != i:
                ep.pin(addrs[j], ids[j].x25519_public_key)
    index = {a: i for i, a in enumerate(addrs)}
    payload = bytes(i % 251 for i in range(size))
    one_pass = hasattr(Endpoint, "flush")

    def flush(ep: Endpoint, now: float) -> list:
        if one_pass:
            return ep.flush(now)[0]
        out = ep.datagrams_to_send(now)
        ep.get_timer()
        return out

    inbox: list[list] = [[] for _ in range(peers)]

    def one_round(now: float) -> None:
        for i, ep in enumerate(eps):
            for j in range(peers):
                if j != i:
                    ep.send(addrs[j], payload)
            for data, addr in flush(ep, now):
                inbox[index[addr]].append((data, addrs[i]))
        for i, ep in enumerate(eps):
            box, inbox[i] = inbox[i], []
            for data, src in box:
                ep.receive_datagram(data, src, now)
            flush(ep, now)

    now = 1.0
    for _ in range(300):  # warm-up: keys, RTT estimates, caches
        now += 0.002
        one_round(now)
    t0 = time.process_time()
    for _ in range(rounds):
        now += 0.002
        one_round(now)
    return 1e6 * (time.process_time() - t0) / rounds / peers


def _child(root: Path, args: argparse.Namespace) -> float:
    code = (f"import sys; sys.path.insert(0, {str(root)!r}); sys.path.insert(1, {str(ROOT / 'bench')!r}); "
            f"import bench_transport_cpu as b; print(b.exchange({args.peers}, {args.rounds}, {args.size}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=str(root))
    return float(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peers", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=4000)
    ap.add_argument("--size", type=int, default=230, help="payload bytes (a 4-seat STEP is ~200-260)")
    ap.add_argument("--base-root", help="another checkout: alternate its transport with this one's")
    ap.add_argument("--pairs", type=int, default=3)
    args = ap.parse_args(argv)
    if not args.base_root:
        us = _child(ROOT, args)
        print(json.dumps({"peers": args.peers, "us_per_round_per_peer": round(us, 2)}))
        return 0
    base, new = [], []
    for _ in range(args.pairs):
        base.append(round(_child(Path(args.base_root).resolve(), args), 2))
        new.append(round(_child(ROOT, args), 2))
    ratios = [round(n / b, 3) for b, n in zip(base, new)]
    print(json.dumps({"peers": args.peers, "base_us": base, "new_us": new, "ratios": ratios,
                      "ratio_median": statistics.median(ratios)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
