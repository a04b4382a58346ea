"""A player's long-term identity: an Ed25519 signing key and an X25519 key agreement key.

Every key operation is libsodium's (PyNaCl's bindings): the Ed25519 key pair from its 32-byte
seed (``crypto_sign_seed_keypair``), signatures (``crypto_sign``: Ed25519 is deterministic, so
the bytes are those ``cryptography`` makes, ~1.4x faster here: 37 vs 53 µs, issue 14) and their
check (``crypto_sign_open``, ~1.6-1.9x faster here and stricter, see ``verify``); the X25519
public key (``crypto_scalarmult_base``) and shared secret (``crypto_scalarmult``, RFC 7748: the
same bytes as ``cryptography``'s X25519, tests/p2p/test_aead.py). Random keys are 32 bytes of
``os.urandom``. No hand-rolled crypto. A peer does not load ``cryptography`` at all: its
extension is ~6.6 MB of a peer's resident set (issue 14, "peer RSS").
On disk (``load_or_create``) they live as two raw 32-byte private keys, mode 0600:
``<dir>/ed25519.key`` and ``<dir>/x25519.key``; ``dir`` defaults to
``platformdirs.user_config_dir("lanopoli")`` and is overridden with ``--config-dir``.

Every signature covers ``SIG_PREFIX + domain + b"\\x00" + body`` (protocol.md §C2), so
a signature made for one message type can never be accepted as another.

``verify_many`` checks a batch (a catch-up page, a log being verified) on every core: libsodium
has no batch verify, but PyNaCl's cffi calls release the GIL, so a small thread pool verifies
parts of the batch side by side (issue 14). Its good answers are remembered (bounded), and
``verify`` answers a remembered signature without checking it again: a page is verified in
bulk first, then applied through the unchanged one-by-one checks.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path
from typing import Iterable, Iterator

from nacl.bindings import (crypto_scalarmult, crypto_scalarmult_base, crypto_sign, crypto_sign_open,
                           crypto_sign_seed_keypair)
from nacl.exceptions import CryptoError

from .const import KEY_LEN, SIG_LEN, SIG_PREFIX

ED25519_FILE = "ed25519.key"
X25519_FILE = "x25519.key"


def signed_bytes(domain: bytes, body: bytes) -> bytes:
    """The exact bytes an Ed25519 signature covers: ``b"lanopoli/1/" + domain + b"\\x00" + body``."""
    return SIG_PREFIX + domain + b"\x00" + body


def fingerprint_of(public_key: bytes) -> str:
    """Short human-readable fingerprint of a raw Ed25519 public key: first 8 bytes of its
    SHA-256, as 16 lowercase hex digits."""
    return hashlib.sha256(public_key).digest()[:8].hex()


def verify(public_key: bytes, domain: bytes, body: bytes, sig: bytes) -> bool:
    """Check an Ed25519 signature made by ``Identity.sign(domain, body)`` (protocol.md §C2).

    ``public_key``: 32 raw bytes; ``sig``: 64 bytes. Returns False (never raises) for a bad
    signature, a wrong-length key or signature, or a key that is not a valid curve point.

    The rule is libsodium's ``crypto_sign_verify_detached`` (RFC 8032 §5.1.7, cofactorless:
    the encoding of [S]B − [k]A must equal R byte for byte), which also rejects: S ≥ L
    (non-canonical scalar, as OpenSSL does), a public key A that is not canonically encoded
    (y ≥ p) or has small order, and an R of small order. OpenSSL (``cryptography``) accepts the
    last three; no honest key or signature has them (a small-order key lets anyone forge), so
    every signature ``Identity.sign`` makes verifies under both, byte for byte the same
    (tests/p2p/test_identity_strict.py). Cost: ~90 µs here vs ~150 µs with ``cryptography``.
    """
    if _good:
        key = (public_key, domain, body, sig)
        try:
            kept = _good.get(key)
        except TypeError:  # an unhashable argument (bytearray): check it below
            kept = None
        if kept is not None:  # verified in a batch (``verify_many``): same bytes, same answer
            if not kept:
                with _good_lock:
                    _good.pop(key, None)  # used once: memory stays flat (``verify_many``)
            return True
    return _check(public_key, domain, body, sig)


def _check(public_key: bytes, domain: bytes, body: bytes, sig: bytes) -> bool:
    """``verify``'s rule itself (no memo)."""
    if len(public_key) != KEY_LEN or len(sig) != SIG_LEN:
        return False
    try:
        crypto_sign_open(bytes(sig) + SIG_PREFIX + domain + b"\x00" + body, bytes(public_key))
    except (CryptoError, ValueError, TypeError):
        return False
    return True


#: Below this many signatures ``verify_many`` checks them in the calling thread: handing a part
#: to a worker thread and waking it costs more than it saves (bench/bench_verify.py --bulk).
BULK_MIN = 16
#: Good signatures remembered from ``verify_many`` (key (public_key, domain, body, sig)), oldest
#: forgotten first: a catch-up page holds at most CATCHUP_MAX_RECORDS records of <= 8 messages.
#: ~340 bytes each (the body is kept alive): at most ~1.4 MB.
GOOD_KEPT = 4096

#: (public_key, domain, body, sig) -> kept after ``verify`` used it (``verify_many``'s ``keep``).
_good: dict[tuple, bool] = {}
_good_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_parts = 1  # parts a batch is cut into: the pool's workers + the caller
_pool_lock = threading.Lock()


def forget() -> None:
    """Forget every signature ``verify_many`` remembered (benchmarks timing a first check)."""
    with _good_lock:
        _good.clear()


def _cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS says, else ``cpu_count``)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _workers() -> ThreadPoolExecutor | None:
    """The shared pool of ``cores - 1`` worker threads (the caller is the last worker), made on
    first use; None on a single core."""
    global _pool, _parts
    if _pool is None:
        with _pool_lock:
            if _pool is None and _cores() > 1:
                _parts = min(_cores(), 8)
                _pool = ThreadPoolExecutor(max_workers=_parts - 1, thread_name_prefix="lanopoli-verify")
    return _pool


def _after_fork() -> None:
    # A forked child has none of its parent's threads: a new pool on its first batch, and new
    # locks (one may have been held by a thread of the parent at the fork).
    global _pool, _pool_lock, _good_lock
    _pool = None
    _pool_lock = threading.Lock()
    _good_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


#: Seconds the caller waits, once it took the last part, for the workers' parts (about two
#: parts' work); a part still unfinished then (its thread was descheduled) it checks itself.
WORKER_WAIT_S = 0.001
#: Signatures per part of a batch: the threads take parts one after the other until none is
#: left, so a thread slowed by another process's load takes fewer (about 0.4 ms of work each).
PART = 8


def _drain(parts: list, out: list, taken: Iterator[int]) -> None:
    """Check parts of a batch until none is left: ``out[k]`` gets part ``k``'s answers, or the
    exception checking it raised (``itertools.count``'s ``next`` is atomic: no part twice)."""
    for k in taken:
        if k >= len(parts):
            return
        _check_one(parts, out, k)


def _check_one(parts: list, out: list, k: int) -> None:
    try:
        out[k] = [verify(*it) for it in parts[k]]
    except Exception as e:  # noqa: BLE001 - re-raised in the caller, in batch order
        out[k] = e


def verify_many(items: Iterable[tuple[bytes, bytes, bytes, bytes]], keep: bool = False) -> list[bool]:
    """``[verify(*it) for it in items]``, computed on every core: ``items`` are
    ``(public_key, domain, body, sig)`` tuples, the answers come in their order, each exactly
    ``verify``'s (the same rule, protocol.md §C2); where ``verify`` raises on an item, this
    raises the same exception, that of the first such item.

    A batch of ``BULK_MIN`` or more is cut into parts of ``PART``; the caller and the pool's
    worker threads (one per other core) take parts until none is left (libsodium runs without
    the GIL, so they run side by side; an idle or busy core takes more or fewer parts). Pure as
    far as callers can tell: no I/O, no clock, no answer depends on an earlier call, so the
    sans-I/O cores may call it. Side effect: the signatures found good are remembered (the last
    ``GOOD_KEPT``), so that ``verify`` then answers them at once: a batch checked here before the
    one-by-one checks that apply it costs one verification per signature, not two. ``verify``
    forgets one when it used it, unless ``keep`` (a log checked again and again, as a spectator
    does: ``verify_log``), so a peer's memory stays flat.

    The caller never waits long for a worker: a part a worker took but has not finished
    ``WORKER_WAIT_S`` after the caller ran out of parts (its thread lost the core to another
    process) is checked by the caller too, so a busy second core costs at most that delay.

    Only batches gain: a worker thread needs the GIL between two verifications, which a thread
    running Python code holds for up to ``sys.getswitchinterval()`` (5 ms), so checking in the
    background while the caller goes on applying records would starve the worker (measured:
    6,500 -> 1,900 verifications/s); the caller therefore checks too, and waits.
    """
    items = list(items)
    pool = _workers() if len(items) >= BULK_MIN else None
    if pool is None:
        out = [verify(*it) for it in items]
    else:
        parts = [items[i:i + PART] for i in range(0, len(items), PART)]
        answers: list = [None] * len(parts)
        taken = itertools.count()
        try:
            futures = [pool.submit(_drain, parts, answers, taken) for _ in range(min(_parts - 1, len(parts) - 1))]
        except RuntimeError:  # the interpreter is shutting down: no new threads
            futures = []
        _drain(parts, answers, taken)
        if futures and None in answers:  # a part still being checked by a worker
            wait(futures, timeout=WORKER_WAIT_S)
        for k, a in enumerate(answers):
            if a is None:  # a worker's part, unfinished: its thread is not running now (another
                _check_one(parts, answers, k)  # process has the core): checked here, not waited for
        out = []
        for a in answers:
            if isinstance(a, BaseException):
                raise a
            out += a
    with _good_lock:  # two threads calling at once must not evict under each other
        for it, ok in zip(items, out):
            if ok:
                try:
                    _good[it] = keep or _good.get(it, False)
                except TypeError:  # unhashable (bytearray): not remembered
                    continue
        while len(_good) > GOOD_KEPT:
            _good.pop(next(iter(_good)), None)
    return out


class Identity:
    """Ed25519 signing key + X25519 key of one player, from their raw 32-byte private keys (the
    Ed25519 seed, RFC 8032; the X25519 scalar, RFC 7748, clamped by libsodium when used).

    Attributes: ``public_key`` (32 raw bytes, Ed25519), ``x25519_public_key`` (32 raw bytes),
    ``fingerprint`` (16 hex digits of SHA-256(public_key)). Raises ``ValueError`` if a private
    key is not 32 bytes.
    """

    __slots__ = ("_seed", "_nsk", "_xsk", "public_key", "x25519_public_key", "fingerprint")

    def __init__(self, ed25519_seed: bytes, x25519_private: bytes) -> None:
        if len(ed25519_seed) != KEY_LEN or len(x25519_private) != KEY_LEN:
            raise ValueError("private keys are 32 raw bytes each")
        self._seed = bytes(ed25519_seed)
        self._xsk = bytes(x25519_private)
        # libsodium's form of the signing key (seed || public key, 64 bytes), for ``sign``.
        self.public_key, self._nsk = crypto_sign_seed_keypair(self._seed)
        self.x25519_public_key: bytes = crypto_scalarmult_base(self._xsk)
        self.fingerprint: str = fingerprint_of(self.public_key)

    @classmethod
    def generate(cls) -> "Identity":
        """A fresh random identity (OS randomness, ``os.urandom``)."""
        return cls(os.urandom(KEY_LEN), os.urandom(KEY_LEN))

    @classmethod
    def from_seed(cls, seed: bytes) -> "Identity":
        """Deterministic identity for demos and tests (``--seed``): private keys are
        SHA-256(b"lanopoli/1/ed25519\\x00" + seed) and SHA-256(b"lanopoli/1/x25519\\x00" + seed).
        Anyone who knows the seed owns the identity: never use it for real games."""
        ed = hashlib.sha256(SIG_PREFIX + b"ed25519\x00" + seed).digest()
        xk = hashlib.sha256(SIG_PREFIX + b"x25519\x00" + seed).digest()
        return cls(ed, xk)

    @classmethod
    def load_or_create(cls, directory: str | os.PathLike[str] | None = None) -> "Identity":
        """Load the identity stored in ``directory`` (default: the user config dir of
        "lanopoli"), creating and saving a fresh one if there is none.

        Raises ``ValueError`` if a key file exists but is not 32 bytes (a corrupted file is
        never silently replaced: the user would lose their identity).
        """
        if directory is None:
            import platformdirs

            directory = platformdirs.user_config_dir("lanopoli")
        d = Path(directory)
        ed_path, x_path = d / ED25519_FILE, d / X25519_FILE
        if ed_path.exists() or x_path.exists():
            ed, xk = ed_path.read_bytes(), x_path.read_bytes()
            if len(ed) != KEY_LEN or len(xk) != KEY_LEN:
                raise ValueError(f"corrupted identity key files in {d} (expected 32 raw bytes each)")
            return cls(ed, xk)
        ident = cls.generate()
        ident.save(d)
        return ident

    def save(self, directory: str | os.PathLike[str]) -> None:
        """Write both private keys (raw, 32 bytes each, mode 0600) atomically into ``directory``."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        for name, raw in ((ED25519_FILE, self._seed), (X25519_FILE, self._xsk)):
            tmp = d / (name + ".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(raw)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, d / name)

    def sign(self, domain: bytes, body: bytes) -> bytes:
        """Ed25519 signature (64 bytes) over ``SIG_PREFIX + domain + b"\\x00" + body``
        (libsodium's ``crypto_sign``: signed message = signature || message)."""
        return crypto_sign(SIG_PREFIX + domain + b"\x00" + body, self._nsk)[:SIG_LEN]

    def x25519_exchange(self, peer_public_key: bytes) -> bytes:
        """X25519 shared secret (32 bytes) with a peer's raw X25519 public key (for the hidden
        information channel, DESIGN.md §4). Raises ``ValueError`` on a malformed key: not 32
        bytes, or a low-order point (an all-zero secret, which libsodium refuses, as
        ``cryptography`` did)."""
        if len(peer_public_key) != KEY_LEN:
            raise ValueError("an X25519 public key is 32 bytes")
        try:
            return crypto_scalarmult(self._xsk, bytes(peer_public_key))
        except CryptoError:  # PyNaCl's RuntimeError for libsodium's -1
            raise ValueError("X25519 with a low-order point") from None

    def __repr__(self) -> str:
        return f"Identity(fingerprint={self.fingerprint!r})"
