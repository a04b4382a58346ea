"""A spectator's chat is bounded by the seat it follows (protocol.md §N9 'What holds', H155; H151's
leftover in §N9 'What does not'): the serving seat relays every line of the game to its spectators,
so one that signs each line with a key it minted was bounded only by the spectator's 64 signature
checks a second. Now a line whose author is not a seat (from the game's header), over the serving
seat's channel, is charged to that channel's bucket (``relay_flood``: 5 lines, then one per 2 s);
the seats' own lines are not. Real ``ui.watch.WatchDriver`` (its ``_on_message``), no socket: the
sample game's header (tests/vectors/game.lnplog) gives the seats.
"""

from __future__ import annotations

import asyncio
import shutil
from types import SimpleNamespace

from p2p import const as C
from p2p.chat import PLAYER, SPECTATOR, ChatRoom
from p2p.identity import Identity
from test_watch_lying_seat import GID, SEATS, records
from ui.watch import WatchDriver


def _watch(lines) -> tuple[list, dict]:
    """A spectator following seat 0 gets ``lines`` (CHAT envelopes) from it, all at once:
    the lines it shows and its chat counters."""

    async def run():
        ad = SimpleNamespace(watch_port=7001, public_key=SEATS[0].public_key, game_id=GID, address="127.0.0.1",
                             seats_total=len(SEATS), edition="race", x25519_key=SEATS[0].x25519_public_key)
        d = WatchDriver(ad, "127.0.0.1", name="prof")
        try:
            d.client = SimpleNamespace(records=records()[:1])  # the header: who the seats are
            for raw in lines:
                d._on_message(d.server, raw)  # noqa: SLF001 (what the link calls)
            return list(d.chat_lines), d.chat_room.stats
        finally:
            shutil.rmtree(d._dir, ignore_errors=True)  # noqa: SLF001

    return asyncio.run(run())


def test_a_serving_seat_minting_keys_shows_its_spectator_one_authors_lines():
    """64 lines, each under a key the serving seat minted, at once: 64 shown before (the
    spectator's checks), now 5 (``relay_flood``), as spectators'."""
    minted = [ChatRoom(Identity.from_seed(b"h155-w%d" % i), GID, "Prof").say("spam", 0.0)[0] for i in range(64)]
    shown, stats = _watch(minted)
    assert len(shown) == C.CHAT_BURST and {line.role for line in shown} == {SPECTATOR}
    assert stats["relay_flood"] == 64 - C.CHAT_BURST


def test_the_seats_lines_are_not_charged_to_the_serving_seats_channel():
    """Each seat's burst of 5, relayed by seat 0 after the 5 lines of one of its spectators: all
    shown, the seats' with the header's names as players'."""
    spectator = ChatRoom(Identity.from_seed(b"h155-prof"), GID, "Prof")
    lines = [spectator.say("s%d" % k, 0.0)[0] for k in range(C.CHAT_BURST)]
    for i, seat in enumerate(SEATS):
        room = ChatRoom(seat, GID, "whoever")
        lines += [room.say("p%d-%d" % (i, k), 0.0)[0] for k in range(C.CHAT_BURST)]
    shown, stats = _watch(lines)
    assert len(shown) == C.CHAT_BURST * (1 + len(SEATS)) and "relay_flood" not in stats
    assert sum(line.role == PLAYER for line in shown) == C.CHAT_BURST * len(SEATS)
