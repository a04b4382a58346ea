"""End to end: real processes, real mDNS, real UDP on loopback, a whole game, then its logs.

Issue text: "`lanopoli demo --peers 4` starts four bot players, each in its own OS process, on
loopback. They find each other with mDNS ... play a whole game to the end over UDP ... exits 0
only when every peer finished with the same final state hash. `--seed S` makes the whole game
reproducible"; "`lanopoli verify LOG` ... exits non-zero and names the first bad step when
anything does not check out (a flipped byte, a reordered message, a forged signature)".

Two games are played (the same seed twice); every other test reuses their logs.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import msgpack
import pytest

from p2p import const as C
from p2p.gamelog import KIND_STEP, LogReader

ROOT = Path(__file__).resolve().parents[2]
# Unique per test session: two sessions with the same seed on one machine would advertise the
# same game id and could take each other's seats.
SEED = f"e2e-{os.getpid()}-{secrets.token_hex(4)}"
HASH_LINE = re.compile(r"^final state hash: ([0-9a-f]{64})$", re.M)
LOG_LINE = re.compile(r"^  peer-(\d+) \(seat (\d+)\): (.+)$", re.M)
BAD_STEP = re.compile(r"NOT valid at step (\d+)")
#: Whole-game budget per demo on a slow 2-core CI machine (the test asserts nothing on time).
DEMO_TIMEOUT_S = 240


def lanopoli(*argv: str, timeout: float = DEMO_TIMEOUT_S + 30) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ui.cli", "--lang", "en", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def play(log_dir: Path) -> subprocess.CompletedProcess:
    return lanopoli("demo", "--peers", "4", "--seed", SEED, "--log-dir", str(log_dir),
                    "--timeout", str(DEMO_TIMEOUT_S))


def final_hash(proc: subprocess.CompletedProcess) -> str:
    match = HASH_LINE.search(proc.stdout)
    assert match, proc.stdout + proc.stderr
    return match.group(1)


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> subprocess.CompletedProcess:
    proc = play(tmp_path_factory.mktemp("game-a"))
    assert proc.returncode == 0, f"demo failed\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def logs(game) -> list[Path]:
    found = sorted((int(i), Path(p)) for i, _seat, p in LOG_LINE.findall(game.stdout))
    assert [i for i, _ in found] == [0, 1, 2, 3], game.stdout
    return [p for _, p in found]


def test_four_peers_play_to_the_end_and_agree(game, logs):
    assert "All 4 peers finished with the same final state." in game.stdout
    assert re.search(r"^Winner: .+\(seat \d\)$", game.stdout, re.M)
    assert re.search(r"^Steps: [1-9]\d*$", game.stdout, re.M)
    final_hash(game)
    assert all(p.is_file() and p.stat().st_size > 0 for p in logs)
    seats = sorted(int(seat) for _i, seat, _p in LOG_LINE.findall(game.stdout))
    assert seats == [1, 2, 3, 4]  # seats are counted from 1 for people (issue 11); JSON stays 0-based


def test_same_seed_gives_the_same_game(game, tmp_path):
    again = play(tmp_path / "game-b")
    assert again.returncode == 0, again.stdout + again.stderr
    assert final_hash(again) == final_hash(game)
    steps = re.compile(r"^Steps: (\d+)$", re.M)
    assert steps.search(again.stdout).group(1) == steps.search(game.stdout).group(1)


def test_every_peer_log_verifies(game, logs):
    for log in logs:
        proc = lanopoli("verify", str(log))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "The log is valid" in proc.stdout
        assert final_hash(proc) == final_hash(game)


def test_verify_json_has_the_summary_fields(game, logs):
    proc = lanopoli("verify", str(logs[2]), "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["ok"] is True and summary["complete"] is True
    assert summary["edition"] == "classico"
    assert summary["seats"] == 4 and len(summary["players"]) == 4
    assert summary["final_state_hash"] == final_hash(game)
    steps = int(re.search(r"^Steps: (\d+)$", game.stdout, re.M).group(1))
    assert summary["steps"] == steps
    assert summary["messages"] == 4 * (steps + 1)  # + the final attestation (protocol.md §C3.5)
    assert summary["winner"] in range(4)
    assert summary["events"] and all(isinstance(v, int) and v > 0 for v in summary["events"].values())
    assert summary["first_bad_step"] is None and summary["error"] is None


# --- tampered logs -----------------------------------------------------------------------


def records(path: Path) -> list[tuple[int, bytes]]:
    """(kind, payload) of every record, read with the project's reader."""
    reader = LogReader(path)
    out = [(r.kind, r.payload) for r in reader]
    assert reader.error is None
    return out


def write_records(path: Path, recs: list[tuple[int, bytes]]) -> None:
    """Write records in the documented format (gamelog.py: length, kind, payload, CRC-32) with
    valid checksums, so that only the signed content can reveal the tampering."""
    with open(path, "wb") as fh:
        fh.write(C.LOG_MAGIC)
        for kind, payload in recs:
            fh.write(struct.pack(">IB", len(payload), kind) + payload
                     + struct.pack(">I", zlib.crc32(bytes((kind,)) + payload)))


def verify_fails_at(path: Path) -> int:
    """Run verify (text and JSON) on a bad log; both must fail and agree on the step."""
    text = lanopoli("verify", str(path))
    assert text.returncode == 1, text.stdout + text.stderr
    assert "Traceback" not in text.stderr
    match = BAD_STEP.search(text.stdout)
    assert match, text.stdout
    as_json = lanopoli("verify", str(path), "--json")
    assert as_json.returncode == 1
    summary = json.loads(as_json.stdout)
    assert summary["ok"] is False and summary["error"]
    assert summary["first_bad_step"] == int(match.group(1))
    return int(match.group(1))


def middle_step(path: Path) -> int:
    return (len(records(path)) - 1) // 2


def test_a_flipped_byte_is_caught(logs, tmp_path):
    data = bytearray(logs[0].read_bytes())
    data[len(data) // 2] ^= 0x01
    bad = tmp_path / "flipped.log"
    bad.write_bytes(bytes(data))
    step = verify_fails_at(bad)
    assert 0 <= step < len(records(logs[0])) - 1


def test_a_truncated_log_is_caught(logs, tmp_path):
    data = logs[1].read_bytes()
    bad = tmp_path / "truncated.log"
    bad.write_bytes(data[: len(data) // 2])
    assert verify_fails_at(bad) >= 0


def test_two_swapped_records_are_caught(logs, tmp_path):
    recs = records(logs[0])
    k = middle_step(logs[0])
    recs[1 + k], recs[2 + k] = recs[2 + k], recs[1 + k]
    bad = tmp_path / "swapped.log"
    write_records(bad, recs)
    assert verify_fails_at(bad) == k


def rewrite_step(log: Path, out: Path, mutate) -> int:
    """Copy ``log`` to ``out`` with the middle step's messages passed through ``mutate(list)``
    (checksums recomputed); return that step."""
    recs = records(log)
    k = middle_step(log)
    kind, payload = recs[1 + k]
    assert kind == KIND_STEP
    step, messages = msgpack.unpackb(payload, raw=False)
    mutate(messages)
    recs[1 + k] = (kind, msgpack.packb([step, messages], use_bin_type=True))
    write_records(out, recs)
    return k


def test_reordered_messages_in_a_step_are_caught(logs, tmp_path):
    def swap(messages: list) -> None:
        messages[0], messages[1] = messages[1], messages[0]

    bad = tmp_path / "reordered.log"
    k = rewrite_step(logs[0], bad, swap)
    assert verify_fails_at(bad) == k


def test_a_forged_signature_is_caught(logs, tmp_path):
    # Seat 2's message of the first step from the middle on that is not a reveal: a plain chance
    # step's forced body is taken whatever its signature since version 4 (protocol.md §C3.8).
    recs = records(logs[3])

    def reveal(raw: bytes | None) -> bool:
        body = msgpack.unpackb(msgpack.unpackb(raw)[1]) if raw is not None else None
        return body is not None and len(body) == 6 and isinstance(body[5], bytes)

    k = next(j for j in range(middle_step(logs[3]), len(recs) - 1)
             if msgpack.unpackb(recs[1 + j][1])[1][2] is not None and not reveal(msgpack.unpackb(recs[1 + j][1])[1][2]))
    step, messages = msgpack.unpackb(recs[1 + k][1], raw=False)
    sig_last_byte = bytearray(messages[2])
    sig_last_byte[-1] ^= 0x80  # the envelope [type, body, sig] ends with the Ed25519 signature
    messages[2] = bytes(sig_last_byte)
    recs[1 + k] = (KIND_STEP, msgpack.packb([step, messages], use_bin_type=True))
    bad = tmp_path / "forged.log"
    write_records(bad, recs)
    assert verify_fails_at(bad) == k
    assert "signature" in json.loads(lanopoli("verify", str(bad), "--json").stdout)["error"]


def test_a_log_cut_at_a_record_boundary_is_valid_but_unfinished(logs, tmp_path):
    # A crashed peer leaves exactly such a log: every record in it checks out, the game does not end.
    recs = records(logs[0])
    k = middle_step(logs[0])
    cut = tmp_path / "unfinished.log"
    write_records(cut, recs[: 1 + k])
    proc = lanopoli("verify", str(cut), "--json")
    assert proc.returncode == 3, proc.stdout + proc.stderr  # valid so far, but unfinished
    summary = json.loads(proc.stdout)
    assert summary["ok"] is True and summary["complete"] is False
    assert summary["steps"] == k and summary["winner"] is None
    assert "The game is not finished" in lanopoli("verify", str(cut)).stdout
