"""p2p/liveness.py: the step timers (protocol.md §C3.2 resend back-off, §C8.3 ALIVE, drop
timeout and turn time, §9 stall report)."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from p2p import const as C
from p2p.liveness import Liveness


def test_resend_backs_off_exponentially_up_to_the_maximum() -> None:
    """§C3.2: a stuck step's message is re-sent after RESEND_INTERVAL, then twice as late each
    time, never more than RESEND_MAX_INTERVAL apart."""
    live = Liveness(None)
    live.begin(10.0)
    assert not live.resend_due(1e9)  # nothing armed at a step's start
    live.arm_resend(10.0)
    assert not live.resend_due(10.0 + C.RESEND_INTERVAL / 2)
    now, gaps = 10.0 + C.RESEND_INTERVAL, []
    for _ in range(12):
        assert live.resend_due(now)
        gaps.append(live.resend_at - now)
        now = live.resend_at
    expect = [min(C.RESEND_INTERVAL * 2 ** (i + 1), C.RESEND_MAX_INTERVAL) for i in range(12)]
    assert gaps == pytest.approx(expect)
    live.stop_resend()
    assert live.resend_at is None and not live.resend_due(now + 1e6)


def test_a_new_step_resets_the_back_off_and_what_we_heard() -> None:
    live = Liveness(1.0)
    live.arm_resend(0.0)
    live.resend_due(C.RESEND_INTERVAL)
    live.heard(2, 5.0)
    live.begin(7.0)
    assert live.step_started == 7.0 and live.resend_at is None
    assert live.last_heard(2) == 7.0
    live.arm_resend(7.0)
    assert live.resend_at == 7.0 + C.RESEND_INTERVAL


def test_restart_arms_a_resend_at_once() -> None:
    """§C10: after a resume the current step's message goes out again RESEND_INTERVAL later."""
    live = Liveness(2.0)
    live.restart(100.0)
    assert live.step_started == 100.0
    assert live.resend_at == 100.0 + C.RESEND_INTERVAL
    assert live.alive_at == 102.0


def test_alive_only_with_seat_loss_and_at_the_keepalive_interval() -> None:
    """§C8.3: ALIVE every keep-alive interval while seat loss is on; never when it is off."""
    off = Liveness(None)
    off.begin(0.0)
    assert off.alive_at is None and not off.alive_due(1e9)
    on = Liveness(1.5)
    on.begin(0.0)
    assert not on.alive_due(1.0)
    assert on.alive_due(1.5) and on.alive_at == 3.0
    assert not on.alive_due(2.9)


@given(st.floats(0, 1e6), st.floats(0, 100), st.floats(0.1, 100), st.floats(0, 100))
def test_vote_time_is_the_drop_timeout_after_last_heard_capped_by_the_turn_time(
        start: float, heard_after: float, drop_timeout: float, turn_time: float) -> None:
    """§C8.3: a seat is voted out drop_timeout s after we last heard from it (the step's start
    if never), and at the latest turn_time s after the step's start (0 = unlimited)."""
    live = Liveness(None)
    live.begin(start)
    assert live.vote_time(1, drop_timeout, 0.0) == start + drop_timeout
    live.heard(1, start + heard_after)
    expect = start + heard_after + drop_timeout
    assert live.vote_time(1, drop_timeout, 0.0) == expect
    if turn_time:
        assert live.vote_time(1, drop_timeout, turn_time) == min(expect, start + turn_time)
    else:
        assert live.vote_time(1, drop_timeout, turn_time) == expect
    assert live.vote_time(2, drop_timeout, 0.0) == start + drop_timeout  # other seats unaffected


def test_stall_report_names_only_seats_silent_for_the_stall_timeout() -> None:
    """§9: every STALL_TIMEOUT s the session reports the awaited seats silent that long."""
    live = Liveness(None)
    live.begin(0.0)
    assert live.stalled(C.STALL_TIMEOUT / 2, [1, 2]) is None
    live.heard(2, C.STALL_TIMEOUT / 2)
    now = C.STALL_TIMEOUT
    assert live.stalled(now, [1, 2]) == ((1,), now)
    assert live.stall_at == now + C.STALL_TIMEOUT
    assert live.stalled(now + 1, [1, 2]) is None  # not due again yet
    live.heard(1, now + 1)
    assert live.stalled(live.stall_at, [1]) is None  # heard since: not silent that long
