"""A voted turn skip as a spectator sees it (protocol.md §N10 'The spectator', §C8.10): the
SKIP record verifies in the spectator's copy and shows as the players' line ("X's turn was
skipped by a majority vote", ``SeatChanged(.., 'skipped')``), once per skip, with no panel mark
(the seat keeps its seat). In memory: the turn-skip kit's 3-seat game (fake engine) in which a
majority skips an idle seat's turns; the driver's client is handed what seat 0 serves."""

from __future__ import annotations

import shutil
from types import SimpleNamespace

import fake_engine as E

from p2p.gamelog import KIND_HEADER, KIND_SKIP, SKIP_RECORD, LogReader
from p2p.identity import Identity
from p2p.spectate import WatchClient
from ui.play import SeatChanged
from ui.watch import WatchDriver, verify_records

from turn_skip_kit import IdleSeat, game


def test_a_skipped_turn_shows_once_as_the_players_see_it(tmp_path):
    sessions, paths = game(3, tmp_path)
    IdleSeat(sessions, idle=1, from_step=4, to_step=10).run(max_time=1e5, hook=lambda n: n.hook())
    for s in sessions:
        s.log.close()
    header = next(iter(LogReader(paths[0]))).payload
    served = list(sessions[0].history().with_head(KIND_HEADER, header))
    skips = [SKIP_RECORD.decode(p)[:2] for k, p in served if k == KIND_SKIP]
    assert skips and all(seat == 1 for _, seat in skips)
    seat0 = sessions[0].setup.players[0].public_key
    ad = SimpleNamespace(watch_port=1, public_key=seat0, address="127.0.0.1", x25519_key=bytes(32), seats_total=3,
                         edition="classico", game_id=sessions[0].setup.game_id)
    driver = WatchDriver(ad, "127.0.0.1", identity=Identity.from_seed(b"skip-spectator"))
    try:
        driver.client = WatchClient(driver.identity, ad.game_id, seat0, "s")
        for part in (served[:len(served) // 2], served):  # two passes: a skip is told once
            driver.client.records = list(part)
            driver.client.sources = [(seat0, b"records envelope")] * len(part)
            assert driver._write_new()
            report, rec = verify_records(driver._dir / "game.log", E)
            driver._show(report, rec)
        assert report.ok and not driver.bad
        shown = [(e.step, e.seat) for e in driver._new_events if isinstance(e, SeatChanged) and e.change == "skipped"]
        assert shown == skips and 1 not in driver.seat_changes
    finally:
        if driver._writer is not None:
            driver._writer.close()
        shutil.rmtree(driver._dir, ignore_errors=True)
