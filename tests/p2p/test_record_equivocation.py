"""A second signed version of an applied step message inside a catch-up record (protocol.md
§C3.4 'Second version in a record', ``RecordIngest.cross_check``, ``session.ingest``): where the rule stops.

The red-team case (tests/p2p/test_redteam_votes.py::test_an_unsolicited_catch_up_with_a_second_
version_does_not_veto_the_game) covers the sender's own slot with no fork in sight: proven, voted
out, the game goes on. Here: the two cases where another seat may have applied the other version
(a real fork, §C3.4 'Digest dispute'). They halted every peer with Equivocation; now (§C3.4 'Two
versions applied') the peer converges on ``kept_version``'s pick: it keeps its version and
proves the seat, or halts with ``StepOverturned(k, seat, chosen, ours)`` to roll back (the
whole convergence: tests/p2p/test_decision_equivocation.py). In memory, virtual clock, fake
engine.
"""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.bodies import CatchupResponse, StepBody
from p2p.gamelog import KIND_STEP
from p2p.lockstep import HALTED, CheaterProven, Equivocation, StepOverturned
from p2p.step_collect import kept_version
from p2p.wire import MSG_CATCHUP_RESP, MSG_STEP, decode_step_body, open_envelope, pack, seal_message

from p2p_harness import Net, random_legal
from test_resilience import logged_game

DROP3 = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}
CHEAT = 3  # signs a second version of its step-k message


def _push_run(tmp_path, sender: int, before=None, seed: int = 1):
    """4 seats, seat loss on. Once seat 0 applied step k = 11 (its step is 12), seat ``sender``
    signs a CATCHUP_RESP whose record of step k holds seat 3's real messages but a second,
    validly signed version of seat 3's (same history, another input) and gives it to seat 0
    only; ``before(net)`` runs just before. Returns (net, k, the second version)."""
    sessions, _, _, _ = logged_game(tmp_path, 4, DROP3)
    st: dict = {}

    def hook(net: Net) -> None:
        s0 = net.s[0]
        if st or s0.step < 12:
            return None
        k = s0.step - 1
        raws = [None if h is None else h.env.raw for h in s0.steps.slots(k)]
        ours = raws[CHEAT]
        mine = decode_step_body(open_envelope(raws[CHEAT], C.MAX_STEP_MSG).body)
        raws[CHEAT] = seal_message(sessions[CHEAT].identity, MSG_STEP,
                                   mine._replace(input=None if mine.input is not None else [0]))
        resp = seal_message(sessions[sender].identity, MSG_CATCHUP_RESP,
                            CatchupResponse(s0.game_id, sender, k, k + 1, ((KIND_STEP, pack([k, raws])),), (), ()))
        if before is not None:
            before(net)
        s0.receive_message(resp, net.now)
        st.update(k=k, second=raws[CHEAT], ours=ours)
        if s0.phase != "running":
            net.s[1:] = [None] * 3  # the others would stall without seat 0: end the run here
        return None
    net = Net(list(sessions), random_legal(E, seed=seed))
    net.run(max_time=1e4, hook=hook)
    assert st
    return net, st["k"], st["second"], st["ours"]


def _converged(net: Net, k: int, second: bytes, ours: bytes) -> None:
    """Seat 0 never halts with Equivocation: if ``kept_version`` keeps the second version it
    halts with StepOverturned(k, 3, second, ours) (the node restarts it and hands it both);
    else it proves seat 3 at step k and plays on."""
    assert not any(isinstance(e, Equivocation) for e in net.events[0]), net.describe()
    b2, b1 = (open_envelope(r, C.MAX_STEP_MSG).body for r in (second, ours))
    if kept_version(b1, b2) == b2:
        assert net.s[0].phase == HALTED and net.s[0].halt_reason == StepOverturned(k, CHEAT, second, ours)
    else:
        assert net.s[0].phase != HALTED, net.describe()
        assert [(e.step, e.seat) for e in net.events[0] if isinstance(e, CheaterProven)] == [(k, CHEAT)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_second_version_in_another_seats_record_converges(tmp_path, seed):
    """Seat 2's record holds seat 3's second version: it says seat 2 APPLIED it (the record is
    what its holder applied), so our states may have forked: seat 0 converges on the kept
    version (§C3.4 'Two versions applied') instead of halting."""
    net, k, second, ours = _push_run(tmp_path, sender=2, seed=seed)
    _converged(net, k, second, ours)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_second_version_in_its_own_record_converges_when_a_fork_is_in_sight(tmp_path, seed):
    """Seat 3's own record, but seat 0 already holds a step-(k+1) message of seat 1 signed over
    another digest of step k (a digest dispute is open): someone may have applied the other
    version, so it is not seat 3's word alone: seat 0 converges on the kept version (§C3.4)."""
    def forged_digest(net: Net) -> None:
        s0 = net.s[0]
        other = StepBody(s0.game_id, s0.step, 1, s0.state_hash, b"\x5a" * 32, None)
        s0.receive_message(seal_message(net.s[1].identity, MSG_STEP, other), net.now)
        assert s0.disputes.open is not None
    net, k, second, ours = _push_run(tmp_path, sender=CHEAT, before=forged_digest, seed=seed)
    _converged(net, k, second, ours)

