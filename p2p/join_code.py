"""Join code: joining a game by a short code when multicast is blocked (protocol.md §N3.1).

The host shows ``ADDRESS:PORT/XXXXX-XXXXX``: where its lobby listens and a 50-bit tag of its
game id and signing key in Crockford base32; the joiner sends its JOIN there and accepts the
host's signed STATUS/REJECT only if the game id and key in it give that tag
(``admission``, ``lobby``). No zeroconf here: a node that joins by code never needs it.
"""

from __future__ import annotations

import hashlib

#: Crockford's base32 alphabet: no I, L, O, U, so a code read out loud is not misheard.
_B32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_B32_READ = {c: i for i, c in enumerate(_B32)} | {"O": 0, "I": 1, "L": 1}
#: Bits of the join-code tag (10 base32 characters).
CODE_BITS = 50


def join_code_tag(game_id: bytes, host_pk: bytes) -> int:
    """The 50-bit tag of a join code: the first 50 bits of
    SHA-256(b"lanopoli/1/join-code\0" ‖ game id (16 B) ‖ host Ed25519 key (32 B)), as an int.
    A joiner by code accepts the host's signed STATUS/REJECT only if its game id and key give
    this tag (protocol.md §N3.1)."""
    h = hashlib.sha256(b"lanopoli/1/join-code\x00" + bytes(game_id) + bytes(host_pk)).digest()
    return int.from_bytes(h[:8], "big") >> (64 - CODE_BITS)


def crockford(value: int, chars: int) -> str:
    """The low ``5 * chars`` bits of ``value`` (a non-negative int) as ``chars`` characters of
    Crockford's base32, most significant first (the join code's tag, §N3.1; the table code, §C2.4)."""
    return "".join(_B32[(value >> (5 * i)) & 31] for i in reversed(range(chars)))


def format_code(address: str, port: int, tag: int) -> str:
    """``ADDRESS:PORT/XXXXX-XXXXX``: the tag in Crockford base32, two groups of five."""
    chars = crockford(tag, CODE_BITS // 5)
    return f"{address}:{port}/{chars[:5]}-{chars[5:]}"


def join_code(address: str, port: int, game_id: bytes, host_pk: bytes) -> str:
    """The join code a host shows: ``format_code(address, port, join_code_tag(game_id, host_pk))``
    (``game_id``: 16 bytes; ``host_pk``: the host's Ed25519 key, 32 bytes; protocol.md §N3.1)."""
    return format_code(address, port, join_code_tag(game_id, host_pk))


def parse_code_tag(text: str) -> int:
    """Inverse of the tag part of ``format_code``: 10 Crockford base32 characters, any case,
    dashes and spaces ignored, O read as 0 and I/L as 1. Raises ValueError otherwise."""
    chars = [c for c in text.upper() if c not in "- "]
    if len(chars) != CODE_BITS // 5 or any(c not in _B32_READ for c in chars):
        raise ValueError("the code after the slash has 10 letters and digits")
    tag = 0
    for c in chars:
        tag = tag << 5 | _B32_READ[c]
    return tag
