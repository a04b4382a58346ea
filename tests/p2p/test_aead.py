"""A peer's crypto without ``cryptography`` (issue 14, "peer RSS", H93): ChaCha20-Poly1305 and
X25519 through libsodium (p2p/aead.py, p2p/identity.py), HKDF-SHA256 through the ``hkdf``
package and the tags through the standard library's HMAC (p2p/channel_auth.py). Each is checked
against its RFC's vectors and, byte for byte, against ``cryptography`` (still a test dependency:
the reference these bytes were first made with)."""
import hashlib

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.hmac import HMAC
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from hkdf import hkdf_expand, hkdf_extract
from hypothesis import given
from hypothesis import strategies as st

from p2p import aead
from p2p.channel_auth import KEY_INFO, derive_pair_keys, mac, mac_ok
from p2p.identity import Identity

RFC8439_KEY = bytes(range(0x80, 0xA0))
RFC8439_NONCE = bytes.fromhex("070000004041424344454647")
RFC8439_AAD = bytes.fromhex("50515253c0c1c2c3c4c5c6c7")
RFC8439_PT = (b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future,"
              b" sunscreen would be it.")


def test_chacha20_poly1305_gives_rfc_8439_vector():
    """RFC 8439 §2.8.2: first ciphertext block and the tag."""
    ct = aead.encrypt(RFC8439_KEY, RFC8439_NONCE, RFC8439_PT, RFC8439_AAD)
    assert len(ct) == len(RFC8439_PT) + aead.TAG_LEN
    assert ct[:16].hex() == "d31a8d34648e60db7b86afbc53ef7ec2"
    assert ct[-16:].hex() == "1ae10b594f09e26a7e902ecbd0600691"
    assert aead.decrypt(RFC8439_KEY, RFC8439_NONCE, ct, RFC8439_AAD) == RFC8439_PT


@given(st.binary(min_size=32, max_size=32), st.binary(min_size=12, max_size=12), st.binary(max_size=300),
       st.binary(max_size=60))
def test_chacha20_poly1305_is_cryptography_s(key, nonce, pt, aad):
    ct = aead.encrypt(key, nonce, pt, aad)
    assert ct == ChaCha20Poly1305(key).encrypt(nonce, pt, aad)
    assert aead.decrypt(key, nonce, ct, aad) == pt


@given(st.binary(max_size=80), st.integers(0, 200))
def test_decrypt_refuses_what_cryptography_refused_and_never_raises(junk, flip):
    """Wrong key/nonce sizes, short or damaged ciphertexts, another aad: None, never an exception
    (cryptography raised ValueError or InvalidTag, which every caller turned into 'does not open')."""
    key, nonce = bytes(32), bytes(12)
    ct = bytearray(aead.encrypt(key, nonce, b"share" * 13, b"ctx"))
    ct[flip % len(ct)] ^= 1
    for args in ((key, nonce, bytes(ct), b"ctx"), (key, nonce, junk, b"ctx"), (key[:31], nonce, bytes(ct), b"ctx"),
                 (key, nonce + b"\0", bytes(ct), b"ctx"), (key, nonce, bytes(ct)[:15], b"ctx")):
        assert aead.decrypt(*args) is None
        try:
            ChaCha20Poly1305(args[0]).decrypt(args[1], args[2], args[3])
        except (InvalidTag, ValueError):
            pass
        else:
            raise AssertionError("cryptography opened it")


def test_encrypt_refuses_a_key_or_nonce_of_the_wrong_size():
    for key, nonce in ((bytes(31), bytes(12)), (bytes(32), bytes(8))):
        try:
            aead.encrypt(key, nonce, b"x", b"")
        except ValueError:
            continue
        raise AssertionError("accepted")


def test_hkdf_sha256_gives_rfc_5869_vectors():
    """RFC 5869 A.1 and A.3 (SHA-256), through the package channel_auth uses."""
    ikm = b"\x0b" * 22
    prk = hkdf_extract(bytes(range(13)), ikm, hashlib.sha256)
    assert prk.hex() == "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5"
    assert hkdf_expand(prk, bytes(range(0xF0, 0xFA)), 42, hashlib.sha256).hex() == (
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    prk = hkdf_extract(None, ikm, hashlib.sha256)
    assert prk.hex() == "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04"
    assert hkdf_expand(prk, b"", 42, hashlib.sha256).hex() == (
        "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")


@given(st.binary(min_size=32, max_size=32), st.binary(min_size=32, max_size=32), st.binary(min_size=32, max_size=32))
def test_channel_keys_and_tags_are_cryptography_s(shared, xa, xb):
    """derive_pair_keys (HKDF-SHA256, salt none, info KEY_INFO || lo || hi, 64 bytes) and mac
    (HMAC-SHA256 truncated to 16 bytes) give cryptography's bytes (protocol.md §N2.2)."""
    if xa == xb:
        return
    lo, hi = sorted((xa, xb))
    okm = HKDF(algorithm=hashes.SHA256(), length=64, salt=None, info=KEY_INFO + lo + hi).derive(shared)
    keys = derive_pair_keys(shared, xa, xb)
    assert (keys.send, keys.recv) == ((okm[:32], okm[32:]) if xa == lo else (okm[32:], okm[:32]))
    h = HMAC(keys.send, hashes.SHA256())
    h.update(shared + lo)
    tag = h.finalize()[:16]
    assert mac(keys.send, shared + lo) == tag and mac_ok(keys.send, shared + lo, tag)


@given(st.binary(min_size=1, max_size=20), st.binary(min_size=1, max_size=20))
def test_identity_keys_and_x25519_are_cryptography_s(sa, sb):
    a, b = Identity.from_seed(sa), Identity.from_seed(sb)
    xa = X25519PrivateKey.from_private_bytes(hashlib.sha256(b"lanopoli/1/x25519\x00" + sa).digest())
    assert a.x25519_public_key == xa.public_key().public_bytes_raw()
    assert a.x25519_exchange(b.x25519_public_key) == xa.exchange(X25519PublicKey.from_public_bytes(b.x25519_public_key))
    assert a.x25519_exchange(b.x25519_public_key) == b.x25519_exchange(a.x25519_public_key)


def test_x25519_refuses_what_cryptography_refused():
    """A key of the wrong size, or a low-order point (all-zero shared secret): ValueError."""
    me = Identity.from_seed(b"me")
    for bad in (bytes(32), b"\x01" + bytes(31), bytes(31), bytes(33)):
        try:
            me.x25519_exchange(bad)
        except ValueError:
            continue
        raise AssertionError(f"accepted {bad.hex()}")


def test_identity_round_trips_through_its_files(tmp_path):
    made = Identity.load_or_create(tmp_path)
    again = Identity.load_or_create(tmp_path)
    assert (again.public_key, again.x25519_public_key) == (made.public_key, made.x25519_public_key)
    assert Identity.generate().public_key != made.public_key
