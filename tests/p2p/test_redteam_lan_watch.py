"""Red team, the hostile laptop on the LAN (issue 10, H37): spectators and the watch service
(protocol.md §N10, §N2.6).

A spoofed WATCH reflects at most 3x its size (also after the victim's channel is evicted, and a
forged ack does not confirm it), renewals of a spectator that never acks do not queue the log again,
a forged WATCH flood does not lapse a real subscription, spectators at spoofed addresses cannot keep
a real one out. Shared addresses, keys and tools: tests/p2p/redteam_lan_kit.py.
"""

from __future__ import annotations

from types import SimpleNamespace

from p2p import transport as T
from p2p.channel_auth import KeyCache, mac
from p2p.endpoint import Endpoint
from p2p.identity import Identity
from p2p.spectate import (MAX_WATCHERS, RECORDS_BATCH, UNSETTLED_BYTES, WATCH_CHECK_RATE, WATCH_RENEW_S,
                          WATCH_SILENCE_S, WatchClient, WatchServer)
from p2p.watch_service import channel_settled

from redteam_lan_kit import GID, HOST, HOST_ID, MALLORY, TICK, VICTIM, bytes_to, forge_intro


def _watch_server(records_bytes: int):
    """A seat's watch socket (keyed channels only) serving a game log of ``records_bytes``."""
    ep = Endpoint(epoch=5, keys=KeyCache(HOST_ID), accept_plain=False)
    ws = WatchServer(HOST_ID, GID)
    records = [(0, bytes(1500))] + [(1, bytes(400)) for _ in range(records_bytes // 400)]

    def deliver(raw_datagrams, src, now):
        for d in raw_datagrams:
            for addr, p in ep.receive_datagram(d, src, now):
                ws.receive(p, addr, ep.peer_key(addr), now)

    def settled(addr):  # what WatchService passes: the channel exists, is confirmed and idle
        return channel_settled(ep, addr)

    def drive(now):
        for addr, raw in ws.outgoing(records, now, settled):
            if addr not in ep.channels:  # as WatchService._send: never open a spectator's channel
                continue
            try:
                ep.send(addr, raw)
            except T.BufferFull:
                pass

    return ep, ws, records, deliver, drive


def test_one_spoofed_watch_reflects_at_most_three_times_its_size():
    """Fixed (H48, §N2.6 reflection): ONE spoofed 230 B introduction carrying a WATCH made a seat
    send the victim 2.5 MB in 30 s (44 MB at f565d47), then, with spectate.py's first-answer rule
    (H37), 4.4 KB in 30 s, the one answer re-sent every MAX_RTO for ever. Now a channel opened by
    the peer's datagram sends at most 3x what it received until the peer echoes the nonce of a
    CHALLENGE sent to that address, and gives up after UNCONFIRMED_RESENDS resends."""
    ep, ws, _records, deliver, drive = _watch_server(120_000)
    watch = WatchClient(MALLORY, GID, HOST_ID.public_key, "m").watch_message()
    dgrams = forge_intro(MALLORY, HOST, HOST_ID.x25519_public_key, watch)
    deliver(dgrams, VICTIM, 0.0)
    assert ws.stats["subscribed"] == 1  # the forged WATCH was taken (a valid one, MALLORY's keys)
    sent = bytes_to(ep, VICTIM, 30.0, drive)
    asked = sum(len(d) for d in dgrams)
    assert sent <= 3 * asked, f"{asked} B spoofed -> {sent} B to the victim ({sent / asked:.0f}x)"


def test_a_spoofed_watch_gets_no_records_after_its_victims_channel_is_evicted():
    """Fixed (coordinator, session 7; §N10 "reached"): ONE spoofed 230 B WATCH, then at 6 s
    introductions from 40 other spoofed sources (Mallory's own keys) fill the watch socket's
    channel table, so the victim's channel (unacknowledged, never heard since) is evicted. The
    seat took a missing channel for "everything acknowledged": the subscription became
    "reached" and the seat sent the victim 2 MB of game log in the 4 s left of it (8,900x).
    A channel that is gone, or re-opened by a datagram from that address, is not settled."""
    ep, ws, _records, deliver, drive = _watch_server(120_000)
    watch = WatchClient(MALLORY, GID, HOST_ID.public_key, "m").watch_message()
    dgrams = forge_intro(MALLORY, HOST, HOST_ID.x25519_public_key, watch)
    asked = sum(len(d) for d in dgrams)
    deliver(dgrams, VICTIM, 0.0)
    state = {"flooded": False, "renewed": False}

    def attack(now):
        if now >= 6.0 and not state["flooded"]:
            state["flooded"] = True
            for k in range(40):
                deliver(forge_intro(MALLORY, HOST, HOST_ID.x25519_public_key, b"x" * 20, epoch=100 + k),
                        ("127.0.1.%d" % k, 5), now)
            assert VICTIM not in ep.channels  # evicted: room was needed
        if now >= 8.0 and not state["renewed"]:  # a renewal re-opens the victim's channel
            state["renewed"] = True
            deliver(forge_intro(MALLORY, HOST, HOST_ID.x25519_public_key, watch, epoch=99), VICTIM, now)
        drive(now)

    sent = bytes_to(ep, VICTIM, 30.0, attack)
    assert state["flooded"] and ep.stats["evicted"] >= 1
    assert not ws.stats.get("sent")  # not one RECORDS batch went out
    assert sent <= 3 * 2 * asked, f"{2 * asked} B spoofed -> {sent} B to the victim"


def test_a_forged_ack_then_an_eviction_does_not_make_a_spoofed_watch_a_reflector():
    """Fixed (H71's review, session 7; §N10 "reached", §N2.6): ONE spoofed WATCH, ONE forged
    ack (MAC'd with the attacker's own pair key, acknowledging our first datagram: its numbers
    are predictable), then introductions from 40 other spoofed sources to evict the victim's
    channel. The ack made the subscription "reached" (the channel had "acknowledged" something)
    and the seat's next send opened a new plain channel to the victim, ours, confirmed and
    unbounded: 3.9 KB spoofed -> 2.3 MB in 30 s. Now only a channel whose address answered a
    CHALLENGE is settled, and the seat never opens a channel to a spectator."""
    ep, ws, _records, deliver, drive = _watch_server(3_000_000)
    watch = WatchClient(MALLORY, GID, HOST_ID.public_key, "m").watch_message()
    intro = forge_intro(MALLORY, HOST, HOST_ID.x25519_public_key, watch)
    spoofed = sum(map(len, intro))
    deliver(intro, VICTIM, 0.0)
    pair = KeyCache(MALLORY).pinned(HOST_ID.x25519_public_key)
    state = {}

    def attack(now):
        if now >= 0.05 and "ack" not in state:
            state["ack"] = True
            head = T.HEADER.pack(T.MAGIC_AUTH, 0, 77, 0, 0, 1, 0)  # acknowledges our seq 0
            deliver([head + mac(pair.send, head)], VICTIM, now)
            state["reached"] = ws.subs[VICTIM].reached
        if now >= 0.15 and "evict" not in state:
            state["evict"] = True
            for k in range(40):
                d = forge_intro(MALLORY, HOST, HOST_ID.x25519_public_key, b"x" * 20, epoch=100 + k)
                deliver(d, ("127.0.1.%d" % k, 5), now)
            state["gone"] = VICTIM not in ep.channels
        drive(now)

    sent = bytes_to(ep, VICTIM, 30.0, attack)
    spoofed += 38
    assert state["gone"] and not state["reached"] and not ws.subs.get(VICTIM, SimpleNamespace(reached=False)).reached
    assert not ws.stats.get("sent")  # not one RECORDS batch
    assert sent <= 3 * spoofed, f"{spoofed} B spoofed -> {sent} B to the victim"


def test_one_forged_ack_does_not_confirm_a_spoofed_watch():
    """Fixed (H48, §N2.6 'Reflection'): sequence numbers start at 0 and an ack may name
    dst_epoch 0, so the holder of its own keys forged, blindly from the victim's address, the
    ack of the seat's first answer; when an ack confirmed the channel, the seat then streamed
    the game log to the victim (268 B -> 2.5 MB in 30 s, one 38 B ack). Now only a RESPONSE
    echoing the random nonce of the CHALLENGE sent to that address confirms it."""
    from p2p.channel_auth import mac
    ep, ws, _records, deliver, drive = _watch_server(120_000)
    watch = WatchClient(MALLORY, GID, HOST_ID.public_key, "m").watch_message()
    dgrams = forge_intro(MALLORY, HOST, HOST_ID.x25519_public_key, watch)
    deliver(dgrams, VICTIM, 0.0)
    drive(0.0)
    ep.datagrams_to_send(0.0)  # the first answer goes to the victim; Mallory never sees it
    pair = KeyCache(MALLORY).pinned(HOST_ID.x25519_public_key)
    head = T.HEADER.pack(T.MAGIC_AUTH, 0, 77, 0, 0, 1, 0)  # dst 0 is accepted; ack = 1: "got your seq 0"
    ack = head + mac(pair.send, head)
    deliver([ack], VICTIM, 0.01)
    sent = bytes_to(ep, VICTIM, 30.0, drive)
    asked = sum(len(d) for d in dgrams) + len(ack)
    assert sent <= 3 * asked, f"{asked} B spoofed -> {sent} B to the victim ({sent / asked:.0f}x)"


def test_watch_renewals_of_a_spectator_that_never_acks_do_not_queue_the_log_again_and_again():
    """Fixed (H37): a spectator that renews with have=0 at every renewal and acknowledges
    nothing after its first answer made each renewal queue the whole log again (1.25 MB for a 60 KB log in 60 s, up
    to the transport's 8 MiB send buffer per spectator, 16 spectators); now at most
    ``UNSETTLED_BYTES`` + one batch is queued for it while its channel holds unacknowledged data."""
    ep, ws, records, deliver, drive = _watch_server(300_000)
    client = WatchClient(MALLORY, GID, HOST_ID.public_key, "m")
    src = ("127.0.0.40", 7000)
    att = Endpoint(epoch=77, keys=KeyCache(MALLORY), accept_plain=False)
    att.pin(HOST, HOST_ID.x25519_public_key)
    queued, now, next_watch, heard = 0, 0.0, 0.0, []
    orig_send = ep.send

    def counting_send(addr, raw):
        nonlocal queued
        if addr == src:
            queued += len(raw)
        orig_send(addr, raw)

    ep.send = counting_send
    while now < 60.0:
        if now >= next_watch:
            att.send(HOST, client.watch_message())  # have = 0: it never keeps anything
            next_watch += WATCH_RENEW_S
        deliver([d for d, _ in att.datagrams_to_send(now)], src, now)
        drive(now)
        ep.handle_timer(now)
        flush = ep.datagrams_to_send(now)
        if flush and not heard:  # it answers the first flush (the return-routability CHALLENGE
            # and the first answer: its address is proven, H48) and acknowledges it...
            heard.extend(att.receive_datagram(d, HOST, now) for d, _a in flush)
        now += TICK  # ...and nothing after that
    log = sum(len(p) for _, p in records)
    assert queued <= UNSETTLED_BYTES + RECORDS_BATCH + 4096 < 3 * log, f"{queued} B queued for a {log} B log"
    assert ws.stats["unsettled_limited"] > 0


def test_a_forged_watch_flood_does_not_lapse_a_spectators_subscription():
    """Fixed (H37): forged WATCHes (fresh keys, bad signatures, spoofed sources) at 100/s used
    up the seat's 32 checks a second; every renewal of a real spectator was then 'busy' and its
    subscription lapsed after WATCH_TTL_S (10 s). A renewal over the subscriber's own keyed
    channel needs no signature check now."""
    ws = WatchServer(HOST_ID, GID)
    spec = Identity.from_seed(b"h37-watcher")
    client = WatchClient(spec, GID, HOST_ID.public_key, "s")
    ws.receive(client.watch_message(), ("127.0.0.70", 7000), spec.x25519_public_key, 0.0)
    assert ws.stats["subscribed"] == 1
    fakes = [Identity.from_seed(b"h37-fake%d" % i) for i in range(4)]
    forged = [bytearray(WatchClient(f, GID, HOST_ID.public_key, "f").watch_message()) for f in fakes]
    for raw in forged:
        raw[-1] ^= 1  # a bad signature: costs a check, subscribes nobody
    now = 0.0
    while now < 30.0:
        for i, raw in enumerate(forged):
            ws.receive(bytes(raw), ("127.0.0.%d" % (80 + i), 7000), fakes[i].x25519_public_key, now)
        if int(now / TICK) % int(WATCH_RENEW_S / TICK) == 0:
            ws.receive(client.watch_message(), ("127.0.0.70", 7000), spec.x25519_public_key, now)
        ws.outgoing([(0, b"header")], now)
        now += TICK / 2  # 4 forged WATCHes per 25 ms: 160 a second
    assert ("127.0.0.70", 7000) in ws.subs and ws.stats["renewed"] >= 9
    assert ws.stats["bad_signature"] <= 31 * WATCH_CHECK_RATE + WATCH_CHECK_RATE  # the budget still bounds the forgeries


def test_spectators_at_spoofed_addresses_cannot_keep_a_real_one_out():
    """Fixed (H37): MAX_WATCHERS = 16 subscriptions at spoofed addresses (the attacker's own
    keys, renewed every 3 s, never acknowledging anything) kept every real spectator out
    ('full') for as long as the attacker renewed. Now, when full, a subscriber whose channel
    acknowledged nothing for WATCH_SILENCE_S gives its place to a newcomer whose signature
    holds; subscribers that acknowledge are never displaced."""
    ws = WatchServer(HOST_ID, GID)
    fakes = [Identity.from_seed(b"h37-squat%d" % i) for i in range(MAX_WATCHERS)]
    fake_at = {("127.0.0.%d" % (100 + i), 7000): f for i, f in enumerate(fakes)}
    honest = [Identity.from_seed(b"h37-real%d" % i) for i in range(MAX_WATCHERS + 1)]
    honest_at = {("127.0.0.%d" % (150 + i), 7000): h for i, h in enumerate(honest)}

    def watch(at, now):
        for addr, ident in at.items():
            ws.receive(WatchClient(ident, GID, HOST_ID.public_key, "x").watch_message(), addr,
                       ident.x25519_public_key, now)

    settled_ok = set(honest_at)
    now = 0.0
    while now < 12.0:
        if int(now / TICK) % int(WATCH_RENEW_S / TICK) == 0:
            watch(fake_at, now)
        ws.outgoing([(0, b"header")], now, lambda a: a in settled_ok)
        now += TICK
    assert set(ws.subs) == set(fake_at)
    first = dict(list(honest_at.items())[:1])
    watch(first, now)
    assert set(first) <= set(ws.subs), "a real spectator is kept out by squatters"
    # Honest subscribers that acknowledge keep their places: fill up with them, then one more.
    for addr, ident in list(honest_at.items())[1:]:
        ws.outgoing([(0, b"header")], now, lambda a: a in settled_ok)
        watch({addr: ident}, now)
        now += WATCH_SILENCE_S + 1.0
        watch(first | {a: i for a, i in honest_at.items() if a in ws.subs}, now)  # renewals
    assert set(ws.subs) <= set(honest_at) and len(ws.subs) == MAX_WATCHERS
    assert ws.stats["full"] >= 1
