"""The spectators' chat reaches the table through whichever seat they follow (issue 11,
session 3 leftover; protocol.md §N9 "Who hears whom", §N10 "Any seat serves"): before, only the
host passed a spectator's line to the seats, so a spectator following another seat (after a
failover, or one it reached by itself) talked to that seat's other spectators alone."""

from __future__ import annotations

from types import SimpleNamespace

from p2p.chat import PLAYER, SPECTATOR, ChatLimited, ChatRelay, ChatRoom
from p2p.identity import Identity

GID = bytes(range(16))
KEYS = [Identity.from_seed(f"seat{i}".encode()) for i in range(3)]
NAMES = ("Anna", "Bruno", "Carla")
ADDRS = [("127.0.0.1", 4000 + i) for i in range(3)]
PROF = Identity.from_seed(b"prof")
PROF_ADDR = ("127.0.0.1", 5000)


class FakeWatch:
    """The WatchService a ChatRelay reads: our subscribed spectators and what we send them."""

    def __init__(self, subscribers: dict) -> None:
        self.subscribers = subscribers  # addr -> (pk, name)
        self.sent: list[tuple[bytes, object]] = []

    def spectators(self) -> dict:
        return {pk: name for pk, name in self.subscribers.values()}

    def subscriber(self, addr):
        sub = self.subscribers.get(addr)
        return None if sub is None else SimpleNamespace(pk=sub[0], reached=True)  # its address answered

    def send_all(self, raw: bytes, exclude=None) -> None:
        self.sent.append((raw, exclude))


def seat(i: int, subscribers: dict | None = None):
    """Seat ``i`` of a running 3-seat game (seat 0 opened the lobby): its relay, what it sent
    to which address, and the lines it showed."""
    players = [SimpleNamespace(public_key=k.public_key, name=n) for k, n in zip(KEYS, NAMES)]
    setup = SimpleNamespace(game_id=GID, players=players)
    game = SimpleNamespace(lobby=None, session=SimpleNamespace(setup=setup),
                           peers=[a for j, a in enumerate(ADDRS) if j != i], watch=FakeWatch(subscribers or {}))
    sent: list[tuple[tuple, bytes]] = []
    shown: list = []
    relay = ChatRelay(KEYS[i], NAMES[i], i == 0, game, lambda addr, raw: sent.append((addr, raw)), shown.append)
    return relay, sent, shown


def test_a_spectator_of_a_seat_other_than_the_host_reaches_every_seat():
    bruno, sent, shown = seat(1, {PROF_ADDR: (PROF.public_key, "Prof")})
    raw, _ = ChatRoom(PROF, GID, "Prof").say("forza Carla", 0.0)
    bruno.receive_spectator(PROF_ADDR, raw, 0.0)
    assert [(line.name, line.role, line.text) for line in shown] == [("Prof", SPECTATOR, "forza Carla")]
    assert sorted(addr for addr, _ in sent) == [ADDRS[0], ADDRS[2]]  # the host too, and Carla
    assert bruno.game.watch.sent == [(raw, PROF_ADDR)]  # Bruno's other spectators, not Prof again
    for i in (0, 2):  # the host and a joiner both show it, marked as a spectator's
        other, _, other_shown = seat(i)
        other.receive(ADDRS[1], raw, 0.0)
        assert [(line.name, line.role) for line in other_shown] == [("Prof", SPECTATOR)]
        assert other.game.watch.sent == [(raw, None)]  # and pass it on to their own spectators


def test_a_seats_own_line_through_another_seat_stays_a_players_and_shows_once():
    """A relayed line whose author is a seat keeps the setup's name and role; the same line
    again (resent, or relayed twice) is a replay."""
    carla, _, shown = seat(2)
    raw, _ = ChatRoom(KEYS[0], GID, "whoever").say("ciao", 0.0)
    carla.receive(ADDRS[1], raw, 0.0)
    carla.receive(ADDRS[0], raw, 0.0)
    assert [(line.name, line.role) for line in shown] == [("Anna", PLAYER)]
    assert carla.room.stats["replayed"] == 1


def test_a_line_on_the_watch_socket_from_a_non_subscriber_goes_nowhere():
    bruno, sent, shown = seat(1, {PROF_ADDR: (PROF.public_key, "Prof")})
    intruder = Identity.from_seed(b"intruder")
    raw, _ = ChatRoom(intruder, GID, "Prof").say("spam", 0.0)
    bruno.receive_spectator(("127.0.0.1", 5001), raw, 0.0)  # not subscribed
    bruno.receive_spectator(PROF_ADDR, raw, 0.0)  # subscribed address, another key
    assert shown == [] and sent == [] and bruno.game.watch.sent == []


def test_an_honest_spectators_lines_relayed_by_its_seat_all_show_and_the_seats_own_too():
    """§N9 check (6) ``relay_flood`` (H151): a line whose author is not a seat, over a seat's
    channel, also takes a token of that channel's bucket (5 lines, then one per 2 s). An honest
    spectator speaking at its own limit (a burst of 5, then a line every 2 s for a minute) passes
    it whole at every other seat, and the relaying seat's own lines are never charged to it."""
    clock = iter(range(1, 10**6))
    prof = ChatRoom(PROF, GID, "Prof", clock_ms=lambda: next(clock))
    bruno = ChatRoom(KEYS[1], GID, "Bruno", clock_ms=lambda: next(clock))
    anna, _, shown = seat(0)
    said = 0
    for t in [0.0] * 5 + [2.0 * k for k in range(1, 31)]:
        anna.receive(ADDRS[1], prof.say("linea %d" % said, t)[0], t)  # Bruno relays Prof's lines
        anna.receive(ADDRS[1], bruno.say("io %d" % said, t)[0], t)  # and says its own
        said += 1
    assert [line.text for line in shown if line.role == SPECTATOR] == ["linea %d" % k for k in range(said)]
    assert [line.text for line in shown if line.role == PLAYER] == ["io %d" % k for k in range(said)]
    assert "relay_flood" not in anna.room.stats


def test_two_spectators_of_one_seat_speak_as_one_author_at_the_other_seats():
    """What §N9 states does not hold: the spectators one seat serves share that seat's channel
    bucket at every other seat (they are indistinguishable from keys the seat minted), so two of
    them at once get 5 lines, then one per 2 s, in all there (counted ``relay_flood``)."""
    clocks = iter(range(1, 10**6))
    rooms = [ChatRoom(Identity.from_seed(b"h151-spec%d" % i), GID, "s%d" % i, clock_ms=lambda: next(clocks))
             for i in range(2)]
    anna, _, shown = seat(0)
    for t in [0.0] * 5 + [2.0 * k for k in range(1, 6)]:
        for room in rooms:
            anna.receive(ADDRS[1], room.say("ciao", t)[0], t)
    assert len(shown) == 5 + 5
    assert anna.room.stats["relay_flood"] == 10


def test_keys_a_seat_subscribed_as_our_spectators_still_share_its_channel_bucket():
    """§N9 (6) ``relay_flood`` (RV13-B #4): a seat that subscribes keys it minted as spectators at
    our seat (members here, as spectators) and sends their lines over its own channel still speaks
    as one author: at most ``CHAT_BURST`` lines, then one per ``CHAT_REFILL_S``, in 10 s."""
    from p2p import const as C
    from test_redteam_lan_session import GID, _chat_seat

    seat1 = ("127.0.0.61", 41001)
    keys = [Identity.from_seed(b"rv13b-%d" % i) for i in range(4)]
    relay, _, shown = _chat_seat({("127.0.0.61", 50000 + i): k.public_key for i, k in enumerate(keys)}, [seat1])
    rooms = [ChatRoom(k, GID, "s", clock_ms=(lambda c=iter(range(1, 10**6)): next(c))) for k in keys]
    now = 0.0
    for _ in range(500):  # 10 s, each key trying 50 lines a second
        for r in rooms:
            try:
                raw, _ = r.say("spam", now)
            except ChatLimited:  # its own room's rate: the next try
                continue
            relay.receive(seat1, raw, now)
        now += 1 / 50
    assert len(shown) <= C.CHAT_BURST + 10 / C.CHAT_REFILL_S + 1
    assert relay.room.stats["relay_flood"] > 0
