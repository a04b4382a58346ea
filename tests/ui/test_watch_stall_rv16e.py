"""The stall probe against a hostile seat or a forger of watch adverts (protocol.md §N10 'A
stalled server', 'What holds'; RV16-E's review of H176's ef7fa1a, fixed by H181).

Sans-I/O (virtual clock; the sample game of tests/vectors, 2 seats, each seat's own key signs
what it serves) with the spectator's real ``p2p.endpoint.Endpoint``: the channels it pins are
the ones a ``Link`` would hold. Each test failed at ef7fa1a:

* F1: a seat that is not our server answers one probe with a made-up next step (no record of
  our last step before it), then only its empty RECORDS: the resync never aligned and, being
  "heard", was never left: the spectator of an honest server stayed with that seat for good.
  A resync not aligned ``WATCH_STALL_S`` after its switch now counts as silence. Same for a
  seat reached by a silence failover that never aligns (F1b).
* F4: each probe pinned a trusted channel at the probed seat's next DNS-SD address and none was
  forgotten: forged adverts at fresh addresses made the 32nd pin raise out of the driver.
* F2: a forged advert naming our server's address re-keyed our server's channel.
"""

from __future__ import annotations

from types import SimpleNamespace

from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.gamelog import KIND_STEP, STEP_RECORD, StepRecord
from p2p.spectate import WATCH_RENEW_S, WATCH_SILENCE_S
from p2p.wire import MSG_RECORDS, MSG_WATCH, Records, decode_watch, open_as, seal_message
from test_watch_lying_seat import GID, SEATS, records
from test_watch_stall import driver  # noqa: F401  (the fixture: seat 0's spectator)
from ui.watch_stall import WATCH_STALL_S, last_step

HELD = 40  # records every seat holds while the game is quiet
A0, A1 = ("127.0.0.2", 1), ("127.0.0.3", 1)  # the seats' watch sockets


def rec(seat: int, index: int, recs: list) -> bytes:
    """Seat ``seat``'s signed RECORDS of ``recs`` from record number ``index``."""
    return seal_message(SEATS[seat], MSG_RECORDS, Records(GID, index, [list(r) for r in recs]))


class Net:
    """Seat ``s`` answers each WATCH sent to its address with ``answer(s, have)`` (default: its
    log ``logs[s]()`` from ``have``, 64 a batch, or its empty RECORDS); an address of no seat
    (forged) answers nothing. ``next_address``: DNS-SD's, per seat. The driver's clock is ``now``."""

    def __init__(self, driver, logs: list, answer=None, next_address=None) -> None:
        self.d, self.logs, self.now, self.pending = driver, logs, 0.0, []
        self.answer = answer or self.honest
        self.ep = Endpoint(max_peers=32, keys=KeyCache(driver.identity))
        driver.clock = lambda: self.now
        driver.link = SimpleNamespace(endpoint=self.ep, send=self._send)
        found = {0: A0, 1: A1}
        driver.browser = SimpleNamespace(found=found, next_address=next_address or found.get)
        driver.server, driver.silence_s = A0, WATCH_SILENCE_S
        self.ep.pin(A0, SEATS[0].x25519_public_key)  # as WatchDriver.run does
        assert driver.client.receive(rec(0, 0, logs[0]()[:HELD])) == HELD
        assert driver._write_new()

    def honest(self, seat: int, have: int) -> bytes:
        log = self.logs[seat]()
        return rec(seat, have, log[have:have + 64]) if have < len(log) else rec(seat, len(log), [])

    def _send(self, addr, data: bytes) -> None:
        self.pending.append((addr, open_as(data, MSG_WATCH, decode_watch, 1200)[1].have))

    def run(self, until: float) -> None:
        """Every ``WATCH_RENEW_S``: renew, tick the driver, deliver the answers, write the copy."""
        while self.now < until and self.d.phase in ("lobby", "playing"):
            self.now += WATCH_RENEW_S
            if self.d.server is not None:
                self.d.link.send(self.d.server, self.d.client.watch_message())
            self.d._failover()
            pending, self.pending = self.pending, []
            for addr, have in pending:
                seat = {A0: 0, A1: 1}.get(addr)
                if seat is not None:
                    self.d._on_message(addr, self.answer(seat, have))
            assert self.d._write_new()

    def pinned(self) -> dict:
        """Address -> the X25519 key its channel is keyed with, of every trusted address."""
        return {a: (ch.keys.peer_xk if ch.keys else None) for a, ch in self.ep.channels.items()
                if a in self.ep.trusted}


def test_f1_a_seat_answering_a_probe_with_a_made_up_step_holds_the_spectator_at_most_watch_stall_s(driver):
    """§N10 'A stalled server', 'What holds': seat 0 (our server) is honest and the game is quiet
    for 30 s; seat 1, probed, answers with one made-up STEP record of the step after ours at the
    ``have`` asked (no record of our last step before it), then every WATCH with its empty RECORDS.
    The spectator follows it (the resync restarts from its header), but a resync not aligned
    ``WATCH_STALL_S`` after its switch counts as silence: it goes back to seat 0 and, when the
    game goes on, sees it to its end (at ef7fa1a: 40 of 248 records, resyncing with seat 1)."""
    good = records()
    ours = last_step(good[:HELD])[1]
    resumed = []
    made_up = [(KIND_STEP, STEP_RECORD.encode(StepRecord(ours + 1, [None, None])))]

    asked = []  # the WATCHes seat 1 got

    def answer(seat, have):
        if seat == 0:
            return net.honest(0, have)
        asked.append(have)
        return rec(1, have, made_up) if len(asked) == 1 else rec(1, 0, [])  # then only signs of life

    net = Net(driver, [lambda: good if resumed else good[:HELD], lambda: good[:HELD]], answer)
    net.run(WATCH_STALL_S + WATCH_RENEW_S)
    assert driver.server_seat == 1 and driver.client.resyncing  # taken by the made-up step
    switched = net.now
    net.run(switched + WATCH_STALL_S + WATCH_RENEW_S)
    assert driver.server_seat == 0 and not driver.client.resyncing, (driver.server_seat, net.now - switched)
    resumed.append(True)  # the game goes on; seat 0 serves it
    net.run(net.now + 60.0)
    assert len(driver.client.records) == len(good) and not driver.bad


def test_f1b_a_seat_reached_by_a_silence_failover_that_never_aligns_is_left_after_watch_stall_s(driver):
    """§N10 'What holds': seat 0 goes silent after 40 records; the spectator follows seat 1,
    which answers every WATCH with its empty RECORDS at the ``have`` asked (the resync never
    aligns, yet each answer is 'heard'). It is left ``WATCH_STALL_S`` after the switch (at
    ef7fa1a: resyncing with seat 1 for good)."""
    good = records()
    net = Net(driver, [lambda: good[:HELD], lambda: good],
              answer=lambda seat, have: rec(1, have, []) if seat == 1 else None)
    driver._on_message = (lambda real: lambda a, p: None if p is None else real(a, p))(driver._on_message)
    net.run(WATCH_SILENCE_S + WATCH_RENEW_S)
    assert driver.server_seat == 1 and driver.client.resyncing
    switched = net.now
    net.run(switched + WATCH_STALL_S + 1.0)
    assert driver.server_seat == 0 and driver.switches == 2, (driver.server_seat, driver.switches)


def test_f4_forged_adverts_at_fresh_addresses_never_exhaust_the_spectators_channels(driver):
    """§N10 'What holds' (a forged watch advert costs a silence, never the view): a forger
    advertises seat 1's public keys at a fresh address each time (DNS-SD gives the newest first);
    an hour of a quiet game probes one after another. Only our server's and our last probe's
    channels stay pinned (at ef7fa1a the 32nd probe raised LocalProtocolError out of the driver,
    which ends ``lanopoli watch``, after 480 s)."""
    good = records()
    ports = iter(range(2000, 10_000))
    net = Net(driver, [lambda: good[:HELD], lambda: good[:HELD]],
              next_address=lambda s: A0 if s == 0 else ("10.9.0.1", next(ports)))
    net.run(3600.0)
    pinned = net.pinned()
    assert driver.stall.stats["probes"] >= 200 and driver.server == A0  # one per 15 s (ticks of 3 s)
    assert len(pinned) == 2 and pinned[A0] == SEATS[0].x25519_public_key, pinned
    assert len(net.ep.channels) == 2


def test_f2_a_probe_along_a_forged_advert_never_rekeys_our_servers_channel(driver):
    """§N2.6's forged advert naming a live seat's address, reached by a spectator's probe: seat
    1's keys advertised at seat 0's watch address (our server's). The probe sends nothing there
    and pins nothing; the round robin moves on (at ef7fa1a the channel was re-keyed with seat 1's
    key, our server's datagrams then failed their MAC and we failed over after a silence)."""
    good = records()
    net = Net(driver, [lambda: good[:HELD], lambda: good[:HELD]], next_address=lambda s: A0)
    net.run(5 * WATCH_STALL_S)
    assert driver.stall.stats["probes"] >= 4 and driver.switches == 0 and driver.server == A0
    assert net.pinned() == {A0: SEATS[0].x25519_public_key}


def test_a_switch_forgets_the_old_servers_channel(driver):
    """``_follow`` (the older path of F4's leak): after a silence failover to seat 1 the silent
    seat 0's channel is forgotten and no longer vouched for; only seat 1's stays pinned."""
    good = records()
    net = Net(driver, [lambda: good[:HELD], lambda: good],
              answer=lambda seat, have: net.honest(1, have) if seat == 1 else None)
    driver._on_message = (lambda real: lambda a, p: None if p is None else real(a, p))(driver._on_message)
    net.run(WATCH_SILENCE_S + WATCH_RENEW_S)
    assert driver.server_seat == 1
    assert net.pinned() == {A1: SEATS[1].x25519_public_key} and A0 not in net.ep.trusted
