"""The timed game's clock across a roll back (protocol.md §N8; ``NodeInput.restart``): the agreed
duration counts from the moment the session started; only a restart of the process from its log
(a new node) counts again. A roll back inside the running node (``NodeRestart.become_spectator``
-> ``Node.adopt`` -> ``Node._run``: our seat lost, a step overturned, §C3.4, §C8.3) keeps the
start, so a seat that forces roll backs cannot push the end of a timed game back (H163 BREAK #1;
the whole node path is tests/p2p/test_redteam_s15_timed.py)."""

from __future__ import annotations

from types import SimpleNamespace

import engine as E
from engine.actions import TimeUp
from engine.testing import scenario
from p2p.node_input import NodeInput
from p2p.seat_answer import SeatAnswer

OPTS = {"timed_minutes": 1}  # the agreed duration: 60 s


def _node(setup_hash: bytes) -> SimpleNamespace:
    """What ``NodeInput`` reads of its node here: the engine, our seat, the running session."""
    return SimpleNamespace(engine=E, seat=1, session=SimpleNamespace(setup_hash=setup_hash))


def _vote(inp: NodeInput, now: float):
    """Our answer at a step where seat 1 is no actor (seat 0's roll: the vote costs nothing)."""
    s = scenario(3, edition="editrice-giochi", options=OPTS)
    assert 1 not in E.pending(s).actors
    return inp.answer.timed_vote(E, s, 1, now, False)


def test_n8_a_roll_back_in_the_running_node_keeps_the_clocks_start():
    """§N8: started at 100 s, rolled back at 150 s (same game): the vote is due at 160 s, as it
    would have been without the roll back; a second roll back changes nothing either."""
    node = _node(b"g" * 32)
    inp = NodeInput(node, SeatAnswer(), None)
    inp.restart(OPTS, 100.0)  # the lobby's end
    inp.restart(OPTS, 150.0)  # a StepOverturned: our log replayed, the session adopted again
    assert _vote(inp, 159.9) is None
    assert _vote(inp, 160.0) == TimeUp()
    node.session = SimpleNamespace(setup_hash=b"g" * 32)  # the replayed session: a new object, same game
    inp.restart(OPTS, 170.0)
    assert _vote(inp, 160.0) == TimeUp()


def test_n8_a_restart_of_the_process_counts_again_and_never_early():
    """§N8: "a peer restarted from its log starts counting again at its restart (it can be late,
    never early)": the restarted process has a new node, so a new ``NodeInput``."""
    restarted = NodeInput(_node(b"g" * 32), SeatAnswer(), None)
    restarted.restart(OPTS, 150.0)
    assert _vote(restarted, 160.0) is None
    assert _vote(restarted, 210.0) == TimeUp()


def test_n8_another_games_session_starts_its_own_clock():
    """The start is kept per game (``setup_hash``): a session of another game counts from its own
    start (a node runs one game; this keeps a reused input honest)."""
    node = _node(b"g" * 32)
    inp = NodeInput(node, SeatAnswer(), None)
    inp.restart(OPTS, 100.0)
    node.session = SimpleNamespace(setup_hash=b"h" * 32)
    inp.restart(OPTS, 150.0)
    assert _vote(inp, 160.0) is None
    assert _vote(inp, 210.0) == TimeUp()


def test_n8_an_untimed_game_stays_untimed_across_a_roll_back():
    inp = NodeInput(_node(b"g" * 32), SeatAnswer(), None)
    inp.restart({}, 100.0)
    inp.restart({}, 150.0)
    assert _vote(inp, 1e9) is None
