"""protocol.md §N2.1 step 3 "The replaced channel is kept aside", with several keys (H127 REVIEW #7 on
5bbb13b): every keyed channel an introduction displaces at an untrusted address is kept aside (at most
``INTRO_ADDR_BURST``, the introductions one address may have back to back, §N2.6), a datagram that fails the
current channel's MAC swaps back whichever passes, and all are dropped once the current one is heard.
Before: one displaced channel per address, and a second introduction (another key) dropped it, so two forged
introductions of two keys in a new peer's first round trip cut it off for good (s12b #1 with 2 datagrams).
Sans-I/O, virtual clock, one-way latency 0.3 ms, in memory (the harness of test_redteam_s12b_intro_flood).
"""

from __future__ import annotations

import heapq

from hypothesis import given, settings, strategies as st

from p2p.channel_auth import INTRO_ADDR_BURST, KeyCache
from p2p.endpoint import Endpoint
from p2p.identity import Identity

from redteam_lan_kit import MALLORY, forge_intro

ME, PEER = ("10.0.0.1", 5000), ("10.0.0.2", 5000)
ME_ID, PEER_ID = Identity.from_seed(b"h128-me"), Identity.from_seed(b"h128-peer")
FORGERS = [MALLORY] + [Identity.from_seed(b"h134-forger-%d" % i) for i in range(1, 6)]
FORGED = [forge_intro(f, ME, ME_ID.x25519_public_key, b"WATCH as nobody")[0] for f in FORGERS]
LATENCY = 0.0003  # one way (s)


class _Wire:
    """Datagrams in flight between endpoints, by arrival time (``LATENCY`` s one way)."""

    def __init__(self, addr_of: dict) -> None:
        self.addr_of, self.flight, self.n = addr_of, [], 0

    def put(self, at: float, dst: Endpoint, data: bytes) -> None:
        self.n += 1
        heapq.heappush(self.flight, (at, self.n, dst, data))

    def next_at(self) -> float:
        return self.flight[0][0] if self.flight else float("inf")

    def deliver(self, now: float) -> None:
        while self.flight and self.flight[0][0] <= now:
            _at, _n, dst, data = heapq.heappop(self.flight)
            dst.receive_datagram(data, self.addr_of[id(dst)], now)


def _run(spoofs: list[tuple[float, int]], seconds: float = 5.0, peer_at: float = 0.0) -> Endpoint:
    """The peer (never trusted) sends a payload to us every 0.5 s from ``peer_at``; ``spoofs``: (time, forger
    index) of forged introductions (``FORGERS[i]``'s own key, spoofed from the peer's address). Every datagram
    takes ``LATENCY`` s. Returns our endpoint after ``seconds``."""
    me = Endpoint(epoch=1, keys=KeyCache(ME_ID), accept_plain=False)
    peer = Endpoint(epoch=2, keys=KeyCache(PEER_ID), accept_plain=False)
    peer.pin(ME, ME_ID.x25519_public_key)
    wire = _Wire({id(me): PEER, id(peer): ME})
    for t, k in spoofs:
        wire.put(t + LATENCY, me, FORGED[k])
    now, next_payload = min([0.0] + [t for t, _k in spoofs]), peer_at
    while now < seconds:
        if now >= next_payload:
            peer.send(ME, b"WATCH")
            next_payload += 0.5
        wire.deliver(now)
        for src, dst in ((me, peer), (peer, me)):
            src.handle_timer(now)
            for data, _addr in src.datagrams_to_send(now):
                wire.put(now + LATENCY, dst, data)
        timers = [t for t in (me.get_timer(), peer.get_timer()) if t is not None]
        now = max(now, min([next_payload, seconds, wire.next_at()] + timers))
    return me


def _heard(me: Endpoint) -> bool:
    return me.last_heard(PEER) > 0 and me.peer_key(PEER) == PEER_ID.x25519_public_key and me.confirmed(PEER)


def test_two_forged_introductions_of_two_keys_in_the_first_round_trip_do_not_cut_a_new_peer_off():
    """§N2.1 step 3 (H127 REVIEW #7): MALLORY's introduction 0.1 ms after the peer's first datagram, a second
    key's 10 us later: the peer's RESPONSE swaps its channel back and it is heard (was: never heard in 30 s,
    every datagram ``bad_mac``)."""
    me = _run([(0.0001, 0), (0.00011, 1)], seconds=30.0)
    assert _heard(me), f"never heard; bad_mac {me.channels[PEER].stats['bad_mac']}"


def test_forged_real_forged_the_real_peer_is_heard():
    """The order M (before the peer speaks), the real peer, T (in its first round trip): the peer's channel
    replaced M's and is displaced by T's; its RESPONSE swaps it back (H127's note: dropping the never-heard
    current channel on a replacement would lose it here)."""
    me = _run([(-0.001, 0), (0.0001, 1)])
    assert _heard(me)


def test_as_many_forged_introductions_as_one_address_may_have_back_to_back_are_survived():
    """The peer's introduction and ``INTRO_ADDR_BURST`` - 1 forged ones of other keys in its first round trip
    (all the per-address bucket gives at once): the peer is heard; every displaced channel is dropped then."""
    me = _run([(0.0001 + i * 1e-5, i) for i in range(INTRO_ADDR_BURST - 1)])
    assert _heard(me)
    assert not me._displaced, "displaced channels kept after the peer was heard"


def test_displaced_channels_are_bounded_per_address():
    """Memory (§N2.6): a spoofer replacing one address's never-heard channel again and again (the bucket
    refilling, 4 per second) never keeps more than ``INTRO_ADDR_BURST`` displaced channels there; the peer,
    starting later, is still heard."""
    me = _run([(0.3 * i, i % len(FORGERS)) for i in range(12)], seconds=3.6, peer_at=4.0)
    assert all(len(v) <= INTRO_ADDR_BURST for v in me._displaced.values())
    assert sum(len(v) for v in me._displaced.values()) > 1  # the case is exercised (the fix keeps several)
    me = _run([(0.3 * i, i % len(FORGERS)) for i in range(12)], seconds=6.0, peer_at=4.0)
    assert _heard(me) and not me._displaced


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(-0.002, 0.0012), st.integers(0, len(FORGERS) - 1)), min_size=1,
                max_size=INTRO_ADDR_BURST - 1))
def test_property_forged_introductions_around_the_first_round_trip_never_cut_a_live_peer_off(spoofs):
    """Property (§N2.1 step 3): up to ``INTRO_ADDR_BURST`` - 1 forged introductions of any keys (repeated or
    not) at any times from 2 ms before the peer's first datagram to two round trips after it: the live peer
    (a datagram every 0.5 s) is heard with its own key within 2 s."""
    assert _heard(_run(spoofs, seconds=2.0))


def _deliver(src: Endpoint, dst: Endpoint, src_addr: tuple, now: float) -> list[bytes]:
    """Every datagram ``src`` has due at ``now`` into ``dst`` (from ``src_addr``); the payloads delivered."""
    return [p for d, _a in src.datagrams_to_send(now) for _addr, p in dst.receive_datagram(d, src_addr, now)]


def test_a_forged_introduction_on_a_joiner_by_codes_unheard_plain_channel_keeps_it_aside():
    """§N2.1 step 3, §N3.1 (H128 s12b #1, the join-code case): a joiner by code knows no key of the host and its
    PROBE opens a PLAIN channel there; a forged introduction before the joiner's RESPONSE no longer keys that
    channel in place for good (trust on first use) but replaces it, the plain one kept aside: the joiner's plain
    RESPONSE swaps it back, confirms and is heard; later the joiner's own introduction (its JOIN, after the host's
    answer) keys the heard plain channel in place, its stream going on. Before: the RESPONSE and every PROBE copy
    were dropped at the attacker's keyed channel, and the join aborted."""
    host = Endpoint(epoch=1, keys=KeyCache(ME_ID), accept_plain=True)
    joiner = Endpoint(epoch=2, keys=KeyCache(PEER_ID), accept_plain=False)
    joiner.send(ME, b"PROBE")
    assert _deliver(joiner, host, PEER, 0.0) == [b"PROBE"]
    challenge = host.datagrams_to_send(0.0)
    host.receive_datagram(FORGED[0], PEER, 0.0001)
    assert host.peer_key(PEER) == FORGERS[0].x25519_public_key  # the premise: the introduction took the address
    for d, _a in challenge:
        joiner.receive_datagram(d, ME, 0.0003)
    _deliver(joiner, host, PEER, 0.0006)  # the RESPONSE (plain)
    assert host.confirmed(PEER) and host.last_heard(PEER) == 0.0006 and host.peer_key(PEER) is None
    _deliver(host, joiner, ME, 0.001)
    joiner.pin(ME, ME_ID.x25519_public_key)  # the host's key, from its answer
    joiner.send(ME, b"JOIN")
    assert _deliver(joiner, host, PEER, 0.002) == [b"JOIN"]
    assert host.peer_key(PEER) == PEER_ID.x25519_public_key and host.last_heard(PEER) > 0
    assert not host._displaced  # released at the first datagram after the joiner was heard


def test_a_plain_datagram_swaps_nothing_back_over_a_heard_or_trusted_channel():
    """§N2.1 step 3: a plain datagram (anyone's) swaps a plain channel back only while the keyed one at the address
    is neither heard nor trusted: over a live peer's channel it is dropped and every displaced one released."""
    spoofer = Endpoint(epoch=9)  # plain, from the peer's address
    spoofer.send(ME, b"PROBE")
    plain = [d for d, _a in spoofer.datagrams_to_send(0.0)]
    me = _run([(0.0001, 0)], seconds=2.0)
    assert _heard(me) and not me._displaced
    assert me.receive_datagram(plain[0], PEER, 2.0) == []
    assert _heard(me) and not me._displaced
    me = _run([(0.0001, 0), (0.00011, 1)], seconds=0.0005)  # two introductions, nobody heard yet
    assert len(me._displaced[PEER]) == 2
    me.trust([PEER])
    assert me.receive_datagram(plain[0], PEER, 0.0006) == []
    assert me.peer_key(PEER) == FORGERS[1].x25519_public_key and not me._displaced
