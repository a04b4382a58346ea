"""End to end, real processes on loopback: the host of a ``lanopoli play`` game with fill-in bots
crashes (SIGKILL) and rejoins; its bots come back with it and the game ends with a winner.

H60's break: Carla hosts 4 seats = Carla + 1 joiner (Dario) + 2 fill-in bots run in her process
(``NetGame.fill_with_bots``). Killed and restarted, her rejoin (``NetLobby.rejoin``) brought her
seat back, but the bots had fresh keys and no log, so nothing could resume them; Carla and Dario
are 2 of 4 seats, no majority to drop them (protocol.md §C8.3), and the game ended as abandoned.
Now each bot keeps its keys and log under Carla's log directory (``ui.net_game.bot_dir_of``)
and the rejoin resumes them as peers resuming from their own logs (§N5, §C10).

Carla runs in tests/e2e/play_host_peer.py (the app's lobby backend and driver without the
screen, her seat on autoplay); Dario is ``lanopoli join``. The game is timed (editrice-giochi)
so that it ends in a bounded time, with a winner.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOST = [sys.executable, str(ROOT / "tests" / "e2e" / "play_host_peer.py")]
TIMEOUT_S = 240
#: Steps Carla applies before the crash: the game is well under way, and it is a timed game of
#: one minute whose first steps take about a second each at her pace.
KILL_AT_STEP = 12
#: Carla's autoplay pace (s before each of her decisions, ``HumanSeat.pace``): before the crash
#: slow enough that the kill lands mid-game; after her rejoin only the end matters, and at
#: PACE_S the ~100 decisions left of a ~400-step game were ~15 s of sleeping.
PACE_S = 0.2
REJOIN_PACE_S = 0.02


def lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def wait_for_line(proc: subprocess.Popen, cond, seconds: float) -> dict:
    """Read ``proc``'s JSON stdout lines until one satisfies ``cond`` (fails after ``seconds``
    or at the end of the output)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("{") and cond(json.loads(line)):
            return json.loads(line)
    raise AssertionError(f"line not seen; stderr: {proc.stderr.read() if proc.poll() is not None else ''}")


def test_a_crashed_host_rejoins_with_its_bots_and_the_game_ends_with_a_winner(tmp_path):
    carla = ["--log-dir", str(tmp_path / "carla"), "--config-dir", str(tmp_path / "carla-keys")]
    host = subprocess.Popen([*HOST, "host", *carla, "--pace", str(PACE_S), "--seats", "4", "--humans", "2",
                             "--timed", "1"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dario = None
    try:
        game_id = wait_for_line(host, lambda m: m["type"] == "lobby", 60)["game_id"]
        dario = subprocess.Popen(
            [sys.executable, "-m", "ui.cli", "--lang", "en", "join", "--bind", "127.0.0.1", "--game", game_id[:12],
             "--log-dir", str(tmp_path / "dario"), "--config-dir", str(tmp_path / "dario-keys"),
             "--timeout", str(TIMEOUT_S), "--progress-json"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for_line(host, lambda m: m["type"] == "step" and m["step"] >= KILL_AT_STEP, 120)
        host.kill()
        host.wait()
        bot_dirs = sorted((tmp_path / "carla" / "bots" / game_id[:16]).iterdir())
        assert len(bot_dirs) == 2  # each bot's keys and log, beside Carla's

        again = subprocess.run([*HOST, "rejoin", *carla, "--pace", str(REJOIN_PACE_S)], cwd=ROOT, capture_output=True,
                               text=True, timeout=TIMEOUT_S)
        dario_out, dario_err = dario.communicate(timeout=TIMEOUT_S)
    finally:
        for p in (host, dario):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    out = lines(again.stdout)
    assert out[0] == {"type": "mine", "games": 1}, again.stderr
    end = out[-1]
    assert end["type"] == "end" and end["phase"] == "over", again.stderr
    assert end["abandoned"] is None and end["winner"] is not None
    assert dario.returncode == 0, dario_err
    done = lines(dario_out)[-1]
    assert done["type"] == "done" and done["abandoned"] is None and done["winner"] == end["winner"]
    # The bots played to the end too: a finished game removes each seat's .resume file, and
    # the bots' keys, of no use left.
    for d in bot_dirs:
        logs = list(d.glob("game-*.log"))
        assert len(logs) == 1 and not Path(str(logs[0]) + ".resume").exists()
        assert not list(d.glob("*.key"))
