"""A spectator leaves a seat that answers but serves nothing new (protocol.md §N10 'A stalled
server', ``ui.watch_stall``; H174-3, tests/p2p/test_redteam_s16_watch.py).

Sans-I/O first (virtual clock; the driver's link and DNS-SD replaced; the sample game of
tests/vectors, 2 seats, the seats' own keys sign what they serve), then one run over loopback
with real ``p2p.spectate.WatchServer`` seats (``SeatServer`` of test_watch_lying_seat.py).
"""

from __future__ import annotations

import asyncio
import shutil
from types import SimpleNamespace

import pytest

from p2p.identity import Identity
from p2p.spectate import RESYNC_MARGIN, WATCH_RENEW_S, WATCH_SILENCE_S, WatchClient
from p2p.wire import MSG_RECORDS, MSG_WATCH, Records, decode_watch, open_as, seal_message
from test_watch_lying_seat import FACTS, GID, SEATS, Found, SeatServer, records
from ui.watch_stall import WATCH_STALL_S, StallProbe, last_step, resync_have

HELD = 40  # records seat 0 serves before it serves nothing more


@pytest.fixture
def driver():
    """A ``WatchDriver`` of the sample game following the advertiser, seat 0 (no socket: the
    link and DNS-SD are ``Net``'s); its temporary log copy removed after the test."""
    from ui.watch import WatchDriver

    spec = Identity.from_seed(b"h176-spectator")
    ad = SimpleNamespace(game_id=GID, edition=FACTS["edition"], seats_total=2, address="127.0.0.2", watch_port=1,
                         public_key=SEATS[0].public_key, x25519_key=SEATS[0].x25519_public_key)
    d = WatchDriver(ad, "127.0.0.1", identity=spec)
    d.client = WatchClient(spec, GID, SEATS[0].public_key, "s")
    yield d
    if d._writer is not None:
        d._writer.close()
    shutil.rmtree(d._dir, ignore_errors=True)


class Net:
    """The two seats' watch sockets, sans-I/O: seat ``s`` holds ``logs[s]`` and answers each
    WATCH it gets with its records from ``have`` (64 a batch), each renewal of its subscriber
    with an empty RECORDS when it has nothing new, as a seat does (§N10 'RECORDS'); ``signer``
    (default: the seats' own keys) signs what seat ``s`` sends. The driver's clock is ``now``."""

    def __init__(self, driver, logs: list, signer: list | None = None) -> None:
        self.driver, self.logs, self.now = driver, logs, 0.0
        self.signer = signer or SEATS
        self.addrs = {0: ("127.0.0.2", 1), 1: ("127.0.0.3", 1)}
        self.sent: list = []  # (address, WATCH have) the spectator sent, in order
        self.pending: list = []
        driver.clock = lambda: self.now
        ep = SimpleNamespace(pin=lambda *a: None, forget=lambda a: None, trust=lambda a: None, trusted=set())
        driver.link = SimpleNamespace(endpoint=ep, send=self._send)
        driver.browser = SimpleNamespace(found=dict(self.addrs), next_address=self.addrs.get)
        driver.server, driver.silence_s = self.addrs[0], WATCH_SILENCE_S
        assert driver.client.receive(self._records(0, 0, logs[0][:HELD])) == HELD
        assert driver._write_new()

    def _records(self, seat: int, index: int, recs: list) -> bytes:
        return seal_message(self.signer[seat], MSG_RECORDS, Records(GID, index, [list(r) for r in recs]))

    def _send(self, addr, data: bytes) -> None:
        have = open_as(data, MSG_WATCH, decode_watch, 1200)[1].have
        self.sent.append((addr, have))
        self.pending.append((addr, have))

    def run(self, until: float, stop=lambda: False) -> None:
        """Renew (seat 0 answers empty), tick the driver, deliver the seats' answers, every
        ``WATCH_RENEW_S`` of virtual clock until ``until`` or ``stop()``."""
        while self.now < until and not stop():
            self.now += WATCH_RENEW_S
            self.driver.link.send(self.driver.server, self.driver.client.watch_message())  # the renewal
            self.driver._failover()
            pending, self.pending = self.pending, []
            for addr, have in pending:
                seat = next(s for s, a in self.addrs.items() if a == addr)
                log = self.logs[seat]
                self.driver._on_message(addr, self._records(seat, have, log[have:have + 64]) if have < len(log)
                                        else self._records(seat, len(log), []))


def test_a_quiet_game_never_switches_and_probes_at_most_once_per_watch_stall_s(driver):
    """§N10 'A stalled server': every seat holds the same records (a player thinking for 10
    minutes): the spectator stays with its server, asks seat 1 at most once per
    WATCH_STALL_S (each time with a switch's resync ``have``), and never switches."""
    good = records()[:HELD]
    net = Net(driver, [good, good])
    net.run(600.0)
    probes = [(a, h) for a, h in net.sent if a == net.addrs[1]]
    assert driver.server == net.addrs[0] and driver.switches == 0 and driver.server_seat is None
    assert 1 <= len(probes) <= 600.0 / WATCH_STALL_S + 1, len(probes)
    assert {h for _, h in probes} == {resync_have(driver.client.records, 0, RESYNC_MARGIN)}
    assert driver.stall.stats == {"probes": len(probes), "ahead": 0, "ignored": len(probes)}
    assert len(driver.client.records) == HELD


def test_a_stalled_server_is_left_for_a_seat_ahead_and_the_whole_game_verifies(driver):
    """§N10 'A stalled server': seat 0 answers every renewal empty after 40 records; seat 1,
    asked after WATCH_STALL_S without a new step, holds a step beyond ours: the spectator follows
    it from its last step, taking the probe's answer as the resync's first batch, and its copy
    of the log verifies to the end of the game (as the players' final state)."""
    import engine
    from ui.watch import verify_records

    good = records()
    net = Net(driver, [good[:HELD], good])
    net.run(120.0, stop=lambda: driver.server_seat == 1)
    assert driver.server_seat == 1 and driver.switches == 1 and driver.stall.stats["ahead"] == 1
    assert net.now <= WATCH_STALL_S + WATCH_RENEW_S and not driver.bad  # nobody named: being behind is no lie
    net.run(net.now + 60.0)
    assert len(driver.client.records) == len(good) and driver._write_new()
    report, rec = verify_records(driver._dir / "game.log", engine)
    assert report.ok and report.complete, report.error
    assert engine.state_hash(rec.state).hex() == FACTS["final_state_hash"]


def test_a_probe_answer_not_signed_by_the_probed_seat_is_ignored(driver):
    """An answer at seat 1's address signed by another key (seat 0's) does not move us."""
    good = records()
    net = Net(driver, [good[:HELD], good], signer=[SEATS[0], SEATS[0]])
    net.run(60.0)
    assert driver.server_seat is None and driver.switches == 0 and driver.stall.stats["ahead"] == 0
    assert driver.stall.stats["probes"] >= 3 and len(driver.client.records) == HELD


def test_a_seat_that_lied_is_never_probed(driver):
    """A seat the spectator named (``bad``) is never asked: with no other seat, no probe."""
    good = records()
    driver.bad[1] = object()
    net = Net(driver, [good[:HELD], good])
    net.run(60.0)
    assert not [a for a, _ in net.sent if a == net.addrs[1]] and driver.stall.stats["probes"] == 0


def test_the_stall_clock_restarts_with_each_new_step_and_probes_round_robin():
    """``StallProbe``: due ``stall_s`` after the later of the last new step and the last probe;
    a step not beyond the last is no progress; seats probed least recently first."""
    probe = StallProbe(10.0)
    probe.progress(0.0, 5)
    assert not probe.due(9.9) and probe.due(10.0)
    probe.progress(8.0, 5)  # no new step
    assert probe.due(10.0)
    probe.progress(8.0, 6)
    assert not probe.due(17.9) and probe.due(18.0)
    keys = {1: b"k1", 2: b"k2", 3: b"k3"}
    picked = []
    for t in range(4):
        seat = probe.pick([1, 2, 3], keys.get)
        probe.sent(18.0 + 10 * t, ("a", seat), keys[seat], 1)
        picked.append(seat)
    assert picked == [1, 2, 3, 1] and not probe.due(18.0 + 39.9) and probe.due(18.0 + 40)
    assert probe.pick([], keys.get) is None
    assert last_step([(0, b"header")]) == (0, -1)


def test_only_the_probes_own_answer_can_move_us():
    """``StallProbe.ahead``: the seat's empty sign of life leaves the probe waiting; a batch from
    beyond the ``have`` we asked (a later batch of the subscription our probe opened, maybe sent
    after the game moved on: as a resync's first batch it would restart it from the header) or
    one another key signed is ignored; the probe's answer with a step beyond ours names the seat
    to follow and ends the probe; so does one with nothing beyond ours."""
    from p2p.const import MAX_WATCH_MSG

    good = records()
    have = resync_have(good[:HELD], 0, RESYNC_MARGIN)
    ours = last_step(good[:HELD])[1]

    def rec(seat, index, recs):
        return seal_message(SEATS[seat], MSG_RECORDS, Records(GID, index, [list(r) for r in recs]))

    probe = StallProbe()
    probe.sent(0.0, "a1", SEATS[1].public_key, have)
    assert probe.ahead(rec(1, have, []), GID, MAX_WATCH_MSG, ours) is None and probe.probing("a1")
    assert probe.ahead(rec(1, have + 1, good[have + 1:have + 60]), GID, MAX_WATCH_MSG, ours) is None
    assert probe.ahead(rec(0, have, good[have:have + 60]), GID, MAX_WATCH_MSG, ours) is None and probe.probing("a1")
    assert probe.ahead(rec(1, have, good[have:have + 60]), GID, MAX_WATCH_MSG, ours) == SEATS[1].public_key
    assert not probe.probing("a1") and probe.stats["ahead"] == 1
    probe.sent(14.0, "a1", SEATS[1].public_key, have)
    assert probe.ahead(rec(1, have, good[have:HELD]), GID, MAX_WATCH_MSG, ours) is None and not probe.probing("a1")
    assert probe.stats == {"probes": 2, "ahead": 1, "ignored": 1}


def test_over_loopback_a_seat_serving_only_empty_answers_is_left_for_one_that_serves():
    """Real ``WatchServer`` seats over loopback: seat 0 (the advertiser) holds only the first
    40 records, so it answers every renewal with its signed empty RECORDS; seat 1 holds the
    whole game. With ``stall_s`` = 1 s the spectator probes seat 1, follows it, and sees the
    game to its end, verified (before H176 it stayed on seat 0 until its timeout)."""
    import engine
    from ui.watch import WatchDriver

    good = records()

    async def run():
        seats = [SeatServer(SEATS[0], good[:HELD]), SeatServer(SEATS[1], good)]
        addrs = [await seat.open() for seat in seats]
        ad = SimpleNamespace(game_id=GID, edition=FACTS["edition"], seats_total=2, address=addrs[0][0],
                             watch_port=addrs[0][1], public_key=SEATS[0].public_key,
                             x25519_key=SEATS[0].x25519_public_key)
        watcher = WatchDriver(ad, "127.0.0.1", name="Prof", silence_s=5.0, stall_s=1.0)
        watcher.browser = Found(dict(enumerate(addrs)))
        try:
            await asyncio.wait_for(watcher.run(), 30)
        finally:
            for seat in seats:
                await seat.close()
        return watcher

    watcher = asyncio.run(run())
    assert watcher.fault is None and watcher.phase == "over"
    assert engine.state_hash(watcher.state).hex() == FACTS["final_state_hash"]
    assert watcher.server_seat == 1 and watcher.switches == 1 and not watcher.bad
    assert watcher.stall.stats["ahead"] == 1
