"""Every seat's watch socket on DNS-SD (protocol.md §N10 "Any seat serves", p2p/rendezvous.py
with WATCH_SERVICE): the record, and a spectator (no seat, no advert of its own) that finds the
seats' watch sockets on loopback, keeps only adverts with a seat's setup keys, and never sees the
seats' own rendezvous adverts (another service type)."""

from __future__ import annotations

import asyncio

import pytest

from p2p import const as C
from p2p.identity import Identity
from p2p.rendezvous import SEAT_SERVICE, WATCH_SERVICE, Rendezvous, SeatAd, accept

from p2p_harness import started_sessions


@pytest.fixture(scope="module")
def setup():
    return started_sessions(3)[0].setup


def test_watch_record_round_trip_apart_from_the_seat_record(setup):
    p = setup.players[2]
    ad = SeatAd(C.PROTOCOL_VERSION, setup.game_id, 2, p.public_key, p.x25519_key, "127.0.0.61", 40123, WATCH_SERVICE)
    info = ad.to_info()
    assert SeatAd.from_info(info, WATCH_SERVICE) == ad
    assert ad.instance_name == f"lanopoli-{setup.game_id.hex()[:16]}-seat2._lanopoli-watch._udp.local."
    seat = SeatAd(C.PROTOCOL_VERSION, setup.game_id, 2, p.public_key, p.x25519_key, "127.0.0.61", 40000)
    assert seat.service == SEAT_SERVICE and seat.to_info().server != info.server  # one host name each
    assert accept(ad, setup, -1)  # a spectator has no seat: every seat's advert may count


def test_a_spectator_finds_the_seats_watch_sockets_by_their_keys(setup):
    async def run():
        found = {}
        seats = [Rendezvous(["127.0.0.62"], setup, i, lambda *_: None, service=WATCH_SERVICE, browse=False)
                 for i in (0, 1)]
        rendezvous = Rendezvous(["127.0.0.62"], setup, 2, lambda *_: None)  # another type: never seen
        forged = setup._replace(players=tuple(q._replace(x25519_key=Identity.from_seed(b"f").x25519_public_key)
                                              if i == 2 else q for i, q in enumerate(setup.players)))
        liar = Rendezvous(["127.0.0.62"], forged, 2, lambda *_: None, service=WATCH_SERVICE, browse=False)
        spectator = Rendezvous(["127.0.0.62"], setup, -1, lambda s, a: found.__setitem__(s, a),
                               service=WATCH_SERVICE)
        try:
            await spectator.start()
            for i, r in enumerate(seats):
                await r.start("127.0.0.62", 47000 + i)
            await rendezvous.start("127.0.0.62", 47100)
            await liar.start("127.0.0.62", 47002)
            for _ in range(200):
                if len(found) == 2 and spectator.refused:
                    break
                await asyncio.sleep(0.05)
        finally:
            for r in (*seats, rendezvous, liar, spectator):
                await r.close()
        return found, spectator.refused

    found, refused = asyncio.run(run())
    assert found == {0: ("127.0.0.62", 47000), 1: ("127.0.0.62", 47001)}
    assert refused >= 1  # seat 2's watch advert does not carry seat 2's keys
