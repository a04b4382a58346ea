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
good (a new spectator on a seat's watch socket: §N10, blind; a joiner by join code, whose
PROBE comes before its JOIN, §N3.1: it aborts 'no answer from the host' and the lobby never
starts). A blind spoofer replaying the datagram from the victim's address more often than once
per round trip (~0.5-3 ms on a LAN) always hits it.
Sans-I/O, virtual clock, one-way latency 0.3 ms, in memory.
"""

from __future__ import annotations

import heapq

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


def test_a_blind_flood_of_one_forged_introduction_does_not_keep_a_new_peer_unheard():
    """BREAK s12b #1, blind: the spoofer does not know when the peer starts; it replays the one
    datagram (85 bytes) from the peer's address every 0.5 ms (170 KB/s: one per round trip of
    0.6 ms here, so one lands in the window whenever the peer starts): the same."""
    me = _run(spoof_every=0.0005, seconds=5.0)
    assert me.last_heard(PEER) > 0 and me.peer_key(PEER) == PEER_ID.x25519_public_key


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


def _lobby_by_code(attack: bool, until: float = 60.0) -> dict:
    """A 3-seat classico lobby on ``SimNetwork`` (0.5 ms per datagram), two joiners by join code
    (PROBE first, §N3.1), as ``lobby_sim.lobby_game``; with ``attack``, ONE introduction of
    MALLORY's key spoofed from joiner 1's address reaches the host 0.1 ms after the host opened
    a channel for joiner 1's first datagram. Returns {address: (started, aborted event)}."""
    from p2p.faults import FaultPlan, SimNetwork
    from p2p.join_code import join_code_tag
    from p2p.lobby import Lobby
    from p2p.lobby_sim import HOST, LobbyPeer

    host_id = Identity.from_seed(b"h128-host")
    host = Lobby.host(host_id, edition="classico", seats=3, name="host", endpoint=HOST, demo_seed=b"h128",
                      chain_length=8)
    peers = {HOST: LobbyPeer(host_id, host, 100)}
    tag = join_code_tag(host.game_id, host_id.public_key)
    for i in (1, 2):
        lob = Lobby.join(Identity.from_seed(b"h128-j%d" % i), endpoint=("10.0.0.%d" % (i + 1), 5000),
                         host_addr=HOST, game_id=None, name=f"j{i}",
                         chain_length=8, now=0.0, code_tag=tag)
        peers[("10.0.0.%d" % (i + 1), 5000)] = LobbyPeer(lob.identity, lob, 100 + i)
    net = SimNetwork(FaultPlan())
    for addr, peer in peers.items():
        net.attach(addr, peer)
    victim, sent = ("10.0.0.2", 5000), not attack
    forged = forge_intro(MALLORY, HOST, host_id.x25519_public_key, b"PROBE")[0]
    while net.now < until and not all(p.done for p in peers.values()) and net.step():
        if not sent and victim in peers[HOST].ep.channels:
            net.inject(victim, HOST, forged, 0.0001)
            sent = True
    return {addr: (p.started is not None, p.aborted) for addr, p in peers.items()}


def test_premise_a_lobby_by_join_code_starts():
    """§N3.1: without the spoofer the host and both joiners by code start within a second."""
    assert all(started for started, _ in _lobby_by_code(attack=False, until=5.0).values())


def test_one_forged_introduction_in_a_code_joiners_first_round_trip_does_not_abort_its_join():
    """BREAK s12b #1 in the lobby (§N3.1 join by code): joiner 1's PROBE opens an untrusted
    channel at the host (the host trusts the address only once the JOIN is accepted); the forged
    introduction 0.1 ms later replaces it before joiner 1's RESPONSE; joiner 1 has stopped
    introducing itself, so the host never hears it again: joiner 1 aborts 'no answer from the
    host' and the lobby never starts (60 s). A joiner with the host's keys from its advert is
    not hit (its first datagram carries the JOIN, accepted and trusted at once)."""
    out = _lobby_by_code(attack=True)
    assert all(started for started, _ in out.values()), out
