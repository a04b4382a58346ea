"""A step bound per turn on a seat's own decisions, no wall time across steps (protocol.md §C8.3
'Own decision across steps', §C8.10 Own decisions, §C13.6; ``p2p.session_turn_clock.TurnClock``).

Live games (classico, 3 seats, turn time 40 s, drop timeout 10 s, virtual clock):

* a seat that answers nil at once at its own roll (H163 BREAK #4) is voted out by both honest
  peers at the same step, the one that would make its held steps in this turn exceed
  OWN_STEPS_PER_TURN; its bot rolls, the game ends the same for the honest peers, logs verify;
* a seat that answers nil 25 s into each step (under the turn time) is voted out at the same
  step bound, not earlier: the turn time is per step (the stated limit: ~OWN_STEPS_PER_TURN x
  the turn time of wall time);
* never voted out: a player thinking 39 s at each roll; own actions that leave the roll pending,
  12 s apart, 2 or 4 of them then a roll (36 s, 48 s); a seat acting in another seat's turn; a
  fast honest actor while a non-actor takes 30-35 s at each of its steps (RV15-T #1); a sealed
  roll committed and opened at once while a non-actor is slow (RV15-T #2);

and the clock alone: sealed COMMIT never counted, OPEN judged on its opened input (RV15-T #2);
H167's niente gift cycle voted at the bound (its pay_bills/inspect_window steps pause the count);
a hypothesis property over the per-turn count (vote exactly when the count would exceed the
bound, never otherwise; interleaved steps pause, the turn passing resets).
"""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

from hypothesis import example, given, settings, strategies as st

from p2p import const as C
from p2p import session_turn_clock as TC
from p2p.gamelog import LogWriter
from p2p.sealed import COMMIT, OPEN, PLAIN
from p2p.session_events import SeatDropped, SeatDropVoted
from p2p.session_turn_clock import OWN_STEPS_PER_TURN, TurnClock, holds

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


def _nobody_voted_out(net, RE, sessions, paths):
    """Run ``net`` (its ``wake`` as the clock's hook): no peer votes, nobody is dropped, all three
    seats finish the same game and their logs verify."""
    net.run(max_time=1e7, max_rounds=5_000_000, hook=net.wake)
    for i in range(3):
        assert not _of(net, i, SeatDropVoted) and not _of(net, i, SeatDropped), i
    finish_together(net, sessions, paths, (0, 1, 2), cheaters=(), engine=RE)


def test_c8_3_nil_at_ones_own_roll_at_once_is_voted_out_at_the_step_bound_by_every_honest_peer(tmp_path):
    """§C8.3 'Own decision across steps' (step bound per turn), H163 BREAK #4: seat 1 answers nil
    at once at its own roll. Both honest peers vote DROP against it at the same step, the one at
    which its roll had been left pending OWN_STEPS_PER_TURN times in this turn; it is dropped
    there, its bot rolls for it (§C8.4), the honest peers finish one game and their logs verify
    with no cheater."""
    RE, sessions, paths = _classico(tmp_path)
    net = OwnRollNet(RE, sessions)
    net.run(max_time=1e6, max_rounds=5_000_000)
    first = net.stalled[0]
    for i in (0, 2):
        votes = _of(net, i, SeatDropVoted)
        assert [(v.step, v.seat) for v in votes][:1] == [(first + OWN_STEPS_PER_TURN, LIAR)], (i, votes[:3])
        drops = _of(net, i, SeatDropped)
        assert [(d.step, d.seat) for d in drops] == [(first + OWN_STEPS_PER_TURN, LIAR)], i
    assert OWN_STEPS_PER_TURN < len(net.stalled) <= OWN_STEPS_PER_TURN + 3  # its peer is one step on
    finish_together(net, sessions, paths, (0, 2), cheaters=(), engine=RE)


def test_c8_3_nil_each_step_under_the_turn_time_is_voted_out_at_the_step_bound_not_earlier(tmp_path):
    """§C8.3 'Own decision across steps': no wall time across steps. Seat 1 answers nil at its own
    roll 25 s after each step began (under the 40 s turn time of one step): nobody votes at the
    turn time; both honest peers vote at the step bound (the stated limit: such a liar holds
    ~OWN_STEPS_PER_TURN x 25 s of clock)."""
    RE, sessions, paths = _classico(tmp_path)
    net = OwnRollNet(RE, sessions, delay=25.0)
    net.run(max_time=1e7, max_rounds=5_000_000, hook=net.wake)
    first = net.stalled[0]
    for i in (0, 2):
        assert [(d.step, d.seat) for d in _of(net, i, SeatDropped)] == [(first + OWN_STEPS_PER_TURN, LIAR)], i
    held = net.began[first + OWN_STEPS_PER_TURN] - net.began[first]
    assert OWN_STEPS_PER_TURN * 25.0 <= held < OWN_STEPS_PER_TURN * TURN
    finish_together(net, sessions, paths, (0, 2), cheaters=(), engine=RE)


def test_c8_3_a_player_thinking_just_under_the_turn_time_at_each_own_roll_is_never_voted_out(tmp_path):
    """§C8.3: a player who thinks 39 s at each of its own rolls and then rolls is treated as
    before (the turn time is per step); nobody votes, nobody is dropped, the game ends the same
    for all three."""
    RE, sessions, paths = _classico(tmp_path)
    net = OwnRollNet(RE, sessions, delay=TURN - 1.0, start=0, honest_roll=True)
    _nobody_voted_out(net, RE, sessions, paths)
    assert len(net.began) >= 5


def test_c8_3_out_of_turn_actions_during_another_seats_turn_are_never_counted(tmp_path):
    """§C8.3 'Own decision across steps': only the actors of an own decision are counted. Seat 1
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
        assert [(d.step, d.seat) for d in _of(net, i, SeatDropped)] == [(first + OWN_STEPS_PER_TURN, LIAR)]
    finish_together(net, sessions, paths, (0, 2), cheaters=(), engine=RE)


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



def test_c8_3_own_actions_before_a_roll_are_timed_per_step(tmp_path):
    """§C8.3 'Own decision across steps': a player's own actions that leave its roll pending
    (refused ``WithdrawTrade``), then ``RollDice``, each 12 s after its step began: 2 actions
    (36 s in all) or 4 (48 s, past one turn time) are never voted against, at any of its turns;
    nobody is dropped (the turn time is per step; the count stays far under the bound)."""
    for acts in (2, 4):
        (tmp_path / str(acts)).mkdir()
        RE, sessions, paths = _classico(tmp_path / str(acts))
        net = ActsThenRolls(RE, sessions, delay=12.0, acts=acts)
        _nobody_voted_out(net, RE, sessions, paths)
        assert net.turns >= 5


# -- RV15-T #1: a slow non-actor never gets a fast honest actor voted out ----------------------

SLOW = 2


class SlowOther(Net):
    """RV15-T's repro: seat 1 (honest, fast) at its own roll from step ``start`` sends at once one
    or two actions that leave its roll pending (``Mortgage`` of a lot, else a refused
    ``WithdrawTrade``), then rolls (after ``think`` s, ``OneThenThink``); seat 2 (a non-actor,
    never late itself) takes ``delay`` s at each step of seat 1's roll (``slow_once``: its first)."""

    def __init__(self, RE, sessions, acts=2, delay=30.0, think=0.0, slow_once=False, start=20):
        self.E = RE
        super().__init__(sessions, self._choose)
        self.acts, self.delay, self.think, self.slow_once, self.start = acts, delay, think, slow_once, start
        self.began: dict[int, float] = {}
        self.mine: list[int] = []  # seat 1's own-roll steps
        self.run_len = 0
        self.slow_step = None

    def _victim_roll(self, s):
        p = self.E.pending(s.state)
        return s.step >= self.start and p.kind == "roll" and p.actors == (LIAR,)

    def thinks(self, seat, s):
        if not self._victim_roll(s):
            return False
        t0 = self.began.setdefault(s.step, self.now)
        if seat == SLOW:
            if self.slow_once:
                self.slow_step = s.step if self.slow_step is None else self.slow_step
                if s.step != self.slow_step:
                    return False
            return self.now < t0 + self.delay
        if seat == LIAR and self.mine and self.mine[-1] == s.step - 1 and self.run_len >= self.acts:
            return self.now < t0 + self.think
        return False

    def wake(self, net):
        ts = [t + d for t in self.began.values() for d in (self.delay, self.think) if t + d > self.now]
        return min(ts) if ts else None

    def _choose(self, s):
        if s.my_seat != LIAR or not self._victim_roll(s):
            return self.E.bots.choose(s.state, s.my_seat)
        if not self.mine or self.mine[-1] != s.step - 1:
            self.run_len = 0
        self.mine.append(s.step)
        if self.run_len < self.acts:
            self.run_len += 1
            st = s.state
            for sq, o in enumerate(st.owner):
                if o == LIAR and not st.mort[sq] and not st.level[sq]:
                    return self.E.actions.Mortgage(sq)
            return self.E.actions.WithdrawTrade()
        return self.E.actions.RollDice()


def test_c8_3_a_slow_non_actor_never_gets_a_fast_honest_actor_voted_out(tmp_path):
    """RV15-T #1 (§C8.3 'Own decision across steps': time the table waits for other seats never
    counts against a seat): seat 1 mortgages at once twice, then rolls, at each of its turns;
    seat 2 takes 30 s at each of those steps (under its own 40 s). Nobody votes, nobody is
    dropped (before this rule: seat 1 dropped at its second step)."""
    RE, sessions, paths = _classico(tmp_path)
    net = SlowOther(RE, sessions)
    _nobody_voted_out(net, RE, sessions, paths)
    assert len(net.mine) >= 9


def test_c8_3_one_quick_action_then_thought_after_another_seats_stall_is_never_voted_out(tmp_path):
    """RV15-T #1, the missing-message path: seat 1 mortgages once at once, then thinks 10 s and
    rolls; seat 2 takes 35 s at seat 1's first step only. Seat 1's vote time at its next step is
    that step's start + 40 s, not 5 s into its thinking: nobody votes, nobody is dropped."""
    RE, sessions, paths = _classico(tmp_path)
    net = SlowOther(RE, sessions, acts=1, delay=35.0, think=10.0, slow_once=True)
    _nobody_voted_out(net, RE, sessions, paths)
    assert len(net.mine) >= 4


# -- RV15-T #2: sealed steps (§C13) -------------------------------------------------------------


class SlowAtSealedRoll(Net):
    """RV15-T's repro: every roll sealed (``shortage_possible`` patched for every peer alike);
    seat 1 commits RollDice at once and opens at once; seat 2 takes 35 s at the COMMIT step and
    its messages from the OPEN step on are 6 s late on the wire."""

    def __init__(self, RE, sessions, start=20):
        self.E = RE
        super().__init__(sessions, self._choose)
        self.start, self.began, self.rolls, self.first = start, {}, [], None
        self.hold_until, self.held = None, []

    def _victim_roll(self, s):
        p = self.E.pending(s.state)
        return s.step >= self.start and p.kind == "roll" and p.actors == (LIAR,)

    def thinks(self, seat, s):
        if seat != SLOW or not self._victim_roll(s):
            return False
        if self.first is None:
            self.first = s.step
        delay = 35.0 if s.step == self.first else 0.0
        return self.now < self.began.setdefault(s.step, self.now) + delay

    def send_to(self, src, dst, raw):
        from p2p.session_inbox import MSG_STEP, decode_step_body, open_envelope

        if src == SLOW and self.first is not None and self.hold_until is None:
            env = open_envelope(raw, C.MAX_CATCHUP_MSG)
            if env.mtype == MSG_STEP and decode_step_body(env.body).step == self.first + 1:
                self.hold_until = self.now + 6.0
        if src == SLOW and self.hold_until is not None and self.now < self.hold_until:
            self.held.append((dst, raw))
            return
        super().send_to(src, dst, raw)

    def deliver(self):
        moved = False
        if self.held and self.now >= self.hold_until:
            for dst, raw in self.held:
                super().send_to(SLOW, dst, raw)
            self.held, moved = [], True
        return super().deliver() or moved

    def wake(self, net):
        ts = [t + 35.0 for t in self.began.values() if t + 35.0 > self.now]
        if self.hold_until is not None and self.hold_until > self.now:
            ts.append(self.hold_until)
        return min(ts) if ts else None

    def _choose(self, s):
        if s.my_seat == LIAR and self._victim_roll(s):
            self.rolls.append((s.step, s.sealed.phase))
            return self.E.actions.RollDice()
        return self.E.bots.choose(s.state, s.my_seat)


def test_c13_6_a_sealed_roll_sent_at_once_is_never_voted_out(tmp_path, monkeypatch):
    """RV15-T #2 live (§C13, §C8.3 'Own decision across steps': a COMMIT step is not counted, an
    OPEN step is judged on its opened input): seat 1 commits and opens RollDice at once while seat
    2 is slow at both steps; no honest peer votes against seat 1 (before: seat 0 voted DROP at the
    OPEN step, reading the opening as nil)."""
    import engine as RE

    monkeypatch.setattr(RE, "shortage_possible", lambda state: True, raising=False)
    _, sessions, paths = _classico(tmp_path)
    net = SlowAtSealedRoll(RE, sessions)
    net.run(max_time=3000, max_rounds=2_000_000, hook=net.wake)
    assert (net.first, COMMIT) in net.rolls  # the premise: its roll was sealed
    for i in (0, 2):
        assert LIAR not in {v.seat for v in _of(net, i, SeatDropVoted)}, i
        assert LIAR not in {d.seat for d in _of(net, i, SeatDropped)}, i


def _at_roll(E, n=3):
    s = E.new_game("classico", n)
    for _ in range(50):
        p = E.pending(s)
        if not p.chance and p.kind == "roll":
            return s, p
        s, _ = E.apply_chance(s, bytes(32)) if p.chance else E.apply_step(s, [None] * n)
    raise AssertionError("no roll")


def _real_stub(E, state, phase=PLAIN):
    """A session as ``TurnClock`` reads it over the real engine; ``held[(k, seat)]`` the held step
    messages, ``sealed.phase`` the step's §C13 phase; seat 0 ours."""
    held: dict = {}
    s = SimpleNamespace(step=0, state=state, engine=E, n=state.n, my_seat=0, active=[True] * state.n,
                        replaying=False, spectator=False, running=True, pending=E.pending(state),
                        # a seat opens what it committed to (a real SealedDecisions checks it)
                        sealed=SimpleNamespace(phase=phase, opened=lambda k, d, x: (
                            x[0] if type(x) is list and len(x) == 2 else None)),
                        steps=SimpleNamespace(held=lambda k, d: held.get((k, d))))
    return s, held


def _msg(x):
    return SimpleNamespace(body=SimpleNamespace(input=x))


def test_c13_6_sealed_commit_is_never_counted_and_open_is_judged_on_its_opened_input():
    """RV15-T #2 (§C13.6, §C8.3 'Own decision across steps'): at a COMMIT step a commitment (32
    bytes) is not counted (nothing to judge yet), nor a nil; at an OPEN step the opening
    ``[input, salt]`` is judged on its input: a roll moves the turn on (not counted), a nil
    opening holds it (counted). The plain roll and its opening are judged alike."""
    import engine as E

    state, p = _at_roll(E)
    d = p.actors[0]
    roll = E.encode_action(E.actions.RollDice())
    assert holds(E, state, state.n, d, roll) is False and holds(E, state, state.n, d, None) is True
    for phase, x, counted in ((COMMIT, bytes(32), False), (COMMIT, None, False), (OPEN, [roll, bytes(16)], False),
                              (OPEN, [None, bytes(16)], True), (OPEN, b"junk", True), (PLAIN, roll, False)):
        s, held = _real_stub(E, state, phase)
        s.my_seat = (d + 1) % state.n
        held[(0, d)] = _msg(x)
        clock = TurnClock(s)
        assert clock.observe(0) == ((d,) if counted else ()), (phase, x)


# -- H167 BREAK #1: interleaved steps of other kinds pause the count, never reset it ---------------


def test_c13_6_a_niente_liar_gifting_cash_at_its_roll_is_voted_out_at_the_step_bound():
    """H167 BREAK #1 (§C13.6, §C8.3 'Own decision across steps'): niente-e-come-sembra, 3 seats,
    seat 1 (the liar) never rolls: at its own roll it offers seat 2 a 20-euro gift when it has no
    open offer, else nil; seat 2's bot accepts and the payment opens ``pay_bills`` and an
    ``inspect_window`` (kinds outside §C8.10's Own decisions). Those steps pause the liar's count
    and do not reset it (only the turn passing does): our gate votes at the step that would make
    its count exceed OWN_STEPS_PER_TURN (before: 1795 s, the cash gone; with a colluder handing
    the cash back, never: the count depends on neither)."""
    import engine as E
    from engine.testing import scenario

    A = E.actions
    s, held = _real_stub(E, scenario(3, current=1, cash={0: 1500, 1: 1500, 2: 1500}, edition="niente-e-come-sembra"))
    clock = TurnClock(s)
    voted: list = []
    kinds: list = []
    for k in range(4 * OWN_STEPS_PER_TURN):
        s.step = k
        p = s.pending = E.pending(s.state)
        kinds.append(p.kind)
        if p.chance:
            assert clock.gate(k, (), voted.append, lambda: True)
            s.state, _ = E.apply_chance(s.state, hashlib.sha256(b"beacon %d" % k).digest())
            continue
        inputs = []
        for seat in range(3):
            if seat == LIAR and p.kind == "roll" and p.actors == (LIAR,):
                mine = any(o[0] == LIAR for o in s.state.offers)
                inputs.append(None if mine else A.ProposeTrade(2, (), (), 20, 0, (), (), ()))
            else:
                inputs.append(E.bots.choose(s.state, seat))
            held[(k, seat)] = _msg(None if inputs[-1] is None else E.encode_action(inputs[-1]))
        if not clock.gate(k, (), voted.append, lambda: True):
            break
        s.state, _ = E.apply_step(s.state, inputs)
    assert {"pay_bills", "inspect_window"} <= set(kinds)  # the premise: its roll is interrupted
    assert s.state.current == LIAR and voted == [LIAR]
    assert clock.count(LIAR) == OWN_STEPS_PER_TURN and k > OWN_STEPS_PER_TURN + 20


# -- the clock alone: the per-turn count --------------------------------------------------------


class _Engine:
    """A stub engine: the state is (turn, kind, actors); seat 1's input [1] rolls (a chance step
    next), any other input of its leaves the state as it is."""

    @staticmethod
    def pending(state):
        return SimpleNamespace(kind=state.kind, actors=state.actors, chance=state.kind == "dice", terminal=False)

    @staticmethod
    def decode_action(x):
        return x

    @staticmethod
    def apply_step(state, inputs):
        return (SimpleNamespace(turn=state.turn, kind="dice", actors=()) if inputs[1] == [1] else state), ()


def _stub_session():
    held: dict = {}
    s = SimpleNamespace(step=0, state=None, engine=_Engine, n=3, my_seat=0, active=[True] * 3, replaying=False,
                        spectator=False, running=True, sealed=SimpleNamespace(phase=PLAIN),
                        steps=SimpleNamespace(held=lambda k, d: held.get((k, d))))
    return s, held


EVENTS = st.one_of(st.tuples(st.just("own"), st.sampled_from([None, [2], [1]])), st.just(("pay_bills",)),
                   st.just(("other_roll",)), st.tuples(st.just("commit"), st.sampled_from([None, b"c" * 32])),
                   st.just(("turn",)))
NILS = [("own", None)] * 200


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([2, 5, OWN_STEPS_PER_TURN]), st.lists(EVENTS, max_size=300))
@example(OWN_STEPS_PER_TURN, NILS)
@example(5, [("own", [2]), ("pay_bills",), ("own", None), ("commit", None), ("own", None), ("other_roll",),
             ("own", None), ("own", [1]), ("own", None), ("own", None), ("turn",), ("own", None)])
def test_c8_3_property_voted_exactly_when_the_count_of_this_turn_would_exceed_the_bound(bound, events):
    """§C8.3 'Own decision across steps', for any sequence of steps: seat 1's own roll answered nil,
    by an action that leaves it pending ([2]) or by a roll ([1]); a ``pay_bills`` step of seat 1
    (not an own decision); seat 2's own roll (another seat); a sealed COMMIT of seat 1's roll; the
    turn passing. Model: seat 1's count = its own-roll steps answered nil or [2] since the turn
    began (rolls, COMMIT steps and the other steps pause it, never reset it). Our gate votes
    against seat 1 exactly at the step that would make the count exceed ``bound`` (never earlier,
    never later, never against seat 2 whose count stays under it here), with the step bound
    patched to 2, 5 or the real ``OWN_STEPS_PER_TURN`` (and 200 quick nils: voted at that step)."""
    s, held = _stub_session()
    clock = TurnClock(s)
    voted: list = []
    turn, count, count2 = 0, 0, 0
    saved, TC.OWN_STEPS_PER_TURN = TC.OWN_STEPS_PER_TURN, bound
    try:
        for k, ev in enumerate(events):
            s.step = k
            s.sealed.phase = COMMIT if ev[0] == "commit" else PLAIN
            if ev[0] == "turn":
                turn, count, count2 = turn + 1, 0, 0
                s.state = SimpleNamespace(turn=turn, kind="dice", actors=())
            elif ev[0] == "pay_bills":
                s.state = SimpleNamespace(turn=turn, kind="pay_bills", actors=(1,))
            elif ev[0] == "other_roll":
                s.state = SimpleNamespace(turn=turn, kind="roll", actors=(2,))
            else:
                s.state = SimpleNamespace(turn=turn, kind="roll", actors=(1,))
            s.pending = _Engine.pending(s.state)
            x = ev[1] if len(ev) > 1 else None
            held[(k, 1)], held[(k, 2)] = _msg(x), _msg(None)
            ok = clock.gate(k, (), voted.append, lambda: True)
            counted = ev[0] == "own" and x != [1]
            if counted and count >= bound:
                assert not ok and voted == [1], (k, count)
                break
            assert ok and not voted, (k, count, count2)
            count += counted
            if ev[0] == "other_roll":
                count2 += 1
                if count2 >= bound:
                    break  # seat 2 would be next: its own bound (not modelled further)
            assert clock.count(1) == count - counted
    finally:
        TC.OWN_STEPS_PER_TURN = saved
    if events == NILS:
        assert voted == [1] and k == bound


def test_c8_3_the_count_is_per_turn_and_a_roll_back_forgets_the_steps_from_the_cut():
    """§C8.3: the count is per seat and per turn: steps of another kind pause it, the turn passing
    resets it, a roll back to step c forgets the held steps from c on and keeps those before it
    (tests/p2p/test_turn_clock_rollback.py); a seat that is not an actor has none."""
    s, held = _stub_session()
    clock = TurnClock(s)
    plan = [("roll", (1,), 0), ("roll", (1,), 0), ("pay_bills", (1,), 0), ("roll", (1,), 0), ("roll", (1,), 1)]
    for k, (kind, actors, turn) in enumerate(plan):
        s.step, s.state = k, SimpleNamespace(turn=turn, kind=kind, actors=actors)
        s.pending = _Engine.pending(s.state)
        held[(k, 1)] = _msg(None)
        clock.observe(k)
        assert clock.count(1) == [0, 1, 2, 2, 0][k] and clock.count(2) == 0, k
    clock.observe(5)
    assert clock.count(1) == 1
    s.step, s.state = 2, SimpleNamespace(turn=0, kind="pay_bills", actors=(1,))
    s.pending = _Engine.pending(s.state)
    clock.observe(2)  # a roll back to step 2 (turn 0): steps 0 and 1 stay counted
    assert clock.count(1) == 2 and clock.count(2) == 0


# -- trade offers and fake openings (RV15-T2 #1 HIGH, #2 MED) ---------------------------------------

SPAMMER = 2


class OfferSpam(OwnRollNet):
    """Seat ``SPAMMER`` (the liar) proposes, at every step of seat ``LIAR``'s own roll from step 20
    on, a trade that seat's bot rejects (nothing for 1000 euro); every other input is the bot's,
    so the seat at its roll (honest here) answers each offer before rolling
    (``engine.bots``: offers first)."""

    def __init__(self, RE, sessions):
        super().__init__(RE, sessions, start=20)
        self.offers = 0

    def _choose(self, s):
        p = self.E.pending(s.state)
        if (s.my_seat == SPAMMER and s.step >= self.start and self.offers < 400 and p.kind == "roll"
                and p.actors == (LIAR,)):
            self.offers += 1
            return self.E.actions.ProposeTrade(LIAR, (), (), 0, 1000, (), (), ())
        return self.E.bots.choose(s.state, s.my_seat)


def test_c8_3_a_seat_spamming_offers_at_a_deciding_player_is_voted_out_not_the_player(tmp_path):
    """§C8.3 'Own decision across steps' (RV15-T2 #1): the honest seat at its roll answers each
    offer (RejectTrade leaves its roll pending); before, that answer was its held step and every
    honest peer voted the HONEST seat out at its 161st answer. Now an answer to another seat's offer
    is not counted for the answerer, and an offer to a seat whose own decision is pending is a held
    step of the offerer: seat 0 votes the spammer out at its bound, never the player."""
    RE, sessions, paths = _classico(tmp_path)
    net = OfferSpam(RE, sessions)
    net.run(max_time=1e6, max_rounds=5_000_000)
    assert net.offers > OWN_STEPS_PER_TURN  # the premise: it spammed past the bound
    votes = [(v.step, v.seat) for v in _of(net, 0, SeatDropVoted)]
    assert LIAR not in {seat for _, seat in votes}, votes[:3]
    assert votes and votes[0][1] == SPAMMER, votes[:3]
    assert [d.seat for d in _of(net, 0, SeatDropped)][:1] == [SPAMMER]


def test_c13_6_an_opening_without_a_commitment_is_judged_nil_and_counted():
    """§C13.6 (RV15-T2 #2): at a sealed roll a liar commits nothing and 'opens' [RollDice, salt]:
    the step applies nil (an opening without a commitment, §C13.3) and the roll stays pending,
    COMMIT/OPEN after COMMIT/OPEN. The clock judges what the opening opens against the seat's
    commitment (``SealedDecisions.opened``: nil), so every OPEN step counts: the bound is reached."""
    import engine as E
    from p2p.sealed import SealedDecisions

    state, p = _at_roll(E)
    d = p.actors[0]
    roll = E.encode_action(E.actions.RollDice())
    sealed = SealedDecisions(b"g" * 16, 0)
    sealed.committed(0, [None] * state.n, [None] * state.n)  # commit step 0: nobody committed
    s, held = _real_stub(E, state, OPEN)
    s.sealed = SimpleNamespace(phase=OPEN, opened=sealed.opened)
    s.my_seat = (d + 1) % state.n
    held[(1, d)] = _msg([roll, bytes(16)])
    assert TurnClock(s).observe(1) == (d,)
    # With a matching commitment the same opening is a roll: not counted.
    salt = bytes(range(16))
    from p2p.sealed import commitment
    sealed.committed(0, [commitment(b"g" * 16, 0, i, roll, salt) if i == d else None for i in range(state.n)],
                     [None] * state.n)
    held[(1, d)] = _msg([roll, salt])
    assert TurnClock(s).observe(1) == ()


def test_c8_3_held_seats_counts_the_offerer_not_the_answerer():
    """``held_seats`` at a seat's own roll: its RejectTrade / AcceptTrade of an offer open to it is
    not counted, an answer to no offer (or one that does not decode) is, as nil; its nil is; another seat's ProposeTrade naming it is counted for that seat; an
    offer to a seat that is not deciding is not."""
    import engine as E

    state, p = _at_roll(E)
    d = p.actors[0]
    e, f = [i for i in range(state.n) if i != d][:2]
    A = E.actions
    # the clock's wire codes are the engine's (protocol.md §E2)
    assert (TC.PROPOSE_TRADE, TC.ACCEPT_TRADE, TC.REJECT_TRADE) == (
        A.ProposeTrade.CODE, A.AcceptTrade.CODE, A.RejectTrade.CODE)
    enc = E.encode_action
    # no offer is open to d: an "answer" is refused by the engine, it counts as nil (RV15-T3), as
    # do answers that do not decode
    for bogus in (enc(A.RejectTrade(e)), enc(A.AcceptTrade(e, ())), [TC.REJECT_TRADE], [TC.ACCEPT_TRADE, 99, "junk"]):
        assert TC.held_seats(E, state, state.n, p, {d: bogus}) == (d,), bogus
    # e's offer to d is open: d's answer to it is not counted (the offer was, for e)
    offered, _ = E.apply_step(state, [A.ProposeTrade(d, (), (), 0, 1000, (), (), ()) if i == e else None
                                      for i in range(state.n)])
    q = E.pending(offered)
    assert q.kind == "roll" and q.actors == (d,)
    assert TC.held_seats(E, offered, state.n, q, {d: enc(A.RejectTrade(e))}) == ()
    assert TC.held_seats(E, offered, state.n, q, {d: enc(A.RejectTrade(f))}) == (d,)  # f offered nothing
    assert TC.held_seats(E, state, state.n, p, {d: None}) == (d,)
    offer_to_d = enc(A.ProposeTrade(d, (), (), 0, 1000, (), (), ()))
    offer_to_f = enc(A.ProposeTrade(f, (), (), 0, 1000, (), (), ()))
    assert TC.held_seats(E, state, state.n, p, {d: None, e: offer_to_d}) == tuple(sorted((d, e)))
    assert TC.held_seats(E, state, state.n, p, {e: offer_to_f}) == ()


def test_c8_3_a_refused_answer_to_no_offer_at_ones_own_roll_is_voted_out_at_the_bound(tmp_path):
    """§C8.3 'Own decision across steps' (RV15-T3 [HIGH]): the liar at its own roll sends
    RejectTrade(0) at every step though seat 0 made no offer; the engine refuses it (nil, the roll
    stays pending). Only an answer to an offer open to it is not counted, so both honest peers
    vote it out at the bound, as for nil (the clock judged the action code alone: never voted)."""
    RE, sessions, paths = _classico(tmp_path)
    net = OwnRollNet(RE, sessions, answer=lambda state: RE.actions.RejectTrade(0))
    net.run(max_time=1e6, max_rounds=5_000_000)
    first = net.stalled[0]
    assert len(net.stalled) > OWN_STEPS_PER_TURN  # the premise: it held its roll past the bound
    for i in (0, 2):
        assert [(v.step, v.seat) for v in _of(net, i, SeatDropVoted)][:1] == [(first + OWN_STEPS_PER_TURN, LIAR)], i
    finish_together(net, sessions, paths, (0, 2), cheaters=(), engine=RE)
