"""p2p/identity.py: signatures are made with libsodium (issue 14, speed) and must be the very
bytes ``cryptography``'s Ed25519 makes (RFC 8032 signatures are deterministic): a change of
library changes no signature, no log, no test vector (protocol.md §C2)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, strategies as st

from p2p.const import SIG_PREFIX
from p2p.identity import ED25519_FILE, Identity, signed_bytes, verify


@given(seed=st.binary(min_size=0, max_size=40), domain=st.sampled_from([b"step", b"drop", b"setup"]),
       body=st.binary(max_size=1200))
def test_sign_is_byte_for_byte_the_cryptography_signature(seed: bytes, domain: bytes, body: bytes) -> None:
    ident = Identity.from_seed(seed)
    # The same private key as ``from_seed`` documents it, in cryptography's hands.
    key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(SIG_PREFIX + b"ed25519\x00" + seed).digest())
    sig = ident.sign(domain, body)
    assert sig == key.sign(signed_bytes(domain, body))
    assert len(sig) == 64 and verify(ident.public_key, domain, body, sig)


def test_a_generated_identity_signs_as_its_saved_key(tmp_path: Path) -> None:
    ident = Identity.generate()
    ident.save(tmp_path)
    key = Ed25519PrivateKey.from_private_bytes((tmp_path / ED25519_FILE).read_bytes())
    assert ident.sign(b"step", b"x") == key.sign(signed_bytes(b"step", b"x"))
    assert Identity.load_or_create(tmp_path).sign(b"step", b"x") == ident.sign(b"step", b"x")
