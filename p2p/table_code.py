"""The table code: eight characters every seat of one game shows, to compare out loud
(protocol.md §C2.4).

Names are what each player typed and the lobby cannot check them: a hostile host can run two
lobbies under one game id and seat each honest player at its own table with a key of the host's
wearing the other player's name (H156 BREAK #3). Every message each player checks is then
genuine. What differs is the setup and the seeds behind it, so every seat derives one short
code from them and the screens show it. Players in one room read it to each other, as they may
read the host's fingerprint (§C11.1): a player who sees another code is at another table.

    table_code = the first 5 bytes of SHA-256(b"lanopoli/1/table-code\\x00" + setup_hash + game_seed)
                 as 8 characters of Crockford's base32 (40 bits, as the join code, §N3.1): "XXXX-XXXX"

The game seed is the hash of every seat's revealed seed (§C4). Each seat committed to its seed
in the setup before any seed was revealed, so nobody can choose the code, not even a host that
holds every other seat: an honest seat's seed makes it uniform. A host that wants two tables to
show one code has one chance in 2^40 per lobby round. Pure function, no state.
"""

from __future__ import annotations

import hashlib

from . import const as C
from .join_code import crockford

__all__ = ["DOMAIN", "table_code"]

DOMAIN = b"lanopoli/1/table-code\x00"
"""Domain prefix of the hashed bytes (§C2.4)."""


def table_code(setup_hash: bytes, game_seed: bytes) -> str:
    """The table code of a game (protocol.md §C2.4): ``setup_hash`` (32 bytes, §C2.3) and
    ``game_seed`` (32 bytes, §C4) -> ``"XXXX-XXXX"``, 8 characters of Crockford's base32
    (0-9 and A-Z without I, L, O, U: nothing to mishear when read aloud) around a hyphen, 40 bits.
    Raises ``ValueError`` if either argument is not 32 bytes."""
    if len(setup_hash) != C.HASH_LEN or len(game_seed) != C.HASH_LEN:
        raise ValueError("table_code needs a 32-byte setup hash and a 32-byte game seed")
    digest = hashlib.sha256(DOMAIN + bytes(setup_hash) + bytes(game_seed)).digest()
    code = crockford(int.from_bytes(digest[:5], "big"), 8)
    return f"{code[:4]}-{code[4:]}"
