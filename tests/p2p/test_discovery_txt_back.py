"""A game's advert going back to a TXT it had before reaches the browser (protocol.md §N3
"Discovery"; H137). python-zeroconf 0.154 fires no ``ServiceStateChange.Updated`` for a record
equal to one still in its cache (the cache-flush bit keeps records received in the last second,
RFC 6762 §10.2, and an expired one stays until the cache is cleaned), and its cache returns the
TXT first *stored* of a name, not the last *received*: a list read "2/4 Marco, Anna" for good
after Anna left (H125's and H130's walks). ``Discovery`` keeps the TXT last received of each
name (``discovery._Listener``). Loopback only; every zeroconf instance is closed in a finally block."""

import asyncio
import os

from p2p import const as C
from p2p.ad_record import GameAd
from p2p.discovery import Discovery

LO = "127.0.0.1"


def _ad(gid):
    return GameAd(version=C.PROTOCOL_VERSION, game_id=gid, edition="classico", seats_taken=1,
                  seats_total=4, state="lobby", fingerprint="cd" * 8, address=LO, port=40011,
                  players=("Marco",))


def test_an_advert_going_back_to_its_first_txt_is_seen_again():
    """1/4 Marco -> 2/4 Marco, Anna -> 1/4 Marco within a second (a joiner that leaves at once):
    the browser lists 1/4 again (before: 2/4 until the record's TTL, 75 minutes)."""
    async def main():
        host, other = Discovery([LO]), Discovery([LO])
        try:
            await host.start()
            await other.start()
            ad = _ad(os.urandom(16))
            await host.advertise(ad)
            await other.wait_for(lambda a: a.game_id == ad.game_id, timeout=10)
            await host.update(seats_taken=2, players=("Marco", "Anna"))
            await other.wait_for(lambda a: a.game_id == ad.game_id and a.seats_taken == 2, timeout=10)
            await host.update(seats_taken=1, players=("Marco",))
            back = await other.wait_for(lambda a: a.game_id == ad.game_id and a.seats_taken == 1, timeout=10)
            assert back.players == ("Marco",)
        finally:
            await host.close()
            await other.close()

    asyncio.run(main())


def test_the_cache_calls_that_keep_the_last_txt_exist():
    """``Discovery._keep_latest_txt`` calls two methods of python-zeroconf's ``DNSCache`` that its
    documentation does not list (p2p/discovery.py module doc); a zeroconf that drops or renames
    them fails here by name, not as a resolution that silently never lists the game."""
    import inspect

    from zeroconf import DNSCache

    assert list(inspect.signature(DNSCache.async_all_by_details).parameters) == ["self", "name", "type_", "class_"]
    assert list(inspect.signature(DNSCache.async_remove_records).parameters) == ["self", "entries"]
