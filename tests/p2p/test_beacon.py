"""Hash chains, seed commit-reveal and the beacon formula (DESIGN.md §3, protocol.md §C4)."""

from __future__ import annotations

import hashlib

import pytest

from p2p import const as C
from p2p.beacon import (ChainExhausted, HashChain, beacon, check_reveal, derive_secret, game_seed,
                        seed_commitment)


def sha(b: bytes) -> bytes:
    return hashlib.sha256(b).digest()


def test_chain_matches_naive_definition_and_reveals_backwards():
    secret = derive_secret(b"demo", b"chain", b"g" * 16)
    n = 600  # spans several checkpoints and a partial last segment
    naive = [secret]
    for _ in range(n):
        naive.append(sha(naive[-1]))
    ch = HashChain(secret, n)
    assert ch.head == naive[n]
    prev = ch.head
    for j in range(1, n + 1):
        r = ch.next_reveal()
        assert r == naive[n - j]
        assert check_reveal(r, prev)
        prev = r
    with pytest.raises(ChainExhausted):
        ch.next_reveal()


def test_chain_memory_is_checkpointed():
    ch = HashChain(b"\x01" * 32, C.CHAIN_LENGTH)
    assert len(ch._checkpoints) == C.CHAIN_LENGTH // C.CHAIN_CHECKPOINT
    ch.next_reveal()
    assert len(ch._segment) <= C.CHAIN_CHECKPOINT


def test_seed_and_beacon_formulas():
    r = [b"\x01" * 32, b"\x02" * 32]
    assert seed_commitment(r[0]) == sha(r[0])
    s = game_seed(r)
    assert s == sha(r[0] + r[1])
    assert beacon(s, 7, r) == sha(b"beacon" + s + (7).to_bytes(8, "big") + r[0] + r[1])
    assert beacon(s, 7, r) != beacon(s, 8, r)


def test_demo_secrets_depend_on_seed_purpose_and_game():
    a = derive_secret(b"d", b"chain", b"g" * 16)
    assert a == derive_secret(b"d", b"chain", b"g" * 16)
    assert a != derive_secret(b"d", b"seed", b"g" * 16)
    assert a != derive_secret(b"d", b"chain", b"h" * 16)
