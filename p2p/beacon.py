"""Randomness nobody controls (DESIGN.md §3; protocol.md §C4).

* **Hash chain** per seat: ``h_0 = secret``, ``h_i = SHA-256(h_{i-1})``, head ``h_n`` committed
  in the lobby (n = ``CHAIN_LENGTH`` = 65536). At the j-th chance step (j = 1, 2, ...) the seat
  reveals ``h_{n-j}``; everyone checks ``SHA-256(reveal) == `` the seat's previous reveal (the
  head for j = 1). After n chance steps the chain is exhausted and the game halts
  (``BeaconExhausted``); at one chance step per roll or card that is far beyond a game.
* **Seed**: each seat commits ``SHA-256(secret)`` in its Join and reveals ``secret`` once the
  setup is signed by all; ``game_seed = SHA-256(reveal_0 || reveal_1 || ...)`` in seat order.
* **Beacon** for step k: ``SHA-256(b"beacon" || game_seed || k as 8-byte big-endian ||
  reveal_0 || reveal_1 || ...)`` in seat order.

Secrets come from ``os.urandom``; ``derive_secret`` makes them from a demo seed instead, which
is for demos and tests only (whoever knows the seed knows every future die).
"""

from __future__ import annotations

import hashlib
import os
from typing import Sequence

from . import const as C

_sha256 = hashlib.sha256


def derive_secret(demo_seed: bytes, purpose: bytes, game_id: bytes) -> bytes:
    """32-byte secret for demos/tests: SHA-256(b"lanopoli/1/" + purpose + b"\\x00" + game_id +
    demo_seed). ``purpose`` is b"chain" or b"seed". NOT secret to anyone who knows the seed."""
    return _sha256(C.SIG_PREFIX + purpose + b"\x00" + game_id + demo_seed).digest()


def new_secret(demo_seed: bytes | None, purpose: bytes, game_id: bytes) -> bytes:
    """A fresh 32-byte secret from the OS, or ``derive_secret`` when a demo seed is given."""
    if demo_seed is None:
        return os.urandom(32)
    return derive_secret(demo_seed, purpose, game_id)


def seed_commitment(secret: bytes) -> bytes:
    """Commitment to a seed secret: SHA-256(secret), 32 bytes."""
    return _sha256(secret).digest()


def game_seed(reveals: Sequence[bytes]) -> bytes:
    """Game seed = SHA-256 of all seed reveals concatenated in seat order (32 bytes)."""
    return _sha256(b"".join(reveals)).digest()


def beacon(seed: bytes, step: int, reveals: Sequence[bytes]) -> bytes:
    """Beacon of chance step ``step``: SHA-256(b"beacon" || game_seed || step (8 bytes BE) ||
    reveals in seat order). 32 bytes, given to ``engine.apply_chance``."""
    h = _sha256(C.BEACON_PREFIX)
    h.update(seed)
    h.update(step.to_bytes(8, "big"))
    for r in reveals:
        h.update(r)
    return h.digest()


def check_reveal(reveal: bytes, previous: bytes) -> bool:
    """True if ``reveal`` is the pre-image of ``previous`` (the seat's last reveal or head)."""
    return _sha256(reveal).digest() == previous


class ChainExhausted(Exception):
    """All n reveals of a hash chain have been used."""


class HashChain:
    """A seat's own hash chain, stored with checkpoints so memory stays small.

    ``HashChain(secret, length)`` computes h_0..h_n once (n SHA-256 calls, ~30 ms for 65536),
    keeping h_i for i a multiple of ``CHAIN_CHECKPOINT`` (256) and the head. ``next_reveal()``
    returns h_{n-1}, h_{n-2}, ..., h_0 in turn; the segment below the current checkpoint is
    recomputed from it (256 hashes, amortised one hash per reveal). Memory: (n/256 + 256)
    hashes, ~16 KiB for n = 65536.
    """

    __slots__ = ("length", "head", "_checkpoints", "_segment", "_segment_base", "used")

    def __init__(self, secret: bytes, length: int = C.CHAIN_LENGTH) -> None:
        if len(secret) != 32 or length < 1:
            raise ValueError("secret must be 32 bytes and length >= 1")
        self.length = length
        cps = []
        h = secret
        for i in range(length):
            if i % C.CHAIN_CHECKPOINT == 0:
                cps.append(h)
            h = _sha256(h).digest()
        self.head: bytes = h  # h_n
        self._checkpoints = cps
        self._segment: list[bytes] = []
        self._segment_base = -1
        #: Number of reveals handed out so far (j of the last reveal).
        self.used = 0

    def value(self, i: int) -> bytes:
        """h_i for 0 <= i <= n. Raises ``IndexError`` outside that range."""
        if i == self.length:
            return self.head
        if not 0 <= i < self.length:
            raise IndexError(i)
        base = i - i % C.CHAIN_CHECKPOINT
        if base != self._segment_base:
            h = self._checkpoints[base // C.CHAIN_CHECKPOINT]
            seg = [h]
            for _ in range(min(C.CHAIN_CHECKPOINT, self.length - base) - 1):
                h = _sha256(h).digest()
                seg.append(h)
            self._segment, self._segment_base = seg, base
        return self._segment[i - base]

    def next_reveal(self) -> bytes:
        """The reveal for the next chance step: h_{n-j} for j = used + 1. Raises
        ``ChainExhausted`` after n reveals."""
        j = self.used + 1
        if j > self.length:
            raise ChainExhausted(f"hash chain of length {self.length} exhausted")
        r = self.value(self.length - j)
        self.used = j
        return r

    def reveal_at(self, j: int) -> bytes:
        """The j-th reveal (1-based) without consuming it: h_{n-j} (for re-sends)."""
        return self.value(self.length - j)
