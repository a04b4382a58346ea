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


def test_ready_refills_and_takes_nothing():
    """``ready`` (an act needing several buckets asks each first, §N2.1 item 3): True while a token
    is there, none taken; the refill up to ``now`` is the same as ``take``'s."""
    b = TokenBucket(1, 2.0, now=0.0)
    assert b.ready(0.0) and b.ready(0.0) and b.take(0.0)
    assert not b.ready(0.25) and b.ready(0.5) and b.take(0.5) and not b.take(0.5)


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


def test_bucket_in_keeps_one_bucket_per_key_and_forgets_the_least_recently_used():
    """``bucket_in`` (the per-source budgets of §N2.1 item 3 and §N3.1): a key's bucket is made full
    once and kept (its tokens spent stay spent), at most ``limit`` keys, the least recently used
    forgotten first (a forgotten key starts full again)."""
    from collections import OrderedDict

    from p2p.ratelimit import bucket_in

    table: OrderedDict = OrderedDict()
    assert bucket_in(table, "a", 1, 0.0, 0.0, 2).take(0.0)
    assert not bucket_in(table, "a", 1, 0.0, 0.0, 2).take(0.0)  # the same bucket, empty
    bucket_in(table, "b", 1, 0.0, 0.0, 2)
    bucket_in(table, "a", 1, 0.0, 0.0, 2)  # a used again: b is now the least recent
    bucket_in(table, "c", 1, 0.0, 0.0, 2)
    assert list(table) == ["a", "c"] and not bucket_in(table, "a", 1, 0.0, 0.0, 2).take(0.0)
