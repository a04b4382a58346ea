"""End to end, as a person would: ``lanopoli play`` in a real terminal (tmux, 80×24) joins a
game hosted by three bot peers in other processes (``lanopoli host``/``join`` on 127.0.0.1),
a scripted player drives it with send-keys (join by the host's address code, roll once, then "let the bot play for me")
to the end, and the test reads the final standings and the verify command with capture-pane,
then runs that command.

The roll is checked in the player's game log (a signed RollDice of Marco's seat, applied by
every peer), not on the screen: the centre log of an 80x24 screen holds ~7 lines, and a drawn
card's text or the bots' next moves scroll "Marco rolls ..." away within a fraction of a second,
often before a capture-pane poll sees it."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Iterator, NamedTuple

import msgpack
import pytest

import engine
from engine import actions as A
from p2p.gamelog import KIND_HEADER, KIND_STEP, LogReader
from p2p.log_checks import parse_header
from p2p.wire import decode_step_body, open_envelope

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None,
                                reason="tmux is not installed (apt-get install -y tmux)")

LANOPOLI = [sys.executable, "-m", "ui.cli"]


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def _screen(session: str) -> str:
    return _tmux("capture-pane", "-p", "-t", session)


def _wait_screen(session: str, text: str, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    screen = ""
    while time.monotonic() < deadline:
        screen = _screen(session)
        if text in screen:
            return screen
        time.sleep(0.3)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")


def _rolled(log_dir: Path, name: str) -> bool:
    """True once the game log in ``log_dir`` holds a step in which the seat of player ``name``
    sent RollDice (its signed STEP message, applied by every peer). The log is being written:
    a truncated last record just ends the reading."""
    for log in log_dir.glob("game-*.log"):
        seat = None
        for rec in LogReader(log):
            if rec.kind == KIND_HEADER:
                setup = parse_header(rec.payload)[0]
                seat = next(i for i, p in enumerate(setup.players) if p.name == name)
            elif rec.kind == KIND_STEP and seat is not None:
                _step, raws = msgpack.unpackb(rec.payload, raw=False)
                raw = raws[seat]
                if raw is None:
                    continue
                inp = decode_step_body(open_envelope(raw).body).input
                if isinstance(inp, list) and isinstance(engine.decode_action(inp), A.RollDice):
                    return True
    return False


def _wait_rolled(log_dir: Path, name: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not _rolled(log_dir, name):
        if time.monotonic() > deadline:
            raise AssertionError(f"no RollDice of {name} in the game log after {seconds} s")
        time.sleep(0.3)


def test_play_joins_three_bot_peers_and_reaches_the_standings(tmp_path: Path) -> None:
    env = dict(os.environ, LANG="en_US.UTF-8", LANGUAGE="", LC_ALL="", TERM="xterm-256color")
    repo = Path(__file__).resolve().parents[2]
    procs = []
    session = f"lanopoli-{uuid.uuid4().hex[:8]}"
    try:
        host = subprocess.Popen([*LANOPOLI, "host", "--seats", "4", "--bind", "127.0.0.1", "--name", "Giulia",
                                 "--log-dir", str(tmp_path / "giulia"), "--config-dir", str(tmp_path / "k0"),
                                 "--progress-json"], cwd=repo, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
        procs.append(host)
        first = host.stdout.readline()  # the "hosting" line: the game is advertised
        assert '"hosting"' in first, first
        hosting = json.loads(first)
        for i, name in enumerate(("Anna", "Luca"), 1):
            procs.append(subprocess.Popen([*LANOPOLI, "join", "--bind", "127.0.0.1", "--name", name,
                                           "--game", hosting["game_id"],
                                           "--log-dir", str(tmp_path / name), "--config-dir", str(tmp_path / f"k{i}")],
                                          cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        cmd = " ".join([*LANOPOLI, "play", "--lang", "en", "--bind", "127.0.0.1", "--name", "Marco",
                        "--log-dir", str(tmp_path / "marco"), "--config-dir", str(tmp_path / "k3")])
        # The tmux server may be older than this test: pass the environment that matters.
        pythonpath = f"PYTHONPATH={shlex.quote(os.environ['PYTHONPATH'])} " if os.environ.get("PYTHONPATH") else ""
        _tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", "-c", str(repo),
              f"env {pythonpath}LANG=en_US.UTF-8 TERM=xterm-256color {cmd}; sleep 600")
        # The lobby lists the games on the network (other games may be running on loopback too).
        lobby = _wait_screen(session, "Giulia", 60)  # the host's name (TXT n, protocol.md §N3)
        assert "Your name" in lobby and "classico" in lobby
        # Join by address with the host's code: exactly this game, mDNS not needed.
        _tmux("send-keys", "-t", session, "i")
        # The dialog's own text: the lobby's button already says "Join by address", and keys
        # typed before the dialog is up go to the lobby's table and are lost. Once the dialog
        # is drawn its input has the focus (Textual focuses it when the screen is composed).
        _wait_screen(session, "Type the code the host's screen shows", 10)
        code = f"{hosting['address']}:{hosting['port']}/{hosting['game_id']}"
        _tmux("send-keys", "-t", session, "-l", code)
        _wait_screen(session, code, 10)
        _tmux("send-keys", "-t", session, "Enter")
        game = _wait_screen(session, "Roll the dice", 60)
        # --lang en: the board speaks English (Part U, H108 s11: "GO", not the Italian "VIA!").
        assert "Marco (you)" in game and "Giulia" in game and "GO" in game and "VIA!" not in game
        _tmux("send-keys", "-t", session, "r")
        _wait_rolled(tmp_path / "marco", "Marco", 30)
        _tmux("send-keys", "-t", session, "a")  # let the bot play for me
        end = _wait_screen(session, "Check it: lanopoli verify", 240)
        assert "Final standings" in end and "wins!" in end
        for name in ("Marco", "Giulia", "Anna", "Luca"):
            assert name in end
        # The path may wrap onto the next lines of the 80-column screen.
        log = ""
        for line in end.split("Check it: lanopoli verify", 1)[1].splitlines():
            log += line.strip()
            if log.endswith(".log"):
                break
        assert Path(log).is_file()
        check = subprocess.run([*LANOPOLI, "verify", log], cwd=repo, env=env, capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr
        _tmux("send-keys", "-t", session, "q")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


class _Table(NamedTuple):
    """Marco's ``lanopoli play`` in a 120×40 tmux ``session``, joined to the 2-seat game that
    the bot peer Giulia hosts; ``run``: the pane's command (to start it again), ``env`` and
    ``repo``: what the processes run with."""

    session: str
    run: str
    env: dict
    repo: Path


@contextlib.contextmanager
def _marco_joins_giulia(tmp_path: Path) -> Iterator[_Table]:
    """Giulia (``lanopoli host``, a bot peer) hosts a 2-seat game; Marco's ``lanopoli play``
    starts in a 120×40 tmux session, sees the game listed and joins it by its code (``i``).
    Yields once the code is sent; the session and the host are ended on the way out."""
    env = dict(os.environ, LANG="en_US.UTF-8", LANGUAGE="", LC_ALL="", TERM="xterm-256color")
    repo = Path(__file__).resolve().parents[2]
    session = f"lanopoli-{uuid.uuid4().hex[:8]}"
    host = subprocess.Popen([*LANOPOLI, "host", "--seats", "2", "--bind", "127.0.0.1", "--name", "Giulia",
                             "--log-dir", str(tmp_path / "giulia"), "--config-dir", str(tmp_path / "k0"),
                             "--progress-json"], cwd=repo, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        hosting = json.loads(host.stdout.readline())
        cmd = " ".join([*LANOPOLI, "play", "--lang", "en", "--bind", "127.0.0.1", "--name", "Marco",
                        "--log-dir", str(tmp_path / "marco"), "--config-dir", str(tmp_path / "k1")])
        pythonpath = f"PYTHONPATH={shlex.quote(os.environ['PYTHONPATH'])} " if os.environ.get("PYTHONPATH") else ""
        run = f"env {pythonpath}LANG=en_US.UTF-8 TERM=xterm-256color {cmd}; echo PLAY-EXITED; sleep 600"
        _tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", "-c", str(repo), run)
        _wait_screen(session, "Giulia", 60)
        _tmux("send-keys", "-t", session, "i")
        _wait_screen(session, "Type the code the host's screen shows", 10)
        _tmux("send-keys", "-t", session, "-l", f"{hosting['address']}:{hosting['port']}/{hosting['game_id']}")
        _tmux("send-keys", "-t", session, "Enter")
        yield _Table(session, run, env, repo)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
        host.terminate()
        try:
            host.wait(timeout=10)
        except subprocess.TimeoutExpired:
            host.kill()


def test_play_at_120x40_shows_the_money_and_q_asks_before_leaving(tmp_path: Path) -> None:
    """Issue 11 (a): at 120×40 — the smallest wide layout, where the players panel used to be
    off-screen — join a game hosted by a bot peer, see our money and whose turn it is; ``q``
    asks first and ``n`` keeps us in the game; ``q`` then ``y`` leaves."""
    with _marco_joins_giulia(tmp_path) as table:
        session = table.session
        game = _wait_screen(session, "You: €", 60)
        assert "Marco (you)" in game and "Giulia" in game
        assert "Your turn" in game or "Turn: Giulia" in game
        _tmux("send-keys", "-t", session, "q")
        _wait_screen(session, "Leave the game?", 10)
        _tmux("send-keys", "-t", session, "n")
        deadline = time.monotonic() + 10
        while "Leave the game?" in _screen(session) and time.monotonic() < deadline:
            time.sleep(0.2)
        still = _screen(session)
        assert "Leave the game?" not in still and "You: €" in still and "PLAY-EXITED" not in still
        _tmux("send-keys", "-t", session, "q")
        _wait_screen(session, "Leave the game?", 10)
        _tmux("send-keys", "-t", session, "y")
        _wait_screen(session, "PLAY-EXITED", 30)


def _play_pid(session: str) -> int:
    """The pid of the ``lanopoli play`` process in the session's pane (a child of the pane's shell)."""
    shell = _tmux("display-message", "-p", "-t", session, "#{pane_pid}").strip()
    out = subprocess.run(["pgrep", "-P", shell, "-f", "ui.cli play"], capture_output=True, text=True).stdout.split()
    assert out, "no play process in the pane"
    return int(out[0])


def test_killed_play_restarts_lists_our_game_and_enter_rejoins(tmp_path: Path) -> None:
    """Issue 11 (b): kill the ``play`` process mid-game (SIGKILL, like a crash), start it again
    with the same config and log dirs: the lobby lists the game first as ours, Enter rejoins
    it from the log (same seat, catch-up: protocol.md §N5) and the log says we are back; the
    game then goes on to its end and every peer's log verifies."""
    import signal

    with _marco_joins_giulia(tmp_path) as table:
        session, env, repo = table.session, table.env, table.repo
        _wait_screen(session, "Roll the dice", 60)
        _tmux("send-keys", "-t", session, "r")
        _wait_rolled(tmp_path / "marco", "Marco", 30)
        os.kill(_play_pid(session), signal.SIGKILL)  # the program dies mid-game
        _wait_screen(session, "PLAY-EXITED", 30)
        assert list((tmp_path / "marco").glob("game-*.log.resume"))  # an unfinished game of ours
        _tmux("respawn-pane", "-k", "-t", session, table.run)
        lobby = _wait_screen(session, "your game", 60)
        assert "Enter: rejoin" in lobby and "Giulia" in lobby
        _tmux("send-keys", "-t", session, "Enter")
        # Rejoined: our game screen again. The "You are back at the table" line is written
        # first, but the host's bot plays its turn at once and can scroll it out of the log
        # area before a capture (it was missed in 1 of 3 runs), so the line is not what we wait
        # for; what must hold is that we play our seat again and the game ends for both.
        back = _wait_screen(session, "Marco (you)", 60)
        assert "your game" not in back
        _tmux("send-keys", "-t", session, "a")  # let the bot play for me
        end = _wait_screen(session, "Check it: lanopoli verify", 240)
        assert "Final standings" in end
        assert not list((tmp_path / "marco").glob("game-*.log.resume"))  # finished: nothing to resume
        for log in [*(tmp_path / "marco").glob("game-*.log"), *(tmp_path / "giulia").glob("game-*.log")]:
            check = subprocess.run([*LANOPOLI, "verify", str(log)], cwd=repo, env=env, capture_output=True, text=True)
            assert check.returncode == 0, check.stdout + check.stderr
