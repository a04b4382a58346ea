"""The asyncio adapter of the transport (protocol.md part N): an ``Endpoint`` driven by a
non-blocking UDP socket bound to one address, read by an event-loop reader callback that drains
the socket, and one timer handle. The sans-I/O core (channels, acks, retransmission,
authentication) is ``p2p.transport``; this module only moves bytes and time between it and the
event loop, as aioquic keeps ``asyncio/protocol.py`` apart from ``QuicConnection``.

Why a bare socket and ``loop.add_reader`` rather than a receive task on asyncio-dgram (issue 14):
the task cost two loop passes per datagram (the protocol callback queues it, the task wakes on
the next pass) and a flush per datagram; the reader takes every datagram queued in the kernel
in one pass (up to ``RX_BATCH``), hands each to the endpoint, and flushes once at the end, so
the acks of a burst (a lockstep step: one message from every other seat) leave together; a
payload the owner sends while the batch is read (our next step message) is flushed at once,
before the rest of the batch is handled, because the other peers wait for it.
"""

from __future__ import annotations

import asyncio
import socket
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from .channel_auth import KeyCache
from .endpoint import Endpoint
from .loop_timer import LoopTimer
from .transport import Addr

__all__ = ["Link", "RX_BATCH"]

RX_BATCH = 64
"""Datagrams read per readiness callback at most, so that a flood cannot hold the loop."""
_RX_SIZE = 65535  # read whole datagrams, even oversized ones (the endpoint drops them, counted)
RCVBUF = 1 << 20
"""Receive buffer asked for each socket (bytes; the kernel caps it at ``net.core.rmem_max`` and
doubles it). A catch-up answer is a page of ~40 KB (§C9) from each of up to 7 seats, 4 pages
in flight: with Linux's default 208 KB the burst overflowed the buffer, the responders saw loss
and went to their lossy regime (every chunk sent twice) — a restarted peer's catch-up ran at
~220 steps/s with 1,000 duplicate datagrams received (issue 14)."""
_TX_QUEUE = 4096
"""Datagrams kept while the kernel's send buffer is full (EAGAIN), sent when it drains; beyond
that they are dropped and counted in ``send_errors`` (the RTO resends)."""
_READ = 1
"""``Link._unflushed`` bit: a datagram reached the endpoint (its acks are due)."""
_SENT = 2
"""``Link._unflushed`` bit: a payload was queued with ``send``."""


class Link:
    """An ``Endpoint`` driven by a non-blocking UDP socket bound to one address.

    Open with ``await Link.open(host, port, on_message)``; ``port`` 0 picks a free port
    (``link.address`` tells which). ``on_message(addr, payload)`` is called synchronously, in
    order per peer, from the reader callback; whatever it ``send``s is flushed as soon as that
    datagram is handled (with the acks due so far riding on it), the remaining acks once the
    datagrams waiting in the socket are handled. ``faults`` (p2p.faults.FaultPlan) drops/duplicates/delays/
    reorders outgoing datagrams and, during its partition windows, drops incoming ones too
    (``partition_dropped``), for tests and demos only. Never connect()s the socket: a connected
    UDP socket raises on ICMP errors (DESIGN.md section 5).

    ``on_batch_end()`` (optional) is called once after each read batch in which a datagram
    reached the endpoint (after its last ``on_message``), before its closing flush: the
    owner's per-wake-up work (its own timer, reports) done once per batch instead of once per
    payload (issue 14); ``receiving`` tells the owner it will be
    called. ``now`` is the loop time at which the datagram being handed over was read, ``via``
    the X25519 key of the channel that authenticated it (``channel_auth.Delivered.via``; None:
    plain; both valid while ``on_message`` runs).

    An exception raised by ``on_message`` is a bug of the layer above, not bad input (bad
    datagrams never reach it: the ``Endpoint`` drops and counts them). It is not swallowed:
    the first one is kept in ``handler_error``, handed to ``on_error(exc)`` if given (the node
    fails the peer with it), and re-raised by ``drain``; the link keeps running so the owner
    can still close it cleanly.
    """

    def __init__(self, sock: socket.socket, endpoint: Endpoint,
                 on_message: Callable[[Addr, bytes], None], faults: Any = None,
                 on_error: Callable[[BaseException], None] | None = None,
                 on_batch_end: Callable[[], None] | None = None) -> None:
        self._sock = sock
        self.endpoint = endpoint
        self._on_message = on_message
        self._on_error = on_error
        self._on_batch_end = on_batch_end
        #: Loop time (s) at which the datagram being handed to ``on_message`` was read.
        self.now = 0.0
        #: The X25519 key (32 bytes) of the channel whose MAC authenticated the datagram being handed to
        #: ``on_message``, None for a plain channel or outside ``on_message`` (``Delivered.via``, §N2.2).
        self.via: bytes | None = None
        #: The first exception ``on_message`` raised, or None (re-raised by ``drain``).
        self.handler_error: BaseException | None = None
        self._faults = faults
        self._loop = asyncio.get_running_loop()
        #: The endpoint's next timer (``Endpoint.flush``): ``_on_timer`` at that time.
        self._timer = LoopTimer(self._loop, self._on_timer)
        self._in_rx = False
        #: What reached the endpoint since the last flush (``_READ`` | ``_SENT`` bits, 0: nothing,
        #: a flush would only scan every channel again, issue 14); ``_flush`` clears it.
        self._unflushed = 0
        self._flush_scheduled = False
        self.send_errors = 0
        self.handler_errors = 0
        self.partition_dropped = 0
        if faults is not None:
            faults.set_origin(self._loop.time())
        self.address: Addr = sock.getsockname()[:2]
        self._tx_queue: deque[tuple[bytes, Addr]] = deque()
        self._closed = False
        sock.setblocking(False)
        self._loop.add_reader(sock.fileno(), self._on_readable)

    @classmethod
    async def open(cls, host: str, port: int, on_message: Callable[[Addr, bytes], None], *,
                   epoch: int | None = None, max_peers: int = 32, faults: Any = None,
                   on_error: Callable[[BaseException], None] | None = None,
                   identity: Any = None, on_batch_end: Callable[[], None] | None = None) -> Link:
        """Bind a UDP socket to (host, port) and start receiving. Raises OSError if it cannot.
        ``on_error``: called with an exception ``on_message`` raised; ``on_batch_end``: called
        after each read batch (see the class doc).
        ``identity`` (``p2p.identity.Identity``): our X25519 key, so that channels can be
        keyed (``Endpoint.pin``, protocol.md §N2.2); None: plain channels only."""
        loop = asyncio.get_running_loop()
        family, kind, proto, _, addr = (await loop.getaddrinfo(host, port, type=socket.SOCK_DGRAM,
                                                               flags=socket.AI_PASSIVE))[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.setblocking(False)
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
            except OSError:
                pass  # the default buffer: only bursts suffer (losses the transport repairs)
            sock.bind(addr)
        except OSError:
            sock.close()
            raise
        keys = KeyCache(identity) if identity is not None else None
        return cls(sock, Endpoint(epoch=epoch, max_peers=max_peers, keys=keys), on_message, faults, on_error,
                   on_batch_end)

    @property
    def receiving(self) -> bool:
        """True while the reader callback hands a batch of datagrams to ``on_message``
        (``on_batch_end`` follows, and whatever is ``send``-queued goes out with the batch)."""
        return self._in_rx

    def send(self, addr: Addr, payload: bytes) -> None:
        """Queue ``payload`` for ``addr``; it goes out at the next flush (soon, this loop turn)."""
        self.endpoint.send(addr, payload)
        self._unflushed |= _SENT
        if not self._in_rx and not self._flush_scheduled:
            self._flush_scheduled = True
            self._loop.call_soon(self._flush_soon)

    def flush_now(self) -> None:
        """Send what ``send`` queued now, with the acks due (the owner's step message, which
        every other peer waits for: issue 14), not after the payload being handled returns
        nor on the loop's next turn."""
        self._flush()

    def _flush_soon(self) -> None:
        """The flush ``send`` scheduled outside a read batch, unless ``flush_now`` (or another
        flush) sent everything since."""
        self._flush_scheduled = False
        if self._unflushed:
            self._flush()

    def _flush(self) -> None:
        self._unflushed = 0
        if self._closed:
            return
        now = self._loop.time()
        datagrams, when = self.endpoint.flush(now)  # and the next timer, in the same pass
        if datagrams:
            faults = self._faults
            for data, addr in datagrams:
                if faults is not None:
                    for delay in faults.plan(now):
                        self._loop.call_later(delay, self._sendto, data, addr)
                    continue
                self._sendto(data, addr)
        self._timer.arm(when)

    def _sendto(self, data: bytes, addr: Addr) -> None:
        if self._closed:
            return
        if self._tx_queue:  # keep the order behind what waits for room
            self._queue_tx(data, addr)
            return
        try:
            self._sock.sendto(data, addr)
        except (BlockingIOError, InterruptedError):
            self._queue_tx(data, addr)
            self._loop.add_writer(self._sock.fileno(), self._on_writable)
        except OSError:
            self.send_errors += 1  # e.g. an earlier ICMP error surfacing; the RTO recovers

    def _queue_tx(self, data: bytes, addr: Addr) -> None:
        if len(self._tx_queue) >= _TX_QUEUE:
            self.send_errors += 1
        else:
            self._tx_queue.append((data, addr))

    def _on_writable(self) -> None:
        q = self._tx_queue
        while q:
            data, addr = q[0]
            try:
                self._sock.sendto(data, addr)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self.send_errors += 1
            q.popleft()
        self._loop.remove_writer(self._sock.fileno())

    def _on_timer(self) -> None:
        self.endpoint.handle_timer(self._loop.time())
        self._flush()

    def _on_readable(self) -> None:
        """Every datagram waiting in the socket (at most ``RX_BATCH``) to the endpoint, the
        payloads completed to ``on_message``; then ``on_batch_end``, and one flush, unless
        nothing reached the endpoint since the last flush (then nothing is due that was not
        sent: the flush would only scan every channel again, issue 14)."""
        sock = self._sock
        ep = self.endpoint
        loop = self._loop
        faults = self._faults
        read = False  # a datagram reached the endpoint in this batch
        self._in_rx = True
        try:
            for _ in range(RX_BATCH):
                try:
                    data, addr = sock.recvfrom(_RX_SIZE)
                except (BlockingIOError, InterruptedError):
                    break
                except OSError:
                    self.send_errors += 1  # an ICMP error surfacing on the socket; keep reading
                    continue
                if faults is not None and faults.partitioned(loop.time()):
                    self.partition_dropped += 1
                    continue
                read = True
                self._unflushed |= _READ  # before on_message: a ``flush_now`` there acks it too
                self.now = now = loop.time()
                got = ep.receive_datagram(data, addr[:2], now)
                for src, payload in got:
                    self.via = got.via  # the channel that checked its MAC (a Delivered), never looked up by address
                    try:
                        self._on_message(src, payload)
                    except Exception as exc:  # noqa: BLE001 - handed to the owner, below
                        self._handler_failed(exc)
                self.via = None
                if self._unflushed & _SENT:
                    # A reply (our next step message) the owner did not ``flush_now``: out now,
                    # before the rest of the batch is read, verified and applied — the other
                    # peers wait for it (issue 14: latency per round). The acks due for what was
                    # read so far ride on it.
                    self._flush()
            if read and self._on_batch_end is not None:
                try:
                    self._on_batch_end()
                except Exception as exc:  # noqa: BLE001 - handed to the owner, as on_message's
                    self._handler_failed(exc)
        finally:
            self._in_rx = False
        if self._unflushed and not self._closed:
            self._flush()

    def _handler_failed(self, exc: Exception) -> None:
        """``on_message`` raised: keep the first exception, tell the owner (or, without
        ``on_error``, the loop's exception handler, so it is never silent)."""
        self.handler_errors += 1
        if self.handler_error is None:
            self.handler_error = exc
        if self._on_error is not None:
            try:
                self._on_error(exc)
            except Exception as exc2:  # noqa: BLE001 - the receive task must go on
                self._loop.call_exception_handler({
                    "message": "lanopoli Link: on_error failed", "exception": exc2})
        else:
            self._loop.call_exception_handler({
                "message": "lanopoli Link: on_message failed", "exception": exc})

    async def drain(self, timeout: float) -> bool:
        """Keep answering retransmissions until every channel is idle or ``timeout`` s pass.

        Returns True if everything was acknowledged. Raises the exception ``on_message`` raised
        (``handler_error``), if any, before or while draining.
        """
        deadline = self._loop.time() + timeout
        # Our acks go out now, not after the delay meant to let a next message carry them; the
        # other peers do the same when they drain, so everyone is idle ~1 round trip after the
        # last of them finished instead of MAX_ACK_DELAY later.
        self.endpoint.hurry_acks(self._loop.time())
        self._flush()
        while self._loop.time() < deadline:
            if self.handler_error is not None:
                raise self.handler_error
            if self.endpoint.idle:
                return True
            await asyncio.sleep(0.005)
        if self.handler_error is not None:
            raise self.handler_error
        return self.endpoint.idle

    def idle_to(self, addrs: Iterable[Addr]) -> bool:
        """True when the channel to each of ``addrs`` (one we have none with counts as idle)
        has nothing queued, in flight or to acknowledge."""
        channels = self.endpoint.channels
        return all(channels[a].idle for a in addrs if a in channels)

    @property
    def saw_loss(self) -> bool:
        """A datagram was lost on this link: we re-sent one (timeout or fast retransmit) or a peer
        re-sent one we held (our ack was lost). Only then is ``linger``'s quiet time worth it."""
        t = self.endpoint.totals()
        return bool(t["retransmits"] or t["timeouts"] or t["duplicates"])

    async def linger(self, addrs: Iterable[Addr], timeout: float, owed: Callable[[], bool],
                     serve: Callable[[], None], every: float = 0.5, quiet: float = 0.0) -> bool:
        """After ``drain``: up to ``timeout`` s more while the channel to one of ``addrs`` is not
        idle (a seat has not acknowledged our last messages) or ``owed()`` (a spectator lacks
        records), calling ``serve()`` every ``every`` s while it is; once nothing is owed, stay
        ``quiet`` s more, acknowledging at once (a seat whose acknowledgement of our last
        message was lost sends it again, and hears our ack before we close: TCP's TIME-WAIT).
        protocol.md §N4 "Draining". ``timeout``, ``every``, ``quiet``: seconds (loop clock). True
        if nothing was left owed. Raises like ``drain``."""
        addrs = list(addrs)
        loop = self._loop
        deadline = loop.time() + timeout
        serve_at = 0.0
        settled_at = None
        while (now := loop.time()) < deadline:
            if self.handler_error is not None:
                raise self.handler_error
            due = owed()
            if not due and self.idle_to(addrs):
                settled_at = now if settled_at is None else settled_at
                if now - settled_at >= quiet:
                    return True
            else:
                settled_at = None
                if due and now >= serve_at:
                    serve()
                    serve_at = now + every
            await asyncio.sleep(0.02)
        return settled_at is not None

    async def close(self) -> None:
        """Stop the timer and the reader and close the socket (datagrams still waiting for
        room in the send buffer are dropped). Idempotent."""
        self._timer.cancel()
        if self._closed:
            return
        self._closed = True
        fd = self._sock.fileno()
        self._loop.remove_reader(fd)
        if self._tx_queue:
            self._loop.remove_writer(fd)
            self._tx_queue.clear()
        self._sock.close()

