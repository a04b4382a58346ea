"""A seat's turn time runs across the steps of its own decision (protocol.md §C8.3 'Own decision
across steps', §C8.10 Own decisions, §C13.6; ``p2p.session_turn_clock.TurnClock``).

Live games (classico, 3 seats, turn time 40 s, drop timeout 10 s, virtual clock):

* a seat that answers nil at once at its own roll (H163 BREAK #4) is voted out by both honest
  peers at the same step, the OWN_DECISION_MAX_STEPS-th step after its roll became pending, its
  bot rolls, the game ends the same for the honest peers and their logs verify;
* a seat that answers nil at its own roll 25 s after each step began (never late at one step)
  is voted out once 40 s passed since its roll became pending (the turn time, across steps);
* a seat that thinks 39 s at its own roll and then rolls, every turn, is never voted out (a
  thinking player is treated as before), and neither is a seat whose out-of-turn actions come
  during another seat's turn;

and the clock alone (stub session, real ``Liveness``): a hypothesis property that we never vote
before the bound and never later.
"""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings, strategies as st

from p2p import const as C
from p2p.gamelog import LogWriter
from p2p.liveness import Liveness
from p2p.session_events import SeatDropped, SeatDropVoted
from p2p.session_turn_clock import OWN_DECISION_MAX_STEPS, TurnClock

from p2p_harness import Net, finish_together, make_lobbies, pump_lobbies

TURN = 40
LIAR = 1
OPTS = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 10, C.OPT_TURN_TIME: TURN}


def _classico(tmp_path):
    import engine as RE

    lobbies = make_lobbies(3, edition="classico", options=OPTS)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    paths = [tmp_path / f"{i}.log" for i in range(3)]
    sessions = [lob.start_session(RE, log=LogWriter(p, lob.log_header())) for lob, p in zip(ordered, paths)]
    return RE, sessions, paths


class OwnRollNet(Net):
    """Classico; seat ``LIAR`` at its own roll from step ``start`` on: ``delay`` s after its
    session reached the step, it sends ``answer(state)`` (None: nil) instead of its bot's
    choice; every other input is the bot's. ``honest_roll``: it rolls (RollDice) after the
    delay instead, a thinking player."""

    def __init__(self, RE, sessions, delay: float = 0.0, answer=None, start: int = 20, honest_roll=False):
        self.E = RE
        super().__init__(sessions, self._choose)
        self.delay, self.answer, self.start, self.honest_roll = delay, answer, start, honest_roll
        self.began: dict[int, float] = {}  # step -> when the liar's session reached it
        self.stalled: list[int] = []  # steps at which it sent its stalling answer

    def _own_roll(self, s) -> bool:
        p = self.E.pending(s.state)
        return s.my_seat == LIAR and s.step >= self.start and p.kind == "roll" and p.actors == (LIAR,)

    def thinks(self, seat, s):
        if not self._own_roll(s):
            return False
        return self.now < self.began.setdefault(s.step, self.now) + self.delay

    def _choose(self, s):
        if not self._own_roll(s):
            return self.E.bots.choose(s.state, s.my_seat)
        if self.honest_roll:
            return self.E.actions.RollDice()
        self.stalled.append(s.step)
        return None if self.answer is None else self.answer(s.state)

    def wake(self, net):
        s = self.s[LIAR]
        if s is None or s.phase != "running" or s.step not in self.began:
            return None
        t = self.began[s.step] + self.delay
        return t if t > self.now else None


def _of(net, seat, kind):
    return [e for e in net.events[seat] if isinstance(e, kind)]


def test_c8_3_nil_at_ones_own_roll_at_once_is_voted_out_at_the_step_bound_by_every_honest_peer(tmp_path):
    """§C8.3 'Own decision across steps' (step bound), H163 BREAK #4: seat 1 answers nil at once at
    its own roll. Both honest peers vote DROP against it at the same step, the one at which its
    roll had been left pending at OWN_DECISION_MAX_STEPS earlier steps; it is dropped there, its
    bot rolls for it (§C8.4), no clock time passed, the honest peers finish one game and their
    logs verify with no cheater."""
    RE, sessions, paths = _classico(tmp_path)
    net = OwnRollNet(RE, sessions)
    net.run(max_time=1e6, max_rounds=5_000_000)
    first = net.stalled[0]
    for i in (0, 2):
        votes = _of(net, i, SeatDropVoted)
        assert [(v.step, v.seat) for v in votes][:1] == [(first + OWN_DECISION_MAX_STEPS, LIAR)], (i, votes[:3])
        drops = _of(net, i, SeatDropped)
        assert [(d.step, d.seat) for d in drops] == [(first + OWN_DECISION_MAX_STEPS, LIAR)], i
    assert OWN_DECISION_MAX_STEPS < len(net.stalled) <= OWN_DECISION_MAX_STEPS + 3  # its peer is one step on
    finish_together(net, sessions, paths, (0, 2), cheaters=(), engine=RE)


def test_c8_3_nil_at_ones_own_roll_each_step_under_the_turn_time_is_voted_out_at_the_turn_time(tmp_path):
    """§C8.3 'Own decision across steps' (turn time): seat 1 answers nil at its own roll 25 s
    after each step began, under the 40 s turn time of one step. The turn time now runs from when
    its roll became pending: 40 s after that, 15 s into the next step, its message of that step
    still missing, the honest peers vote (before: never, each step had its own 40 s)."""
    RE, sessions, paths = _classico(tmp_path)
    net = OwnRollNet(RE, sessions, delay=25.0)
    net.run(max_time=1e6, max_rounds=5_000_000, hook=net.wake)
    first = net.stalled[0]
    for i in (0, 2):
        assert [(d.step, d.seat) for d in _of(net, i, SeatDropped)] == [(first + 1, LIAR)], i
    assert len(net.stalled) == 1
    finish_together(net, sessions, paths, (0, 2), cheaters=(), engine=RE)


def test_c8_3_a_player_thinking_just_under_the_turn_time_at_each_own_roll_is_never_voted_out(tmp_path):
    """§C8.3: a player who thinks 39 s at each of its own rolls and then rolls is treated as
    before (its roll became pending at that step: the turn time counts from the step's start);
    nobody votes, nobody is dropped, the game ends the same for all three."""
    RE, sessions, paths = _classico(tmp_path)
    net = OwnRollNet(RE, sessions, delay=TURN - 1.0, start=0, honest_roll=True)
    net.run(max_time=1e7, max_rounds=5_000_000, hook=net.wake)
    assert len(net.began) >= 5
    for i in range(3):
        assert not _of(net, i, SeatDropVoted) and not _of(net, i, SeatDropped), i
    finish_together(net, sessions, paths, (0, 1, 2), cheaters=(), engine=RE)


def test_c8_3_out_of_turn_actions_during_another_seats_turn_are_never_counted(tmp_path):
    """§C8.3 'Own decision across steps': only the actors of an own decision are timed. Seat 1
    stalls with nil at its roll; seat 2 answers a ``WithdrawTrade`` (refused, an out-of-turn action)
    at every one of those steps: seat 2 is never voted against, seat 1 is, at the step bound."""
    import engine as RE

    class Spam(OwnRollNet):
        def _choose(self, s):
            p = self.E.pending(s.state)
            if s.my_seat == 2 and p.kind == "roll" and p.actors == (LIAR,) and s.step >= self.start:
                return self.E.actions.WithdrawTrade()
            return super()._choose(s)

    _, sessions, paths = _classico(tmp_path)
    net = Spam(RE, sessions)
    net.run(max_time=1e6, max_rounds=5_000_000)
    first = net.stalled[0]
    for i in (0, 2):
        assert {v.seat for v in _of(net, i, SeatDropVoted)} == {LIAR}, i
        assert [(d.step, d.seat) for d in _of(net, i, SeatDropped)] == [(first + OWN_DECISION_MAX_STEPS, LIAR)]
    finish_together(net, sessions, paths, (0, 2), cheaters=(), engine=RE)


# -- the clock alone: a property ---------------------------------------------------------------


class _Engine:
    """A stub engine: the state is (kind, actors); seat 1's input ends the decision unless nil."""

    @staticmethod
    def pending(state):
        kind, actors = state
        return SimpleNamespace(kind=kind, actors=actors, chance=kind == "dice", terminal=False)

    @staticmethod
    def decode_action(x):
        return x

    @staticmethod
    def apply_step(state, inputs):
        return (state if inputs[1] is None else ("dice", ())), ()


def _session(now=0.0):
    live = Liveness(5.0, now)
    held: dict = {}
    s = SimpleNamespace(step=0, state=("roll", (1,)), engine=_Engine, n=3, my_seat=0, active=[True] * 3,
                        replaying=False, spectator=False, running=True, now=now, live=live,
                        seats=SimpleNamespace(turn_time=float(TURN), drop_timeout=10.0),
                        steps=SimpleNamespace(held=lambda k, d: held.get((k, d))))
    s.pending = _Engine.pending(s.state)
    return s, held


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 2.5 * TURN), st.booleans()), min_size=1, max_size=300))
def test_c8_3_property_never_before_the_bound_never_after_it(answers):
    """§C8.3 'Own decision across steps', for any sequence of seat 1's answers at its own roll
    (delay after the step began, s; nil or a decision): we vote against it exactly when its roll
    has been pending for the turn time (its vote time, message missing) or it leaves it pending
    once more after OWN_DECISION_MAX_STEPS steps or after the turn time — never before, and no
    seat keeps its own decision pending past max(turn time, that step) without our vote."""
    s, held = _session()
    clock = TurnClock(s)
    voted: list = []
    since = 0.0
    for k, (delay, decides) in enumerate(answers):
        s.step, s.live.step_started = k, s.now
        s.live.begin(s.now)
        deadline = s.live.vote_time(1, 10.0, float(TURN), clock.since(1))
        assert deadline <= since + TURN + 1e-9  # the turn time runs from the roll, not the step
        arrives = s.now + delay
        if deadline < arrives:  # silent past its vote time (its ALIVEs keep the drop timeout off)
            assert deadline >= since + TURN - 1e-9 or deadline >= s.now + 10.0 - 1e-9
            voted.append(("timer", k))
            break
        s.now = arrives
        held[(k, 1)] = SimpleNamespace(input=[1] if decides else None)
        ok = clock.gate(k, (), lambda d: voted.append(("gate", k)), lambda: True)
        late = s.now >= since + TURN or k >= OWN_DECISION_MAX_STEPS
        assert ok == (not (late and not decides)), (k, s.now, since)
        if not ok or decides:
            break
    if voted and voted[0][0] == "gate":
        k = voted[0][1]
        assert k >= OWN_DECISION_MAX_STEPS or s.now >= since + TURN  # never early


def test_c8_3_the_clock_starts_again_at_another_decision_or_another_actor():
    """§C8.3: the streak is per seat and per own decision: a chance step, another kind, or the
    seat no longer among the actors starts it again; a seat that is not an actor has none."""
    s, held = _session()
    clock = TurnClock(s)
    for k in range(3):
        s.step, s.live.step_started = k, 10.0 * k
        clock.observe(k)
    s.step = 3
    assert clock.since(1) == 0.0 and clock.since(2) is None
    s.state = ("jail", (1,))
    s.pending = _Engine.pending(s.state)
    assert clock.since(1) is None  # another kind: the step's start counts
    clock.observe(3)
    s.step, s.state = 4, ("dice", ())
    s.pending = _Engine.pending(s.state)
    clock.observe(4)
    assert clock.since(1) is None and clock.earliest() is None


class ActsThenRolls(OwnRollNet):
    """At each of its own rolls seat 1 sends ``acts`` out-of-turn actions (``WithdrawTrade``:
    refused, the roll stays pending), then rolls; each answer ``delay`` s after its step began."""

    def __init__(self, RE, sessions, delay: float, acts: int) -> None:
        super().__init__(RE, sessions, delay=delay, start=0)
        self.acts, self.done = acts, 0
        self.turns = 0

    def _choose(self, s):
        if not self._own_roll(s):
            return self.E.bots.choose(s.state, s.my_seat)
        if self.done < self.acts:
            self.done += 1
            return self.E.actions.WithdrawTrade()
        self.done = 0
        self.turns += 1
        return self.E.actions.RollDice()


def test_c8_3_own_non_ending_actions_get_the_whole_turn_time_across_steps(tmp_path):
    """§C8.3 'Own decision across steps': a player's own actions that leave its roll pending
    (here two refused ``WithdrawTrade``, then ``RollDice``, 12 s apart: 36 s in all, under the
    40 s turn time) are never voted against, at any of its turns; nobody is dropped."""
    RE, sessions, paths = _classico(tmp_path)
    net = ActsThenRolls(RE, sessions, delay=12.0, acts=2)
    net.run(max_time=1e7, max_rounds=5_000_000, hook=net.wake)
    assert net.turns >= 5
    for i in range(3):
        assert not _of(net, i, SeatDropVoted) and not _of(net, i, SeatDropped), i
    finish_together(net, sessions, paths, (0, 1, 2), cheaters=(), engine=RE)


def test_c8_3_own_non_ending_actions_past_the_turn_time_are_voted_out(tmp_path):
    """§C8.3 'Own decision across steps' (the change for an honest player: the turn time is per
    decision, no longer per step): four such actions 12 s apart would end at 48 s, past the 40 s
    turn time of its first roll: 40 s after that roll became pending, its fourth message still
    missing, both honest peers vote; seat 1 is dropped at that step of its first roll, the game
    goes on with its bot."""
    RE, sessions, paths = _classico(tmp_path)
    net = ActsThenRolls(RE, sessions, delay=12.0, acts=4)
    net.run(max_time=1e7, max_rounds=5_000_000, hook=net.wake)
    own = sorted(net.began)
    assert net.turns == 0
    for i in (0, 2):
        assert [(d.step, d.seat) for d in _of(net, i, SeatDropped)] == [(own[3], LIAR)], (i, own[:5])
    finish_together(net, sessions, paths, (0, 2), cheaters=(), engine=RE)
