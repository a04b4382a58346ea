"""End to end, real processes on loopback: a player whose seat went to the bot takes it back
(protocol.md §C8.9, §N5; issue 11 "A seat that went to a bot while I was away comes back to me
when I return (by the seats' signed agreement, at a step boundary)").

Four peers. Peer 3, the victim, is a held peer (tests/e2e/held_peer.py) that holds its input at
its first decision step >= KILL_AT and is killed with SIGKILL there: the others lack its message
of that step and drop its seat after the 2 s drop timeout (the bot plays it). Peer 1 holds at
HOLD_AT, later, so the game is provably still running while peer 3 is restarted with the same
identity and log directory: it resumes, learns of the drop, asks for its seat back; then peer 1
is released, and every peer re-seats peer 3 at the same step. The game ends with one final hash
and every log verifies.
"""

from __future__ import annotations

import os
import secrets
import signal
from pathlib import Path

import pytest

from test_restart import GAME_S, log_of, verify

SEATS = 4


KILL_AT = 20  # the victim holds here and is killed there
HOLD_AT2 = 45  # peer 1 holds here until the victim has asked for its seat back


def _held(spawn, tmp_path: Path, hosting: dict, gid: str, seed: str, i: int, hold_at: int, release: str,
          bind: str = "127.0.0.1"):
    return spawn("--host", f"{hosting['address']}:{hosting['port']}", "--game", gid, "--seed", f"{seed}-{i}",
                 "--log-dir", str(tmp_path / f"peer-{i}"), "--hold-at", str(hold_at),
                 "--release", str(tmp_path / release), "--timeout", str(GAME_S), "--name", f"p{i}",
                 "--bind", bind, script=Path(__file__).with_name("held_peer.py"))


def _start(spawn, tmp_path: Path, seed: str) -> tuple[list, dict, str]:
    """Host (peer 0), held joiner 1 (at HOLD_AT2), joiner 2, held victim 3 (at KILL_AT)."""
    common = ["--bind", "127.0.0.1", "--progress-json", "--timeout", str(GAME_S)]
    host = spawn("host", "--seats", str(SEATS), "--drop-timeout", "2", "--seed", f"{seed}-0", "--name", "p0",
                 "--log-dir", str(tmp_path / "peer-0"), "--config-dir", str(tmp_path / "keys-0"), *common)
    hosting = host.wait_for(lambda m: m["type"] == "hosting", 60)
    gid = hosting["game_id"]
    p2 = spawn("join", "--game", gid, "--seed", f"{seed}-2", "--name", "p2", "--log-dir", str(tmp_path / "peer-2"),
               "--config-dir", str(tmp_path / "keys-2"), *common)
    procs = [host, _held(spawn, tmp_path, hosting, gid, seed, 1, HOLD_AT2, "release-1"), p2,
             _held(spawn, tmp_path, hosting, gid, seed, 3, KILL_AT, "release-3")]
    return procs, hosting, gid


@pytest.mark.parametrize("moved", [False, True])
def test_killed_player_comes_back_and_takes_its_seat_from_the_bot(spawn, tmp_path, moved):
    """``moved``: the player comes back from another address (127.0.0.51): the others, who
    dropped its seat, find it by its seat's keys (protocol.md §N3.2)."""
    seed = f"reseat-{os.getpid()}-{secrets.token_hex(3)}"
    procs, hosting, gid = _start(spawn, tmp_path, seed)
    victim = procs[3]
    victim.wait_for(lambda m: m["type"] == "holding", GAME_S)
    victim.proc.send_signal(signal.SIGKILL)
    victim.proc.wait(timeout=30)
    seat = int(log_of(tmp_path / "peer-3").name.rsplit("seat", 1)[1].split(".")[0])
    # The others lack its message, drop it after the drop timeout: the bot plays its seat.
    dropped = procs[0].wait_for(lambda m: m["type"] == "seat_dropped", GAME_S)
    assert dropped["seat"] == seat and dropped["rule"] == "bot"
    # Same identity (seed) and log directory; it never holds again.
    again = _held(spawn, tmp_path, hosting, gid, seed, 3, 10**9, "release-3", "127.0.0.51" if moved else "127.0.0.1")
    again.wait_for(lambda m: m["type"] == "resumed", 60)
    asked = again.wait_for(lambda m: m["type"] == "reseat_asked", GAME_S)
    assert asked["dropped_at"] == dropped["step"]
    assert Path(str(log_of(tmp_path / "peer-3")) + ".reseat").stat().st_mode & 0o777 == 0o600
    (tmp_path / "release-1").touch()  # peer 1 answers its held step; the game goes on
    survivors = (procs[0], procs[1], procs[2], again)
    dones = []
    for p in survivors:
        assert p.finish(GAME_S) == 0, p.stderr[-10:]
        dones.append(p.of_type("done")[-1])
    assert len({d["final_state_hash"] for d in dones}) == 1
    assert len({d["steps"] for d in dones}) == 1
    returned = [[m for m in p.of_type("seat_returned")] for p in survivors]
    assert all(len(r) == 1 and r[0]["seat"] == seat for r in returned), returned
    assert len({r[0]["step"] for r in returned}) == 1  # the same step boundary everywhere
    assert returned[0][0]["step"] > dropped["step"]
    if moved:  # every other peer found it at its new address
        assert all(any(m["address"] == "127.0.0.51" for m in p.of_type("seat_found")) for p in procs[:3])
    for d in dones:
        proc = verify(Path(d["log"]))
        assert proc.returncode == 0, proc.stdout + proc.stderr
