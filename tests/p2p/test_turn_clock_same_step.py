"""The turn clock against a same-step answer (protocol.md §C8.3 'Own decision across steps',
``p2p.session_turn_clock.answers_early``; red team s16 H174-1, H174-2 [HIGH]).

The engine applies a step's inputs in seat order (engine/game.step_inplace), so a seat seated
after a deciding player can close, in the very step that makes it, the offer that player makes.
An honest seat never does: its step-k input is chosen at the state before step k, where that
offer does not exist yet. The default bot proposes while it has no offer of its own open, and the
state after an offer closed in its own step is byte-equal to the state before (checked below), so
the bot (a function of the state) proposes again, step after step: before, each was a held step of
the HONEST proposer and the liar was never counted. Now an ``AcceptTrade``/``RejectTrade`` naming
an actor of an Own decision while no offer of that actor is open to its sender is a held step of
the sender, and the actor's ``ProposeTrade`` to that sender at that step is not the actor's.

* the clock alone (real engine, classico, 3 seats, at a roll): who is counted for each mix of a
  proposal and a same-step answer; an answer to an offer open before the step, an acceptance with
  a lift, an answer that does not decode or names a non-actor are not same-step answers;
* a hypothesis property: a non-actor whose input is one of ``engine.legal_actions`` for it (what
  an honest seat, bot or player, sends) and not an offer to an actor is never counted, whatever
  the actors send (same-step offers to it included);
* the state argument: no bot-side rule ("do not offer again this turn") is possible without an
  engine state change;
* live (H174-2 where a drop is possible): classico, 5 seats, seat 0's peer crashes and is dropped,
  its bot (§C8.4) offers the liar (seat 4) a trade at its roll and the liar rejects it in the same
  step: before, the turn never passed (nobody counted: the dropped seat is not active, the liar no
  actor); now seats 1, 2 and 3 vote the liar out at the step bound and the game ends.
"""

from __future__ import annotations

import hashlib
import warnings

from hypothesis import given, settings, strategies as st

from p2p import const as C
from p2p import session_turn_clock as TC
from p2p.gamelog import LogWriter
from p2p.session_events import SeatDropped, SeatDropVoted
from p2p.session_turn_clock import OWN_STEPS_PER_TURN

from p2p_harness import Net, finish_together, make_lobbies, pump_lobbies
from test_turn_clock import _at_roll  # a classico state at the first roll and its pending

OPTS = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 10, C.OPT_TURN_TIME: 40}


def _engine():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import engine as E
    return E


def _offer(E, partner):
    return E.actions.ProposeTrade(partner, (), (), 0, 10, (), (), ())


def test_c8_3_a_same_step_answer_is_the_senders_held_step_not_the_proposers():
    """§C8.3 'Own decision across steps' (H174-1): at d's roll, d offers e a trade and e (seated
    after d) rejects or accepts it in the same step: e is counted, d is not. Without d's input
    (a dropped seat's bot plays it, nothing to judge, H174-2) e's same-step answer is still e's.
    A seat f answering d while d offers e: f counted, d too (its offer to e stays open)."""
    E = _engine()
    state, p = _at_roll(E)
    d = p.actors[0]
    e, f = [i for i in range(state.n) if i != d]
    enc, A, n = E.encode_action, E.actions, state.n
    assert not [a for a in E.legal_actions(state, e) if type(a).__name__ == "RejectTrade"]  # nothing open
    offer_e = enc(_offer(E, e))
    assert TC.held_seats(E, state, n, p, {d: offer_e}) == (d,)  # an offer alone: the proposer's step
    assert TC.held_seats(E, state, n, p, {d: offer_e, e: enc(A.RejectTrade(d))}) == (e,)
    assert TC.held_seats(E, state, n, p, {d: offer_e, e: enc(A.AcceptTrade(d, ()))}) == (e,)
    assert TC.held_seats(E, state, n, p, {e: enc(A.RejectTrade(d))}) == (e,)  # d dropped: its bot's offer
    assert TC.held_seats(E, state, n, p, {d: offer_e, e: None, f: enc(A.RejectTrade(d))}) == (d, f)
    assert TC.answers_early(E, state, e, enc(A.RejectTrade(d)), p.actors)


def test_c8_3_answers_that_are_not_same_step_answers_are_judged_as_before():
    """§C8.3 'Own decision across steps': an answer to an offer open BEFORE the step is an honest
    answer (e not counted), even while d re-proposes in that step (a liar replacing its offer:
    d counted); an acceptance with a lift of an open offer is not among ``legal_actions`` but the
    offer is open (e not counted); an answer that does not decode (nil, it closes nothing) or
    names a seat that is no actor (it cannot hold the actor) is not counted for its sender."""
    E = _engine()
    state, p = _at_roll(E)
    d = p.actors[0]
    e, f = [i for i in range(state.n) if i != d]
    enc, A, n = E.encode_action, E.actions, state.n
    assert TC.held_seats(E, state, n, p, {d: None, e: [TC.REJECT_TRADE, d, "junk"]}) == (d,)
    assert TC.held_seats(E, state, n, p, {d: None, e: enc(A.RejectTrade(f))}) == (d,)
    # d's offer to e made at an earlier step (the liar proposing, the honest seat answering later)
    opened, _ = E.apply_step(state, [_offer(E, e) if i == d else None for i in range(n)])
    q = E.pending(opened)
    assert q.kind == "roll" and q.actors == (d,)
    roll, reject = enc(A.RollDice()), enc(A.RejectTrade(d))
    assert TC.held_seats(E, opened, n, q, {d: roll, e: reject}) == ()
    assert TC.held_seats(E, opened, n, q, {d: enc(_offer(E, e)), e: reject}) == (d,)
    lifted = enc(A.AcceptTrade(d, (1,)))
    assert E.decode_action(lifted) not in E.legal_actions(opened, e)
    assert not TC.answers_early(E, opened, e, lifted, q.actors)
    assert TC.held_seats(E, opened, n, q, {d: roll, e: lifted}) == ()


def _bot_states(seeds=3, steps=400, n=3):
    """Decision states of default-bot classico games with an Own decision pending (the property's
    ground), with their pending."""
    E = _engine()
    out = []
    for seed in range(seeds):
        s = E.new_game("classico", n)
        for k in range(steps):
            p = E.pending(s)
            if p.terminal:
                break
            if p.chance:
                s, _ = E.apply_chance(s, hashlib.sha256(b"h175 %d %d" % (seed, k)).digest())
                continue
            if TC.own_actors(p):
                out.append((s, p))
            s, _ = E.apply_step(s, [E.bots.choose(s, i) for i in range(n)])
    return out


_STATES: list = []


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0), st.lists(st.integers(min_value=0), min_size=6, max_size=6),
       st.lists(st.booleans(), min_size=3, max_size=3))
def test_c8_3_property_an_honest_non_actor_is_never_counted(pick, choices, offer_to):
    """§C8.3 'Own decision across steps': at any Own decision of a bot game, a non-actor whose
    input is nil or one of ``engine.legal_actions`` for it at the state the step applies to (all
    an honest seat can choose) is never counted, unless that input is a ``ProposeTrade`` naming an
    actor (the offerer's step, RV15-T2 #1); the actors send anything legal, or an offer to a
    non-actor made in this very step (the same-step case)."""
    E = _engine()
    if not _STATES:
        _STATES.extend(_bot_states())
    state, p = _STATES[pick % len(_STATES)]
    n, actors = state.n, TC.own_actors(p)
    inputs = {}
    for seat in range(n):
        legal = [None] + list(E.legal_actions(state, seat))
        a = legal[choices[seat] % len(legal)]
        if seat in actors and offer_to[seat]:
            a = _offer(E, (seat + 1 + choices[seat + 3] % (n - 1)) % n)
        inputs[seat] = None if a is None else E.encode_action(a)
    held = TC.held_seats(E, state, n, p, inputs)
    for seat in held:
        x = inputs[seat]
        assert seat in actors or (x is not None and x[0] == TC.PROPOSE_TRADE and x[1] in actors), (seat, inputs)


def test_c8_3_no_bot_rule_can_avoid_the_second_offer_without_an_engine_state_change():
    """Why the fix is in the clock (brief H175): after an offer closed in the step that made it the
    engine state is byte-equal to the state before (same ``state_hash``; only the step's events
    differ), so any bot that is a function of the state (the default bot, a dropped seat's bot,
    replayed by ``verify``) chooses the same offer again. "Do not offer again this turn" needs the
    state to remember the offer (a hash change)."""
    E = _engine()
    state, p = _at_roll(E)
    d = p.actors[0]
    e = (d + 1) % state.n
    inputs = [None] * state.n
    inputs[d], inputs[e] = _offer(E, e), E.actions.RejectTrade(d)
    after, events = E.apply_step(state, inputs)
    assert [type(x).__name__ for x in events] == ["TradeProposed", "TradeClosed"]
    assert E.state_hash(after) == E.state_hash(state)
    assert E.bots.choose(after, d) == E.bots.choose(state, d)


# -- live: a dropped seat's bot held by a live liar (H174-2), 5 seats so that a drop is possible ----

LIAR, GONE = 4, 0


class RejectsTheDroppedSeat(Net):
    """Classico, 5 seats, every seat its default bot; seat ``GONE``'s peer crashes at step 10 (so
    its bot plays, §C8.4); the liar (seat ``LIAR``) sends RejectTrade(GONE) at every step of
    GONE's roll at which its bot has nothing to send."""

    def __init__(self, E, sessions):
        self.E = E
        super().__init__(sessions, self._choose)

    def _choose(self, s):
        E = self.E
        a = E.bots.choose(s.state, s.my_seat)
        p = E.pending(s.state)
        if s.my_seat == LIAR and a is None and p.kind == "roll" and not p.chance and p.actors == (GONE,):
            return E.actions.RejectTrade(GONE)
        return a


def test_c8_3_a_live_liar_holding_a_dropped_seats_bot_is_voted_out_at_the_bound(tmp_path):
    """§C8.3 'Own decision across steps' with §C8.4 (H174-2 where a drop is possible: 5 seats, 4
    active, Q = 3 others): seat 0 is dropped at its crash (step 10); at its roll of turn 199 (from
    step 655, demo seed s5) its bot offers the liar a trade at every step and the liar rejects it
    in the same step. Before: held for ever (the turn never passed; nobody voted). Now each such
    step is the liar's: seats 1, 2 and 3 vote it out at 655 + OWN_STEPS_PER_TURN, its bot plays on,
    the game ends the same for them and their logs verify."""
    E = _engine()
    lobbies = make_lobbies(5, edition="classico", options=OPTS, demo_seed=b"s5")
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    paths = [tmp_path / f"{i}.log" for i in range(5)]
    sessions = [lob.start_session(E, log=LogWriter(p, lob.log_header())) for lob, p in zip(ordered, paths)]
    net = RejectsTheDroppedSeat(E, sessions)
    turns: dict = {}

    def hook(n):
        if n.s[GONE] is not None and n.s[GONE].step >= 10:
            n.s[GONE] = None
        s = n.s[1]
        if s is not None and s.step - turns.setdefault(s.state.turn, s.step) > 3 * OWN_STEPS_PER_TURN:
            n.s[:] = [None] * len(n.s)  # held for ever (before the fix): stop, the checks below fail
        return None

    net.run(max_time=1e6, max_rounds=3_000_000, hook=hook)
    start = turns[199]
    assert start == 655  # premise: the held turn of the dropped seat
    for i in (1, 2, 3):
        assert [(e.step, e.seat) for e in net.events[i] if isinstance(e, SeatDropped)] == \
            [(10, GONE), (start + OWN_STEPS_PER_TURN, LIAR)], i
        assert {e.seat for e in net.events[i] if isinstance(e, SeatDropVoted)} == {GONE, LIAR}, i
    finish_together(net, sessions, paths, (1, 2, 3), cheaters=(), engine=E)
