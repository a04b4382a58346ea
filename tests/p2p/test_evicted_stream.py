"""A forgotten channel's streams go on (protocol.md §N2.6 'Strangers', §N2.3; H86, H85's break).

An endpoint forgets an untrusted channel when new sources need room; the peer keeps its side and
has taken every acknowledged chunk as delivered. Before H86 a channel opened later for the same
address started both streams at 0: it acknowledged the peer's next chunks out of order behind
ones it never got, and never delivered them (a join by code ended for good after a short flood of
spoofed sources). Now the endpoint keeps the forgotten channel's resume point: the next channel
goes on where it stopped, or, if the old one held data it cannot pass on, takes a fresh epoch so
that the peer restarts the stream (§N2.2).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p import transport as T
from p2p.channel_auth import KeyCache
from p2p.endpoint import TOMBSTONES_PER_PEER, UNTRUSTED_IDLE, Endpoint
from p2p.identity import Identity

A, B = ("127.0.0.1", 1001), ("127.0.0.2", 1002)


def _run(a: Endpoint, b: Endpoint, now: float, until: float, got_a: list, got_b: list,
         lose=lambda d: False) -> float:
    """a (at A) and b (at B) on a virtual wire until ``until`` (``lose(datagram)``: dropped on
    the way); payloads delivered to each go to ``got_a`` / ``got_b``. Returns the clock."""
    while now < until:
        for _ in range(4):
            for d, _dst in a.datagrams_to_send(now):
                if not lose(d):
                    got_b.extend(p for _s, p in b.receive_datagram(d, A, now))
            for d, _dst in b.datagrams_to_send(now):
                if not lose(d):
                    got_a.extend(p for _s, p in a.receive_datagram(d, B, now))
        now += 0.05
        a.handle_timer(now)
        b.handle_timer(now)
    return now


def _fill(b: Endpoint, now: float, count: int) -> None:
    """``count`` bare datagrams from fresh sources: each makes ``b`` evict what it may."""
    junk = T.HEADER.pack(T.MAGIC, 0, 5, 0, 0, 0, 0)
    for i in range(count):
        b.receive_datagram(junk, ("10.1.%d.%d" % (i // 250, i % 250), 9), now)


def test_an_evicted_strangers_streams_go_on_both_ways():
    """A talks to B (B answers); B evicts A's stranger channel to make room; A's and B's next
    messages are delivered, in order, on the channel B opens again (no restart)."""
    a, b = Endpoint(epoch=1), Endpoint(epoch=2)
    got_a, got_b = [], []
    a.send(B, b"a1")
    now = _run(a, b, 0.0, 1.0, got_a, got_b)
    b.send(A, b"b1")
    now = _run(a, b, now, 2.0, got_a, got_b)
    assert got_b == [b"a1"] and got_a == [b"b1"]
    b.trust([])  # the owner vouches for nobody (B's send made A trusted)
    now += UNTRUSTED_IDLE
    _fill(b, now, 1)  # a new source: A's channel, idle for UNTRUSTED_IDLE, is evicted
    assert A not in b.channels and b.stats["evicted"] == 1
    a.send(B, b"a2")
    b.send(A, b"b2")
    _run(a, b, now, now + 5.0, got_a, got_b)
    assert got_b == [b"a1", b"a2"] and got_a == [b"b1", b"b2"]
    assert b.stats["resumed"] == 1 and a.channels[B].stats["peer_restarts"] == 0


def test_a_channel_forgotten_with_data_in_flight_makes_the_peer_restart_the_stream():
    """B forgets A's channel while B's message to A is unacknowledged (it is lost with the
    channel, as for a restart of B): the next channel has a fresh epoch of its own, A proves it
    and restarts the stream (§N2.2), and A's later messages are delivered."""
    a, b = Endpoint(epoch=1), Endpoint(epoch=2)
    got_a, got_b = [], []
    a.send(B, b"a1")
    now = _run(a, b, 0.0, 1.0, got_a, got_b)
    b.send(A, b"b1")
    b.datagrams_to_send(now)  # b1 leaves and is lost on the way
    b.forget(A)
    a.send(B, b"a2")
    now = _run(a, b, now, now + 5.0, got_a, got_b)
    assert a.channels[B].stats["peer_restarts"] == 1 and b.channels[A].peer_epoch == 1
    a.send(B, b"a3")
    _run(a, b, now, now + 5.0, got_a, got_b)
    assert got_b[0] == b"a1" and got_b[-1] == b"a3" and got_a == []


def test_a_keyed_stranger_comes_back_with_its_key_and_nothing_else_does():
    """A keyed stranger's channel (opened by its introduction) is forgotten; A's next
    authenticated datagram (0xB2) reopens it with the remembered key and the stream goes on; a
    forged 0xB2 from A's address opens nothing."""
    ia, ib = Identity.from_seed(b"h86-a"), Identity.from_seed(b"h86-b")
    a = Endpoint(epoch=1, keys=KeyCache(ia), accept_plain=False)
    b = Endpoint(epoch=2, keys=KeyCache(ib), accept_plain=False)
    a.pin(B, ib.x25519_public_key)
    got_a, got_b = [], []
    a.send(B, b"a1")
    now = _run(a, b, 0.0, 1.0, got_a, got_b)
    b.send(A, b"b1")
    now = _run(a, b, now, 2.0, got_a, got_b)
    assert not a.channels[B].introducing
    b.forget(A)
    forged = T.HEADER.pack(T.MAGIC_AUTH, 0, 1, 2, 0, 1, 0) + bytes(16)
    assert b.receive_datagram(forged, A, now) == [] and A not in b.channels
    a.send(B, b"a2")
    _run(a, b, now, now + 5.0, got_a, got_b)
    assert got_b == [b"a1", b"a2"] and got_a == [b"b1"]
    assert b.peer_key(A) == ia.x25519_public_key


def test_resume_points_are_bounded_and_kept_only_for_proven_or_trusted_peers():
    """At most TOMBSTONES_PER_PEER x max_peers forgotten channels are remembered (oldest dropped),
    and only for a peer that proved its address or that the owner vouches for: a spoofed
    source's channel, whatever it carried, keeps none (H88 review #2: one-byte DATA junk from
    fresh sources pushed a joiner's point out)."""
    b = Endpoint(epoch=2, max_peers=4)
    data = T.HEADER.pack(T.MAGIC, T.FLAG_DATA, 7, 0, 0, 0, 0) + b"x"
    for i in range(20):
        src = ("10.3.0.%d" % i, 9)
        assert b.receive_datagram(data, src, 0.0) == [(src, b"x")]
        b.forget(src)
    assert b.resume_points == 0
    for i in range(100):
        src = ("10.2.0.%d" % i, 9)
        assert b.receive_datagram(data, src, 0.0) == [(src, b"x")]
        b.trust([src])
        b.forget(src)
    assert b.resume_points == TOMBSTONES_PER_PEER * 4


def test_a_stranger_forgotten_before_it_proved_its_address_restarts_its_stream():
    """§N2.6: no resume point for an unconfirmed stranger; its next datagram names our epoch
    (a first contact names 0), so the new channel takes a fresh epoch, the peer proves it and
    restarts its stream (what it had queued is dropped, as for a restart of ours, §N2.2; the
    lobby re-sends): its next message is delivered."""
    a, b = Endpoint(epoch=1), Endpoint(epoch=2)
    got_a, got_b = [], []
    a.send(B, b"a1")
    now = _run(a, b, 0.0, 0.5, got_a, got_b, lambda d: d[1] & T.FLAG_CHALLENGE)  # never confirmed
    assert got_b == [b"a1"] and not b.channels[A].confirmed
    b.forget(A)
    assert b.resume_points == 0
    a.send(B, b"a2")
    now = _run(a, b, now, now + 2.0, got_a, got_b)
    assert a.channels[B].stats["peer_restarts"] == 1
    a.send(B, b"a3")
    _run(a, b, now, now + 2.0, got_a, got_b)
    assert got_b[0] == b"a1" and got_b[-1] == b"a3"


def test_a_channel_that_sent_and_never_heard_restarts_when_reopened():
    """H88 review #1: A's channel to B sent 'one' (delivered) but every answer from B was lost;
    A forgets it (as Endpoint.trust forgets a pinned, never-heard channel) and opens a new one:
    it takes a fresh epoch, B proves it and restarts, and 'two' is delivered (before: the new
    channel restarted at seq 0 on the same epoch and B dropped 'two' as a duplicate)."""
    a, b = Endpoint(epoch=1), Endpoint(epoch=2)
    got_a, got_b = [], []
    a.send(B, b"one")
    for t in (0.0, 0.05, 0.1):
        for d, _x in a.datagrams_to_send(t):
            got_b += [p for _s, p in b.receive_datagram(d, A, t)]
        b.datagrams_to_send(t)  # lost
    assert got_b == [b"one"] and a.channels[B].peer_epoch is None
    a.forget(B)
    a.send(B, b"two")
    _run(a, b, 0.2, 5.0, got_a, got_b)
    assert got_b == [b"one", b"two"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["send", "evict", "run", "lose"]), min_size=1, max_size=25))
def test_evictions_never_reorder_duplicate_or_stall_a_stream(script):
    """Property (§N2.3 across §N2.6 evictions): whatever mix of A's sends, B's evictions of A's
    channel and lossy moments, B gets A's messages in order and at most once, and the message A
    sends after the last eviction is delivered."""
    a, b = Endpoint(epoch=1), Endpoint(epoch=2)
    sent, got_a, got_b = [], [], []
    now, lossy = 0.0, [False]
    for op in script:
        if op == "send":
            sent.append(b"m%d" % len(sent))
            a.send(B, sent[-1])
        elif op == "evict":
            b.forget(A)
        elif op == "lose":
            lossy[0] = not lossy[0]
        now = _run(a, b, now, now + 0.3, got_a, got_b, lambda d: lossy[0] and d[1] & T.FLAG_DATA)
    sent.append(b"last")
    a.send(B, b"last")
    _run(a, b, now, now + 20.0, got_a, got_b)
    assert got_b[-1] == b"last"
    assert len(set(got_b)) == len(got_b)
    assert [m for m in sent if m in got_b] == got_b
