"""Red team session 15 on main (H163): a seat slow on purpose (protocol.md §C8.3 drop timeout and
turn time, §C8.10 turn skip, §C13.6 a player's vote).

The attacker keeps its peer alive (ALIVE, its re-sends) and answers every decision step just
under the turn time (``p2p.turn_time`` − 1 s), never over it. What protocol.md says the bound
is: such a seat "holds every step until the turn time (300 s by default)" (§C8.10, §C13.6); the
remedies are the players' (key ``j``: drop, key ``J``: skip), a headless peer votes only if its
operator asked (``--skip-idle-after``); the bots never vote early. So the bound is one turn time
per step the seat is asked for, and nothing else bounds a game's length. Checked here (fake
engine, virtual clock, turn time 40 s, drop timeout 10 s):

* Hold (the bound as written): the slow seat is never dropped, no honest seat is dropped or
  skipped, every peer ends the same game; each of the slow seat's decision steps costs ~39 s, so
  the game takes ~39 s × its decision steps (×7.5 at the default 300 s turn time: the table's
  evening, by rule).
* Hold: it also delivers each late decision to ONE honest peer only (the others reach their
  turn time without it and vote DROP): the holder forwards it on the vote, nobody is dropped, the
  game ends the same everywhere (4 seats: 2 voters of Q = 3).

Not tried: the slow seat at chance steps (it would have to hold its reveal: the drop timeout and
turn time apply the same), nor with a quorum of players voting ``j``/``J`` (tests/p2p/
test_sealed_session.py, test_turn_skip*.py cover the remedy itself).
"""

from __future__ import annotations

import pytest

from p2p import const as C
from p2p.session_events import GameOver, SeatDropped, SeatDropVoted, StepApplied, TurnSkipped
from p2p.wire import MSG_STEP

from p2p_harness import Net, finish_together, first_legal
from redteam_auth_kit import step_of
from test_resilience import logged_game

import fake_engine as E

TURN = 40
OPTS = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 10, C.OPT_TURN_TIME: TURN, "target": 20}
STEP_TAG = bytes([0x93, MSG_STEP])


class SlowNet(Net):
    """Seat ``slow`` decides each decision step it is asked for ``TURN - 1`` s after its session
    reached that step (its peer keeps sending ALIVE meanwhile); ``hook`` wakes the clock then."""

    def __init__(self, sessions, slow: int, margin: float = 1.0, **kw) -> None:
        super().__init__(sessions, first_legal(E), **kw)
        self.slow, self.margin = slow, margin
        self.began: dict[int, float] = {}  # step -> when the slow seat was first asked
        self.answered: list[tuple[int, float]] = []  # (step, delay) of each slow decision

    def thinks(self, seat, s):
        if seat != self.slow:
            return False
        t0 = self.began.setdefault(s.step, self.now)
        if self.now < t0 + TURN - self.margin:
            return True
        self.answered.append((s.step, self.now - t0))
        return False

    def wake(self, net) -> float | None:
        s = self.s[self.slow]
        if s is None or s.phase != "running" or s.step not in self.began:
            return None
        t = self.began[s.step] + TURN - self.margin
        return t if t > self.now else None


def _events(net, seat, kind):
    return [e for e in net.events[seat] if isinstance(e, kind)]


def test_a_seat_answering_just_under_the_turn_time_holds_each_of_its_steps_that_long_and_nobody_is_dropped(tmp_path):
    """§C8.10/§C13.6 "holds every step until the turn time": the slow seat (3 seats, seat 2) is
    asked at every decision step (fake engine: every seat sends each step) and answers 39 s
    later, each time. Nobody is dropped or skipped, the honest peers finish the same game, their
    logs verify; the game's length is ~39 s per decision step."""
    sessions, paths, _secrets, _ = logged_game(tmp_path, 3, OPTS)
    net = SlowNet(list(sessions), slow=2)
    net.run(max_time=1e6, hook=net.wake)
    assert len(net.answered) >= 5 and all(TURN - 1 <= d < TURN for _, d in net.answered)  # the attack
    for i in range(3):
        assert not _events(net, i, SeatDropped) and not _events(net, i, TurnSkipped), i
    finish_together(net, sessions, paths, (0, 1, 2), cheaters=())
    decisions = len([e for e in net.events[0] if isinstance(e, StepApplied) and e.kind == "decision"])
    assert decisions == len(net.answered)  # asked at every decision step, slow at each
    assert net.now >= (TURN - 1) * decisions  # the game lasted that long: the bound is per step
    assert net.now < TURN * decisions + 60


@pytest.mark.parametrize("margin", [1.0, 0.01])
def test_a_late_decision_given_to_one_honest_peer_only_drops_nobody(tmp_path, margin):
    """4 seats, Q = 3: the slow seat 3 hands each decision, ``margin`` s before the turn time, to
    seat 1 only (its copies to seats 0 and 2 are lost, re-sends too). Seats 0 and 2 get it from
    seat 1 at once (nobody votes, even 10 ms before the turn time): nobody is dropped, the game
    ends the same for all, and it lasts no longer than the slow seat's own delays."""
    sessions, paths, _secrets, _ = logged_game(tmp_path, 4, OPTS)
    withheld = []

    def drop(src, dst, raw):
        if src != 3 or dst == 1 or raw[:2] != STEP_TAG:
            return False
        k = step_of(raw).step
        if k in net.began:  # a decision step the slow seat was asked at
            withheld.append((dst, k))
            return True
        return False

    net = SlowNet(list(sessions), slow=3, margin=margin, drop=drop)
    net.run(max_time=1e6, hook=net.wake)
    assert withheld and len(net.answered) >= 5  # the attack happened
    assert not [e for i in range(4) for e in _events(net, i, SeatDropVoted)]
    assert net.now <= sum(d for _, d in net.answered) + 1.0  # the withholding cost no time more
    for i in range(4):
        assert not _events(net, i, SeatDropped), (i, _events(net, i, SeatDropped))
    finish_together(net, sessions, paths, (0, 1, 2, 3), cheaters=())
    assert len({e.final_hash for i in range(4) for e in _events(net, i, GameOver)}) == 1
