"""A seat's spectator places and answers against one hostile machine (protocol.md §N10 "WATCH",
"RECORDS"; red team session 11, H107 #1, #2, #7): renewals answered at most once per
``WATCH_ANSWER_S`` and each empty RECORDS signed once per place; at most ``WATCHERS_PER_HOST``
places per source IP and, when full, places go round the hosts; a place keeps its key until it
lapses; a WATCH name is kept cleaned. Sans-I/O, virtual clock."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.identity import Identity
from p2p.spectate import (MAX_WATCHERS, WATCH_ANSWER_S, WATCH_RENEW_S, WATCH_TTL_S, WATCHERS_PER_HOST,
                          WatchClient, WatchServer)
from p2p.wire import MSG_WATCH, Watch, seal_message

SEAT = Identity.from_seed(b"seat")
GID = bytes(range(16))
RECORDS = [(0, bytes(300))] + [(1, bytes(100)) for _ in range(20)]
KEYS = [Identity.from_seed(b"places%d" % i) for i in range(64)]


def _acks(_addr) -> bool:
    return True  # these spectators acknowledge what they are sent


def _watch(server: WatchServer, ident: Identity, addr, now: float, have: int = 0, name: str = "s") -> None:
    msg = Watch(GID, ident.public_key, ident.x25519_public_key, name, have)
    server.receive(seal_message(ident, MSG_WATCH, msg), addr, ident.x25519_public_key, now)


def test_renewals_are_answered_at_most_once_a_second_with_one_signature_per_place():
    """§N10 'RECORDS': an honest spectator renews every WATCH_RENEW_S and each renewal is answered
    at the seat's next sending; renewals 10 times a second get one answer per WATCH_ANSWER_S, and
    the empty RECORDS of a place is signed once, shared by the spectators there and over time."""
    server = WatchServer(SEAT, GID)
    a, b = ("10.0.0.1", 5000), ("10.0.0.2", 5000)
    for ident, addr in ((KEYS[0], a), (KEYS[1], b)):
        _watch(server, ident, addr, 0.0)
    client = {a: WatchClient(KEYS[0], GID, SEAT.public_key, "s"), b: WatchClient(KEYS[1], GID, SEAT.public_key, "s")}
    now = 0.0
    while any(len(c.records) < len(RECORDS) for c in client.values()):
        for addr, raw in server.outgoing(RECORDS, now, _acks):
            client[addr].receive(raw)
        now += 0.5
    signed, alive = server.stats["signed"], server.stats["alive"]
    answers = []
    for i in range(100):  # 10 s of renewals every 0.1 s from both
        t = now + i / 10
        for ident, addr in ((KEYS[0], a), (KEYS[1], b)):
            _watch(server, ident, addr, t, have=len(RECORDS))
        answers += server.outgoing(RECORDS, t, _acks)
    assert server.stats["renewed"] >= 200
    assert 2 * 9 <= len(answers) <= 2 * (10 / WATCH_ANSWER_S + 1), len(answers)
    assert server.stats["signed"] - signed <= 1  # one empty RECORDS at index len(RECORDS), shared
    assert server.stats["alive"] - alive == len(answers)
    # The last renewals' answers wait for a later sending; then an honest renewal, WATCH_RENEW_S
    # later, is answered at the next sending.
    assert len(server.outgoing(RECORDS, now + 10 + WATCH_ANSWER_S, _acks)) == 2
    t = now + 10 + WATCH_ANSWER_S + WATCH_RENEW_S
    _watch(server, KEYS[0], a, t, have=len(RECORDS))
    assert [addr for addr, _ in server.outgoing(RECORDS, t, _acks)] == [a]


def test_one_host_holds_at_most_watchers_per_host_places_until_one_lapses():
    """§N10 'WATCH': a fifth place from one IP is dropped (``host_full``, before any signature
    check); other machines still subscribe; a place that lapses is free again."""
    server = WatchServer(SEAT, GID)
    for port in range(WATCHERS_PER_HOST + 3):
        _watch(server, KEYS[port], ("10.0.0.66", 6000 + port), 0.0)
    assert len(server.subs) == WATCHERS_PER_HOST and server.stats["host_full"] == 3
    _watch(server, KEYS[20], ("10.0.0.77", 5000), 1.0)
    assert ("10.0.0.77", 5000) in server.subs
    _watch(server, KEYS[21], ("10.0.0.66", 7000), WATCH_TTL_S + 0.5)  # the first places lapsed
    assert ("10.0.0.66", 7000) in server.subs and server.stats["expired"] >= WATCHERS_PER_HOST


def test_when_full_a_newcomer_takes_a_place_of_the_host_holding_the_most():
    """§N10 'WATCH': 4 machines x 4 places fill the seat; a spectator on a fifth machine evicts
    the least recently settled place of a host holding 4 (>= its 0 + 2); that host's next
    newcomer (3 places) finds none holding 5 and is dropped ``full``."""
    server = WatchServer(SEAT, GID)
    k = 0
    for h in range(MAX_WATCHERS // WATCHERS_PER_HOST):
        for p in range(WATCHERS_PER_HOST):
            _watch(server, KEYS[k], (f"10.0.1.{h}", 6000 + p), 0.1 * k)
            k += 1
    assert len(server.subs) == MAX_WATCHERS
    server.outgoing(RECORDS, 2.0, _acks)  # all acknowledge: none is stale
    _watch(server, KEYS[40], ("10.0.2.1", 5000), 3.0)
    assert ("10.0.2.1", 5000) in server.subs and server.stats["evicted"] == 1
    assert len(server.subs) == MAX_WATCHERS
    loser = next(f"10.0.1.{h}" for h in range(4) if sum(a[0] == f"10.0.1.{h}" for a in server.subs) == 3)
    _watch(server, KEYS[41], (loser, 6100), 3.5)
    assert (loser, 6100) not in server.subs and server.stats["full"] == 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 19), min_size=1, max_size=60))
def test_places_are_bounded_per_host_and_a_lone_machine_gets_in_while_a_host_holds_two(hosts):
    """Property (§N10 'WATCH', H107 s11 #2): for any order of newcomers (one new port each, all
    acknowledging), the seat holds at most MAX_WATCHERS places, at most WATCHERS_PER_HOST per
    IP, and a newcomer from an IP that holds no place is refused only when no IP holds two."""
    server = WatchServer(SEAT, GID)
    for i, h in enumerate(hosts):
        host = f"10.0.3.{h}"
        count = {}
        for a in server.subs:
            count[a[0]] = count.get(a[0], 0) + 1
        lone = host not in count
        _watch(server, KEYS[i], (host, 6000 + i), 0.01 * i)
        server.outgoing(RECORDS, 0.01 * i, _acks)
        after = {}
        for a in server.subs:
            after[a[0]] = after.get(a[0], 0) + 1
        assert len(server.subs) <= MAX_WATCHERS and max(after.values()) <= WATCHERS_PER_HOST
        if lone and (host, 6000 + i) not in server.subs:
            assert max(count.values()) <= 1


def test_a_live_place_keeps_its_key_until_it_lapses():
    """§N10 'WATCH' (H107 s11 #7): a WATCH naming another key from an address with a live
    subscription is dropped (``key_change``), so the lines a spectator may chat (its WATCH key's,
    §N9) cannot be renewed by changing keys; after the place lapses the new key subscribes."""
    server = WatchServer(SEAT, GID)
    at = ("10.0.0.66", 6000)
    _watch(server, KEYS[0], at, 0.0)
    _watch(server, KEYS[1], at, 0.1)
    assert server.subs[at].pk == KEYS[0].public_key and server.stats["key_change"] == 1
    _watch(server, KEYS[1], at, WATCH_TTL_S + 0.1)
    assert server.subs[at].pk == KEYS[1].public_key


def test_a_watch_name_is_kept_cleaned_and_ours_is_sent_clean():
    """§C2.1 'Names' via §N10: a WATCH name with line breaks or escapes is kept as
    ``chat.clean_name`` makes it; our own WatchClient cleans its name before it signs."""
    server = WatchServer(SEAT, GID)
    _watch(server, KEYS[0], ("10.0.0.66", 6000), 0.0, name="\n» Anna: I resign\x1b[2J")
    assert server.subs[("10.0.0.66", 6000)].name == "» Anna: I resign[2J"
    assert WatchClient(KEYS[1], GID, SEAT.public_key, " Prof\n").name == "Prof"
