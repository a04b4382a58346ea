"""Where no drop is possible, a turn held past ABANDON_STEPS_PER_TURN ends the game as abandoned
(protocol.md §C8.3 'Own decision across steps', §C8.7; H177, red team s16 H174-2's stated limit).

* live, classico, 2 seats (no drop is ever possible: §C8.5): seat 1 answers nil at once at its own
  roll; both peers end the game at the same step, the gate of its ABANDON_STEPS_PER_TURN + 1-th
  held step, each with its own signed ABANDON naming the seat and the bound; nobody votes; no wall
  time passes; both logs verify, abandoned there (before: held for ever at LAN speed);
* the gate alone (stub session): ``end`` exactly at the step that would make the count exceed the
  bound, never earlier; our own seat too; never for an inactive seat, a spectator, a replay; where a
  drop is possible the vote bound applies and ``end`` is never called; a hypothesis property;
* the node: ``GameAbandoned.reason`` reaches ``PeerResult.abandoned["reason"]``; the stall-limit
  abandon (§N5) gives its reason too.

The other live case (4 seats, one dropped, a liar holding the dropped seat's bot with same-step
rejects): ``tests/p2p/test_redteam_s16_turnclock.py``.
"""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings, strategies as st

from p2p import const as C
from p2p import session_turn_clock as TC
from p2p.gamelog import LogWriter
from p2p.lockstep import GameOver, PeerStalled
from p2p.node_events import NodeEvents
from p2p.node_watchdog import STALL_LIMIT, NodeWatchdog
from p2p.sealed import PLAIN
from p2p.session_events import GameAbandoned, SeatDropVoted
from p2p.session_turn_clock import ABANDON_STEPS_PER_TURN, OWN_STEPS_PER_TURN, TurnClock
from p2p.verify import verify_log

from p2p_harness import Net, make_lobbies, pump_lobbies
from test_turn_clock import _Engine, _msg  # the stub engine: seat 1's [1] rolls, any other input holds

LIAR = 1
OPTS = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 10, C.OPT_TURN_TIME: 40}


class NilRollNet(Net):
    """Classico; seat ``LIAR`` answers nil at once at its own roll from step ``start`` on; every
    other input is the default bot's. ``stalled``: the steps of its nil answers."""

    def __init__(self, RE, sessions, start: int = 20):
        self.E = RE
        super().__init__(sessions, self._choose)
        self.start = start
        self.stalled: list[int] = []

    def _choose(self, s):
        p = self.E.pending(s.state)
        if s.my_seat == LIAR and s.step >= self.start and p.kind == "roll" and p.actors == (LIAR,):
            self.stalled.append(s.step)
            return None
        return self.E.bots.choose(s.state, s.my_seat)


def test_c8_3_c8_7_nil_at_ones_own_roll_with_no_drop_possible_ends_the_game_at_the_abandon_bound(tmp_path):
    """§C8.3 'Own decision across steps' (where no drop is possible) and §C8.7: 2 seats, seat 1
    answers nil at once at its own roll. Both peers sign ABANDON at the same step, first + 320
    (its held step 321 would be next), with a reason naming seat 1 and the bound; nobody votes;
    the virtual clock never moves; both logs verify as abandoned at that step (no winner)."""
    import engine as RE

    lobbies = make_lobbies(2, edition="classico", options=OPTS)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    paths = [tmp_path / f"{i}.log" for i in range(2)]
    sessions = [lob.start_session(RE, log=LogWriter(p, lob.log_header())) for lob, p in zip(ordered, paths)]
    assert not sessions[0].seats.drop_possible()  # premise: two seats, no drop ever (§C8.5)
    net = NilRollNet(RE, sessions)
    net.run(max_time=1e6, max_rounds=3_000_000)
    first = net.stalled[0]
    k = first + ABANDON_STEPS_PER_TURN
    assert net.now == 0.0 and ABANDON_STEPS_PER_TURN <= len(net.stalled) <= ABANDON_STEPS_PER_TURN + 2
    for i in (0, 1):
        ends = [e for e in net.events[i] if isinstance(e, GameAbandoned)]
        assert [(e.step, e.seat) for e in ends] == [(k, i)], (i, ends)
        assert ends[0].reason.startswith(f"seat {LIAR} held its turn {ABANDON_STEPS_PER_TURN + 1} steps"), ends
        assert f"bound of {ABANDON_STEPS_PER_TURN} where no drop is possible" in ends[0].reason
        assert not [e for e in net.events[i] if isinstance(e, (SeatDropVoted, GameOver))], i
        assert sessions[i].phase == "abandoned" and sessions[i].step == k
        sessions[i].log.close()
        rep = verify_log(paths[i], engine=RE)
        assert rep.ok and not rep.complete and rep.abandoned == {"seat": i, "step": k} and rep.winner is None


def _session(n: int = 3, drop_possible: bool = False, my_seat: int = 0):
    held: dict = {}
    s = SimpleNamespace(step=0, state=None, pending=None, engine=_Engine, n=n, my_seat=my_seat,
                        active=[True] * n, replaying=False, spectator=False, running=True,
                        sealed=SimpleNamespace(phase=PLAIN), steps=SimpleNamespace(held=lambda k, d: held.get((k, d))),
                        seats=SimpleNamespace(drop_possible=lambda: drop_possible))
    return s, held


def _run(s, held, seat: int, steps: int, **gate):
    """Seat ``seat``'s own roll answered nil for ``steps`` steps (every other seat nil too) through
    ``TurnClock.gate``; returns (steps gated, ends, votes) up to the first False."""
    clock = TurnClock(s)
    ends: list = []
    votes: list = []
    s.state = SimpleNamespace(turn=0, kind="roll", actors=(seat,))
    s.pending = _Engine.pending(s.state)
    for k in range(steps):
        s.step = k
        for d in range(s.n):
            held[(k, d)] = _msg(None)
        if not clock.gate(k, (), votes.append, lambda: True, gate.get("end", lambda d, c: ends.append((k, d, c)))):
            return k, ends, votes
    return steps, ends, votes


def test_c8_3_the_gate_ends_the_game_exactly_at_the_step_that_would_exceed_the_abandon_bound():
    """§C8.3 (where no drop is possible): ``end(seat, count)`` at the step whose held message would
    make the count ABANDON_STEPS_PER_TURN + 1, never before, and no vote (nobody may vote); the
    same for our own seat (every honest peer ends at the same step, ours included)."""
    assert ABANDON_STEPS_PER_TURN == 2 * OWN_STEPS_PER_TURN
    for seat, me in ((1, 0), (0, 0)):
        s, held = _session(my_seat=me)
        k, ends, votes = _run(s, held, seat, ABANDON_STEPS_PER_TURN + 5)
        assert (k, ends, votes) == (ABANDON_STEPS_PER_TURN, [(k, seat, ABANDON_STEPS_PER_TURN + 1)], []), seat


def test_c8_3_the_gate_never_ends_the_game_for_an_inactive_seat_a_spectator_a_replay_or_where_a_drop_is_possible():
    """§C8.3: no end for a dropped seat (its bot's steps are no message of it), on a spectator or
    during a log replay (the log ends with the ABANDON record anyway); where a drop is possible
    the vote bound applies (a vote at OWN_STEPS_PER_TURN, never an end); ``end`` None: never."""
    steps = ABANDON_STEPS_PER_TURN + 5
    s, held = _session()
    s.active[1] = False
    assert _run(s, held, 1, steps) == (steps, [], [])
    for attr in ("spectator", "replaying"):
        s, held = _session()
        setattr(s, attr, True)
        assert _run(s, held, 1, steps) == (steps, [], []), attr
    s, held = _session(drop_possible=True)
    k, ends, votes = _run(s, held, 1, steps)
    assert (k, ends, votes) == (OWN_STEPS_PER_TURN, [], [1])
    s, held = _session()
    # end None: the vote rule alone (the stub's may_vote says yes; a real session's says no here)
    assert _run(s, held, 1, steps, end=None) == (OWN_STEPS_PER_TURN, [], [1])


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=12), st.lists(st.sampled_from(["nil", "roll", "turn"]), max_size=80))
def test_c8_3_property_ended_exactly_when_the_count_of_this_turn_would_exceed_the_abandon_bound(bound, events):
    """§C8.3, any sequence of seat 1's own-roll steps answered nil, rolls and turns passing, with
    the abandon bound patched to ``bound``: ``end`` is called exactly at the step at which seat
    1's held steps of this turn would exceed it (rolls pause, a new turn resets), never before."""
    s, held = _session()
    clock = TurnClock(s)
    ends: list = []
    turn = count = 0
    saved, TC.ABANDON_STEPS_PER_TURN = TC.ABANDON_STEPS_PER_TURN, bound
    try:
        for k, ev in enumerate(events):
            s.step = k
            if ev == "turn":
                turn, count = turn + 1, 0
            s.state = SimpleNamespace(turn=turn, kind="dice" if ev == "turn" else "roll",
                                      actors=() if ev == "turn" else (1,))
            s.pending = _Engine.pending(s.state)
            held[(k, 0)], held[(k, 1)], held[(k, 2)] = _msg(None), _msg([1] if ev == "roll" else None), _msg(None)
            ok = clock.gate(k, (), lambda d: None, lambda: False, lambda d, c: ends.append((d, c)))
            if ev == "nil" and count >= bound:
                assert not ok and ends == [(1, bound + 1)], (k, count)
                return
            assert ok and not ends, (k, count)
            count += ev == "nil"
    finally:
        TC.ABANDON_STEPS_PER_TURN = saved


def test_c8_7_the_node_passes_the_reason_of_an_abandon_to_its_result():
    """§C8.7: ``GameAbandoned.reason`` reaches ``PeerResult.abandoned`` (via ``NodeEvents``), ""
    when another seat's ABANDON ended the game."""
    got: list = []
    node = SimpleNamespace(finish=lambda ev, abandoned=None: got.append((ev, abandoned)))
    events = NodeEvents(node)
    events.on(GameAbandoned(7, 1, b"h" * 32, "seat 2 held its turn 321 steps"))
    events.on(GameAbandoned(9, 2, b"h" * 32))
    assert [a for _, a in got] == [{"seat": 1, "step": 7, "reason": "seat 2 held its turn 321 steps"},
                                   {"seat": 2, "step": 9, "reason": ""}]
    assert got[0][0] == GameOver(None, b"h" * 32, 7)


def test_c8_7_the_stall_limit_abandon_names_the_silent_seats():
    """§C8.7, §N5: past the stall limit while paused, the node's watchdog abandons with a reason
    naming the silent seats and how long they were silent."""
    calls: list = []
    session = SimpleNamespace(seat_loss=False, paused=lambda: (2,), waiting_for=lambda: (),
                              abandon=lambda now, reason="": calls.append((now, reason)))
    node = SimpleNamespace(session=session, seat=0, names=("a", "b", "c"), loop=SimpleNamespace(time=lambda: 5.0),
                           restart=SimpleNamespace(want_rendezvous=lambda: None), report=lambda r: None,
                           fail=lambda e: calls.append(e))
    NodeWatchdog(node).on_trouble(PeerStalled(40, (2,), STALL_LIMIT + 1))
    assert calls == [(5.0, f"no message from seats [2] for {STALL_LIMIT + 1:.0f} s where no drop is possible")]
