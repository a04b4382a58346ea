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

import pytest

from p2p.identity import Identity
from p2p.spectate import WatchClient
from p2p.wire import MSG_RECORDS, Records, seal_message

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ui"))
from test_watch_lying_seat import FACTS, GID, SEATS, records  # noqa: E402  (the sample game's seats)

LIAR = 0


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="§N10 'The spectator' / 'A seat that lies' (H107 s11 #5): records of a kind the "
                          "spectator does not know are kept, never written, never verified, never cut: "
                          "a seat grows its spectators' memory without bound and is never named")
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
        for _ in range(40):
            assert serve(junk) == len(junk)  # taken: signed by the seat, numbered right
        for i in range(40, len(good), 20):
            serve([[k, p] for k, p in good[i:i + 20]])
        assert driver._write_new()
        report, rec = verify_records(driver._dir / "game.log", engine)
        driver._show(report, rec)
        held = len(client.records) - len(good)
        assert LIAR in driver.bad or held <= 0, (
            f"{held} records of an unknown kind held, never verified; the seat not named (view: {driver.phase})")
    finally:
        if driver._writer is not None:
            driver._writer.close()
        shutil.rmtree(driver._dir, ignore_errors=True)
