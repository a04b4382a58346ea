"""Red team session 12 (H122): spectators' places (§N10 'WATCH', 'Places per machine', eb5d6dd,
b50922f) against a spoofed introduction from a spectator's own address.

The watch socket keys every channel with the spectator's X25519 key (§N10 "Where"), and a place
is 'reached'/'proven' once its address answered (§N2.6). But a spectator's channel is never
*trusted* (the seat never vouches for a spectator's address), and an introduction "replaces a
keyed channel of an untrusted address" (§N2.1 step 3, ``Endpoint._introduction``): the attacker,
with keys of its own, MACs an introduction to the seat's watch socket and spoofs the spectator's
address. Real sans-I/O objects (the seat's watch ``Endpoint`` + ``WatchServer``, the spectator's
``Endpoint`` + ``WatchClient``) on a virtual clock, wired as ``WatchService`` wires them.
"""

from __future__ import annotations

from p2p import transport as T
from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.identity import Identity
from p2p.spectate import WATCH_RENEW_S, WatchClient, WatchServer
from p2p.watch_service import channel_settled

from redteam_lan_kit import GID, HOST, HOST_ID, MALLORY, TICK, forge_intro

SPEC = ("127.0.0.30", 6100)  # the spectator's machine and port


def _view(attack_at: float | None, until: float = 40.0):
    """A seat serving a game that logs one record a second, and one honest spectator renewing
    every WATCH_RENEW_S; ``attack_at``: when the attacker sends ONE introduction of its own key
    (Mallory's, a 5-byte payload) to the watch socket from the spoofed source SPEC. Returns the
    seat's endpoint and server, the client, and the records the spectator held at each second."""
    spec = Identity.from_seed(b"h122-spectator")
    ep = Endpoint(epoch=5, keys=KeyCache(HOST_ID), accept_plain=False)  # the seat's watch socket
    ws = WatchServer(HOST_ID, GID)
    sp = Endpoint(epoch=9, keys=KeyCache(spec), accept_plain=False)
    sp.pin(HOST, HOST_ID.x25519_public_key)
    client = WatchClient(spec, GID, HOST_ID.public_key, "viewer")
    records = [(0, b"header")]
    now, last_watch, held = 0.0, -99.0, {}
    while now < until:
        if int(now * 1000) % 1000 == 0:
            records.append((1, b"step %d" % int(now)))
        if now - last_watch >= WATCH_RENEW_S:
            sp.send(HOST, client.watch_message())
            last_watch = now
        if attack_at is not None and abs(now - attack_at) < 1e-9:
            for d in forge_intro(MALLORY, HOST, HOST_ID.x25519_public_key, b"hello"):
                ep.receive_datagram(d, SPEC, now)  # spoofed source: the spectator's address
        for d, _a in sp.datagrams_to_send(now):
            for addr, p in ep.receive_datagram(d, SPEC, now):  # as WatchService._on_datagram
                ws.receive(p, addr, ep.peer_key(addr), now, proven=ep.confirmed(addr))
        for addr, raw in ws.outgoing(records, now, lambda a: channel_settled(ep, a)):
            if addr in ep.channels:  # WatchService._send never opens a spectator's channel
                try:
                    ep.send(addr, raw)
                except T.BufferFull:
                    pass
        for d in [d for d, a in ep.datagrams_to_send(now) if a == SPEC]:
            for _src, p in sp.receive_datagram(d, HOST, now):
                client.receive(p)
        now = round(now + TICK, 6)
        ep.handle_timer(now)
        sp.handle_timer(now)
        held[round(now)] = len(client.records)
    return ep, ws, client, held


def test_premise_an_honest_spectator_keeps_up_with_the_log():
    """Without the attacker the spectator holds every record within a second or two."""
    _ep, ws, client, held = _view(attack_at=None)
    assert held[40] >= 40 and ws.stats.get("expired", 0) == 0 and ws.stats["renewed"] >= 10


def test_one_spoofed_introduction_does_not_cut_a_reached_spectator_off():
    """BREAK s12 #3 (MED; spectators only, the game is untouched). A spectator follows a seat,
    reached and proven (§N10, eb5d6dd's `proven`). At 10 s the attacker sends ONE introduction
    MACed with its own keys to the seat's watch socket, spoofing the spectator's address: the
    spectator's channel is untrusted, so ``Endpoint._introduction`` forgets it and keys a new
    one with the attacker's key. From then on the spectator's renewals fail the MAC (`bad_mac`,
    ~150 in 30 s), the seat's RECORDS to it are MACed with the attacker's pairwise key (the
    spectator drops them), its place expires after WATCH_TTL_S, and its view stays frozen at
    10 s; the spectator never re-introduces itself (its channel got answers before). Its driver
    fails over after WATCH_SILENCE_S; the attacker repeats at the next seat: one ~100 B datagram
    per spectator per 7 s keeps every spectator of the game blind (§N10 'What holds' says a seat
    that drops out costs 7 s of a frozen view, then another seat serves). Suggested fix: on the
    watch socket an introduction of another key never replaces a channel that proved its
    address (``route.confirmed``) or holds a live subscription (``WatchService`` trusts a reached
    place's address until it lapses); a spectator that really changed key waits for the lapse,
    as `key_change` already makes it wait.

    FIXED (H126, §N2.1 step 3): an introduction of another key never replaces a channel whose
    peer was heard there (§N2.2 "Heard") in the last UNTRUSTED_IDLE = 5 s (`key_mismatch`)."""
    ep, ws, client, held = _view(attack_at=10.0)
    assert held[10] >= 10  # it was reached and following before the attack
    assert held[40] >= 35, (
        f"the spectator holds {held[40]} records at 40 s ({held[11]} at 11 s); seat: "
        f"{ep.channels[SPEC].stats.get('bad_mac', 0)} of its datagrams bad_mac, {ws.stats.get('expired', 0)} expired")
