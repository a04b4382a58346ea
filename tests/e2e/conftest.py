"""Shared helpers of the end-to-end tests: peer processes (``lanopoli host``/``join`` with
``--progress-json``) whose JSON lines are read in the background, always killed at the end.

``spawn(*argv, prefix=(), script=None)`` starts ``python -m ui.cli --lang en *argv`` (``prefix``
e.g. ``["ip", "netns", "exec", "ns1"]``), or ``python SCRIPT *argv`` with ``script`` (a test
peer such as ``held_peer.py``), and returns a ``PeerProc``; every process started through the
fixture is killed (SIGKILL) and reaped at teardown, pass or fail.
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

import pytest

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
    fixture, which cannot use the function-scoped ``spawn``."""
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


@pytest.fixture
def spawn():
    """Factory of ``PeerProc``; kills and reaps every one at teardown."""
    with spawner() as start:
        yield start


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


@pytest.fixture(scope="session")
def partition_demo_started(tmp_path_factory):
    """``lanopoli demo PARTITION_DEMO`` started (``Background``; mostly idle: the 8 s cut), in a
    network namespace of its own when this machine can make one (the fixed seed's game id then
    meets no other test session's), else on loopback. Yields (the process, its --log-dir); the
    namespace is deleted at the end of the session."""
    import spoof  # tests/e2e/spoof.py: only this fixture needs it

    root = tmp_path_factory.mktemp("partition-demo")
    log_dir = root / "demo"
    made, _why = spoof.available()
    with (spoof.Netns() if made else contextlib.nullcontext()) as ns:
        prefix = ns.prefix() if ns is not None else []
        demo = Background([*prefix, sys.executable, "-m", "ui.cli", "--lang", "en", *PARTITION_DEMO,
                           "--log-dir", str(log_dir), "--timeout", "240"], root / "output")
        try:
            yield demo, log_dir
        finally:
            demo.stop()


@pytest.fixture(scope="session")
def partition_demo(partition_demo_started) -> tuple[subprocess.CompletedProcess, Path]:
    """``lanopoli demo PARTITION_DEMO`` played once for the tests that check it
    (test_partition_quorum.py, test_attacks_session.py test 7), each with its own assertions:
    (the finished process, its --log-dir)."""
    demo, log_dir = partition_demo_started
    return demo.result(timeout=270), log_dir


@pytest.fixture(scope="session")
def withholder_table(tmp_path_factory):
    """The two-seat game of test_escrow_attack.py's last test (protocol.md §C8.5 "Where nobody
    can be dropped"): host (CLI) + hostile joiner with ``--attack bad-escrow --attack-at 5``.
    Its host then waits out the node's stall limit (``p2p.node.STALL_LIMIT``, 60 s, a product
    timer) idle, so ``idle_games_start_early`` starts it with the first end-to-end test and the
    wait overlaps the tests before it. Yields (host, hostile joiner, their seeds); the peers are
    killed and the namespace deleted at the end of the session."""
    import spoof
    from test_attacks import Table, seeds  # tests/e2e/test_attacks.py: the table of every attack game

    with spoof.Netns() as n, spawner() as spawn:
        s = seeds("escrow2", 2)
        t = Table(spawn, n, tmp_path_factory.mktemp("escrow2"), "escrow2")
        host = t.cli_host(s[0], 2, "--drop-timeout", "2", "--timeout", "150")
        cheater = t.hostile_join(s[1], "--attack", "bad-escrow", "--attack-at", "5", "--timeout", "150")
        yield host, cheater, s


@pytest.fixture(scope="session")
def same_seed_partitioned_demos(tmp_path_factory):
    """The two demos of test_demo_same_seed.py's partitioned test (``PARTITIONED_FLAGS``: an 8 s
    cut, mostly idle), started at once with the same seed as each other (``CUT_SEED``, not the
    seed of that file's other tests, whose demos may then still be running)."""
    from test_demo_same_seed import CUT_SEED, PARTITIONED_FLAGS, demo_argv

    root = tmp_path_factory.mktemp("same-seed-cut")
    demos = [Background(demo_argv(root / x, *PARTITIONED_FLAGS, seed=CUT_SEED), root / f"output-{x}") for x in "ab"]
    try:
        yield demos
    finally:
        for demo in demos:
            demo.stop()


@pytest.fixture(scope="session")
def turn_skip_games(tmp_path_factory):
    """Both games of test_turn_skip_e2e.py, started together: each spends most of its time idle
    (its voters wait out PATIENCE_S for the held seat, once or twice). {"once": hold once,
    "roll": hold at its own roll twice} -> its ``start``'s result; its tests ``play`` them."""
    from test_turn_skip_e2e import HOLD_AT, start

    with spawner() as spawn:
        yield {"once": start(spawn, tmp_path_factory.mktemp("once"), "--hold-at", str(HOLD_AT)),
               "roll": start(spawn, tmp_path_factory.mktemp("roll"), "--hold-at", str(HOLD_AT),
                             "--hold-kind", "roll", "--holds", "2")}


#: Session fixtures of games that mostly wait (a product timer, a partition, a held seat's
#: patience): started by ``idle_games_start_early`` when a selected test needs one, in the
#: order of their tests.
IDLE_GAMES = ("partition_demo_started", "same_seed_partitioned_demos", "withholder_table", "turn_skip_games")
#: Those of ``IDLE_GAMES`` that wait longer (60 s) than the end-to-end files before their tests
#: take on a fast machine: their tests run after the other end-to-end tests
#: (``pytest_collection_modifyitems``).
LATE_IDLE_GAMES = ("withholder_table",)


def pytest_collection_modifyitems(items) -> None:
    """Moves the end-to-end tests that need a ``LATE_IDLE_GAMES`` game (with their module:
    test_escrow_attack.py's fixtures request it) after the last other end-to-end test, in their
    order; nothing else moves. Their game, started with the first end-to-end test, is then over
    when they come (same games, same assertions)."""
    here = Path(__file__).resolve().parent
    ours = [i for i, item in enumerate(items) if here in Path(item.path).resolve().parents]
    late = [items[i] for i in ours if any(n in getattr(items[i], "fixturenames", ()) for n in LATE_IDLE_GAMES)]
    if late:
        moved = {id(item) for item in late}
        end = ours[-1] + 1
        items[:end] = [item for item in items[:end] if id(item) not in moved] + late


@pytest.fixture(scope="session", autouse=True)
def idle_games_start_early(request):
    """Starts the ``IDLE_GAMES`` fixtures that a selected test requests at the session's first
    end-to-end test instead of at that test, so that their idle waits overlap the other tests
    (same games, same assertions: their tests only read the peers' lines, output and logs after
    the game). Nothing is started early when no selected test needs them or where the attack
    games' namespaces cannot be made (test_attacks.py ``AVAILABLE``: the other tests would then
    run on the machine's own loopback beside them; each starts at its test as before)."""
    wanted = [name for name in IDLE_GAMES
              if any(name in getattr(item, "fixturenames", ()) for item in request.session.items)]
    if wanted:
        from test_attacks import AVAILABLE

        if AVAILABLE:
            for name in wanted:
                request.getfixturevalue(name)
