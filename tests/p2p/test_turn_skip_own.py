"""A skipped turn at the idle seat's OWN decision moves the game on (protocol.md §C8.10 "Own
decisions", ``turn_skip.skip_input``): at a roll, a jail roll, a buy-or-auction, a debt to
raise and inherited mortgages, silence (nil) leaves the engine waiting on the same seat, so a
skipped seat plays the public default of ``turn_skip.OWN_DEFAULTS`` instead; at every other
decision (others' turns, auction bids, a card choice) nil already moves the game on and stays
nil. Real engine (classico / editrice-giochi) states built with ``engine.testing``."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from types import SimpleNamespace

import engine as E
import engine.bots  # noqa: F401  (the default bot)
import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st
from engine import actions as A
from engine.events import DiceRolled, TurnStarted
from engine.state import P_CHOICE
from engine.testing import scenario, step

import fake_engine as FE
from p2p import const as C
from p2p.gamelog import KIND_SKIP, LogReader, LogWriter
from p2p.lockstep import SeatDropped, SeatDropVoted, StepApplied
from p2p.resume import resume_session
from p2p.drop_rules import default_bot
from p2p.session_events import TurnSkipped
from p2p.turn_skip import OWN_DEFAULTS, skip_input
from p2p.verify import verify_log

from p2p_harness import make_lobbies, pump_lobbies
from turn_skip_kit import TURN_TIME, IdleSeat

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "vectors"))
import make_skip_vectors as M  # noqa: E402

BOT = default_bot(E)
# The states (one per decision kind, actor seat 1) are the vectors' (tests/vectors/skip.json).
OWN = {k: v for k, v in M.OWN_STATES.items() if v[1] is not None}


def test_the_table_covers_exactly_the_decisions_silence_leaves_waiting():
    assert set(OWN_DEFAULTS) == set(OWN)


@pytest.mark.parametrize("kind", sorted(OWN))
def test_silence_waits_the_default_moves_the_game_past_the_idle_seat(kind):
    make, expected = OWN[kind]
    s = make()
    pend = E.pending(s)
    assert (pend.kind, pend.actors) == (kind, (1,))
    # the gap: nil from the actor leaves the same decision of the same seat (the same state)
    same, _ = E.apply_step(s, [None] * 3)
    assert E.state_hash(same) == E.state_hash(s)
    # the skip's input: the table's default, the same on every call (every peer computes it)
    a = skip_input(E, BOT, s, 1)
    assert a == expected == skip_input(E, BOT, s.copy(), 1)
    assert skip_input(E, BOT, s, 0) is None and skip_input(E, BOT, s, 2) is None  # not the actors
    moved, events = E.apply_step(s, [None, a, None])
    assert not any(type(e).__name__ == "ActionRefused" for e in events)
    assert E.state_hash(moved) != E.state_hash(s)
    after = E.pending(moved)
    assert (after.chance, after.kind, after.actors) != (False, kind, (1,))  # not the same wait


def test_the_raise_money_default_is_the_drop_rules_bot():
    s = M.raise_state()
    assert skip_input(E, BOT, s, 1) == BOT(s, 1)
    assert skip_input(E, lambda state, seat: "the session's bot", s, 1) == "the session's bot"


def test_where_silence_already_moves_on_the_skip_stays_nil():
    # an auction: a silent bidder leaves it (§E6)
    auction = M.auction_state()
    assert E.pending(auction).kind == "auction_bid"
    assert [skip_input(E, BOT, auction, i) for i in range(3)] == [None] * 3
    # a card choice: silence pays the fine
    card = scenario(2, edition="editrice-giochi")
    card.phase = P_CHOICE
    card.draw_deck = 0 * 256 + 15
    assert E.pending(card).kind == "card_choice" and skip_input(E, BOT, card, 0) is None
    # the other seats at somebody's roll: their nil is what they would have sent
    assert skip_input(E, BOT, M.roll_state(), 0) is None


def test_an_engine_without_actions_gets_nil():
    # a test stand-in whose pending step is called "roll" but that has no engine.actions
    stand_in = SimpleNamespace(pending=lambda state: FE.Pending(False, (1,), "roll", False))
    assert skip_input(stand_in, BOT, None, 1) is None
    # the fake engine's own decision ("move") is not in the table
    s = FE.new_game("race", 3)
    while FE.pending(s).chance:
        s = FE.apply_chance(s, bytes(32))[0]
    assert skip_input(FE, BOT, s, FE.pending(s).actors[0]) is None


# -- in a session: the idle seat stalls at its own roll, a majority passes its turn ----------

class StopAt(IdleSeat):
    """``IdleSeat`` (seat ``idle`` silent at steps ``from_step`` <= k < ``to_step``, the others
    vote to skip it after ``SKIP_AFTER`` s) on the real engine with its default bots, stopped
    once every peer reached step ``stop``."""

    def __init__(self, sessions, idle: int, from_step: int, to_step: int, stop: int) -> None:
        super().__init__(sessions, idle, from_step, to_step, choose=lambda s: E.bots.choose(s.state, s.my_seat))
        self.sessions, self.stop = list(sessions), stop

    def inputs(self) -> bool:
        if min(s.step for s in self.sessions) >= self.stop:
            self.s = [None] * len(self.s)  # Net.run returns: no live session left
            return False
        return super().inputs()


def test_a_seat_stalling_at_its_own_roll_has_its_turn_passed_and_plays_again(tmp_path):
    import engine.bots  # noqa: F401  (the default bot of the drop rule and of the players here)
    lobbies = make_lobbies(3, edition="classico", options={C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30,
                                                           C.OPT_TURN_TIME: TURN_TIME})
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    paths = [tmp_path / f"p{i}.lnplog" for i in range(3)]
    sessions = [l.start_session(E, log=LogWriter(p, l.log_header())) for l, p in zip(ordered, paths)]
    idle_until = 80
    net = StopAt(sessions, idle=1, from_step=1, to_step=idle_until, stop=idle_until + 60)
    net.run(max_time=1e6, hook=lambda n: n.hook() if n.s[0] is not None else None)
    for s in sessions:
        s.log.close()
    assert all(s.step >= idle_until + 60 and s.phase == "running" for s in sessions)
    skipped = [sorted((e.step, e.seat) for e in evs if isinstance(e, TurnSkipped)) for evs in net.events]
    assert skipped[0] and skipped[0] == skipped[1] == skipped[2] and {d for _, d in skipped[0]} == {1}
    applied = {e.step: e for e in net.events[0] if isinstance(e, StepApplied)}
    # the skips at seat 1's own roll: its turn was rolled for it (the dice of the next chance
    # step are its), and another seat's turn started while it was still idle
    own_rolls = [k for k, _ in skipped[0] if any(isinstance(x, DiceRolled) and x.seat == 1
                                                 for x in applied[k + 1].engine_events)]
    assert own_rolls
    assert any(isinstance(x, TurnStarted) and x.seat != 1
               for k in range(own_rolls[0], idle_until) for x in applied[k].engine_events)
    # it kept its seat (nobody voted to drop it) and decided again itself after its idle steps
    assert not any(isinstance(e, (SeatDropped, SeatDropVoted)) for evs in net.events for e in evs)
    assert all(s.active == [True] * 3 for s in sessions)
    assert not any(d == 1 and k >= idle_until for k, d in skipped[0])
    # one history on every peer, and every log replays it (verify computes the same defaults)
    hashes = [[(e.step, e.state_hash) for e in evs if isinstance(e, StepApplied)] for evs in net.events]
    common = min(len(h) for h in hashes)
    assert hashes[0][:common] == hashes[1][:common] == hashes[2][:common]
    for p in paths:
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.error is None, rep.error
        assert [r.kind for r in LogReader(p)].count(KIND_SKIP) >= len(skipped[0])
    # a restart replays the defaults from the log: the idle seat and a voter resume where they were
    for i in (1, 2):
        again, _ = resume_session(paths[i], sessions[i].identity, sessions[i].chain.value(0), E, now=net.now)
        assert (again.step, again.state_hash) == (sessions[i].step, sessions[i].state_hash)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), seats=st.sampled_from([3, 4]),
       edition=st.sampled_from(["classico", "editrice-giochi", "fabrianopoli"]))
def test_property_a_skipped_seat_never_leaves_the_game_waiting_on_itself(seed, seats, edition):
    """Along bot games of random seeds (every edition without hidden information): at every
    decision step, for every actor of it, the skip input is nil exactly outside
    ``OWN_DEFAULTS``; inside, applying it (others silent) never leaves the same seat facing the
    same decision in the same state — the stall ends — and the engine never refuses it."""
    rnd = random.Random(seed)
    s = E.new_game(edition, seats)
    kinds = set()
    for _ in range(1500):
        pend = E.pending(s)
        if pend.terminal:
            break
        if pend.chance:
            s = E.apply_chance(s, rnd.randbytes(32))[0]
            continue
        for d in pend.actors:
            a = skip_input(E, BOT, s, d)
            if pend.kind not in OWN_DEFAULTS:
                assert a is None
                continue
            inputs = [None] * seats
            inputs[d] = a
            moved, events = E.apply_step(s, inputs)
            assert not any(type(e).__name__ == "ActionRefused" for e in events), (pend.kind, a, events)
            after = E.pending(moved)
            assert (after.kind, after.actors, E.state_hash(moved)) != (pend.kind, pend.actors, E.state_hash(s))
            kinds.add(pend.kind)
        s = E.apply_step(s, E.bots.choose_all(s, ["default"] * seats))[0]
    for kind in sorted(kinds):
        event(f"checked at {kind}")
