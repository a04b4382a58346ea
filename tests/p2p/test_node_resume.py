"""The node's files of one game (p2p/node_resume.py; protocol.md §N5 "Files next to the log",
§C8.9, §C10): named after the log, the ``.resume`` file written at the start and rewritten when
a seat moves (never raising once the game is over), the re-seat secret kept per drop, the side
files holding secrets removed at the end while the log and ``.own`` stay, and the evidence file."""

from __future__ import annotations

import json
import os
import stat

from p2p.gamelog import LogReader
from p2p.node_resume import GameFiles, write_evidence

GAME_ID = bytes(range(16))
SECRET = bytes(range(32))
EPS = [("127.0.0.1", 4000), ("127.0.0.2", 4001)]


def test_files_are_named_after_the_log_and_created_with_it(tmp_path):
    files = GameFiles.new_game(tmp_path / "logs", GAME_ID, 1)  # the directory is created
    assert files.log_path == tmp_path / "logs" / "game-0001020304050607-seat1.log"
    log = files.create(b"header", SECRET, 1, EPS)
    log.close()
    assert [r.payload for r in LogReader(files.log_path)] == [b"header"]
    assert stat.S_IMODE(os.stat(files.resume_path).st_mode) == 0o600
    assert files.read_resume() == {"chain_secret": SECRET, "seat": 1, "endpoints": EPS}
    assert str(files.resume_path) == str(files.log_path) + ".resume"
    assert files.own_path == str(files.log_path) + ".own"


def test_a_moved_seat_is_remembered_and_a_finished_game_keeps_only_its_logs(tmp_path):
    files = GameFiles.new_game(tmp_path, GAME_ID, 0)
    files.create(b"header", SECRET, 0, EPS).close()
    files.own_log().close()
    moved = [EPS[0], ("127.0.0.9", 5001)]
    files.remember_endpoints(0, moved)
    assert files.read_resume()["endpoints"] == moved
    assert files.reseat_secret() is None
    secret = files.reseat_secret_for(7)
    assert files.reseat_secret_for(7) == secret and files.reseat_secret() == secret  # one per drop
    files.finished()
    assert sorted(p.name for p in tmp_path.iterdir()) == [files.log_path.name, files.log_path.name + ".own"]
    files.remember_endpoints(0, EPS)  # after the end: nothing to rewrite, nothing raised
    assert not files.resume_path.exists()


def test_evidence_is_the_dump_as_json(tmp_path):
    path = write_evidence(tmp_path, 2, {"step": 5, "seat": 2})
    assert path == tmp_path / "evidence-seat2.json"
    assert json.loads(path.read_text()) == {"step": 5, "seat": 2}
