"""End to end, real processes on loopback: a seat that stalls (its peer keeps sending ALIVE but
never its input) has its turn passed by a majority vote long before the turn time, keeps its
seat, and the game goes on to the end with every log verifying (issue 10 "No stalling",
protocol.md §C8.10).

Peer 1 is a held peer (tests/e2e/held_peer.py) that holds its input at its first decision step
>= HOLD_AT (second test: at its first two own rolls from HOLD_AT on) and is never released:
it is alive (ALIVE every 5 s, so the 30 s drop timeout never fires) and idle (the turn time is
the default 300 s). The two other peers are ``lanopoli host`` and ``lanopoli join`` bots with
``--skip-idle-after 5``: the players' patience. Nobody votes to drop anybody; the two votes are
a quorum (Q = 2 of 3), so the held seat's input at that step counts as nil — at its own roll, as
the roll itself (§C8.10 "Own decisions") — and at the next step its bot plays again.

Both games are started together by tests/e2e/conftest.py ``turn_skip_games`` (with the first
end-to-end test when the session can: they are mostly idle) and each test plays its own.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

from p2p.gamelog import KIND_SKIP, LogReader

from e2e_support import ROOT

GAME_S = 150  # generous budget for one game on a slow machine; nothing asserts on time
HOLD_AT = 12
PATIENCE_S = 5  # the voters wait this long for an awaited seat (a loaded machine can stall a bot for ~1 s)


def verify(log: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ui.cli", "--lang", "en", "verify", "--json", str(log)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def start(spawn, tmp_path, *hold: str) -> tuple:
    """Start one 3-seat game: host and joiner bots voting to skip after ``PATIENCE_S``, peer 1
    the held peer with ``hold`` (its holding options, never released). Returns (procs, tmp_path)
    for ``play``."""
    seed = f"skip-{os.getpid()}-{secrets.token_hex(3)}"
    common = [["--bind", "127.0.0.1", "--progress-json", "--seed", f"{seed}-{i}", "--name", f"p{i}",
               "--log-dir", str(tmp_path / f"peer-{i}"), "--config-dir", str(tmp_path / f"keys-{i}"),
               "--timeout", str(GAME_S), "--skip-idle-after", str(PATIENCE_S)] for i in range(3)]
    host = spawn("host", "--seats", "3", *common[0])
    hosting = host.wait_for(lambda m: m["type"] == "hosting", 60)
    gid = hosting["game_id"]
    held = spawn("--host", f"{hosting['address']}:{hosting['port']}", "--game", gid, "--seed", f"{seed}-1",
                 "--log-dir", str(tmp_path / "peer-1"), *hold,
                 "--release", str(tmp_path / "never"), "--timeout", str(GAME_S), "--name", "p1",
                 script=Path(__file__).with_name("held_peer.py"))
    joiner = spawn("join", "--game", gid, *common[2])
    return (host, held, joiner), tmp_path


def play(procs, tmp_path) -> tuple:
    """The game ``start`` started, to its end. Returns (procs, holding lines, held seat,
    turn_skipped lines per peer, done lines); asserts every peer ended, the same final hash, no
    drop vote, and every log verifies with its kind-6 records."""
    host, held, joiner = procs
    held.wait_for(lambda m: m["type"] == "holding", GAME_S)
    for p in procs:
        assert p.finish(GAME_S) == 0, p.stderr[-10:]
    (held_log,) = (tmp_path / "peer-1").glob("game-*-seat*.log")
    held_seat = int(held_log.name.rsplit("seat", 1)[1].split(".")[0])
    skips = [p.of_type("turn_skipped") for p in procs]
    # The same turns skipped on every peer (the idle seat learns them from the same votes), the
    # held seat's only, each with the two other seats' votes (Q = 2 of 3).
    assert skips[0] and skips[0] == skips[1] == skips[2], skips
    assert {s["seat"] for s in skips[0]} == {held_seat}
    assert all(s["votes"] == 2 and s["quorum"] == 2 for s in skips[0])
    # Long before the turn time (300 s) and the drop timeout (30 s, kept off by ALIVE): no drop vote.
    for p in procs:
        assert not p.of_type("drop_vote") and not p.of_type("seat_dropped")
    dones = [p.of_type("done")[-1] for p in procs]
    assert len({d["final_state_hash"] for d in dones}) == 1 and len({d["steps"] for d in dones}) == 1
    for d in dones:
        proc = verify(Path(d["log"]))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        kinds = [r.kind for r in LogReader(d["log"])]
        assert kinds.count(KIND_SKIP) == len(skips[0])
    return procs, held.of_type("holding"), held_seat, skips, dones


def test_a_majority_skips_a_stalling_seats_turn_and_the_game_goes_on(turn_skip_games):
    _, holding, _, skips, _ = play(*turn_skip_games["once"])
    # at the step where it held (or the step after: it holds at its first decision step >=
    # HOLD_AT, as seen one StepApplied late)
    assert holding[0]["step"] <= skips[0][0]["step"] <= holding[0]["step"] + 1


def test_a_seat_stalling_at_its_own_roll_has_its_turn_passed(turn_skip_games):
    """The seat stalls where stalling hurts: at its OWN roll, twice (``--hold-kind roll --holds
    2``, never released). A majority skips it; its input there is the roll itself (§C8.10 "Own
    decisions"), so its turn goes on and the game with it."""
    _, holding, _, skips, _ = play(*turn_skip_games["roll"])
    assert [h["kind"] for h in holding] == ["roll", "roll"]
    skipped = {s["step"] for s in skips[0]}
    assert all(h["step"] in skipped or h["step"] + 1 in skipped for h in holding)
    # It rolled at the first (it moved, or with a double its turn went on and ended): with nil
    # the second hold would be the same roll, same turn, same square.
    assert (holding[1]["turn"], holding[1]["pos"]) != (holding[0]["turn"], holding[0]["pos"])
