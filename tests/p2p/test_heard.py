"""protocol.md §N2.2 "Heard" and §N2.1 step 3 (H126, fixing H122's s12 #1-#3).

A channel's peer is *heard* at its address (``Channel.last_heard``, ``Endpoint.last_heard``)
only by a RESPONSE echoing a nonce sent there, or, once the route is so proven, by a datagram
that advanced the channel (a new chunk, an ack freeing a datagram in flight): never by a
duplicate nor by anything on a route never proven, so no replay makes a seat 'heard' (§N3.2).
An introduction of another key replaces a keyed channel of an untrusted address only if its
peer was not heard there in the last ``UNTRUSTED_IDLE`` s. Sans-I/O, virtual clock, in memory.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.channel_auth import KeyCache
from p2p.endpoint import UNTRUSTED_IDLE, Endpoint
from p2p.identity import Identity

from redteam_lan_kit import MALLORY, forge_intro

ME, PEER, ELSEWHERE = ("10.0.0.1", 5000), ("10.0.0.2", 5000), ("10.0.0.9", 5000)
ME_ID, PEER_ID = Identity.from_seed(b"h126-me"), Identity.from_seed(b"h126-peer")


def _pair(epoch: int = 2) -> tuple[Endpoint, Endpoint]:
    """Our endpoint (a host in the lobby: nothing trusted) and a peer that pinned us (it
    introduces itself: our channel to it is opened by its datagram, unconfirmed)."""
    me = Endpoint(epoch=1, keys=KeyCache(ME_ID), accept_plain=False)
    peer = Endpoint(epoch=epoch, keys=KeyCache(PEER_ID), accept_plain=False)
    peer.pin(ME, ME_ID.x25519_public_key)
    return me, peer


def _talk(me: Endpoint, peer: Endpoint, start: float, until: float, seen: list | None = None,
          answer: bool = True) -> float:
    """0.1 s ticks from ``start`` to ``until``: the peer sends one payload a tick from PEER
    (its datagrams kept in ``seen``), ours go back to it if ``answer``. Returns the end time."""
    now = start
    while now < until:
        peer.send(ME, b"hello %.1f" % now)
        for d, _a in peer.datagrams_to_send(now):
            if seen is not None:
                seen.append(d)
            me.receive_datagram(d, PEER, now)
        for d, a in me.datagrams_to_send(now):
            if answer and a == PEER:
                peer.receive_datagram(d, ME, now)
        now = round(now + 0.1, 6)
        me.handle_timer(now)
        peer.handle_timer(now)
    return now


def test_a_peer_is_heard_once_it_answered_a_challenge_not_before():
    """§N2.2 "Heard": its datagrams are accepted (delivered) on an unconfirmed channel, but it is
    heard only from its RESPONSE to our CHALLENGE on (one round trip), then at each new chunk."""
    me, peer = _pair()
    _talk(me, peer, 0.0, 0.5, answer=False)
    assert me.channels[PEER].last_rx > 0 and me.last_heard(PEER) == 0.0
    end = _talk(me, peer, 0.5, 2.0)
    assert me.confirmed(PEER) and end - 0.2 <= me.last_heard(PEER) < end


def test_a_duplicate_is_accepted_but_never_heard():
    """§N2.2 "Heard" (s12 #2): a replay of a datagram the channel took sets ``last_rx`` but not
    ``last_heard``, from the real address or not."""
    me, peer = _pair()
    seen: list[bytes] = []
    _talk(me, peer, 0.0, 2.0, seen)
    heard = me.last_heard(PEER)
    for i, d in enumerate(seen):
        me.receive_datagram(d, PEER, 10.0 + i)
    assert me.channels[PEER].last_rx >= 10.0 and me.last_heard(PEER) == heard


def test_a_first_flight_of_another_run_replayed_elsewhere_is_never_heard():
    """§N2.2 "Heard" (s12 #1): a first flight (``dst_epoch`` 0, static keys) replayed from another
    source opens a fresh channel there and is delivered, but the route is never proven: the
    CHALLENGE goes to the spoofed address, whose holder cannot answer with the peer's key."""
    me, earlier = _pair(epoch=7)
    earlier.send(ME, b"another day")
    first = [d for d, _a in earlier.datagrams_to_send(0.0)][0]
    got = me.receive_datagram(first, ELSEWHERE, 100.0)
    assert got == [(ELSEWHERE, b"another day")] and me.last_heard(ELSEWHERE) == 0.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 200), st.booleans()), max_size=30),
       st.integers(1, 30))
def test_no_replay_of_captured_datagrams_is_ever_heard(replays, talk_ticks):
    """Property (§N2.2 "Heard"): after any exchange, replaying any captured datagrams of it, in
    any order, from the peer's address or another, changes no address's ``last_heard``."""
    me, peer = _pair()
    seen: list[bytes] = []
    end = _talk(me, peer, 0.0, talk_ticks / 10, seen)
    before = {a: me.last_heard(a) for a in (PEER, ELSEWHERE)}
    for i, (k, there) in enumerate(replays):
        me.receive_datagram(seen[k % len(seen)], PEER if there else ELSEWHERE, end + 1 + i * 0.5)
    assert {a: me.last_heard(a) for a in (PEER, ELSEWHERE)} == before


def _joined(until: float = 3.0) -> tuple[Endpoint, Endpoint, float]:
    """A joiner talking to the host (untrusted: no JOIN accepted yet), proven and heard."""
    me, peer = _pair()
    end = _talk(me, peer, 0.0, until)
    assert PEER not in me.trusted and me.confirmed(PEER) and me.last_heard(PEER) > 0
    return me, peer, end


def test_a_spoofed_introduction_does_not_replace_a_channel_heard_lately():
    """§N2.1 step 3 (s12 #3, the lobby side): ONE introduction MACed with another key, spoofed
    from a live joiner's untrusted address, is dropped (``key_mismatch``); the joiner's channel
    keeps its key and its payloads are delivered."""
    me, peer, end = _joined()
    for d in forge_intro(MALLORY, ME, ME_ID.x25519_public_key, b"JOIN as someone else"):
        assert me.receive_datagram(d, PEER, end) == []
    assert me.peer_key(PEER) == PEER_ID.x25519_public_key
    assert me.channels[PEER].stats["key_mismatch"] >= 1
    peer.send(ME, b"still me")
    got = [p for d, _a in peer.datagrams_to_send(end) for _s, p in me.receive_datagram(d, PEER, end)]
    assert b"still me" in got


def test_a_key_change_at_the_same_address_waits_until_the_old_key_was_quiet():
    """§N2.1 step 3, what is left: an introduction of a new key at the address of a channel
    heard within ``UNTRUSTED_IDLE`` s is refused; after that silence it replaces the channel."""
    me, _peer, end = _joined()
    heard = me.last_heard(PEER)
    new = Identity.from_seed(b"h126-new-key")
    intro = forge_intro(new, ME, ME_ID.x25519_public_key, b"new key")
    me.receive_datagram(intro[0], PEER, heard + UNTRUSTED_IDLE - 0.1)
    assert me.peer_key(PEER) == PEER_ID.x25519_public_key
    got = me.receive_datagram(intro[0], PEER, heard + UNTRUSTED_IDLE)
    assert me.peer_key(PEER) == new.x25519_public_key and got == [(PEER, b"new key")]
    assert end >= heard


def test_a_never_heard_channel_is_replaced_by_an_introduction_at_once():
    """§N2.1 step 3: a spoofer's introduction first (its channel never proves the address)
    does not keep the real peer out: the real peer's introduction replaces it at once."""
    me, peer = _pair()
    for d in forge_intro(MALLORY, ME, ME_ID.x25519_public_key, b"first"):
        me.receive_datagram(d, PEER, 0.0)
    assert me.peer_key(PEER) == MALLORY.x25519_public_key
    _talk(me, peer, 0.1, 1.0)
    assert me.peer_key(PEER) == PEER_ID.x25519_public_key and me.last_heard(PEER) > 0


def test_a_trusted_address_keeps_its_key_whatever_comes():
    """§N2.1 step 1: on a trusted address an introduction of another key never replaces the
    channel, heard or not (as before)."""
    me, _peer, end = _joined()
    me.trust([PEER])
    for d in forge_intro(MALLORY, ME, ME_ID.x25519_public_key, b"x"):
        me.receive_datagram(d, PEER, end + 100.0)
    assert me.peer_key(PEER) == PEER_ID.x25519_public_key
