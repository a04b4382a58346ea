"""Stale DROP votes (protocol.md §C8.3 'Stale votes', H106): a hypothesis property over the
honest voters, the colluders and the timing of H94's attack, checking what the rule kept
promises and nothing more.

Scenario (``test_redteam_s10_stale_votes.LateThenStale``, 5 seats, Q = 3, H = seat 0): two
honest seats miss H's step-j message for a drop timeout and vote DROP(j, H); the other two
seats hold it, do not vote and reach the voters only with their own STEP messages until both
voted, so no quorum forms and every seat applies j with H's message (the voters on their
certificate, §C8.3 'A voter's promise'). ``later`` steps after j, the colluders (one or both of
the two other seats) sign DROP(j, H) and send them, as votes or as a DROP record with the honest
voters' stale votes, to one seat. One colluder is enough: its vote and the two stale honest
votes are Q.

The rule kept (any Q valid votes of (j, H) from seats other than H; ``SeatLoss.own_drop_counts``):
* safe: the honest peers other than H never fork: every one of them ends the game, with one
  final hash (a peer that the record overturns restarts from its log and catches up);
* beyond ``KEEP_STEPS`` (``later`` > ``KEEP_STEPS``): nobody acts on the quorum, H finishes
  with the others, with the same final hash;
* within ``KEEP_STEPS`` (the open case): H may halt ``SeatLost(j)`` (then the others vote it
  out as silent) and an honest peer the record reaches may restart; never more.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p.lockstep import GameOver, SeatLost, StepOverturned
from p2p.seat_loss import SeatLoss

from test_redteam_s10_stale_votes import H, LateThenStale, run_restarting

OTHERS = (1, 2, 3, 4)


@st.composite
def attacks(draw):
    """(honest voters, colluders, later, via, to): two honest voters among seats 1-4, one or
    both of the two others colluding, the late votes sent 1 to KEEP_STEPS + 2 steps after j, as
    votes (to H: only a vote against one's own seat is kept once its step is applied) or as a
    DROP record (to H or to any honest seat)."""
    honest = tuple(sorted(draw(st.sets(st.sampled_from(OTHERS), min_size=2, max_size=2))))
    rest = [i for i in OTHERS if i not in honest]
    colluders = tuple(sorted(draw(st.sets(st.sampled_from(rest), min_size=1, max_size=2))))
    later = draw(st.integers(1, C.KEEP_STEPS + 2))
    via = draw(st.sampled_from(["votes", "record"]))
    to = H if via == "votes" else draw(st.sampled_from([H] + [i for i in OTHERS if i not in colluders]))
    return honest, colluders, later, via, to


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(attacks())
def test_stale_votes_never_fork_the_honest_peers(tmp_path_factory, attack):
    """§C8.3 'Stale votes' (module docstring): whatever the voters, colluders and timing, the
    honest peers other than H finish with one final hash; beyond KEEP_STEPS, H too; within it,
    H at worst halts ``SeatLost(j)`` and an honest peer at worst restarts."""
    honest, colluders, later, via, to = attack
    atk, net, restarts = run_restarting(
        tmp_path_factory.mktemp("stale"),
        lambda s: LateThenStale(s, via, to=to, later=later, honest=honest, colluders=colluders))
    assert atk.voted and atk.sent, (attack, net.describe())  # the premise: stale votes, late ones sent
    kept = [i for i in OTHERS if i not in colluders]
    finals = {i: [e.final_hash for e in net.events[i] if isinstance(e, GameOver)] for i in kept + [H]}
    assert all(len(finals[i]) == 1 for i in kept), (attack, restarts, net.describe())
    assert len({finals[i][0] for i in kept}) == 1, (attack, net.describe())
    lost = [e for e in net.events[H] if isinstance(e, SeatLost)]
    if not SeatLoss.own_drop_counts(atk.j, atk.j + later):
        # Beyond the window: nobody acts on the quorum (§C8.3), H finishes with the others.
        assert not lost and not restarts, (attack, restarts, net.describe())
        assert finals[H] == finals[kept[0]], (attack, net.describe())
    else:
        # The open case: at worst H halts SeatLost(j), the peer the record reached restarts.
        assert all(e.step == atk.j for e in lost)
        assert {r[0] for r in restarts} <= {to} | set(kept), (attack, restarts)
        assert all(isinstance(e, StepOverturned) and e.step == atk.j
                   for i in kept for e in net.events[i] if isinstance(e, StepOverturned))


def test_own_drop_counts_is_the_keep_steps_window():
    """``SeatLoss.own_drop_counts`` (§C8.3 'Stale votes'): a quorum against our seat at step k
    found at our step k + KEEP_STEPS still counts (some peer may keep k), at k + KEEP_STEPS + 1
    not (no active peer keeps k); the same boundary for votes and DROP records."""
    k = 17
    assert SeatLoss.own_drop_counts(k, k + 1)
    assert SeatLoss.own_drop_counts(k, k + C.KEEP_STEPS)
    assert not SeatLoss.own_drop_counts(k, k + C.KEEP_STEPS + 1)
