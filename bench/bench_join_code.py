#!/usr/bin/env python3
"""Joins by code under loss, in memory (protocol.md §N3.1; H88's method, H96). Prints figures,
asserts nothing.

    python bench/bench_join_code.py [--seeds 100] [--rows 3:0.2,3:0.3,4:0.2,4:0.3] [--probe-gap-max S] [--by-key]

For each row ``seats:loss``: ``--seeds`` seeded lobbies (a host and seats-1 joiners, every one
joining by code: PROBE, the host's CHALLENGE, the RESPONSE, the STATUS, then the lobby) on
``p2p.faults.SimNetwork`` with that datagram loss, peers shaped like ``NodeLobby``
(``p2p.lobby_sim.lobby_game``'s ``LobbyPeer``: keys, trusts, the host's ``Endpoint.on_confirm``),
run on the virtual clock until every seat has started (``GameStarted``) or 60 s. Prints, per row,
the median, 90th percentile and maximum of the virtual seconds to every seat's start, and the
lobbies that did not start (stalls). Virtual time: the figures do not depend on the machine's load
and are the same at every run. ``--probe-gap-max`` tries another ``PROBE_RESEND_MAX_S``
(``p2p/join_resend.py``) for the joiners' PROBE copies. ``--by-key``: every joiner joins as from
a listing instead (the game id and the host's keys known: a JOIN first, seated at its channel's
confirmation, §C2.2 step 2; H170 measured its cost so, rows 2:0 and 4:0 included).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def one(seed: int, seats: int, loss: float, by_code: bool = True) -> float | None:
    """Virtual seconds until every seat of one seeded lobby started (None: not within 60 s)."""
    from p2p.faults import FaultPlan
    from p2p.identity import Identity
    from p2p.lobby_sim import lobby_game

    peers, net = lobby_game(Identity.from_seed(b"h88-h-%d" % seed),  # H88's seeds: its figures are comparable
                            [Identity.from_seed(b"h88-j%d-%d" % (i, seed)) for i in range(1, seats)],
                            FaultPlan(seed=seed, loss=loss), until=60, demo_seed=b"h88-%d" % seed, by_code=by_code,
                            host_name="h")
    return net.now if all(p.started is not None for p in peers.values()) else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--rows", default="3:0.2,3:0.3,4:0.2,4:0.3", help="seats:loss,...")
    ap.add_argument("--probe-gap-max", type=float, default=None, help="PROBE_RESEND_MAX_S to try (s)")
    ap.add_argument("--by-key", action="store_true", help="join by game id and host key, not by code")
    args = ap.parse_args()
    from p2p import join_resend

    if args.probe_gap_max is not None:
        join_resend.PROBE_RESEND_MAX_S = args.probe_gap_max
    print(f"PROBE_RESEND_S {join_resend.PROBE_RESEND_S} s, PROBE_RESEND_MAX_S {join_resend.PROBE_RESEND_MAX_S} s, "
          f"{args.seeds} seeds per row; seconds to every seat's start (virtual)")
    for row in args.rows.split(","):
        seats, loss = int(row.split(":")[0]), float(row.split(":")[1])
        times = [one(s, seats, loss, not args.by_key) for s in range(args.seeds)]
        done = sorted(t for t in times if t is not None)
        if not done:
            print(f"seats {seats} loss {loss:.0%}: every lobby stalled")
            continue
        print(f"seats {seats} loss {loss:.0%}: median {statistics.median(done):.4f} p90 "
              f"{done[int(0.9 * len(done))]:.4f} max {done[-1]:.4f} stalls {len(times) - len(done)}", flush=True)


if __name__ == "__main__":
    main()
