"""Red team session 16 (H174), tests only: a hostile watched seat against the teacher's
``lanopoli watch`` (protocol.md §N10 'A seat that lies', "The spectator").

The sample game of tests/vectors (2 seats, real engine, the seats' own keys), sans-I/O as
tests/p2p/test_redteam_s11_watch_client.py: RECORDS envelopes signed by the seat go straight into
``WatchClient.receive``, then the driver's own ``_write_new``, ``verify_records`` and ``_show``.
Session 11 (H107 #5) closed records of a kind no log has; here the junk is of a log's own kind.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from p2p.gamelog import KIND_STEP, STEP_RECORD, StepRecord
from p2p.identity import Identity
from p2p.spectate import WATCH_RENEW_S, WATCH_SILENCE_S, WatchClient
from p2p.wire import MSG_RECORDS, MSG_WATCH, Records, decode_watch, open_as, seal_message

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ui"))
from test_watch_lying_seat import FACTS, GID, SEATS, records  # noqa: E402  (the sample game's seats)

LIAR = 0


@pytest.fixture
def driver():
    """A ``WatchDriver`` following seat ``LIAR`` of the sample game, its client set; its temporary
    log copy closed and removed after the test."""
    from ui.watch import WatchDriver

    spec = Identity.from_seed(b"h174-spectator")
    ad = SimpleNamespace(game_id=GID, edition=FACTS["edition"], seats_total=2, address="127.0.0.1", watch_port=1,
                         public_key=SEATS[LIAR].public_key, x25519_key=SEATS[LIAR].x25519_public_key)
    d = WatchDriver(ad, "127.0.0.1", identity=spec)
    d.client = WatchClient(spec, GID, SEATS[LIAR].public_key, "s")
    yield d
    if d._writer is not None:
        d._writer.close()
    shutil.rmtree(d._dir, ignore_errors=True)


def _serve(client, recs) -> int:
    return client.receive(seal_message(SEATS[LIAR], MSG_RECORDS, Records(GID, len(client.records), recs)))


def test_junk_step_records_are_cut_at_the_next_check_and_their_seat_named(driver):
    """Holds (§N10 'A seat that lies'): the seat the spectator follows signs, after the first 40
    records of the real game, 40 RECORDS of 256 records each of kind STEP (a kind every log has)
    whose payloads are well-formed STEP records of made-up steps (step numbers going on from the
    last real one, no messages): 10,240 records, ~0.4 MB. The client takes them (it checks only
    the kind, the signature and the numbering); the driver's next check (``verify_records``)
    fails at the first of them, names the seat, and cuts the client back to the good prefix: what
    a lying seat makes a spectator hold is what it sends between two checks, then nothing."""
    import engine
    from ui.watch import verify_records

    good = records()
    client = driver.client
    assert _serve(client, [[k, p] for k, p in good[:40]]) == 40
    last = max(STEP_RECORD.decode(p).step for k, p in good[:40] if k == KIND_STEP)
    taken, nxt = 0, last + 1
    for _ in range(40):
        batch = [[KIND_STEP, STEP_RECORD.encode(StepRecord(nxt + i, [None, None]))] for i in range(256)]
        nxt += 256
        taken += _serve(client, batch)
    assert taken == 40 * 256  # premise: the client holds them all before the check
    assert driver._write_new()
    driver._show(*verify_records(driver._dir / "game.log", engine))
    named = LIAR in driver.bad
    kept = len(client.records) - 40
    assert named and kept <= 1, f"seat named: {named}; {kept} records held after the good prefix ({driver.phase})"


class _Seen:
    """The driver's surroundings, sans-I/O: a virtual clock, the link (datagrams sent are kept),
    and DNS-SD having found both seats' watch sockets."""

    def __init__(self, driver):
        self.now = 0.0
        self.sent: list = []
        self.found = {0: ("127.0.0.2", 1), 1: ("127.0.0.3", 1)}
        driver.clock = lambda: self.now
        ep = SimpleNamespace(pin=lambda *a: None, forget=lambda a: None, trust=lambda a: None, trusted=set())
        driver.link = SimpleNamespace(endpoint=ep,
                                      send=lambda addr, data: self.sent.append((addr, data)))
        driver.browser = SimpleNamespace(found=self.found, next_address=self.found.get)
        driver.server, driver.server_seat = self.found[LIAR], None
        driver.silence_s = WATCH_SILENCE_S  # as WatchDriver.run sets it


def _withhold(driver, answer: bool) -> tuple:
    """The spectator follows seat 0, which serves the first 40 records of the sample game, then
    for up to 120 s of virtual clock sends, at each renewal (every WATCH_RENEW_S), its signed
    empty RECORDS (``answer``) or nothing, while seat 1 (found on DNS-SD) holds the whole game.
    Seat 1 answers each WATCH sent to it as a live seat does: its records from the WATCH's
    ``have`` (H176: it used to be given no chance to answer; the spectator never asked it).
    Returns (seat followed at the end, virtual seconds until then, records in the game)."""
    good = records()
    env = _Seen(driver)
    assert _serve(driver.client, [[k, p] for k, p in good[:40]]) == 40
    assert driver._write_new()
    empty = seal_message(SEATS[LIAR], MSG_RECORDS, Records(GID, 40, []))
    answered = 0
    while env.now < 120.0 and driver.server_seat != 1:
        env.now += WATCH_RENEW_S
        if answer:
            driver._on_message(env.found[LIAR], empty)  # the seat's answer to our renewal: alive, nothing new
        driver._failover()
        for addr, data in env.sent[answered:]:
            if addr == env.found[1]:  # seat 1 holds the whole game and serves it from `have` on
                have = open_as(data, MSG_WATCH, decode_watch, 1200)[1].have
                driver._on_message(addr, seal_message(SEATS[1], MSG_RECORDS, Records(GID, have, good[have:have + 64])))
        answered = len(env.sent)
    return driver.server_seat, env.now, len(good)


def test_hold_a_watched_seat_gone_silent_costs_watch_silence_s_then_another_seat_serves(driver):
    """Holds (§N10 'What holds': a seat that drops out costs its spectators WATCH_SILENCE_S of a
    frozen view, then they follow another seat): seat 0 stops answering after 40 records; the
    spectator follows seat 1 within WATCH_SILENCE_S + one renewal."""
    seat, t, _ = _withhold(driver, answer=False)
    assert seat == 1 and t <= WATCH_SILENCE_S + WATCH_RENEW_S, (seat, t)


def test_n10_a_seat_withholding_records_behind_empty_answers_costs_a_bounded_frozen_view(driver):
    """§N10 ('What holds': a seat that drops out or is killed costs its spectators WATCH_SILENCE_S
    of a frozen view, then they follow another seat; 'empty RECORDS': the seat's sign of life, so
    that a spectator tells a quiet game from a gone server). The spectator follows the advertiser,
    seat 0, which serves the first 40 records of the sample game, then for 120 s of virtual clock
    answers each renewal (every WATCH_RENEW_S) only with its signed empty RECORDS while the game
    goes on: seat 1, found on DNS-SD, holds the whole game (``_withhold``). Rule checked: within 3 x
    WATCH_SILENCE_S of no new record the spectator has asked another seat (follows seat 1)."""
    seat, t, total = _withhold(driver, answer=True)
    assert total > 40 + 100  # premise: the game went on far beyond what the seat served
    assert seat == 1 and t <= 3 * WATCH_SILENCE_S, f"still following seat {seat} after {t:.0f} s (40 of {total})"
