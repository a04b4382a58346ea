"""The turn clock across a roll back (protocol.md §C8.3 'Own decision across steps': "a roll back to
step c keeps the counts of the steps before c and forgets those from c on"; H171, RV15-T2 #4).

A peer rolls back to step c when the table keeps another history from c on (§C8.3 'Our own seat',
§C3.4 'Two versions applied'): the node cuts its log at c, replays it into a new session and
catches the rest up. The new session's ``TurnClock`` counts the replayed steps like live ones, so
its counts at c are those of a peer that never rolled back (measured below on a live game). The
clock itself keeps the same contract when one session judges a lower step: the held steps before
c stay counted, those from c on are forgotten and counted again as they are applied again --
exactly what a clock that replayed the kept history holds (property test). Before H171 the clock
cleared every count there: a later vote than the other honest peers' (up to one more bound).
"""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings, strategies as st

from p2p.resume import resume_session
from p2p.session_turn_clock import TurnClock

from test_turn_clock import LIAR, _msg, _stub_session

SEAT = 1  # the stub engine's deciding seat (``test_turn_clock._Engine``: its input [1] rolls)


def _at(s, held, k: int, turn: int, nil: bool = True) -> None:
    """The stub session at step ``k``: seat 1's own roll in ``turn``; its held message nil (holds)
    or [1] (rolls: not a held step)."""
    s.step = k
    s.state = SimpleNamespace(turn=turn, kind="roll", actors=(SEAT,))
    s.pending = SimpleNamespace(kind="roll", actors=(SEAT,), chance=False, terminal=False)
    held[(k, SEAT)] = _msg(None if nil else [1])


def test_c8_3_a_roll_back_inside_the_turn_keeps_the_counts_before_the_cut():
    """§C8.3: seat 1 held its roll at steps 0-5 of turn 0 (count 6 at step 6). A roll back to step 3
    keeps the 3 held steps before it (0, 1, 2; before H171: 0), and steps 3 on count again once
    applied again (a roll at 3 this time: not counted)."""
    s, held = _stub_session()
    clock = TurnClock(s)
    for k in range(7):
        _at(s, held, k, 0)
        clock.observe(k)
    assert clock.count(SEAT) == 6
    _at(s, held, 3, 0)
    clock.observe(3)  # the roll back: step 3 judged again
    assert clock.count(SEAT) == 3
    _at(s, held, 3, 0, nil=False)
    clock.observe(3)  # the version the table keeps: a roll
    _at(s, held, 4, 0)
    clock.observe(4)
    assert clock.count(SEAT) == 3  # the roll at 3 is not a held step


def test_c8_3_a_roll_back_into_the_turn_before_keeps_that_turns_counts():
    """§C8.3: held steps 0-2 in turn 0, then steps 3-4 in turn 1 (count 2 at step 5). A roll back
    to step 2 (the state before it in turn 0) gives seat 1 its count of turn 0 before the cut, 2
    (steps 0, 1; before H171: 0); going on from there counts on in turn 0."""
    s, held = _stub_session()
    clock = TurnClock(s)
    for k in range(6):
        _at(s, held, k, 0 if k < 3 else 1)
        clock.observe(k)
    assert clock.count(SEAT) == 2
    _at(s, held, 2, 0)
    clock.observe(2)
    assert clock.count(SEAT) == 2
    _at(s, held, 3, 0)
    clock.observe(3)
    assert clock.count(SEAT) == 3


OPS = st.lists(st.one_of(st.tuples(st.just("step"), st.booleans(), st.booleans()),
                         st.tuples(st.just("back"), st.floats(0.0, 1.0))), max_size=60)


@settings(max_examples=200, deadline=None)
@given(OPS)
def test_c8_3_property_after_any_roll_backs_the_counts_are_those_of_a_replay(ops):
    """§C8.3 ("a replay counts exactly as a live peer"): for any sequence of steps (seat 1's roll
    held or rolled, the turn passing or not) and roll backs to any step judged so far, seat 1's
    count after each step is the count of a fresh clock that replays the kept history (the steps
    judged since, from 0) -- what a peer that never rolled back, or that restarted from its log,
    holds."""
    s, held = _stub_session()
    clock = TurnClock(s)
    hist: list = []  # per kept step: (turn, nil)
    for op in ops:
        if op[0] == "back":
            if not hist:
                continue
            c = min(int(op[1] * len(hist)), len(hist) - 1)
            turn, nil = hist[c]
            del hist[c:]
        else:
            turn = (hist[-1][0] if hist else 0) + op[1]
            nil = op[2]
        k = len(hist)
        _at(s, held, k, turn, nil)
        clock.observe(k)
        hist.append((turn, nil))
        s2, held2 = _stub_session()
        replay = TurnClock(s2)
        for j, (t, x) in enumerate(hist):
            _at(s2, held2, j, t, x)
            replay.observe(j)
        assert clock.count(SEAT) == replay.count(SEAT), (hist, op)


def test_c8_3_the_nodes_roll_back_replays_the_counts_up_to_the_cut(tmp_path, monkeypatch):
    """§C8.3 on a live game (classico, 3 seats; ``test_redteam_s15b_turnclock``'s run): the liar
    holds its roll with nil from step ``first``; seat 2's log is cut 40 steps into that turn when
    it is 120 steps in (the node's roll back: ``resume_session(..., truncate_at)``). Its new
    session's count of the liar, right after the replay, is that of every step the liar held
    before the cut: 39 (``first`` .. cut - 2; the step before the current one is counted once the
    current one is judged). The steps after the cut are forgotten, those before kept."""
    import test_redteam_s15b_turnclock as S15B
    after: list = []

    def resume(*args, **kw):
        sess, report = resume_session(*args, **kw)
        after.append((kw["truncate_at"], sess.step, sess.votes.clock.count(LIAR)))
        return sess, report

    monkeypatch.setattr(S15B, "resume_session", resume)
    _, net, _, st = S15B._run_with_restart(tmp_path, 120, 40)
    first = net.stalled[0]
    assert st["at"] >= first + 120  # premise: 120 steps into the held turn
    assert after == [(first + 40, first + 40, 39)]
