"""Red team s12b (H128): protocol.md §N2.1 step 3 / §N2.2 "Heard" (a4954af) vs ONE forged
introduction that reaches us within a new untrusted peer's first round trip.

a4954af keeps a channel whose peer was heard in the last ``UNTRUSTED_IDLE`` s and replaces a
never-heard one at once (``test_heard.py::test_a_never_heard_channel_is_replaced_by_an_introduction_at_once``:
"a spoofer's introduction first does not keep the real peer out"). But a peer is heard only one
round trip after its first datagram (our CHALLENGE, its RESPONSE), and it stops introducing
itself as soon as one datagram MACed with its key comes back (``Channel._introduce``): our ack or
CHALLENGE, sent at once. An introduction of another key (the attacker's own, built once, no
crypto per datagram) that lands in that round trip replaces the new peer's channel; the peer's
RESPONSE and every later datagram of it are plain MACed datagrams (no introduction), dropped as
``bad_mac`` on the attacker's channel, which they can never replace: the peer is cut off for
good (a new spectator on a seat's watch socket: §N10; a joiner before its JOIN is accepted:
the host's answer is MACed for the attacker). A blind spoofer replaying the datagram from the
victim's address more often than once per round trip (~0.5-3 ms on a LAN) always hits it.
Sans-I/O, virtual clock, one-way latency 0.3 ms, in memory.
"""

from __future__ import annotations

import heapq

import pytest

from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.identity import Identity

from redteam_lan_kit import MALLORY, forge_intro

ME, PEER = ("10.0.0.1", 5000), ("10.0.0.2", 5000)
ME_ID, PEER_ID = Identity.from_seed(b"h128-me"), Identity.from_seed(b"h128-peer")
LATENCY = 0.0003  # one way (s)


def _run(spoof_at: tuple[float, ...] = (), spoof_every: float | None = None, seconds: float = 30.0) -> Endpoint:
    """The peer (a new spectator or joiner, never trusted) sends a payload to us every 0.5 s
    from time 0 (our datagrams go back to it); the forged introduction (MALLORY's key, spoofed
    from the peer's address) is sent at each time of ``spoof_at`` and every ``spoof_every`` s.
    Every datagram takes ``LATENCY`` s. Returns our endpoint after ``seconds``."""
    me = Endpoint(epoch=1, keys=KeyCache(ME_ID), accept_plain=False)
    peer = Endpoint(epoch=2, keys=KeyCache(PEER_ID), accept_plain=False)
    peer.pin(ME, ME_ID.x25519_public_key)
    forged = forge_intro(MALLORY, ME, ME_ID.x25519_public_key, b"WATCH as nobody")[0]
    spoofs = sorted(spoof_at)
    if spoof_every:
        spoofs += [i * spoof_every for i in range(1, int(seconds / spoof_every))]
    queue: list = [(t + LATENCY, i, me, forged) for i, t in enumerate(spoofs)]
    heapq.heapify(queue)
    n, now, t_send = len(queue), 0.0, 0.0
    while now < seconds:
        timers = [t for t in (me.flush(now)[1], peer.flush(now)[1]) if t is not None]
        now = min([t_send, seconds] + [queue[0][0] for _ in queue[:1]] + [max(t, now) for t in timers])
        if now == t_send:
            peer.send(ME, b"WATCH")
            t_send += 0.5
        while queue and queue[0][0] <= now:
            _t, _i, dst, d = heapq.heappop(queue)
            dst.receive_datagram(d, PEER if dst is me else ME, now)
        me.handle_timer(now)
        peer.handle_timer(now)
        for src, dst in ((me, peer), (peer, me)):
            for d, _a in src.datagrams_to_send(now):
                n += 1
                heapq.heappush(queue, (now + LATENCY, n, dst, d))
    return me


def test_premise_without_the_spoofer_the_peer_is_heard_within_a_round_trip():
    """§N2.2 "Heard": no spoofer: the peer is heard and its route confirmed."""
    me = _run(seconds=2.0)
    assert 0 < me.last_heard(PEER) and me.confirmed(PEER)
    assert me.peer_key(PEER) == PEER_ID.x25519_public_key


def test_premise_a_forged_introduction_before_the_peer_speaks_is_replaced():
    """§N2.1 step 3 as tested by H126: the forged introduction first, the peer 1 ms later: the
    peer's introduction replaces the never-heard channel and the peer is heard."""
    me = _run(spoof_at=(-0.001,), seconds=5.0)
    assert me.last_heard(PEER) > 0 and me.peer_key(PEER) == PEER_ID.x25519_public_key


@pytest.mark.xfail(strict=True, reason="s12b #1 one forged intro in a new peer's first round trip cuts it off for good")
def test_one_forged_introduction_in_the_first_round_trip_does_not_cut_a_new_peer_off():
    """BREAK s12b #1 (MED): ONE forged introduction arriving 0.1 ms after the new peer's first
    datagram (before its RESPONSE) replaces its channel; the peer has stopped introducing itself
    (our first datagram, MACed with its key, reached it), so 30 s of its datagrams are dropped
    as ``bad_mac``: never heard, never confirmed, its payloads after the first never delivered.
    The same blind: a flood of that one datagram at one per round trip from the victim's address (below).
    Cost: one datagram built once; gain: a chosen new spectator or joiner cut off (it fails over
    or retries; the spoofer does it again). Suggested fix: keep the replaced channel's keys
    beside the newcomer's on an untrusted address until one of them is heard (a datagram that
    fails the newcomer's MAC but passes the old key's restores the old channel), or do not
    replace an unheard channel with a CHALLENGE outstanding (its peer has a round trip to
    answer) before that CHALLENGE times out."""
    me = _run(spoof_at=(0.0001,))
    ch = me.channels[PEER]
    assert me.last_heard(PEER) > 0, f"never heard in 30 s; bad_mac {ch.stats['bad_mac']}"
    assert me.peer_key(PEER) == PEER_ID.x25519_public_key and me.confirmed(PEER)


@pytest.mark.xfail(strict=True, reason="s12b #1 a blind flood of one forged intro keeps new peers unheard")
def test_a_blind_flood_of_one_forged_introduction_does_not_keep_a_new_peer_unheard():
    """BREAK s12b #1, blind: the spoofer does not know when the peer starts; it replays the one
    datagram (85 bytes) from the peer's address every 0.5 ms (170 KB/s: one per round trip of
    0.6 ms here, so one lands in the window whenever the peer starts): the same."""
    me = _run(spoof_every=0.0005, seconds=5.0)
    assert me.last_heard(PEER) > 0 and me.peer_key(PEER) == PEER_ID.x25519_public_key


@pytest.mark.xfail(strict=True, reason="s12b #1 one forged intro in a spectator's first round trip: blind for good")
def test_one_forged_introduction_in_a_spectators_first_round_trip_does_not_blind_it():
    """BREAK s12b #1 at the watch socket (§N10; the real ``WatchServer``/``WatchClient`` wiring of
    ``test_redteam_s12_watch._view``, virtual clock, ticks of 50 ms): the spectator's first WATCH
    at 0 s is answered at once (it stops introducing itself); the forged introduction reaches the
    seat's watch socket at 50 ms, before the spectator's RESPONSE, and replaces its channel. The
    spectator holds no record in 40 s (the seat: its datagrams bad_mac, its place expired), where
    one second later or one tick earlier it holds them all (s12 #3's outcome, not closed by
    a4954af for a channel not yet heard). Fix as above."""
    from redteam_lan_kit import TICK
    from test_redteam_s12_watch import SPEC, _view

    _ep, _ws, _client, held = _view(attack_at=None)
    assert held[40] >= 40
    ep, ws, _client, held = _view(attack_at=TICK)
    bad, expired = ep.channels[SPEC].stats.get("bad_mac", 0), ws.stats.get("expired", 0)
    assert held[40] >= 35, f"the spectator holds {held[40]} records at 40 s; seat: {bad} bad_mac, {expired} expired"
