"""Red team, the hostile laptop on the LAN (issue 10, H37): the transport (protocol.md §N2.2, §N2.6).

Reflection with a spoofed source (a spoofed JOIN or pure datagram, the unconfirmed-channel bound of
3x what was received), the shared receive budget against strangers, and floods of spoofed epochs.
Shared addresses, keys and tools: tests/p2p/redteam_lan_kit.py.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p import transport as T
from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.lobby import Lobby

from redteam_lan_kit import HOST, HOST_ID, MALLORY, TICK, VICTIM, bytes_to, forge_intro


def test_one_spoofed_join_reflects_at_most_three_times_its_size():
    """§N2.6 reflection, fixed (H77): ONE spoofed JOIN introduction (a fresh key, the victim's
    source address) is valid, so the host seats the ghost and trusts its address; trust no longer
    lifts the unconfirmed-channel bound, so the host sends the victim at most 3x the request
    (was: STATUS re-sent every MAX_RTO while the lobby lasted, 332 B -> 8.4 KB in 30 s)."""
    ep = Endpoint(epoch=6, keys=KeyCache(HOST_ID))  # a host accepts plain datagrams (accept_plain)
    lobby = Lobby.host(HOST_ID, edition="classico", seats=4, name="host", endpoint=HOST, demo_seed=b"h37")
    lobby.messages_to_send()
    joiner = Lobby.join(MALLORY, endpoint=VICTIM, host_addr=HOST, game_id=lobby.game_id, name="x" * C.MAX_NAME_LEN,
                        host_keys=(HOST_ID.public_key, HOST_ID.x25519_public_key))
    join = joiner.messages_to_send()[0][1]
    dgrams = forge_intro(MALLORY, HOST, HOST_ID.x25519_public_key, join)
    for d in dgrams:
        for addr, p in ep.receive_datagram(d, VICTIM, 0.0):
            lobby.receive_message(p, addr, 0.0, ep.peer_key(addr))
    for addr, xk in lobby.peer_keys():
        ep.pin(addr, xk)
    for addr, raw in lobby.messages_to_send():
        ep.send(addr, raw)
    ep.trust(lobby.peer_addresses())
    assert VICTIM in lobby.peer_addresses()  # the ghost is seated at the victim's address
    sent = bytes_to(ep, VICTIM, 30.0)
    asked = sum(len(d) for d in dgrams)
    assert sent <= 3 * asked, f"{asked} B spoofed -> {sent} B to the victim ({sent / asked:.0f}x)"


def test_a_spoofed_pure_datagram_to_a_host_gets_no_bigger_answer():
    """Holds: a plain datagram without a lobby message from a spoofed source is answered with at
    most one pure ack of header size (no amplification by the transport alone)."""
    ep = Endpoint(epoch=6, keys=KeyCache(HOST_ID))
    d = T.HEADER.pack(T.MAGIC, T.FLAG_DATA, 99, 0, 0, 0, 0) + b"\x00" * 40
    assert ep.receive_datagram(d, VICTIM, 0.0) == [(VICTIM, b"\x00" * 40)]
    assert bytes_to(ep, VICTIM, 30.0) <= len(d)


def _spoofed(seq: int, body: bytes) -> bytes:
    return T.HEADER.pack(T.MAGIC, T.FLAG_DATA, 99, 0, seq, 0, 0) + body


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1100), st.integers(0, 40), st.integers(0, 30_000)), min_size=1, max_size=6))
def test_an_unconfirmed_channel_never_sends_more_than_three_times_what_it_received(script):
    """§N2.6 reflection (H48), property: whatever a spoofed source sends (request sizes, when)
    and whatever the owner answers, a channel whose peer never acknowledged anything sends that
    address at most UNCONFIRMED_FACTOR x the bytes it received, at every moment, and stops
    re-sending (unconfirmed_gaveup) UNCONFIRMED_RESENDS timeouts after the address went quiet."""
    ep = Endpoint(epoch=6)
    received = sent = 0
    now, seq = 0.0, 0
    for size, ticks, answer in script:
        d = _spoofed(seq, bytes(size))
        seq += 1
        received += len(d)
        for addr, _p in ep.receive_datagram(d, VICTIM, now):
            if answer:
                ep.send(addr, bytes(answer))
        for _ in range(ticks):
            ep.handle_timer(now)
            sent += sum(len(x) for x, a in ep.datagrams_to_send(now) if a == VICTIM)
            assert sent <= T.UNCONFIRMED_FACTOR * received
            now += TICK
    sent += bytes_to(ep, VICTIM, 120.0) if VICTIM in ep.channels else 0
    assert sent <= T.UNCONFIRMED_FACTOR * received
    ch = ep.channels[VICTIM]
    assert ch.idle or (ch.get_timer() is None and ch.stats["unconfirmed_gaveup"] >= 1)


def _ask_little_answer_much(plan, until: float):
    """A asks B with 40 bytes over ``plan`` (``faults.FaultPlan``); B answers 12 KB. Checks that A
    got the answer; returns B's channel to A."""
    from p2p.faults import SimNetwork
    A, B = ("127.0.0.1", 1001), ("127.0.0.1", 1002)
    answer = os.urandom(12_000)
    got: dict = {}
    eps: dict = {}

    def on_deliver(dst, out):
        got.setdefault(dst, []).extend(out)
        if dst == B:
            for src, _p in out:
                eps[B].send(src, answer)

    net = SimNetwork(plan, on_deliver=on_deliver)
    for i, addr in enumerate((A, B)):
        eps[addr] = Endpoint(epoch=100 + i)
        net.attach(addr, eps[addr])
    eps[A].send(B, b"?" * 40)
    net.run(until=until)
    assert got.get(A) == [(B, answer)]
    return eps[B].channels[A]


@pytest.mark.parametrize("seed", range(4))
def test_a_real_peer_that_asks_little_still_gets_a_big_answer(seed):
    """§N2.6 reflection (H48): the bound costs an honest peer only time. A asks B with 40 bytes;
    B answers 12 KB (more than 3x): B withholds what does not fit (its ack too) and challenges
    A's address; A's RESPONSE confirms the channel and the rest flows (if the CHALLENGE or the
    RESPONSE is lost, A re-sends its unacknowledged request, which earns another); under loss."""
    from p2p.faults import FaultPlan
    ch = _ask_little_answer_much(FaultPlan(seed=seed, loss=0.2, reorder=0.2), until=120)
    assert ch.confirmed and ch.stats["unconfirmed_withheld"] > 0 and ch.stats["challenges_sent"] >= 1
    assert ch.stats["peer_restarts"] == 0  # a RESPONSE for the current epoch only confirms


def test_a_channel_that_gave_up_resends_once_the_address_speaks_again():
    """§N2.6 (H48): a channel that gave up keeps its queue; a new datagram from the address
    raises the bound and wakes it: the window is resent, within the bound."""
    ep = Endpoint(epoch=6)
    d = _spoofed(0, bytes(300))
    for addr, _p in ep.receive_datagram(d, VICTIM, 0.0):
        ep.send(addr, bytes(600))
    first = bytes_to(ep, VICTIM, 30.0)
    ch = ep.channels[VICTIM]
    assert ch.stats["unconfirmed_gaveup"] == 1 and ch.get_timer() is None and not ch.idle
    d2 = _spoofed(1, bytes(300))
    ep.receive_datagram(d2, VICTIM, 31.0)
    assert ch.get_timer() is not None
    again = sum(len(x) for x, a in ep.datagrams_to_send(31.0) if a == VICTIM)
    assert again > 0 and first + again <= T.UNCONFIRMED_FACTOR * (len(d) + len(d2))



def test_strangers_cannot_starve_a_trusted_peers_multi_chunk_payload():
    """Fixed (H48, §N2.6): strangers from 16 spoofed sources filled the endpoint's shared
    MAX_RECV_BUFFER with out-of-order chunks that never complete, and every multi-chunk payload
    of a trusted peer was then dropped (recv_budget_dropped) for ever. Now only trusted channels
    draw on MAX_RECV_BUFFER; a stranger holds at most STRANGER_RECV_CAP of its own."""
    host = Endpoint(epoch=6)
    peer_addr = ("127.0.0.5", 41005)
    peer = Endpoint(epoch=7)
    host.channel(peer_addr)  # we talk to it: trusted (the lobby accepted its JOIN)
    chunk = bytes(T.MAX_CHUNK)
    strangers = [("127.0.0.%d" % (20 + i), 9000 + i) for i in range(T.MAX_RECV_BUFFER // (T.RECV_WINDOW * T.MAX_CHUNK) + 2)]
    for i, src in enumerate(strangers):
        for seq in range(1, T.RECV_WINDOW):  # seq 0 never comes: nothing completes
            host.receive_datagram(T.HEADER.pack(T.MAGIC, T.FLAG_DATA | T.FLAG_MORE, 1000 + i, 0, seq, 0, 0) + chunk,
                                  src, 0.0)
    payload = bytes(range(256)) * 12  # 3 chunks
    peer.send(HOST, payload)
    got, now = [], 0.0
    while now < 10.0 and not got:
        for d, _ in peer.datagrams_to_send(now):
            got += [p for _, p in host.receive_datagram(d, peer_addr, now)]
        for d, a in host.datagrams_to_send(now):
            if a == peer_addr:
                peer.receive_datagram(d, HOST, now)
        for i, src in enumerate(strangers):  # each stranger stays "heard" (a duplicate a second)
            if int(now / TICK) % 20 == 0:
                host.receive_datagram(T.HEADER.pack(T.MAGIC, T.FLAG_DATA | T.FLAG_MORE, 1000 + i, 0, 1, 0, 0) + chunk,
                                      src, now)
        peer.handle_timer(now)
        host.handle_timer(now)
        now += TICK
    assert got == [payload]


def test_a_spoofed_epoch_flood_gets_answers_no_bigger_and_changes_nothing():
    """Holds (§N2.2): 1,000 spoofed 22-byte datagrams with fresh epochs from a lobby-time plain
    joiner's address (plain: no key yet) make the host send that address at most as many bytes
    (one CHALLENGE per ``ANSWER_INTERVAL``, 22 bytes each), and its stream is not reset."""
    host = Endpoint(epoch=6)
    joiner_addr = ("127.0.0.5", 41005)
    joiner = Endpoint(epoch=7)
    joiner.send(HOST, b"join")
    for d, _ in joiner.datagrams_to_send(0.0):
        assert host.receive_datagram(d, joiner_addr, 0.0) == [(joiner_addr, b"join")]
    host.datagrams_to_send(1.0)  # its ack
    spoofed, answered, now = 0, 0, 1.0
    for i in range(1000):
        d = T.HEADER.pack(T.MAGIC, 0, 5000 + i, 6, 0, 0, 0)
        spoofed += len(d)
        assert host.receive_datagram(d, joiner_addr, now) == []
        answered += sum(len(x) for x, a in host.datagrams_to_send(now) if a == joiner_addr)
        now += 0.001
    assert 0 < answered <= spoofed
    assert host.channels[joiner_addr].peer_epoch == 7 and host.channels[joiner_addr].stats["peer_restarts"] == 0


def test_a_confirmation_resends_what_the_bound_withheld_at_once():
    """§N2.6 reflection (H77): when the peer's RESPONSE confirms the channel, the datagrams the
    bound withheld go out at once, not at their retransmission timeout (without loss: no
    timeout at all; before, every lobby whose PROPOSAL met the bound waited one RTO)."""
    from p2p.faults import FaultPlan
    ch = _ask_little_answer_much(FaultPlan(seed=0), until=10)
    assert ch.confirmed and ch.stats["unconfirmed_withheld"] > 0
    assert ch.stats["timeouts"] == 0


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 200), min_size=1, max_size=5))
def test_a_spoofed_join_and_its_replays_never_earn_more_than_three_times_their_size(gaps):
    """§N2.6 reflection (H77), property: a spoofed JOIN introduction then replays of it from the
    victim's address at any times (``gaps``: ticks between them), the host's lobby and endpoint
    driven as the node does (keys pinned, trust renewed, timers run every tick): at every moment
    the victim got at most 3x the bytes spoofed, although the host seats and trusts the ghost."""
    ep = Endpoint(epoch=6, keys=KeyCache(HOST_ID))
    lobby = Lobby.host(HOST_ID, edition="classico", seats=4, name="host", endpoint=HOST, demo_seed=b"h77")
    lobby.messages_to_send()
    joiner = Lobby.join(MALLORY, endpoint=VICTIM, host_addr=HOST, game_id=lobby.game_id, name="m",
                        host_keys=(HOST_ID.public_key, HOST_ID.x25519_public_key))
    dgrams = forge_intro(MALLORY, HOST, HOST_ID.x25519_public_key, joiner.messages_to_send()[0][1])
    spoofed = sent = 0
    now = 0.0
    for gap in [0, *gaps, 600]:
        for _ in range(gap):
            ep.handle_timer(now)
            if (t := lobby.get_timer()) is not None and t <= now:
                lobby.handle_timer(now)
            for addr, raw in lobby.messages_to_send():
                ep.send(addr, raw)
            sent += sum(len(d) for d, a in ep.datagrams_to_send(now) if a == VICTIM)
            assert sent <= T.UNCONFIRMED_FACTOR * spoofed
            now += TICK
        for d in dgrams:
            spoofed += len(d)
            for addr, p in ep.receive_datagram(d, VICTIM, now):
                lobby.receive_message(p, addr, now, ep.peer_key(addr))
        for addr, xk in lobby.peer_keys():
            ep.pin(addr, xk)
        ep.trust(lobby.peer_addresses())
    assert VICTIM in lobby.peer_addresses() and not ep.channels[VICTIM].confirmed
