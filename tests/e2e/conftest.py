"""Fixtures of the end-to-end tests; the plain helpers they use (``PeerProc``, ``spawner``,
``Background``, ``ROOT``, ``PARTITION_DEMO``, ``WAITING_LINE``) are in e2e_support.py, where test
modules import them from (not from here: tests/ui/conftest.py is also imported as ``conftest``).

``spawn(*argv, prefix=(), script=None)`` starts ``python -m ui.cli --lang en *argv`` (``prefix``
e.g. ``["ip", "netns", "exec", "ns1"]``), or ``python SCRIPT *argv`` with ``script`` (a test
peer such as ``held_peer.py``), and returns a ``PeerProc``; every process started through the
fixture is killed (SIGKILL) and reaped at teardown, pass or fail.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path

import pytest

from e2e_support import PARTITION_DEMO, Background, spawner


@pytest.fixture
def spawn():
    """Factory of ``PeerProc``; kills and reaps every one at teardown."""
    with spawner() as start:
        yield start


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
