"""tests/vectors/forced.json (protocol.md §C3.8, version 4) still holds: recomputed from the
reference code (tests/vectors/make_vectors.py) and, independently, from the text of §C3.8, §C3.1,
§C4, §C1 and §C2 with hashlib, a hand-written msgpack encoder and cryptography's Ed25519 alone.
(Split from tests/test_vectors.py, which keeps the other vectors.)"""

from __future__ import annotations

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from test_vectors import M, load, sha


def _mp_uint(n: int) -> bytes:
    """Canonical msgpack of a non-negative int (§C1: the shortest form), written out."""
    if n < 0x80:
        return bytes((n,))
    for tag, width in ((0xCC, 1), (0xCD, 2), (0xCE, 4), (0xCF, 8)):
        if n < 256 ** width:
            return bytes((tag,)) + n.to_bytes(width, "big")
    raise ValueError(n)


def _mp_bin(b: bytes) -> bytes:
    assert len(b) < 256
    return bytes((0xC4, len(b))) + b


def _spec_forced_body(gid: bytes, step: int, seat: int, ph: bytes, pd: bytes, reveal: bytes) -> bytes:
    """§C3.8: the 6-field STEP body of §C3.1 (fixarray 0x96), every field in its shortest form."""
    return b"\x96" + _mp_bin(gid) + _mp_uint(step) + _mp_uint(seat) + _mp_bin(ph) + _mp_bin(pd) + _mp_bin(reveal)


def _spec_is_forced(body: bytes, gid: bytes, step: int, seat: int, ph: bytes, pd: bytes, previous: bytes) -> bool:
    """§C3.8 from the text: the bytes are exactly the forced body of (gid, step, seat) over our
    history (ph, pd) with a reveal whose SHA-256 is the seat's previous reveal. Any other byte —
    another field, another history, a wrong link, a longer encoding — and it is not forced."""
    import msgpack

    try:
        obj = msgpack.unpackb(body)
    except Exception:
        return False
    if type(obj) is not list or len(obj) != 6 or type(obj[5]) is not bytes or len(obj[5]) != 32:
        return False
    return sha(obj[5]) == previous and body == _spec_forced_body(gid, step, seat, ph, pd, obj[5])


def test_forced_vectors_match_the_code():
    assert M.compute_forced() == load("forced.json")


def test_forced_vectors_match_the_spec_text():
    """protocol.md §C3.8 with hashlib, a hand-written msgpack encoder and ``cryptography``: the
    chain (§C4), each forced body byte for byte, its envelope (§C1: [16, body, signature]) with
    the Ed25519 signature over ``lanopoli/1/step\\0`` + body (§C2) — and the same envelope with
    a zero signature, which the rule accepts all the same —, and every verdict, forced or not."""
    v = load("forced.json")
    gid, ph, pd, seat = bytes.fromhex(v["game_id"]), bytes.fromhex(v["prev_hash"]), bytes.fromhex(v["prev_digest"]), v["seat"]
    assert gid == sha(b"lanopoli/1/game-id\x00", v["demo_seed"].encode())[:16]
    chain = [bytes.fromhex(v["secret"])]
    for _ in range(v["chain_length"]):
        chain.append(sha(chain[-1]))
    assert v["chain_head"] == chain[-1].hex()
    sk = Ed25519PrivateKey.from_private_bytes(sha(b"lanopoli/1/ed25519\x00", v["demo_seed"].encode()))
    pk = sk.public_key()
    assert v["public_key"] == pk.public_bytes_raw().hex()
    n = v["chain_length"]
    for c in v["forced"]:
        reveal, previous = chain[n - c["j"]], chain[n - c["j"] + 1]
        assert (c["reveal"], c["previous_reveal"]) == (reveal.hex(), previous.hex())
        body = _spec_forced_body(gid, c["step"], seat, ph, pd, reveal)
        assert c["body"] == body.hex() and c["forced"] and c["decodes"]
        assert _spec_is_forced(body, gid, c["step"], seat, ph, pd, previous)
        signed = b"lanopoli/1/step\x00" + body
        assert c["signature"] == sk.sign(signed).hex()
        head = b"\x93\x10" + bytes((0xC4, len(body))) + body + b"\xc4\x40"
        assert c["envelope"] == (head + sk.sign(signed)).hex()
        assert c["envelope_zero_signature"] == (head + bytes(64)).hex()
        with pytest.raises(InvalidSignature):  # not a valid signature, and still accepted (§C3.8)
            pk.verify(bytes(64), signed)
    nf = v["not_forced"]
    step, previous = nf["step"], bytes.fromhex(nf["previous_reveal"])
    assert previous == chain[n - 2]
    assert len(nf["cases"]) >= 5
    for c in nf["cases"]:
        assert not c["forced"]
        assert not _spec_is_forced(bytes.fromhex(c["body"]), gid, step, seat, ph, pd, previous), c["name"]
