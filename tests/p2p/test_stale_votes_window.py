"""The window in which a quorum of DROP votes against our own seat at a step we applied still
makes us halt ``SeatLost`` (protocol.md §C8.3 'Stale votes'): while the step is at most
``KEEP_STEPS`` behind ours, some peer may still overturn it (``check_past_drop``), so we follow
the quorum as before (the open case of §C8.3 'Stale votes'); older, no peer can, and the quorum
(stale honest votes plus late ones of colluders, H94's break) is ignored. Scenario: ``test_redteam_s10_stale_votes.LateThenStale``
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
def test_a_quorum_against_our_seat_just_beyond_keep_steps_is_ignored(tmp_path, via):
    """The boundary: votes sent KEEP_STEPS + 1 steps after j (the first step at which j is
    older than our step - KEEP_STEPS) make no halt. (Within the window the attack still works:
    the open case, H94's strict xfails
    ``test_redteam_s10_stale_votes.py::test_late_votes_within_keep_steps_do_not_make_an_honest_seat_halt``;
    a real quorum within it halts as it must: ``test_quorum.py``.)"""
    sessions, _, _, _ = logged_game(tmp_path, 5, OPTS)
    atk = LateThenStale(sessions, via, later=C.KEEP_STEPS + 1)
    net = atk.net = Net(list(sessions), random_legal(E, seed=3), drop=atk)
    net.run(max_time=1e4, hook=atk.hook)
    assert atk.voted and atk.sent, net.describe()
    assert not [e for e in net.events[H] if isinstance(e, SeatLost)], net.describe()
    assert any(isinstance(e, GameOver) for e in net.events[H])
