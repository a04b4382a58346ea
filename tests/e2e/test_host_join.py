"""End to end: `lanopoli host` and `lanopoli join` as separate processes on loopback.

Issue text: "`host` advertises a game on the LAN and waits for seats to fill, `join` lists or
picks an advertised game (`join --list` lists the advertised games and exits). Both take
`--interface/--bind`".
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 120


def cli(*argv: str) -> list[str]:
    return [sys.executable, "-m", "ui.cli", "--lang", "en", *argv]


def start_host(tmp_path: Path, seats: int) -> tuple[subprocess.Popen, dict]:
    """A host on 127.0.0.1 with --progress-json, and its ``hosting`` line."""
    host = subprocess.Popen(
        cli("host", "--bind", "127.0.0.1", "--seats", str(seats), "--progress-json",
            "--log-dir", str(tmp_path / "host"), "--config-dir", str(tmp_path / "host-keys"),
            "--timeout", str(TIMEOUT_S)),
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = host.stdout.readline()
    assert line, host.stderr.read()
    hosting = json.loads(line)
    assert hosting["type"] == "hosting" and hosting["address"] == "127.0.0.1"
    return host, hosting


def test_join_lists_then_plays_the_hosted_game(tmp_path):
    host, hosting = start_host(tmp_path, seats=2)
    try:
        listed = subprocess.run(cli("join", "--bind", "127.0.0.1", "--list", "--wait", "1.5"),
                                cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert listed.returncode == 0, listed.stderr
        mine = [line for line in listed.stdout.splitlines() if line.startswith(hosting["game_id"])]
        assert len(mine) == 1 and "seats 1/2" in mine[0] and "waiting for players" in mine[0]

        joined = subprocess.run(
            cli("join", "--bind", "127.0.0.1", "--game", hosting["game_id"][:12], "--log-dir",
                str(tmp_path / "joiner"), "--config-dir", str(tmp_path / "joiner-keys"),
                "--timeout", str(TIMEOUT_S)),
            cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S + 30)
        assert joined.returncode == 0, joined.stdout + joined.stderr
        host_out, host_err = host.communicate(timeout=60)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    assert host.returncode == 0, host_err
    lines = [json.loads(line) for line in host_out.splitlines()]
    assert [m["type"] for m in lines][0] == "found" and lines[-1]["type"] == "done"
    done = lines[-1]
    assert re.search(rf"^final state hash: {done['final_state_hash']}$", joined.stdout, re.M)
    # protocol.md §C2.4: both seats show the same table code (the joiner's line for people).
    assert f"Table code: {lines[0]['table_code']} — read it out loud" in joined.stderr, joined.stderr
    assert Path(done["log"]).is_file() and done["maxrss_kb"] > 0
    # The joiner's keys were created in --config-dir and are reused next time.
    assert (tmp_path / "joiner-keys" / "ed25519.key").stat().st_size == 32


def test_a_terminated_host_exits_cleanly(tmp_path):
    host, _ = start_host(tmp_path, seats=3)
    host.send_signal(signal.SIGTERM)
    _out, err = host.communicate(timeout=30)
    assert host.returncode == 143
    assert "Traceback" not in err


def test_joining_a_game_nobody_hosts_is_a_usage_error(tmp_path):
    proc = subprocess.run(cli("join", "--bind", "127.0.0.1", "--game", "00" * 16, "--wait", "0.5",
                              "--log-dir", str(tmp_path), "--config-dir", str(tmp_path / "k"), "--timeout", "3"),
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def processes_mentioning(text: str) -> list[int]:
    """PIDs whose command line contains ``text`` (Linux /proc)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmdline:
                pids.append(int(proc.name))
    return pids


def _default_sigint() -> None:
    """In the demo's child, before exec: SIGINT back to its default action. A shell without job
    control starts background commands with SIGINT ignored (POSIX), every process under them
    inherits that, and Python then leaves Ctrl-C ignored, as a program should: so a suite
    launched as `cmd &` saw the demo play on to the end and exit 0 instead of 130. A terminal's
    Ctrl-C reaches a foreground demo with the default action, which this restores."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_demo_reaps_its_children(tmp_path, sig, code):
    log_dir = tmp_path / "interrupted"
    demo = subprocess.Popen(cli("demo", "--peers", "4", "--log-dir", str(log_dir)), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_sigint)
    try:
        deadline = time.monotonic() + 60
        while not (log_dir / "peer-3" / "stderr.log").exists():  # every child started
            assert demo.poll() is None, demo.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        demo.send_signal(sig)
        _out, err = demo.communicate(timeout=30)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    assert demo.returncode == code, err
    assert "Traceback" not in err
    assert processes_mentioning(str(log_dir)) == []
