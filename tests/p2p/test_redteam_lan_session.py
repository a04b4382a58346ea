"""Red team, the hostile laptop on the LAN (issue 10, H37): messages of a running game — chat,
re-seat, turn skip (protocol.md §N9, §C8.9, §C8.10).

A replayed or re-spoofed chat line is shown once, forged chat lines from one source do not silence
the players (the verification budget), nobody can re-seat a seat that is not theirs, and skip votes
of another step or seat do not certify a skip. Shared addresses and keys: tests/p2p/redteam_lan_kit.py.
"""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from p2p import const as C
from p2p.chat import ChatRelay, ChatRoom
from p2p.identity import Identity
from p2p.reseat import open_request, request_for
from p2p.turn_skip import TurnSkip, check_skip_payload, skip_record
from p2p.wire import MSG_CHAT, Chat, Player, Setup, seal_message

from redteam_lan_kit import GID, HOST_ID, MALLORY


def test_a_replayed_or_respoofed_chat_line_is_shown_once():
    """Holds: a chat line replayed (from any source, relayed or not) is shown once; a line
    naming a member but signed by another key is dropped."""
    alice = Identity.from_seed(b"h37-alice")
    members = {alice.public_key: ("alice", "player"), MALLORY.public_key: ("m", "player")}
    speaker = ChatRoom(alice, GID, "alice", clock_ms=lambda: 1000)
    listener = ChatRoom(HOST_ID, GID, "host", clock_ms=lambda: 1000)
    listener.set_members(members)
    raw, _ = speaker.say("ciao", 0.0)
    assert listener.receive(raw, 0.0) is not None
    assert all(listener.receive(raw, 0.1 * i, relayed=bool(i % 2)) is None for i in range(1, 20))
    assert listener.stats["replayed"] == 19 and listener.stats["shown"] == 1
    forged = bytearray(raw)
    forged[-1] ^= 1  # the signature no longer holds
    assert listener.receive(bytes(forged), 5.0) is None


def _setup(n: int) -> tuple[Setup, list[Identity]]:
    ids = [Identity.from_seed(b"h37-seat%d" % i) for i in range(n)]
    players = tuple(sorted((Player(i.public_key, i.x25519_public_key, f"p{k}", bytes(32), bytes(32), False,
                                   (f"10.0.0.{k + 1}", 5000)) for k, i in enumerate(ids)), key=lambda p: p.public_key))
    ids = sorted(ids, key=lambda i: i.public_key)
    return Setup(C.PROTOCOL_VERSION, GID, "classico", n, 64, (), players), ids


def test_nobody_can_reseat_a_seat_that_is_not_theirs():
    """Holds: a RESEAT for seat 1 signed by any key but seat 1's (another seat's, a stranger's)
    is refused by ``open_request``; the real one is taken."""
    setup, ids = _setup(3)
    assert open_request(request_for(ids[1], setup, 1, 5, b"s" * 32), setup) is not None
    for who in (ids[0], ids[2], MALLORY):
        assert open_request(request_for(who, setup, 1, 5, b"s" * 32), setup) is None


def test_skip_votes_of_another_step_or_seat_do_not_certify_a_skip():
    """Holds: Q valid SKIP votes replayed into a record of another step, or for another seat,
    are refused by ``check_skip_payload`` (what a peer applies and what verify checks)."""
    ids = [Identity.from_seed(bytes([40 + i]) * 32) for i in range(4)]
    keys = [i.public_key for i in ids]
    votes = [TurnSkip(GID, keys, i, ids[i]).vote(5, 3, 0) for i in range(3)]
    assert check_skip_payload(GID, keys, [True] * 4, 0, 5, skip_record(5, 3, votes))[0] == 3
    for step, seat in ((6, 3), (4, 3), (5, 2)):
        with pytest.raises(ValueError):
            check_skip_payload(GID, keys, [True] * 4, 0, step, skip_record(step, seat, votes))


def _chat_seat(subscribers, peers):
    """Seat 0's ChatRelay of a running 3-seat game (the setup's players are members; our
    spectators ``{addr: pk}``) and the lines it showed."""
    setup, ids = _setup(3)
    watch = SimpleNamespace(spectators=lambda: {pk: "spett" for pk in subscribers.values()},
                            subscriber=lambda a: None if a not in subscribers
                            else SimpleNamespace(pk=subscribers[a], reached=True),  # its address answered
                            send_all=lambda raw, exclude=None: None)
    game = SimpleNamespace(lobby=None, session=SimpleNamespace(setup=setup), peers=peers, watch=watch)
    shown: list = []
    relay = ChatRelay(ids[0], "p0", True, game, lambda addr, raw: None, shown.append)
    return relay, ids, shown


def _garbage_line(signer: Identity, pk: bytes, seq: int) -> bytes:
    """A CHAT naming ``pk`` but signed by ``signer``: its signature check fails."""
    return seal_message(signer, MSG_CHAT, Chat(GID, pk, seq, "x", "spam"))


@pytest.mark.parametrize("source", ["spectator", "seat"])
def test_forged_chat_lines_from_one_source_do_not_silence_the_players(source):
    """Fixed (H37): the 64 chat signature checks a second were shared by every source and a
    forged line spends one without costing its sender anything, so ANY spectator on the LAN
    (subscribed to a seat's watch socket) sending 300 lines a second naming a player, or a
    seat relaying lines of fresh keys, made every real line 'busy' (dropped, not delayed):
    the chat of the whole table silenced. Now a spectator may only name its WATCH key and is
    charged before the check, and each source has its own CHAT_SOURCE_VERIFY_RATE share."""
    spec, spec_addr, seat1_addr, seat2_addr = Identity.from_seed(b"h37-spec"), ("127.0.0.50", 7000), \
        ("127.0.0.61", 41001), ("127.0.0.62", 41002)
    relay, ids, shown = _chat_seat({spec_addr: spec.public_key}, [seat1_addr, seat2_addr])
    now = 0.0
    for i in range(300):  # 3 s of forgeries at 300 a second
        for j in range(3):
            if source == "spectator":
                forged = _garbage_line(MALLORY, ids[1].public_key if j % 2 else spec.public_key, 1000 + 3 * i + j)
                relay.receive_spectator(spec_addr, forged, now)
            else:
                relay.receive(seat1_addr, _garbage_line(ids[1], os.urandom(32), 1000 + i), now)
        if i % 100 == 50:  # the other player speaks, each second, amid the flood
            relay.receive(seat2_addr, ChatRoom(ids[2], GID, "p2", clock_ms=lambda i=i: 5000 + i).say("ciao", now)[0], now)
        now += 0.01
    assert [line.text for line in shown] == ["ciao"] * 3
    # and the forgeries cost at most the source's share of signature checks (burst + 3 s)
    assert relay.room.stats.get("bad_signature", 0) <= 4 * C.CHAT_SOURCE_VERIFY_RATE
