"""A classroom (issue 11, "How it is checked" (c)): four tables of four peers on one virtual LAN
(network namespaces on a bridge, real multicast mDNS: tests/e2e/netns.py), and the teacher's
``lanopoli watch`` in a real terminal (tmux, 120×40) in a namespace of its own. The watch list
shows all four tables with their players and live standings (TXT ``sd``, protocol.md §N3);
Enter opens one, read-only and verified (protocol.md §N10), and follows it to its end screen;
every table finishes with agreeing final hashes, spectator or not.

The seconds between the last table starting and the list showing all four with standings are
printed, never asserted (tests do not assert on timings)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

import netns
from e2e_support import ROOT

AVAILABLE, WHY_NOT = netns.available()
TABLES = 4
#: Seconds a peer plays before it gives up (``--timeout``), and the test waits for the end.
#: Generous: table 1 plays at 10% loss, at ~4 steps/s under load (measured, issue 11 H21), so
#: a long bot game (CI's failure showed turn 381, ~1,400 steps) runs past the 240 s this was:
#: its peers time out mid-game and the spectator's board stays on their last step. A game that
#: ends, ends sooner; on a failure the message says what table 1's peers were doing.
GAME_S = 600

pytestmark = [pytest.mark.skipif(not AVAILABLE, reason=f"no virtual LAN: {WHY_NOT}"),
              pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]


def _tmux(sock: str, *args: str) -> str:
    return subprocess.run(["tmux", "-L", sock, *args], check=True, capture_output=True, text=True).stdout


def _wait(sock: str, pred, seconds: float, what: str) -> str:
    deadline = time.monotonic() + seconds
    screen = ""
    while time.monotonic() < deadline:
        screen = _tmux(sock, "capture-pane", "-p", "-t", "watch")
        if pred(screen):
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{what} never appeared; the screen was:\n{screen}")


def _cursor_table(sock: str) -> str | None:
    """The table number on the games-list row under the cursor, or None while none is drawn: the
    one data row drawn bold (ui/app.tcss's cursor row; zebra rows and the header differ)."""
    for line in _tmux(sock, "capture-pane", "-e", "-p", "-t", "watch").splitlines():
        m = re.search(r"Table(\d)\s+classico", line)
        if m and "\x1b[1m" in line[:m.start()]:
            return m.group(1)
    return None


def _cursor_to_table(sock: str, listed: re.Pattern, table: str) -> None:
    """Put the games list's cursor on ``table``'s row, reading it back after each move: the cursor
    follows the listing it is on across refreshes (RV13-C #1), so keys counted from one screen
    went astray when the list changed before they arrived (stop 26's CI opened table 3)."""
    for looks in range(1, 51):
        order = [m.group(1) for m in listed.finditer(_tmux(sock, "capture-pane", "-p", "-t", "watch"))]
        at = _cursor_table(sock)
        if at == table:
            print(f"classroom: the cursor came to table {table} at look {looks}")
            return
        if at in order and table in order:
            delta = order.index(table) - order.index(at)
            for _ in range(abs(delta)):
                _tmux(sock, "send-keys", "-t", "watch", "Down" if delta > 0 else "Up")
        time.sleep(0.3)
    raise AssertionError(f"the cursor never came to table {table}; the screen was:\n"
                         f"{_tmux(sock, 'capture-pane', '-p', '-t', 'watch')}")


HOLD_AT = 20  # the held seat of every table waits at its first decision step >= this


def hosting_port(host) -> int:
    """The UDP port from the host's ``hosting`` progress line (protocol.md part L)."""
    return next(m for m in host.seen if m["type"] == "hosting")["port"]


def peers_state(peers) -> str:
    """One line per peer of a table: its exit code (None: running) and last progress lines, so
    that a failure says whether the game was still running, stalled, or timed out."""
    lines = []
    for p in peers:
        p.of_type("")  # read what it printed so far
        lines.append(f"exit={p.proc.poll()} last={p.seen[-2:]} stderr={p.stderr[-2:]}")
    return "\n".join(lines)


@pytest.mark.timeout(GAME_S + 300)
def test_the_teacher_watches_four_tables(spawn, tmp_path):
    release = tmp_path / "release"
    sock = f"lanopoli-class-{uuid.uuid4().hex[:8]}"
    with netns.VirtualLan(TABLES + 1) as lan:
        teacher = TABLES
        pythonpath = f"PYTHONPATH={shlex.quote(os.environ['PYTHONPATH'])} " if os.environ.get("PYTHONPATH") else ""
        cmd = " ".join([sys.executable, "-m", "ui.cli", "watch", "--lang", "en", "--bind", lan.addresses[teacher],
                        "--name", "Prof", "--config-dir", str(tmp_path / "prof")])
        subprocess.run([*lan.prefix(teacher), "tmux", "-L", sock, "new-session", "-d", "-s", "watch", "-x", "120",
                        "-y", "40", "-c", str(ROOT), f"env {pythonpath}LANG=en_US.UTF-8 TERM=xterm-256color {cmd}; "
                        "echo WATCH-EXITED; sleep 600"], check=True, timeout=30)
        try:
            tables = []
            for t in range(TABLES):
                # The watched table (0) loses a few datagrams: retransmissions make it last long
                # enough to be opened while it runs; the others play at full speed.
                loss = ["--loss", "0.1"] if t == 0 else []
                common = ["--bind", lan.addresses[t], "--progress-json", "--timeout", str(GAME_S), *loss]
                host = spawn("host", "--seats", "4", "--name", f"Table{t + 1}", *common,
                             "--log-dir", str(tmp_path / f"t{t}-0"), "--config-dir", str(tmp_path / f"k{t}-0"),
                             prefix=lan.prefix(t))
                gid = host.wait_for(lambda m: m["type"] == "hosting", 60)["game_id"]
                peers = [host] + [spawn("join", "--game", gid, "--name", f"T{t + 1}{chr(98 + j)}", *common,
                                        "--log-dir", str(tmp_path / f"t{t}-{j + 1}"),
                                        "--config-dir", str(tmp_path / f"k{t}-{j + 1}"), prefix=lan.prefix(t))
                                  for j in range(2)]
                # A 4-seat bot game can end in a second or two on a quiet machine, before the
                # teacher's list shows it: the fourth seat holds its input at step >= HOLD_AT
                # until the test has opened table 1 (lockstep: nobody passes that step without it).
                peers.append(spawn("--host", f"{lan.addresses[t]}:{hosting_port(host)}", "--game", gid,
                                   "--seed", f"classroom-{t}-{os.getpid()}", "--bind", lan.addresses[t], "--name", f"T{t + 1}d",
                                   "--log-dir", str(tmp_path / f"t{t}-3"), "--hold-at", str(HOLD_AT),
                                   "--release", str(release), "--timeout", str(GAME_S),
                                   script=Path(__file__).with_name("held_peer.py"), prefix=lan.prefix(t)))
                tables.append(peers)
            for peers in tables:
                peers[0].wait_for(lambda m: m["type"] == "found", 60)
            started = time.monotonic()
            listed = re.compile(r"Table(\d)\s+classico\s+(\d+)\s+")
            screen = _wait(sock, lambda s: len(set(m.group(1) for m in listed.finditer(s))) == TABLES, 60,
                           "all four tables with a turn number")
            print(f"\nclassroom: all {TABLES} tables listed with standings "
                  f"{time.monotonic() - started:.2f} s after the last one started")
            # Table 1's row names its players with their money; the cell is cut at its end (the
            # seat order is the keys' order), so any of them, not a given one
            line = next(ln for ln in screen.splitlines() if "Table1 " in ln and "classico" in ln)
            assert re.search(r"(T1[bcd]|Table1) €\d", line), line
            # Open table 1: move the cursor onto its row, read back, then Enter.
            _cursor_to_table(sock, listed, "1")
            _tmux(sock, "send-keys", "-t", "watch", "Enter")
            try:
                # The board's bottom line ("Turn: … · read-only · h: chat · q: back to the list",
                # shortened to fit since 7cbc93b), never on the list.
                board = _wait(sock, lambda s: "read-only" in s and "q: back to the list" in s, 60,
                              "the watched board")
            except AssertionError as e:  # CI at fea2c87 once (the screen now keeps start_watch's reason)
                raise AssertionError(f"{e}\ntable 1's peers:\n{peers_state(tables[0])}") from None
            assert re.search(r"Table1|T1[bcd]", board), f"the spectator opened another table:\n{board}"
            release.touch()  # every table plays on to its end
            released = time.monotonic()
            try:
                end = _wait(sock, lambda s: "You watched this game" in s, GAME_S, "the spectator's end screen")
            except AssertionError as e:
                raise AssertionError(f"{e}\ntable 1's peers:\n{peers_state(tables[0])}") from None
            print(f"classroom: the spectator saw table 1 end {time.monotonic() - released:.0f} s after the release")
            for peers in tables:
                for p in peers:
                    assert p.finish(GAME_S) == 0, p.stderr[-10:]
            for t, peers in enumerate(tables):
                dones = [p.of_type("done")[-1] for p in peers]
                assert len({d["final_state_hash"] for d in dones}) == 1, f"table {t + 1} disagrees"
            winner = tables[0][0].of_type("done")[-1]["winner_name"]
            assert winner is None or winner in end
        finally:
            subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True, timeout=30)
