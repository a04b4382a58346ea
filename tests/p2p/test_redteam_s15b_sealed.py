"""Red team session 15, second round (H169): being dropped at a sealed step on purpose (protocol.md
§C13.4, version 6, 0693dac: "a seat dropped at commit step k or at open step k+1 gets nil at step
k+1"; §C13.5 "it can turn its committed input into a pass, never into anything else"). Tests only.

Whole classico games, 4 seats (Q = 3: one liar and one partner are under the drop quorum), the real
engine and bots, in-memory peers, virtual clock. The colluders are seats 2 (A, dropped on purpose)
and 3 (B, its partner); seats 0 and 1 are honest.

* Hold: A goes silent for good at the first sealed auction commit step where A and B both bid.
  A is dropped at that commit step by the other three, passes at the open step (nil: no
  commitment), and B's opened bid is applied as B committed it: A's drop turns nothing of B's
  into a pass, and gives A nothing but the pass it could have sent. The game ends the same for
  seats 0, 1, 3; their logs verify naming nobody.
* Hold: B opens to A only at the open step (A and B hold everything; seats 0 and 1 lack B's
  opening and vote at the drop timeout). A's step k+2 message (it applied k+1 with B's opening)
  can certify B's message for a voter (§C8.3 certificate, F1), so B's opening is applied after it
  saw every other opening, or B is dropped there and passes: either way B's input at the open
  step is its commitment or nil, never a third input, and the honest peers finish together
  (measured: they get B's opening through A before their drop timeout; nobody votes).
"""

from __future__ import annotations

import engine as E
from engine.actions import Bid
from engine.events import BidOffered, BidPassed, BidPlaced
from p2p.gamelog import LogWriter, OwnLog
from p2p.sealed import COMMIT
from p2p.session_events import SeatDropped, StepApplied
from p2p.wire import MSG_STEP

from p2p_harness import Net, finish_together, make_lobbies, pump_lobbies
from redteam_auth_kit import step_of

A, B = 2, 3
STEP_TAG = bytes([0x93, MSG_STEP])
OPTS = {"p2p.on_drop": "bot", "p2p.drop_timeout": 5}
BIDS = (BidPlaced, BidOffered, BidPassed)


def _sessions(tmp_path):
    """4 classico sessions in seat order (logs and own-message logs in ``tmp_path``), their log paths."""
    lobbies = make_lobbies(4, edition="classico", options=OPTS)
    pump_lobbies(lobbies)
    sessions, paths = [], []
    for lob in sorted(lobbies.values(), key=lambda lob: lob.my_seat):
        paths.append(tmp_path / f"{lob.my_seat}.log")
        log = LogWriter(paths[-1], lob.log_header())
        sessions.append(lob.start_session(E, log=log, own_log=OwnLog(f"{paths[-1]}.own")))
    return sessions, paths


def _both_bid(s) -> bool:
    """``s`` (a colluder's session) is at a sealed commit step where A and B both bid."""
    p = E.pending(s.state)
    return s.sealed.phase == COMMIT and p.kind == "auction_bid" and A in p.actors and B in p.actors


class ColluderNet(Net):
    """Every seat plays its bot, except B at the first sealed commit step k where A and B both bid:
    it commits its lowest bid there (``plan``: k and that bid)."""

    def __init__(self, sessions):
        super().__init__(sessions, self._choose)
        self.plan: dict = {}

    def _choose(self, s):
        if s.my_seat == B and "k" not in self.plan and _both_bid(s):
            x = Bid(E.bid_limits(s.state, B)[0])  # the partner bids (its lowest bid)
            self.plan.update(k=s.step, b=x)
            return x
        return E.bots.choose(s.state, s.my_seat)


def _bid_events(net, seat_view, k, who):
    at = [e for e in net.events[seat_view] if isinstance(e, StepApplied) and e.step == k]
    assert at, (seat_view, k)
    return [ev for ev in at[0].engine_events if isinstance(ev, BIDS) and ev.seat == who]


def _amounts(net, seat_view, k):
    """B's bid amounts applied at the open step k+1 (placed or offered), as ``seat_view`` saw them."""
    return [ev.amount for ev in _bid_events(net, seat_view, k + 1, B) if not isinstance(ev, BidPassed)]


def test_c13_4_a_colluder_dropped_at_the_commit_step_passes_and_its_partners_bid_stands(tmp_path):
    """§C13.4: A crashes on purpose at the commit step k where A and B both bid (its commitment
    never leaves it). Seats 0, 1 and 3 drop A at k; at the open step k+1 A passes (BidPassed, no
    bid) and B's bid is the one it committed; the three finish together, logs verify, no cheater."""
    sessions, paths = _sessions(tmp_path)
    net = ColluderNet(sessions)
    st: dict = {}

    def hook(n):
        s = n.s[A]
        if s is not None and "k" not in st and s.phase == "running" and _both_bid(s):
            st["k"] = s.step
            n.s[A] = None  # silent for good from the commit step on
        return None

    net.run(max_time=1e6, max_rounds=5_000_000, hook=hook)
    k = st["k"]
    assert net.plan.get("k") == k and isinstance(net.plan["b"], Bid)  # premise: B committed a bid at k
    for i in (0, 1, B):
        assert [(e.step, e.seat) for e in net.events[i] if isinstance(e, SeatDropped)] == [(k, A)], i
        assert [type(ev) for ev in _bid_events(net, i, k + 1, A)] == [BidPassed], i
        assert _amounts(net, i, k) == [net.plan["b"].amount], (i, _bid_events(net, i, k + 1, B))
    finish_together(net, net.s, paths, (0, 1, B), cheaters=set(), engine=E)


def test_c13_5_a_partner_opening_to_its_colluder_only_gets_its_commitment_or_a_pass(tmp_path):
    """§C13.5 with §C8.3's certificate: at the open step k+1 B's opening reaches A only (its
    re-sends too). Seats 0 and 1 never get it from B; A holds every opening and signs k+2. B's
    input as applied at k+1 (by every peer that finishes) is its committed bid or a pass, never
    anything else; seats 0 and 1 end with one final hash and verified logs."""
    sessions, paths = _sessions(tmp_path)
    net = ColluderNet(sessions)

    def drop(src, dst, raw):
        k = net.plan.get("k")
        return src == B and dst in (0, 1) and k is not None and raw[:2] == STEP_TAG and step_of(raw).step == k + 1

    net.drop = drop
    net.run(max_time=1e6, max_rounds=5_000_000)
    k = net.plan["k"]
    assert isinstance(net.plan["b"], Bid)  # premise: B committed a bid
    assert any(src == B and step_of(raw).step == k + 1 for src, raw in net.sent_log if raw[:2] == STEP_TAG)
    for i in (0, 1):
        got = _bid_events(net, i, k + 1, B)
        assert [type(ev) for ev in got] == [BidPassed] or _amounts(net, i, k) == [net.plan["b"].amount], (i, got)
        # Measured: seats 0 and 1 get B's opening through A (forward/catch-up) before their drop
        # timeout: nobody votes, B's commitment is applied everywhere.
        assert not [e for e in net.events[i] if isinstance(e, SeatDropped)], i
    finish_together(net, net.s, paths, (0, 1), cheaters=None, engine=E)
