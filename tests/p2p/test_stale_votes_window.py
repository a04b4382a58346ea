"""The window in which a quorum of DROP votes against our own seat at a step we applied still
makes us halt ``SeatLost`` (protocol.md §C8.3 'Stale votes'): while the step is at most
``KEEP_STEPS`` behind ours, some peer may still overturn it (``check_past_drop``), so we follow
the quorum as before; older, no peer can, and the quorum (stale honest votes plus late ones of
colluders, H94's break) is ignored. Scenario: ``test_redteam_s10_stale_votes.LateThenStale``
(5 seats, two honest votes against seat 0 at step j that formed no quorum, two colluders' late
votes sent to seat 0 alone ``later`` steps after j)."""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.lockstep import GameOver, SeatLost

from p2p_harness import Net, random_legal
from test_redteam_s10_stale_votes import H, OPTS, LateThenStale
from test_resilience import logged_game


@pytest.mark.parametrize("via", ["votes", "record"])
@pytest.mark.parametrize("later,lost", [(2, True), (C.KEEP_STEPS + 1, False)])
def test_a_quorum_against_our_seat_counts_only_within_keep_steps(tmp_path, via, later, lost):
    sessions, _, _, _ = logged_game(tmp_path, 5, OPTS)
    atk = LateThenStale(sessions, via, later=later)
    net = atk.net = Net(list(sessions), random_legal(E, seed=3), drop=atk)
    net.run(max_time=1e4, hook=atk.hook)
    assert atk.voted and atk.sent, net.describe()
    halted = [e.step for e in net.events[H] if isinstance(e, SeatLost)]
    assert halted == ([atk.j] if lost else []), net.describe()
    if not lost:
        assert any(isinstance(e, GameOver) for e in net.events[H])
