"""The published test vectors (protocol.md "Test vectors", tests/vectors/) still hold.

Each vector is recomputed from the reference code (tests/vectors/make_vectors.py) and compared
with the checked-in file; the simplest ones are also recomputed from the text of protocol.md by
the small independent implementations below (§E3 PRNG, §C2 signed bytes, §C3.2 digest, §C4
chain/seed/beacon), so the document, the vectors and the code agree. A failure means behaviour
changed: if that was meant, bump the protocol version (protocol.md part E "Versioning") and
regenerate with ``python tests/vectors/make_vectors.py``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

VEC = Path(__file__).resolve().parent / "vectors"
ROOT = VEC.parent.parent
# This file sits in tests/, whose engine/ and p2p/ test folders (no __init__.py) would be found
# as namespace packages named "engine"/"p2p" ahead of the real ones: put the repo first.
sys.path.insert(0, str(ROOT))
for _name in ("engine", "p2p"):
    if _name in sys.modules and getattr(sys.modules[_name], "__file__", None) is None:
        del sys.modules[_name]
sys.path.insert(0, str(VEC))

import engine as E  # noqa: E402
import make_vectors as M  # noqa: E402


def load(name: str) -> dict:
    return json.loads((VEC / name).read_text())


def sha(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


class SpecRng:
    """§E3 exactly as written: SHA-256(beacon || i as 8 bytes BE) blocks, byte by byte;
    below(n) by rejection on the fewest bytes k with 256^k >= n."""

    def __init__(self, beacon: bytes) -> None:
        self.beacon, self.i, self.buf = beacon, 0, b""

    def byte(self) -> int:
        if not self.buf:
            self.buf = sha(self.beacon, self.i.to_bytes(8, "big"))
            self.i += 1
        b, self.buf = self.buf[0], self.buf[1:]
        return b

    def below(self, n: int) -> int:
        if n == 1:
            return 0
        k = 1
        while 256 ** k < n:
            k += 1
        while True:
            v = int.from_bytes(bytes(self.byte() for _ in range(k)), "big")
            if v < 256 ** k - (256 ** k) % n:
                return v % n


# --- §E3 PRNG -----------------------------------------------------------------------------

def test_rng_vectors_match_the_code():
    assert M.compute_rng() == load("rng.json")


def test_rng_vectors_match_the_spec_text():
    """protocol.md §E3: stream, dice (below(6)+1, first die first), card = below(undrawn)."""
    vecs = load("rng.json")["vectors"]
    assert any(bytes.fromhex(v["stream"])[0] >= 252 for v in vecs), "no die rejection vector"
    for v in vecs:
        b = bytes.fromhex(v["beacon"])
        assert bytes.fromhex(v["stream"]) == (sha(b, bytes(8)) + sha(b, (1).to_bytes(8, "big")))[:40]
        r = SpecRng(b)
        assert v["dice"] == [r.below(6) + 1, r.below(6) + 1]
        r = SpecRng(b)
        assert v["dice_run"] == [r.below(6) + 1 for _ in range(12)]
        assert v["card"] == {u: SpecRng(b).below(int(u)) for u in v["card"]}
        r = SpecRng(b)
        assert v["below"] == [[n, r.below(n)] for n, _ in v["below"]]


# --- §C4 hash chain, seed, beacon ------------------------------------------------------------

def test_chain_vectors_match_the_code():
    assert M.compute_chain() == load("chain.json")


def test_chain_vectors_match_the_spec_text():
    """protocol.md §C2.2 (demo game id), §C4 (demo secrets, h_i = SHA-256(h_{i-1}), reveal j =
    h_{n-j}, game seed, beacon)."""
    v = load("chain.json")
    seed_a = v["seats"][0]["demo_seed"].encode()
    gid = sha(b"lanopoli/1/game-id\x00", seed_a)[:16]
    assert v["game_id"] == gid.hex()
    for seat in v["seats"]:
        s = seat["demo_seed"].encode()
        secret = sha(b"lanopoli/1/chain\x00", gid, s)
        assert seat["chain_secret"] == secret.hex()
        h = [secret]
        for _ in range(4):
            h.append(sha(h[-1]))
        assert seat["short_chain_h0_to_h4"] == [x.hex() for x in h]
        reveals = [bytes.fromhex(r) for r in seat["reveals"]]
        assert sha(reveals[0]).hex() == seat["chain_head"]
        assert sha(reveals[1]) == reveals[0] and sha(reveals[2]) == reveals[1]
        seed_secret = sha(b"lanopoli/1/seed\x00", gid, s)
        assert seat["seed_secret"] == seed_secret.hex()
        assert seat["seed_commit"] == sha(seed_secret).hex()
    gseed = sha(*(bytes.fromhex(x["seed_secret"]) for x in v["seats"]))
    assert v["game_seed"] == gseed.hex()
    first = [bytes.fromhex(x["reveals"][0]) for x in v["seats"]]
    for b in v["beacons"]:
        assert b["beacon"] == sha(b"beacon", gseed, b["step"].to_bytes(8, "big"), *first).hex()


# --- §C1–§C3 identity, signature, digest ---------------------------------------------------

def test_signature_vectors_match_the_code():
    assert M.compute_sig() == load("sig.json")


def test_signature_vectors_match_the_spec_text():
    """protocol.md §C2 (demo keys, fingerprint, signed bytes), §C1 (envelope), §C3.2 (digest);
    Ed25519 signatures are deterministic (RFC 8032), so the signature itself is a vector."""
    import msgpack

    v = load("sig.json")
    sk = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(v["ed25519_private"]))
    pk = sk.public_key().public_bytes_raw()
    assert v["ed25519_public"] == pk.hex()
    assert v["fingerprint"] == hashlib.sha256(pk).hexdigest()[:16]
    sb = v["step_body"]
    body = msgpack.packb([bytes.fromhex(v["game_id"]), sb["step"], sb["seat"],
                          bytes.fromhex(sb["prev_hash"]), bytes.fromhex(sb["prev_digest"]),
                          sb["input"]], use_bin_type=True)
    assert v["body"] == body.hex()
    signed = b"lanopoli/1/step\x00" + body
    assert v["signed_bytes"] == signed.hex()
    assert v["signature"] == sk.sign(signed).hex()
    Ed25519PublicKey.from_public_bytes(pk).verify(bytes.fromhex(v["signature"]), signed)
    assert v["envelope"] == msgpack.packb([16, body, sk.sign(signed)], use_bin_type=True).hex()
    bodies = [bytes.fromhex(b) for b in v["digest_bodies"]]
    assert v["digest"] == sha(b"lanopoli/1/digest\x00",
                              *(len(b).to_bytes(4, "big") + b for b in bodies)).hex()


# --- a complete game ------------------------------------------------------------------------

def test_game_vector_replays_byte_for_byte(tmp_path):
    """The fixed-seed 2-seat classico game gives the same setup, state hashes, final hash and
    log bytes (§C2.3, §E4, §C6)."""
    want = load("game.json")
    log = tmp_path / "game.lnplog"
    got = M.play_game(tuple(want["seeds"]), log)
    assert got == want
    assert log.read_bytes() == (VEC / "game.lnplog").read_bytes()
    assert hashlib.sha256((VEC / "game.lnplog").read_bytes()).hexdigest() == want["log_sha256"]


def test_game_vector_initial_state_encoding():
    """§E4: the initial state's encoding decodes, re-encodes identically, and hashes to the
    published hash."""
    want = load("game.json")
    raw = bytes.fromhex(want["initial_state"])
    assert E.encode_state(E.decode_state(raw)) == raw
    assert sha(raw).hex() == want["initial_state_hash"]


def test_verify_json_of_the_sample_log():
    """``lanopoli verify --json`` on the published log (Part L) prints the published summary."""
    assert M.verify_json(VEC / "game.lnplog") == load("verify.json")


@pytest.mark.parametrize("name", ["rng.json", "chain.json", "sig.json", "game.json", "verify.json"])
def test_vector_files_are_small_and_sorted(name):
    """Vector files are the generator's canonical dump (sorted keys), so a regeneration diff
    shows only real changes."""
    text = (VEC / name).read_text()
    assert text == json.dumps(json.loads(text), indent=1, sort_keys=True) + "\n"
    assert (VEC / "game.lnplog").stat().st_size < 200_000
