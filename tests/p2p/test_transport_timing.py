"""Acknowledgement and retransmission timing (protocol.md §N2.4, §N2.5; issue 14): delayed acks
long enough for a lockstep step of 8 seats, FLAG_ACK_NOW and the lossy regime, time-threshold
loss detection from selective acks, and no retransmission storm from repeated acks.

Sans-I/O on a hand-driven virtual clock: every datagram is delivered at once unless dropped."""

from __future__ import annotations

import pytest

from p2p.endpoint import Endpoint
from p2p import transport as T

A = ("127.0.0.1", 2001)
B = ("127.0.0.1", 2002)


def flags_of(datagram: bytes) -> int:
    return T.HEADER.unpack_from(datagram)[1]


def seq_of(datagram: bytes) -> int:
    return T.HEADER.unpack_from(datagram)[4]


def pair():
    return T.Channel(B, epoch=11), T.Channel(A, epoch=22)  # a (at A, talks to B), b (at B)


def test_data_with_ack_now_is_acknowledged_at_once_and_without_it_after_the_delay():
    a, b = pair()
    a.send(b"plain")
    (d,), = [[x for x, _ in a.datagrams_to_send(0.0)]]
    assert not flags_of(d) & T.FLAG_ACK_NOW
    assert b.receive_datagram(d, A, 0.0) == [b"plain"]
    assert b.datagrams_to_send(0.0) == []  # held for a datagram going the other way
    assert b.get_timer() == pytest.approx(T.MAX_ACK_DELAY)
    assert len(b.datagrams_to_send(T.MAX_ACK_DELAY)) == 1
    # The same with FLAG_ACK_NOW (a forged header on the plain channel: flags are in the header).
    hdr = T.HEADER.pack(T.MAGIC, T.FLAG_DATA | T.FLAG_ACK_NOW, 11, 22, 1, 0, 0)
    assert b.receive_datagram(hdr + b"now", A, 1.0) == [b"now"]
    (ack,) = b.datagrams_to_send(1.0)
    assert T.HEADER.unpack_from(ack[0])[5] == 2  # cumulative ack covers both


def test_a_draining_peer_acknowledges_at_once():
    """After the game (Link.drain) no next message will carry an ack: ``hurry_acks`` sends the
    held ack now and acks every later datagram at once, instead of after MAX_ACK_DELAY."""
    a, b = pair()
    a.send(b"last step")
    (d,), = [[x for x, _ in a.datagrams_to_send(0.0)]]
    assert b.receive_datagram(d, A, 0.0) == [b"last step"]
    assert b.datagrams_to_send(0.001) == []  # held, as in the game
    b.hurry_acks(0.002)
    assert b.get_timer() == pytest.approx(0.002)
    (ack,) = b.datagrams_to_send(0.002)
    assert a.receive_datagram(ack[0], B, 0.003) == [] and a.idle
    a.send(b"straggler")
    (d2,), = [[x for x, _ in a.datagrams_to_send(0.004)]]
    assert b.receive_datagram(d2, A, 0.004) == [b"straggler"]
    assert len(b.datagrams_to_send(0.004)) == 1 and b.idle

def test_ack_now_without_data_is_malformed():
    _a, b = pair()
    b.receive_datagram(T.HEADER.pack(T.MAGIC, T.FLAG_DATA, 11, 22, 0, 0, 0) + b"x", A, 0.0)
    before = b.stats["malformed"]
    assert b.receive_datagram(T.HEADER.pack(T.MAGIC, T.FLAG_ACK_NOW, 11, 22, 0, 0, 0), A, 0.0) == []
    assert b.stats["malformed"] == before + 1


def resend_after_timeout(a, lost_at):
    """Let ``a``'s RTO fire for a datagram dropped at ``lost_at``; the resent datagram, its time."""
    t = a.get_timer()
    assert t > lost_at
    a.handle_timer(t)
    out = [x for x, _ in a.datagrams_to_send(t)]
    assert out and all(x == out[0] for x in out)  # in the lossy regime a resend has its copy too
    return out[0], t


def test_a_lone_timeout_does_not_start_the_lossy_regime_but_a_second_one_does():
    a, b = pair()
    a.send(b"lost")
    a.datagrams_to_send(0.0)  # dropped on the way
    r, t = resend_after_timeout(a, 0.0)
    assert flags_of(r) & T.FLAG_ACK_NOW and a.stats["retransmits"] == 1  # a resend asks at once
    b.receive_datagram(r, A, t)
    (ack,) = [x for x, _ in b.datagrams_to_send(t)]  # at once
    a.receive_datagram(ack, B, t + 0.001)
    a.send(b"next")
    (n,) = [x for x, _ in a.datagrams_to_send(t + 0.002)]
    assert not flags_of(n) & T.FLAG_ACK_NOW  # one timeout: most often a late ack, not a loss
    # "next" is lost too: a second resend within LOSS_HOLD shows loss.
    r2, t2 = resend_after_timeout(a, t + 0.002)
    assert t2 - t < T.LOSS_HOLD
    b.receive_datagram(r2, A, t2)
    a.receive_datagram(b.datagrams_to_send(t2)[0][0], B, t2 + 0.001)
    a.send(b"third")
    n3, copy = [x for x, _ in a.datagrams_to_send(t2 + 0.002)]
    assert flags_of(n3) & T.FLAG_ACK_NOW  # lossy: the peer acks at once...
    assert copy == n3 and a.stats["copies_sent"] == 2  # ...and gets it twice (the resend had its copy too)
    assert a.get_timer() - (t2 + 0.002) < T.MIN_RTO  # ...so the RTO follows the bare round trip
    a.send(b"calm")
    (c,) = [x for x, _ in a.datagrams_to_send(t2 + T.LOSS_HOLD + 0.01)]
    assert not flags_of(c) & T.FLAG_ACK_NOW  # LOSS_HOLD later: back to delayed acks


def resend_a_hole():
    """"step 1" lost, "step 2" arrives, its selective ack shows the hole at 0.014: the channel
    pair and the datagrams of step 1's resend."""
    a, b = pair()
    a.send(b"step 1")
    a.datagrams_to_send(0.0)  # lost
    a.send(b"step 2")
    (d2,) = [x for x, _ in a.datagrams_to_send(0.012)]
    b.receive_datagram(d2, A, 0.013)
    a.receive_datagram(b.datagrams_to_send(0.013)[0][0], B, 0.014)
    return a, b, [x for x, _ in a.datagrams_to_send(0.014)]


def test_a_hole_in_a_selective_ack_starts_the_lossy_regime():
    a, _b, _resend = resend_a_hole()
    a.send(b"step 3")
    # Step 1's resend is still unacknowledged 6 ms later, but a resent datagram waits for its
    # RTO (``SendStream._overdue`` probes a datagram once): step 3 goes alone, with its copy.
    d3, copy = [x for x, _ in a.datagrams_to_send(0.020)]
    assert flags_of(d3) & T.FLAG_ACK_NOW and copy == d3


def test_an_overdue_datagram_goes_again_beside_new_data():
    """§N2.4 overdue chunks: in the lossy regime a datagram sent once with ACK_NOW and not
    acknowledged within 9/8 of the bare round trip is resent beside the next new one."""
    a, b, _resend = resend_a_hole()  # lossy regime from 0.014
    b.receive_datagram(_resend[0], A, 0.015)
    a.receive_datagram(b.datagrams_to_send(0.015)[0][0], B, 0.016)  # prompt sample: 2 ms
    a.send(b"step 3")
    a.datagrams_to_send(0.017)  # lost, both copies
    a.send(b"step 4")
    out = [x for x, _ in a.datagrams_to_send(0.030)]
    assert [seq_of(x) for x in out] == [2, 2, 3, 3] and flags_of(out[0]) & T.FLAG_ACK_NOW
    assert a.stats["fast_retransmits"] == 2  # one for the hole, one overdue


def test_a_peer_that_never_acknowledges_gets_no_overdue_resends_nor_copies():
    """A full window to a silent peer (e.g. a spoofed address): only the RTO's resends, backed
    off, one copy each — never the whole window again at every call (tests/p2p/test_redteam_lan_transport.py)."""
    a, _b = pair()
    for i in range(100):
        a.send(bytes([i]) * 1000)
    now = 0.0
    while now < 30.0:
        a.handle_timer(now)
        a.datagrams_to_send(now)
        now += 0.05
    assert a.stats["fast_retransmits"] == 0 and a.stats["copies_sent"] == 0
    assert a.stats["retransmits"] <= T.SEND_WINDOW * 36  # ~one window per MAX_RTO


def test_the_lossy_regime_copy_is_dropped_without_an_extra_ack():
    a, b = pair()
    a.send(b"x")
    (d,) = [x for x, _ in a.datagrams_to_send(0.0)]
    assert b.receive_datagram(d, A, 0.0) == [b"x"]
    assert b.receive_datagram(d, A, 0.001) == []  # the copy, 1 ms later
    assert b.stats["duplicates"] == 1 and b.datagrams_to_send(0.001) == []  # no extra ack yet
    assert b.receive_datagram(d, A, 0.001 + T.COPY_GRACE) == []  # a late duplicate: our ack was lost
    assert len(b.datagrams_to_send(0.001 + T.COPY_GRACE)) == 1


def test_a_later_datagram_acknowledged_resends_the_lost_one_before_its_rto():
    """Lockstep: one datagram per step; the next one's selective ack shows the hole."""
    a, b = pair()
    a.send(b"step 1")
    a.datagrams_to_send(0.0)  # lost
    a.send(b"step 2")
    (d2,) = [x for x, _ in a.datagrams_to_send(0.012)]
    assert b.receive_datagram(d2, A, 0.013) == []  # held: a gap
    (sack,) = [x for x, _ in b.datagrams_to_send(0.013)]
    a.receive_datagram(sack, B, 0.014)
    out = [x for x, _ in a.datagrams_to_send(0.014)]
    assert [seq_of(x) for x in out] == [0, 0] and a.stats["fast_retransmits"] == 1  # a hole: lossy, with its copy
    assert 0.014 < T.INITIAL_RTO  # well before the timeout would have fired
    assert b.receive_datagram(out[0], A, 0.015) == [b"step 1", b"step 2"]


def test_repeated_acks_do_not_resend_a_hole_again():
    """A resent datagram is declared lost again only by the ack of something sent after it."""
    a, b = pair()
    for i in range(6):
        a.send(bytes([i]))
    sent = [x for x, _ in a.datagrams_to_send(0.0)]
    acks = []
    for d in sent[1:]:  # seq 0 lost
        b.receive_datagram(d, A, 0.001)
        acks += [x for x, _ in b.datagrams_to_send(0.001)]
    assert len(acks) >= 2
    resent = []
    for ack in acks + acks * 3:  # every ack, then all of them again: all sent before the resend
        a.receive_datagram(ack, B, 0.003)
        resent += [seq_of(x) for x, _ in a.datagrams_to_send(0.003)]
    assert resent == [0, 0]  # once (with the lossy regime's copy)
    assert a.stats["retransmits"] == 1


def test_eight_seat_lockstep_with_spread_steps_needs_no_pure_acks():
    """8 seats; in each step the seats send 3 ms apart (a 21 ms spread, longer than the old 10 ms
    ack delay): every ack rides on the next step's message (§N2.4)."""
    n, steps = 8, 40
    addrs = [("127.0.0.1", 3000 + i) for i in range(n)]
    eps = [Endpoint(epoch=500 + i) for i in range(n)]
    now = 0.0

    def settle(t):
        for ep in eps:
            timer = ep.get_timer()
            if timer is not None and timer <= t:
                ep.handle_timer(t)
        moving = True
        while moving:
            moving = False
            for i, ep in enumerate(eps):
                for data, dst in ep.datagrams_to_send(t):
                    moving = True
                    eps[addrs.index(dst)].receive_datagram(data, addrs[i], t)

    for k in range(steps):
        for i in range(n):
            now = k * 0.030 + i * 0.003
            settle(now)
            for j in range(n):
                if j != i:
                    eps[i].send(addrs[j], b"step %d" % k)
            settle(now)
        for tick in range(1, 9):
            settle(now + tick * 0.001)
    tot = [ep.totals() for ep in eps]
    payloads = sum(t["payloads_sent"] for t in tot)
    assert payloads == steps * n * (n - 1)
    assert sum(t["retransmits"] for t in tot) == 0
    # Only the last step's messages, which no next step answers, cost a pure ack each.
    assert sum(t["pure_acks_sent"] for t in tot) <= n * (n - 1)
    assert sum(t["datagrams_sent"] for t in tot) <= payloads + n * (n - 1)


def test_a_copy_is_dropped_before_its_mac_and_a_changed_one_is_not():
    """Keyed channel: the lossy regime's copy (the same bytes within COPY_GRACE of the
    original) is dropped unread, as a duplicate, without an ack; a datagram that differs from
    it in one byte is checked (bad MAC) and changes nothing."""
    from p2p.channel_auth import KeyCache
    from p2p.identity import Identity

    ia, ib = Identity.from_seed(b"copy-a"), Identity.from_seed(b"copy-b")
    ea, eb = Endpoint(epoch=11, keys=KeyCache(ia)), Endpoint(epoch=22, keys=KeyCache(ib))
    ea.pin(B, ib.x25519_public_key)
    eb.pin(A, ia.x25519_public_key)
    ea.send(B, b"x")
    (d,) = [x for x, _ in ea.datagrams_to_send(0.0)]
    assert eb.receive_datagram(d, A, 0.0) == [(A, b"x")]
    ch = eb.channels[A]
    assert eb.receive_datagram(d, A, 0.001) == [] and ch.stats["duplicates"] == 1
    assert ch.stats["bad_mac"] == 0 and ch.datagrams_to_send(0.001) == []  # its ack is not due yet
    forged = d[:-1] + bytes([d[-1] ^ 1])
    assert eb.receive_datagram(forged, A, 0.002) == [] and ch.stats["bad_mac"] == 1


def test_a_resend_after_the_rto_has_its_copies_in_the_lossy_regime():
    """§N2.4: in the regime a resent datagram goes out with the same copies as new data."""
    a, _b, first = resend_a_hole()  # the hole starts the lossy regime
    assert [seq_of(x) for x in first] == [0, 0] and first[0] == first[1]
    assert a.stats["retransmits"] == 1 and a.stats["copies_sent"] == 1


def test_a_hole_shown_by_the_next_datagram_is_resent_at_once_though_acks_were_delayed():
    """§N2.5 time threshold: for datagrams acknowledged after a delay it is 9/8 of the bare
    round trip, not of their srtt (which holds the peer's ack delay, ~50 ms): a lockstep
    datagram lost outside the lossy regime is resent when the next one's selective ack shows
    the hole, not 80 ms later by its RTO."""
    a, b = pair()
    a.send(b"d0")
    (d0,) = [x for x, _ in a.datagrams_to_send(0.0)]
    b.receive_datagram(d0, A, 0.0003)
    (ack,) = [x for x, _ in b.datagrams_to_send(T.MAX_ACK_DELAY + 0.0003)]  # a delayed ack
    a.receive_datagram(ack, B, T.MAX_ACK_DELAY + 0.0006)  # srtt ~50 ms
    a.send(b"d1")
    a.datagrams_to_send(1.0)  # lost
    a.send(b"d2")
    (d2,) = [x for x, _ in a.datagrams_to_send(1.0015)]
    b.receive_datagram(d2, A, 1.0018)
    (sack,) = [x for x, _ in b.datagrams_to_send(1.0018)]  # a gap: at once
    a.receive_datagram(sack, B, 1.0021)
    out = [x for x, _ in a.datagrams_to_send(1.0021)]
    assert seq_of(out[0]) == 1 and out[0].endswith(b"d1") and a.stats["fast_retransmits"] == 1
