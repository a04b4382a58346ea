"""End to end, real processes on loopback: a whole table stops and goes on from other addresses
(issue 11 "A whole table stops and goes on another day ... resumes from the logs when enough of
its seats are back, even if their addresses changed"; protocol.md §N3.2, §N5).

Four peers on 127.0.0.21-24; peer 1 holds its input at HOLD_AT so the game is provably running
when every process is killed. All four restart with the same identities and log directories on
127.0.0.31-34: each resumes from its log, advertises its seat on DNS-SD (explicit interface: its
own loopback address) and finds the others' new addresses by the seats' setup keys; the game
finishes with one final hash and every log verifies.
"""

from __future__ import annotations

import os
import secrets
import signal
from pathlib import Path

from test_restart import GAME_S, verify

SEATS = 4
HOLD_AT = 25


def _argv(tmp_path: Path, seed: str, i: int, addr: str) -> list[str]:
    return ["--bind", addr, "--progress-json", "--seed", f"{seed}-{i}", "--name", f"p{i}",
            "--log-dir", str(tmp_path / f"peer-{i}"), "--config-dir", str(tmp_path / f"keys-{i}"),
            "--timeout", str(GAME_S)]


def _held(spawn, tmp_path: Path, seed: str, host: str, gid: str, addr: str, hold_at: int):
    return spawn("--host", host, "--game", gid, "--seed", f"{seed}-1", "--log-dir", str(tmp_path / "peer-1"),
                 "--hold-at", str(hold_at), "--release", str(tmp_path / "never"), "--timeout", str(GAME_S),
                 "--name", "p1", "--bind", addr, script=Path(__file__).with_name("held_peer.py"))


def test_every_player_quits_and_the_table_resumes_from_new_addresses(spawn, tmp_path):
    seed = f"table-{os.getpid()}-{secrets.token_hex(3)}"
    old = [f"127.0.0.{21 + i}" for i in range(SEATS)]
    new = [f"127.0.0.{31 + i}" for i in range(SEATS)]
    host = spawn("host", "--seats", str(SEATS), *_argv(tmp_path, seed, 0, old[0]))
    hosting = host.wait_for(lambda m: m["type"] == "hosting", 60)
    gid, where = hosting["game_id"], f"{hosting['address']}:{hosting['port']}"
    procs = [host, _held(spawn, tmp_path, seed, where, gid, old[1], HOLD_AT)]
    procs += [spawn("join", "--game", gid, *_argv(tmp_path, seed, i, old[i])) for i in (2, 3)]
    procs[1].wait_for(lambda m: m["type"] == "holding", GAME_S)
    for p in procs:  # the lesson ends: everybody quits mid-game
        p.proc.send_signal(signal.SIGKILL)
        p.proc.wait(timeout=30)
    for i in range(SEATS):
        assert list((tmp_path / f"peer-{i}").glob("game-*.log.resume"))  # an unfinished game each
    # Another day, other addresses.
    again = [spawn("host", "--seats", str(SEATS), *_argv(tmp_path, seed, 0, new[0])),
             _held(spawn, tmp_path, seed, where, gid, new[1], 10**9)]
    again += [spawn("join", "--game", gid, *_argv(tmp_path, seed, i, new[i])) for i in (2, 3)]
    dones = []
    for p in again:
        p.wait_for(lambda m: m["type"] == "resumed", 60)
        assert p.finish(GAME_S) == 0, p.stderr[-10:]
        dones.append(p.of_type("done")[-1])
        # It found the other seats at their new addresses (by their setup keys).
        assert {m["address"] for m in p.of_type("seat_found")} <= set(new)
        assert len(p.of_type("seat_found")) >= SEATS - 1
    assert len({d["final_state_hash"] for d in dones}) == 1
    assert len({d["steps"] for d in dones}) == 1
    for d in dones:
        proc = verify(Path(d["log"]))
        assert proc.returncode == 0, proc.stdout + proc.stderr
