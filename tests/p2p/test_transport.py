"""Sans-I/O transport tests: an in-memory network on a virtual clock with seeded faults.

Spec: protocol.md part N, "Transport" (header, acks, retransmission, fragmentation,
bounds, epochs) and DESIGN.md section 5 (ack, retransmit, dedupe, per-peer order, split).
"""

import random
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.endpoint import UNTRUSTED_IDLE, Endpoint
from p2p import recv_stream, send_stream
from p2p import transport as T
from p2p.faults import FaultPlan, SimNetwork

A = ("127.0.0.1", 1001)
B = ("127.0.0.1", 1002)
C = ("127.0.0.1", 1003)


def make_net(plan=None, n=2):
    got = {}
    net = SimNetwork(plan, on_deliver=lambda dst, out: got.setdefault(dst, []).extend(out))
    eps = {}
    for i, addr in enumerate((A, B, C)[:n]):
        eps[addr] = Endpoint(epoch=100 + i)
        net.attach(addr, eps[addr])
    return net, eps, got


def payloads(seed, count, big_every=0):
    rng = random.Random(seed)
    out = []
    for i in range(count):
        size = rng.randrange(0, 300)
        if big_every and i % big_every == 0:
            size = rng.randrange(T.MAX_CHUNK, 5 * T.MAX_CHUNK)  # fragmented
        out.append(i.to_bytes(4, "big") + rng.randbytes(size))
    return out


def test_in_order_exactly_once_without_faults():
    net, eps, got = make_net()
    msgs = payloads(1, 200)
    for m in msgs:
        eps[A].send(B, m)
        eps[B].send(A, m[::-1])
    net.run()
    assert got[B] == [(A, m) for m in msgs]
    assert got[A] == [(B, m[::-1]) for m in msgs]
    assert eps[A].idle and eps[B].idle


@pytest.mark.parametrize("seed", range(6))
def test_exactly_once_in_order_under_loss_dup_reorder(seed):
    plan = FaultPlan(seed=seed, loss=0.2, dup=0.15, reorder=0.25, delay=0.0003, jitter=0.002)
    net, eps, got = make_net(plan, n=3)
    msgs = payloads(seed, 150, big_every=17)
    for m in msgs:
        for src in (A, B, C):
            for dst in (A, B, C):
                if src != dst:
                    eps[src].send(dst, src[1].to_bytes(2, "big") + m)
    net.run(until=600)
    for dst in (A, B, C):
        for src in (A, B, C):
            if src == dst:
                continue
            seen = [p for s, p in got[dst] if s == src]
            assert seen == [src[1].to_bytes(2, "big") + m for m in msgs]
    totals = [ep.totals() for ep in eps.values()]
    assert sum(t["retransmits"] for t in totals) > 0  # the faults really bit
    assert sum(t["duplicates"] for t in totals) > 0
    assert all(ep.idle for ep in eps.values())


def test_large_payload_is_split_into_datagrams_and_reassembled():
    net, eps, got = make_net(FaultPlan(seed=3, loss=0.1, reorder=0.3))
    big = random.Random(5).randbytes(T.MAX_MESSAGE)  # the largest payload allowed: 63 chunks
    sizes = []
    orig = eps[A].datagrams_to_send

    def spy(now):
        out = orig(now)
        sizes.extend(len(d) for d, _ in out)
        return out

    eps[A].datagrams_to_send = spy
    eps[A].send(B, big)
    eps[A].send(B, b"after")
    net.run(until=600)
    assert got[B] == [(A, big), (A, b"after")]
    assert max(sizes) <= T.MAX_DATAGRAM
    assert len(sizes) >= -(-len(big) // T.MAX_CHUNK)


def test_lockstep_exchange_piggybacks_acks():
    """One message per peer per step, each answered by the next step: acks ride on data."""
    net, eps, got = make_net(FaultPlan(delay=0.0002))
    steps = 300
    eps[A].send(B, b"0")
    eps[B].send(A, b"0")
    sent = {A: 1, B: 1}
    for _ in range(100000):
        if not net.step():
            break
        for me, other in ((A, B), (B, A)):
            if len(got.get(me, [])) >= sent[me] and sent[me] < steps:
                eps[me].send(other, str(sent[me]).encode())
                sent[me] += 1
    assert [p for _, p in got[B]] == [str(i).encode() for i in range(steps)]
    t = eps[A].totals()
    assert t["payloads_sent"] == steps
    # Without piggybacking every message would cost a separate ack: 2 datagrams per message.
    assert t["pure_acks_sent"] <= 3
    assert t["datagrams_sent"] <= steps + 3


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\xb1",
        b"\x00" * 17,
        struct.pack("!BBIIIII", 0x42, 1, 5, 0, 0, 0, 0) + b"x",  # wrong magic
        struct.pack("!BBIIIII", T.MAGIC, 0x80, 5, 0, 0, 0, 0),  # unknown flag
        struct.pack("!BBIIIII", T.MAGIC, 0, 5, 0, 0, 0, 0) + b"x",  # pure ack with a body
        struct.pack("!BBIIIII", T.MAGIC, T.FLAG_MORE, 5, 0, 0, 0, 0),  # MORE without DATA
        struct.pack("!BBIIIII", T.MAGIC, 1, 0, 0, 0, 0, 0) + b"x",  # epoch 0
        struct.pack("!BBIIIII", T.MAGIC, 1, 5, 0, 0, 999, 0) + b"x",  # acks data never sent
    ],
)
def test_malformed_datagrams_are_dropped_and_counted(data):
    net, eps, got = make_net()
    eps[B].channel(A)  # known peer: the channel itself judges the datagram
    net.inject(A, B, data)
    net.run()
    assert got.get(B, []) == []
    assert eps[B].totals()["malformed"] == 1
    # and the channel still works afterwards
    eps[A].send(B, b"hello")
    net.run()
    assert got[B] == [(A, b"hello")]


def test_datagram_from_unknown_address_with_bad_magic_opens_no_channel():
    ep = Endpoint(epoch=7, max_peers=1)
    assert ep.receive_datagram(b"junk" * 10, A, 0.0) == []
    assert ep.channels == {} and ep.stats["unknown_dropped"] == 1
    good = struct.pack("!BBIIIII", T.MAGIC, 1, 5, 0, 0, 0, 0) + b"x"
    assert ep.receive_datagram(good, A, 0.0) == [(A, b"x")]
    ep.trust([A])  # the node vouched for A (a valid JOIN): it is never evicted for a stranger
    assert ep.receive_datagram(good.replace(b"x", b"y"), B, 0.0) == []  # max_peers reached
    assert list(ep.channels) == [A] and ep.stats["unknown_dropped"] == 2


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=60), max_size=20))
def test_random_bytes_never_raise(datagrams):
    ch = T.Channel(A, epoch=9)
    ch.send(b"x" * 3000)
    ch.datagrams_to_send(0.0)
    for i, d in enumerate(datagrams):
        # half of them get a valid magic so that they reach the deeper checks
        if i % 2 and d:
            d = bytes([T.MAGIC]) + d[1:]
        ch.receive_datagram(d, A, 0.001 * i)
    ch.handle_timer(10.0)
    ch.datagrams_to_send(10.0)


def test_flood_cannot_grow_receive_buffers():
    ch = T.Channel(A, epoch=9)
    for seq in range(1, 10 * T.RECV_WINDOW):
        ch.receive_datagram(struct.pack("!BBIIIII", T.MAGIC, 1, 5, 0, seq, 0, 0) + b"z" * 1000, A, 0.0)
    assert len(ch.receiver.ooo) == T.RECV_WINDOW - 1
    assert ch.stats["out_of_window"] == 10 * T.RECV_WINDOW - T.RECV_WINDOW


def test_oversized_reassembly_is_discarded_and_stream_continues(monkeypatch):
    monkeypatch.setattr(recv_stream, "MAX_MESSAGE", 2 * T.MAX_CHUNK)  # the reassembly's limit
    ch = T.Channel(A, epoch=9)
    hdr = struct.Struct("!BBIIIII")
    more = T.FLAG_DATA | T.FLAG_MORE
    out = []
    for seq in range(4):
        out += ch.receive_datagram(hdr.pack(T.MAGIC, more, 5, 0, seq, 0, 0) + b"a" * T.MAX_CHUNK, A, 0)
    out += ch.receive_datagram(hdr.pack(T.MAGIC, T.FLAG_DATA, 5, 0, 4, 0, 0) + b"end", A, 0)
    out += ch.receive_datagram(hdr.pack(T.MAGIC, T.FLAG_DATA, 5, 0, 5, 0, 0) + b"next", A, 0)
    assert out == [b"next"]
    assert ch.stats["oversize_dropped"] == 1


def test_send_limits_raise_and_queue_nothing(monkeypatch):
    ch = T.Channel(A, epoch=9)
    with pytest.raises(T.LocalProtocolError):
        ch.send(b"x" * (T.MAX_MESSAGE + 1))
    monkeypatch.setattr(send_stream, "MAX_SEND_BUFFER", 5000)
    ch.send(b"x" * 4000)
    with pytest.raises(T.BufferFull):
        ch.send(b"x" * 2000)
    assert ch.stats["payloads_sent"] == 1 and len(ch.sender.queue) == 4


def test_retransmission_backs_off_up_to_the_cap():
    """A peer that never answers: the same datagram is resent at growing intervals ≤ MAX_RTO."""
    net, eps, got = make_net()
    del net.nodes[B]  # datagrams to B vanish
    eps[A].send(B, b"ping")
    times = []
    orig = eps[A].datagrams_to_send

    def spy(now):
        out = orig(now)
        times.extend(now for _ in out)
        return out

    eps[A].datagrams_to_send = spy
    net.run(until=12.0)
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert gaps[0] == pytest.approx(T.INITIAL_RTO)
    assert all(g2 >= g1 - 1e-9 for g1, g2 in zip(gaps, gaps[1:]))
    assert max(gaps) == pytest.approx(T.MAX_RTO)
    assert eps[A].channels[B].stats["retransmits"] == len(gaps)


def test_peer_restart_resets_the_channel_and_drops_stragglers():
    net, eps, got = make_net()
    eps[A].send(B, b"one")
    net.run()
    old_datagram = T.HEADER.pack(T.MAGIC, T.FLAG_DATA, 101, 100, 7, 0, 0) + b"stale"
    # B restarts: a new endpoint with a new epoch at the same address. A does not know yet and
    # sends "two" to the old instance at the same moment as the new B says hello.
    eps[B] = Endpoint(epoch=555)
    net.attach(B, eps[B])
    got[B] = []
    eps[B].send(A, b"hello again")
    eps[A].send(B, b"two")
    net.run()
    assert got[A] == [(B, b"hello again")]
    assert got[B] == []  # "two" was addressed to the old instance: dropped, not misdelivered
    assert eps[B].channels[A].stats["stale_epoch"] >= 1
    assert eps[A].channels[B].stats["peer_restarts"] == 1
    eps[A].send(B, b"three")
    net.run()
    assert got[B] == [(A, b"three")]
    net.inject(B, A, old_datagram)  # a late datagram of B's first instance
    net.run()
    assert eps[A].channels[B].stats["stale_epoch"] == 1
    assert got[A] == [(B, b"hello again")]


def _dg(seq, flags, chunk, src_epoch=5):
    return struct.pack("!BBIIIII", T.MAGIC, flags, src_epoch, 0, seq, 0, 0) + chunk


def test_flood_from_spoofed_sources_stays_bounded_and_lets_a_joiner_in():
    """protocol.md §N2.6: unauthenticated datagrams from 500 spoofed sources, each trying to
    fill its channel (a partial reassembly plus out-of-order chunks), keep at most
    ``max_peers`` channels and ``MAX_RECV_BUFFER`` buffered bytes (counted chunk by chunk); a
    real joiner's JOIN still opens a channel and is delivered, and once the game started only
    the setup's endpoints are kept."""
    ep = Endpoint(epoch=7, max_peers=32)
    chunk = b"z" * T.MAX_CHUNK
    now = 0.0
    for i in range(500):
        src = ("10.0.%d.%d" % (i // 250, i % 250 + 1), 4000)
        for seq in range(40):  # in order, all MORE: a reassembly that never ends
            ep.receive_datagram(_dg(seq, T.FLAG_DATA | T.FLAG_MORE, chunk), src, now)
        for seq in range(41, 41 + 200):  # a gap, then out-of-order chunks
            ep.receive_datagram(_dg(seq, T.FLAG_DATA | T.FLAG_MORE, chunk), src, now)
        buffered = sum(ch.recv_buffered for ch in ep.channels.values())
        # Strangers draw on their own budget, each at most its cap of out-of-order chunks plus
        # one reassembly (H48): the trusted peers' MAX_RECV_BUFFER stays whole.
        assert buffered == ep.stranger_budget.used <= ep.stranger_budget.limit and ep.budget.used == 0
        assert all(ch.recv_buffered <= T.STRANGER_RECV_CAP + T.MAX_MESSAGE for ch in ep.channels.values())
        assert len(ep.channels) <= ep.max_peers
        now += 0.001
    totals = ep.totals()
    assert totals["evicted"] >= 500 - ep.max_peers and totals["recv_budget_dropped"] > 0
    joiner = ("127.0.0.9", 5000)
    assert ep.receive_datagram(_dg(0, T.FLAG_DATA, b"JOIN"), joiner, now) == [(joiner, b"JOIN")]
    ep.trust([joiner])  # the lobby accepted its JOIN
    for i in range(100):  # the flood goes on: the joiner's channel is never evicted
        ep.receive_datagram(_dg(0, T.FLAG_DATA | T.FLAG_MORE, chunk), ("10.1.0.%d" % (i + 1), 4000), now)
    assert joiner in ep.channels
    ep.restrict([joiner, ("127.0.0.1", 6000)])  # game started: the setup's endpoints only
    assert list(ep.channels) == [joiner] and ep.budget.used == 0 == ep.stranger_budget.used
    assert ep.receive_datagram(_dg(0, T.FLAG_DATA, b"x"), ("10.2.0.1", 4000), now) == []
    assert list(ep.channels) == [joiner]
    # The largest legitimate payload (a 64 KiB catch-up) still fits one reassembly.
    big = random.Random(1).randbytes(64 * 1024)
    n = -(-len(big) // T.MAX_CHUNK)
    out = []
    for i in range(n):
        flags = T.FLAG_DATA | (T.FLAG_MORE if i < n - 1 else 0)
        out += ep.receive_datagram(_dg(1 + i, flags, big[i * T.MAX_CHUNK:(i + 1) * T.MAX_CHUNK]), joiner, now)
    assert out == [(joiner, big)] and ep.budget.used == 0


def test_a_strangers_out_of_order_chunks_are_capped_and_move_with_trust():
    """§N2.6 (H48): an untrusted channel buffers at most STRANGER_RECV_CAP bytes of out-of-order
    chunks, on the strangers' budget; once the owner trusts the address what it holds moves to
    the trusted budget, and the cap is lifted."""
    ep = Endpoint(epoch=7)
    chunk = b"s" * T.MAX_CHUNK
    for seq in range(1, 60):
        ep.receive_datagram(_dg(seq, T.FLAG_DATA | T.FLAG_MORE, chunk), A, 0.0)
    held = ep.channels[A].recv_buffered
    assert T.STRANGER_RECV_CAP - T.MAX_CHUNK < held <= T.STRANGER_RECV_CAP
    assert ep.stranger_budget.used == held and ep.budget.used == 0
    assert ep.totals()["recv_budget_dropped"] == 59 - held // T.MAX_CHUNK
    ep.trust([A])
    assert ep.budget.used == held and ep.stranger_budget.used == 0
    for seq in range(60, 80):
        ep.receive_datagram(_dg(seq, T.FLAG_DATA | T.FLAG_MORE, chunk), A, 0.0)
    assert ep.budget.used == held + 20 * T.MAX_CHUNK
    ep.forget(A)
    assert ep.budget.used == 0 == ep.stranger_budget.used


def test_idle_strangers_are_evicted_when_a_new_source_arrives():
    """An untrusted channel silent for UNTRUSTED_IDLE s is forgotten (with its buffers) when
    another source shows up; a trusted one is kept however long it is silent."""
    ep = Endpoint(epoch=7)
    ep.receive_datagram(_dg(1, T.FLAG_DATA, b"early"), A, 0.0)  # buffered out of order
    ep.receive_datagram(_dg(0, T.FLAG_DATA, b"hi"), B, 0.0)
    ep.trust([B])
    assert ep.stranger_budget.used == len(b"early")  # A is a stranger: not the trusted budget (H48)
    ep.receive_datagram(_dg(0, T.FLAG_DATA, b"new"), ("127.0.0.5", 9), UNTRUSTED_IDLE + 0.1)
    assert A not in ep.channels and B in ep.channels
    assert ep.stats["evicted"] == 1 and ep.stranger_budget.used == 0


@given(start=st.floats(0.0, 50.0), length=st.floats(0.01, 20.0), lobby=st.floats(0.0, 100.0),
       t=st.floats(0.0, 200.0))
def test_partitions_are_held_through_the_lobby_and_count_from_the_game_start(start, length, lobby, t):
    """protocol.md §N6: the node holds its simulated partitions while the lobby runs
    (``FaultPlan.hold`` after opening its link) and starts their clock at ``GameStarted``
    (``set_origin``): nothing is cut before the game, and the window is [start, start + length)
    seconds after the game's start, whatever the lobby took."""
    plan = FaultPlan(seed=1, loss=0.0, partitions=((start, length),))
    plan.set_origin(0.0)  # the link opens
    plan.hold()
    assert not plan.partitioned(t)  # the lobby: never cut
    plan.set_origin(lobby)  # the game starts
    now = lobby + t
    since = now - lobby  # seconds since the game's start, as the plan computes them (float rounding)
    assert plan.partitioned(now) == (start <= since < start + length)
