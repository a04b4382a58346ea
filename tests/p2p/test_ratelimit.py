"""p2p/ratelimit.TokenBucket: the rate limit of join-code probes (protocol.md §N3.1) and of
the keys strangers' introductions make us derive (§N2.2)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from p2p.ratelimit import TokenBucket


def test_burst_then_the_rate():
    b = TokenBucket(3, 2.0, now=0.0)
    assert [b.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert not b.take(0.4)  # 0.8 of a token
    assert b.take(0.5)  # one token after 0.5 s at 2/s
    assert not b.take(0.5)
    assert [b.take(100.0) for _ in range(4)] == [True, True, True, False]  # never more than the burst


def test_without_a_start_time_the_refill_starts_at_the_first_take():
    b = TokenBucket(1, 1.0)
    assert b.take(50.0) and not b.take(50.5) and b.take(51.0)


@given(st.lists(st.floats(0, 10), max_size=60), st.integers(1, 8), st.floats(0.1, 20))
def test_never_more_takes_than_burst_plus_rate_times_elapsed(gaps, burst, rate):
    b = TokenBucket(burst, rate, now=0.0)
    now, taken = 0.0, 0
    for g in gaps:
        now += g
        taken += b.take(now)
    assert taken <= burst + rate * now + 1e-9
