"""Red team session 11 (H107): a seat lying to its spectators, against the spectator's memory
(protocol.md §N10 "The spectator", "A seat that lies").

The sample game of tests/vectors (2 seats, real engine, the seats' own keys from game.json, as
tests/ui/test_watch_lying_seat.py uses it). Sans-I/O: RECORDS envelopes signed by the seat go
straight into the driver's ``WatchClient.receive`` (what ``WatchDriver._on_message`` does), then
the driver's own ``_write_new``, ``verify_records`` and ``_show``.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

from p2p.identity import Identity
from p2p.spectate import WatchClient
from p2p.wire import MSG_RECORDS, Records, seal_message

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ui"))
from test_watch_lying_seat import FACTS, GID, SEATS, records  # noqa: E402  (the sample game's seats)

LIAR = 0


def test_a_seat_cannot_make_its_spectator_hold_records_it_never_verifies():
    """BREAK (MED, resources: a spectator's memory; the game is not touched). The seat the
    spectator follows (the host: its advert's ``wp``) signs RECORDS whose records are of a kind
    no log has (kind 200, §C6 knows 0-6), 256 records of 250 B per message (65 KB, under
    MAX_WATCH_MSG), right after a prefix of the real game. ``WatchClient.receive`` checks the
    signature and the numbering only and appends them to ``records`` (and the envelope to
    ``sources``); ``WatchDriver._write_new`` skips any kind it does not know without a word, so
    they never reach the verified copy: ``verify`` passes, the seat is not named, the records stay
    for the whole view. Here 40 messages (2.6 MB) leave 10,240 junk records held; the seat is the
    sender, bound by no credit: at LAN rate (~10 MB/s) a spectator holds ~1 GB after two minutes
    (measured: 200 messages, 13 MB, took 0.4 s to take in). Then the seat serves the real rest and
    the view ends 'over', verified. Suggested fix: in ``_write_new`` a record of an unknown kind
    is the sender's lie (``_reject``, like a STEP record that does not parse), and/or
    ``WatchClient.receive`` drops records of kinds other than §C6's (counted)."""
    import engine
    from ui.watch import WatchDriver, verify_records

    good = records()
    spec = Identity.from_seed(b"h107-spectator")
    ad = SimpleNamespace(game_id=GID, edition=FACTS["edition"], seats_total=2, address="127.0.0.1", watch_port=1,
                         public_key=SEATS[LIAR].public_key, x25519_key=SEATS[LIAR].x25519_public_key)
    driver = WatchDriver(ad, "127.0.0.1", identity=spec)
    try:
        client = driver.client = WatchClient(spec, GID, SEATS[LIAR].public_key, "s")

        def serve(recs) -> int:
            return client.receive(seal_message(SEATS[LIAR], MSG_RECORDS, Records(GID, len(client.records), recs)))

        assert serve([[k, p] for k, p in good[:40]]) == 40
        junk = [[200, bytes(250)] for _ in range(256)]
        # Signed by the seat, numbered right: all 10,240 were taken before the fix (H111: the
        # client now keeps the first, as evidence, and nothing after it; the oracle asserted the
        # attack's first step, which the fix removes, so it became the memory bound below).
        taken = sum(serve(junk) for _ in range(40))
        assert taken <= 1, f"{taken} records of an unknown kind held before any check"
        for i in range(40, len(good), 20):
            serve([[k, p] for k, p in good[i:i + 20]])
        assert driver._write_new()
        report, rec = verify_records(driver._dir / "game.log", engine)
        driver._show(report, rec)
        # The seat that sent a kind no log has is named (§N10: the sender's lie), and the client
        # holds the good prefix and at most the one record kept as evidence, nothing after it.
        assert LIAR in driver.bad, f"the seat that sent unknown record kinds is not named (view: {driver.phase})"
        assert len(client.records) <= 40 + 1, f"{len(client.records) - 40} records held after the good prefix"
    finally:
        if driver._writer is not None:
            driver._writer.close()
        shutil.rmtree(driver._dir, ignore_errors=True)


def test_a_seat_re_signing_its_own_step_then_going_silent_is_the_one_named():
    """Holds (§N10 'A seat that lies'). The host (seat 0) serves its spectator the real game up to
    step k, where it puts a second STEP message of its own, validly signed (nil instead of the
    action it played: one signature, no equivocation on the table), then falls silent. Step k
    verifies alone (its messages are signed over step k-1); only step k+1's messages, signed
    over the real step k, show the lie. The spectator follows seat 1 from its last STEP record
    (the forged one, step k) and gets seat 1's honest records: the check fails at step k
    ('a message of this step was altered'), and the record named is the forged STEP k, which
    seat 0 sent: seat 0 is named, not the honest seat 1."""
    import engine
    from p2p.envelope import MSG_STEP, open_envelope
    from p2p.gamelog import KIND_STEP, STEP_RECORD, StepRecord
    from p2p.spectate import WatchServer
    from p2p.wire import decode_step_body
    from ui.watch import WatchDriver, verify_records

    good = records()
    at = next(j for j in range(10, len(good)) if good[j][0] == KIND_STEP
              and (m := STEP_RECORD.decode(good[j][1]).messages[LIAR]) is not None
              and type(decode_step_body(open_envelope(m).body).input) is list)
    rec = STEP_RECORD.decode(good[at][1])
    msgs = list(rec.messages)
    body = decode_step_body(open_envelope(msgs[LIAR]).body)
    msgs[LIAR] = seal_message(SEATS[LIAR], MSG_STEP, body._replace(input=None))  # its own key: a valid signature
    forged = good[:at] + [(KIND_STEP, STEP_RECORD.encode(StepRecord(rec.step, msgs)))]
    spec = Identity.from_seed(b"h107-spectator")
    ad = SimpleNamespace(game_id=GID, edition=FACTS["edition"], seats_total=2, address="127.0.0.1", watch_port=1,
                         public_key=SEATS[LIAR].public_key, x25519_key=SEATS[LIAR].x25519_public_key)
    driver = WatchDriver(ad, "127.0.0.1", identity=spec, silence_s=7.0)
    addr = ("127.0.0.50", 5000)
    try:
        driver.client = WatchClient(spec, GID, SEATS[LIAR].public_key, "s")

        def serve(server, recs, now):
            server.receive(driver.client.watch_message(), addr, spec.x25519_public_key, now)
            for _, raw in server.outgoing(recs, now):
                driver.client.receive(raw)

        liar, now = WatchServer(SEATS[LIAR], GID), 0.0
        for _ in range(10):
            serve(liar, forged, now)
            now += 3.0
        assert len(driver.client.records) == len(forged) and driver._write_new()
        report, checked = verify_records(driver._dir / "game.log", engine)
        driver._show(report, checked)
        assert report.ok and not driver.bad  # step k alone verifies: the lie is not visible yet
        ep = SimpleNamespace(pin=lambda *a: None, forget=lambda a: None, trust=lambda a: None, trusted=set())
        driver.link = SimpleNamespace(endpoint=ep, send=lambda *a: None)
        found = {0: ("127.0.0.2", 1), 1: ("127.0.0.3", 1)}
        driver.browser = SimpleNamespace(found=found, next_address=found.get)
        driver.clock = lambda: 1e6  # seat 0 silent: failover to seat 1
        driver._failover()
        assert driver.server_seat == 1 and driver.client.resyncing
        honest = WatchServer(SEATS[1], GID)
        for _ in range(200):
            serve(honest, good, now)
            now += 3.0
            if len(driver.client.records) == len(good) and not driver.client.resyncing:
                break
        assert driver._write_new()
        report, checked = verify_records(driver._dir / "game.log", engine)
        driver._show(report, checked)
        assert set(driver.bad) == {LIAR} and driver.bad[LIAR].step == rec.step
    finally:
        if driver._writer is not None:
            driver._writer.close()
        shutil.rmtree(driver._dir, ignore_errors=True)
