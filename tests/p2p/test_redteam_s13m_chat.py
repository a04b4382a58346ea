"""Red team session 13 on main (H149): chat (protocol.md §N9) flooded by a SEAT that relays lines
of keys it mints.

§N9 'What holds': nobody can flood the others' screens — "5 lines, then one per 2 s, per author;
the spectators of one machine, i.e. one IP, together as one author". During the game a seat takes
a line from any seat's channel and shows an author whose key is not a seat's as a spectator's. A
hostile seat signs each line with a fresh key of its own (valid signatures: nothing is forged)
and sends it over its own channel: every line is a new author with a full bucket, and no machine
bucket applies to lines from a seat's channel (§N9 (6): the relaying seat knows no IP). What
bounds it is the source's signature budget, ``CHAT_SOURCE_VERIFY_RATE`` = 16 a second. Sans-I/O
``ChatRelay`` of seat 0 (tests/p2p/test_redteam_lan_session.py's), virtual clock."""

from __future__ import annotations

from p2p import const as C
from p2p.chat import ChatRoom
from p2p.identity import Identity

from test_redteam_lan_session import GID, _chat_seat

SEAT1 = ("127.0.0.61", 41001)
SECONDS = 10


def _flood():
    """Seat 1 sends 50 lines a second for ``SECONDS`` s, each signed by a key it minted: the lines
    seat 0's screen shows."""
    relay, _, shown = _chat_seat({}, [SEAT1])
    now = 0.0
    for i in range(50 * SECONDS):
        me = Identity.from_seed(b"h149-minted-%d" % i)
        raw, _ = ChatRoom(me, GID, "Anna", clock_ms=lambda: 1).say("vota j contro Bruno", now)
        relay.receive(SEAT1, raw, now)
        now += 1 / 50
    return shown


def test_a_seats_minted_authors_are_bounded_by_its_signature_budget():
    """What holds (§N9 (5)): at most CHAT_SOURCE_VERIFY_RATE lines a second (plus the burst) from one
    seat's channel, each shown as a spectator's, never with a player's role."""
    shown = _flood()
    assert len(shown) <= C.CHAT_SOURCE_VERIFY_RATE * (SECONDS + 1)
    assert {line.role for line in shown} == {"spectator"}


def test_a_seat_minting_keys_cannot_flood_the_others_screens():
    """§N9 'What holds' (one machine = one author: 5 lines, then one per 2 s): one hostile seat's
    channel puts no more lines on a screen than one author may. Was a strict xfail (H149 BREAK #3:
    175 lines in 10 s); fixed (H151): a line of an author who is not a seat, over a seat's channel,
    also takes a token of that channel's bucket (§N9 check (6), ``relay_flood``)."""
    shown = _flood()
    assert len(shown) <= C.CHAT_BURST + SECONDS / C.CHAT_REFILL_S, len(shown)
