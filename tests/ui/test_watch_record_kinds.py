"""Every record kind a game log holds reaches the spectator's copy of the log, and any other is
its sender's lie (protocol.md §N10 'RECORDS', 'A seat that lies'; §C6 record kinds; red team
session 11, H107 #3 and #5: kind-6 SKIP records were dropped from the copy, unknown kinds held
unchecked).

The sample game's header (tests/vectors/game.lnplog) and records handed to the driver's
``WatchClient`` as ``receive`` adds them (with the seat that sent each, ``sources``); then the
driver's own ``_write_new``. The copy's records are read back with ``LogReader``.
"""

from __future__ import annotations

import shutil
from types import SimpleNamespace

import pytest

from p2p.gamelog import (KIND_ABANDON, KIND_COMPLAINT, KIND_DROP, KIND_HEADER, KIND_OWN, KIND_SKIP, KIND_STEP,
                         LogReader)
from p2p.identity import Identity
from p2p.spectate import LOG_KINDS, WatchClient
from p2p.wire import MSG_RECORDS, Records, seal_message
from ui.watch import WatchDriver, record_appenders

from test_watch_lying_seat import FACTS, GID, SEATS, records


@pytest.fixture
def driver():
    ad = SimpleNamespace(game_id=GID, edition=FACTS["edition"], seats_total=2, address="127.0.0.1", watch_port=1,
                         public_key=SEATS[0].public_key, x25519_key=SEATS[0].x25519_public_key)
    d = WatchDriver(ad, "127.0.0.1", identity=Identity.from_seed(b"kinds-spectator"))
    d.client = WatchClient(d.identity, GID, SEATS[0].public_key, "s")
    yield d
    if d._writer is not None:
        d._writer.close()
    shutil.rmtree(d._dir, ignore_errors=True)


def _serve(d: WatchDriver, recs: list) -> int:
    """``recs`` signed by seat 0 in one RECORDS, taken as ``WatchDriver._on_message`` takes it."""
    msg = Records(GID, len(d.client.records), [[k, p] for k, p in recs])
    return d.client.receive(seal_message(SEATS[0], MSG_RECORDS, msg))


def test_log_kinds_are_every_kind_after_the_header_but_the_own_message_logs():
    """§C6: a game log holds STEP, DROP, SKIP, ABANDON and COMPLAINT records after its header;
    KIND_OWN is the own-message log's only."""
    assert LOG_KINDS == {KIND_STEP, KIND_DROP, KIND_SKIP, KIND_ABANDON, KIND_COMPLAINT}
    assert KIND_OWN not in LOG_KINDS and KIND_HEADER not in LOG_KINDS


def test_every_kind_a_game_log_holds_is_written_to_the_copy_as_served(driver):
    """The copy holds what the seat served, record for record (kind and bytes): the real first
    steps, then one record of each non-step kind (their payloads are checked by the replay,
    not here)."""
    good = records()
    served = good[:6] + [(KIND_DROP, b"drop"), (KIND_SKIP, b"skip"), (KIND_COMPLAINT, b"complaint"),
                         (KIND_ABANDON, b"abandon")]
    assert _serve(driver, served) == len(served)
    assert driver._write_new() and driver._written == len(served)
    driver._writer.close()
    driver._writer = None
    copy = [(r.kind, r.payload) for r in LogReader(driver._dir / "game.log")]
    assert copy == served


@pytest.mark.parametrize("kind", [KIND_OWN, KIND_HEADER, 7, 200])
def test_a_record_of_a_kind_no_game_log_holds_names_its_seat(driver, kind):
    """A record of another kind (an own-message record, a second header, a kind no log has)
    is the serving seat's lie: the client keeps it (the evidence) and nothing after it, the
    driver names the seat (``bad``) and cuts its copy back to the last step before it."""
    good = records()
    assert _serve(driver, good[:6] + [(kind, b"x"), (KIND_STEP, good[6][1])]) == 7
    assert _serve(driver, good[7:9]) == 0 and driver.client.stats["after_bad_kind"] == 1
    assert driver._write_new()
    assert set(driver.bad) == {0} and driver.bad[0].evidence and "kind" in driver.bad[0].reason
    assert driver.server is None  # no other seat found yet: it follows nobody
    assert all(k in LOG_KINDS for k, _ in driver.client.records[1:])
    assert len(driver.client.records) <= 6


def test_the_kinds_a_spectator_writes_are_the_kinds_a_seat_may_serve():
    # §C6, §N10: the copy writes STEP records with their step number and every other kind through
    # record_appenders; one list short of the other named an honest seat a liar (H107 s11 #3).
    writer = SimpleNamespace(append_drop=1, append_skip=1, append_abandon=1, append_complaint=1)
    assert set(record_appenders(writer)) | {KIND_STEP} == LOG_KINDS
