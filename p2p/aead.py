"""ChaCha20-Poly1305, IETF form (RFC 8439: 32-byte key, 12-byte nonce, 16-byte tag appended to
the ciphertext), through libsodium (PyNaCl's ``crypto_aead_chacha20poly1305_ietf_*``).

The escrow shares (protocol.md §C8.2), their complaints (§C8.8) and the hidden-information
deliveries (§C12.3) are sealed with it. The bytes are those of ``cryptography``'s
``ChaCha20Poly1305`` (the same standard construction; tests/p2p/test_aead.py checks RFC 8439's
vector and both libraries against each other); libsodium is used because a peer already loads it
for Ed25519, while ``cryptography``'s extension costs a peer ~6.6 MB of resident set (issue 14,
"peer RSS"). No hand-rolled crypto: this module only checks sizes and maps failures.

``decrypt`` never raises on hostile input: a key, nonce or ciphertext of the wrong size, or a tag
that does not verify, all give None (``cryptography`` raised ``ValueError`` or ``InvalidTag``).
"""

from __future__ import annotations

from nacl.bindings import (crypto_aead_chacha20poly1305_ietf_ABYTES, crypto_aead_chacha20poly1305_ietf_decrypt,
                           crypto_aead_chacha20poly1305_ietf_encrypt, crypto_aead_chacha20poly1305_ietf_KEYBYTES,
                           crypto_aead_chacha20poly1305_ietf_NPUBBYTES)
from nacl.exceptions import CryptoError

KEY_LEN = crypto_aead_chacha20poly1305_ietf_KEYBYTES
"""32 bytes."""
NONCE_LEN = crypto_aead_chacha20poly1305_ietf_NPUBBYTES
"""12 bytes."""
TAG_LEN = crypto_aead_chacha20poly1305_ietf_ABYTES
"""16 bytes, at the end of every ciphertext."""

__all__ = ["KEY_LEN", "NONCE_LEN", "TAG_LEN", "encrypt", "decrypt"]


def encrypt(key: bytes, nonce: bytes, plaintext: bytes, aad: bytes) -> bytes:
    """``ciphertext || tag`` (len(plaintext) + 16 bytes) of ``plaintext`` under ``key`` (32 bytes)
    and ``nonce`` (12 bytes), authenticating ``aad`` too. Raises ``ValueError`` for a key or nonce
    of the wrong size (our own keys: a bug, not input)."""
    if len(key) != KEY_LEN or len(nonce) != NONCE_LEN:
        raise ValueError("ChaCha20-Poly1305 needs a 32-byte key and a 12-byte nonce")
    return crypto_aead_chacha20poly1305_ietf_encrypt(bytes(plaintext), bytes(aad), bytes(nonce), bytes(key))


def decrypt(key: bytes, nonce: bytes, ciphertext: bytes, aad: bytes) -> bytes | None:
    """The plaintext of ``ciphertext || tag``, or None if the key (32 bytes), the nonce (12) or the
    ciphertext (at least the 16-byte tag) has the wrong size or the tag does not verify."""
    if len(key) != KEY_LEN or len(nonce) != NONCE_LEN or len(ciphertext) < TAG_LEN:
        return None
    try:
        return crypto_aead_chacha20poly1305_ietf_decrypt(bytes(ciphertext), bytes(aad), bytes(nonce), bytes(key))
    except CryptoError:
        return None
