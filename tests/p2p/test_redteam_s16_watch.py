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
from p2p.spectate import WatchClient
from p2p.wire import MSG_RECORDS, Records, seal_message

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
