"""``<log>.resume`` (p2p/resume.py, protocol.md §N5 "Files next to the log"): private (mode
0600), read back as written, and rewritten atomically — the node rewrites it during a game when
a seat is found at a new address (§N3.2), and a failed rewrite must leave the chain secret of
the previous file, never an empty or half-written file."""

from __future__ import annotations

import os
import stat

import pytest

from p2p import resume
from p2p.resume import read_resume_file, write_resume_file

SECRET_1, SECRET_2 = bytes(range(32)), bytes(range(32, 64))


def test_written_private_and_read_back(tmp_path):
    path = tmp_path / "game-x-seat1.log.resume"
    write_resume_file(path, SECRET_1, 1, [("127.0.0.1", 4000), ("127.0.0.2", 4001)])
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert read_resume_file(path) == {"chain_secret": SECRET_1, "seat": 1,
                                      "endpoints": [("127.0.0.1", 4000), ("127.0.0.2", 4001)]}
    write_resume_file(path, SECRET_1, 1, [("127.0.0.1", 4000), ("127.0.0.9", 5001)])  # a seat moved
    assert read_resume_file(path)["endpoints"][1] == ("127.0.0.9", 5001)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no temporary file left


def test_a_failed_rewrite_leaves_the_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "game-x-seat0.log.resume"
    write_resume_file(path, SECRET_1, 0, [("127.0.0.1", 4000)])

    def disk_full(fd, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(resume.os, "write", disk_full)
    with pytest.raises(OSError):
        write_resume_file(path, SECRET_2, 0, [("127.0.0.5", 4000)])
    monkeypatch.undo()
    assert read_resume_file(path)["chain_secret"] == SECRET_1
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]
