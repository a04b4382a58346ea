"""engine/rng.py: the PRNG wire contract (protocol.md part E "PRNG")."""
from hashlib import sha256

import pytest

from engine.rng import BeaconRng


def test_block_and_byte_order_follow_the_contract():
    """Block i = SHA-256(beacon || i as 8 big-endian bytes); one byte per below(256)."""
    beacon = bytes(range(32))
    r = BeaconRng(beacon)
    got = bytes(r.below(256) for _ in range(40))
    want = (sha256(beacon + (0).to_bytes(8, "big")).digest()
            + sha256(beacon + (1).to_bytes(8, "big")).digest())[:40]
    assert got == want


def test_rejection_sampling_for_dice():
    """Bytes >= 252 are rejected for a die; others give b % 6 + 1."""
    for i in range(200):
        beacon = i.to_bytes(4, "big")
        stream = sha256(beacon + bytes(8)).digest()
        accepted = [b for b in stream if b < 252]
        r = BeaconRng(beacon)
        assert r.die() == accepted[0] % 6 + 1
        assert BeaconRng(beacon).below(6) + 1 == accepted[0] % 6 + 1


def test_multi_byte_bound_is_uniform_range():
    r = BeaconRng(b"k" * 32)
    vals = [r.below(1000) for _ in range(2000)]
    assert min(vals) >= 0 and max(vals) < 1000 and len(set(vals)) > 800


def test_bad_input_raises():
    with pytest.raises(ValueError):
        BeaconRng(b"")
    with pytest.raises(ValueError):
        BeaconRng(b"x").below(0)
