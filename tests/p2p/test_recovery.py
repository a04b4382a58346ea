"""p2p/recovery.py: loss recovery of one channel (protocol.md §N2.4 lossy regime, §N2.5 RTO;
RFC 6298 §2 estimator, RFC 9002 §6.1.2 time threshold)."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from p2p import recovery as R
from p2p.recv_stream import MAX_ACK_DELAY


def test_initial_rto_before_any_sample_then_rfc6298_with_a_floor():
    rec = R.Recovery()
    assert rec.srtt is None and rec.rtos() == (R.INITIAL_RTO, R.INITIAL_RTO)
    assert rec.acked(0.010, prompt=False)
    assert rec.srtt == 0.010
    # RTO = srtt + max(G, 4 * rttvar) = 0.010 + 4 * 0.005, floored at MIN_RTO (delayed acks).
    assert rec.rtos()[0] == R.MIN_RTO
    rec.acked(0.200, prompt=False)
    srtt = 0.875 * 0.010 + 0.125 * 0.200
    rttvar = 0.75 * 0.005 + 0.25 * abs(0.010 - 0.200)
    assert rec.srtt == pytest.approx(srtt)
    assert rec.rtos()[0] == pytest.approx(min(srtt + 4 * rttvar, R.MAX_RTO))


def test_the_prompt_estimator_is_apart_and_floored_lower():
    """§N2.5: datagrams acknowledged at once have their own estimator (floor PROMPT_MIN_RTO)."""
    rec = R.Recovery()
    rec.acked(0.001, prompt=True)
    assert rec.srtt is None  # the delayed-ack estimator saw nothing
    delayed, prompt = rec.rtos()
    assert delayed == R.MIN_RTO  # no delayed sample, but the peer acks
    assert prompt == max(0.001 + max(R.CLOCK_GRANULARITY, 4 * 0.0005), R.PROMPT_MIN_RTO)


def test_negative_samples_change_nothing():
    rec = R.Recovery()
    assert not rec.acked(-0.001, prompt=False)
    assert rec.srtt is None and rec.time_thresholds() == (0.001, 0.001)


@given(st.integers(0, 40))
def test_backoff_doubles_per_timeout_up_to_max_rto_and_an_ack_ends_it(timeouts: int):
    rec = R.Recovery()
    for _ in range(timeouts):
        rec.on_timeout()
    delayed, prompt = rec.rtos()
    assert delayed == min(R.INITIAL_RTO * 2 ** min(timeouts, 16), R.MAX_RTO)
    assert prompt == delayed
    rec.acked(None, False)
    assert rec.rtos() == (R.MIN_RTO, R.INITIAL_RTO)


def test_time_threshold_is_nine_eighths_of_the_bare_round_trip():
    """§N2.5: prompt datagrams: 9/8 of the larger of their srtt and the latest sample; delayed-ack
    ones: 9/8 of the bare round trip (the prompt srtt, else the smallest sample): the peer's ack
    delay in their srtt says nothing about reordering on the path."""
    rec = R.Recovery()
    rec.acked(0.040, prompt=False)
    rec.acked(0.050, prompt=False)
    assert rec.time_thresholds()[0] == pytest.approx(R.TIME_THRESHOLD * 0.040)  # the smallest sample
    rec.acked(0.008, prompt=True)
    delayed, prompt = rec.time_thresholds()
    assert delayed == pytest.approx(R.TIME_THRESHOLD * 0.008)
    assert prompt == pytest.approx(R.TIME_THRESHOLD * 0.008)
    rec.acked(0.016, prompt=True)
    delayed, prompt = rec.time_thresholds()
    assert prompt == pytest.approx(R.TIME_THRESHOLD * 0.016)  # the latest sample is larger
    assert delayed == pytest.approx(R.TIME_THRESHOLD * (0.875 * 0.008 + 0.125 * 0.016))


def test_lossy_regime_needs_evidence_of_loss():
    """§N2.4: a lone timeout does not start it; a hole in a selective ack, or a second resend
    within LOSS_HOLD with an ack of something new in between, does, for LOSS_HOLD s."""
    rec = R.Recovery()
    rec.on_resend(10.0)
    assert rec.resent_until < 10.0
    rec.acked(None, prompt=False)  # the peer answers between the two resends
    rec.on_resend(10.0 + R.LOSS_HOLD / 2)
    assert rec.resent_until == 10.0 + R.LOSS_HOLD / 2 + R.LOSS_HOLD
    later = R.Recovery()
    later.found_lost()
    later.on_resend(50.0)
    assert later.resent_until == 50.0 + R.LOSS_HOLD
    later.on_resend(50.0 + 2 * R.LOSS_HOLD)  # a lone resend much later: the regime is not renewed
    assert later.resent_until == 50.0 + R.LOSS_HOLD


def test_copies_one_outside_the_lossy_regime_two_in_it():
    """§N2.4: copies of each data datagram: 1; 2 once a resend showed loss; 1 again for a silent
    peer (two RTOs in a row unanswered) and after LOSS_HOLD."""
    rec = R.Recovery()
    assert rec.copies(1.0) == 1
    rec.found_lost()
    rec.on_resend(1.0)  # a hole in a selective ack: the lossy regime
    assert rec.copies(1.0) == 2 and rec.copies(1.0 + R.LOSS_HOLD - 0.01) == 2
    assert rec.copies(1.0 + R.LOSS_HOLD) == 1
    rec.acked(None, prompt=True)
    rec.on_resend(1.2)  # a second resend within LOSS_HOLD, an ack between: the regime again
    rec.on_timeout()
    rec.on_timeout()  # the peer answered nothing for two RTOs: copies do not help
    assert rec.copies(1.2) == 1
    rec.acked(None, prompt=True)  # it answered: the back-off ends
    assert rec.copies(1.2) == 2


def test_the_lossy_regime_is_shared_with_the_endpoints_peers_that_answered():
    """§N2.4: a regime a hole started is every channel's (LossClock), but only for a peer that
    has acknowledged something (never for an address that never answered, a spoofed one); one
    that timeouts started is the channel's own."""
    clock = R.LossClock()
    lossy, answered, silent = R.Recovery(clock), R.Recovery(clock), R.Recovery(clock)
    answered.acked(0.001, prompt=False)
    lossy.found_lost()
    lossy.on_resend(3.0)
    assert lossy.copies(3.0) == answered.copies(3.0) == 2 and answered.lossy(3.0)
    assert silent.copies(3.0) == 1 and not silent.lossy(3.0)
    assert answered.copies(3.0 + R.LOSS_HOLD) == 1
    timed_out = R.Recovery(clock)
    timed_out.on_resend(9.0)
    timed_out.acked(0.002, prompt=False)
    timed_out.on_resend(9.1)  # two timeouts: its own regime, but no hole was shown
    assert timed_out.lossy(9.1) and not answered.lossy(9.1)  # late acks on a loaded machine do not spread


def test_before_a_sample_the_ack_delay_counts_once_the_peer_acknowledged_something():
    """§N2.5 (H80): no sample yet (Karn's rule dropped it: the datagram acknowledged had been
    resent), but the peer acknowledged something: it is there and may hold its next ack for
    MAX_ACK_DELAY, so a delayed-ack datagram waits MIN_RTO (the floor it has with a sample, above
    that delay); before any ack the RTO stays INITIAL_RTO (a lost first datagram is resent soon)."""
    rec = R.Recovery()
    assert rec.rtos() == (R.INITIAL_RTO, R.INITIAL_RTO)
    rec.on_timeout()
    rec.acked(None, prompt=False)  # the resent datagram's ack: no sample
    assert rec.srtt is None
    assert rec.rtos() == (R.MIN_RTO, R.INITIAL_RTO) and R.MIN_RTO > MAX_ACK_DELAY
    rec.acked(0.004, prompt=False)
    assert rec.rtos()[0] == R.MIN_RTO


def test_a_silent_peer_resent_twice_is_no_evidence_of_loss():
    """§N2.4 (H80): the same datagram resent at two RTOs in a row with nothing acknowledged in
    between is a peer busy elsewhere (a joiner by code rebuilding its demo hash chain before its
    first ack), not loss: no regime. Once it answers, a resend within LOSS_HOLD is evidence."""
    rec = R.Recovery()
    rec.on_resend(1.0)
    rec.on_timeout()
    rec.on_resend(1.1)
    rec.on_timeout()
    rec.on_resend(1.3)
    assert not rec.lossy(1.3) and rec.copies(1.3) == 1
    rec.acked(None, prompt=False)
    rec.on_resend(1.4)
    assert rec.lossy(1.4) and rec.resent_until == 1.4 + R.LOSS_HOLD
