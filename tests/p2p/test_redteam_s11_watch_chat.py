"""Red team session 11 (H107): a spectator's chat (protocol.md §N9 "What holds", §N10).

Sans-I/O: the seat's real ``WatchServer`` (subscriptions) and ``ChatRelay``/``ChatRoom`` (the
checks of §N9), wired as ``Node`` wires them (``WatchService.subscriber``/``spectators``/
``send_all``, ``NodePlayer.on_watch_chat`` -> ``ChatRelay.receive_spectator``), on a virtual
clock; the other seats get what the relay sends them.
"""

from __future__ import annotations

from types import SimpleNamespace

from p2p import const as C
from p2p.chat import ChatRelay
from p2p.identity import Identity
from p2p.spectate import WatchServer
from p2p.wire import MSG_CHAT, MSG_WATCH, Chat, Watch, seal_message

from redteam_lan_kit import GID, HOST_ID

SPECTATOR_AT = ("10.0.0.66", 6000)
SECONDS = 10.0


def test_one_spectator_cannot_flood_every_players_chat_by_changing_its_key():
    """BREAK (MED, degrade: the players' chat; the game is not touched). Anyone on the LAN
    subscribes to a seat's watch socket (§N10). A WATCH with another ``pk`` from the same
    address and the same ``xk`` (so the same keyed channel: no new introduction) replaces the
    subscription (one signature check of the seat's 32 a second); the spectator's lines must
    name the key of its WATCH, and that key's bucket is new: 5 lines at once. Every 0.1 s the
    attacker sends one such WATCH and 5 lines: the seat shows them and relays each to every
    other seat, whose per-source budget (16 checks a second for the relaying seat's channel)
    is all that bounds them. Cost: ~1.3 KB per rotation, 13 KB/s. Effect: ~16 lines a second on
    every player's screen (and every spectator's) for as long as it goes on, where §N9 promises
    5, then one per 2 s, per author: an honest spectator gets 5 + 10/2 = 10 lines in 10 s.
    Suggested fix: charge a spectator's lines to its subscription (address) rather than to its
    key (a new key at an address keeps the address's bucket), or limit key changes per address."""
    players = [HOST_ID, Identity.from_seed(b"h107-seat1"), Identity.from_seed(b"h107-seat2")]
    setup = SimpleNamespace(game_id=GID, players=[SimpleNamespace(public_key=p.public_key, name=f"p{i}")
                                                  for i, p in enumerate(players)])
    ws = WatchServer(HOST_ID, GID)
    sent_to_seats: list = []
    watch = SimpleNamespace(spectators=lambda: {s.pk: s.name for s in ws.subs.values()},
                            subscriber=lambda addr: ws.subs.get(addr), send_all=lambda raw, exclude=None: None)
    game = SimpleNamespace(lobby=None, session=SimpleNamespace(setup=setup), peers=[("10.0.0.2", 1), ("10.0.0.3", 1)],
                           watch=watch)
    shown: list = []
    relay = ChatRelay(HOST_ID, "p0", True, game, lambda addr, raw: sent_to_seats.append((addr, raw)), shown.append)
    # Another seat's chat room: the lines the serving seat relays reach it over that seat's channel.
    other = ChatRelay(players[1], "p1", False, SimpleNamespace(lobby=None, session=SimpleNamespace(setup=setup),
                                                               peers=[("10.0.0.1", 1), ("10.0.0.3", 1)],
                                                               watch=SimpleNamespace(
                                                                   spectators=dict, send_all=lambda *a, **k: None)),
                      lambda *a: None)
    shown_there: list = []
    other.observer = shown_there.append
    channel_xk = Identity.from_seed(b"h107-channel").x25519_public_key  # the one keyed channel it uses
    now, rotation, seq = 0.0, 0, 0
    while now < SECONDS:
        key = Identity.from_seed(b"h107-rot%d" % rotation)
        rotation += 1
        ws.receive(seal_message(key, MSG_WATCH, Watch(GID, key.public_key, channel_xk, "prof", 0)), SPECTATOR_AT,
                   channel_xk, now)
        ws.outgoing([], now)  # its own address: it answers (reached), so it may chat (H115)
        for _ in range(C.CHAT_BURST):
            seq += 1
            line = seal_message(key, MSG_CHAT, Chat(GID, key.public_key, seq, "prof", f"spam {seq}"))
            relay.receive_spectator(SPECTATOR_AT, line, now)
        for addr, raw in sent_to_seats:
            if addr == ("10.0.0.2", 1):
                other.receive(("10.0.0.1", 1), raw, now)  # from the serving seat's channel
        sent_to_seats.clear()
        now += 0.1
    honest = C.CHAT_BURST + SECONDS / C.CHAT_REFILL_S  # one spectator, one key: 10 lines in 10 s
    assert len(shown) <= 2 * honest and len(shown_there) <= 2 * honest, (
        f"one spectator put {len(shown)} lines on the serving seat's screen and {len(shown_there)} on another "
        f"seat's in {SECONDS:.0f} s ({rotation} keys)")
