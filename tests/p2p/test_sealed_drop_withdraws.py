"""A seat dropped at a sealed open step, or at its commit step, gets nil there (protocol.md §C13.4,
version 6; ``SealedDecisions.withdraw_drops``): the inputs §C13.3 gives a present seat without a
commitment or withdrawing, never its bot's (public) input, which a seat that held its opening
back until it held the others' could otherwise pick by going silent (H163 BREAK #2: a third
option beside keeping its commitment and passing, §C13.5). Its bot plays it from the next step.
Every peer and ``verify`` apply the rule alike: a log verifies only with it.
"""

from __future__ import annotations

import engine as E
from engine.actions import BuildHouse
from engine.events import AuctionEnded, AuctionStarted, BidOffered, BidPassed, BidPlaced, BuildingBought
from p2p.sealed import COMMIT, OPEN, PLAIN, SealedDecisions
from p2p.session_events import SeatDropped, StepApplied
from p2p.verify import verify_log

from p2p_harness import finish_together
from test_redteam_s15_sealed import LIAR, PeekNet, _sessions
from test_sealed import GID, _Eng, _P, _two_builders

BID = _P(False, (0, 1, 2), "auction_bid")


def _at_open_step(k: int = 10) -> SealedDecisions:
    d = SealedDecisions(GID, 0)
    assert d.begin(k, _Eng, BID) == COMMIT
    assert d.begin(k + 1, _Eng, BID) == OPEN
    return d


def test_c13_4_seats_dropped_at_the_open_step_or_its_commit_step_get_nil_there():
    """§C13.4: at open step 11 (commit step 10) the seats dropped at 10 or 11 get nil; a seat
    dropped before the commit step keeps its bot's input (public, decided on the state before
    step 10, chosen before anybody opened), seats not dropped are not in the fill."""
    d = _at_open_step(10)
    fill = {0: ["bot"], 1: ["bot"], 2: ["bot"], 3: ["bot"]}
    out = d.withdraw_drops(11, fill, {0: 9, 1: 10, 2: 11, 3: 3})
    assert out is fill and fill == {0: ["bot"], 1: None, 2: None, 3: ["bot"]}


def test_c13_4_the_rule_is_for_open_steps_only():
    """Commit and plain steps keep the fill (a commit step applies nothing; a plain step is the
    drop rule of §C8.4 as before); a step other than the current one changes nothing either."""
    d = SealedDecisions(GID, 0)
    assert d.begin(10, _Eng, BID) == COMMIT
    fill = {1: ["bot"]}
    assert d.withdraw_drops(10, fill, {1: 10}) == {1: ["bot"]}
    assert d.begin(11, _Eng, BID) == OPEN
    assert d.withdraw_drops(12, fill, {1: 11}) == {1: ["bot"]}  # not the current step
    one = _P(False, (0,), "roll")
    assert d.begin(12, _Eng, one) == PLAIN
    assert d.withdraw_drops(12, fill, {1: 12}) == {1: ["bot"]}


def test_c13_4_a_seat_dropped_at_a_shortage_open_step_makes_no_building_request():
    """§C13.1 building shortage ("La Banca non ha edifici a sufficienza?"): one house left, seats 0
    and 1 could each ask for it, so the step is sealed. Seat 1 is dropped at the open step: its
    bot's request (here a BuildHouse) would make the shortage auction; with the rule it asks for
    nothing and seat 0's opened request gets the house, as if seat 1 had withdrawn."""
    s = _two_builders(1)
    d = SealedDecisions(GID, 0)
    assert d.begin(20, E, s) == COMMIT and d.begin(21, E, s) == OPEN
    mine = [a for a in E.legal_actions(s, 0) if type(a) is BuildHouse][0]
    bots = [a for a in E.legal_actions(s, 1) if type(a) is BuildHouse][0]
    _, without_rule = E.apply_step(s, [mine, bots, None])
    assert any(isinstance(ev, AuctionStarted) for ev in without_rule)  # what the bot's input did
    fill = d.withdraw_drops(21, {1: bots}, {1: 21})
    _, events = E.apply_step(s, [mine, fill[1], None])
    assert [ev.seat for ev in events if isinstance(ev, BuildingBought)] == [0]
    assert not any(isinstance(ev, AuctionStarted) for ev in events)


def test_c13_4_a_seat_silent_after_the_openings_passes_and_the_logs_verify_only_with_the_rule(tmp_path, monkeypatch):
    """§C13.4/§C13.5, whole classico game (H163's PeekNet, 3 seats, drop timeout 5 s): the liar
    commits Bid(its cash) at an auction round, holds its opening back, sees the others open lower
    bids than its bot's and goes silent. It is dropped at the open step and passes there (nil):
    it neither wins at its bot's lower bid nor at all (the lot goes to an opened bid); its bot
    plays from the next step. The honest peers end with one final hash, their logs verify
    naming nobody; the same logs replayed without the rule do not verify (consensus)."""
    sessions, paths, _ = _sessions(tmp_path)
    net = PeekNet(sessions)
    net.run(max_time=1e6, max_rounds=5_000_000, hook=net.hook)
    plan = net.plan
    assert "k" in plan and plan["bot"] < plan["committed"]  # premise: the peek would have paid
    k = plan["k"]
    assert [e.seat for e in net.events[0] if isinstance(e, SeatDropped)] == [LIAR]
    at_k = [e for e in net.events[0] if isinstance(e, StepApplied) and e.step == k][0]
    bids = (BidPlaced, BidOffered, BidPassed)
    assert [type(ev) for ev in at_k.engine_events if isinstance(ev, bids) and ev.seat == LIAR] == [BidPassed]
    ended = [ev for e in net.events[0] if isinstance(e, StepApplied) and e.step >= k
             for ev in e.engine_events if isinstance(ev, AuctionEnded)]
    assert ended[0].winner != LIAR and ended[0].amount == max(plan["opened"])
    later = [e for e in net.events[0] if isinstance(e, StepApplied) and e.step > k]
    assert any(getattr(ev, "seat", None) == LIAR for e in later for ev in e.engine_events)  # its bot plays on
    finish_together(net, sessions, paths, (0, 1), cheaters=set(), engine=E)
    monkeypatch.setattr(SealedDecisions, "withdraw_drops", lambda self, step, fill, dropped_at: fill)
    rep = verify_log(paths[0], engine=E)
    assert not rep.ok and "state after this step differs" in str(rep.error), rep.error
