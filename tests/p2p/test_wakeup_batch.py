"""Per-wake-up work done once (issue 14; protocol.md §N4, §N2.5): the link's ``on_batch_end``
after a read batch, ``Endpoint.flush`` (datagrams and next timer in one pass, skipping
channels whose only output is an ack not yet due) and ``SendStream.next_due``'s remembered
answer must change nothing on the wire nor in the timers."""

import asyncio

from hypothesis import given, settings, strategies as st

from p2p.channel_auth import KeyCache
from p2p.datagram import FLAG_ACK_NOW
from p2p.endpoint import Endpoint
from p2p.identity import Identity
from p2p.link import Link

IDS = [Identity.from_seed(b"wakeup-%d" % i) for i in range(3)]
ADDRS = [("127.0.0.1", 41000 + i) for i in range(3)]


def test_on_batch_end_follows_the_last_payload_of_a_batch_once():
    """Payloads waiting in the socket are handed over in one read batch, ``receiving`` is true
    meanwhile, and ``on_batch_end`` runs once after the last of them (and after any later
    batch: here the answer to b's return-routability CHALLENGE, §N2.6); whatever it raises
    goes to ``on_error`` like a handler's exception."""

    async def run():
        events, errors = [], []
        done = asyncio.Event()
        b_link = []

        def on_b(addr, payload):
            events.append(("msg", payload, b_link[0].receiving))

        def end_b():
            events.append(("end",))
            if not done.is_set():
                done.set()
                raise RuntimeError("batch-end bug")

        a = await Link.open("127.0.0.1", 0, lambda addr, p: None)
        b = await Link.open("127.0.0.1", 0, on_b, on_error=errors.append, on_batch_end=end_b)
        b_link.append(b)
        try:
            for i in range(5):
                a.send(b.address, b"m%d" % i)  # one flush: five datagrams queued before b reads
            await asyncio.wait_for(done.wait(), 10)
            await asyncio.sleep(0.05)
            return events, errors, b.receiving
        finally:
            await a.close()
            await b.close()

    events, errors, receiving_after = asyncio.run(run())
    assert events[:6] == [("msg", b"m%d" % i, True) for i in range(5)] + [("end",)]
    assert set(events[6:]) <= {("end",)}
    assert [str(e) for e in errors] == ["batch-end bug"]
    assert receiving_after is False


def _endpoints():
    eps = [Endpoint(epoch=500 + i, keys=KeyCache(IDS[i]), accept_plain=False) for i in range(3)]
    for i, ep in enumerate(eps):
        # Pinned, not restricted: pins after a restrict challenge with random nonces (§N2.6 "Game
        # started"), and the two worlds must send the same bytes.
        for j in range(3):
            if j != i:
                ep.pin(ADDRS[j], IDS[j].x25519_public_key)
    return eps


def _old_flush(ep, now):
    """What the link did before, one scan for the datagrams (every channel asked: none is
    dormant here, all are pinned), a second one for the timer."""
    out = []
    for ch in ep.channels.values():
        out.extend(ch.datagrams_to_send(now))
    return out, ep.get_timer()


def _brute_next_due(tx):
    delayed, prompt = tx.recovery.rtos()
    return min(e[2] + (prompt if e[0] & FLAG_ACK_NOW else delayed) for e in tx.inflight.values())


OPS = st.lists(st.one_of(
    st.tuples(st.just("send"), st.integers(0, 2), st.integers(1, 2), st.integers(1, 3000)),
    st.tuples(st.just("deliver"), st.integers(0, 2), st.booleans()),
    st.tuples(st.just("wait"), st.sampled_from([0.0005, 0.003, 0.02, 0.06, 0.3])),
    st.tuples(st.just("timer"), st.integers(0, 2)),
), min_size=1, max_size=60)


@settings(max_examples=60, deadline=None)
@given(OPS)
def test_flush_sends_the_same_bytes_and_timers_as_the_two_scans(ops):
    """Two identical sets of keyed endpoints driven by the same operations (sends, deliveries
    with losses, time, timers), one flushed with ``Endpoint.flush`` and one the old way: the
    same datagrams, byte for byte, and the same next timer at every flush; every remembered
    ``next_due`` equals the minimum recomputed over the datagrams in flight."""
    sims = [_endpoints(), _endpoints()]
    flushes = [lambda ep, now: ep.flush(now), _old_flush]
    wires = [[[] for _ in range(3)], [[] for _ in range(3)]]
    now = 1.0
    for op in ops:
        if op[0] == "wait":
            now += op[1]
            continue
        seen = []
        for k in range(2):
            eps, wire = sims[k], wires[k]
            i = op[1]
            if op[0] == "send":
                eps[i].send(ADDRS[(i + op[2]) % 3], bytes([op[3] % 251]) * op[3])
            elif op[0] == "deliver":
                box, wire[i] = wire[i], []
                for data, src in box:
                    if op[2] and data[-1] % 5 == 0:
                        continue  # lost on the way (the same datagrams in both worlds)
                    eps[i].receive_datagram(data, src, now)
            else:
                eps[i].handle_timer(now)
            out, when = flushes[k](eps[i], now)
            for data, addr in out:
                wire[ADDRS.index(addr)].append((data, ADDRS[i]))
            seen.append((out, when))
            for ch in eps[i].channels.values():
                if ch.sender.inflight:
                    assert ch.sender.next_due() == _brute_next_due(ch.sender)
        assert seen[0] == seen[1]
