"""Red team, session 13 round 2 (H146): trust on first use keys a plain channel *in place*
(protocol.md §N2.1 step 3, §N2.2; ``Endpoint._introduction`` -> ``Channel.upgrade``: "its sequence
state goes on"), so chunks the plain channel buffered out of order before the upgrade are
delivered after it, as if they came over the keyed channel.

A joiner by code (§N3.1) opens a PLAIN channel at the host with its PROBE; its JOIN (an
introduction) keys that channel in place. A spoofer on the LAN who saw the PROBE (its epoch and
sequence are in the clear) sends plain datagrams from the joiner's address with sequence numbers
after a gap (up to ``RECV_WINDOW`` = 256 ahead): the host buffers them. The joiner's JOIN fills the
gap, and the spoofer's chunks are delivered at once with ``Endpoint.peer_key`` = the joiner's
X25519 key (what ``Node`` reads as the sender: ``via`` for a STEP, §C3.4 'MAC-held', the early
buffer's seat test, the lobby's key checks), while the joiner's own payloads at those sequence
numbers are dropped as duplicates, acknowledged, lost for good. Sans-I/O, in memory."""

from __future__ import annotations

from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.identity import Identity

ME, PEER = ("10.0.0.1", 5000), ("10.0.0.2", 5000)
ME_ID, PEER_ID = Identity.from_seed(b"h146-me"), Identity.from_seed(b"h146-peer")


def _deliver(src: Endpoint, dst: Endpoint, src_addr: tuple, now: float) -> list:
    return [p for d, _a in src.datagrams_to_send(now) for _x, p in dst.receive_datagram(d, src_addr, now)]


def _join(spoof_from: int):
    """The join of test_intro_displaced's code case; the spoofer (a plain endpoint with the
    joiner's epoch) sends payloads 1.. of a stream, and the host gets those from ``spoof_from`` on
    (spoofed from the joiner's address) right after the PROBE. Returns [(payload, the host's
    peer_key there is the joiner's)] of what the host delivers from the JOIN on."""
    host = Endpoint(epoch=1, keys=KeyCache(ME_ID), accept_plain=True)
    joiner = Endpoint(epoch=2, keys=KeyCache(PEER_ID), accept_plain=False)
    joiner.send(ME, b"PROBE")
    assert _deliver(joiner, host, PEER, 0.0) == [b"PROBE"]
    clone = Endpoint(epoch=2)
    for p in (b"PROBE", b"X1", b"EVIL2", b"EVIL3"):
        clone.send(ME, p)
    for d in [d for d, _a in clone.datagrams_to_send(0.0)][spoof_from:]:
        host.receive_datagram(d, PEER, 0.00005)
    for d, _a in host.datagrams_to_send(0.0001):
        joiner.receive_datagram(d, ME, 0.0003)
    _deliver(joiner, host, PEER, 0.0006)  # the RESPONSE
    _deliver(host, joiner, ME, 0.001)
    joiner.pin(ME, ME_ID.x25519_public_key)
    for p in (b"JOIN", b"REAL2", b"REAL3"):
        joiner.send(ME, p)
    out = []
    for d, _a in joiner.datagrams_to_send(0.002):
        for _x, p in host.receive_datagram(d, PEER, 0.002):
            out.append((p, host.peer_key(PEER) == PEER_ID.x25519_public_key))
    return out


def test_n2_1_a_joiners_keyed_payloads_come_through_when_nothing_was_spoofed():
    """§N2.1 step 3 (HOLDS; the premise): the joiner's JOIN keys the plain channel in place and its
    payloads arrive in order, under its key."""
    assert _join(spoof_from=99) == [(b"JOIN", True), (b"REAL2", True), (b"REAL3", True)]


def test_n2_1_spoofed_plain_chunks_are_never_delivered_under_a_joiners_key():
    """§N2.1 step 3, §N2.2: a spoofer plants plain chunks 2 and 3 of the joiner's stream (a gap at
    1) before the joiner's JOIN keys the channel. Seen: the host delivers JOIN, EVIL2, EVIL3, all
    with peer_key = the joiner's key; REAL2 and REAL3 never arrive (duplicates, acknowledged).
    Up to RECV_WINDOW = 256 chunks can be planted so: every payload of the joiner's next 256
    (its SETUP_SIG, SEED, re-sent JOINs, early STEPs) lost while 256 of the spoofer's are taken as
    its. Expected: only the joiner's payloads, under its key. Fix idea: ``Channel.upgrade`` drops
    the out-of-order chunks buffered while plain (and the stream goes on from the next expected
    one), or an upgrade starts a fresh receive epoch. Fixed (H148): ``Channel.upgrade`` drops them
    (``PlainSacks.rekey``, §N2.1 step 3 "Keyed in place")."""
    assert _join(spoof_from=2) == [(b"JOIN", True), (b"REAL2", True), (b"REAL3", True)]
