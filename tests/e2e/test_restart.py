"""End to end, real processes on loopback: a peer killed with SIGKILL mid-game comes back, and a
peer that never comes back loses its seat (protocol.md §C8-§10, protocol.md §N5).

Issue text: "A peer killed with SIGKILL mid-game and restarted with the same identity and log
directory rejoins, catches up, and the game finishes with every peer agreeing. While a peer is
missing the others wait and show who they are waiting for; after the timeout the chosen rule
applies ... A peer whose log file was truncated or corrupted detects it on start, says at which
step, and recovers from the other peers."
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from p2p.gamelog import LogReader

from e2e_support import ROOT

SEATS = 3
GAME_S = 120  # generous budget for one game on a slow machine; nothing asserts on time


def start_game(spawn, tmp_path: Path, seed: str, drop_timeout: int) -> tuple[list, list[list[str]]]:
    """Host + two joiners with --progress-json; returns the processes and each one's argv
    (to restart it). Peer i keeps its keys and logs in tmp_path/peer-i."""
    argvs = []
    for i in range(SEATS):
        common = ["--bind", "127.0.0.1", "--progress-json", "--seed", f"{seed}-{i}", "--name", f"p{i}",
                  "--log-dir", str(tmp_path / f"peer-{i}"), "--config-dir", str(tmp_path / f"keys-{i}"),
                  "--timeout", str(GAME_S)]
        argvs.append(common)
    argvs[0] = ["host", "--seats", str(SEATS), "--drop-timeout", str(drop_timeout), *argvs[0]]
    host = spawn(*argvs[0])
    hosting = host.wait_for(lambda m: m["type"] == "hosting", 60)
    gid = hosting["game_id"]
    for i in (1, 2):
        argvs[i] = ["join", "--game", gid, *argvs[i]]
    # A 3-seat bot game can end in a fraction of a second, before a progress line (at most one
    # per 0.2 s) shows step 30. So peer 1 holds its input at its first decision step >= HOLD_AT
    # until the test releases it: in lockstep nobody passes that step without it, so the victim
    # is provably mid-game when it is killed, whatever the speed of the machine.
    held = spawn("--host", f"{hosting['address']}:{hosting['port']}", "--game", gid, "--seed", f"{seed}-1",
                 "--log-dir", str(tmp_path / "peer-1"), "--hold-at", str(HOLD_AT),
                 "--release", str(tmp_path / "release"), "--timeout", str(GAME_S),
                 script=Path(__file__).with_name("held_peer.py"))
    procs = [host, held, spawn(*argvs[2])]
    return procs, argvs


HOLD_AT = 31  # peer 1 holds here; every peer is then at step HOLD_AT - 1 or later (>= 30)


def kill_mid_game(victim) -> int:
    """SIGKILL ``victim`` once it reports a step >= 30; returns its seat."""
    seat = victim.wait_for(lambda m: m["type"] == "progress" and m["step"] >= 30, GAME_S)
    victim.proc.send_signal(signal.SIGKILL)
    victim.proc.wait(timeout=30)
    logs = list(Path(victim.proc.args[victim.proc.args.index("--log-dir") + 1]).glob("game-*.log"))
    assert len(logs) == 1
    return int(logs[0].name.rsplit("seat", 1)[1].split(".")[0])


def log_of(peer_dir: Path) -> Path:
    (log,) = peer_dir.glob("game-*-seat*.log")
    return log


def tear_last_record(log: Path) -> None:
    data = log.read_bytes()
    log.write_bytes(data[:-7])  # a crash in the middle of a write


def flip_a_byte_ten_records_back(log: Path) -> None:
    recs = list(LogReader(log))
    data = bytearray(log.read_bytes())
    data[recs[-10].offset + 12] ^= 0x20
    log.write_bytes(bytes(data))


def verify(log: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ui.cli", "--lang", "en", "verify", str(log)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("damage", [None, "torn", "flipped"])
def test_killed_peer_restarts_catches_up_and_everyone_agrees(spawn, tmp_path, damage):
    seed = f"restart-{os.getpid()}-{secrets.token_hex(3)}"
    procs, argvs = start_game(spawn, tmp_path, seed, drop_timeout=60)
    seat = kill_mid_game(procs[2])
    (tmp_path / "release").touch()  # peer 1 answers its held step; the victim is gone
    # The others wait, and say whom they wait for (the killed seat).
    waiting = procs[0].wait_for(lambda m: m["type"] == "waiting" and m["seats"] == [seat], 30)
    assert waiting["deadline_s"] is not None and waiting["names"] == [f"p{2}"]
    log = log_of(tmp_path / "peer-2")
    resume_file = Path(str(log) + ".resume")
    assert resume_file.stat().st_mode & 0o777 == 0o600  # the chain secret is private
    if damage == "torn":
        tear_last_record(log)
    elif damage == "flipped":
        flip_a_byte_ten_records_back(log)
    again = spawn(*argvs[2])
    resumed = again.wait_for(lambda m: m["type"] == "resumed", 60)
    if damage is None:
        assert resumed["damage"] is None
    else:
        dmg = resumed["damage"]
        assert dmg is not None and dmg["step"] == resumed["step"] and dmg["offset"] > 0
        assert ("truncated" if damage == "torn" else "checksum") in dmg["reason"]
        assert list(log.parent.glob(log.name + ".damaged-*"))  # the bad tail is kept aside
    dones = []
    for p in (procs[0], procs[1], again):
        assert p.finish(GAME_S) == 0, p.stderr[-10:]
        dones.append(p.of_type("done")[-1])
    assert len({d["final_state_hash"] for d in dones}) == 1
    assert len({d["steps"] for d in dones}) == 1
    if damage == "flipped":  # ten steps were lost and came back from the others
        assert again.of_type("caught_up")
    for d in dones:
        proc = verify(Path(d["log"]))
        assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not resume_file.exists()  # removed once the game is over


def test_a_peer_that_stays_away_is_dropped_and_the_bot_plays_its_seat(spawn, tmp_path):
    seed = f"drop-{os.getpid()}-{secrets.token_hex(3)}"
    procs, _ = start_game(spawn, tmp_path, seed, drop_timeout=2)
    seat = kill_mid_game(procs[1])
    survivors = (procs[0], procs[2])
    for p in survivors:
        assert p.finish(GAME_S) == 0, p.stderr[-10:]
    dones = [p.of_type("done")[-1] for p in survivors]
    assert dones[0]["final_state_hash"] == dones[1]["final_state_hash"]
    for p in survivors:
        assert any(m["seats"] == [seat] for m in p.of_type("waiting"))
        (dropped,) = p.of_type("seat_dropped")
        assert dropped["seat"] == seat and dropped["rule"] == "bot"
        assert [v["seat"] for v in p.of_type("drop_vote")] == [seat]
    for d in dones:
        proc = verify(Path(d["log"]))
        assert proc.returncode == 0, proc.stdout + proc.stderr
