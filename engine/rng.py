"""Deterministic randomness from a beacon: the PRNG every peer must implement bit for bit.

Wire contract (protocol.md part E, "PRNG"):

* The lockstep layer gives one 32-byte ``beacon`` per chance step (DESIGN.md §3).
* Block ``i`` (i = 0, 1, 2, ...) of the stream is ``SHA-256(beacon || i.to_bytes(8, "big"))``;
  the stream is the concatenation of the blocks, consumed one byte at a time from block 0.
* ``below(n)`` draws a uniform int in ``[0, n)`` for ``1 <= n <= 2**32``: take ``k`` bytes (the
  fewest with ``256**k >= n``) as a big-endian integer ``v``; if
  ``v >= 256**k - (256**k % n)`` reject it and take the next ``k`` bytes, else return ``v % n``.
  ``below(1)`` consumes nothing and returns 0.
* A die is ``below(6) + 1``; two dice are drawn first die first.

Never ``random``: its algorithms are not a wire contract.
"""
from __future__ import annotations

from hashlib import sha256

__all__ = ["BeaconRng"]


class BeaconRng:
    """Uniform integers drawn from SHA-256(beacon || counter) blocks (see module docstring).

    ``beacon``: bytes (any length; the lockstep layer uses 32). Raises ValueError on an empty
    beacon or a bound outside ``1..2**32``.
    """

    __slots__ = ("_beacon", "_counter", "_buf", "_pos")

    def __init__(self, beacon: bytes) -> None:
        if not isinstance(beacon, (bytes, bytearray)) or not beacon:
            raise ValueError("beacon must be non-empty bytes")
        self._beacon = bytes(beacon)
        self._counter = 0
        self._buf = b""
        self._pos = 0

    def _byte(self) -> int:
        if self._pos >= len(self._buf):
            self._buf = sha256(self._beacon + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._pos = 0
        b = self._buf[self._pos]
        self._pos += 1
        return b

    def below(self, n: int) -> int:
        """Uniform int in ``[0, n)`` by rejection sampling (module docstring)."""
        if not 1 <= n <= 1 << 32:
            raise ValueError(f"bound out of range: {n}")
        if n == 1:
            return 0
        k = 1
        while 256**k < n:
            k += 1
        span = 256**k
        limit = span - span % n
        while True:
            v = 0
            for _ in range(k):
                v = (v << 8) | self._byte()
            if v < limit:
                return v % n

    def die(self) -> int:
        """One six-sided die, 1..6: ``below(6) + 1`` (one byte, rejected if >= 252)."""
        while True:
            if self._pos >= len(self._buf):
                self._byte()
                self._pos -= 1
            b = self._buf[self._pos]
            self._pos += 1
            if b < 252:
                return b % 6 + 1
