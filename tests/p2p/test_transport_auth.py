"""Authenticated transport channels (protocol.md §N2.2, issue 9 item 1): sans-I/O, virtual clock.

A keyed channel accepts only datagrams MACed with the pairwise key of their direction; what
fails changes no state and gets no answer; a new epoch is believed only after a MACed
CHALLENGE/RESPONSE, so neither a spoofed datagram nor a replayed one can reset a channel.
"""

import os
import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.endpoint import Endpoint
from p2p import transport as T
from p2p.channel_auth import TAG_LEN, KeyCache, mac
from p2p.faults import SimNetwork
from p2p.identity import Identity

A = ("127.0.0.1", 2001)
B = ("127.0.0.1", 2002)
IA = Identity.from_seed(b"auth-a")
IB = Identity.from_seed(b"auth-b")


def keyed_pair(*, pin_both=False, epoch_a=100, epoch_b=200):
    """Two keyed endpoints on an in-memory network; A pins B (B learns A by introduction)."""
    got = {}
    sent = []  # every datagram (src, dst, bytes) put on the wire, for replays
    net = SimNetwork(on_deliver=lambda dst, out: got.setdefault(dst, []).extend(out))
    eps = {A: Endpoint(epoch=epoch_a, keys=KeyCache(IA), accept_plain=False),
           B: Endpoint(epoch=epoch_b, keys=KeyCache(IB), accept_plain=False)}
    for addr, ep in eps.items():
        net.attach(addr, ep)
        orig = ep.datagrams_to_send

        def spy(now, orig=orig, addr=addr):
            out = orig(now)
            sent.extend((addr, dst, d) for d, dst in out)
            return out

        ep.datagrams_to_send = spy
    eps[A].pin(B, IB.x25519_public_key)
    if pin_both:
        eps[B].pin(A, IA.x25519_public_key)
    return net, eps, got, sent


def state(ch):
    """Everything a datagram could change in a channel, minus the drop counters."""
    keep = {k: v for k, v in ch.stats.items()
            if k not in ("unauthenticated", "bad_mac", "key_mismatch", "malformed", "answers_limited")}
    tx, rx = ch.sender, ch.receiver
    return (ch.peer_epoch, rx.expected, tx.acked_below, tx.next_seq, sorted(tx.inflight),
            rx.ack_pending, rx.ack_deadline, ch.last_rx, ch._proof.pending, keep)


def test_keyed_channels_deliver_and_stop_introducing_once_answered():
    net, eps, got, sent = keyed_pair()
    eps[A].send(B, b"hello")
    net.run()
    assert got[B] == [(A, b"hello")]
    assert eps[B].peer_key(A) == IA.x25519_public_key  # learnt from A's introduction
    assert eps[A].peer_key(B) == IB.x25519_public_key
    eps[B].send(A, b"hi")
    net.run()
    assert got[A] == [(B, b"hi")]
    assert not eps[A].channels[B].introducing  # B's MACed answer shows it knows A's key
    eps[A].send(B, b"again")
    net.run()
    assert sent[-1][2][0] in (T.MAGIC_AUTH,)
    assert {d[0] for _, _, d in sent} <= {T.MAGIC_AUTH, T.MAGIC_INTRO}
    assert all(len(d) <= T.MAX_DATAGRAM for _, _, d in sent)


def test_spoofed_pure_ack_with_a_fresh_epoch_changes_nothing():
    """Issue 9 item 1: a 22-byte pure ack with a new src_epoch from the peer's address used to
    reset the channel for good. Now it is dropped, counted, unanswered, and changes nothing."""
    net, eps, got, sent = keyed_pair()
    for i in range(5):
        eps[A].send(B, b"m%d" % i)
        eps[B].send(A, b"r%d" % i)
    net.run()
    ch = eps[B].channels[A]
    before = state(ch)
    spoof = T.HEADER.pack(T.MAGIC, 0, 0xDEADBEEF, 0, 0, 0, 0)
    assert len(spoof) == 22
    forged = T.HEADER.pack(T.MAGIC_AUTH, 0, 0xDEADBEEF, 200, 0, 0, 0) + os.urandom(TAG_LEN)
    for d in (spoof, forged, spoof[:-1]):
        assert eps[B].receive_datagram(d, A, net.now) == []
    assert state(ch) == before
    assert ch.stats["unauthenticated"] == 2 and ch.stats["bad_mac"] == 1
    assert eps[B].datagrams_to_send(net.now) == []  # no answer
    eps[A].send(B, b"still here")
    net.run()
    assert got[B][-1] == (A, b"still here") and ch.stats["peer_restarts"] == 0


def test_reflected_datagram_fails_its_mac():
    """Keys differ per direction: A's datagram sent back to A as if from B is rejected."""
    net, eps, got, sent = keyed_pair(pin_both=True)
    eps[A].send(B, b"x")
    net.run()
    from_a = [d for src, _, d in sent if src == A]
    ch = eps[A].channels[B]
    before = state(ch)
    for d in from_a:
        eps[A].receive_datagram(d, B, net.now)
    assert state(ch) == before
    assert ch.stats["bad_mac"] + ch.stats["key_mismatch"] == len(from_a)


def test_replays_of_current_and_retired_epochs_reset_nothing():
    """A restarted peer proves its new epoch (CHALLENGE/RESPONSE); replaying every datagram of
    its first instance afterwards, or of the current one, changes no epoch and redelivers
    nothing."""
    net, eps, got, sent = keyed_pair()
    for i in range(20):
        eps[A].send(B, b"old%d" % i)
        eps[B].send(A, b"back%d" % i)
    net.run()
    first_instance = [(src, dst, d) for src, dst, d in sent if src == A]
    # A restarts: same identity and address, new epoch; it pins B again and speaks first.
    eps[A] = Endpoint(epoch=101, keys=KeyCache(IA), accept_plain=False)
    net.attach(A, eps[A])
    eps[A].pin(B, IB.x25519_public_key)
    got[B] = []
    eps[A].send(B, b"new instance")
    net.run()
    ch = eps[B].channels[A]
    assert got[B] == [(A, b"new instance")]
    assert ch.peer_epoch == 101 and ch.stats["peer_restarts"] == 1
    assert ch.stats["challenges_sent"] >= 1 and ch.stats["epoch_unproven"] >= 1
    before = state(ch)
    for _, _, d in first_instance:  # the retired epoch 100, every datagram
        eps[B].receive_datagram(d, A, net.now)
    assert state(ch)[0] == 101 and ch.stats["peer_restarts"] == 1
    net.run()
    assert got[B] == [(A, b"new instance")]
    # Replays of the current instance are duplicates: nothing is delivered twice.
    current = [d for src, _, d in sent if src == A and d[0] == T.MAGIC_AUTH
               and struct.unpack_from("!I", d, 2)[0] == 101]
    for d in current:
        eps[B].receive_datagram(d, A, net.now)
    net.run()
    assert got[B] == [(A, b"new instance")] and ch.peer_epoch == 101
    assert before[0] == 101


def test_replayed_first_contact_of_a_dead_instance_cannot_retire_the_live_one():
    """A replayed datagram of an instance the receiver never heard (dst_epoch = 0) with an
    unknown epoch only earns a CHALLENGE nobody answers; the live epoch stays."""
    net, eps, got, sent = keyed_pair()
    eps[A].send(B, b"first")
    net.run()
    first = next(d for src, _, d in sent if src == A)
    # Forge "another instance": only the holder of the key can, so take A's real key path:
    # a second endpoint of A (epoch 999) whose datagrams never reached B, captured.
    ghost = Endpoint(epoch=999, keys=KeyCache(IA))
    ghost.pin(B, IB.x25519_public_key)
    ghost.send(B, b"ghost")
    ghost_dg = ghost.datagrams_to_send(0.0)[0][0]
    ch = eps[B].channels[A]
    for _ in range(3):
        assert eps[B].receive_datagram(ghost_dg, A, net.now) == []
    assert ch.peer_epoch == 100 and ch.stats["epoch_unproven"] == 3
    net.run()  # B's CHALLENGE goes to A (epoch 100), which does not answer for 999
    assert ch.peer_epoch == 100 and ch.stats["peer_restarts"] == 0
    eps[A].send(B, b"live")
    net.run()
    assert got[B][-1] == (A, b"live")
    assert first[0] == T.MAGIC_INTRO


def test_introduction_flood_is_rate_limited_and_bounded():
    """Fresh keys from a thousand sources cost at most INTRO_BURST + INTRO_RATE·t derivations;
    the real peer's pinned channel is never touched."""
    net, eps, got, sent = keyed_pair(pin_both=True)
    ep = eps[B]
    ch = ep.channels[A]
    before = state(ch)
    now = 0.0
    for i in range(1000):
        stranger = Identity.generate() if i < 40 else None
        xk = stranger.x25519_public_key if stranger else os.urandom(32)
        d = T.HEADER.pack(T.MAGIC_INTRO, T.FLAG_DATA, 5, 0, 0, 0, 0) + xk + b"JOIN"
        d += os.urandom(TAG_LEN)
        src = A if i % 2 else ("10.0.%d.%d" % (i // 250, i % 250 + 1), 4000)
        ep.receive_datagram(d, src, now)
        now += 0.001
    assert state(ch) == before
    derived = ep.keys.stats["derived"]
    assert derived <= 2 + 32 + int(64 * now) + 1
    assert ep.keys.stats["intro_limited"] > 0
    assert ep.stats["intro_dropped"] >= 500 and len(ep.channels) == 1


def test_pinned_address_refuses_another_key_and_plain_datagrams():
    net, eps, got, sent = keyed_pair(pin_both=True)
    mallory = Identity.from_seed(b"mallory")
    fake = Endpoint(epoch=5, keys=KeyCache(mallory))
    fake.pin(B, IB.x25519_public_key)
    fake.send(B, b"I am A")
    d = fake.datagrams_to_send(0.0)[0][0]
    ch = eps[B].channels[A]
    before = state(ch)
    assert eps[B].receive_datagram(d, A, 0.0) == []
    assert eps[B].receive_datagram(T.HEADER.pack(T.MAGIC, 1, 7, 0, 0, 0, 0) + b"x", A, 0.0) == []
    assert state(ch) == before and ch.stats["key_mismatch"] == 1 and ch.stats["unauthenticated"] == 1
    # accept_plain=False: a plain datagram from a new address opens nothing
    assert eps[B].receive_datagram(T.HEADER.pack(T.MAGIC, 1, 7, 0, 0, 0, 0) + b"x", ("10.9.9.9", 1), 0.0) == []
    assert list(eps[B].channels) == [A]


def test_plain_lobby_channel_is_keyed_in_place_without_losing_its_stream():
    """Join by address (no key yet): plain until the host pins the joiner's key; the joiner's
    endpoint takes the host's introduction (trust on first use) and the stream goes on."""
    got = {}
    net = SimNetwork(on_deliver=lambda dst, out: got.setdefault(dst, []).extend(out))
    host = Endpoint(epoch=1, keys=KeyCache(IA))
    joiner = Endpoint(epoch=2, keys=KeyCache(IB))
    net.attach(A, host)
    net.attach(B, joiner)
    joiner.send(A, b"JOIN")
    net.run()
    assert got[A] == [(B, b"JOIN")] and host.peer_key(B) is None
    host.pin(B, IB.x25519_public_key)  # the lobby accepted the JOIN
    host.send(B, b"STATUS")
    net.run()
    assert got[B] == [(A, b"STATUS")] and joiner.peer_key(A) == IA.x25519_public_key
    joiner.send(A, b"more")
    net.run()
    assert got[A] == [(B, b"JOIN"), (B, b"more")]
    assert host.channels[B].stats["unauthenticated"] == 0


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=1, max_value=255))
def test_any_altered_byte_is_rejected_without_a_trace(pos, xor):
    net, eps, got, sent = keyed_pair(pin_both=True)
    eps[A].send(B, b"payload" * 20)
    dg = eps[A].datagrams_to_send(0.0)[0][0]
    ch = eps[B].channels[A]
    before = state(ch)
    i = pos % len(dg)
    bad = dg[:i] + bytes([dg[i] ^ xor]) + dg[i + 1:]
    assert eps[B].receive_datagram(bad, A, 0.0) == []
    assert state(ch) == before
    assert eps[B].receive_datagram(dg, A, 0.0) == [(A, b"payload" * 20)]


def test_mac_covers_header_and_chunk():
    """protocol.md §N2: tag = HMAC-SHA256(send key, every byte before it)[:16]."""
    net, eps, got, sent = keyed_pair(pin_both=True)
    eps[A].send(B, b"abc")
    dg = eps[A].datagrams_to_send(0.0)[0][0]
    key = eps[A].channels[B].keys.send
    assert dg[-TAG_LEN:] == mac(key, dg[:-TAG_LEN])
    assert key == eps[B].channels[A].keys.recv
