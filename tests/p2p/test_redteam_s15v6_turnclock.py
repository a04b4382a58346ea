"""Red team session 15 (H167) on the turn clock (H165, protocol.md §C8.3 'Own decision across
steps', §C8.10 Own decisions, §C13.6): can a liar still hold its turn by varying what it sends,
or by changing the kind of its own decision to start its streak again?

The breaks were found against H165's rule (5fb7a1e: "voted out at the turn time or once it left
that decision pending 128 steps", a streak that other kinds of steps restarted); the docstrings
below quote it where they say what broke. The rule now (H168, 41c93be; protocol.md §C8.3 'Own
decision across steps'): per seat and turn, a count of the seat's held steps (its own-decision
input keeps the turn where it was); steps of other kinds pause it, only the turn passing resets
it; honest peers vote at the step that would exceed ``OWN_STEPS_PER_TURN`` (160); no wall time
across steps.

* live (classico, 3 seats, the in-memory ``Net`` on a virtual clock, as tests/p2p/test_turn_clock.py):
  a liar that alternates two different non-ending actions at its own roll (a ``ProposeTrade`` to
  an honest seat, then a ``WithdrawTrade`` of it, again and again) is voted out at the same step
  bound as one that answers nil;
* the clock alone (``TurnClock`` on a stub session over the real engine's states,
  ``engine.testing.scenario``): a jailed liar that stalls in jail, then pays the fine at the last
  step before the bound (kind ``jail`` -> ``roll``: a new streak) and stalls at its roll gets
  exactly one more bound, no more: the only way back to ``jail`` is a move, i.e. a chance step,
  which ends its turn.
"""

from __future__ import annotations

from types import SimpleNamespace

from p2p.liveness import Liveness
from p2p.session_events import SeatDropped, SeatDropVoted
from p2p.session_turn_clock import OWN_STEPS_PER_TURN, TurnClock

from p2p_harness import finish_together
from test_turn_clock import LIAR, OwnRollNet, _classico, _of


def test_c8_3_a_liar_alternating_propose_and_withdraw_at_its_roll_is_voted_out_at_the_step_bound(tmp_path):
    """§C8.3 'Own decision across steps' ("any action that does not make the decision (an
    out-of-turn ProposeTrade, a refused WithdrawTrade ...) leaves the engine waiting"): seat 1
    varies its answer at its own roll every step — an offer to seat 0 (one euro for nothing),
    then its withdrawal — so no two consecutive messages are alike. Both honest peers still
    vote it out at the step its roll had been left pending at OWN_STEPS_PER_TURN earlier
    steps, it is dropped there, its bot rolls, the honest peers finish one game and their logs
    verify."""
    RE, sessions, paths = _classico(tmp_path)
    A = RE.actions
    sent: list = []

    def alternate(state):
        a = (A.ProposeTrade(0, (), (), 1, 0, (), (), ()) if len(sent) % 2 == 0 else A.WithdrawTrade())
        sent.append(type(a).__name__)
        return a

    net = OwnRollNet(RE, sessions, answer=alternate)
    net.run(max_time=1e6, max_rounds=5_000_000)
    first = net.stalled[0]
    assert {"ProposeTrade", "WithdrawTrade"} <= set(sent[:4])  # the premise: it really alternates
    for i in (0, 2):
        votes = _of(net, i, SeatDropVoted)
        assert [(v.step, v.seat) for v in votes][:1] == [(first + OWN_STEPS_PER_TURN, LIAR)], i
        assert [(d.step, d.seat) for d in _of(net, i, SeatDropped)] == [(first + OWN_STEPS_PER_TURN, LIAR)]
    finish_together(net, sessions, paths, (0, 2), cheaters=(), engine=RE)


def _stub(engine, state, turn_time: float = 0.0):
    """A session as ``TurnClock`` reads it (``session_port.SessionView``'s fields), over the real
    engine and ``state``; seat 0 is ours, ``held[(k, seat)]`` the held step messages."""
    held: dict = {}
    s = SimpleNamespace(step=0, state=state, engine=engine, n=state.n, my_seat=0, active=[True] * state.n,
                        replaying=False, spectator=False, running=True, now=0.0, live=Liveness(5.0, 0.0),
                        seats=SimpleNamespace(turn_time=turn_time, drop_timeout=10.0),
                        steps=SimpleNamespace(held=lambda k, d: held.get((k, d))))
    s.pending = engine.pending(state)
    return s, held


def test_c8_3_a_jailed_liar_changing_kind_once_gets_one_more_bound_and_no_more():
    """§C8.3 'Own decision across steps' ("another kind ... ends it"): the liar (seat 1, in jail at
    its turn, unlimited turn time: the step bound alone) answers nil in jail; at the last step
    before the bound it pays the fine (``PayJailFine``: kind ``jail`` -> ``roll``, a new streak),
    then answers nil at its roll. The vote comes at 2 x OWN_STEPS_PER_TURN (the premise: the
    change of kind did start the streak again), never later: from its roll the only way back to an
    own decision of another kind goes through the dice (a chance step, its turn moves on)."""
    import engine as RE
    from engine.testing import scenario

    state = scenario(3, current=1, jail={1: 1}, pos={1: 10}, cash={1: 1500})
    s, held = _stub(RE, state)
    assert s.pending.kind == "jail" and s.pending.actors == (1,)
    clock = TurnClock(s)
    voted: list = []
    pay = RE.encode_action(RE.actions.PayJailFine())
    for k in range(3 * OWN_STEPS_PER_TURN):
        s.step = k
        s.live.begin(s.now)
        x = pay if k == OWN_STEPS_PER_TURN - 1 else None
        held[(k, 1)] = SimpleNamespace(body=SimpleNamespace(input=x))
        if not clock.gate(k, (), lambda d: voted.append((k, d)), lambda: True):
            break
        inputs = [None] * s.n
        if x is not None:
            inputs[1] = RE.decode_action(x)
        s.state, _ = RE.apply_step(s.state, inputs)
        s.pending = RE.pending(s.state)
    assert s.pending.kind == "roll" and s.pending.actors == (1,)
    assert len(voted) == 1 and voted[0][1] == 1
    assert OWN_STEPS_PER_TURN <= voted[0][0] <= 2 * OWN_STEPS_PER_TURN  # never earlier, at most one more


# -- a liar whose own roll is interrupted by decisions of other kinds it causes -------------------

TURN_S = 300.0  # the default turn time (§C8.3)
STEP_S = 5.0  # each step of the stub game takes 5 s of our clock (the liar answers at once)
GIFT = 20  # euro the liar offers an honest seat at its roll, for nothing


def _within_held_steps(vote_step: int, first: int, per_held: int) -> bool:
    """§C8.3 'Own decision across steps' (H168's rule, 41c93be): a liar is voted out at the step its
    **held steps** of one turn would exceed ``OWN_STEPS_PER_TURN``; steps of other kinds in between
    pause the count. ``per_held``: the steps of the liar's cycle per held step (its own decision
    plus the others' answers it makes them give): the vote comes never before the bound and at
    most that many times the bound
    after ``first``, never unbounded (before 41c93be each interleaved step restarted the count:
    1795 s, or never)."""
    return first + OWN_STEPS_PER_TURN <= vote_step <= first + per_held * (OWN_STEPS_PER_TURN + 1)


def _gifting_liar(edition: str, max_steps: int = 1000):
    """The clock of honest seat 0 (stub session, real engine, real ``Liveness``) in a 3-seat game
    of ``edition`` from the start of seat 1's turn (``engine.testing.scenario``, 1500 euro each).
    Seats 0 and 2 play the engine's default bot; seat 1 (the liar) never rolls: at its own roll it
    offers seat 2 ``GIFT`` euro for nothing (``ProposeTrade``) when it has no open offer, else
    nil; at any other decision it plays its bot. Chance steps go through the gate too (as in the
    session) with a beacon of the step. Returns ``(vote, now, kinds)``: the first (step, seat) we
    voted against (None), the clock then (s), the pending kinds seen."""
    import hashlib

    import engine as RE
    from engine.testing import scenario

    A = RE.actions
    s, held = _stub(RE, scenario(3, current=1, cash={0: 1500, 1: 1500, 2: 1500}, edition=edition), TURN_S)
    clock = TurnClock(s)
    voted: list = []
    kinds: list = []
    for k in range(max_steps):
        s.step = k
        s.live.begin(s.now)
        p = s.pending = RE.pending(s.state)
        kinds.append(p.kind)
        if p.chance:
            clock.gate(k, (), lambda d: voted.append((k, d)), lambda: True)
            s.state, _ = RE.apply_chance(s.state, hashlib.sha256(b"beacon %d" % k).digest())
            s.now += STEP_S
            continue
        inputs = []
        for seat in range(3):
            if seat == 1 and p.kind == "roll" and p.actors == (1,):
                mine = any(o[0] == 1 for o in s.state.offers)
                inputs.append(None if mine else A.ProposeTrade(2, (), (), GIFT, 0, (), (), ()))
            else:
                inputs.append(RE.bots.choose(s.state, seat))
            x = inputs[seat]
            held[(k, seat)] = SimpleNamespace(body=SimpleNamespace(input=None if x is None else RE.encode_action(x)))
        if not clock.gate(k, (), lambda d: voted.append((k, d)), lambda: True):
            break
        s.state, _ = RE.apply_step(s.state, inputs)
        s.now += STEP_S
    assert s.state.current == 1  # the premise: the liar never rolled, its turn never moved on
    return (voted[0] if voted else None), s.now, kinds


def test_c13_6_a_classico_liar_gifting_cash_at_its_roll_is_voted_out_at_the_step_bound():
    """Hold (§C13.6, §C8.3 'Own decision across steps'): in classico a cash trade changes no
    pending kind, so every step of the liar's cycle is a held step; our gate votes at the step its
    count would exceed the bound, the gifts notwithstanding."""
    vote, now, kinds = _gifting_liar("classico")
    assert set(kinds) == {"roll"}
    assert vote is not None and vote[1] == 1 and _within_held_steps(vote[0], 0, 1), (vote, now)


def test_c13_6_a_niente_liar_gifting_cash_at_its_roll_is_voted_out_at_the_step_bound():
    """§C13.6: "a seat that answers at once but never makes its own decision, e.g. nil at its roll,
    is voted out by every honest peer at the turn time or once it left that decision pending 128
    steps". In niente-e-come-sembra the liar's gift is accepted by seat 2's bot and its payment
    opens ``pay_bills`` (the liar chooses its bills) and an ``inspect_window`` (the others may
    inspect): two decision kinds outside §C8.10's Own decisions, so ``TurnClock.observe`` ends the
    liar's roll streak and the next roll step begins a new one (its own ``since`` and step count).
    Every 4 steps (roll, roll, pay_bills, inspect_window) the liar's turn time starts again: we
    vote only once its cash is gone (1795 s, step 359, here; with a colluding second seat that
    hands the cash back, never), while the same liar in classico is voted out at 300 s (above).
    Since 41c93be (H168) those steps pause the liar's count of held steps and reset nothing: in
    the 4-step cycle two are held, so it is voted by step 2 x the bound (§C8.3)."""
    vote, now, kinds = _gifting_liar("niente-e-come-sembra")
    assert {"pay_bills", "inspect_window"} <= set(kinds)  # the premise: its roll is interrupted
    assert vote is not None and vote[1] == 1
    assert _within_held_steps(vote[0], 0, 2), (vote, now)


def test_c8_3_an_honest_full_liquidation_stays_under_the_step_bound():
    """§C8.3 'Own decision across steps' counts an honest debtor's sales too (each leaves
    ``raise_money`` pending). The bound's margin for an honest player, measured: classico, seat 1
    owns every lot, 12 hotels and the other 32 houses, no cash, a debt of 8750 euro (the worst of
    debts 5000-11000 x 6-12 hotels, classico and fabrianopoli, for the default bot: 112 steps).
    The default bot pays it in fewer than OWN_STEPS_PER_TURN steps; a human who sells as many
    things one click at a time and adds ~16 refused clicks or trade offers in between is voted out
    at the step bound even in an untimed game (not a break: no rule promises more, noted)."""
    import engine as RE
    from engine.board import K_STATION, K_STREET, K_UTILITY
    from engine.game import advance
    from engine.testing import scenario

    squares = RE.new_game("classico", 3).ed.squares
    streets = [i for i, q in enumerate(squares) if q.kind == K_STREET]
    owners = {i: 1 for i, q in enumerate(squares) if q.kind in (K_STREET, K_STATION, K_UTILITY)}
    levels = {i: 5 for i in streets[-12:]}
    levels.update({i: 4 for i in streets[:-12][:8]})
    t = scenario(3, current=1, cash={1: 0}, owners=owners, levels=levels)
    t.debts.append([1, 0, 8750, -1, 0])
    advance(t, [])
    steps = 0
    while RE.pending(t).kind == "raise_money" and steps <= OWN_STEPS_PER_TURN:
        t, _ = RE.apply_step(t, [None, RE.bots.choose(t, 1), None])
        steps += 1
    assert not t.out[1] and RE.pending(t).kind == "roll"  # paid, still playing
    assert 100 < steps < OWN_STEPS_PER_TURN, steps


def test_c13_6_live_a_niente_liar_gifting_cash_at_its_roll_is_voted_out_at_the_step_bound(tmp_path):
    """BREAK #1 on the live sessions (3 seats of niente-e-come-sembra on the in-memory ``Net``,
    turn time 40 s, answers at once: the step bound decides). From step 20 seat 1, at its own
    roll, offers seat 2 a 20-euro gift when it has no open offer, else nil; never rolls. Rule
    (§C13.6): both honest peers vote it out at the step its roll had been left pending 128 times,
    ``first + OWN_STEPS_PER_TURN``. Today each accepted gift's pay_bills/inspect_window
    starts the liar's streak again: the honest peers vote only once its cash ran out (here ~428
    steps after its first stall). Since 41c93be (H168) the bound counts held steps per turn (two
    per 4-step gift cycle): both vote by the first stall + 2 x the bound (§C8.3)."""
    import engine as E
    from p2p import const as C
    from p2p_harness import Net
    from test_hidden import start

    opts = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 10, C.OPT_TURN_TIME: 40}
    sessions, writers, _ = start(tmp_path, n=3, options=opts)
    stalled: list = []

    def choose(s):
        p = E.pending(s.state)
        if s.my_seat == LIAR and s.step >= 20 and p.kind == "roll" and p.actors == (LIAR,):
            stalled.append(s.step)
            if any(o[0] == LIAR for o in s.state.offers):
                return None
            return E.actions.ProposeTrade(2, (), (), GIFT, 0, (), (), ())
        return E.choose(s.state, s.my_seat, "default", s.private_view())

    net = Net(sessions, choose)
    net.run(max_time=1e6, max_rounds=3_000_000)
    for w in writers:
        w.close()
    first = stalled[0]
    assert len(stalled) > OWN_STEPS_PER_TURN  # the premise: it held its roll past the bound
    for i in (0, 2):
        votes = [(v.step, v.seat) for v in _of(net, i, SeatDropVoted)]
        assert votes and votes[0][1] == LIAR, (i, first, votes[:3])
        assert _within_held_steps(votes[0][0], first, 2), (i, first, votes[:3])


def test_c13_6_a_fabrianopoli_debtor_auctioning_a_lot_nobody_buys_is_voted_out_at_the_step_bound():
    """§C13.6: "a seat that answers at once but never makes its own decision ... is voted out by
    every honest peer at the turn time or once it left that decision pending 128 steps". Fabrianopoli
    lets a debtor auction one of its unbuilt lots (``AuctionProperty``, engine/rules/sale.py); if
    nobody bids the sale is void: the deed stays, nobody pays, the debtor is back in
    ``raise_money``. The liar (seat 1, a 2000-euro debt, no cash, its 400-euro lot 39) answers
    ``AuctionProperty(39)`` at every ``raise_money`` step; the honest bots (1500 euro each) never
    bid that price. The pending kinds alternate ``raise_money`` / ``auction_bid``, and
    ``TurnClock.observe`` clears every streak at the auction step (not an Own decision), so the
    liar's debt streak starts again every other step: our clock (5 s a step, turn time 300 s)
    never votes in 1000 steps. It costs the liar nothing: one liar holds the table for ever."""
    import hashlib

    import engine as RE
    from engine.game import advance
    from engine.testing import scenario

    state = scenario(3, current=1, cash={0: 1500, 1: 0, 2: 1500}, owners={39: 1}, edition="fabrianopoli")
    state.debts.append([1, 0, 2000, -1, 0])
    advance(state, [])
    s, held = _stub(RE, state, TURN_S)
    assert s.pending.kind == "raise_money" and s.pending.actors == (1,)
    clock = TurnClock(s)
    voted: list = []
    kinds: list = []
    for k in range(1000):
        s.step = k
        s.live.begin(s.now)
        p = s.pending = RE.pending(s.state)
        kinds.append(p.kind)
        if p.chance:  # an auction tie, were there one
            clock.gate(k, (), lambda d: voted.append((k, d)), lambda: True)
            s.state, _ = RE.apply_chance(s.state, hashlib.sha256(b"beacon %d" % k).digest())
            s.now += STEP_S
            continue
        inputs = [RE.actions.AuctionProperty(39) if seat == 1 and p.kind == "raise_money"
                  else RE.bots.choose(s.state, seat) for seat in range(3)]
        for seat, x in enumerate(inputs):
            held[(k, seat)] = SimpleNamespace(body=SimpleNamespace(input=None if x is None else RE.encode_action(x)))
        if not clock.gate(k, (), lambda d: voted.append((k, d)), lambda: True):
            break
        s.state, _ = RE.apply_step(s.state, inputs)
        s.now += STEP_S
    assert set(kinds) == {"raise_money", "auction_bid"}  # the premise: void sales, over and over
    assert s.state.owner[39] == 1 and s.state.debts and s.state.current == 1
    assert voted and voted[0][1] == 1 and _within_held_steps(voted[0][0], 0, 3), (voted, s.now)


def test_c13_6_live_a_fabrianopoli_debtor_auctioning_a_lot_nobody_buys_is_voted_out_at_the_step_bound(tmp_path):
    """BREAK #2 on the live sessions (3 seats of fabrianopoli on the in-memory ``Net``, answers at
    once: the step bound decides). Seat 1 plays its bot but, from step 20, gives all its cash to
    seat 2 at its roll once it owns a lot (the bot accepts a gift), and, in debt, answers
    ``AuctionProperty`` of its dearest lot it may auction at every ``raise_money`` step: nobody bids
    that price, the sale is void, its debt is back (a run of void sales every 3 steps). After
    3 x OWN_STEPS_PER_TURN steps of one such run it gives up and plays its bot (so that the run
    ends). Rule (§C13.6): both honest peers vote it out once it left that debt pending 128 steps:
    by the run's first step + OWN_STEPS_PER_TURN (+ 1). Before 41c93be nobody ever voted;
    since (H168) the bound counts held steps per turn, one per 3-step void sale: both vote by the
    run's first step + 3 x the bound (§C8.3), before the liar would give up (4 x)."""
    import engine as E
    from engine.rules.sale import sale_error
    from p2p import const as C
    from p2p.gamelog import LogWriter
    from p2p_harness import Net, make_lobbies, pump_lobbies

    opts = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 10, C.OPT_TURN_TIME: 40}
    lobbies = make_lobbies(3, edition="fabrianopoli", options=opts)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    writers = [LogWriter(tmp_path / f"{i}.log", lob.log_header()) for i, lob in enumerate(ordered)]
    sessions = [lob.start_session(E, log=w) for lob, w in zip(ordered, writers)]
    runs: list = []  # [first, last] auction steps of each run of void sales (one debt, 3 steps apart)

    def choose(s):
        st, p = s.state, E.pending(s.state)
        if s.my_seat != LIAR or s.step < 20 or (runs and runs[-1][1] - runs[-1][0] > 4 * OWN_STEPS_PER_TURN):
            return E.bots.choose(st, s.my_seat)
        if p.kind == "raise_money" and p.actors == (LIAR,):
            lots = [q for q in range(st.tb.nsq) if st.owner[q] == LIAR and sale_error(st, LIAR, q) is None]
            if lots:
                if runs and s.step - runs[-1][1] <= 4:
                    runs[-1][1] = s.step
                else:
                    runs.append([s.step, s.step])
                return E.actions.AuctionProperty(max(lots, key=lambda q: st.tb.price[q]))
        if (p.kind == "roll" and p.actors == (LIAR,) and st.cash[LIAR] > 0 and LIAR in st.owner
                and not any(o[0] == LIAR for o in st.offers)):
            return E.actions.ProposeTrade(2, (), (), st.cash[LIAR], 0, (), (), ())
        return E.bots.choose(st, s.my_seat)

    net = Net(sessions, choose)
    net.run(max_time=1e6, max_rounds=3_000_000)
    for w in writers:
        w.close()
    first, last = max(runs, key=lambda r: r[1] - r[0])
    assert last - first >= 3 * OWN_STEPS_PER_TURN  # the premise: one debt, void sales over and over
    for i in (0, 2):
        votes = [(v.step, v.seat) for v in _of(net, i, SeatDropVoted)]
        assert votes and votes[0][1] == LIAR, (i, first, votes[:3])
        assert _within_held_steps(votes[0][0], first, 3), (i, first, votes[:3])
