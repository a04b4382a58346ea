"""protocol.md §C13.4 (version 6): the commit-step half of the rule "a seat dropped at commit step
k or open step k+1 gets nil at k+1" is load-bearing, not only "the §C13.3 row of a present seat
without a commitment" (found by the reviewer RV15-S, session 15).

5 seats (Q = 3), classico, drop timeout 5 s. At a sealed auction commit step k the liar (seat 4)
sends its commitment Bid(its cash) to seat 0 only. Seat 0 then holds every commitment, applies k
and broadcasts its opening at k+1, which reaches the liar; seat 0's messages to seats 1-3 are
lost meanwhile (ordinary loss between honest peers: no catch-up of step k reaches them before
their drop timeout). The liar reads seat 0's opening and goes silent: seats 1-3 (a quorum) drop
it AT THE COMMIT STEP k; seat 0's applied step k is overturned. Version 6: the liar passes at
k+1 (nil). With only the open-step half of the rule (``at == step``) it would get its bot's
public bid at k+1, chosen after seeing an opening: the third option of H163 BREAK #2 again."""

from __future__ import annotations

import engine as E
from engine.actions import Bid
from engine.events import BidOffered, BidPassed, BidPlaced
from p2p.sealed import COMMIT, OPEN, SealedDecisions
from p2p.session_events import SeatDropped, StepApplied
from p2p.wire import MSG_STEP

from p2p_harness import Net, restart_overturned
from redteam_auth_kit import step_of
from test_redteam_s15_sealed import _sessions

LIAR = 4
STEP_TAG = bytes([0x93, MSG_STEP])


class RaceNet(Net):
    def __init__(self, sessions, paths, secrets):
        super().__init__(sessions, self._choose, drop=self._drop)
        self.plan: dict = {}
        self._ro = restart_overturned(paths, secrets, [], engine=E)

    def _choose(self, s):
        if s.my_seat == LIAR and "k" not in self.plan and s.sealed.phase == COMMIT:
            lim = E.bid_limits(s.state, LIAR)
            bot = E.bots.choose(s.state, LIAR)
            if lim is not None and type(bot) is Bid and bot.amount < lim[1]:
                self.plan.update(k=s.step, mine=lim[1], bot=bot.amount)
                return Bid(lim[1])
        return E.bots.choose(s.state, s.my_seat)

    def _drop(self, src, dst, raw):
        k = self.plan.get("k")
        if k is None or self.plan.get("released"):
            return False
        if src == LIAR and dst != 0 and raw[:2] == STEP_TAG and step_of(raw).step == k:
            return True  # its commitment goes to seat 0 only
        s0 = self.s[0]
        if src == 0 and dst in (1, 2, 3) and s0 is not None and s0.step > k:
            return True  # seat 0's messages after it applied k are lost to seats 1-3
        return False

    def hook(self, net):
        k = self.plan.get("k")
        if k is not None and "silent" not in self.plan:
            if any(i == 0 and raw[:2] == STEP_TAG and step_of(raw).step == k + 1 for i, raw in self.sent_log):
                self.plan["silent"] = True  # it saw seat 0's opening: silent for good
                self.s[LIAR] = None
        if self.plan.get("silent") and not self.plan.get("released"):
            if any(s is not None and LIAR in s.dropped for s in self.s[1:4]):
                self.plan["released"] = True
        self._ro(net)
        return None


def _liar_at(net, seat, step):
    for e in net.events[seat]:
        if isinstance(e, StepApplied) and e.step == step:
            return [(type(ev).__name__, getattr(ev, "amount", None)) for ev in e.engine_events
                    if isinstance(ev, (BidPlaced, BidOffered, BidPassed)) and ev.seat == LIAR]
    return None


def _run(tmp_path):
    sessions, paths, secrets = _sessions(tmp_path, 5)
    net = RaceNet(sessions, paths, secrets)
    net.run(max_time=2e4, max_rounds=3_000_000, hook=net.hook)
    plan = net.plan
    assert plan.get("silent") and plan.get("released"), (plan, net.describe())
    k = plan["k"]
    drops = [(e.step, e.seat) for e in net.events[1] if isinstance(e, SeatDropped)]
    assert drops[0] == (k, LIAR), drops  # dropped AT THE COMMIT STEP
    return plan, _liar_at(net, 1, k + 1), net


def test_c13_4_a_liar_dropped_at_the_commit_step_after_seeing_an_opening_passes(tmp_path):
    """The rule: the liar's input at the open step is nil (BidPassed), not its bot's bid."""
    plan, at_open, _ = _run(tmp_path)
    assert at_open == [("BidPassed", None)], (plan, at_open)


def test_c13_4_without_the_commit_step_half_it_would_get_its_bots_bid_chosen_after_an_opening(tmp_path, monkeypatch):
    """Why the half exists: with only the open-step half, the same run gives the liar its bot's
    public bid at the open step, chosen after it read seat 0's opening (H163 BREAK #2's third
    option again)."""
    def open_half_only(self, step, fill, dropped_at):
        if self._phase == OPEN and step == self._step:
            for seat, at in dropped_at.items():
                if at == step:
                    fill[seat] = None
        return fill
    monkeypatch.setattr(SealedDecisions, "withdraw_drops", open_half_only)
    plan, at_open, _ = _run(tmp_path)
    assert at_open and at_open[0][0] in ("BidPlaced", "BidOffered") and at_open[0][1] == plan["bot"], (plan, at_open)
