"""Red team, session 9 (H85): the asyncio adapter under a flood (protocol.md §N2.6 'Game started', the
note on the adapter draining the socket; ``p2p/link.py``). Issue 14's CPU cuts (H81) touch the reader
and its timers: these tests pin what a flood may never do to it, on a socket double that always has
one more datagram to give (no real traffic, no timing): hold the event loop in one callback, reach
the node's handler, or delay a seat's datagram queued behind it by more than its place in the line.
"""

from __future__ import annotations

import asyncio
import socket
from collections import deque

from p2p import transport as T
from p2p.endpoint import Endpoint
from p2p.link import RX_BATCH, Link

PEER = ("127.0.0.5", 41005)
ME = ("127.0.0.4", 41004)


class FloodSocket:
    """A UDP socket double for ``Link``: ``recvfrom`` hands out ``queue`` (``(data, addr)``), then
    raises BlockingIOError; ``fileno`` is one end of a socket pair with a byte always waiting, so
    the event loop calls the link's reader on every pass, as it would under a flood; what the link
    sends is kept in ``sent``."""

    def __init__(self, queue: list) -> None:
        self._idle, self._other = socket.socketpair()
        self._other.send(b"!")
        self.queue = deque(queue)
        self.reads = 0
        self.sent: list = []

    def fileno(self) -> int:
        return self._idle.fileno()

    def getsockname(self) -> tuple:
        return ME

    def setblocking(self, flag: bool) -> None:
        pass

    def recvfrom(self, size: int) -> tuple:
        if not self.queue:
            raise BlockingIOError
        self.reads += 1
        return self.queue.popleft()

    def sendto(self, data: bytes, addr: tuple) -> int:
        self.sent.append((data, addr))
        return len(data)

    def close(self) -> None:
        self._idle.close()
        self._other.close()


def _a_seats_datagram(payload: bytes) -> bytes:
    """The first datagram a seat at PEER sends us carrying ``payload`` (plain channels)."""
    peer = Endpoint(epoch=77)
    peer.send(ME, payload)
    (data, _dst), = peer.datagrams_to_send(0.0)
    return data


def test_a_flood_never_holds_the_reader_nor_reaches_the_handler_and_a_seat_keeps_its_place():
    """§N2.6 'Game started' (only the seats' endpoints may open channels) and the adapter's
    drain: 10 x RX_BATCH junk datagrams from 640 strangers are queued in the socket before one
    datagram of a seat. Each readiness callback reads at most RX_BATCH (the loop's timers and
    other callbacks run between two: a flood cannot hold the loop), no junk reaches the node's
    handler (the endpoint drops it, counted), and the seat's payload is delivered by the
    callback that reaches it: the 11th, never later."""
    junk = T.HEADER.pack(T.MAGIC, T.FLAG_DATA, 5, 0, 0, 0, 0) + b"junk"
    queue = [(junk, ("127.0.%d.%d" % (1 + i // 250, i % 250 + 1), 9000)) for i in range(10 * RX_BATCH)]
    queue.append((_a_seats_datagram(b"step"), PEER))
    sock = FloodSocket(queue)
    got: list = []
    batches: list[int] = []  # datagrams read when each batch ended (on_batch_end)

    async def run() -> None:
        ep = Endpoint(epoch=6)
        ep.restrict([PEER])  # the game runs
        link = Link(sock, ep, lambda addr, payload: got.append((addr, payload)),
                    on_batch_end=lambda: batches.append(sock.reads))
        try:
            for _ in range(100):  # loop passes (each runs the reader once: the fd is readable)
                if got:
                    break
                await asyncio.sleep(0)
        finally:
            await link.close()
        assert ep.stats["unknown_dropped"] == 10 * RX_BATCH

    asyncio.run(run())
    per_batch = [b - a for a, b in zip([0, *batches], batches)]
    assert max(per_batch) <= RX_BATCH
    assert len(batches) == 11 and got == [(PEER, b"step")]
