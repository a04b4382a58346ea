"""Red team session 11 (H107): a hostile spectator against a seat's watch socket (protocol.md §N10).

The attacker is one laptop on the LAN with keys of its own: a *real* spectator (it answers
CHALLENGEs and acknowledges what it is sent), so none of the spoofed-address defences of
tests/p2p/test_redteam_lan_watch.py apply. Sans-I/O: ``WatchServer`` as ``WatchService`` drives it
(``receive`` then ``outgoing`` for every WATCH datagram, ``WatchService._on_datagram`` -> ``flush``;
``settled`` True: the attacker acknowledges everything).
"""

from __future__ import annotations

from p2p.identity import Identity
from p2p.spectate import MAX_WATCHERS, WATCH_RENEW_S, WATCH_TTL_S, WatchClient, WatchServer

from redteam_lan_kit import GID, HOST_ID, TICK

RECORDS = [(0, bytes(1500))] + [(1, bytes(400)) for _ in range(200)]


def _acks(_addr) -> bool:
    return True  # every subscriber here acknowledges what it is sent (a real spectator)


def test_a_spectators_renewals_at_any_rate_cost_the_seat_a_signature_each():
    """BREAK (MED, resources). A subscribed spectator (its own keys, on its own address, it
    acknowledges) sends its renewal WATCH 2,000 times in one second over its keyed channel.
    A renewal skips the signature-check budget (``WATCH_CHECK_RATE``, H37: so that forged
    WATCHes cannot lapse it), sets ``answer``, and ``WatchService`` runs ``outgoing`` on each
    WATCH: each one is answered by an empty RECORDS signed afresh (the ``signed`` cache of
    ``outgoing`` lives for one call). Cost to the attacker: the same WATCH bytes re-sent
    (~260 B each, no signature of its own: the channel MAC is all a renewal needs), 2,000
    datagrams, 0.5 MB. Effect: 2,000 Ed25519 signatures and 2,000 answer datagrams from the seat
    in 1 s (~20 us of the seat's CPU per renewal in WatchServer alone, measured on this box; the
    transport's MAC, decode and send come on top: 20,000 renewals/s, 5 MB/s on a LAN, take most
    of the seat's one event loop, which also runs the game). §N10 counts 'one Ed25519 signature per batch (and per
    empty answer)' and 'a seat whose game waits pays ~0.1 ms per renewal answered (16 spectators:
    < 1 ms per second)', which holds only for renewals every WATCH_RENEW_S. Suggested fix: answer
    a renewal that brought nothing new at most once per tick (or keep the signed empty RECORDS
    of index n across calls)."""
    spec = Identity.from_seed(b"h107-fast-renewer")
    addr = ("10.0.0.66", 6000)
    client = WatchClient(spec, GID, HOST_ID.public_key, "s")
    ws = WatchServer(HOST_ID, GID)
    ws.receive(client.watch_message(), addr, spec.x25519_public_key, 0.0)
    now = 0.0
    while now < 1.0:  # an honest start: subscribed, reached, the whole log sent
        for _, raw in ws.outgoing(RECORDS, now, _acks):
            client.receive(raw)
        now += TICK
    assert len(client.records) == len(RECORDS)
    renewal = client.watch_message()  # have = everything: there is nothing new to send it
    before = ws.stats.get("signed", 0)
    n = 2000
    for i in range(n):
        t = 1.0 + i / n
        ws.receive(renewal, addr, spec.x25519_public_key, t)
        ws.outgoing(RECORDS, t, _acks)
    signed = ws.stats.get("signed", 0) - before
    assert ws.stats["renewed"] >= n
    # An honest spectator renews every WATCH_RENEW_S; the node's tick is 0.5 s: a handful a second.
    assert signed <= 4, f"{n} renewals in 1 s -> {signed} signatures by the seat"


def test_one_laptop_on_sixteen_ports_keeps_every_real_spectator_out():
    """BREAK (MED, denial of service to spectators). 'Anyone on the LAN may follow a running
    game' (§N10). The attacker subscribes from MAX_WATCHERS = 16 ports of its own address with
    16 fresh keys, renews every WATCH_RENEW_S with ``have`` = everything (nothing to send) and
    acknowledges the empty answers: its channels are settled, so the 'silent subscriber gives its
    place' rule of H37 never applies (it was written against spoofed addresses). Cost: 16 WATCHes
    (~260 B) per 3 s per seat, plus acks, about 1.4 KB/s; every seat serves 16 at most, so the
    same against each seat of the table (its watch adverts are public) shuts out every
    spectator for as long as the laptop stays. Here a real spectator on another machine asks
    every 3 s for 60 s: 'full' every time. Suggested fix: a per-source-host bound (like the
    lobby's 2 unconfirmed members per source address, §C2.2), or when full evict one of the
    host holding the most places (as §N2.6 evicts strangers)."""
    ws = WatchServer(HOST_ID, GID)
    squat = [(Identity.from_seed(b"h107-squat%d" % i), ("10.0.0.66", 6000 + i)) for i in range(MAX_WATCHERS)]
    real = Identity.from_seed(b"h107-real-spectator")
    real_at = ("10.0.0.77", 5000)
    renew_every = int(round(WATCH_RENEW_S / TICK))
    now, tick = 0.0, 0
    while now < 60.0:
        if tick % renew_every == 0:
            for ident, addr in squat:
                w = WatchClient(ident, GID, HOST_ID.public_key, "x")
                w.records = list(RECORDS)  # it claims it holds everything: nothing to send
                ws.receive(w.watch_message(), addr, ident.x25519_public_key, now)
            if now >= 1.0:
                ws.receive(WatchClient(real, GID, HOST_ID.public_key, "r").watch_message(), real_at,
                           real.x25519_public_key, now)
        ws.outgoing(RECORDS, now, _acks)
        now += TICK
        tick += 1
    assert WATCH_TTL_S > WATCH_RENEW_S  # the squatters never lapse
    assert real_at in ws.subs or ws.stats.get("subscribed", 0) > MAX_WATCHERS, (
        f"the real spectator was refused {ws.stats.get('full', 0)} times in 60 s")
