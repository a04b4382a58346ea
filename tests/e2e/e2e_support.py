"""Plain helpers of the end-to-end tests (the fixtures that use them are in conftest.py): peer
processes (``lanopoli host``/``join`` with ``--progress-json``) whose JSON lines are read in the
background (``PeerProc``), a factory that kills every one it started (``spawner``), a process with
its output in files (``Background``), the partition demo's flags and waiting line.

Test modules import from here, never from conftest.py: tests/ui/conftest.py is also imported as
``conftest``, and in one pytest call of both folders the one loaded last won (``from conftest
import ROOT`` failed with tests/ui listed first).
"""

from __future__ import annotations

import contextlib
import json
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class PeerProc:
    """One peer process. ``seen``: every JSON line so far (dicts, in order); ``stderr``: its
    stderr lines; ``wait_for(pred, timeout)`` returns the first line (old or new) matching.
    ``queue_class``: the queue the reader thread puts the lines in (a subclass may stamp them)."""

    queue_class = queue.Queue

    def __init__(self, argv: list[str], prefix: list[str] | tuple = (), script: Path | None = None) -> None:
        run = [str(script)] if script is not None else ["-m", "ui.cli", "--lang", "en"]
        cmd = [*prefix, sys.executable, *run, *argv]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, text=True)
        self.seen: list[dict] = []
        self.stderr: list[str] = []
        self._q: queue.Queue = self.queue_class()
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_out(self) -> None:
        for line in self.proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict):
                self._q.put(msg)
        self._q.put(None)

    def _read_err(self) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line.rstrip("\n"))

    def _drain(self, block_s: float) -> bool:
        """Move queued lines to ``seen``; False once stdout is closed and drained."""
        try:
            msg = self._q.get(timeout=block_s)
        except queue.Empty:
            return True
        while True:
            if msg is None:
                self._q.put(None)
                return False
            self.seen.append(msg)
            try:
                msg = self._q.get_nowait()
            except queue.Empty:
                return True

    def wait_for(self, pred, timeout: float) -> dict:
        """The first JSON line with ``pred(line)`` true; AssertionError (with the process's
        stderr) if the process ends or ``timeout`` s pass first."""
        deadline = time.monotonic() + timeout
        checked = 0
        while True:
            for msg in self.seen[checked:]:
                if pred(msg):
                    return msg
            checked = len(self.seen)
            alive = self._drain(0.05)
            if len(self.seen) == checked and (not alive or time.monotonic() > deadline):
                raise AssertionError(f"no matching line (alive={alive}); last lines {self.seen[-3:]}; "
                                     f"stderr: {self.stderr[-10:]}")

    def of_type(self, kind: str) -> list[dict]:
        """The lines of type ``kind`` seen so far."""
        self._drain(0)
        return [m for m in self.seen if m.get("type") == kind]

    def finish(self, timeout: float) -> int:
        """Wait for the exit; the exit code (all its output is in ``seen``)."""
        code = self.proc.wait(timeout=timeout)
        while self._drain(0.05):
            pass
        return code


@contextlib.contextmanager
def spawner():
    """Context manager giving a factory of ``PeerProc`` (arguments as ``spawn``); on exit, pass
    or fail, every process it started is killed (SIGKILL) and reaped. For a module-scoped
    fixture, which cannot use the function-scoped ``spawn`` (conftest.py)."""
    procs: list[PeerProc] = []

    def start(*argv: str, prefix: list[str] | tuple = (), script: Path | None = None) -> PeerProc:
        p = PeerProc(list(argv), prefix, script)
        procs.append(p)
        return p

    try:
        yield start
    finally:
        for p in procs:
            if p.proc.poll() is None:
                p.proc.kill()
            p.proc.wait(timeout=30)


#: The two-seat partition scenario of issue 9 item 7 / issue 10 attack 7 (protocol.md §C8.3
#: quorum, §N5 pause): cut off for 8 s, longer than the 3 s drop timeout, with seed 5, 0.05 s
#: after the game starts (§N6: partitions count from the game's start, so the cut always falls
#: inside the game, however fast the engine).
PARTITION_DEMO = ["demo", "--peers", "2", "--seed", "5", "--partition", "0.05:8", "--drop-timeout", "3"]
#: What the demo prints (its live lines, on stderr) while a peer waits for the other: proof the cut happened.
WAITING_LINE = re.compile(r"step \d+: waiting for bot-\d \(seat \d\)")


class Background:
    """A process started now whose stdout and stderr go to files in ``out_dir`` (nobody need
    read them while it runs: a pipe could fill and stall it). ``result(timeout)`` waits for its
    end and returns it as ``subprocess.run`` would (``CompletedProcess`` with the text of both);
    ``stop()`` kills it if it still runs and reaps it."""

    def __init__(self, argv: list[str], out_dir: Path) -> None:
        out_dir.mkdir(parents=True, exist_ok=True)
        self._out, self._err = out_dir / "stdout.txt", out_dir / "stderr.txt"
        with open(self._out, "w") as out, open(self._err, "w") as err:
            self.proc = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=err, stdin=subprocess.DEVNULL)

    def result(self, timeout: float) -> subprocess.CompletedProcess:
        code = self.proc.wait(timeout=timeout)
        return subprocess.CompletedProcess(self.proc.args, code, self._out.read_text(), self._err.read_text())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)
