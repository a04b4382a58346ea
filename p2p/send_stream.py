"""The send side of one transport channel (protocol.md §N2.3-§N2.5): chunking, the send
window, acknowledgements received, loss detection and retransmission.

A ``SendStream`` belongs to one ``transport.Channel``. ``send`` splits a payload into chunks of
at most ``MAX_CHUNK`` bytes, each with its own sequence number (all but the last carry
``FLAG_MORE``); ``emit`` puts due datagrams on the wire through the channel's framer: resends
first, then new chunks while fewer than ``SEND_WINDOW`` are in flight. Acknowledgements
(``on_ack``) free datagrams in flight and find lost ones (``PACKET_THRESHOLD`` later ones
acknowledged, or ``TIME_THRESHOLD`` round trips passed); ``expired``/``timeout`` apply the
retransmission timeout. The numbers (RTT estimators, RTO and back-off, the lossy regime) are
``p2p.recovery.Recovery``'s, which the stream owns.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from .datagram import FLAG_ACK_NOW, FLAG_DATA, FLAG_MORE, MAX_CHUNK, MAX_MESSAGE, MAX_SEQ, Addr, Frame
from .errors import LocalProtocolError
from .recovery import PACKET_THRESHOLD, LossClock, Recovery

__all__ = ["BufferFull", "MAX_SEND_BUFFER", "SEND_WINDOW", "SendStream"]

SEND_WINDOW = 64  # datagrams in flight per peer (~75 KB: below a default socket buffer)
MAX_SEND_BUFFER = 8 * 1024 * 1024  # bytes queued or in flight per peer


class BufferFull(LocalProtocolError):
    """``send`` would queue more than ``MAX_SEND_BUFFER`` bytes for one peer."""


class SendStream:
    """Reliable delivery of our chunks to one peer (sans-I/O; times in seconds).

    Read by the channel, written only here: ``next_seq`` (seq of the next chunk queued),
    ``acked_below`` (every seq below it is acknowledged), ``queue`` ((seq, flags, chunk) not sent
    yet), ``inflight`` (seq -> [flags as sent, chunk, sent_at, retransmitted, not_lost]),
    ``lost`` (seqs to resend at the next ``emit``), ``recovery``. ``stats`` is the channel's
    counter dict. ``not_lost``: the datagram never left (withheld by the return-route bound,
    ``withhold``) or is resent for another reason than loss (``resend_all``): a selective ack
    does not declare it lost, and resending it is no evidence of loss (§N2.4, §N2.6; H80).
    """

    __slots__ = ("stats", "recovery", "next_seq", "acked_below", "queue", "inflight", "lost", "buffered",
                 "_due_at", "_due_rtos")

    def __init__(self, stats: dict[str, int], loss_clock: LossClock | None) -> None:
        self.stats = stats
        #: RTT estimators, RTO back-off, lossy regime (recovery.py).
        self.recovery = Recovery(loss_clock)
        self.reset()

    def reset(self) -> None:
        """Start again from seq 0 (the peer proved a new instance): what was queued for the
        old instance is dropped; the RTT estimates are kept, the back-off is not."""
        self.next_seq = 0
        self.acked_below = 0
        self.queue: deque[tuple[int, int, bytes]] = deque()
        self.inflight: dict[int, list[Any]] = {}
        self.lost: list[int] = []
        self.buffered = 0  # bytes queued or in flight
        # ``next_due``'s answer and the ``recovery.rtos()`` tuple it was computed with; None
        # once ``inflight`` changed (issue 14: the link asks after every flush).
        self._due_at: float | None = None
        self._due_rtos: tuple[float, float] | None = None
        self.recovery.reset_backoff()

    def send(self, payload: bytes, addr: Addr) -> None:
        """Queue ``payload`` (≤ MAX_MESSAGE bytes) for the peer at ``addr`` (named in errors).

        Raises ``LocalProtocolError`` if it is too large or the sequence space is used up, and
        ``BufferFull`` if more than ``MAX_SEND_BUFFER`` bytes would wait; then nothing is queued.
        """
        size = len(payload)
        if size > MAX_MESSAGE:
            raise LocalProtocolError(f"payload of {size} bytes exceeds MAX_MESSAGE={MAX_MESSAGE}")
        if self.buffered + size > MAX_SEND_BUFFER:
            raise BufferFull(f"{self.buffered} bytes already wait for {addr}")
        n = max(1, -(-size // MAX_CHUNK))
        if self.next_seq + n > MAX_SEQ:
            raise LocalProtocolError("sequence space of this channel is used up")
        seq = self.next_seq
        if n == 1:
            self.queue.append((seq, FLAG_DATA, bytes(payload)))
        else:
            view = memoryview(payload)
            for i in range(n):
                flags = FLAG_DATA | (FLAG_MORE if i < n - 1 else 0)
                self.queue.append((seq + i, flags, bytes(view[i * MAX_CHUNK:(i + 1) * MAX_CHUNK])))
        self.next_seq = seq + n
        self.buffered += size
        self.stats["payloads_sent"] += 1

    def emit(self, frame: Frame, dst: int, ack: int, bits: int, addr: Addr, now: float,
             out: list[tuple[bytes, Addr]]) -> None:
        """Append to ``out`` the data datagrams due now, framed with ``frame`` for epoch ``dst``
        carrying our ack state (``ack``, ``bits``): an overdue probe in the lossy regime, the
        datagrams found lost, new chunks within the window (each twice in the lossy regime)."""
        recovery = self.recovery
        queue = self.queue
        if queue and 0 < len(self.inflight) < SEND_WINDOW and recovery.lossy(now) \
                and not recovery.backed_off:
            self._overdue(now)
        stats = self.stats
        if self.lost:
            self._due_at = None
            inflight = self.inflight
            resend = [(seq, e) for seq in self.lost if (e := inflight.get(seq)) is not None]  # not acked meanwhile
            if not all(e[4] for _seq, e in resend):
                recovery.on_resend(now)  # may start the lossy regime (§N2.4)
            extra = recovery.copies(now) - 1
            for seq, entry in resend:
                entry[0] |= FLAG_ACK_NOW
                entry[2] = now
                entry[3] = True
                entry[4] = False  # it goes out now (``withhold`` says again if the bound keeps it)
                datagram = frame(entry[0], dst, seq, ack, bits, entry[1])
                out.append((datagram, addr))
                for _ in range(extra):  # the lossy regime's copies (§N2.4): resends are lost too
                    out.append((datagram, addr))
                stats["copies_sent"] += extra
            stats["retransmits"] += len(resend)
            self.lost.clear()
        if queue:
            self._due_at = None
            inflight = self.inflight
            extra = recovery.copies(now) - 1
            prompt = FLAG_ACK_NOW if extra else 0
            while queue and len(inflight) < SEND_WINDOW:
                seq, flags, chunk = queue.popleft()
                flags |= prompt
                inflight[seq] = [flags, chunk, now, False, False]
                datagram = frame(flags, dst, seq, ack, bits, chunk)
                out.append((datagram, addr))
                if extra:
                    # Lossy regime: a copy, so that a loss costs a timeout only when both are
                    # lost (p² instead of p); the receiver drops it unread.
                    for _ in range(extra):
                        out.append((datagram, addr))
                    stats["copies_sent"] += extra

    def _overdue(self, now: float) -> None:
        """Lossy regime, new data about to go (the window has room) to a peer that answers (no
        timeout since its last new ack): every datagram in flight sent once, with
        ``FLAG_ACK_NOW``, more than the time threshold ago (9/8 of the bare round trip, §N2.5)
        and still unacknowledged is resent with it. Its ack should have come already, so it (or
        its ack) was most likely lost; in lockstep the receiver is stuck on it, and resending it
        beside the next step's datagram costs one datagram instead of waiting for the RTO
        (RFC 8985's tail loss probe, sent when there is new data anyway). Once per datagram:
        a resent one waits for its RTO, so a peer that never acknowledges (a spoofed address,
        tests/p2p/test_redteam_lan_transport.py) gets nothing beyond the RTO's resends."""
        threshold = self.recovery.time_thresholds()[1]
        lost = self.lost
        found = [s for s, e in self.inflight.items()
                 if e[0] & FLAG_ACK_NOW and not e[3] and not e[4] and now - e[2] >= threshold and s not in lost]
        if found:
            lost.extend(found)
            self.stats["fast_retransmits"] += len(found)

    def on_ack(self, ack: int, bits: int, now: float) -> None:
        """The peer holds every seq below ``ack`` and ``ack + 1 + i`` for each bit i of ``bits``:
        free those, take an RTT sample (Karn's rule), find lost datagrams (§N2.5)."""
        inflight = self.inflight
        below = self.acked_below
        if ack > below:
            self.acked_below = ack
        if bits:
            acked: list[int] | range = list(range(below, ack))
            while bits:
                low = bits & -bits
                acked.append(ack + low.bit_length())  # bit i (value 1<<i) acknowledges ack + 1 + i
                bits ^= low
        else:  # the usual ack (lockstep: our last datagram), no list
            acked = range(below, ack)
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
        self._due_at = None
        self.buffered -= freed
        recovery = self.recovery
        # RFC 6298 section 2; Karn's rule: no sample from a retransmitted datagram (above).
        if sample is None:
            recovery.acked(None, False)
        elif recovery.acked(now - sample[2], bool(sample[0] & FLAG_ACK_NOW)):
            self.stats["rtt_samples"] += 1
        # ``inflight`` is in seq order (inserted only by ``emit``, in order): when its first seq
        # is above the largest acknowledged, nothing in it can be lost (the lockstep case: the
        # ack of our previous message while the next one is in flight), and the scan is skipped.
        if inflight and next(iter(inflight)) < largest:
            limit = largest - PACKET_THRESHOLD
            # Time threshold per kind of datagram: its estimator's srtt or the latest sample.
            delayed, prompt = recovery.time_thresholds()
            # Only datagrams (last) sent no later than the acknowledged one: a resent datagram is
            # not declared lost again by acks that were on their way before it was resent
            # (else every duplicate ack resends every hole again: a storm, seen at 8 seats).
            lost = [s for s, e in inflight.items()
                    if s < largest and e[2] <= largest_sent and s not in self.lost and not e[4]
                    and (s <= limit or now - e[2] >= (prompt if e[0] & FLAG_ACK_NOW else delayed))]
            if lost:
                self.lost.extend(sorted(lost))
                self.stats["fast_retransmits"] += len(lost)
                recovery.found_lost()

    # -- retransmission timeout -------------------------------------------------------------

    def next_due(self) -> float:
        """When the earliest datagram in flight times out (s); call only with some in flight."""
        # RTO of each datagram by the kind it was sent as (§N2.5, recovery.Recovery.rtos).
        rtos = self.recovery.rtos()  # the same tuple until the RTOs change
        if self._due_at is not None and rtos is self._due_rtos:
            return self._due_at
        delayed, prompt = rtos
        # A plain loop, not min(genexpr): in lockstep one or two datagrams are in flight, and
        # this runs for every channel after every flush (issue 14).
        due = None
        for e in self.inflight.values():
            t = e[2] + (prompt if e[0] & FLAG_ACK_NOW else delayed)
            if due is None or t < due:
                due = t
        self._due_at = due
        self._due_rtos = rtos
        return due

    def expired(self, now: float) -> list[int]:
        """Seqs in flight unacknowledged for longer than their RTO and not yet marked lost."""
        delayed, prompt = self.recovery.rtos()
        lost_set = set(self.lost)
        return [s for s, e in self.inflight.items()
                if e[2] + (prompt if e[0] & FLAG_ACK_NOW else delayed) <= now and s not in lost_set]

    def timeout(self, expired: list[int]) -> None:
        """Mark ``expired`` lost (resent by the next ``emit``) and back the RTO off."""
        self.lost.extend(sorted(expired))
        self.recovery.on_timeout()
        self.stats["timeouts"] += 1

    def take_back(self, entries: dict[int, list[Any]]) -> None:
        """Put the chunks of ``entries`` (seq -> the in-flight entry this stream freed on a plain
        peer's selective ack, kept by ``channel_auth.PlainSacks``) back in flight as lost: resent at
        the next ``emit``, as retransmissions (no RTT sample). Those below ``acked_below`` (the
        cumulative ack stands), in flight already, or not below ``next_seq`` (another instance's,
        after a ``reset``) are left (protocol.md §N2.1 step 3 'Keyed in place')."""
        back = {s: e for s, e in entries.items() if self.acked_below <= s < self.next_seq and s not in self.inflight}
        if not back:
            return
        for entry in back.values():
            entry[3], entry[4] = True, False
        self.inflight = dict(sorted({**self.inflight, **back}.items()))
        self.buffered += sum(len(e[1]) for e in back.values())
        self.lost.extend(sorted(back))
        self._due_at = None  # ``inflight`` changed (``next_due``)

    def resend_all(self) -> None:
        """Resend every datagram in flight at the next ``emit`` (an unconfirmed channel's address
        spoke again, or answered its CHALLENGE: what the bound withheld goes now). Not evidence
        of loss: these resends never start the lossy regime (§N2.4; H80)."""
        lost = set(self.lost)
        self.lost.extend(s for s in sorted(self.inflight) if s not in lost)
        for e in self.inflight.values():
            e[4] = True

    def resend_withheld(self) -> None:
        """Resend at the next ``emit`` what the return-route bound withheld (``withhold``): the
        peer answered its CHALLENGE. Only those: the others left and their acks are on the way
        (resending them too made acks sent before the resend declare the resends lost: a
        selective-ack hole on a clean network, H80). Not evidence of loss (§N2.4)."""
        lost = set(self.lost)
        self.lost.extend(s for s, e in self.inflight.items() if e[4] and s not in lost)

    def withhold(self, seqs: Any) -> None:
        """The return-route bound kept these data datagrams (seqs) of the last ``emit`` from
        going out (§N2.6): they stay in flight and are resent at their RTO or when the bound
        lifts, but the peer cannot hold them, so a selective ack without them is no evidence of
        loss (else every lobby's withheld datagram put the channel in the lossy regime; H80)."""
        inflight = self.inflight
        for seq in seqs:
            e = inflight.get(seq)
            if e is not None:
                e[4] = True

    def resume_at(self, seq: int) -> None:
        """Go on numbering from ``seq`` on a new, empty stream: an earlier channel to the same
        peer sent and had acknowledged every chunk below it, then was forgotten (protocol.md
        §N2.6 'Strangers', H86). Only on a stream that has sent nothing yet."""
        if self.next_seq or self.queue:
            raise LocalProtocolError("resume_at on a stream that already sent")
        self.next_seq = self.acked_below = seq
