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
  the game takes ~39 s × its decision steps; at the default 300 s turn time a 3-seat classico
  game of the bots (333-382 decision steps, make_lobbies seeds demo/d2/d3) lasts 28-32 hours, by
  rule (every seat sends every step, so the slow seat is asked at every decision step).
* Hold: it also delivers each late decision to ONE honest peer only (10 ms before the turn
  time): the others get it from that peer at once (nobody votes), nobody is dropped, the
  game ends the same everywhere and lasts no longer than the slow seat's own delays (4 seats).
* BREAK: slow at its own decisions without being slow at all: a seat that answers at once, nil
  at its own roll (the engine waits for the same roll next step), holds its turn for ever: it
  is neither silent nor idle by the rules' measure (its message is held), and j / J need a
  seat whose message is not held. Nothing bounds it (classico, 200 steps, 0 s of clock).

Not tried: the slow seat at chance steps (it would have to hold its reveal: the drop timeout and
turn time apply the same), nor with a quorum of players voting ``j``/``J`` (tests/p2p/
test_sealed_session.py, test_turn_skip*.py cover the remedy itself).
"""

from __future__ import annotations

from p2p import const as C
from p2p.session_events import GameOver, SeatDropped, SeatDropVoted, StepApplied, TurnSkipped
from p2p.wire import MSG_STEP

from p2p_harness import Net, finish_together, first_legal, make_lobbies, pump_lobbies
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


def test_a_late_decision_given_to_one_honest_peer_only_drops_nobody(tmp_path):
    """4 seats, Q = 3: the slow seat 3 hands each decision, 10 ms before the turn time, to seat 1
    only (its copies to seats 0 and 2 are lost, re-sends too). Seats 0 and 2 get it from seat 1
    at once (nobody votes): nobody is dropped, the game ends the same for all, and it lasts no
    longer than the slow seat's own delays."""
    margin = 0.01
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


class NilNet(Net):
    """Classico, seat ``LIAR`` answers at once every step, but at its own roll from step 20 on
    its answer is nil (a "no"): the engine waits for the same roll at the next step (§C8.10 Own
    decisions: nil changes nothing there). Stops ``STALL_STEPS`` steps into the stall."""

    LIAR, STALL_STEPS = 1, 200

    def __init__(self, sessions) -> None:
        import engine as RE

        self.E = RE
        super().__init__(sessions, self._choose)
        self.nils = 0
        self.began: int | None = None
        self.remedies: tuple | None = None  # (vote_out, skip_turn) of seat 0 during the stall
        self.moved_on = False  # the turn left the liar (or it was dropped / skipped)

    def _choose(self, s):
        p = self.E.pending(s.state)
        if s.my_seat == self.LIAR and s.step >= 20 and p.kind == "roll" and p.actors == (self.LIAR,):
            if self.began is None:
                self.began = s.step
            self.nils += 1
            return None
        return self.E.bots.choose(s.state, s.my_seat)

    def send_to(self, src, dst, raw):
        """Seat 0's player presses j and J once the liar's nil of a stalled step is in (the
        honest seat 2's message still on its way)."""
        super().send_to(src, dst, raw)
        s0 = self.s[0]
        if src == self.LIAR and dst is s0 and self.began is not None and self.remedies is None \
                and s0.steps.held(s0.step, self.LIAR) is not None:
            self.remedies = (s0.vote_out(self.LIAR, self.now), s0.skip_turn(self.LIAR, self.now))

    def hook(self, net):
        s0 = self.s[0]
        if self.began is None or s0 is None:
            return None
        if self.E.pending(s0.state).actors != (self.LIAR,) or self.LIAR in s0.dropped:
            self.moved_on = True
        if s0.step >= self.began + self.STALL_STEPS or self.moved_on:
            self.s = [None] * len(self.s)  # stop here: enough to see whether anything moves it on
        return None


def test_c13_6_a_seat_that_answers_nil_at_its_own_roll_does_not_hold_the_game_for_ever(tmp_path):
    """Slow on purpose at its own decisions only, without being slow: classico, 3 seats, seat 1
    sends its step message at once every step, nil at its own roll from step 20 on. Its peer is
    neither silent (drop timeout) nor idle (turn time: "not sent its message"), the players'
    ``vote_out`` (key j) and ``skip_turn`` (key J) need a seat whose step message is not held,
    so nothing moves the game past its turn. The rule (§C13.6, §C8.10: a stalling seat holds a
    step at most until the turn time, then the drop; or the players' skip moves its turn on):
    within 200 steps (turn time 40 s each) the turn leaves it or it is dropped or skipped."""
    import engine as RE
    from p2p.gamelog import LogWriter

    lobbies = make_lobbies(3, edition="classico", options={C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 10,
                                                            C.OPT_TURN_TIME: TURN})
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    sessions = [lob.start_session(RE, log=LogWriter(tmp_path / f"{i}.log", lob.log_header()))
                for i, lob in enumerate(ordered)]
    net = NilNet(sessions)
    net.run(max_time=1e6, max_rounds=5_000_000, hook=net.hook)
    assert net.began is not None and net.nils >= 100  # the attack: nil at its roll, step after step
    assert net.remedies == (False, False)  # no drop vote, no skip vote can be cast against it
    assert sessions[0].step >= net.began + 100 and net.now < TURN  # 100s of steps, no clock time
    assert net.moved_on, f"seat 1 still holds its roll after {sessions[0].step - net.began} steps"
