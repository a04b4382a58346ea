"""Red team, session 9 (H85): what eviction does to a stranger that was talking (protocol.md §N2.6
'Strangers', §N2.3, §N3.1).

An endpoint forgets an untrusted channel when new sources need room; anyone on the LAN can bring new
sources (spoofed, a bare header each). §N2.6 says a real joiner is never locked out because its
JOIN is one datagram, delivered at once. A peer whose exchange takes more than one datagram before
it is trusted — a joiner by code (PROBE, CHALLENGE, PROBE again, JOIN) — meets the eviction in the
middle of its stream: the receiver's fresh channel acknowledges its next datagram, buffered out of
order behind sequence numbers the old channel had acknowledged, and never delivers it.
"""

from __future__ import annotations

import pytest

from p2p import const as C
from p2p import transport as T
from p2p.endpoint import Endpoint
from p2p.lobby import ABORTED, WAITING, Lobby

from redteam_s9_kit import (HOST, HOST_ID, JOINER, JOINER_ID, T_JOIN, host_and_joiner, network,
                            spoofed_flood)
from test_lobby_loss import LobbyPeer  # a Lobby and its Endpoint pumped as NodeLobby.pump does

A, B = ("127.0.0.1", 1001), ("127.0.0.2", 1002)


def _exchange(a: Endpoint, b: Endpoint, until: float, now: float, got: list) -> float:
    """Run a and b (A and B) on a lossless virtual wire until ``until``; B's payloads go to
    ``got``. Returns the clock."""
    while now < until:
        for _ in range(4):
            for d, _dst in a.datagrams_to_send(now):
                got.extend(p for _src, p in b.receive_datagram(d, A, now))
            for d, _dst in b.datagrams_to_send(now):
                a.receive_datagram(d, B, now)
        now += 0.05
        a.handle_timer(now)
        b.handle_timer(now)
    return now


def test_a_stranger_whose_channel_was_evicted_loses_no_later_message():
    """§N2.3 (reliable, in order) across §N2.6's eviction: A's first message is delivered and
    acknowledged; B forgets A's channel (as ``_make_room`` does when new sources need room); A's
    next message must still reach B (or A must learn it did not)."""
    a, b = Endpoint(epoch=1), Endpoint(epoch=2)
    got: list = []
    a.send(B, b"one")
    now = _exchange(a, b, 2.0, 0.0, got)
    assert got == [b"one"] and a.channels[B].idle
    b.forget(A)  # evicted as a stranger
    a.send(B, b"two")
    _exchange(a, b, now + 30.0, now, got)
    assert got[-1:] == [b"two"] or not a.channels[B].idle


@pytest.mark.parametrize("data", [False, True])
def test_a_short_flood_of_spoofed_sources_does_not_end_a_join_by_code_for_good(data):
    """§N3.1, §N2.6: a flood from fresh spoofed sources (bare headers, or one-byte DATA chunks
    that give each stranger channel a stream), fast enough to evict (more than ~31 new sources per
    round trip; on a real host, any flood that makes the joiner's datagrams queue behind 31 of
    them), from just before the joiner by code starts until 0.9 s after. Once it stops, the
    joiner's next copies must get it seated before JOIN_TIMEOUT."""
    hp, jp = host_and_joiner()
    net = network({HOST: hp})
    spoofed_flood(net, 50_000, 1.0, start=T_JOIN - 0.1, data=data)
    net.run(until=T_JOIN)
    net.attach(JOINER, jp)
    while net.now < T_JOIN + C.JOIN_TIMEOUT and jp.lobby.phase not in (WAITING, ABORTED) and net.step():
        pass
    assert hp.ep.stats["evicted"] > 1000
    assert jp.lobby.phase == WAITING


@pytest.mark.parametrize("by_code", [False, True])
def test_two_spoofed_acks_before_a_joiners_first_datagram_do_not_lock_it_out(by_code):
    """§N2.2 (a spoofed epoch cannot reset a channel), §N2.6 'Strangers': the attacker knows the
    address the joiner will use (a fixed --port, a port seen in an earlier game) and sends the
    host two bare 22-byte pure acks from it, 1 s apart, each with a fresh src_epoch; the joiner
    (from the advert, or by code) starts right after the second. It must be seated before
    JOIN_TIMEOUT: the spoofed epochs never proved anything, its introduction is MACed."""
    hp, jp = host_and_joiner()
    if not by_code:
        jp = LobbyPeer(JOINER_ID, Lobby.join(JOINER_ID, endpoint=JOINER,
                                             host_addr=HOST, game_id=hp.lobby.game_id, name="j",
                                             chain_length=8, now=T_JOIN,
                                             host_keys=(HOST_ID.public_key, HOST_ID.x25519_public_key)), 2)
    net = network({HOST: hp})
    for i, at in enumerate((T_JOIN - 1.0, T_JOIN)):
        net.inject(JOINER, HOST, T.HEADER.pack(T.MAGIC, 0, 7000 + i, 0, 0, 0, 0), delay=at)
    net.run(until=T_JOIN - 0.5)  # runs the first spoofed ack, then the second (the next event)
    net.attach(JOINER, jp)
    while net.now < T_JOIN + C.JOIN_TIMEOUT and jp.lobby.phase not in (WAITING, ABORTED) and net.step():
        pass
    assert jp.lobby.phase == WAITING
