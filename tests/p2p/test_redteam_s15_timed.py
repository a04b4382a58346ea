"""Red team session 15 on main (H163): the timed game (protocol.md §N8, part E "TimeUp
contract", p2p/timed_clock.py) against a seat that lies about time or wants the game to go on.

What §N8 promises: each peer measures the agreed duration "on its own monotonic loop clock from
the moment its session starts (the end of the lobby); a peer restarted from its log starts
counting again at its restart (it can be late, never early)", and "one peer with a fast clock —
or a dishonest one — cannot end the game" (a strict majority of the seats still in must vote).

* Hold: a seat that votes ``TimeUp`` at once and puts it in every later step message (its own
  replays) is counted once; the honest seats end the time with their own votes only, at the
  turn's end (engine; the lockstep layer hands the engine each seat's input as signed).
* Stated: with two seats one seat that never votes keeps a timed game going for ever (docs/RULES.md
  "with two players both must"); so does it with three once one honest seat is dropped (the
  dropped seat follows a strict majority of the present two): checked so the limit stays visible.
* BREAK: a roll back is not a restart, but the node treats it as one: a seat that signs two
  versions of one decision-step message (§C3.4 "Two versions applied") makes the peers that
  applied the version the table does not keep halt with ``StepOverturned``; the node resumes them
  from their log (``NodeRestart.become_spectator`` -> ``Node.adopt`` -> ``Node._run``), and
  ``_run`` starts the timed clock again from that moment. A victim whose vote was due votes a
  whole agreed duration later; with three seats (the liar voted out: the two honest seats must
  both vote, a strict majority of two present) the time ends a duration late.
"""

from __future__ import annotations

import asyncio

import pytest

import engine as E
from engine.actions import TimeUp
from engine.rules.timed import absent_vote, expired
from engine.testing import roll, scenario, step
from p2p.lockstep import StepOverturned
from p2p.node import Node
from p2p.node_config import PeerConfig
from p2p.node_resume import GameFiles
from p2p.timed_clock import timed_options

from p2p_harness import Net, addr, make_lobbies, pump_lobbies
from test_decision_equivocation import _split_game

TIMED = {"timed_minutes": 90}


def test_a_lone_early_vote_replayed_every_step_counts_once_and_the_honest_votes_end_the_time():
    """§N8 / part E: the liar votes at once and repeats ``TimeUp`` in each of its step messages;
    with 3 seats still in the time stays on until an honest seat votes too (2 of 3), then ends
    at the end of that turn. The repeats change nothing (idempotent per seat)."""
    s = scenario(3, edition="editrice-giochi", options=TIMED, pos={0: 0})
    liar = 2
    for _ in range(5):  # the lie, sent and re-sent: every step it is the liar's input
        s, _ = step(s, seat2=TimeUp())
    assert s.time_up == 1 << liar and not expired(s)  # premise: the lie is in, counted once
    s, _ = step(s, seat1=TimeUp(), seat2=TimeUp())  # the first honest vote (liar repeats again)
    assert expired(s) and s.time_up & 0b111 == 0b110
    s, _ = roll(s, 4, 6)  # seat 0: 0 -> 10, just visiting: the turn ends, so does the game
    assert E.pending(s).terminal


def test_stated_two_seats_one_seat_that_never_votes_keeps_the_time_on():
    """docs/RULES.md "Timed game": "with two players both must" — the honest seat votes, the
    other never does: the time is never up, turn after turn (a documented limit, not a break)."""
    s = scenario(2, edition="editrice-giochi", options=TIMED, pos={0: 0, 1: 0})
    s, _ = step(s, seat0=TimeUp())
    for _ in range(4):  # two whole rounds of turns, the honest seat's vote held all along
        s, _ = roll(s, 4, 6)
    assert s.time_up == 0b01 and not expired(s) and not E.pending(s).terminal


def test_stated_three_seats_one_dropped_a_present_non_voter_keeps_the_time_on():
    """The same with 3 seats once one honest seat is dropped (a crash): the dropped seat votes only
    with a strict majority of the present seats (``absent_vote``, §C8.4), the present are the
    honest voter and the non-voter: 1 of 2, so the dropped seat never votes and the time stays
    on for as long as the non-voter plays ("absent players never block the end", docs/RULES.md:
    here a present one does, as with two seats)."""
    s = scenario(3, edition="editrice-giochi", options=TIMED, pos={0: 0, 1: 0, 2: 0})
    s, _ = step(s, seat0=TimeUp())
    dropped = {2}
    for _ in range(6):
        assert not absent_vote(s, 2, dropped)
        s, _ = roll(s, 4, 6)
    assert s.time_up == 0b001 and not expired(s) and not E.pending(s).terminal


def _timed_session_with_files(tmp_path):
    """A 3-seat timed editrice-giochi game (1 minute) whose seat 1 has its node's game files
    (log, own log, ``.resume``), played in memory to step 8: (sessions, seat 1's GameFiles)."""
    lobbies = make_lobbies(3, edition="editrice-giochi", options=timed_options(1))
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    files = GameFiles.new_game(tmp_path, ordered[1].game_id, 1)
    sessions = []
    for i, lob in enumerate(ordered):
        if i == 1:
            log = files.create(lob.log_header(), lob.chain.value(0), 1, [addr(j) for j in range(3)])
            sessions.append(lob.start_session(E, log=log, own_log=files.own_log()))
        else:
            sessions.append(lob.start_session(E))

    class Upto(Net):
        def thinks(self, seat, s):
            return s.step >= 8  # everyone stops deciding at step 8: the run ends there

    net = Upto(sessions, lambda s: E.bots.choose(s.state, s.my_seat))
    net.run(max_time=1.0)
    assert all(s.step >= 6 for s in sessions), net.describe()
    return sessions, files


def _vote_due(node, loop_now):
    """What the node's seat answers now (``SeatAnswer.timed_vote``) at a step where seat 1 is no
    actor (the roll of seat 0 in a fresh timed state: the vote costs nothing there)."""
    s = scenario(3, edition="editrice-giochi", options={"timed_minutes": 1})
    assert 1 not in E.pending(s).actors
    return node.input.answer.timed_vote(E, s, 1, loop_now, False)


def test_n8_a_roll_back_forced_by_an_equivocating_seat_does_not_restart_the_victims_timed_clock(tmp_path):
    """§N8: the duration counts "from the moment its session starts (the end of the lobby)"; only
    a peer *restarted from its log* counts again. Premise 1 (the attack): a seat that signs two
    versions of one decision-step message makes an honest peer halt with ``StepOverturned`` and
    resume from its log cut at that step (test_decision_equivocation, 4 seats: the two honest peers
    once). Premise 2: seat 1's node of a 1-minute timed game, its session started 61 s ago, has
    its vote due. Then the node handles the roll back as it does in the product
    (``NodeRestart.become_spectator``; only its sockets are stubbed): the vote must stay due."""
    net, _paths, _versions, restarts = _split_game(_mkdir(tmp_path / "split"), 4, {0}, 6)
    assert [i for i, _step, chosen in restarts if chosen], restarts  # honest peers rolled back
    sessions, files = _timed_session_with_files(tmp_path / "timed")
    seen: dict = {}

    async def main() -> None:
        node = Node(PeerConfig(role="join", engine=E, identity=sessions[1].identity))
        node.route_seats = lambda extra=(): None  # no socket in this test
        node.pump = lambda: None
        node.restart.files = files
        started = node.loop.time() - 61.0  # our session started 61 s ago (agreed: 60 s)
        node._run(sessions[1], files.log_path, started)  # what Node does at the lobby's end
        seen["before"] = _vote_due(node, node.loop.time())
        node.restart.become_spectator(StepOverturned(5, 2, None, None))  # the roll back, as node_events does
        seen["resumed_at"] = node.session.step
        seen["after"] = _vote_due(node, node.loop.time() + 1.0)
        if node._ticker is not None:
            node._ticker.cancel()
        node.session.log.close()

    asyncio.run(main())
    assert seen["before"] == TimeUp()  # premise: our vote is due before the roll back
    assert seen["resumed_at"] <= 5  # the node runs the session replayed from its log cut at step 5
    assert seen["after"] == TimeUp(), "the roll back started the agreed duration again"



def _mkdir(path):
    path.mkdir()
    return path
