"""Red team session 11, round 2 (H114): a seat's spectator places and spectators' chat against
spoofed source addresses (protocol.md §N10 "WATCH", §N9 "What holds", §N2.6 threat model: any
datagram may carry any source address).

A spoofed source can open a keyed channel to a seat's watch socket (an introduction needs no
round trip: tests/p2p/test_redteam_lan_watch.py) and subscribe over it; it never answers the
CHALLENGE, so its place is never ``reached`` (``watch_service.channel_settled``) and gets no
records (H37). These tests drive the seat's real ``WatchServer`` and ``ChatRelay`` as ``Node``
wires them, on a virtual clock; ``settled(addr)`` is False for the spoofed addresses (they never
confirm) and True for the honest spectator's (it acknowledges what it is sent).
"""

from __future__ import annotations

from types import SimpleNamespace

from p2p import const as C
from p2p.chat import ChatRelay
from p2p.identity import Identity
from p2p.spectate import MAX_WATCHERS, WATCH_RENEW_S, WATCHERS_PER_HOST, WatchServer
from p2p.wire import MSG_CHAT, MSG_WATCH, Chat, Watch, seal_message

from redteam_lan_kit import GID, HOST_ID

RECORDS = [(0, bytes(300))] + [(1, bytes(100)) for _ in range(5)]


def _watch(ws: WatchServer, ident: Identity, addr, now: float, have: int = 0, proven: bool = False) -> None:
    """A WATCH of ``ident`` over the channel keyed with its own X25519 key, from ``addr``;
    ``proven``: that channel is confirmed (``watch_service`` passes it: the address answered
    the seat's CHALLENGE; never for a spoofed source)."""
    raw = seal_message(ident, MSG_WATCH, Watch(GID, ident.public_key, ident.x25519_public_key, "s", have))
    ws.receive(raw, addr, ident.x25519_public_key, now, proven=proven)


def test_spoofed_places_do_not_keep_a_machine_from_watching():
    """HOLDS since H115 (a WATCH over a confirmed channel, ``proven``, from an IP holding its 4
    places takes one never ``reached``; an unproven newcomer never takes any). Was BREAK #10
    (MED, degrade: a chosen machine cannot watch). H111's per-host cap
    (``WATCHERS_PER_HOST`` = 4, 'host_full' before any other check) counts every place of the
    IP, including places from spoofed sources that never answered the CHALLENGE. The attacker
    sends 4 WATCHes with source IP = the victim machine's (the classroom projector), 4 other
    ports, each over a channel its spoofed introduction opened, and renews them every 3 s
    (a renewal over the channel needs no round trip either). The seat is not full, so the stale
    rule (``_victim``) never runs. Cost: 4 introductions + 4 WATCH (~230 B) once, then 4 WATCH
    every ``WATCH_TTL_S`` - a few hundred bytes per second per seat; the same at every seat's
    watch socket. Effect: the victim's spectator is refused ('host_full') for as long as it
    goes on, at every seat, while every other machine watches; §N10 'WATCH' says
    "subscriptions renewed from spoofed addresses that never acknowledge cannot keep real
    spectators out" (true of the stale rule when the seat is full, not of the host cap).
    Suggested fix: count only
    places that were ``reached`` toward the host cap (or let a newcomer of a full host take the
    place of one of its unreached places older than a probe's round trip)."""
    ws = WatchServer(HOST_ID, GID)
    victim_ip = "10.0.0.50"
    spoofed = [(victim_ip, 40000 + i) for i in range(WATCHERS_PER_HOST)]
    spoof_keys = [Identity.from_seed(b"h114-spoof%d" % i) for i in range(WATCHERS_PER_HOST)]
    honest, honest_key = (victim_ip, 5000), Identity.from_seed(b"h114-projector")
    other, other_key = ("10.0.0.51", 5000), Identity.from_seed(b"h114-laptop")

    def settled(addr) -> bool:
        return addr not in spoofed  # a spoofed source never confirms its channel

    now, subscribed_at = 0.0, None
    while now < 60.0:
        for key, addr in zip(spoof_keys, spoofed):
            _watch(ws, key, addr, now)
        _watch(ws, honest_key, honest, now + 0.5, proven=settled(honest))
        _watch(ws, other_key, other, now + 0.5, proven=settled(other))
        ws.outgoing(RECORDS, now + 0.6, settled)
        if subscribed_at is None and honest in ws.subs:
            subscribed_at = now
        now += WATCH_RENEW_S
    assert other in ws.subs  # control: another machine watches
    assert len(ws.subs) < MAX_WATCHERS  # the seat is far from full
    assert subscribed_at is not None, (
        f"the projector was refused for 60 s ({ws.stats.get('host_full', 0)} host_full) by "
        f"{WATCHERS_PER_HOST} places from spoofed sources that never reached: {sorted(ws.subs)}")


def test_a_spoofed_subscription_cannot_put_lines_on_the_players_screens():
    """HOLDS since H115 (a spectator chats only from a ``reached`` place, ``unproven`` else; the
    places of one IP share one bucket, ``machine_flood``). Was BREAK #11 (MED, degrade: the
    players' chat; same effect as H107's #7, which its fix
    closed for one address only). ``ChatRelay.receive_spectator`` takes a line from any
    subscription (``WatchService.subscriber``), reached or not. A spoofed source subscribes
    with a fresh key (each place its own key, so its own 5-line bucket) and never answers the
    CHALLENGE: its place gets no records (H37), but its lines are shown and relayed to every
    seat and spectator. One laptop spoofing 4 IPs x 4 ports fills the seat's 16 places at once
    (then, when full, a newcomer takes a place silent for ``WATCH_SILENCE_S``: a fresh key every
    7 s per place). Cost: 16 introductions + 16 WATCH + 80 CHAT (~30 KB) per round. Effect here:
    69 lines within 0.1 s on the serving seat's screen (the 64 checks a second bound the rest),
    relayed to every seat and spectator, ~14 x what one spectator may say (§N9: 5, then
    one per 2 s, per author), and the key-change rule of #7 does not apply (each key has its own
    address; §N10 'One key per place' says "one machine speaks as at most 4 authors": with
    spoofed sources one machine is 16 per seat). Suggested fix: a spectator may chat only once
    its place is ``reached`` (its address proved), and charge a host's lines together (one
    bucket per source IP)."""
    players = [HOST_ID, Identity.from_seed(b"h114-seat1"), Identity.from_seed(b"h114-seat2")]
    setup = SimpleNamespace(game_id=GID, players=[SimpleNamespace(public_key=p.public_key, name=f"p{i}")
                                                  for i, p in enumerate(players)])
    ws = WatchServer(HOST_ID, GID)
    watch = SimpleNamespace(spectators=lambda: {s.pk: s.name for s in ws.subs.values()},
                            subscriber=lambda addr: ws.subs.get(addr), send_all=lambda raw, exclude=None: None)
    game = SimpleNamespace(lobby=None, session=SimpleNamespace(setup=setup), peers=[("10.0.0.2", 1)], watch=watch)
    shown: list = []
    relay = ChatRelay(HOST_ID, "p0", True, game, lambda addr, raw: None, shown.append)
    sources = [(f"10.0.0.{60 + h}", 40000 + p) for h in range(4) for p in range(WATCHERS_PER_HOST)]
    keys = [Identity.from_seed(b"h114-chat%d" % i) for i in range(len(sources))]
    seq = 0
    for key, addr in zip(keys, sources):
        _watch(ws, key, addr, 0.0)
    ws.outgoing(RECORDS, 0.1, lambda addr: False)  # the CHALLENGE goes out; nobody answers it
    assert not any(sub.reached for sub in ws.subs.values())
    for key, addr in zip(keys, sources):
        for _ in range(C.CHAT_BURST):
            seq += 1
            relay.receive_spectator(addr, seal_message(key, MSG_CHAT, Chat(GID, key.public_key, seq, "prof",
                                                                            f"spam {seq}")), 1.0 + seq / 1000)
    assert len(shown) <= C.CHAT_BURST, (
        f"{len(shown)} lines from {len(sources)} spoofed subscriptions that never proved their address")
