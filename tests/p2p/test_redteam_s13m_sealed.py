"""Red team session 13 on main (H149): sealed decisions (protocol.md §C13) by a seat that signs two
commitments at one commit step and opens each to the peer that got it.

§C13.5 claims 'Lookahead': at the open step a seat's input is fixed by its commitment. A liar
may sign two commitments at commit step k (a bid for seat 0, another bid for seat 1, both with
its key) and at k+1 open each to the peer that holds it: each honest peer, alone, sees a
matching opening. What must hold: the two step-k records differ, so the honest peers' step-(k+1)
messages carry different digests (§C3.2) and the liar is caught as any equivocating seat
(§C3.4, §C8.8), the honest peers end the same game (seat loss on: the liar loses its seat), and
their logs verify. Whole classico games, in-memory peers, the real engine and bots."""

from __future__ import annotations

import os

import engine as E
from engine.actions import Bid
from p2p.gamelog import LogWriter, OwnLog
from p2p.lockstep import SeatDropped
from p2p.sealed import COMMIT, OPEN, commitment
from p2p.wire import MSG_STEP, seal

from redteam_auth_kit import KeyedNet, step_of
from p2p_harness import finish_together, make_lobbies, pump_lobbies, restart_overturned
from test_sealed_session import _bot

LIAR, VICTIM = 2, 1


def _two_commitments(tmp_path):
    """Play the game with the liar's second commitment and opening to seat 1, restarting a peer
    halted with StepOverturned as the node does: (net, log paths, plan, restarts)."""
    lobbies = make_lobbies(3, edition="classico", options={"p2p.on_drop": "bot", "p2p.drop_timeout": 5})
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    paths = [tmp_path / f"{i}.log" for i in range(3)]
    sessions = [lob.start_session(E, log=LogWriter(p, lob.log_header()), own_log=OwnLog(f"{p}.own"))
                for lob, p in zip(ordered, paths)]
    liar = sessions[LIAR]
    plan: dict = {}

    def lie(src, dst, raw):
        if src != LIAR or dst != VICTIM:
            return None
        b = step_of(raw)
        if "k" not in plan and type(b.input) is bytes and len(b.input) == 32 \
                and (liar.sealed.phase, liar.sealed.step) in ((COMMIT, b.step), (OPEN, b.step + 1)):
            lo, _hi = E.bid_limits(liar.state, LIAR)
            x, salt = [Bid.CODE, lo], os.urandom(16)
            c = commitment(b.game_id, b.step, LIAR, x, salt)
            plan.update(k=b.step, commit=seal(liar.identity, MSG_STEP, [*b[:5], c]), opening=[x, salt])
        if plan.get("k") == b.step:
            return plan["commit"]
        if plan.get("k") is not None and b.step == plan["k"] + 1 and b.input is not None:
            return seal(liar.identity, MSG_STEP, [*b[:5], plan["opening"]])
        return None

    net = KeyedNet(sessions, _bot, lie=lie)
    restarts: list = []
    net.run(max_time=1e6, max_rounds=5_000_000,
            hook=restart_overturned(paths, [lob.chain.value(0) for lob in ordered], restarts, engine=E))
    assert "k" in plan and net.lies
    return net, paths, plan, restarts


def test_two_commitments_opened_each_to_its_own_peer_are_caught_and_the_game_ends_the_same(tmp_path):
    """§C13.2/§C13.3 with §C3.2: the liar's second commitment (and its matching opening) goes to
    seat 1 only, at the first sealed auction round; the honest peers name the liar (equivocation
    or a proven cheat), end with one final hash, and their logs verify complete."""
    net, paths, plan, restarts = _two_commitments(tmp_path)
    assert [(st, chosen) for _, st, chosen in restarts] == [(plan["k"], True)], restarts  # one side rolled back
    finish_together(net, net.s, paths, (0, VICTIM), cheaters={LIAR}, engine=E)
    for i in (0, VICTIM):
        assert [e.seat for e in net.events[i] if isinstance(e, SeatDropped)] == [LIAR], (i, restarts)
