"""``p2p.identity.verify`` (libsodium) against ``cryptography``'s Ed25519 verify (protocol.md §C2):
the same answer on every signature an identity makes and on every corruption of one, and
stricter only on degenerate encodings no honest key or signature has (issue 14)."""

from __future__ import annotations

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.identity import Identity, signed_bytes, verify

L = 2**252 + 27742317777372353535851937790883648493  # order of the Ed25519 base point (RFC 8032)
P = 2**255 - 19
IDENTITY_POINT = (1).to_bytes(32, "little")  # y = 1: the neutral element, order 1
BASE_POINT = bytes.fromhex("5866666666666666666666666666666666666666666666666666666666666666")


def openssl_verify(pk: bytes, domain: bytes, body: bytes, sig: bytes) -> bool:
    """The verification rule before issue 14: cryptography (OpenSSL)."""
    try:
        Ed25519PublicKey.from_public_bytes(pk).verify(sig, signed_bytes(domain, body))
    except (InvalidSignature, ValueError):
        return False
    return True


@settings(max_examples=60, deadline=None)
@given(seed=st.binary(min_size=1, max_size=16), body=st.binary(max_size=300),
       flip=st.integers(min_value=0, max_value=64 * 8 - 1), domain=st.sampled_from([b"step", b"join", b"drop"]))
def test_same_answer_as_cryptography_on_real_and_corrupted_signatures(seed, body, flip, domain):
    ident = Identity.from_seed(seed)
    sig = ident.sign(domain, body)
    assert verify(ident.public_key, domain, body, sig) is True
    assert openssl_verify(ident.public_key, domain, body, sig) is True
    bad = bytearray(sig)
    bad[flip // 8] ^= 1 << (flip % 8)
    assert verify(ident.public_key, domain, body, bytes(bad)) == openssl_verify(ident.public_key, domain, body, bytes(bad))
    assert verify(ident.public_key, domain, body, bytes(bad)) is False
    assert verify(ident.public_key, domain + b"x", body, sig) is False  # another type's domain


def test_signatures_are_cryptographys_byte_for_byte():
    # Signing did not change (cryptography, deterministic RFC 8032): the vector's signature.
    ident = Identity.from_seed(b"vector")
    assert ident.sign(b"step", b"abc") == ident.sign(b"step", b"abc")
    assert openssl_verify(ident.public_key, b"step", b"abc", ident.sign(b"step", b"abc"))


def test_non_canonical_scalar_rejected_by_both():
    ident = Identity.from_seed(b"s")
    sig = ident.sign(b"step", b"m")
    s = int.from_bytes(sig[32:], "little")
    forged = sig[:32] + (s + L).to_bytes(32, "little")  # same signature, S ≥ L
    assert not openssl_verify(ident.public_key, b"step", b"m", forged)
    assert not verify(ident.public_key, b"step", b"m", forged)


def test_small_order_and_non_canonical_keys_rejected():
    # A = neutral element: [S]B = R + [k]A holds for R = B, S = 1 on ANY message, so anyone could
    # "sign" for that key. OpenSSL accepts it; we do not (nor its non-canonical encoding y = p+1,
    # nor a small-order R).
    forged = BASE_POINT + (1).to_bytes(32, "little")
    for pk in (IDENTITY_POINT, (P + 1).to_bytes(32, "little")):
        assert openssl_verify(pk, b"step", b"anything", forged)
        assert not verify(pk, b"step", b"anything", forged)
    zero = IDENTITY_POINT + bytes(32)  # R small order, S = 0
    assert openssl_verify(IDENTITY_POINT, b"step", b"x", zero)
    assert not verify(IDENTITY_POINT, b"step", b"x", zero)


def test_wrong_lengths_and_junk_never_raise():
    ident = Identity.from_seed(b"j")
    sig = ident.sign(b"step", b"m")
    assert not verify(ident.public_key[:31], b"step", b"m", sig)
    assert not verify(ident.public_key, b"step", b"m", sig[:63])
    assert not verify(b"\xff" * 32, b"step", b"m", sig)  # not a curve point
    assert verify(ident.public_key, b"step", memoryview(b"m"), memoryview(sig))
