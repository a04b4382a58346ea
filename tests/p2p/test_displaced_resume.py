"""A channel kept aside (protocol.md §N2.1 step 3 "Every replaced channel is kept aside") is still the
peer's channel (RV12-B #6, H144):

* ``pin`` of the key whose channel is kept aside (the lobby accepting the real peer's JOIN after a forged
  introduction displaced its channel) takes that channel back: its streams go on. Before, ``pin`` forgot the
  current (forged) channel, dropped the kept ones and opened a fresh channel of our same epoch: the peer went on
  with its next seq, the fresh channel waited for seq 0 (acknowledged long ago, never sent again) and nothing the
  peer sent was delivered again.
* a kept-aside channel released (pushed out past ``INTRO_ADDR_BURST`` by later forged introductions, or dropped
  with its address) keeps its resume point as ``Endpoint.forget`` does for a confirmed peer's channel (§N2.6
  "Strangers"): once the forged channel is evicted, the peer's authenticated datagrams reopen its channel where
  it stopped. Before, the point went with the channel: no channel opened for them (``unknown_dropped``), the
  peer was cut off from us for good.

Sans-I/O, virtual clock, datagrams delivered at once, in memory.
"""

from __future__ import annotations

from p2p.channel_auth import INTRO_ADDR_BURST, KeyCache
from p2p.endpoint import Endpoint
from p2p.identity import Identity

from redteam_lan_kit import forge_intro

ME, PEER, OTHER = ("10.0.0.1", 5000), ("10.0.0.2", 5000), ("10.0.0.3", 5000)
ME_ID, PEER_ID = Identity.from_seed(b"h144-me"), Identity.from_seed(b"h144-peer")
FORGERS = [Identity.from_seed(b"h144-forger-%d" % i) for i in range(INTRO_ADDR_BURST + 2)]


def _forged(i: int) -> bytes:
    """A forged introduction of ``FORGERS[i]``'s key (to us, from anywhere: sent here from the peer's address)."""
    return forge_intro(FORGERS[i], ME, ME_ID.x25519_public_key, b"forged", epoch=100 + i)[0]


def _run(me: Endpoint, peer: Endpoint, start: float, stop: float, got: list) -> None:
    """Both endpoints' timers and datagrams from ``start`` to ``stop`` s (every 10 ms); what reaches us from
    the peer is appended to ``got``."""
    now = start
    while now <= stop:
        for src, dst, dst_addr, src_addr in ((peer, me, ME, PEER), (me, peer, PEER, ME)):
            src.handle_timer(now)
            for data, addr in src.datagrams_to_send(now):
                if addr == dst_addr:
                    out = dst.receive_datagram(data, src_addr, now)
                    if dst is me:
                        got += [p for _a, p in out]
        now += 0.01


def _met() -> tuple[Endpoint, Endpoint, list]:
    """The peer (untrusted by us: a spectator, a joiner before its JOIN is accepted) introduces itself and
    sends one payload, delivered and acknowledged; then both stay silent until t = 6 s (not heard for
    ``UNTRUSTED_IDLE``: an introduction may now replace its channel, §N2.1 step 3)."""
    me = Endpoint(epoch=1, keys=KeyCache(ME_ID), accept_plain=False)
    peer = Endpoint(epoch=2, keys=KeyCache(PEER_ID), accept_plain=False)
    peer.pin(ME, ME_ID.x25519_public_key)
    peer.send(ME, b"first")
    got: list = []
    _run(me, peer, 0.0, 6.0, got)
    assert got == [b"first"] and me.confirmed(PEER) and me.peer_key(PEER) == PEER_ID.x25519_public_key
    return me, peer, got


def test_pin_of_the_key_whose_channel_is_kept_aside_takes_it_back():
    me, peer, got = _met()
    me.receive_datagram(_forged(0), PEER, 6.0)
    assert me.peer_key(PEER) == FORGERS[0].x25519_public_key  # displaced, kept aside
    assert me.pin(PEER, PEER_ID.x25519_public_key)  # the lobby accepts the real peer's JOIN
    assert me.resume_points == 0  # the forger's channel was forgotten before trusting: no point kept (RV13-A #4)
    peer.send(ME, b"second")
    _run(me, peer, 6.0, 12.0, got)
    assert got == [b"first", b"second"]


def test_a_kept_aside_channel_pushed_out_keeps_its_resume_point():
    me, peer, got = _met()
    for i in range(INTRO_ADDR_BURST + 1):  # one more than are kept: the peer's channel is released
        me.receive_datagram(_forged(i), PEER, 6.0 + 0.3 * i)
    assert me.peer_key(PEER) == FORGERS[INTRO_ADDR_BURST].x25519_public_key
    assert all(ch.keys.peer_xk != PEER_ID.x25519_public_key for ch in me._displaced.get(PEER, ()))
    me.forget(PEER)  # the forged channel evicted (a stranger silent for UNTRUSTED_IDLE, §N2.6)
    peer.send(ME, b"second")
    _run(me, peer, 8.0, 14.0, got)
    assert got == [b"first", b"second"]
