"""Reliable, ordered datagram channels over UDP: the sans-I/O core.

Theory of operation (wire contract: protocol.md part N, "Transport"):

* Every datagram starts with a 22-byte header (``HEADER``): magic/version, flags, the sender's
  epoch, the epoch the sender believes the receiver has (0 = not heard from it yet), the
  datagram's sequence number, a cumulative acknowledgement and a 32-bit selective
  acknowledgement bitmap. Anything that does not parse is dropped and counted, never raised.
* Authentication (WireGuard's model, ``p2p.channel_auth``): a channel whose peer's X25519 key
  is known is *keyed*; every datagram on it, pure acks included, ends with a 16-byte MAC over
  all its other bytes under the pairwise key of its direction (magic ``MAGIC_AUTH``), or also
  carries the sender's X25519 key after the header while the peer may not know it yet
  (``MAGIC_INTRO``, an *introduction*). A keyed channel drops every datagram whose MAC fails
  or that is not MACed, before looking at anything else: it changes no state and gets no
  answer. The owner names the keys it expects (``Endpoint.pin``); an introduction from an
  unknown address opens a keyed channel (key derivations for such offers are rate-limited).
  Plain channels (magic ``MAGIC``) exist only for lobby-time peers with no key yet and can
  never reach a keyed channel (``Endpoint.accept_plain``).
* A ``Channel`` talks to one peer. ``send(payload)`` splits the payload into chunks of at most
  ``MAX_CHUNK`` bytes, each with its own sequence number (all but the last carry ``FLAG_MORE``).
  The receiver buffers chunks that arrive early (up to ``RECV_WINDOW`` ahead), drops duplicates,
  and delivers whole payloads strictly in order.
* Acknowledgements ride on data going the other way. A pure ack goes out only when nothing was
  sent for ``MAX_ACK_DELAY`` seconds, after ``ACK_EVERY`` in-order datagrams, or at once when a
  gap or a duplicate shows that the peer is missing an ack, or the datagram asks for it
  (``FLAG_ACK_NOW``). In lockstep every peer answers each step with its next step message, so
  the hot path carries one datagram per message, not two.
* Unacknowledged datagrams are resent (loss recovery: ``p2p.recovery.Recovery``, one per
  channel, as aioquic's ``recovery.py``) after the retransmission timeout (RFC 6298 estimator,
  ``INITIAL_RTO`` at first, floored at ``MIN_RTO``, doubled per consecutive timeout, capped at
  ``MAX_RTO``), or at once when the selective ack shows a datagram sent after it arrived and
  either ``PACKET_THRESHOLD`` later ones did or ``TIME_THRESHOLD`` round trips passed.
* Lossy regime: for ``LOSS_HOLD`` s after a resend that shows loss (a hole in a selective
  ack, or two resends within ``LOSS_HOLD``), every data datagram carries
  ``FLAG_ACK_NOW``; the receiver acks those at once, and their RTO follows a second estimator
  fed only by them (the bare round trip, floor ``PROMPT_MIN_RTO``), so loss costs a few ms per
  datagram instead of ``MIN_RTO``; and each new data datagram is sent twice, so that only a loss
  of both copies costs a timeout (issue 14: a 4-peer game at 20% loss took 5-8x its clean time,
  now ~3x).
* Buffers are bounded: at most ``SEND_WINDOW`` datagrams in flight, ``MAX_SEND_BUFFER`` bytes
  queued (``send`` raises ``BufferFull`` beyond it), ``RECV_WINDOW`` datagrams buffered out of
  order, ``MAX_MESSAGE`` bytes per reassembled payload, ``MAX_RECV_BUFFER`` bytes buffered on
  the receive side across all channels, ``max_peers`` channels per endpoint; channels opened by
  strangers are evicted when idle or when room is needed, and once the game started only the
  setup's endpoints may open channels (``Endpoint.trust``/``restrict``). Strangers do not draw
  on ``MAX_RECV_BUFFER`` (``STRANGER_RECV_CAP`` each), and a channel opened by the peer's
  datagram sends at most ``UNCONFIRMED_FACTOR`` x what it received until the peer answers a
  CHALLENGE sent to its address (return routability), giving up after ``UNCONFIRMED_RESENDS`` resends (reflection, protocol.md §N2.6).
* The epoch (random per endpoint instance) tells a restarted peer from a late datagram: when a
  peer's epoch changes, both directions of the channel start again from sequence 0 and
  whatever was queued for the old instance is discarded (the lockstep layer catches a restarted
  peer up by itself). A new epoch is believed only once *proven*: we answer its first datagram
  with a CHALLENGE (``channel_auth.EpochProof``; a pure ack carrying a fresh random 32-bit nonce in ``seq``) and switch only
  when a RESPONSE echoing that nonce, addressed to our epoch, arrives (MACed on a keyed
  channel): a replayed datagram of any earlier instance cannot reset anything. Datagrams from
  a retired epoch, or addressed to another epoch than ours, are dropped (the latter answered
  with an ack, at most every ``ANSWER_INTERVAL`` s, so the sender learns our epoch).

The core never reads a clock: every entry point takes ``now`` (seconds, monotonic float), in the
manner of aioquic's ``QuicConnection``. This module is one peer's ``Channel``; the ``Endpoint``
that routes a socket's datagrams to channels, keys them and evicts strangers is
``p2p.endpoint``, and the asyncio adapter that drives it from a UDP socket is ``p2p.link.Link``
(as aioquic keeps ``asyncio/protocol.py`` apart from its connection).
"""

from __future__ import annotations

import os
import struct
from collections import deque
from collections.abc import Callable
from typing import Any

from .channel_auth import TAG_LEN, XKEY_LEN, EpochProof, PairKeys, mac, mac_ok
from .errors import LocalProtocolError
# The loss-recovery constants are recovery.py's; named here too, as the transport's (§N2.5).
from .recovery import (INITIAL_RTO, LOSS_HOLD, MAX_RTO, MIN_RTO, PACKET_THRESHOLD,  # noqa: F401
                       PROMPT_MIN_RTO, LossClock, Recovery)

Addr = tuple[str, int]
"""A UDP address: (host, port)."""

MAGIC = 0xB1
"""First header byte of a *plain* datagram: high nibble 0xB marks lanopoli's transport, low
nibble 1 = unauthenticated (lobby-time channels only)."""
MAGIC_AUTH = 0xB2
"""First byte of an authenticated datagram: header, chunk, 16-byte MAC."""
MAGIC_INTRO = 0xB3
"""First byte of an introduction: header, the sender's 32-byte X25519 key, chunk, MAC."""
HEADER = struct.Struct("!BBIIIII")
"""magic u8, flags u8, src_epoch u32, dst_epoch u32, seq u32, ack u32, ack_bits u32 —
network byte order."""
HEADER_SIZE = HEADER.size  # 22
MAX_DATAGRAM = 1200
"""Largest datagram sent, header included (fits one Ethernet frame with any IP/UDP headers)."""
MAX_CHUNK = MAX_DATAGRAM - HEADER_SIZE - XKEY_LEN - TAG_LEN  # 1130, whatever the form
FLAG_DATA = 0x01
"""The datagram carries a chunk with sequence number ``seq``; without it, a pure ack."""
FLAG_MORE = 0x02
"""More chunks of the same payload follow (only with FLAG_DATA)."""
FLAG_CHALLENGE = 0x04
"""Pure ack only: ``seq`` is a random non-zero nonce; the instance ``dst_epoch`` must echo it
in a RESPONSE to prove it is alive (a new epoch is believed only then)."""
FLAG_RESPONSE = 0x08
"""Pure ack only: ``seq`` echoes the nonce of a CHALLENGE addressed to our epoch."""
FLAG_ACK_NOW = 0x10
"""Only with FLAG_DATA: acknowledge this datagram at once, not after ``MAX_ACK_DELAY``. The
sender sets it while it is in its lossy regime (it resent something in the last
``LOSS_HOLD`` s), so that its RTO can follow the bare round trip (protocol.md §N2.4, §N2.5)."""
_KNOWN_FLAGS = FLAG_DATA | FLAG_MORE | FLAG_CHALLENGE | FLAG_RESPONSE | FLAG_ACK_NOW
_PROBE_FLAGS = FLAG_CHALLENGE | FLAG_RESPONSE
ACK_BITS = 32
"""Bit i of ack_bits acknowledges datagram ``ack + 1 + i``."""
MAX_SEQ = 0xFFFFFFFF

MAX_ACK_DELAY = 0.050
"""A received datagram is acknowledged within this time (s) — longer than most lockstep steps
of 8 seats on a loaded 2-core machine (~16 ms on average, tens of ms when a peer process waits
for a core), so that the next step's message carries the ack instead of a pure ack (issue 14:
13-25 pure acks per step at 8 seats with 10 ms)."""
ACK_EVERY = 4  # ...or after this many in-order datagrams, whichever comes first
COPY_GRACE = 0.005
"""A duplicate of the latest new chunk arriving within this time (s) of it is the sender's
lossy-regime copy: dropped without an immediate ack (the first one was acknowledged)."""
SEND_WINDOW = 64  # datagrams in flight per peer (~75 KB: below a default socket buffer)
RECV_WINDOW = 256  # datagrams buffered ahead of the next expected one
MAX_MESSAGE = 72 * 1024
"""Bytes per payload. The largest legitimate message is a CATCHUP_RESP (64 KiB,
``const.MAX_CATCHUP_MSG``); lobby messages are at most 16 KiB (a SETUP_SIG with the
hidden-information leaves of protocol.md §C12.2 is ~11.7 KB). 8 KiB of margin. Kept small on
purpose: every channel, even one opened by an unauthenticated stranger, may buffer this much."""
MAX_SEND_BUFFER = 8 * 1024 * 1024  # bytes queued or in flight per peer
RETIRED_EPOCHS = 4  # epochs of earlier instances of a peer remembered to drop their stragglers
MAX_RECV_BUFFER = 4 * 1024 * 1024
"""Bytes buffered on the receive side (out-of-order chunks + partial reassemblies) across all
channels of one endpoint. Eight busy peers need ~3 MB at most (256 out-of-order chunks + one
reassembly each); beyond it a chunk is dropped (``recv_budget_dropped``) and retransmitted.
Only trusted channels draw on it (``p2p.endpoint``: strangers have ``STRANGER_RECV_CAP`` each)."""
STRANGER_RECV_CAP = 20 * 1024
"""Bytes of out-of-order chunks an *untrusted* channel (a stranger's, protocol.md §N2.6) may
hold, beside its one in-order reassembly (≤ ``MAX_MESSAGE``): a lobby message (≤ 16 KiB) and
margin. Strangers do not draw on ``MAX_RECV_BUFFER``: with at most ``max_peers`` channels they
hold at most 32 x (20 + 72) KiB ≈ 2.9 MiB together, and out-of-order chunks that never complete
cannot starve a trusted peer's multi-chunk payload (red team, H37)."""
UNCONFIRMED_FACTOR = 3
"""A channel opened by the peer's datagram sends at most this many times the bytes it received
from that address until the peer echoed the nonce of a CHALLENGE sent there (protocol.md §N2.6: a spoofed
source cannot turn the channel into a reflector)."""
UNCONFIRMED_RESENDS = 3
"""Retransmission timeouts after which such an unconfirmed channel stops re-sending
(``unconfirmed_gaveup``) until the address sends again."""


__all__ = ["Addr", "BufferFull", "Channel", "LocalProtocolError", "MAGIC",
           "MAGIC_AUTH", "MAGIC_INTRO", "HEADER", "HEADER_SIZE", "MAX_DATAGRAM", "MAX_CHUNK",
           "MAX_MESSAGE", "RecvBudget", "STAT_KEYS", "STRANGER_RECV_CAP", "UNCONFIRMED_FACTOR",
           "UNCONFIRMED_RESENDS", "new_epoch"]


class BufferFull(LocalProtocolError):
    """``send`` would queue more than ``MAX_SEND_BUFFER`` bytes for one peer."""


def new_epoch() -> int:
    """A random non-zero 32-bit epoch for a new endpoint instance."""
    return int.from_bytes(os.urandom(4), "big") or 1


STAT_KEYS = (
    "datagrams_sent", "datagrams_received", "payloads_sent", "payloads_delivered",
    "pure_acks_sent", "retransmits", "fast_retransmits", "timeouts", "duplicates",
    "out_of_window", "malformed", "stale_epoch", "peer_restarts", "oversize_dropped",
    "rtt_samples", "recv_budget_dropped", "unauthenticated", "bad_mac", "key_mismatch",
    "epoch_unproven", "challenges_sent", "responses_sent", "answers_limited", "copies_sent",
    "unconfirmed_withheld", "unconfirmed_gaveup",
)


class RecvBudget:
    """Receive-side bytes shared by some channels of one endpoint: ``used`` and ``limit`` in
    bytes (``MAX_RECV_BUFFER`` for trusted channels; ``p2p.endpoint`` gives strangers another)."""

    __slots__ = ("used", "limit")

    def __init__(self, limit: int = MAX_RECV_BUFFER) -> None:
        self.used = 0
        self.limit = limit


class Channel:
    """Reliable, ordered, deduplicated payload stream to and from one peer (sans-I/O).

    ``addr`` is only echoed back in ``datagrams_to_send``; ``epoch`` is this endpoint's epoch
    (u32, non-zero). Times are seconds on any monotonic clock, the same for every call.
    Counters are in ``stats`` (dict name -> int); ``srtt`` is the smoothed RTT (s) or None.

    ``keys`` (``channel_auth.PairKeys``) makes the channel *keyed*: everything sent is MACed,
    everything received must be (protocol.md §N2.2); ``my_xk`` (our X25519 public key) is
    sent in introductions while ``introduce`` is true, i.e. until the peer has shown, by a
    valid MAC, that it knows our key. Without keys the channel is plain. ``loss_clock``
    (``recovery.LossClock``): the lossy regime shared with the endpoint's other channels.

    Receive side (protocol.md §N2.6): buffered chunks draw on ``budget`` and, if ``recv_cap``
    (bytes) is given, out-of-order chunks on this channel's own cap (a stranger's). Send side: ``confirmed`` False
    (a channel opened by the peer's datagram) bounds what is sent to ``UNCONFIRMED_FACTOR`` x
    the bytes received until the peer answers the CHALLENGE each of its datagrams earns with a
    RESPONSE (``confirmed``; an ack does not confirm: the numbers are predictable).
    """

    def __init__(self, addr: Addr, *, epoch: int, budget: RecvBudget | None = None,
                 keys: PairKeys | None = None, my_xk: bytes = b"", introduce: bool = False,
                 loss_clock: LossClock | None = None, recv_cap: int | None = None,
                 confirmed: bool = True) -> None:
        self.addr = addr
        self._epoch = epoch
        self._budget = budget if budget is not None else RecvBudget()
        self._recv_cap = recv_cap
        self._held = 0  # bytes this channel holds on the receive side (recv_buffered)
        #: Whether the peer proved it receives at this address (it acknowledged a datagram of
        #: ours, or answered a CHALLENGE); until then ``_rx``/``_tx`` bound what we send.
        self.confirmed = confirmed
        self._rx = 0  # bytes received from the address while unconfirmed
        self._tx = 0  # bytes sent to it while unconfirmed
        self._dormant = False  # unconfirmed and gave up re-sending (UNCONFIRMED_RESENDS)
        self._void_timeouts = 0  # RTO timeouts while unconfirmed since the address last spoke
        self.keys = keys
        self._my_xk = my_xk
        self._introduce = introduce and keys is not None
        #: Challenge/response of a new peer epoch, answer rate limits (channel_auth.py, §N2.2).
        self._proof = EpochProof()
        #: Loop time of the last datagram received (for the endpoint's eviction of strangers).
        self.last_rx = 0.0
        self.peer_epoch: int | None = None
        self._retired: deque[int] = deque(maxlen=RETIRED_EPOCHS)
        self.stats = dict.fromkeys(STAT_KEYS, 0)
        #: RTT estimators, RTO back-off, lossy regime (recovery.py).
        self._recovery = Recovery(loss_clock)
        #: How long (s) a received datagram may wait for its ack (0 once ``hurry_acks``).
        self.ack_delay = MAX_ACK_DELAY
        self._reset_send()
        self._reset_receive()

    def rebudget(self, budget: RecvBudget, recv_cap: int | None) -> None:
        """Draw on ``budget`` (and this channel's ``recv_cap``, None: no cap of its own) from now
        on; what is held moves with it (the endpoint's trust in the address changed, §N2.6)."""
        if budget is not self._budget:
            self._budget.used -= self._held
            budget.used += self._held
            self._budget = budget
        self._recv_cap = recv_cap

    def confirm(self) -> None:
        """The owner vouches for the address (``Endpoint.trust``): lift the send bound of an
        unconfirmed channel (protocol.md §N2.6 'Reflection')."""
        if not self.confirmed:
            self.confirmed = True
            if self._dormant:
                self._heard(0)

    def upgrade(self, keys: PairKeys, my_xk: bytes, introduce: bool) -> None:
        """Key a plain channel in place (its sequence state goes on): from now on it sends
        only MACed datagrams and accepts only datagrams MACed with ``keys``."""
        self.keys = keys
        self._my_xk = my_xk
        self._introduce = introduce

    @property
    def srtt(self) -> float | None:
        """Smoothed RTT (s) of datagrams acknowledged after a delay, or None before a sample."""
        return self._recovery.srtt

    @property
    def introducing(self) -> bool:
        """True while we send introductions (our X25519 key in every datagram)."""
        return self._introduce

    # -- state resets -------------------------------------------------------------------

    def _reset_send(self) -> None:
        self._next_seq = 0  # sequence number of the next chunk queued
        self._acked_below = 0  # every seq below this is acknowledged
        self._queue: deque[tuple[int, int, bytes]] = deque()  # (seq, flags, chunk) not yet sent
        self._inflight: dict[int, list[Any]] = {}  # seq -> [flags as sent, chunk, sent_at, retransmitted]
        self._lost: list[int] = []  # seqs to resend at the next datagrams_to_send
        self._buffered = 0  # bytes queued or in flight
        self._recovery.reset_backoff()

    def _reset_receive(self) -> None:
        if hasattr(self, "_ooo"):  # not on the first call, from __init__
            self._budget.used -= self._held
        self._held = 0
        self._expected = 0  # next in-order seq
        self._ooo: dict[int, tuple[int, bytes]] = {}  # seq -> (flags, chunk), arrived early
        self._frags: list[bytes] = []
        self._frag_size = 0
        self._discarding = False  # skipping the rest of an oversized payload
        self._ack_pending = 0  # datagrams received since we last sent an ack
        self._ack_deadline: float | None = None
        self._last_seq, self._last_seq_at = -1, 0.0  # latest new chunk received, when
        self._last_dg: bytes | None = None  # ...and the datagram that carried it

    # -- sending ------------------------------------------------------------------------

    def send(self, payload: bytes) -> None:
        """Queue ``payload`` (≤ MAX_MESSAGE bytes) for reliable in-order delivery.

        Raises ``LocalProtocolError`` if it is too large or the sequence space is used up, and
        ``BufferFull`` if more than ``MAX_SEND_BUFFER`` bytes would wait for this peer; in both
        cases nothing is queued.
        """
        size = len(payload)
        if size > MAX_MESSAGE:
            raise LocalProtocolError(f"payload of {size} bytes exceeds MAX_MESSAGE={MAX_MESSAGE}")
        if self._buffered + size > MAX_SEND_BUFFER:
            raise BufferFull(f"{self._buffered} bytes already wait for {self.addr}")
        n = max(1, -(-size // MAX_CHUNK))
        if self._next_seq + n > MAX_SEQ:
            raise LocalProtocolError("sequence space of this channel is used up")
        seq = self._next_seq
        if n == 1:
            self._queue.append((seq, FLAG_DATA, bytes(payload)))
        else:
            view = memoryview(payload)
            for i in range(n):
                flags = FLAG_DATA | (FLAG_MORE if i < n - 1 else 0)
                self._queue.append((seq + i, flags, bytes(view[i * MAX_CHUNK:(i + 1) * MAX_CHUNK])))
        self._next_seq = seq + n
        self._buffered += size
        self.stats["payloads_sent"] += 1

    def _ack_bits(self) -> int:
        if not self._ooo:
            return 0
        base = self._expected + 1
        bits = 0
        for seq in self._ooo:
            i = seq - base
            if 0 <= i < ACK_BITS:
                bits |= 1 << i
        return bits

    def _framer(self) -> Callable[..., bytes]:
        """A function (flags, dst, seq, ack, bits, chunk) -> the datagram bytes, in this
        channel's form: plain, authenticated or introduction (protocol.md §N2)."""
        keys = self.keys
        epoch = self._epoch
        pack = HEADER.pack
        if keys is None:
            return lambda flags, dst, seq, ack, bits, chunk: pack(MAGIC, flags, epoch, dst, seq, ack, bits) + chunk
        key = keys.send
        if self._introduce:
            xk = self._my_xk

            def frame(flags: int, dst: int, seq: int, ack: int, bits: int, chunk: bytes) -> bytes:
                msg = pack(MAGIC_INTRO, flags, epoch, dst, seq, ack, bits) + xk + chunk
                return msg + mac(key, msg)
        else:
            def frame(flags: int, dst: int, seq: int, ack: int, bits: int, chunk: bytes) -> bytes:
                msg = pack(MAGIC_AUTH, flags, epoch, dst, seq, ack, bits) + chunk
                return msg + mac(key, msg)
        return frame

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        """Datagrams due now: retransmissions, new chunks within the window, a due pure ack,
        a due CHALLENGE or RESPONSE (protocol.md §N2.2).

        Returns a list of (datagram bytes ≤ MAX_DATAGRAM, peer address); each carries the
        current acknowledgement state.
        """
        out: list[tuple[bytes, Addr]] = []
        frame = self._framer()
        ack = self._expected
        bits = self._ack_bits()
        dst = self.peer_epoch or 0
        addr = self.addr
        if self._proof.due and self.confirmed:
            self._probes(frame, out)
        recovery = self._recovery
        queue = self._queue
        if queue and 0 < len(self._inflight) < SEND_WINDOW and recovery.lossy(now) \
                and not recovery.backed_off:
            self._overdue(now)
        stats = self.stats
        if self._lost:
            inflight = self._inflight
            resend = [(seq, e) for seq in self._lost if (e := inflight.get(seq)) is not None]  # not acked meanwhile
            recovery.on_resend(now)  # may start the lossy regime (§N2.4)
            extra = recovery.copies(now) - 1
            for seq, entry in resend:
                entry[0] |= FLAG_ACK_NOW
                entry[2] = now
                entry[3] = True
                datagram = frame(entry[0], dst, seq, ack, bits, entry[1])
                out.append((datagram, addr))
                for _ in range(extra):  # the lossy regime's copies (§N2.4): resends are lost too
                    out.append((datagram, addr))
                stats["copies_sent"] += extra
            stats["retransmits"] += len(resend)
            self._lost.clear()
        if queue:
            inflight = self._inflight
            extra = recovery.copies(now) - 1
            prompt = FLAG_ACK_NOW if extra else 0
            while queue and len(inflight) < SEND_WINDOW:
                seq, flags, chunk = queue.popleft()
                flags |= prompt
                inflight[seq] = [flags, chunk, now, False]
                datagram = frame(flags, dst, seq, ack, bits, chunk)
                out.append((datagram, addr))
                if extra:
                    # Lossy regime: a copy, so that a loss costs a timeout only when both are
                    # lost (p² instead of p); the receiver drops it unread.
                    for _ in range(extra):
                        out.append((datagram, addr))
                    stats["copies_sent"] += extra
        if self._proof.due and not self.confirmed:
            self._probes(frame, out)  # after the data: the first datagram answers the request
        if out:
            self._ack_pending = 0
            self._ack_deadline = None
        elif self._ack_pending and self._ack_deadline is not None and now >= self._ack_deadline:
            out.append((frame(0, dst, 0, ack, bits, b""), addr))
            self._ack_pending = 0
            self._ack_deadline = None
            self.stats["pure_acks_sent"] += 1
        if not self.confirmed:
            out = self._within_bound(out)
        stats["datagrams_sent"] += len(out)
        return out

    def _within_bound(self, out: list[tuple[bytes, Addr]]) -> list[tuple[bytes, Addr]]:
        """Unconfirmed channel (protocol.md §N2.6, reflection): keep, in order, the datagrams
        that fit in ``UNCONFIRMED_FACTOR`` x the bytes received from the address minus the bytes
        already sent to it; the others are withheld (``unconfirmed_withheld``) as if lost on
        the way: in flight, they time out and are resent within the bound. While data is in
        flight no pure ack is sent: the peer, if real, re-sends, which raises the bound."""
        room = UNCONFIRMED_FACTOR * self._rx - self._tx
        kept = []
        # No pure ack while our data waits for its first ack: a real peer that hears nothing
        # re-sends, raising the bound, until a data datagram (carrying the ack) fits.
        waiting = bool(self._inflight)
        for item in out:
            size = len(item[0])
            if waiting and item[0][1] == 0:  # HEADER's flags byte (offset 1): 0 = a pure ack
                continue
            if size <= room:
                kept.append(item)
                room -= size
                self._tx += size
        self.stats["unconfirmed_withheld"] += len(out) - len(kept)
        return kept

    def _overdue(self, now: float) -> None:
        """Lossy regime, new data about to go (the window has room) to a peer that answers (no
        timeout since its last new ack): every datagram in flight sent once, with
        ``FLAG_ACK_NOW``, more than the time threshold ago (9/8 of the bare round trip, §N2.5)
        and still unacknowledged is resent with it. Its ack should have come already, so it (or
        its ack) was most likely lost; in lockstep the receiver is stuck on it, and resending it
        beside the next step's datagram costs one datagram instead of waiting for the RTO
        (RFC 8985's tail loss probe, sent when there is new data anyway). Once per datagram:
        a resent one waits for its RTO, so a peer that never acknowledges (a spoofed address,
        tests/p2p/test_redteam_lan.py) gets nothing beyond the RTO's resends."""
        threshold = self._recovery.time_thresholds()[1]
        lost = self._lost
        found = [s for s, e in self._inflight.items()
                 if e[0] & FLAG_ACK_NOW and not e[3] and now - e[2] >= threshold and s not in lost]
        if found:
            lost.extend(found)
            self.stats["fast_retransmits"] += len(found)

    def _probes(self, frame: Callable[..., bytes], out: list[tuple[bytes, Addr]]) -> None:
        # Pure acks with ack = 0 and no bits: they speak for no stream (the epoch they talk to
        # may be an instance we have no stream with yet).
        respond, challenge = self._proof.take()
        if respond is not None:
            out.append((frame(FLAG_RESPONSE, respond[0], respond[1], 0, 0, b""), self.addr))
            self.stats["responses_sent"] += 1
        if challenge is not None:
            out.append((frame(FLAG_CHALLENGE, challenge[0], challenge[1], 0, 0, b""), self.addr))
            self.stats["challenges_sent"] += 1

    @property
    def has_output(self) -> bool:
        """True if ``datagrams_to_send`` may return something now (cheap check)."""
        return not self._dormant and bool(self._lost or self._queue or self._ack_pending or self._proof.due)

    # -- timers -------------------------------------------------------------------------

    def get_timer(self) -> float | None:
        """The next time ``handle_timer`` must run (s), or None when nothing waits.

        A time in the past means "now": datagrams are due. None while an unconfirmed channel
        gave up (``unconfirmed_gaveup``) until the address sends again.
        """
        if self._dormant:
            return None
        if self._proof.due:
            return 0.0  # a CHALLENGE or RESPONSE is due now
        when = None
        if self._ack_pending and self._ack_deadline is not None:
            when = self._ack_deadline
        if self._inflight:
            # RTO of each datagram by the kind it was sent as (§N2.5, recovery.Recovery.rtos).
            delayed, prompt = self._recovery.rtos()
            due = min(e[2] + (prompt if e[0] & FLAG_ACK_NOW else delayed) for e in self._inflight.values())
            if when is None or due < when:
                when = due
        return when

    def handle_timer(self, now: float) -> None:
        """Mark datagrams unacknowledged for longer than the RTO as lost (resent by the next
        ``datagrams_to_send``) and back the RTO off; a due pure ack is sent there too. An
        unconfirmed channel gives up (``unconfirmed_gaveup``: sends nothing, no timer) at the
        timeout after ``UNCONFIRMED_RESENDS`` resends since the address last sent anything
        (protocol.md §N2.6); its queue and window are kept, and resent once the address speaks."""
        if not self._inflight or self._dormant:
            return
        delayed, prompt = self._recovery.rtos()
        lost_set = set(self._lost)
        expired = [s for s, e in self._inflight.items()
                   if e[2] + (prompt if e[0] & FLAG_ACK_NOW else delayed) <= now and s not in lost_set]
        if expired and not self.confirmed:
            self._void_timeouts += 1
            if self._void_timeouts > UNCONFIRMED_RESENDS:
                self._dormant = True
                self.stats["unconfirmed_gaveup"] += 1
                return
        if expired:
            self._lost.extend(sorted(expired))
            self._recovery.on_timeout()
            self.stats["timeouts"] += 1

    # -- receiving ----------------------------------------------------------------------

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> list[bytes]:
        """Process one datagram from the peer; return the payloads it completes, in order.

        Keyed channel: a datagram that is not MACed, or whose MAC or introduced key is wrong,
        is dropped first (``unauthenticated``, ``bad_mac``, ``key_mismatch``) and changes
        nothing. Then, on every channel, malformed datagrams (short, bad magic, unknown flags,
        an ack of data never sent) are dropped and counted in ``stats["malformed"]``; epochs
        are checked (protocol.md §N2.2). This never raises on peer input.
        """
        if data == self._last_dg and now - self._last_seq_at < COPY_GRACE:
            # The lossy regime's copy of the datagram just accepted (§N2.4): the same bytes,
            # already authenticated and acknowledged; dropped before the MAC and the header.
            self.stats["duplicates"] += 1
            return []
        keys = self.keys
        n = len(data)
        if keys is None:
            if n < HEADER_SIZE or data[0] != MAGIC:
                self.stats["malformed"] += 1
                return []
            body, end = HEADER_SIZE, n
        else:
            magic = data[0] if n else -1
            if magic == MAGIC_AUTH:
                body = HEADER_SIZE
            elif magic == MAGIC_INTRO:
                body = HEADER_SIZE + XKEY_LEN
                if data[HEADER_SIZE:body] != keys.peer_xk:
                    self.stats["key_mismatch"] += 1
                    return []
            else:
                self.stats["unauthenticated"] += 1
                return []
            end = n - TAG_LEN
            if end < body:
                self.stats["malformed"] += 1
                return []
            if not mac_ok(keys.recv, data[:end], data[end:]):
                self.stats["bad_mac"] += 1
                return []
            # Only our peer can MAC with this key: it knows ours, no need to introduce us.
            self._introduce = False
        _magic, flags, epoch, dst, seq, ack, bits = HEADER.unpack_from(data)
        if flags & ~_KNOWN_FLAGS or epoch == 0:
            self.stats["malformed"] += 1
            return []
        if flags & FLAG_DATA:
            if flags & _PROBE_FLAGS:
                self.stats["malformed"] += 1
                return []
        elif flags & (FLAG_MORE | FLAG_ACK_NOW) or end != body or flags == _PROBE_FLAGS or (flags and not seq):
            self.stats["malformed"] += 1
            return []
        me = self._epoch
        proof = self._proof
        if flags & FLAG_RESPONSE:
            # The proof a new instance of the peer is alive (§N2.2): the nonce we chose, sent to us.
            if dst == me and proof.proves(epoch, seq):
                if epoch == self.peer_epoch:
                    proof.proven()  # the return-routability challenge of an unconfirmed channel
                else:
                    self._new_peer_epoch(epoch)
                self.last_rx = now
                self.confirmed = True  # it echoed a random nonce sent to this address
                if self._dormant:
                    self._heard(0)
            else:
                self.stats["stale_epoch"] += 1
            return []
        if flags & FLAG_CHALLENGE and dst == me and not proof.challenged(epoch, seq, now):
            self.stats["answers_limited"] += 1
        if dst and dst != me:
            # Meant for an earlier instance of us: drop; an ack shows our epoch to the sender.
            self.stats["stale_epoch"] += 1
            if epoch == self.peer_epoch:
                if proof.may_answer(EpochProof.STALE, now):
                    self._ack_pending += 1
                    self._ack_deadline = now
                else:
                    self.stats["answers_limited"] += 1
            return []
        if epoch != self.peer_epoch:
            if self.peer_epoch is None:
                self.peer_epoch = epoch  # first contact: nothing to protect yet
            elif epoch in self._retired:
                self.stats["stale_epoch"] += 1
                return []
            else:
                # A restart, or a replay of some earlier instance: believe it only once proven.
                self.stats["epoch_unproven"] += 1
                if not proof.unproven(epoch, now):
                    self.stats["answers_limited"] += 1
                return []
        if ack > (self._queue[0][0] if self._queue else self._next_seq):
            self.stats["malformed"] += 1  # acknowledges data we never sent
            return []
        self.stats["datagrams_received"] += 1
        self.last_rx = now
        if not self.confirmed:
            self._heard(n)
            pending = proof.pending[0]
            if pending is None or pending[0] == epoch:
                # Return routability (§N2.6): a fresh nonce to this address; only the RESPONSE
                # that echoes it confirms the channel (rate-limited like every answer).
                proof.unproven(epoch, now)
        if ack > self._acked_below or bits:
            self._on_ack(ack, bits, now)
        if flags & FLAG_DATA:
            out = self._on_data(seq, flags, data[body:end], now)
            if self._last_seq == seq and self._last_seq_at == now:
                self._last_dg = data  # a new chunk: its copies are dropped unread (above)
            return out
        return []

    def _heard(self, size: int) -> None:
        """An unconfirmed channel accepted a datagram of ``size`` bytes: it raises the send
        bound, and a channel that gave up resends its window (the address is there again)."""
        self._rx += size
        self._void_timeouts = 0
        if self._dormant:
            self._dormant = False
            lost = set(self._lost)
            self._lost.extend(s for s in sorted(self._inflight) if s not in lost)

    def _new_peer_epoch(self, epoch: int) -> None:
        """The peer proved a new instance: both directions start again from seq 0."""
        if self.peer_epoch is not None:
            self._retired.append(self.peer_epoch)
            self._reset_send()
            self._reset_receive()
            self.stats["peer_restarts"] += 1
        self.peer_epoch = epoch
        self._proof.proven()

    def _on_ack(self, ack: int, bits: int, now: float) -> None:
        inflight = self._inflight
        acked = list(range(self._acked_below, ack))
        if ack > self._acked_below:
            self._acked_below = ack
        while bits:
            low = bits & -bits
            acked.append(ack + low.bit_length())  # bit i (value 1<<i) acknowledges ack + 1 + i
            bits ^= low
        largest = -1
        largest_sent = 0.0
        sample = None
        freed = 0
        for seq in acked:
            entry = inflight.pop(seq, None)
            if entry is not None:
                freed += len(entry[1])
                largest = seq
                largest_sent = entry[2]
                if not entry[3]:  # Karn: no RTT sample from a retransmitted datagram
                    sample = entry
        if largest < 0:
            return
        self._buffered -= freed
        recovery = self._recovery
        # RFC 6298 section 2; Karn's rule: no sample from a retransmitted datagram (above).
        if sample is None:
            recovery.acked(None, False)
        elif recovery.acked(now - sample[2], bool(sample[0] & FLAG_ACK_NOW)):
            self.stats["rtt_samples"] += 1
        if inflight:
            limit = largest - PACKET_THRESHOLD
            # Time threshold per kind of datagram: its estimator's srtt or the latest sample.
            delayed, prompt = recovery.time_thresholds()
            # Only datagrams (last) sent no later than the acknowledged one: a resent datagram is
            # not declared lost again by acks that were on their way before it was resent
            # (else every duplicate ack resends every hole again: a storm, seen at 8 seats).
            lost = [s for s, e in inflight.items()
                    if s < largest and e[2] <= largest_sent and s not in self._lost
                    and (s <= limit or now - e[2] >= (prompt if e[0] & FLAG_ACK_NOW else delayed))]
            if lost:
                self._lost.extend(sorted(lost))
                self.stats["fast_retransmits"] += len(lost)
                recovery.found_lost()

    def _on_data(self, seq: int, flags: int, chunk: bytes, now: float) -> list[bytes]:
        expected = self._expected
        if seq < expected or seq in self._ooo:
            self.stats["duplicates"] += 1
            if seq == self._last_seq and now - self._last_seq_at < COPY_GRACE:
                return []  # the lossy regime's second copy (§N2.4): the first one's ack covers it
            # Our ack was lost or late: say again at once what we hold.
            self._ack_pending += 1
            self._ack_deadline = now
            return []
        self._last_seq, self._last_seq_at = seq, now
        if seq >= expected + RECV_WINDOW:
            self.stats["out_of_window"] += 1
            return []
        budget = self._budget
        size = len(chunk)
        cap = self._recv_cap
        if (budget.used + size > budget.limit and (seq != expected or flags & FLAG_MORE)) \
                or (cap is not None and seq != expected and self._held - self._frag_size + size > cap):
            # The shared buffers (or a stranger's own cap of out-of-order chunks) are full (a
            # flood): drop, the sender resends.
            self.stats["recv_budget_dropped"] += 1
            return []
        if seq != expected:
            self._ooo[seq] = (flags, chunk)
            budget.used += size
            self._held += size
            self._ack_pending += 1
            self._ack_deadline = now  # a gap: tell the sender what arrived, at once
            return []
        out: list[bytes] = []
        self._take(flags, chunk, out)
        expected += 1
        ooo = self._ooo
        had_gap = bool(ooo)
        while ooo:
            nxt = ooo.pop(expected, None)
            if nxt is None:
                break
            budget.used -= len(nxt[1])
            self._held -= len(nxt[1])
            self._take(nxt[0], nxt[1], out)
            expected += 1
        self._expected = expected
        self._ack_pending += 1
        if had_gap or self._ack_pending >= ACK_EVERY or flags & FLAG_ACK_NOW:
            self._ack_deadline = now
        elif self._ack_deadline is None:
            self._ack_deadline = now + self.ack_delay
        self.stats["payloads_delivered"] += len(out)
        return out

    def _take(self, flags: int, chunk: bytes, out: list[bytes]) -> None:
        if self._discarding:
            if not flags & FLAG_MORE:
                self._discarding = False
            return
        if flags & FLAG_MORE:
            self._frag_size += len(chunk)
            if self._frag_size > MAX_MESSAGE:
                self._budget.used -= self._frag_size - len(chunk)
                self._held -= self._frag_size - len(chunk)
                self._frags = []
                self._frag_size = 0
                self._discarding = True
                self.stats["oversize_dropped"] += 1
                return
            self._budget.used += len(chunk)
            self._held += len(chunk)
            self._frags.append(chunk)
            return
        if self._frags:
            self._frags.append(chunk)
            out.append(b"".join(self._frags))
            self._budget.used -= self._frag_size
            self._held -= self._frag_size
            self._frags = []
            self._frag_size = 0
        else:
            out.append(chunk)

    def hurry_acks(self, now: float) -> None:
        """Acknowledge what we hold now and every datagram at once from now on: there is no
        next message left to carry the ack (the game is over, the owner drains before closing;
        protocol.md §N2.4). Without it each peer's close waits ``MAX_ACK_DELAY`` for the
        others' delayed acks of its last messages."""
        self.ack_delay = 0.0
        if self._ack_pending:
            self._ack_deadline = now

    @property
    def idle(self) -> bool:
        """True when nothing is queued, in flight, or waiting to be acknowledged."""
        return not (self._queue or self._inflight or self._ack_pending)

    @property
    def recv_buffered(self) -> int:
        """Bytes held on the receive side: out-of-order chunks plus the partial reassembly."""
        return self._held

    def release(self) -> None:
        """Give this channel's receive buffers back to the shared budget (it is forgotten)."""
        self._budget.used -= self._held
        self._held = 0
        self._ooo = {}
        self._frags = []
        self._frag_size = 0
