"""A spectator's place counts for a machine, and speaks, only once its address is proved
(protocol.md §N10 'Places per machine', §N9 'What holds'; red team s11 round 2, H114 #10, #11).

A WATCH may come from a spoofed source address: its place is never ``reached`` (the seat's
CHALLENGE goes to the address it names and nobody there answers). Such places gave way to
nothing at the per-IP cap (``WATCHERS_PER_HOST``), so four of them kept that machine from
watching, and they could chat. Now a newcomer whose WATCH came over a confirmed channel
(``proven``: its address answered the seat's CHALLENGE) takes, when its IP holds its 4 places,
one that never proved its address; an unproven place cannot chat (``unproven``); and all the
spectators of one IP share one chat bucket (``machine_flood``). Sans-I/O, virtual clock:
``settled(addr)`` is True for honest addresses (they acknowledge) and False for spoofed ones
(they never confirm their channel)."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p.chat import ChatRelay
from p2p.identity import Identity
from p2p.spectate import WATCH_RENEW_S, WATCHERS_PER_HOST, WatchServer
from p2p.wire import MSG_CHAT, MSG_WATCH, Chat, Watch, seal_message

SEAT = Identity.from_seed(b"proof-seat")
GID = bytes(range(16))
RECORDS = [(0, bytes(300))] + [(1, bytes(100)) for _ in range(5)]
KEYS = [Identity.from_seed(b"proof%d" % i) for i in range(40)]
#: One signed WATCH per key (have = 0), reused: a renewal is the same bytes.
WATCHES = [seal_message(k, MSG_WATCH, Watch(GID, k.public_key, k.x25519_public_key, "s", 0)) for k in KEYS]


def _watch(server: WatchServer, i: int, addr, now: float, proven: bool = False) -> None:
    server.receive(WATCHES[i], addr, KEYS[i].x25519_public_key, now, proven=proven)


def test_a_proven_newcomer_takes_an_unproven_place_of_its_machine():
    """§N10 'Places per machine': 4 spoofed places at the projector's IP. Its first WATCH, over a
    fresh channel, is refused (``host_full``), and so is every spoofed newcomer's; its renewal,
    once its channel is confirmed, takes the spoofed place settled least recently; spoofed
    newcomers then never take the projector's, neither while it is being proved nor after, and
    a second view of the projector takes another spoofed one."""
    server = WatchServer(SEAT, GID)
    ip = "10.0.0.50"
    spoofed = [(ip, 40000 + p) for p in range(WATCHERS_PER_HOST)]
    projector, second = (ip, 5000), (ip, 5001)

    def settled(addr) -> bool:
        return addr in (projector, second)

    for i, addr in enumerate(spoofed):
        _watch(server, i, addr, 0.1 * i)
    server.outgoing(RECORDS, 0.5, settled)
    _watch(server, 10, projector, 1.0)  # a fresh channel: not confirmed yet
    _watch(server, 11, (ip, 40100), 2.0)  # spoofed: never confirmed
    assert projector not in server.subs and server.stats["host_full"] == 2
    _watch(server, 10, projector, 1.0 + WATCH_RENEW_S, proven=True)
    assert projector in server.subs and spoofed[0] not in server.subs and server.stats["evicted"] == 1
    assert not server.subs[projector].reached
    for n in range(3):  # while it is being proved, and after
        _watch(server, 12 + n, (ip, 40200 + n), 1.1 + WATCH_RENEW_S + n)
        server.outgoing(RECORDS, 1.1 + WATCH_RENEW_S + n, settled)
    assert server.subs[projector].reached and server.stats["host_full"] == 5
    _watch(server, 20, second, 5.0 + WATCH_RENEW_S, proven=True)
    assert projector in server.subs and second in server.subs and spoofed[1] not in server.subs


def test_when_full_a_spoofed_place_at_a_machines_ip_goes_before_its_view():
    """§N10 'Places per machine' (H115): the seat is full, no place silent for WATCH_SILENCE_S;
    the machine's IP holds its one view and one spoofed place (fresh: subscribed after the
    seat's last sending), so it is the IP holding the most (2, ties: the greatest). A spoofed
    newcomer from a third IP takes a place of that IP: the spoofed one, not the machine's view
    (before: the one settled least recently, i.e. the view)."""
    server = WatchServer(SEAT, GID)
    view, spoof = ("10.0.9.99", 5000), ("10.0.9.99", 40000)
    others = [(f"10.0.9.{10 + h}", 5000 + p) for h in range(7) for p in range(2)]
    for i, addr in enumerate(others + [view]):
        _watch(server, i, addr, 0.0)
    for t in (0.5, 1.0):
        server.outgoing(RECORDS, t, lambda addr: True)
    assert server.subs[view].reached
    _watch(server, 20, spoof, 1.2)
    _watch(server, 21, ("10.0.8.1", 40000), 1.3)
    assert view in server.subs and spoof not in server.subs and ("10.0.8.1", 40000) in server.subs


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 40.0), st.integers(0, 2), st.integers(0, 7)), max_size=30),
       st.lists(st.tuples(st.integers(0, 1), st.floats(0.0, 15.0)), min_size=1, max_size=2 * WATCHERS_PER_HOST),
       st.tuples(st.integers(0, WATCHERS_PER_HOST), st.integers(0, WATCHERS_PER_HOST)))
def test_spoofed_places_keep_no_view_out_past_its_first_renewal(spoofs, views, ahead):
    """Property (§N10 'Places per machine', H114 s11b #10): two machines open views (``views``:
    machine, start; at most WATCHERS_PER_HOST each, renewing every WATCH_RENEW_S; the first
    WATCH of each over a fresh channel, the later ones over its confirmed channel) while spoofed
    WATCHes come from their IPs (``ahead``: how many at once, just before each machine's first
    view) and from a third IP (``spoofs``: any times and ports), each renewed every
    WATCH_RENEW_S for ever (the seat is never full); the seat sends every 0.5 s. Every view
    holds a place from its first renewal (WATCH_RENEW_S after it first asks) until the end
    (60 s), and no IP holds more than WATCHERS_PER_HOST."""
    server = WatchServer(SEAT, GID)
    ips = ["10.0.6.1", "10.0.6.2", "10.0.6.3"]
    views = [(m, t) for n, (m, t) in enumerate(views) if sum(1 for x, _ in views[:n] if x == m) < WATCHERS_PER_HOST]
    honest = [(ips[m], 5000 + n) for n, (m, _) in enumerate(views)]
    first = {m: min(t for x, t in views if x == m) for m, _ in views}
    events = sorted(spoofs) + [(first[m], m, 8 + p) for m in first for p in range(ahead[m])]
    alive: dict = {}  # spoofed address -> its key index
    due = [(t, ("view", n)) for n, (_, t) in enumerate(views)]
    due += [(t, ("spoof", (ips[ip], 40000 + port))) for t, ip, port in events]
    asked: dict = {}  # view -> when it first asked (the first tick at or after its start)
    t, k = 0.0, 0
    while t < 60.0:
        due.sort(key=lambda e: (e[0], e[1][0] == "view"))  # at the same time, spoofs first
        while due and due[0][0] <= t:
            _, (kind, who) = due.pop(0)
            if kind == "view":
                _watch(server, 30 + who, honest[who], t, proven=who in asked)
                asked.setdefault(who, t)
            else:
                if who not in alive:
                    alive[who], k = k % 30, k + 1
                _watch(server, alive[who], who, t)
            due.append((t + WATCH_RENEW_S, (kind, who)))
        server.outgoing(RECORDS, t, lambda addr: addr in honest)
        for n, at in asked.items():  # the loop's ticks are 0.5 s: a view asks at the first one >= its start
            if t >= at + WATCH_RENEW_S:
                assert honest[n] in server.subs and server.subs[honest[n]].pk == KEYS[30 + n].public_key, (t, n)
        per_ip: dict = {}
        for a in server.subs:
            per_ip[a[0]] = per_ip.get(a[0], 0) + 1
        assert max(per_ip.values(), default=0) <= WATCHERS_PER_HOST
        t = round(t + 0.5, 6)


class _Watch:
    """What a ChatRelay reads of ``WatchService``, over a real ``WatchServer`` (as Node wires it)."""

    def __init__(self) -> None:
        self.server = WatchServer(SEAT, GID)

    def spectators(self) -> dict:
        return {sub.pk: sub.name for sub in self.server.subs.values()}

    def subscriber(self, addr):
        return self.server.subs.get(addr)

    def send_all(self, raw: bytes, exclude=None) -> None:
        return None


def _serving_seat():
    """The serving seat's WatchServer and ChatRelay (a 2-seat game); the lines it shows."""
    seats = [SimpleNamespace(public_key=k.public_key, name=n) for k, n in ((SEAT, "Anna"), (KEYS[39], "Bruno"))]
    watch = _Watch()
    game = SimpleNamespace(lobby=None, session=SimpleNamespace(setup=SimpleNamespace(game_id=GID, players=seats)),
                           peers=[("10.0.0.2", 1)], watch=watch)
    shown: list = []
    return watch.server, ChatRelay(SEAT, "Anna", True, game, lambda addr, raw: None, shown.append), shown


def _line(i: int, seq: int) -> bytes:
    return seal_message(KEYS[i], MSG_CHAT, Chat(GID, KEYS[i].public_key, seq, "prof", f"line {seq}"))


def test_a_spectator_speaks_only_once_its_address_is_proved():
    """§N9 'What holds' (H114 s11b #11): a line from a place not ``reached`` is dropped
    (``unproven``), shown once the seat's probe was acknowledged."""
    server, relay, shown = _serving_seat()
    at = ("10.0.0.70", 6000)
    _watch(server, 0, at, 0.0)
    relay.receive_spectator(at, _line(0, 1), 0.1)
    assert shown == [] and relay.room.stats["unproven"] == 1
    for t in (0.5, 1.0):  # the probe, then its acknowledgement
        server.outgoing(RECORDS, t, lambda addr: True)
    relay.receive_spectator(at, _line(0, 2), 1.1)
    assert [line.text for line in shown] == ["line 2"]


def test_the_spectators_of_one_machine_share_one_authors_lines():
    """§N9 'What holds', §N10 'One key per place': 4 proved places at one IP, each its own key,
    5 lines each at once: 5 shown (one author's burst, ``machine_flood`` for the rest), then one
    per CHAT_REFILL_S for them all; a spectator on another machine still speaks."""
    server, relay, shown = _serving_seat()
    mine = [("10.0.0.80", 6000 + p) for p in range(WATCHERS_PER_HOST)]
    other = ("10.0.0.81", 6000)
    for i, addr in enumerate(mine + [other]):
        _watch(server, i, addr, 0.0)
    server.outgoing(RECORDS, 0.0)  # no transport to ask: every address counts as proved
    seq = 0
    for i, addr in enumerate(mine):
        for _ in range(C.CHAT_BURST):
            seq += 1
            relay.receive_spectator(addr, _line(i, seq), 1.0)
    assert len(shown) == C.CHAT_BURST and relay.room.stats["machine_flood"] == (WATCHERS_PER_HOST - 1) * C.CHAT_BURST
    relay.receive_spectator(other, _line(4, seq + 1), 1.0)
    assert shown[-1].text == f"line {seq + 1}"
    seconds, t, spoken = 20.0, 1.0, 0
    while t < 1.0 + seconds:  # every place tries a line every 0.5 s
        t += 0.5
        for i, addr in enumerate(mine):
            seq += 1
            before = len(shown)
            relay.receive_spectator(addr, _line(i, seq), t)
            spoken += len(shown) - before
        for i, addr in enumerate(mine):
            _watch(server, i, addr, t)  # renewals keep the places
    assert seconds / C.CHAT_REFILL_S - 1 <= spoken <= seconds / C.CHAT_REFILL_S + 1, spoken
