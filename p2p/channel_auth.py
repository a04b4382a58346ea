"""Pairwise channel keys and datagram MACs (WireGuard's model; protocol.md §N2.2).

Two peers that know each other's static X25519 public key share two 32-byte keys, one per
direction, derived once and cached::

    shared   = X25519(our private key, peer public key)          32 bytes
    okm      = HKDF-SHA256(ikm=shared, salt=none (32 zero bytes),
                           info=b"lanopoli/1/channel\\x00" + lo + hi, length=64)
    k_lo_hi  = okm[0:32]     key of datagrams sent by the peer whose X25519 key is lo
    k_hi_lo  = okm[32:64]    key of datagrams sent by the peer whose X25519 key is hi

where ``lo`` < ``hi`` are the two raw X25519 public keys ordered as byte strings. Keys per
direction make a datagram reflected back to its sender fail its MAC. The tag of a datagram is
the first 16 bytes of HMAC-SHA256(sending key, every byte of the datagram before the tag).

A restarted peer re-derives the same keys from its static key, so it can prove a new epoch
without any handshake (the epoch and the challenge nonce are in the MACed header):
``EpochProof`` is that challenge/response, one per channel.

Cost: one X25519 + HKDF per new peer key (~40 µs); ``KeyCache`` keeps the result, and keys
offered by unknown senders (a transport *introduction*, §N2.2) are derived at most
``INTRO_RATE`` per second after a burst of ``INTRO_BURST`` (and less per source address and IP),
so a stranger's flood of fresh keys costs a bounded amount of CPU. No hand-rolled crypto:
X25519 is libsodium's (``Identity``), HKDF the ``hkdf`` package's RFC 5869 code over the standard
library's HMAC-SHA256, which also makes the tags (OpenSSL's HMAC); a peer does not load
``cryptography`` (issue 14, "peer RSS": its extension is ~6.6 MB of resident set).
tests/p2p/test_aead.py checks both against it.
"""

from __future__ import annotations

import hmac
import os
from collections import OrderedDict
from typing import Any, Iterator, NamedTuple

from hashlib import sha256

from hkdf import hkdf_expand, hkdf_extract

from .ratelimit import TokenBucket, bucket_in

KEY_INFO = b"lanopoli/1/channel\x00"
"""HKDF ``info`` prefix; the two X25519 public keys (ascending) follow."""
TAG_LEN = 16
"""Bytes of the truncated HMAC-SHA256 at the end of every authenticated datagram."""
XKEY_LEN = 32
"""Raw X25519 public key size."""
CACHE_SIZE = 256
"""Derived key pairs remembered (least recently used evicted)."""
INTRO_BURST = 32
"""Derivations for keys nobody pinned that may happen back to back..."""
INTRO_RATE = 64.0
"""...and per second after that (a token bucket)."""
INTRO_ADDR_BURST = 4
"""Of those, derivations one source address may have back to back..."""
INTRO_ADDR_RATE = 4.0
"""...and per second after that, so that one stranger's socket cannot take the whole budget."""
INTRO_IP_BURST = 16
"""Of those, derivations one source IP address (all its ports) may have back to back: at least
``MAX_SEATS`` (8), so a demo's peers on one machine (127.0.0.1) introduce themselves at once..."""
INTRO_IP_RATE = 16.0
"""...and per second after that: one machine's many sockets take a quarter of ``INTRO_RATE``, not
all of it (H88 review #9: 16 sockets x ``INTRO_ADDR_RATE`` made the 64)."""
INTRO_ADDRS = 256
"""Source addresses, and source IPs, whose introduction budget is remembered (least recently used
forgotten)."""

__all__ = ["ANSWER_INTERVAL", "Delivered", "EpochProof", "KEY_INFO", "TAG_LEN", "XKEY_LEN", "PairKeys", "KeyCache",
           "PlainSacks", "derive_pair_keys", "mac", "mac_ok"]


class PairKeys(NamedTuple):
    """The keys of one channel, seen from our side: ``send`` MACs what we send, ``recv`` checks
    what the peer sends (32 bytes each); ``peer_xk`` is the peer's X25519 public key."""

    send: bytes
    recv: bytes
    peer_xk: bytes


class Delivered(list):
    """What one datagram completed on a channel (``Endpoint.receive_datagram``): a list of ``(address, payload)``
    in order, and ``via``, the X25519 public key (32 bytes) of the peer whose pairwise key MACed that datagram
    (``PairKeys.peer_xk`` of the channel that checked it; None for a plain channel). ``via`` is taken from that
    channel when it delivers, never looked up later by address (the channel at an address may change between two
    payloads). Read by the node as the seat a session message came from: a step-(k+1) message on its seat's own
    channel counts in a certificate whatever its signature (protocol.md §N2.2; §C8.3 'A voter's promise', F1)."""

    __slots__ = ("via",)

    def __init__(self, addr: Any, keys: PairKeys | None, payloads: list[bytes]) -> None:
        super().__init__([(addr, p) for p in payloads])
        self.via: bytes | None = None if keys is None else keys.peer_xk


def derive_pair_keys(shared: bytes, my_xk: bytes, peer_xk: bytes) -> PairKeys:
    """Both directions' keys from the X25519 shared secret (see the module doc).

    Raises ``ValueError`` if the two public keys are equal (a peer talking to itself) or not
    32 bytes."""
    if len(my_xk) != XKEY_LEN or len(peer_xk) != XKEY_LEN or my_xk == peer_xk:
        raise ValueError("channel keys need two different 32-byte X25519 public keys")
    lo, hi = (my_xk, peer_xk) if my_xk < peer_xk else (peer_xk, my_xk)
    okm = hkdf_expand(hkdf_extract(None, shared, sha256), KEY_INFO + lo + hi, 64, sha256)  # salt None: 32 zero bytes
    lo_hi, hi_lo = okm[:32], okm[32:]
    if my_xk == lo:
        return PairKeys(lo_hi, hi_lo, peer_xk)
    return PairKeys(hi_lo, lo_hi, peer_xk)


_KEYED: dict[bytes, hmac.HMAC] = {}
"""One keyed HMAC-SHA256 context per key in use, copied for each tag: the key's padding blocks
are hashed once, not per datagram."""
_KEYED_MAX = 1024
"""Keys whose context is kept (two per channel); beyond it the cache starts over, so strangers'
keys cannot grow it without bound."""


def mac(key: bytes, data: bytes) -> bytes:
    """The 16-byte tag: HMAC-SHA256(key, data) truncated to its first 16 bytes.

    A copy of the key's prepared standard-library HMAC (OpenSSL's HMAC): 1.13 µs per tag of a
    200-byte datagram instead of 1.47 µs for ``hmac.digest`` (process time, same run; issue 14:
    the tags were ~5 % of a lockstep step). ``cryptography``'s copied HMAC took 0.66 µs, but
    loading that library costs a peer ~6.6 MB (module doc)."""
    ctx = _KEYED.get(key)
    if ctx is None:
        if len(_KEYED) >= _KEYED_MAX:
            _KEYED.clear()
        ctx = _KEYED[bytes(key)] = hmac.new(key, digestmod="sha256")
    h = ctx.copy()
    h.update(data)
    return h.digest()[:TAG_LEN]


def mac_ok(key: bytes, data: bytes, tag: bytes) -> bool:
    """True if ``tag`` is ``mac(key, data)`` (constant-time comparison)."""
    return hmac.compare_digest(mac(key, data), bytes(tag))


class KeyCache:
    """Our side of every channel key: ``identity`` is anything with ``x25519_public_key``
    (32 bytes) and ``x25519_exchange(peer_xk) -> bytes`` (``p2p.identity.Identity``).

    ``pinned(peer_xk)``: keys for a peer the owner named (a seat, the host); never
    rate-limited. ``introduced(peer_xk, now, addr)``: keys for a key a datagram from ``addr``
    offered; served from the cache, else derived only while the source address's bucket and
    the bucket of all sources allow (None otherwise, counted in ``stats["intro_limited"]``).
    Both return None for a key that is not a usable X25519 point (``stats["bad_key"]``).
    ``now``: seconds, monotonic.
    """

    def __init__(self, identity: Any, *, size: int = CACHE_SIZE, burst: int = INTRO_BURST,
                 rate: float = INTRO_RATE) -> None:
        self._identity = identity
        self.my_xk: bytes = identity.x25519_public_key
        self._cache: OrderedDict[bytes, PairKeys] = OrderedDict()
        self._size = size
        #: Keys derived for introductions (``introduced``): INTRO_BURST, then INTRO_RATE/s.
        self._intros = TokenBucket(burst, rate)
        #: Per source address: INTRO_ADDR_BURST, then INTRO_ADDR_RATE/s (protocol.md §N2.1 3)...
        self._intros_by_addr: OrderedDict[Any, TokenBucket] = OrderedDict()
        #: ...and per source IP: INTRO_IP_BURST, then INTRO_IP_RATE/s.
        self._intros_by_ip: OrderedDict[Any, TokenBucket] = OrderedDict()
        self.stats = {"derived": 0, "intro_limited": 0, "bad_key": 0}

    def _derive(self, peer_xk: bytes) -> PairKeys | None:
        try:
            keys = derive_pair_keys(self._identity.x25519_exchange(peer_xk), self.my_xk, peer_xk)
        except ValueError:  # wrong size, low-order point (all-zero secret), our own key
            self.stats["bad_key"] += 1
            return None
        self.stats["derived"] += 1
        self._cache[peer_xk] = keys
        if len(self._cache) > self._size:
            self._cache.popitem(last=False)
        return keys

    def pinned(self, peer_xk: bytes) -> PairKeys | None:
        """Keys with ``peer_xk`` (a peer we chose to talk to), derived now if not cached."""
        peer_xk = bytes(peer_xk)
        keys = self._cache.get(peer_xk)
        if keys is not None:
            self._cache.move_to_end(peer_xk)
            return keys
        return self._derive(peer_xk)

    def introduced(self, peer_xk: bytes, now: float, addr: Any = None) -> PairKeys | None:
        """Keys with ``peer_xk`` offered by an unknown sender at ``addr`` ((ip, port)): cached, or
        derived if ``addr``'s bucket (``INTRO_ADDR_BURST``, ``INTRO_ADDR_RATE``/s), its IP's
        (``INTRO_IP_BURST``, ``INTRO_IP_RATE``/s) and then the bucket of all sources
        (``INTRO_BURST``, ``INTRO_RATE``/s) each have a token (then one is taken from each; a refused
        introduction takes none); else None. ``addr`` None: the bucket of all sources only. The
        per-address and per-IP buckets are why a stranger flooding fresh keys from one socket, or
        from many sockets of one machine, leaves the budget to everyone else (spoofed sources still
        share the bucket of all sources: protocol.md §N2.1 item 3)."""
        peer_xk = bytes(peer_xk)
        keys = self._cache.get(peer_xk)
        if keys is not None:
            self._cache.move_to_end(peer_xk)
            return keys
        buckets = []
        for bucket in self._intro_buckets(addr, now):
            if not bucket.ready(now):  # refused: no token taken from any (§N2.1 item 3, H110)
                self.stats["intro_limited"] += 1
                return None
            buckets.append(bucket)
        for bucket in buckets:
            bucket.take(now)
        return self._derive(peer_xk)

    def _intro_buckets(self, addr: Any, now: float) -> Iterator[TokenBucket]:
        """The buckets an introduction from ``addr`` needs a token of, in the order asked: its
        address's and its IP's (made on first use; none for ``addr`` None), then all sources'."""
        if addr is not None:
            yield bucket_in(self._intros_by_addr, addr, INTRO_ADDR_BURST, INTRO_ADDR_RATE, now, INTRO_ADDRS)
            yield bucket_in(self._intros_by_ip, addr[0], INTRO_IP_BURST, INTRO_IP_RATE, now, INTRO_ADDRS)
        yield self._intros



# -- proof of a new epoch (protocol.md §N2.2) ------------------------------------------------------

ANSWER_INTERVAL = 0.010
"""Least time (s) between two answers of one kind (challenge, response, stale-epoch ack) on one
channel: a replayed datagram is never answered more often than this."""


def _nonce_of(pending: tuple[int, int] | None, epoch: int) -> tuple[int, int]:
    """The (epoch, nonce) a challenge of ``epoch`` carries: ``pending`` again if it is ``epoch``'s
    (a RESPONSE to its earlier copy still proves it), else a fresh random non-zero 32-bit nonce."""
    if pending is not None and pending[0] == epoch:
        return pending
    return epoch, int.from_bytes(os.urandom(4), "big") or 1


class EpochProof:
    """The challenge/response by which one channel believes a new instance (epoch) of its peer
    only once proven (protocol.md §N2.2), and the rate limit of its unsolicited answers.

    When a datagram shows an unknown epoch, we answer with a CHALLENGE carrying a fresh random
    non-zero 32-bit nonce (``unproven``); the new instance is believed only when a RESPONSE
    addressed to our epoch echoes that nonce (``proves``): a replayed datagram of an earlier
    instance cannot reset anything. A CHALLENGE addressed to us is answered with a RESPONSE
    (``challenged``). Each kind of answer (``CHALLENGE``, ``RESPONSE``, ``STALE``: the ack that
    shows our epoch to a sender that addresses an earlier one) goes out at most every
    ``ANSWER_INTERVAL`` s. On a keyed channel these datagrams are MACed like any other, so only
    the peer's key can prove its new epoch.

    The return-routability CHALLENGE of the peer's *current* instance (an unconfirmed channel's,
    or a seat's at the game's start: protocol.md §N2.6) has a slot and a rate limit of its own
    (``check``, ``checks``, ``take_check``): a datagram of another epoch, which anyone can forge on
    a plain channel, is challenged in the other slot and never displaces it (H86: one forged fresh
    epoch a second from a joiner by code's address kept its channel unconfirmed for good).

    ``due`` (read-only): a CHALLENGE or RESPONSE waits to be sent (``take``, ``take_check``). The
    channel frames and counts the datagrams; this object holds only epochs, nonces and times (s).
    """

    CHALLENGE = 0
    RESPONSE = 1
    STALE = 2
    CHECK = 3

    __slots__ = ("_challenge", "_challenge_due", "_check", "_check_due", "_respond", "_answered", "due")

    def __init__(self) -> None:
        self._challenge: tuple[int, int] | None = None  # (epoch, nonce) we asked to prove itself
        self._challenge_due = False
        self._check: tuple[int, int] | None = None  # (current epoch, nonce): return routability
        self._check_due = False
        self._respond: tuple[int, int] | None = None  # (epoch, nonce) to echo in a RESPONSE
        self._answered = [-1.0, -1.0, -1.0, -1.0]  # kind -> when we last answered
        self.due = False

    def may_answer(self, kind: int, now: float) -> bool:
        """True (and noted) if an answer of ``kind`` may go out at ``now``; False: the last one
        was less than ``ANSWER_INTERVAL`` s ago (the caller counts it)."""
        if now - self._answered[kind] < ANSWER_INTERVAL:
            return False
        self._answered[kind] = now
        return True

    def challenged(self, epoch: int, nonce: int, now: float) -> bool:
        """A CHALLENGE of the peer's instance ``epoch`` addressed to our epoch: echo ``nonce``
        in a RESPONSE. False if rate-limited (nothing queued)."""
        if not self.may_answer(self.RESPONSE, now):
            return False
        self._respond = (epoch, nonce)
        self.due = True
        return True

    def unproven(self, epoch: int, now: float) -> bool:
        """A datagram of an unknown instance ``epoch`` of the peer: challenge it (a fresh nonce
        for a new epoch, the same nonce again for the same one). False if rate-limited."""
        self._challenge = _nonce_of(self._challenge, epoch)
        if not self.may_answer(self.CHALLENGE, now):
            return False
        self._challenge_due = self.due = True
        return True

    def check(self, epoch: int, now: float) -> bool:
        """A datagram of the peer's current instance ``epoch`` on a channel whose address is not
        proven: challenge it in the return-routability slot (the same nonce again for the same
        epoch), rate-limited apart from ``unproven``. False if rate-limited (the nonce is kept)."""
        self._check = _nonce_of(self._check, epoch)
        if not self.may_answer(self.CHECK, now):
            return False
        self._check_due = self.due = True
        return True

    def ask(self, epoch: int) -> None:
        """Challenge the peer's current instance ``epoch`` now, unasked (not an answer to a
        datagram, so not rate-limited): the owner wants its address proven (the game started,
        protocol.md §N2.6 "Game started"). The return-routability slot (``check``): keeps its
        nonce for the same epoch, and a pending challenge of a new epoch stays."""
        self._check = _nonce_of(self._check, epoch)
        self._check_due = self.due = True

    def proves(self, epoch: int, nonce: int) -> bool:
        """True if a RESPONSE from instance ``epoch`` echoing ``nonce`` (addressed to our epoch:
        the caller checks) answers our challenge of a new instance (``unproven``)."""
        return self._challenge == (epoch, nonce)

    def checks(self, epoch: int, nonce: int) -> bool:
        """True if a RESPONSE from instance ``epoch`` echoing ``nonce`` (addressed to our epoch)
        answers our return-routability challenge (``check``, ``ask``)."""
        return self._check == (epoch, nonce)

    def proven(self) -> None:
        """The new instance is believed: no challenge is pending any more (a return-routability
        challenge of the old instance neither: it can no longer answer)."""
        self._challenge = self._check = None
        self._challenge_due = self._check_due = False
        self.due = self._respond is not None

    def checked(self) -> None:
        """The return-routability challenge was answered: it is no longer pending (a challenge of
        a new instance stays)."""
        self._check = None
        self._check_due = False
        self.due = self._respond is not None or self._challenge_due

    @property
    def pending(self) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
        """(the challenge a RESPONSE must answer, the RESPONSE waiting to go out), each as
        (epoch, nonce) or None: what a datagram can change here (for tests and dumps)."""
        return self._challenge, self._respond

    @property
    def pending_check(self) -> tuple[int, int] | None:
        """The return-routability challenge a RESPONSE must answer as (epoch, nonce), or None."""
        return self._check

    def take(self) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
        """(RESPONSE to send as (epoch, nonce) or None, CHALLENGE of a new instance to send or
        None), now; both are then no longer due (the challenge's nonce stays the one a RESPONSE
        must echo). A due return-routability challenge stays due (``take_check``)."""
        respond, self._respond = self._respond, None
        challenge = self._challenge if self._challenge_due else None
        self._challenge_due = False
        self.due = self._check_due
        return respond, challenge

    def take_check(self) -> tuple[int, int] | None:
        """The return-routability CHALLENGE to send now as (epoch, nonce), or None; then no longer
        due (its nonce stays the one a RESPONSE must echo, ``checks``)."""
        check = self._check if self._check_due else None
        self._check_due = False
        self.due = self._respond is not None or self._challenge_due
        return check


class PlainSacks:
    """What a *plain* channel's acknowledgements are worth once it is keyed in place (trust on first
    use, protocol.md §N2.1 step 3 "Keyed in place", H148; H146 s13b BREAK #6).

    A plain datagram is anyone's: a spoofer who saw the peer's epoch (in the clear) can plant chunks
    ahead of the receiver's next expected one, and acknowledge ours selectively. When the channel is
    keyed (``Channel.upgrade``), ``rekey`` therefore (1) drops every chunk the receive side (a
    ``recv_stream.RecvStream``) holds out of order and any payload half reassembled (its rest is
    skipped): never delivered under the key; only the in-order prefix delivered while plain stays
    delivered; and (2) on the send side (a ``send_stream.SendStream``), takes back as unacknowledged
    every chunk the plain channel's peer acknowledged only selectively (beyond its cumulative ack):
    the peer, keyed too, dropped them or never had them, so they are resent, MACed. For (2) the plain
    channel keeps those chunks here (``note``, before ``SendStream.on_ack`` frees them): at most one
    entry per chunk in flight (``SEND_WINDOW``), forgotten once cumulatively acknowledged.
    ``held``: seq -> the send stream's in-flight entry ([flags, chunk, sent_at, resent, withheld]).
    """

    __slots__ = ("held",)

    def __init__(self) -> None:
        self.held: dict[int, list[Any]] = {}

    def note(self, inflight: dict[int, list[Any]], ack: int, bits: int) -> None:
        """A plain datagram acknowledges every seq below ``ack`` and ``ack + 1 + i`` for each bit i of
        ``bits`` (§N2.3): keep the in-flight entries of the latter, forget those below ``ack``."""
        held = self.held
        if held:
            for seq in [s for s in held if s < ack]:
                del held[seq]
        while bits:
            low = bits & -bits
            seq = ack + low.bit_length()
            entry = inflight.get(seq)
            if entry is not None:
                held[seq] = entry
            bits ^= low

    def rekey(self, receiver: Any, sender: Any) -> int:
        """The channel is keyed now: drop the receive side's unauthenticated chunks
        (``RecvStream.drop_unordered``) and make the chunks the peer acknowledged only selectively
        while plain due again (``SendStream.take_back``). Returns the number of chunks dropped on the
        receive side."""
        dropped = receiver.drop_unordered()
        held, self.held = self.held, {}
        sender.take_back(held)
        return dropped
