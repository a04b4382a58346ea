"""The receive side of one transport channel (protocol.md §N2.3, §N2.4, §N2.6): in-order
delivery, reassembly of multi-chunk payloads, the acknowledgement state, and the receive
budget that bounds what a channel may buffer.

A ``RecvStream`` belongs to one ``transport.Channel``, which authenticates a datagram, checks
its header and epochs, and hands it over with ``on_data``; the stream owns everything after
that. Chunks that arrive early (up to ``RECV_WINDOW`` ahead) are buffered, duplicates dropped,
whole payloads delivered strictly in order. Buffered bytes draw on a ``RecvBudget`` shared by
the endpoint's channels of one trust (``p2p.endpoint``) and, for a stranger, on the channel's
own cap of out-of-order chunks.
"""

from __future__ import annotations

from .datagram import ACK_BITS, FLAG_ACK_NOW, FLAG_MORE, MAX_MESSAGE

__all__ = ["ACK_EVERY", "COPY_GRACE", "MAX_ACK_DELAY", "MAX_RECV_BUFFER", "RECV_WINDOW", "RecvBudget",
           "RecvStream", "STRANGER_RECV_CAP"]

MAX_ACK_DELAY = 0.050
"""A received datagram is acknowledged within this time (s) — longer than most lockstep steps
of 8 seats on a loaded 2-core machine (~16 ms on average, tens of ms when a peer process waits
for a core), so that the next step's message carries the ack instead of a pure ack (issue 14:
13-25 pure acks per step at 8 seats with 10 ms)."""
ACK_EVERY = 4  # ...or after this many in-order datagrams, whichever comes first
COPY_GRACE = 0.005
"""A duplicate of the latest new chunk arriving within this time (s) of it is the sender's
lossy-regime copy: dropped without an immediate ack (the first one was acknowledged)."""
RECV_WINDOW = 256  # datagrams buffered ahead of the next expected one
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


class RecvBudget:
    """Receive-side bytes shared by some channels of one endpoint: ``used`` and ``limit`` in
    bytes (``MAX_RECV_BUFFER`` for trusted channels; ``p2p.endpoint`` gives strangers another)."""

    __slots__ = ("used", "limit")

    def __init__(self, limit: int = MAX_RECV_BUFFER) -> None:
        self.used = 0
        self.limit = limit


class RecvStream:
    """In-order, deduplicated delivery of one peer's chunks, and what we owe it in acks.

    Read by the channel, written only here: ``expected`` (next in-order seq), ``ack_pending``
    (datagrams received since we last sent an ack), ``ack_deadline`` (s, when a pure ack is due;
    None: none), ``ack_delay`` (s a datagram may wait for its ack), ``last_dg``/``last_seq_at``
    (the datagram of the latest new chunk and when: its lossy-regime copy is dropped unread),
    ``held`` (bytes buffered). ``stats`` is the channel's counter dict (shared).
    """

    __slots__ = ("stats", "budget", "recv_cap", "held", "ack_delay", "expected", "ooo", "frags",
                 "frag_size", "discarding", "ack_pending", "ack_deadline", "last_seq", "last_seq_at",
                 "last_dg")

    def __init__(self, stats: dict[str, int], budget: RecvBudget, recv_cap: int | None) -> None:
        self.stats = stats
        self.budget = budget
        self.recv_cap = recv_cap
        self.held = 0
        #: How long (s) a received datagram may wait for its ack (0 once ``hurry``).
        self.ack_delay = MAX_ACK_DELAY
        self.reset()

    def reset(self) -> None:
        """Start again from seq 0 (the peer proved a new instance), giving back what is held."""
        self.budget.used -= self.held
        self.held = 0
        self.expected = 0  # next in-order seq
        self.ooo: dict[int, tuple[int, bytes]] = {}  # seq -> (flags, chunk), arrived early
        self.frags: list[bytes] = []
        self.frag_size = 0
        self.discarding = False  # skipping the rest of an oversized payload
        self.ack_pending = 0  # datagrams received since we last sent an ack
        self.ack_deadline: float | None = None
        self.last_seq, self.last_seq_at = -1, 0.0  # latest new chunk received, when
        self.last_dg: bytes | None = None  # ...and the datagram that carried it

    @property
    def at_boundary(self) -> bool:
        """Nothing held out of order and no payload half reassembled or skipped: every chunk below
        ``expected`` made whole payloads (a forgotten channel's stream can go on from here,
        ``resume_at``)."""
        return not (self.ooo or self.frags or self.discarding)

    def resume_at(self, seq: int) -> None:
        """Go on with a stream whose chunks below ``seq`` an earlier channel to the same peer
        delivered (it was forgotten at a boundary, ``at_boundary``; protocol.md §N2.6
        'Strangers', H86): ``seq`` is the next in-order chunk, those below are duplicates."""
        self.expected = seq

    def rebudget(self, budget: RecvBudget, recv_cap: int | None) -> None:
        """Draw on ``budget`` (and ``recv_cap``, None: no cap of our own) from now on; what is
        held moves with it (§N2.6)."""
        if budget is not self.budget:
            self.budget.used -= self.held
            budget.used += self.held
            self.budget = budget
        self.recv_cap = recv_cap

    def drop_unordered(self) -> int:
        """Drop every chunk held out of order and any payload half reassembled (its rest is then
        skipped): they came while the channel was plain, anyone's, and it is keyed now (protocol.md
        §N2.1 step 3 'Keyed in place', ``channel_auth.PlainSacks``). Only the in-order prefix
        delivered before stays delivered. Returns the number of chunks dropped."""
        dropped = len(self.ooo) + len(self.frags)
        size = sum(len(c) for _f, c in self.ooo.values()) + self.frag_size
        self.budget.used -= size
        self.held -= size
        if self.frags:
            self.discarding = True
        self.ooo, self.frags, self.frag_size = {}, [], 0
        return dropped

    def release(self) -> None:
        """Give the buffers back to the budget (the channel is forgotten)."""
        self.budget.used -= self.held
        self.held = 0
        self.ooo = {}
        self.frags = []
        self.frag_size = 0

    # -- acknowledgements -----------------------------------------------------------------

    def ack_bits(self) -> int:
        """The selective-ack bitmap of what arrived early (bit i: ``expected + 1 + i``)."""
        if not self.ooo:
            return 0
        base = self.expected + 1
        bits = 0
        for seq in self.ooo:
            i = seq - base
            if 0 <= i < ACK_BITS:
                bits |= 1 << i
        return bits

    def ack_now(self, now: float) -> None:
        """Owe the peer an ack at once (it must learn our epoch or what we hold)."""
        self.ack_pending += 1
        self.ack_deadline = now

    def acks_sent(self) -> None:
        """A datagram carrying the current ack state went out."""
        self.ack_pending = 0
        self.ack_deadline = None

    def ack_due(self, now: float) -> bool:
        """A pure ack is owed and its delay ran out (``now``: the caller's clock, s). The
        deadline is set exactly while ``ack_pending`` (``acks_sent`` clears both)."""
        d = self.ack_deadline
        return d is not None and now >= d

    def hurry(self, now: float) -> None:
        """Acknowledge what we hold now and every datagram at once from now on (§N2.4)."""
        self.ack_delay = 0.0
        if self.ack_pending:
            self.ack_deadline = now

    # -- data ----------------------------------------------------------------------------------

    def on_data(self, seq: int, flags: int, data: bytes, body: int, end: int, now: float) -> list[bytes]:
        """Take the chunk ``data[body:end]`` of the authenticated datagram ``data`` (flags
        ``FLAG_DATA`` [| ``FLAG_MORE``] [| ``FLAG_ACK_NOW``], sequence ``seq``); return the
        payloads it completes, in order. Never raises: a duplicate, a chunk beyond the window
        or over the budget is counted and dropped (the sender resends)."""
        stats = self.stats
        expected = self.expected
        if seq < expected or seq in self.ooo:
            stats["duplicates"] += 1
            if seq == self.last_seq and now - self.last_seq_at < COPY_GRACE:
                if now == self.last_seq_at:
                    self.last_dg = data
                return []  # the lossy regime's second copy (§N2.4): the first one's ack covers it
            # Our ack was lost or late: say again at once what we hold.
            self.ack_pending += 1
            self.ack_deadline = now
            return []
        self.last_seq, self.last_seq_at = seq, now
        self.last_dg = data  # a new chunk: its copies are dropped unread (Channel.receive_datagram)
        if seq >= expected + RECV_WINDOW:
            stats["out_of_window"] += 1
            return []
        chunk = data[body:end]
        budget = self.budget
        size = len(chunk)
        cap = self.recv_cap
        if (budget.used + size > budget.limit and (seq != expected or flags & FLAG_MORE)) \
                or (cap is not None and seq != expected and self.held - self.frag_size + size > cap):
            # The shared buffers (or a stranger's own cap of out-of-order chunks) are full (a
            # flood): drop, the sender resends.
            stats["recv_budget_dropped"] += 1
            return []
        if seq != expected:
            self.ooo[seq] = (flags, chunk)
            budget.used += size
            self.held += size
            self.ack_pending += 1
            self.ack_deadline = now  # a gap: tell the sender what arrived, at once
            return []
        out: list[bytes] = []
        self._take(flags, chunk, out)
        expected += 1
        ooo = self.ooo
        had_gap = bool(ooo)
        while ooo:
            nxt = ooo.pop(expected, None)
            if nxt is None:
                break
            budget.used -= len(nxt[1])
            self.held -= len(nxt[1])
            self._take(nxt[0], nxt[1], out)
            expected += 1
        self.expected = expected
        self.ack_pending += 1
        if had_gap or self.ack_pending >= ACK_EVERY or flags & FLAG_ACK_NOW:
            self.ack_deadline = now
        elif self.ack_deadline is None:
            self.ack_deadline = now + self.ack_delay
        stats["payloads_delivered"] += len(out)
        return out

    def _take(self, flags: int, chunk: bytes, out: list[bytes]) -> None:
        """Reassemble: append the payload ``chunk`` completes to ``out``; an oversized payload
        (> ``MAX_MESSAGE``) is skipped to its last chunk (``oversize_dropped``)."""
        if self.discarding:
            if not flags & FLAG_MORE:
                self.discarding = False
            return
        if flags & FLAG_MORE:
            self.frag_size += len(chunk)
            if self.frag_size > MAX_MESSAGE:
                self.budget.used -= self.frag_size - len(chunk)
                self.held -= self.frag_size - len(chunk)
                self.frags = []
                self.frag_size = 0
                self.discarding = True
                self.stats["oversize_dropped"] += 1
                return
            self.budget.used += len(chunk)
            self.held += len(chunk)
            self.frags.append(chunk)
            return
        if self.frags:
            self.frags.append(chunk)
            out.append(b"".join(self.frags))
            self.budget.used -= self.frag_size
            self.held -= self.frag_size
            self.frags = []
            self.frag_size = 0
        else:
            out.append(chunk)
