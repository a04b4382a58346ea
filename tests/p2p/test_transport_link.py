"""The asyncio adapter on real UDP sockets bound to 127.0.0.1 (protocol.md part N,
"Transport"): ordered exactly-once delivery, fragmentation, and recovery from injected loss."""

import asyncio
import random

import pytest

from p2p.faults import FaultPlan
from p2p.link import Link
from p2p.transport import MAX_CHUNK


async def exchange(faults_a=None, faults_b=None, count=200):
    got = {"a": [], "b": []}
    done = asyncio.Event()
    msgs = [i.to_bytes(4, "big") + random.Random(i).randbytes(i % 97) for i in range(count)]
    msgs[50] = random.Random(9).randbytes(7 * MAX_CHUNK + 5)  # split into 8 datagrams

    def on_b(addr, payload):
        got["b"].append(payload)
        if len(got["b"]) == count:
            done.set()

    a = await Link.open("127.0.0.1", 0, lambda addr, p: got["a"].append(p), faults=faults_a)
    b = await Link.open("127.0.0.1", 0, on_b, faults=faults_b)
    try:
        for m in msgs:
            a.send(b.address, m)
        await asyncio.wait_for(done.wait(), 30)
        b.send(a.address, b"bye")
        assert await a.drain(10) and await b.drain(10)
        return msgs, got, a.endpoint.totals()
    finally:
        await a.close()
        await b.close()


def test_link_delivers_in_order_over_loopback():
    msgs, got, totals = asyncio.run(exchange())
    assert got["b"] == msgs
    assert got["a"] == [b"bye"]
    assert totals["malformed"] == 0


@pytest.mark.parametrize("seed", [1, 2])
def test_link_recovers_from_injected_loss_dup_reorder(seed):
    plan = FaultPlan(seed=seed, loss=0.15, dup=0.1, reorder=0.2, delay=0.0, reorder_delay=0.003)
    back = FaultPlan(seed=seed + 100, loss=0.15)
    msgs, got, totals = asyncio.run(exchange(plan, back))
    assert got["b"] == msgs
    assert totals["retransmits"] > 0


def test_handler_exception_reaches_the_owner_and_bad_datagrams_do_not():
    """An exception in ``on_message`` is a bug of the layer above (protocol.md §N4): it is
    handed to ``on_error`` and re-raised by ``drain``, never swallowed; a malformed datagram
    is dropped and counted and never reaches the handler."""

    async def run():
        seen, errors = [], []
        got_all = asyncio.Event()

        def on_b(addr, payload):
            if payload == b"boom":
                raise ValueError("handler bug")
            seen.append(payload)
            if payload == b"after":
                got_all.set()

        a = await Link.open("127.0.0.1", 0, lambda addr, p: None)
        b = await Link.open("127.0.0.1", 0, on_b, on_error=errors.append)
        try:
            a._sock.sendto(b"\xb1\x00short", b.address)  # malformed: dropped, counted
            for m in (b"before", b"boom", b"after"):
                a.send(b.address, m)
            await asyncio.wait_for(got_all.wait(), 10)
            assert seen == [b"before", b"after"]  # the link went on delivering
            assert [str(e) for e in errors] == ["handler bug"]
            assert b.handler_errors == 1 and isinstance(b.handler_error, ValueError)
            totals = b.endpoint.totals()
            assert totals["malformed"] + totals["unknown_dropped"] == 1
            with pytest.raises(ValueError, match="handler bug"):
                await b.drain(1)
        finally:
            await a.close()
            await b.close()

    asyncio.run(run())


class _FullBuffer:
    """A socket whose first ``refuse`` sends fail with EAGAIN (a full send buffer)."""

    def __init__(self, sock, refuse):
        self._sock, self.refuse = sock, refuse

    def sendto(self, data, addr):
        if self.refuse:
            self.refuse -= 1
            raise BlockingIOError
        return self._sock.sendto(data, addr)

    def __getattr__(self, name):
        return getattr(self._sock, name)


def test_a_full_send_buffer_delays_datagrams_in_order_without_loss():
    """EAGAIN on send (the kernel's buffer is full): the link keeps the datagrams, in order,
    and sends them when the socket is writable again; nothing is counted lost."""
    async def run():
        got, done = [], asyncio.Event()

        def on_b(addr, payload):
            got.append(payload)
            if len(got) == 5:
                done.set()

        a = await Link.open("127.0.0.1", 0, lambda addr, p: None)
        b = await Link.open("127.0.0.1", 0, on_b)
        a._sock = _FullBuffer(a._sock, refuse=3)
        try:
            for i in range(5):
                a.send(b.address, b"m%d" % i)
            await asyncio.wait_for(done.wait(), 10)
            assert got == [b"m0", b"m1", b"m2", b"m3", b"m4"]
            assert a.send_errors == 0 and a._sock.refuse == 0
            assert a.endpoint.totals()["retransmits"] == 0  # delayed, not lost and resent
        finally:
            await a.close()
            await b.close()

    asyncio.run(run())


def test_linger_waits_for_a_seat_cut_off_at_the_end_and_serves_until_nothing_is_owed():
    """protocol.md §N4 "Draining": past ``drain``, a finished node stays while a seat has not
    acknowledged its last message (a seat cut off by a 1.5 s partition gets it when the cut
    heals, instead of never ending the game), and while ``owed()`` (a spectator lacking
    records), calling ``serve()``; with nothing owed it returns at once; bounded by its timeout."""

    async def run():
        got = []
        a = await Link.open("127.0.0.1", 0, lambda addr, p: None)
        b = await Link.open("127.0.0.1", 0, lambda addr, p: got.append(p),
                            faults=FaultPlan(seed=3, loss=0.0, partitions=((0.0, 1.5),)))
        try:
            a.send(b.address, b"final attestation")
            assert not await a.drain(0.3)  # the cut-off seat has not acknowledged it
            assert await a.linger([b.address], 10.0, owed=lambda: False, serve=lambda: None)
            assert got == [b"final attestation"] and a.idle_to([b.address])
            assert a.saw_loss  # the cut cost retransmissions: the node's quiet time applies
            served = []
            left = iter([True, True, False])
            assert await a.linger([b.address], 10.0, owed=lambda: next(left), serve=lambda: served.append(1),
                                  every=0.0)
            assert served == [1, 1]  # served while owed, not after
            assert not await a.linger([], 0.2, owed=lambda: True, serve=lambda: None)  # bounded: gives up
        finally:
            await a.close()
            await b.close()

    asyncio.run(run())


def test_flush_now_sends_the_owners_reply_before_its_handler_returns_and_once():
    """``Link.flush_now`` (issue 14, H105; what the node does when our step message is made,
    ``OwnStep.on_sent``): a payload the owner queues and flushes while handling a datagram
    leaves at once, before the handler returns, with the ack of that datagram on it; the read
    batch then does not flush a second time for the same datagram."""
    async def run():
        log, got_a = [], []
        links = {}

        def on_b(addr, payload):
            links["b"].send(addr, b"pong:" + payload)
            links["b"].flush_now()
            log.append("returned")

        a = await Link.open("127.0.0.1", 0, lambda addr, p: got_a.append(p))
        b = links["b"] = await Link.open("127.0.0.1", 0, on_b)
        sendto, flush, receive = b._sendto, b.endpoint.flush, b.endpoint.receive_datagram
        b._sendto = lambda data, addr: (log.append("sendto"), sendto(data, addr))[1]
        b.endpoint.flush = lambda now: (log.append("flush"), flush(now))[1]
        b.endpoint.receive_datagram = lambda *args: (log.append("read"), receive(*args))[1]
        try:
            a.send(b.address, b"ping")
            for _ in range(400):
                if got_a:
                    break
                await asyncio.sleep(0.005)
            assert got_a == [b"pong:ping"]
            # (b's return-route CHALLENGE goes along, a second datagram; a's RESPONSE is a later read)
            back = log.index("returned")
            assert log[:2] == ["read", "flush"] and set(log[2:back]) == {"sendto"}
            assert log[back + 1:back + 2] in ([], ["read"])
            assert b.endpoint.totals()["pure_acks_sent"] == 0  # the ack rode on the reply
        finally:
            await a.close()
            await b.close()

    asyncio.run(run())


def test_flush_now_outside_a_read_batch_leaves_nothing_for_the_scheduled_flush():
    """``Link.send`` outside a read batch schedules a flush on the loop's next turn; when the
    owner's ``flush_now`` sent everything before it runs, that flush does not scan the channels
    again (``Endpoint.flush`` once, issue 14, H124); a send after ``flush_now`` still goes out
    on that turn, and a plain ``send`` still goes out without ``flush_now``."""
    async def run():
        got = []
        a = await Link.open("127.0.0.1", 0, lambda addr, p: None)
        b = await Link.open("127.0.0.1", 0, lambda addr, p: got.append(p))
        calls = []
        flush = a.endpoint.flush
        a.endpoint.flush = lambda now: (calls.append(now), flush(now))[1]
        try:
            a.send(b.address, b"one")
            a.flush_now()
            assert len(calls) == 1
            await asyncio.sleep(0)  # the scheduled flush's turn
            await asyncio.sleep(0)
            assert len(calls) == 1
            a.send(b.address, b"two")
            a.flush_now()
            a.send(b.address, b"three")  # after flush_now: the scheduled flush sends it
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            assert len(calls) == 3
            a.send(b.address, b"four")
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            assert len(calls) == 4
            for _ in range(400):
                if len(got) == 4:
                    break
                await asyncio.sleep(0.005)
            assert got == [b"one", b"two", b"three", b"four"]
        finally:
            await a.close()
            await b.close()

    asyncio.run(run())
