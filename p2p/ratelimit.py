"""A token bucket: the one rate limit of what strangers can make us do (answer a join-code
PROBE, derive the keys of a transport introduction; protocol.md §N2.2, §N3.1).

``burst`` tokens to start with, ``per_s`` more every second up to ``burst``; each allowed act
takes one (an act that needs several buckets asks each ``ready`` first, then ``take``s from
all). Times are seconds of the caller's clock (sans-I/O); nothing is clamped, so the caller's
clock must not go back.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

__all__ = ["TokenBucket", "bucket_in"]


class TokenBucket:
    """``take(now)`` is True (a token taken) or False (empty: the act is refused).

    ``now`` given at construction starts the refill clock there; None starts it at the first
    ``take`` (no refill before it)."""

    __slots__ = ("burst", "per_s", "tokens", "at")

    def __init__(self, burst: float, per_s: float, now: float | None = None) -> None:
        self.burst = float(burst)
        self.per_s = per_s
        self.tokens = float(burst)
        self.at = now

    def ready(self, now: float) -> bool:
        """Refill up to ``now``; True if a token is there (none taken: ``take`` takes it)."""
        if self.at is not None:
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_s)
        self.at = now
        return self.tokens >= 1.0

    def take(self, now: float) -> bool:
        """Refill up to ``now``, then take a token if there is one."""
        if not self.ready(now):
            return False
        self.tokens -= 1.0
        return True


def bucket_in(table: OrderedDict, key: Any, burst: float, per_s: float, now: float, limit: int) -> TokenBucket:
    """``key``'s bucket in ``table`` (least recently used first): made full at ``now`` on first use,
    the most recent after each use; of more than ``limit`` keys the least recently used is
    forgotten, so a stranger cycling keys (sources) holds at most ``limit`` buckets."""
    bucket = table.get(key)
    if bucket is None:
        bucket = table[key] = TokenBucket(burst, per_s, now)
        if len(table) > limit:
            table.popitem(last=False)
    else:
        table.move_to_end(key)
    return bucket
