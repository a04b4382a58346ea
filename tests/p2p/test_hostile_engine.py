"""Hostile peers with the REAL classico engine (DESIGN.md §5, protocol.md §C3.3): one seat's bot
is replaced by a scripted cheater that sends one illegal action. Every honest peer's engine
refuses it the same way (``ActionRefused`` naming the cheater's seat and the engine's reason
code, engine/events.py), the refused input changes nothing (the step equals the same step with
the cheater silent), the game plays on to the end with every peer agreeing, and the cheater's
signed message stays in every log as evidence that ``verify_log`` replays.

Rules checked (rulebooks/classico): buying needs the printed price in cash
(engine.rules.auction.buy, "insufficient_cash"); houses are built evenly across the colour set
("uneven", engine.rules.building.build_error); only the current player rolls
("not_your_roll", engine.game._roll)."""

from __future__ import annotations

from typing import Any, Callable

import engine as E
import engine.bots as bots  # noqa: F401  (also makes E.bots exist for the dropped-seat bot)
from engine.actions import BuildHouse, BuyProperty, RollDice
from engine.events import ActionRefused
from engine.rules.building import build_error
from engine.state import P_BUY
from engine.testing import scenario
from p2p.gamelog import KIND_STEP, LogReader, LogWriter
from p2p.lockstep import GameOver, StepApplied
from p2p.verify import verify_log
from p2p.wire import decode_step_body, open_envelope, unpack

from p2p_harness import Net, make_lobbies, pump_lobbies

SEATS = 3
CHEAT = 1


class PinnedEngine:
    """The real engine whose ``new_game`` returns a copy of ``state`` (an ``engine.testing``
    scenario): peers and the offline verifier then start from the same pinned state. Every
    other attribute is the real engine's."""

    def __init__(self, state: Any) -> None:
        self._state = state

    def new_game(self, edition: str, seats: int, options: Any = None) -> Any:
        """A copy of the pinned state (``edition``/``seats`` must match it)."""
        assert seats == self._state.n
        return self._state.copy()

    def __getattr__(self, name: str) -> Any:
        return getattr(E, name)


class Cheater:
    """Chooser for ``Net``: seat ``CHEAT`` sends ``attempt(state, seat)`` once, the first time
    it returns an action; every other input comes from the default bot. Records every seat's
    input per step (``choices[(step, seat)]``) and the cheat as ``(step, action, state)``."""

    def __init__(self, attempt: Callable[[Any, int], Any]) -> None:
        self.attempt = attempt
        self.cheat: tuple | None = None
        self.choices: dict[tuple[int, int], Any] = {}

    def __call__(self, s: Any) -> Any:
        a = None
        if s.my_seat == CHEAT and self.cheat is None:
            a = self.attempt(s.state, s.my_seat)
            if a is not None:
                self.cheat = (s.step, a, s.state.copy())
        if a is None:
            a = bots.choose(s.state, s.my_seat)
        self.choices[(s.step, s.my_seat)] = a
        return a


def play(tmp_path, eng: Any, cheater: Cheater) -> tuple[Net, list, Any]:
    """A whole 3-seat classico game over the in-memory network, every peer writing a log.
    Returns (net, log paths, setup)."""
    lobbies = make_lobbies(SEATS, edition="classico")
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    paths = [tmp_path / f"{i}.log" for i in range(SEATS)]
    writers = [LogWriter(p, l.log_header()) for p, l in zip(paths, ordered)]
    sessions = [l.start_session(eng, log=w) for l, w in zip(ordered, writers)]
    net = Net(sessions, cheater)
    net.run(max_time=1e6, max_rounds=2_000_000)
    for w in writers:
        w.close()
    return net, paths, ordered[0].setup


def check_refused(tmp_path, eng: Any, attempt: Callable, code: int, reason: str) -> Cheater:
    """Play a game with the cheater and check everything the issue asks of honest peers."""
    ch = Cheater(attempt)
    net, paths, setup = play(tmp_path, eng, ch)
    assert ch.cheat is not None, "the cheater never found a moment to cheat"
    k, action, before = ch.cheat

    # Detected and named identically by every peer: exactly the cheater's refusal at step k.
    at_k = [[e for e in evs if isinstance(e, StepApplied) and e.step == k] for evs in net.events]
    assert all(len(x) == 1 for x in at_k)
    refused_k = [[x for x in a[0].engine_events if isinstance(x, ActionRefused)] for a in at_k]
    assert refused_k[0] == [ActionRefused(CHEAT, code, reason)]
    assert refused_k[0] == refused_k[1] == refused_k[2]

    # No harm: the step equals the same step with the cheater silent (same hash, same events
    # apart from the refusal).
    inputs = [None if i == CHEAT else ch.choices.get((k, i)) for i in range(SEATS)]
    silent, silent_ev = E.apply_step(before, inputs)
    assert {a[0].state_hash for a in at_k} == {E.state_hash(silent)}
    rest = tuple(x for x in at_k[0][0].engine_events if not isinstance(x, ActionRefused))
    assert rest == tuple(silent_ev)

    # The game goes on to the end; every peer agrees on every step and the result.
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs), [s.phase for s in net.s]
    assert len({(o[0].final_hash, o[0].winner, o[0].steps) for o in overs}) == 1
    assert overs[0][0].steps > k + 1
    hashes = [[e.state_hash for e in evs if isinstance(e, StepApplied)] for evs in net.events]
    assert hashes[0] == hashes[1] == hashes[2]

    # Evidence: each honest peer's log holds the cheater's signed message for step k, and the
    # log replays with the refusal counted.
    for i in (0, 2):
        recs = [unpack(r.payload) for r in LogReader(paths[i]) if r.kind == KIND_STEP]
        (raws,) = [raws for step, raws in recs if step == k]
        env = open_envelope(raws[CHEAT])
        body = decode_step_body(env.body)
        assert env.verify(setup.players[CHEAT].public_key)
        assert (body.seat, body.step, body.input) == (CHEAT, k, E.encode_action(action))
        rep = verify_log(paths[i], engine=eng)
        assert rep.ok and rep.complete, rep.error
        assert rep.events_by_type.get("ActionRefused", 0) >= 1
        assert rep.final_state_hash == overs[0][0].final_hash.hex()
    return ch


def test_buying_without_the_cash_is_refused_and_named(tmp_path):
    """BuyProperty with cash below the printed price: "insufficient_cash" (auction.buy)."""
    # The cheater's move ended on the unowned square 39 (price 400) with 350 euro in hand: the
    # deed is offered to it (phase "buy"), and it answers BuyProperty anyway.
    state = scenario(SEATS, current=CHEAT, cash={CHEAT: 350}, pos={CHEAT: 39})
    state.phase = P_BUY
    assert E.pending(state).kind == "buy_or_auction" and state.tb.price[39] > state.cash[CHEAT]
    eng = PinnedEngine(state)

    def attempt(st, seat):
        p = E.pending(st)
        if p.kind == "buy_or_auction" and seat in p.actors and st.cash[seat] < st.tb.price[st.pos[seat]]:
            return BuyProperty()
        return None

    ch = check_refused(tmp_path, eng, attempt, BuyProperty.CODE, "insufficient_cash")
    assert ch.cheat[0] == 0 and ch.cheat[2].owner[39] == -1  # cheated at once, on the unowned deed


def test_uneven_building_is_refused_and_named(tmp_path):
    """A second house on one street of a complete set before the other: "uneven"."""
    state = scenario(SEATS, current=CHEAT, owners={1: CHEAT, 3: CHEAT}, levels={1: 1})
    assert build_error(state, CHEAT, 1)[0] == "uneven"
    assert build_error(state, CHEAT, 3) is None  # the even build is legal: the refusal is unevenness
    eng = PinnedEngine(state)

    def attempt(st, seat):
        if seat in E.pending(st).actors and st.level[1] == 1 and st.level[3] == 0:
            return BuildHouse(1)
        return None

    check_refused(tmp_path, eng, attempt, BuildHouse.CODE, "uneven")


def test_rolling_out_of_turn_is_refused_and_named(tmp_path):
    """RollDice while another seat is to roll: "not_your_roll". Plain new game, no pinning."""

    def attempt(st, seat):
        p = E.pending(st)
        return RollDice() if p.kind == "roll" and seat not in p.actors else None

    check_refused(tmp_path, E, attempt, RollDice.CODE, "not_your_roll")
