"""What spectators cost the seat that serves them (protocol.md §N10), and what following a
game costs a spectator. Prints figures; asserts nothing.

Seat side: ``p2p.spectate.WatchServer`` with N subscribed spectators, fed the published sample
game's log records (tests/vectors/game.lnplog) one at a time as they would appear, one
``outgoing`` call per new record (the node calls it every 0.5 s, so this is an upper bound),
each spectator renewing its WATCH every 2 s; spectators at the same place share one signed
batch:
microseconds per step for 1, 4 and 16 spectators, and the bytes sent per spectator per step.
For scale: the seat's own work per step (verify 3 other seats' signatures, apply the step),
timed by replaying the same log with ``p2p.verify.verify_log``.

Idle seat (the game waits for a player): a live seat answers each renewal with one empty
RECORDS (so that a spectator can tell a silent server from a quiet game and move to another
seat, protocol.md §N10 "Any seat serves"): microseconds per answered renewal, and per second
for 16 spectators renewing every WATCH_RENEW_S. Every figure is the best of ``REPEAT`` runs
(the machine is shared).

Spectator side: one ``verify_log`` of the whole game (what a spectator repeats at most every
0.5 s while records arrive; the cost grows with the game).

    /work/venv/bin/python bench/bench_watch.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from p2p.gamelog import LogReader  # noqa: E402
from p2p.identity import Identity  # noqa: E402
from p2p.spectate import WATCH_RENEW_S, WatchClient, WatchServer  # noqa: E402
from p2p.log_checks import parse_header  # noqa: E402
from p2p.verify import verify_log  # noqa: E402

LOG = ROOT / "tests" / "vectors" / "game.lnplog"
REPEAT = 3


def serve(records: list, watchers: int) -> tuple[float, float]:
    """(µs per step for the seat, bytes per step per spectator) with ``watchers`` spectators."""
    seat = Identity.from_seed(b"bench-seat")
    gid = parse_header(records[0][1])[0].game_id
    server = WatchServer(seat, gid)
    clients = []
    for i in range(watchers):
        ident = Identity.from_seed(b"bench-spectator-%d" % i)
        client = WatchClient(ident, gid, seat.public_key, f"s{i}")
        server.receive(client.watch_message(), (f"10.0.1.{i + 2}", 5000), ident.x25519_public_key, 0.0)
        clients.append(client)
    now, sent, dt = 0.0, 0, 0.0
    by_addr = {(f"10.0.1.{i + 2}", 5000): c for i, c in enumerate(clients)}
    for addr, raw in server.outgoing(records[:1], now):  # the header, once
        by_addr[addr].receive(raw)
    for k in range(2, len(records) + 1):
        now += 0.05  # 20 steps a second: the byte credit (12.8 KB per step) never binds
        t0 = time.perf_counter()
        if k % 40 == 0:  # every 2 s: each spectator renews (a signature check per WATCH)
            for addr, client in by_addr.items():
                server.receive(client.watch_message(), addr, client.identity.x25519_public_key, now)
        out = server.outgoing(records[:k], now)
        dt += time.perf_counter() - t0
        for addr, raw in out:  # the spectators' side, not timed
            sent += len(raw)
            by_addr[addr].receive(raw)
    assert all(len(c.records) == len(records) for c in clients)
    steps = len(records) - 1
    return dt / steps * 1e6, sent / steps / watchers


def idle(records: list, watchers: int, renewals: int = 50) -> float:
    """µs per renewal answered while nothing new happens (the empty RECORDS), ``watchers``
    spectators all up to date."""
    seat = Identity.from_seed(b"bench-seat")
    gid = parse_header(records[0][1])[0].game_id
    server = WatchServer(seat, gid)
    clients = {}
    for i in range(watchers):
        ident = Identity.from_seed(b"bench-spectator-%d" % i)
        clients[f"10.0.1.{i + 2}", 5000] = WatchClient(ident, gid, seat.public_key, f"s{i}")
    now = 0.0
    for addr, c in clients.items():
        server.receive(c.watch_message(), addr, c.identity.x25519_public_key, now)
    while out := server.outgoing(records, now):  # catch up first (not timed)
        for addr, raw in out:
            clients[addr].receive(raw)
        now += 1.0
    dt = 0.0
    for _ in range(renewals):
        now += WATCH_RENEW_S  # each spectator renews every WATCH_RENEW_S
        raws = [(addr, c.watch_message()) for addr, c in clients.items()]
        t0 = time.perf_counter()
        for addr, raw in raws:
            server.receive(raw, addr, clients[addr].identity.x25519_public_key, now)
        out = server.outgoing(records, now)
        dt += time.perf_counter() - t0
        assert len(out) == watchers
    return dt / (renewals * watchers) * 1e6


def main() -> None:
    records = [(r.kind, r.payload) for r in LogReader(LOG)]
    steps = len(records) - 1
    t0 = time.perf_counter()
    report = verify_log(LOG)
    whole = time.perf_counter() - t0
    assert report.ok
    print(f"sample game: {steps} steps, {LOG.stat().st_size} bytes of log")
    print(f"seat's own replay of the game (verify_log): {whole / steps * 1e6:.0f} µs per step")
    for n in (1, 4, 16):
        us, per = min(serve(records, n) for _ in range(REPEAT))
        print(f"serving {n:2d} spectator(s): {us:6.0f} µs per step for the seat "
              f"({us / (whole / steps * 1e6):.2f}x its own replay), {per:.0f} bytes per step per spectator")
    us = min(idle(records, 16) for _ in range(REPEAT))
    print(f"idle seat, 16 spectators: {us:.0f} µs per renewal (its check + the empty RECORDS), "
          f"{us * 16 / WATCH_RENEW_S / 1000:.2f} ms per second")
    print(f"spectator: one verification of the whole game {whole:.3f} s "
          f"(repeated at most every 0.5 s while records arrive)")


if __name__ == "__main__":
    main()
