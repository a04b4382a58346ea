"""Red team session 11 (H107): a turn skip (§C8.10) against the spectators (§N10 "A seat that lies").

In memory: a 3-seat game of the turn-skip kit (fake engine) in which a majority skips an idle
seat's turns; then the records a seat serves its spectators (``History.with_head``: header,
STEP, SKIP records) go through the spectator's own path, ``ui.watch.WatchDriver._write_new`` (its
temporary copy of the log), ``ui.watch.verify_records`` and ``WatchDriver._show`` (no socket:
the driver's client is handed the records, as ``WatchClient.receive`` would have added them).
"""

from __future__ import annotations

import shutil
from types import SimpleNamespace

import fake_engine as E
from p2p.gamelog import KIND_HEADER, KIND_SKIP, LogReader
from p2p.identity import Identity
from p2p.spectate import WatchClient
from p2p.verify import verify_log
from ui.watch import WatchDriver, verify_records

from turn_skip_kit import IdleSeat, game


def test_a_skipped_turn_does_not_make_the_spectator_name_an_honest_seat_a_liar(tmp_path):
    """BREAK (HIGH: frames honest seats, ends every spectator's view). A majority skips an idle
    seat's turn (§C8.10: a legitimate, logged kind-6 record; the seats serve it to spectators,
    §N10 'every STEP, DROP, SKIP, ABANDON and COMPLAINT record'). ``WatchDriver._write_new``
    writes HEADER, STEP, DROP, ABANDON and COMPLAINT records to the spectator's temporary log
    and silently skips any other kind, so the copy holds the kind-1 record with nil for the
    skipped seat and no kind-6 record: ``verify`` fails it ('no message from an active seat',
    §C8.10 'a nil for an active seat without a kind-6 record is still a bad log'). The spectator
    then names the honest seat it follows ('sent a record that does not verify', kept as
    evidence), moves to the next seat, which serves the same skip, and so on until every seat is
    named and the view ends with 'cheat'. Cost to an attacker: none beyond a skip the table
    voted (any idle player, or Q − 1 colluders plus one honest J press); every spectator of a
    game with one skip loses the game and sees every seat accused. Seat logs verify (the bug is
    the spectator's copy only). Suggested fix: ``_write_new`` appends KIND_SKIP with
    ``LogWriter.append_skip`` (and refuses, as a lie, a kind it does not know rather than
    dropping it silently)."""
    sessions, paths = game(3, tmp_path)
    net = IdleSeat(sessions, idle=1, from_step=4, to_step=10)
    net.run(max_time=1e5, hook=lambda n: n.hook())
    for s in sessions:
        s.log.close()
    assert verify_log(paths[0], engine=E).error is None  # the seat's own log is good
    header = next(iter(LogReader(paths[0]))).payload
    served = list(sessions[0].history().with_head(KIND_HEADER, header))  # what seat 0 serves (§N10)
    assert [k for k, _ in served].count(KIND_SKIP) >= 1

    spec = Identity.from_seed(b"h107-spectator")
    seat0 = sessions[0].setup.players[0].public_key
    ad = SimpleNamespace(watch_port=1, public_key=seat0, address="127.0.0.1", x25519_key=bytes(32), seats_total=3,
                         edition="classico", game_id=sessions[0].setup.game_id)
    driver = WatchDriver(ad, "127.0.0.1", identity=spec)
    try:
        driver.client = WatchClient(spec, ad.game_id, seat0, "s")
        driver.client.records = list(served)
        driver.client.sources = [(seat0, b"records envelope")] * len(served)
        assert driver._write_new()
        report, rec = verify_records(driver._dir / "game.log", E)
        driver._show(report, rec)
        assert not driver.bad, f"an honest seat named a liar: {driver.bad}"
        assert report.error is None and report.complete, report.error
    finally:
        if driver._writer is not None:
            driver._writer.close()
        shutil.rmtree(driver._dir, ignore_errors=True)
