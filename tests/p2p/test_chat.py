"""Chat (protocol.md §N9, p2p/chat.py): signed lines from members, each check in its order,
floods dropped and counted, never shown twice."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from p2p import const as C
from p2p.chat import PLAYER, SPECTATOR, ChatLimited, ChatRoom, clean_text
from p2p.identity import Identity
from p2p.wire import MSG_CHAT, decode_chat, open_envelope, seal

import pytest

GID = bytes(range(16))
ANNA, BRUNO, EVE = (Identity.from_seed(s) for s in (b"anna", b"bruno", b"eve"))


def room(me=BRUNO, clock=None):
    r = ChatRoom(me, GID, "Bruno", clock_ms=clock or (lambda: 1000))
    r.set_members({ANNA.public_key: ("Anna", PLAYER), BRUNO.public_key: ("Bruno", PLAYER),
                   EVE.public_key: ("Eve", SPECTATOR)})
    return r


def line(who=ANNA, seq=1, text="ciao", name="Anna", gid=GID):
    return seal(who, MSG_CHAT, [gid, who.public_key, seq, name, text])


def test_a_members_line_is_shown_with_the_name_the_game_gives():
    r = room()
    got = r.receive(line(name="not Anna"), 0.0)
    assert (got.name, got.role, got.text, got.seq) == ("Anna", PLAYER, "ciao", 1)
    assert r.receive(line(EVE, 1, "hi", "Eve"), 0.0).role == SPECTATOR


def test_each_check_drops_and_counts():
    r = room()
    stranger = Identity.from_seed(b"x")
    assert r.receive(b"\x93junk", 0.0) is None
    assert r.receive(line(gid=bytes(16)), 0.0) is None
    assert r.receive(line(stranger), 0.0) is None
    forged = bytearray(line(seq=5))
    forged[-1] ^= 1
    assert r.receive(bytes(forged), 0.0) is None
    assert r.receive(line(seq=5), 0.0) is not None
    assert r.receive(line(seq=5), 0.0) is None and r.receive(line(seq=4), 0.0) is None
    assert r.receive(line(seq=6, text="\n\t\x07"), 0.0) is None
    assert r.receive(line(BRUNO, 9), 0.0) is None  # our own key, looped back
    assert {k: r.stats[k] for k in ("malformed", "wrong_game", "unknown_sender", "bad_signature", "replayed",
                                    "empty")} == {"malformed": 1, "wrong_game": 1, "unknown_sender": 2,
                                                  "bad_signature": 1, "replayed": 2, "empty": 1}
    assert r.stats["shown"] == 1


def test_a_flood_is_dropped_and_counted_and_others_still_speak():
    r = room()
    shown = [r.receive(line(seq=i, text=f"spam {i}"), 0.0) for i in range(1, 101)]
    assert sum(x is not None for x in shown) == C.CHAT_BURST
    assert r.stats["flood"] == 100 - C.CHAT_BURST
    assert r.receive(line(EVE, 1, "hello", "Eve"), 0.0) is not None  # the bucket is per author
    assert r.receive(line(seq=200), C.CHAT_REFILL_S) is not None  # refilled after CHAT_REFILL_S


def test_signature_checks_per_second_are_bounded():
    r = room()
    forged = [bytearray(line(seq=i)) for i in range(1, 200)]
    for f in forged:
        f[-1] ^= 1
    for f in forged:
        r.receive(bytes(f), 0.0)
    assert r.stats["bad_signature"] == C.CHAT_VERIFY_RATE and r.stats["busy"] == 199 - C.CHAT_VERIFY_RATE


def test_relayed_lines_from_unknown_authors_show_their_own_name():
    r = ChatRoom(BRUNO, GID, "Bruno")
    assert r.receive(line(name="Anna\x1b[31m"), 0.0, relayed=False) is None
    got = r.receive(line(name="Anna\x1b[31m"), 0.0, relayed=True)
    assert got.name == "Anna[31m" and got.role == PLAYER


def test_say_signs_a_line_the_others_accept_and_limits_us():
    clock = iter(range(5000, 6000))
    anna = ChatRoom(ANNA, GID, "Anna", clock_ms=lambda: next(clock))
    r = room()
    seqs = []
    for i in range(C.CHAT_BURST):
        raw, mine = anna.say(f" line {i}\n", 0.0)
        assert mine.text == f"line {i}"
        got = r.receive(raw, 0.0)
        assert got is not None and got.text == mine.text
        seqs.append(got.seq)
    assert seqs == sorted(set(seqs))
    with pytest.raises(ChatLimited):
        anna.say("one more", 0.0)
    with pytest.raises(ValueError):
        anna.say("x" * (C.MAX_CHAT_TEXT + 1), 100.0)
    with pytest.raises(ValueError):
        anna.say(" \n ", 100.0)


def test_seq_increases_even_when_the_clock_does_not():
    anna = ChatRoom(ANNA, GID, "Anna", clock_ms=lambda: 7)
    a = decode_chat(open_envelope(anna.say("a", 0.0)[0], C.MAX_STEP_MSG).body).seq
    b = decode_chat(open_envelope(anna.say("b", 0.0)[0], C.MAX_STEP_MSG).body).seq
    assert b == a + 1


@settings(max_examples=50)
@given(st.text(max_size=C.MAX_CHAT_TEXT))
def test_any_text_fits_one_datagram_and_shows_printable(text):
    """The largest line (200 characters of 4-byte UTF-8, a 32-character name) stays within
    MAX_STEP_MSG; what is shown has no control characters."""
    anna = ChatRoom(ANNA, GID, "Ŋ" * 32)
    if not clean_text(text):
        return
    raw, mine = anna.say(text, 0.0)
    assert len(raw) <= C.MAX_STEP_MSG
    assert all(ch.isprintable() for ch in mine.text)


def test_the_largest_line_fits():
    anna = ChatRoom(ANNA, GID, "\U0001F600" * 32)
    raw, _ = anna.say("\U0001F600" * C.MAX_CHAT_TEXT, 0.0)
    assert len(raw) <= C.MAX_STEP_MSG


def test_a_line_the_host_relays_during_the_game_is_a_spectators():
    """protocol.md §N10: in the game the host relays its spectators' lines; a seat shows an
    author it does not know, relayed by the host, as a spectator; a seat's own key stays a player."""
    r = room()
    stranger = Identity.from_seed(b"prof")
    got = r.receive(line(stranger, 1, "forza!", "Prof"), 0.0, relayed=True, relayed_role=SPECTATOR)
    assert (got.name, got.role) == ("Prof", SPECTATOR)
    assert r.receive(line(ANNA, 1, "grazie"), 0.0, relayed=True, relayed_role=SPECTATOR).role == PLAYER
