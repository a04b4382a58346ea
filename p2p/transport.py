"""Reliable, ordered datagram channels over UDP: the sans-I/O core.

Theory of operation (wire contract: protocol.md part N, "Transport"):

* Every datagram starts with a 22-byte header (``HEADER``): magic/version, flags, the sender's epoch, the epoch
  the sender believes the receiver has (0 = not heard from it yet), the datagram's sequence number, a cumulative
  acknowledgement and a 32-bit selective acknowledgement bitmap. Anything that does not parse is dropped and
  counted, never raised.
* Authentication (WireGuard's model, ``p2p.channel_auth``): a channel whose peer's X25519 key is known is
  *keyed*; every datagram on it, pure acks included, ends with a 16-byte MAC over all its other bytes under the
  pairwise key of its direction (magic ``MAGIC_AUTH``), or also carries the sender's X25519 key after the header
  while the peer may not know it yet (``MAGIC_INTRO``, an *introduction*). A keyed channel drops every datagram
  whose MAC fails or that is not MACed, before looking at anything else: it changes no state and gets no answer.
  The owner names the keys it expects (``Endpoint.pin``); an introduction from an unknown address opens a keyed
  channel (key derivations for such offers are rate-limited). Plain channels (magic ``MAGIC``) exist only for
  lobby-time peers with no key yet and can never reach a keyed channel (``Endpoint.accept_plain``).
* A ``Channel`` talks to one peer. ``send(payload)`` splits the payload into chunks of at most ``MAX_CHUNK``
  bytes, each with its own sequence number (all but the last carry ``FLAG_MORE``). The receiver buffers chunks
  that arrive early (up to ``RECV_WINDOW`` ahead), drops duplicates, and delivers whole payloads strictly in order.
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
* Lossy regime: for ``LOSS_HOLD`` s after a resend that shows loss (a hole in a selective ack, or two resends
  within ``LOSS_HOLD``), every data datagram carries ``FLAG_ACK_NOW``; the receiver acks those at once, and
  their RTO follows a second estimator fed only by them (the bare round trip, floor ``PROMPT_MIN_RTO``), so
  loss costs a few ms per datagram instead of ``MIN_RTO``; and each new data datagram is sent twice, so that
  only a loss of both copies costs a timeout (issue 14: a 4-peer game at 20% loss took 5-8x its clean time,
  now ~3x).
* Buffers are bounded: at most ``SEND_WINDOW`` datagrams in flight, ``MAX_SEND_BUFFER`` bytes queued (``send``
  raises ``BufferFull`` beyond it), ``RECV_WINDOW`` datagrams buffered out of order, ``MAX_MESSAGE`` bytes per
  reassembled payload, ``MAX_RECV_BUFFER`` bytes buffered on the receive side across all channels,
  ``max_peers`` channels per endpoint; channels opened by strangers are evicted when idle or when room is
  needed, and once the game started only the setup's endpoints may open channels
  (``Endpoint.trust``/``restrict``). Strangers do not draw on ``MAX_RECV_BUFFER`` (``STRANGER_RECV_CAP``
  each), and a channel opened by the peer's datagram sends at most ``UNCONFIRMED_FACTOR`` x what it received
  until the peer answers a CHALLENGE sent to its address (return routability), giving up after
  ``UNCONFIRMED_RESENDS`` resends (reflection, protocol.md §N2.6).
* The epoch (random per endpoint instance) tells a restarted peer from a late datagram: when a peer's epoch
  changes, both directions of the channel start again from sequence 0 and whatever was queued for the old
  instance is discarded (the lockstep layer catches a restarted peer up by itself). A new epoch is believed only
  once *proven*: we answer its first datagram with a CHALLENGE (``channel_auth.EpochProof``; a pure ack carrying
  a fresh random 32-bit nonce in ``seq``) and switch only when a RESPONSE echoing that nonce, addressed to our
  epoch, arrives (MACed on a keyed channel): a replayed datagram of any earlier instance cannot reset anything.
  Datagrams from a retired epoch, or addressed to another epoch than ours, are dropped (the latter answered with
  an ack, at most every ``ANSWER_INTERVAL`` s, so the sender learns our epoch).

The core never reads a clock: every entry point takes ``now`` (seconds, monotonic float), in the manner of
aioquic's ``QuicConnection``. This module is one peer's ``Channel``: it authenticates and parses a datagram, checks
epochs (§N2.2) and hands the rest to its parts, each owning its state: ``p2p.send_stream.SendStream`` (chunks,
window, acks received, retransmission; its numbers are ``p2p.recovery.Recovery``'s), ``p2p.recv_stream.RecvStream``
(reassembly, acks owed, receive budget), ``p2p.return_route.ReturnRoute`` (the send bound of an unconfirmed
channel) and ``p2p.peer_epoch.PeerEpoch`` (the peer's current, proven and retired epochs); the resume point of a
forgotten channel is ``p2p.resume_point``'s, the datagram format and its framer ``p2p.datagram``'s. This module
re-exports their names, the transport's public surface. The ``Endpoint`` that routes a socket's datagrams to
channels, keys them and evicts strangers is ``p2p.endpoint``, and the asyncio adapter that drives it from a UDP
socket is ``p2p.link.Link`` (as aioquic keeps ``asyncio/protocol.py`` apart from its connection).
"""

from __future__ import annotations

from .channel_auth import TAG_LEN, XKEY_LEN, EpochProof, PairKeys, PlainSacks, mac_ok
from .datagram import (ACK_BITS, FLAG_ACK_NOW, FLAG_CHALLENGE, FLAG_DATA, FLAG_MORE,  # noqa: F401
                       FLAG_RESPONSE, HEADER, HEADER_SIZE, KNOWN_FLAGS, MAGIC, MAGIC_AUTH, MAGIC_INTRO,
                       MAX_CHUNK, MAX_DATAGRAM, MAX_MESSAGE, MAX_SEQ, PROBE_FLAGS, Addr, Frame, framer,
                       new_epoch)
from .errors import LocalProtocolError
from .peer_epoch import PeerEpoch
from .recv_stream import (ACK_EVERY, COPY_GRACE, MAX_ACK_DELAY, MAX_RECV_BUFFER, RECV_WINDOW,  # noqa: F401
                          STRANGER_RECV_CAP, RecvBudget, RecvStream)
# The loss-recovery constants are recovery.py's; named here too, as the transport's (§N2.5).
from .recovery import (INITIAL_RTO, LOSS_HOLD, MAX_RTO, MIN_RTO, PACKET_THRESHOLD,  # noqa: F401
                       PROMPT_MIN_RTO, LossClock)
from .resume_point import ResumePoint, point_of, resume_from
from .return_route import UNCONFIRMED_FACTOR, UNCONFIRMED_RESENDS, ReturnRoute
from .send_stream import MAX_SEND_BUFFER, SEND_WINDOW, BufferFull, SendStream  # noqa: F401

__all__ = ["Addr", "BufferFull", "Channel", "LocalProtocolError", "MAGIC", "MAGIC_AUTH", "MAGIC_INTRO", "HEADER",
           "HEADER_SIZE", "MAX_DATAGRAM", "MAX_CHUNK", "MAX_MESSAGE", "RecvBudget", "STAT_KEYS", "STRANGER_RECV_CAP",
           "UNCONFIRMED_FACTOR", "UNCONFIRMED_RESENDS", "new_epoch"]

STAT_KEYS = (
    "datagrams_sent", "datagrams_received", "payloads_sent", "payloads_delivered", "pure_acks_sent", "retransmits",
    "fast_retransmits", "timeouts", "duplicates", "out_of_window", "malformed", "stale_epoch", "peer_restarts",
    "oversize_dropped", "rtt_samples", "recv_budget_dropped", "unauthenticated", "bad_mac", "key_mismatch",
    "epoch_unproven", "challenges_sent", "responses_sent", "answers_limited", "copies_sent", "unconfirmed_withheld",
    "unconfirmed_gaveup", "plain_dropped",
)


class Channel:
    """Reliable, ordered, deduplicated payload stream to and from one peer (sans-I/O).

    ``addr`` is only echoed back in ``datagrams_to_send``; ``epoch`` is this endpoint's epoch
    (u32, non-zero). Times are seconds on any monotonic clock, the same for every call.
    Counters are in ``stats`` (dict name -> int, shared with the parts); ``srtt`` is the
    smoothed RTT (s) or None.

    ``keys`` (``channel_auth.PairKeys``) makes the channel *keyed*: everything sent is MACed,
    everything received must be (protocol.md §N2.2); ``my_xk`` (our X25519 public key) is
    sent in introductions while ``introduce`` is true, i.e. until the peer has shown, by a
    valid MAC, that it knows our key. Without keys the channel is plain. ``loss_clock``
    (``recovery.LossClock``): the lossy regime shared with the endpoint's other channels.

    Receive side (``recv_stream``, protocol.md §N2.6): buffered chunks draw on ``budget`` and,
    if ``recv_cap`` (bytes) is given, out-of-order chunks on this channel's own cap (a
    stranger's). Send side: ``confirmed`` False (a channel opened by the peer's datagram)
    bounds what is sent (``return_route.ReturnRoute``) to ``UNCONFIRMED_FACTOR`` x the bytes
    received until the peer answers the CHALLENGE each of its datagrams earns with a RESPONSE
    (an ack does not confirm: the numbers are predictable).

    ``sender``, ``receiver``, ``route`` and ``peer`` are the channel's parts, readable (tests,
    stats); only the channel calls them.
    """

    def __init__(self, addr: Addr, *, epoch: int, budget: RecvBudget | None = None,
                 keys: PairKeys | None = None, my_xk: bytes = b"", introduce: bool = False,
                 loss_clock: LossClock | None = None, recv_cap: int | None = None,
                 confirmed: bool = True) -> None:
        self.addr = addr
        self._epoch = epoch
        self.keys = keys
        self._my_xk = my_xk
        self._introduce = introduce and keys is not None
        self._frame: Frame | None = None  # framer() of the above, built when first needed
        #: Challenge/response of a new peer epoch, answer rate limits (channel_auth.py, §N2.2).
        self._proof = EpochProof()
        #: Loop time of the last datagram received (for the endpoint's eviction of strangers).
        self.last_rx = 0.0
        #: Loop time the peer was last *heard* here: a RESPONSE to our nonce or, over a proven route,
        #: a datagram that advanced the channel; never a replay (§N2.2 "Heard", H122 s12 #1 #2).
        self.last_heard = 0.0
        #: The peer's epoch, proven or not, and the retired ones (§N2.2).
        self.peer = PeerEpoch()
        self.stats = stats = dict.fromkeys(STAT_KEYS, 0)
        self.sender = SendStream(stats, loss_clock)
        self.receiver = RecvStream(stats, budget if budget is not None else RecvBudget(), recv_cap)
        self.route = ReturnRoute(stats, confirmed)
        self._sacks = PlainSacks()  # what a plain peer acknowledged selectively (``upgrade``)

    peer_epoch = property(lambda self: self.peer.current, doc="The peer's epoch (u32) or None.")

    def rebudget(self, budget: RecvBudget, recv_cap: int | None) -> None:
        """Draw on ``budget`` and ``recv_cap`` (None: none) from now on; what is held moves with it (§N2.6)."""
        self.receiver.rebudget(budget, recv_cap)

    @property
    def confirmed(self) -> bool:
        """Whether the channel sends without the bound: the peer proved it receives at this
        address (it answered a CHALLENGE sent there), or we chose the address and the game has
        not started (``require_proof``, §N2.6)."""
        return self.route.confirmed

    def require_proof(self, allowance: int = 0) -> None:
        """The game started (``Endpoint.restrict``: this is a seat's address): unless the peer
        already proved it receives here, bound what we send to ``UNCONFIRMED_FACTOR`` x the bytes
        it sent us over the channel's life and CHALLENGE its current epoch at once; its RESPONSE
        lifts the bound (protocol.md §N2.6 "Game started"). The address may be a victim's where a
        seat-holder seated a ghost key (H82). A channel that never heard its peer sends at most
        ``allowance`` bytes (a resumed peer's first flight) until it does, and is challenged then."""
        if self.route.demand(allowance):
            self._ask_proof()

    def _ask_proof(self) -> None:
        """CHALLENGE the peer's current epoch now (a seat's channel not proven, §N2.6 "Game
        started"): at the start and at each retransmission timeout, so the proof does not wait
        for the peer to speak. Nothing without a peer epoch to name. A pending challenge of a new
        epoch stays (its own slot, ``EpochProof``): its RESPONSE proves the address too."""
        epoch = self.peer.current
        if epoch is not None:
            self._proof.ask(epoch)

    def upgrade(self, keys: PairKeys, my_xk: bytes, introduce: bool) -> None:
        """Key a plain channel in place (its sequence state goes on): from now on it sends
        only MACed datagrams and accepts only datagrams MACed with ``keys``. What the plain channel
        took on anyone's word is undone (``PlainSacks.rekey``, §N2.1 step 3 "Keyed in place"): chunks
        held out of order are dropped (``plain_dropped``), ours acknowledged selectively are resent."""
        self.stats["plain_dropped"] += self._sacks.rekey(self.receiver, self.sender)
        self.keys = keys
        self._my_xk = my_xk
        self._introduce = introduce
        self._frame = None

    @property
    def srtt(self) -> float | None:
        """Smoothed RTT (s) of datagrams acknowledged after a delay, or None before a sample."""
        return self.sender.recovery.srtt

    @property
    def introducing(self) -> bool:
        """True while we send introductions (our X25519 key in every datagram; a MACed one from the peer ends them).
        Set True to send them again: a peer that never heard us may have forgotten us (§N2.6 "Strangers")."""
        return self._introduce

    @introducing.setter
    def introducing(self, on: bool) -> None:
        self._introduce, self._frame = on and self.keys is not None, None

    def send(self, payload: bytes) -> None:
        """Queue ``payload`` (≤ MAX_MESSAGE bytes) for reliable in-order delivery.

        Raises ``LocalProtocolError`` if it is too large or the sequence space is used up, and
        ``BufferFull`` if more than ``MAX_SEND_BUFFER`` bytes would wait for this peer; in both
        cases nothing is queued."""
        self.sender.send(payload, self.addr)

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        """Datagrams due now: retransmissions, new chunks within the window, a due pure ack,
        a due CHALLENGE or RESPONSE (protocol.md §N2.2).

        Returns a list of (datagram bytes ≤ MAX_DATAGRAM, peer address); each carries the
        current acknowledgement state."""
        out: list[tuple[bytes, Addr]] = []
        frame = self._frame
        if frame is None:  # built once per key and form, not per flush (issue 14)
            frame = self._frame = framer(self._epoch, self.keys, self._my_xk, self._introduce)
        rx = self.receiver
        ack = rx.expected
        bits = rx.ack_bits()
        dst = self.peer.current or 0
        confirmed = self.route.confirmed
        if self._proof.due and confirmed:
            self._probes(frame, out)
        probes = len(out)
        self.sender.emit(frame, dst, ack, bits, self.addr, now, out)
        carried = len(out) > probes  # data datagrams carry our ack state; probes carry none
        if self._proof.due and not confirmed:
            self._probes(frame, out)  # after the data: the first datagram answers the request
        if carried:
            rx.acks_sent()
        elif rx.ack_due(now):
            out.append((frame(0, dst, 0, ack, bits, b""), self.addr))
            rx.acks_sent()
            self.stats["pure_acks_sent"] += 1
        if not confirmed:
            if self.route.knock_due:  # a lobby pin that never heard knocks (§N2.6 "Lobby pins")
                out.append((frame(0, dst, 0, ack, bits, b""), self.addr))
            kept = self.route.bound(out, bool(self.sender.inflight))
            if len(kept) < len(out):
                # Withheld data datagrams did not leave: not lost when a later one is acked (H80).
                sent = {id(d) for d, _a in kept}
                self.sender.withhold({HEADER.unpack_from(d)[4] for d, _a in out
                                      if id(d) not in sent and d[1] & FLAG_DATA})
            out = kept
        self.stats["datagrams_sent"] += len(out)
        return out

    def _probes(self, frame: Frame, out: list[tuple[bytes, Addr]]) -> None:
        # Pure acks with ack = 0 and no bits: they speak for no stream (the epoch they talk to
        # may be an instance we have no stream with yet).
        proof = self._proof
        respond, challenge = proof.take()
        if respond is not None:
            out.append((frame(FLAG_RESPONSE, respond[0], respond[1], 0, 0, b""), self.addr))
            self.stats["responses_sent"] += 1
        for asked in (challenge, proof.take_check()):
            if asked is not None:
                out.append((frame(FLAG_CHALLENGE, asked[0], asked[1], 0, 0, b""), self.addr))
                self.stats["challenges_sent"] += 1

    def due(self, now: float) -> bool:
        """Cheap check: False means ``datagrams_to_send(now)`` would return nothing and change
        nothing (no loss to resend, no queue, no CHALLENGE/RESPONSE, no ack whose delay ran
        out; or the channel is dormant), so the endpoint skips it. Issue 14: the flush that
        ends a batch of received datagrams found only delayed acks on most channels."""
        tx = self.sender
        if self.route.dormant:
            return False
        if tx.lost or tx.queue or self._proof.due:
            return True
        return self.receiver.ack_due(now)

    def get_timer(self) -> float | None:
        """The next time ``handle_timer`` must run (s), or None when nothing waits.

        A time in the past means "now": datagrams are due. None while an unconfirmed channel
        gave up (``unconfirmed_gaveup``) until the address sends again."""
        if self.route.dormant:
            return None
        if self._proof.due:
            return 0.0  # a CHALLENGE or RESPONSE is due now
        rx = self.receiver
        when = rx.ack_deadline if rx.ack_pending else None
        tx = self.sender
        if tx.inflight:  # checked here: this runs for every channel after every flush
            due = tx.next_due()
            if when is None or due < when:
                when = due
        return when

    def handle_timer(self, now: float) -> None:
        """Mark datagrams unacknowledged for longer than the RTO as lost (resent by the next
        ``datagrams_to_send``) and back the RTO off. An unconfirmed channel gives up
        (``unconfirmed_gaveup``: sends nothing, no timer) at the timeout after
        ``UNCONFIRMED_RESENDS`` resends since the address last sent anything (protocol.md
        §N2.6); its queue and window are kept, and resent once the address speaks."""
        route = self.route
        tx = self.sender
        if route.dormant or not tx.inflight:
            return
        expired = tx.expired(now)
        if expired:
            if not route.confirmed:
                if route.timed_out(now):
                    return
                if route.seat:
                    self._ask_proof()  # the CHALLENGE or its RESPONSE may have been lost
            tx.timeout(expired)

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> list[bytes]:
        """Process one datagram from the peer; return the payloads it completes, in order.

        Keyed channel: a datagram that is not MACed, or whose MAC or introduced key is wrong,
        is dropped first (``unauthenticated``, ``bad_mac``, ``key_mismatch``) and changes
        nothing. Then, on every channel, malformed datagrams (short, bad magic, unknown flags,
        an ack of data never sent) are dropped and counted in ``stats["malformed"]``; epochs
        are checked (protocol.md §N2.2). This never raises on peer input."""
        rx = self.receiver
        if data == rx.last_dg and now - rx.last_seq_at < COPY_GRACE:
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
            if self._introduce:
                self._introduce = False
                self._frame = None
        _magic, flags, epoch, dst, seq, ack, bits = HEADER.unpack_from(data)
        if flags & ~KNOWN_FLAGS or epoch == 0:
            self.stats["malformed"] += 1
            return []
        if flags & FLAG_DATA:
            if flags & PROBE_FLAGS:
                self.stats["malformed"] += 1
                return []
        elif flags & (FLAG_MORE | FLAG_ACK_NOW) or end != body or flags == PROBE_FLAGS or (flags and not seq):
            self.stats["malformed"] += 1
            return []
        me = self._epoch
        proof = self._proof
        route = self.route
        peer = self.peer
        current = peer.current
        if flags & FLAG_RESPONSE:
            # The proof a new instance of the peer is alive (§N2.2), or that the current one
            # receives at this address (§N2.6): the nonce we chose, sent to us.
            if dst == me and (proof.checks(epoch, seq) if epoch == current else proof.proves(epoch, seq)):
                if epoch == current:
                    proof.checked()  # the return-routability challenge
                    peer.checked()
                else:
                    self._new_peer_epoch(epoch)
                self.last_rx = self.last_heard = now
                if route.confirm():  # it echoed a random nonce sent to this address
                    self.sender.resend_withheld()
            else:
                self.stats["stale_epoch"] += 1
            return []
        if flags & FLAG_CHALLENGE and dst == me and not proof.challenged(epoch, seq, now):
            self.stats["answers_limited"] += 1
        if dst and dst != me:
            # Meant for an earlier instance of us: drop; an ack shows our epoch to the sender.
            self.stats["stale_epoch"] += 1
            if epoch != current and (current is None or self._blank()):
                peer.take(current := epoch)  # nothing to protect yet (below): it must learn our epoch
            if epoch == current:
                if not route.proven:
                    route.heard(n)  # the answer fits in the bound (a fresh epoch of ours, H86)
                if proof.may_answer(EpochProof.STALE, now):
                    rx.ack_now(now)
                else:
                    self.stats["answers_limited"] += 1
            return []
        if epoch != current:
            if current is None or self._blank():
                # First contact, or nothing accepted nor sent yet: nothing to protect. A forged
                # first datagram (a bare pure ack from the address) so never makes the real
                # peer's epoch wait for a proof (H86); once data flowed, a new epoch is proven.
                peer.take(epoch)
            elif peer.is_retired(epoch):
                self.stats["stale_epoch"] += 1
                return []
            else:
                # A restart, or a replay of some earlier instance: believe it only once proven.
                self.stats["epoch_unproven"] += 1
                peer.unproven(epoch, ack)
                if not proof.unproven(epoch, now):
                    self.stats["answers_limited"] += 1
                return []
        tx = self.sender
        queue = tx.queue
        if ack > (queue[0][0] if queue else tx.next_seq):
            self.stats["malformed"] += 1  # acknowledges data we never sent
            return []
        self.stats["datagrams_received"] += 1
        self.last_rx = now
        if not route.proven:
            # Counted until proven, confirmed or not: the bound may start at the game's start.
            if route.heard(n):
                tx.resend_all()  # it gave up: the address is there again
            if not route.confirmed:
                # Return routability (§N2.6): a fresh nonce to this address; only the RESPONSE
                # that echoes it confirms the channel. Its own slot and rate limit: a forged
                # datagram of another epoch (challenged by ``unproven``) never displaces it (H86).
                proof.check(epoch, now)
        if ack > tx.acked_below or bits:
            if keys is None and (bits or self._sacks.held):
                self._sacks.note(tx.inflight, ack, bits)  # anyone's word: taken back if keyed
            inflight = len(tx.inflight)
            tx.on_ack(ack, bits, now)
            if len(tx.inflight) < inflight and route.proven:
                self.last_heard = now  # a new ack (freed a datagram) over a proven route
        if flags & FLAG_DATA:
            fresh = route.proven and seq >= rx.expected and seq not in rx.ooo  # not held before
            out = rx.on_data(seq, flags, data, body, end, now)
            if fresh and (rx.expected > seq or seq in rx.ooo):
                self.last_heard = now  # a chunk not held before, taken (``last_heard``)
            return out
        return []

    def _blank(self) -> bool:
        """Nothing accepted as data nor sent on this channel yet, and the peer's epoch never
        proven (a stream restarted by a proof is empty but protected: else every forged epoch
        after it was taken, and the real peer's proven again, restarting the stream each time)."""
        rx = self.receiver
        return not (self.peer.proven or rx.expected or rx.ooo or self.sender.next_seq)

    def _new_peer_epoch(self, epoch: int) -> None:
        """The peer proved a new instance: both directions start again from seq 0, or only the
        peer's when it is the peer we were talking to all along (``PeerEpoch.replace``, H86)."""
        both = self.peer.replace(epoch, self.sender.next_seq)
        if both is not None:
            self.receiver.reset()
            if both:
                self.sender.reset()
                self._sacks = PlainSacks()  # the old instance's selective acks say nothing now (RV13-A #2)
                self.stats["peer_restarts"] += 1
        self._proof.proven()

    def hurry_acks(self, now: float) -> None:
        """Acknowledge what we hold now and every datagram at once from now on: there is no
        next message left to carry the ack (the game is over, the owner drains before closing;
        protocol.md §N2.4). Without it each peer's close waits ``MAX_ACK_DELAY`` for the
        others' delayed acks of its last messages."""
        self.receiver.hurry(now)

    @property
    def idle(self) -> bool:
        """True when nothing is queued, in flight, or waiting to be acknowledged."""
        tx = self.sender
        return not (tx.queue or tx.inflight or self.receiver.ack_pending)

    @property
    def recv_buffered(self) -> int:
        """Bytes held on the receive side: out-of-order chunks plus the partial reassembly."""
        return self.receiver.held

    def release(self) -> None:
        """Give this channel's receive buffers back to the shared budget (it is forgotten)."""
        self.receiver.release()

    def resume_point(self) -> ResumePoint | None:
        """What a later channel to the peer needs after this one is forgotten (``point_of``)."""
        return point_of(self.peer.current, self._blank(), self.receiver, self.sender, self.keys)

    def resume(self, point: ResumePoint) -> None:
        """Go on from a forgotten channel to this peer (this one is new: ``resume_from``)."""
        resume_from(point, self.peer, self.receiver, self.sender)
