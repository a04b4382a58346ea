"""Deterministic Shamir secret sharing of a 32-byte secret (protocol.md §C8.2).

Why hand-written: the escrow needs *deterministic* shares (a restarted peer re-creates the very
ESCROW bytes it signed, and anyone holding the secret can recompute every share to check a
dealer), and 32-byte secrets. pycryptodome's ``Crypto.Protocol.SecretSharing.Shamir`` draws
random coefficients and shares 16-byte secrets only. This is textbook Shamir (1979) over the
prime field GF(p), p = 2^521 - 1 (the Mersenne prime of NIST P-521), nothing more: polynomial
evaluation and Lagrange interpolation at 0 with Python integers.

* f(x) = s + a_1 x + ... + a_{t-1} x^{t-1} mod p, with s the secret as a 256-bit big-endian
  integer and a_j = SHA-512("lanopoli/1/escrow-coef\\0" || s || context || j as 1 byte) mod p
  (``context``: the caller's binding, here gid || epoch);
* the share of seat v is f(v + 1) (x = 0 would be the secret itself), encoded as
  ``SHARE_LEN`` = 66 bytes big-endian;
* any t shares give s back; fewer give nothing about s (information-theoretically, for random
  coefficients; here the coefficients are pseudo-random functions of s, which hides s as long
  as SHA-512 does).
"""

from __future__ import annotations

import hashlib
from typing import Mapping

from . import const as C

#: The field: the Mersenne prime 2^521 - 1.
P = (1 << 521) - 1
#: Bytes of one encoded share (ceil(521 / 8)).
SHARE_LEN = 66
_SECRET_LEN = 32


def _coefficients(secret: bytes, context: bytes, t: int) -> list[int]:
    coef = [int.from_bytes(secret, "big")]
    for j in range(1, t):
        h = hashlib.sha512(C.SIG_PREFIX + b"escrow-coef\x00" + secret + context + bytes((j,))).digest()
        coef.append(int.from_bytes(h, "big") % P)
    return coef


def split(secret: bytes, context: bytes, t: int, seats: list[int]) -> dict[int, bytes]:
    """Shares of ``secret`` (32 bytes) for ``seats`` with threshold ``t`` (1 <= t <=
    len(seats)): ``{seat: 66-byte share}``. Deterministic in (secret, context, t). Raises
    ``ValueError`` for a bad length or threshold."""
    if len(secret) != _SECRET_LEN or not 1 <= t <= len(seats) or len(set(seats)) != len(seats):
        raise ValueError("secret must be 32 bytes and 1 <= t <= number of distinct seats")
    coef = _coefficients(secret, context, t)
    out = {}
    for v in seats:
        x = v + 1
        y = 0
        for a in reversed(coef):  # Horner
            y = (y * x + a) % P
        out[v] = y.to_bytes(SHARE_LEN, "big")
    return out


def combine(shares: Mapping[int, bytes]) -> bytes | None:
    """The secret from ``{seat: share}`` (exactly the threshold's number of shares, distinct
    seats): Lagrange interpolation at 0. Returns None if a share is malformed or the result
    is not a 32-byte value (the shares were not made by ``split``)."""
    pts = []
    for v, sh in shares.items():
        if type(sh) is not bytes or len(sh) != SHARE_LEN:
            return None
        y = int.from_bytes(sh, "big")
        if y >= P:
            return None
        pts.append((v + 1, y))
    s = 0
    for i, (xi, yi) in enumerate(pts):
        num = den = 1
        for j, (xj, _) in enumerate(pts):
            if i != j:
                num = num * xj % P
                den = den * (xj - xi) % P
        s = (s + yi * num * pow(den, -1, P)) % P
    if s >> (8 * _SECRET_LEN):
        return None
    return s.to_bytes(_SECRET_LEN, "big")
