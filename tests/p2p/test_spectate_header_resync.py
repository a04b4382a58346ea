"""A spectator's resync that restarts from the new server's header (protocol.md §N10 Failover,
'asked too late'; RV16R-B F2) against the real WatchServer pacing (WATCH_BYTES_PER_S,
UNSETTLED_BYTES) and the client's renewals every WATCH_RENEW_S, virtual clock, no sockets.

It asked have = 0 at every renewal until aligned, and WatchServer.receive takes a renewal with
have 0 as 'the spectator started afresh' (sub.sent = 0): the stream started over from record 0
every WATCH_RENEW_S, so a log over ~1 MB up to our anchor never aligned. Now, once the first
batch came, a renewal asks from the server's next record we expect."""
from __future__ import annotations

import pytest

from p2p.gamelog import KIND_DROP, KIND_STEP, STEP_RECORD, StepRecord
from p2p.identity import Identity
from p2p.spectate import WATCH_RENEW_S, WatchClient, WatchServer

GID = b"g" * 16
OLD, NEW, SPEC = Identity.from_seed(b"old-seat"), Identity.from_seed(b"new-seat"), Identity.from_seed(b"spec")


def step(k: int, pad: int) -> tuple[int, bytes]:
    return (KIND_STEP, STEP_RECORD.encode(StepRecord(k, [b"x" * pad, None])))


def run(n_steps: int, pad: int, seconds: float = 120.0) -> tuple[bool, float, int]:
    """The new seat's log: header + n STEP records; our copy: the same with 20 DROP-kind records
    more near its start (our old server logged records the new one did not), so the switch asks
    too late and restarts from the header. Returns (aligned, when, bytes up to the anchor)."""
    header = (0, b"H" * 100)
    theirs = [header] + [step(k, pad) for k in range(n_steps)]
    ours = [header] + [(KIND_DROP, b"d" * 40)] * 20 + theirs[1:n_steps - 10]  # they are 10 steps ahead
    c = WatchClient(SPEC, GID, OLD.public_key, "s")
    c.records = list(ours)
    c.switch(NEW.public_key)
    srv = WatchServer(NEW, GID)
    addr, now, next_renew = ("10.0.0.9", 5), 0.0, 0.0
    while now < seconds:
        if now >= next_renew or c.ask_now:
            c.ask_now = False
            srv.receive(c.watch_message(), addr, SPEC.x25519_public_key, now, proven=True)
            if now >= next_renew:
                next_renew += WATCH_RENEW_S
        for _a, raw in srv.outgoing(theirs, now, settled=lambda a: True):
            c.receive(raw)
        if not c.resyncing:
            return True, now, sum(len(p) for _, p in theirs[:n_steps - 10])
        now = round(now + 0.05, 2)
    return False, now, sum(len(p) for _, p in theirs[:n_steps - 10])


@pytest.mark.parametrize("n_steps", [500, 3000, 6000, 20000])
def test_header_resync_aligns(n_steps):
    aligned, when, size = run(n_steps, 400)
    assert aligned, (n_steps, size, when)


def test_a_switch_to_a_seat_probed_within_watch_ttl_restarts_from_the_header():
    """The honest path into the header restart: the stall probe subscribed us at seat NEW with
    have = resync_have (its cursor then runs to its log's end); a silence failover to NEW within
    WATCH_TTL_S asks the same have, a renewal for NEW, whose answer starts past it: _restart."""
    from p2p.spectate import RESYNC_MARGIN
    from p2p.wire import MSG_WATCH, Watch, seal_message
    from ui.watch_stall import resync_have

    theirs = [(0, b"H" * 100)] + [step(k, 400) for k in range(300)]
    c = WatchClient(SPEC, GID, OLD.public_key, "s")
    c.records = list(theirs[:250])
    srv, addr = WatchServer(NEW, GID), ("10.0.0.9", 5)
    have = resync_have(c.records, c.offset, RESYNC_MARGIN)
    probe = seal_message(SPEC, MSG_WATCH, Watch(GID, SPEC.public_key, SPEC.x25519_public_key, "s", have))
    srv.receive(probe, addr, SPEC.x25519_public_key, 0.0, proven=True)
    for t in (0.0, 0.5, 1.0):
        srv.outgoing(theirs, t, settled=lambda a: True)
    c.switch(NEW.public_key)  # a silence failover 5 s later (WATCH_TTL_S = 10)
    srv.receive(c.watch_message(), addr, SPEC.x25519_public_key, 5.0, proven=True)
    for _a, raw in srv.outgoing(theirs, 6.0, settled=lambda a: True):
        c.receive(raw)
    assert c.stats.get("resync_restart") == 1 and c.ask_now and c.resyncing
