"""Chat bounds of session 14 (H155; protocol.md §N9 "Checks on receipt", "What holds"):

* RV13-B #5: once the setup is proposed only a seat's address relays (strangers' plain channels
  still reach the host while the setup is signed); any other source's line of a key that is not a
  member is ``unknown_sender``.
* RV13-B #6: a line dropped ``busy`` spends no token of its channel's bucket (the budgets are
  looked at before any token is taken).
* §N9 'What does not' (H151's leftover): the lobby host relaying lines under keys it minted to a
  joiner speaks as one author there (the channel bucket), its own lines uncharged.
"""

from __future__ import annotations

from types import SimpleNamespace

from p2p import const as C
from p2p.chat import PLAYER, SPECTATOR, ChatRelay, ChatRoom
from p2p.identity import Identity

GID = bytes(range(16))
KEYS = [Identity.from_seed(b"h155-seat%d" % i) for i in range(6)]
ADDRS = [("127.0.0.1", 4000 + i) for i in range(6)]
ONE_AUTHOR_10S = C.CHAT_BURST + 10 / C.CHAT_REFILL_S  # 5 lines, then one per 2 s: 10 in 10 s


class _Watch:
    """The WatchService a ChatRelay reads: no spectators of our own."""

    def spectators(self) -> dict:
        return {}

    def send_all(self, raw: bytes, exclude=None) -> None:
        return None


def _players(n: int) -> list:
    return [SimpleNamespace(public_key=k.public_key, name="p%d" % i) for i, k in enumerate(KEYS[:n])]


def _relay(game, me: int = 0, host: bool = True):
    shown: list = []
    return ChatRelay(KEYS[me], "p%d" % me, host, game, lambda addr, raw: None, shown.append), shown


def _minted(i: int, text: str = "spam") -> bytes:
    """One line signed by a key minted for it."""
    return ChatRoom(Identity.from_seed(b"h155-mint%d" % i), GID, "Prof").say(text, 0.0)[0]


def test_while_the_setup_is_signed_a_stranger_is_no_relaying_seat():
    """RV13-B #5 (§N9 "Who hears whom"): the host in the signing phase (setup proposed, no session)
    still takes plain channels from strangers; 20 stranger ports saying 5 lines each under fresh keys
    put 64 lines on its screen at once (every source counted as a relaying seat; the shared checks). Now only a
    seat's address relays: all 100 are ``unknown_sender``; a seat's spectator's line, relayed by
    that seat, still shows as a spectator's."""
    setup = SimpleNamespace(game_id=GID, players=_players(3))
    lobby = SimpleNamespace(setup=setup, endpoints=ADDRS[:3], my_seat=0, game_id=GID, host_address=None)
    relay, shown = _relay(SimpleNamespace(lobby=lobby, session=None, peers=[], watch=_Watch()))
    for port in range(20):
        for k in range(5):
            relay.receive(("127.0.0.1", 30000 + port), _minted(port * 5 + k), 0.0)
    assert shown == [] and relay.room.stats["unknown_sender"] == 100
    relay.receive(ADDRS[1], _minted(999, "forza"), 0.5)
    assert [(line.role, line.text) for line in shown] == [(SPECTATOR, "forza")]


def test_during_the_game_only_the_seats_channels_relay():
    """RV13-B #5, the game's side: a line of a non-member from an address that is not a seat's
    (``peers``) is ``unknown_sender``; a seat's own line from any address is a member's."""
    setup = SimpleNamespace(game_id=GID, players=_players(3))
    relay, shown = _relay(SimpleNamespace(lobby=None, session=SimpleNamespace(setup=setup), peers=ADDRS[1:3],
                                          watch=_Watch()))
    relay.receive(("127.0.0.1", 31000), _minted(1), 0.0)
    relay.receive(("127.0.0.1", 31000), ChatRoom(KEYS[2], GID, "x").say("ciao", 0.0)[0], 0.0)
    assert [(line.name, line.role) for line in shown] == [("p2", PLAYER)]
    assert relay.room.stats["unknown_sender"] == 1


def test_a_busy_spell_spends_no_token_of_an_honest_seats_channel():
    """RV13-B #6 (§N9 check (6)): four seats forging lines of a player's key use up the 64 checks
    of a second; the 5 lines of seat 1's honest spectator then arriving are dropped ``busy``. They
    used to take seat 1's channel tokens first, so a second spectator of seat 1 speaking a second
    later had all its 5 lines dropped ``relay_flood``; now all 5 show."""
    setup = SimpleNamespace(game_id=GID, players=_players(6))
    relay, shown = _relay(SimpleNamespace(lobby=None, session=SimpleNamespace(setup=setup), peers=ADDRS[1:],
                                          watch=_Watch()))
    seq = 10**6
    for src in ADDRS[2:6]:  # 4 x 16 forged lines naming seat 5: the source and shared budgets spent
        for _ in range(C.CHAT_SOURCE_VERIFY_RATE):
            seq += 1
            raw = _forged(KEYS[5], seq)
            relay.receive(src, raw, 0.0)
    assert relay.room.stats["bad_signature"] == 4 * C.CHAT_SOURCE_VERIFY_RATE == C.CHAT_VERIFY_RATE
    first = ChatRoom(Identity.from_seed(b"h155-spec-a"), GID, "Ada")
    for k in range(C.CHAT_BURST):
        relay.receive(ADDRS[1], first.say("a%d" % k, 0.0)[0], 0.0)
    assert shown == [] and relay.room.stats["busy"] == C.CHAT_BURST
    second = ChatRoom(Identity.from_seed(b"h155-spec-b"), GID, "Bea")
    for k in range(C.CHAT_BURST):
        relay.receive(ADDRS[1], second.say("b%d" % k, 1.0)[0], 1.0)
    assert [line.text for line in shown] == ["b%d" % k for k in range(C.CHAT_BURST)]
    assert "relay_flood" not in relay.room.stats


def _forged(key: Identity, seq: int) -> bytes:
    """A CHAT naming ``key`` with ``seq`` whose signature does not verify (last byte flipped)."""
    from p2p.wire import MSG_CHAT, Chat, seal_message

    raw = seal_message(key, MSG_CHAT, Chat(GID, key.public_key, seq, "x", "forged"))
    return raw[:-1] + bytes([raw[-1] ^ 1])


HOST = Identity.from_seed(b"h155-host")
HOST_ADDR = ("127.0.0.1", 5000)


def _joiner():
    """A joiner in the lobby (it knows only the host, who relays the other joiners' lines)."""
    lobby = SimpleNamespace(setup=None, game_id=GID, host_address=HOST_ADDR, members=lambda: [],
                            admission=SimpleNamespace(host_public_key=HOST.public_key))
    return _relay(SimpleNamespace(lobby=lobby, session=None, peers=[], watch=_Watch()), me=1, host=False)


def test_a_lobby_host_minting_keys_speaks_as_one_author_at_a_joiner():
    """§N9 'What holds' (H151's leftover in 'What does not'): a host relaying to a joiner a line
    per key it minted, 16 a second (its source's checks) for 10 s, put 160 lines on the joiner's
    screen; now they share the host channel's bucket: 5, then one per 2 s."""
    relay, shown = _joiner()
    for k in range(160):
        relay.receive(HOST_ADDR, _minted(k), k / 16)
    assert len(shown) <= ONE_AUTHOR_10S, len(shown)
    assert {line.role for line in shown} == {PLAYER}
    assert relay.room.stats["relay_flood"] >= 150


def test_the_hosts_own_lines_and_one_honest_joiners_pass_whole_at_a_joiner():
    """The channel bucket charges the other joiners' lines, never the host's own (``owner``): the
    host and one other joiner, each at its own limit (5, then one every 2 s) for a minute, show
    whole; a line of another key from another address is no relay (``unknown_sender``)."""
    relay, shown = _joiner()
    clock = iter(range(1, 10**6))
    host = ChatRoom(HOST, GID, "Host", clock_ms=lambda: next(clock))
    other = ChatRoom(Identity.from_seed(b"h155-joiner2"), GID, "Cleo", clock_ms=lambda: next(clock))
    said = 0
    for t in [0.0] * 5 + [2.0 * k for k in range(1, 31)]:
        relay.receive(HOST_ADDR, host.say("h%d" % said, t)[0], t)
        relay.receive(HOST_ADDR, other.say("c%d" % said, t)[0], t)
        said += 1
    assert [line.text for line in shown if line.name == "Host"] == ["h%d" % k for k in range(said)]
    assert [line.text for line in shown if line.name == "Cleo"] == ["c%d" % k for k in range(said)]
    assert "relay_flood" not in relay.room.stats
    relay.receive(("127.0.0.1", 5999), _minted(7), 70.0)
    assert relay.room.stats["unknown_sender"] == 1 and len(shown) == 2 * said


def test_two_other_joiners_share_the_hosts_channel_bucket_at_a_joiner():
    """What §N9 states does not hold: at a joiner the other joiners' lines, relayed by the host,
    share its channel bucket (they are indistinguishable from keys the host minted): two of them
    at once get 5 lines, then one per 2 s, in all (``relay_flood``)."""
    relay, shown = _joiner()
    clocks = iter(range(1, 10**6))
    rooms = [ChatRoom(Identity.from_seed(b"h155-j%d" % i), GID, "j%d" % i, clock_ms=lambda: next(clocks))
             for i in range(2)]
    for t in [0.0] * 5 + [2.0 * k for k in range(1, 6)]:
        for room in rooms:
            relay.receive(HOST_ADDR, room.say("ciao", t)[0], t)
    assert len(shown) == 5 + 5 and relay.room.stats["relay_flood"] == 10


def test_a_busy_spell_spends_no_token_of_a_spectators_machine():
    """RV13-B #6's twin on the watch socket (§N9 check (6)): a spectator's line there takes its
    key's and its machine's tokens before the signature check; they were taken before the
    budgets too, so a busy spell (four seats forging 64 checks' worth) that dropped one place's 5
    lines emptied its machine's bucket, and the machine's other place (a projector) speaking a
    second later had its 5 lines dropped ``machine_flood``. Now the tokens are taken with the
    budgets' ones: all 5 show."""
    from test_chat_relay import FakeWatch

    laptop, projector = ("10.0.0.9", 7000), ("10.0.0.9", 7001)
    ada, bea = Identity.from_seed(b"h155-laptop"), Identity.from_seed(b"h155-projector")
    setup = SimpleNamespace(game_id=GID, players=_players(6))
    watch = FakeWatch({laptop: (ada.public_key, "Ada"), projector: (bea.public_key, "Bea")})
    relay, shown = _relay(SimpleNamespace(lobby=None, session=SimpleNamespace(setup=setup), peers=ADDRS[1:],
                                          watch=watch))
    seq = 10**6
    for src in ADDRS[2:6]:
        for _ in range(C.CHAT_SOURCE_VERIFY_RATE):
            seq += 1
            relay.receive(src, _forged(KEYS[5], seq), 0.0)
    first = ChatRoom(ada, GID, "Ada")
    for k in range(C.CHAT_BURST):
        relay.receive_spectator(laptop, first.say("a%d" % k, 0.0)[0], 0.0)
    assert shown == [] and relay.room.stats["busy"] == C.CHAT_BURST
    second = ChatRoom(bea, GID, "Bea")
    for k in range(C.CHAT_BURST):
        relay.receive_spectator(projector, second.say("b%d" % k, 1.0)[0], 1.0)
    assert [line.text for line in shown] == ["b%d" % k for k in range(C.CHAT_BURST)]
    assert "machine_flood" not in relay.room.stats
