"""End to end, real processes on loopback, through the node's fault-injecting transport
(p2p/faults.py FaultPlan in p2p/link.py Link; protocol.md §N6).

Issue text: "`lanopoli demo --loss 0.2 --duplicate 0.1 --reorder 0.1 --seed S` must finish with
the SAME final state hash as the same seed without faults (test at several fault rates)"; "A
late UDP packet from a previous game or a previous step is rejected by its game id and step".
"""

from __future__ import annotations

import os
import re
import secrets
import socket
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest

from p2p.gamelog import KIND_STEP, LogReader
from p2p.transport import FLAG_DATA, HEADER, MAGIC

from e2e_support import ROOT

HASH_LINE = re.compile(r"^final state hash: ([0-9a-f]{64})$", re.M)
STEPS_LINE = re.compile(r"^Steps: (\d+)$", re.M)
DEMO_TIMEOUT_S = 240
PEERS = "3"

FAULTS = {
    "none": [],
    "issue-rates": ["--loss", "0.2", "--duplicate", "0.1", "--reorder", "0.1"],
    "light-loss-heavy-reorder-and-a-partition": ["--loss", "0.05", "--duplicate", "0.05", "--reorder", "0.3",
                                                 "--partition", "1.5:2"],
}


def test_faulty_networks_give_the_same_game_as_a_clean_one(tmp_path):
    seed = f"faults-{os.getpid()}-{secrets.token_hex(3)}"
    # One after the other: the same seed gives the same game id, and two demos advertising one
    # game id at once could take each other's seats.
    outcomes = {}
    for name, flags in FAULTS.items():
        proc = subprocess.run([sys.executable, "-m", "ui.cli", "--lang", "en", "demo", "--peers", PEERS,
                               "--seed", seed, "--log-dir", str(tmp_path / name), "--timeout",
                               str(DEMO_TIMEOUT_S), *flags],
                              cwd=ROOT, capture_output=True, text=True, timeout=DEMO_TIMEOUT_S + 30)
        assert proc.returncode == 0, f"{name}:\n{proc.stdout}\n{proc.stderr}"
        outcomes[name] = (HASH_LINE.search(proc.stdout).group(1), STEPS_LINE.search(proc.stdout).group(1))
    assert len(set(outcomes.values())) == 1, outcomes


def transport_datagram(epoch: int, seq: int, payload: bytes) -> bytes:
    """One transport datagram (protocol.md §N2) from a fresh sender: DATA, nothing acknowledged."""
    return HEADER.pack(MAGIC, FLAG_DATA, epoch, 0, seq, 0, 0) + payload


def step_envelope(log: Path, step: int, not_seat: int) -> bytes:
    """The STEP envelope of ``step`` of a seat other than ``not_seat``, from a game log."""
    for rec in LogReader(log):
        if rec.kind == KIND_STEP:
            k, raws = msgpack.unpackb(rec.payload, raw=False)
            if k == step:
                return next(r for i, r in enumerate(raws) if i != not_seat and r is not None)
    raise AssertionError(f"no step {step} in {log}")


COMMON = ["--bind", "127.0.0.1", "--progress-json", "--timeout", "120"]


def two_seat_host(spawn, tmp_path: Path, tag: str):
    """A ``lanopoli host`` of a 2-seat game once it advertises: (peer, its ``hosting`` line, seed)."""
    seed = f"late-{tag}-{os.getpid()}-{secrets.token_hex(3)}"
    host = spawn("host", "--seats", "2", "--seed", seed + "-0", "--log-dir", str(tmp_path / f"{tag}-0"),
                 "--config-dir", str(tmp_path / f"{tag}-k0"), *COMMON)
    return host, host.wait_for(lambda m: m["type"] == "hosting", 60), seed


def two_peer_game(spawn, tmp_path: Path, tag: str):
    host, hosting, seed = two_seat_host(spawn, tmp_path, tag)
    joiner = spawn("join", "--game", hosting["game_id"], "--seed", seed + "-1", "--log-dir",
                   str(tmp_path / f"{tag}-1"), "--config-dir", str(tmp_path / f"{tag}-k1"), *COMMON)
    return host, joiner, hosting


def acked_through(s: socket.socket, epoch: int, count: int) -> None:
    """Read the receiver's acks on ``s`` until its cumulative ack covers chunks 0..count-1 of
    our stream ``epoch`` (protocol.md §N2.4): the transport took them all in order and handed
    each payload to the node, which passes session messages to the session at once."""
    while True:
        data = s.recv(2048)
        if len(data) < HEADER.size:
            continue
        _magic, _flags, _src, dst_epoch, _seq, ack, _bits = HEADER.unpack_from(data)
        if dst_epoch == epoch and ack >= count:
            return


def test_late_packets_of_another_game_or_an_old_step_are_rejected(spawn, tmp_path):
    # Game A, played to the end: its messages are "a previous game".
    a_host, a_join, _ = two_peer_game(spawn, tmp_path, "a")
    assert a_host.finish(120) == 0 and a_join.finish(120) == 0
    old_game = step_envelope(Path(a_host.of_type("done")[-1]["log"]), 5, not_seat=-1)

    # Game B: a 2-peer bot game ends in well under a second, so the joiner holds its input at
    # step >= 10 until we are done: in lockstep the host cannot finish without it, hence the
    # late packets reach a running game, whatever the speed of the machine.
    host, hosting, seed = two_seat_host(spawn, tmp_path, "b")
    release = tmp_path / "release"
    joiner = spawn("--host", f"{hosting['address']}:{hosting['port']}", "--game", hosting["game_id"],
                   "--seed", seed + "-1", "--log-dir", str(tmp_path / "b-1"), "--hold-at", "10",
                   "--release", str(release), "--timeout", "120", script=Path(__file__).with_name("held_peer.py"))
    held = joiner.wait_for(lambda m: m["type"] == "holding", 60)
    assert held["step"] >= 10
    (b_log,) = (tmp_path / "b-1").glob("game-*.log")  # the joiner's log, being written
    host_seat = 1 - int(b_log.name.rsplit("seat", 1)[1].split(".")[0])
    old_step = step_envelope(b_log, 1, not_seat=host_seat)
    copies, epoch = 40, 0x5EED
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        s.settimeout(60)
        for i in range(copies):
            s.sendto(transport_datagram(epoch, 2 * i, old_game), (hosting["address"], hosting["port"]))
            s.sendto(transport_datagram(epoch, 2 * i + 1, old_step), (hosting["address"], hosting["port"]))
        # The game has started: the host's transport accepts channels only from the setup's
        # endpoints (protocol.md §N2.6), so a stranger's datagrams are dropped unanswered.
        s.settimeout(2)
        with pytest.raises(socket.timeout):
            acked_through(s, epoch, 1)
    release.touch()
    assert host.finish(120) == 0 and joiner.finish(120) == 0
    done_h, done_j = host.of_type("done")[-1], joiner.of_type("done")[-1]
    assert done_h["final_state_hash"] == done_j["final_state_hash"]
    assert done_h["steps"] > held["step"]  # the game went on after the late packets
    # Never reached the session (its own rejection by game id and step: tests/p2p/test_hostile.py).
    assert done_h["session_stats"]["wrong_game"] == 0
    assert done_j["session_stats"]["wrong_game"] == 0
