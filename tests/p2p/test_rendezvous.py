"""Finding the seats of an unfinished game again from new addresses (protocol.md §N3.2,
p2p/rendezvous.py): the seat advert's record, the key check, and two peers on loopback that find
each other (explicit interfaces) while a forged advert for a seat is refused."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings, strategies as st

from p2p import const as C
from p2p.identity import Identity
from p2p.rendezvous import SEAT_ADDRS_KEPT, WATCH_SERVICE, Rendezvous, SeatAd, SeatAdError, accept, instance_name

from p2p_harness import started_sessions


@pytest.fixture(scope="module")
def setup():
    return started_sessions(3)[0].setup


def _ad(setup, seat, address="127.0.0.1", port=4000, **kw):
    p = setup.players[seat]
    fields = dict(version=C.PROTOCOL_VERSION, game_id=setup.game_id, seat=seat, public_key=p.public_key,
                  x25519_key=p.x25519_key, address=address, port=port)
    fields.update(kw)
    return SeatAd(**fields)


def test_record_round_trip(setup):
    ad = _ad(setup, 1, "127.0.0.33", 45678)
    back = SeatAd.from_info(ad.to_info())
    assert back == ad
    assert ad.instance_name == f"lanopoli-{setup.game_id.hex()[:16]}-seat1._lanopoli-seat._udp.local."
    assert ad.txt()["pk"] == setup.players[1].public_key.hex()


def test_malformed_records_are_refused(setup):
    info = _ad(setup, 1).to_info()
    info.properties[b"seat"] = b"x"
    with pytest.raises(SeatAdError):
        SeatAd.from_info(info)
    with pytest.raises(SeatAdError):
        _ad(setup, 1, port=0)


def test_only_the_seats_own_keys_count(setup):
    assert accept(_ad(setup, 1), setup, my_seat=0)
    assert not accept(_ad(setup, 0), setup, my_seat=0)  # our own seat
    stranger = Identity.from_seed(b"stranger")
    assert not accept(_ad(setup, 1, public_key=stranger.public_key), setup, 0)  # not that seat's key
    assert not accept(_ad(setup, 1, x25519_key=stranger.x25519_public_key), setup, 0)
    assert not accept(_ad(setup, 1, game_id=bytes(16)), setup, 0)  # another game
    assert not accept(_ad(setup, 1, version=C.PROTOCOL_VERSION + 1), setup, 0)


def test_two_seats_find_each_other_and_a_forged_advert_is_refused(setup):
    async def run():
        found0, found1 = {}, {}
        r0 = Rendezvous(["127.0.0.41"], setup, 0, lambda s, a: found0.__setitem__(s, a))
        r1 = Rendezvous(["127.0.0.42"], setup, 1, lambda s, a: found1.__setitem__(s, a))
        # A forger advertises seat 2 with the right public key but its own X25519 key.
        forged = setup._replace(players=tuple(p._replace(x25519_key=Identity.from_seed(b"f").x25519_public_key)
                                              if i == 2 else p for i, p in enumerate(setup.players)))
        r2 = Rendezvous(["127.0.0.43"], forged, 2, lambda s, a: None)
        try:
            await r0.start("127.0.0.41", 41000)
            await r1.start("127.0.0.42", 42000)
            await r2.start("127.0.0.43", 43000)
            for _ in range(200):
                if 1 in found0 and 0 in found1 and r0.refused and r1.refused:
                    break
                await asyncio.sleep(0.05)
        finally:
            for r in (r0, r1, r2):
                await r.close()
        return found0, found1, r0.refused, r1.refused

    with pytest.raises(ValueError):
        Rendezvous([], setup, 0, lambda s, a: None)
    found0, found1, refused0, refused1 = asyncio.run(run())
    assert found0 == {1: ("127.0.0.42", 42000)} and found1 == {0: ("127.0.0.41", 41000)}
    assert refused0 >= 1 and refused1 >= 1  # seat 2's advert does not carry seat 2's keys


def _browser(setup):
    return Rendezvous(["127.0.0.1"], setup, -1, lambda *_: None, service=WATCH_SERVICE)


REAL, FORGED = ("10.0.0.2", 4001), ("10.0.0.66", 9)


def test_a_copied_advert_does_not_hide_the_seats_own_address(setup):
    # §N10 'Any seat serves' (H107 s11 #6): a copy of seat 1's advert under another name, with
    # another address, comes after the real one: both are kept, and next_address gives each in
    # turn (the newest first), so failover reaches the real socket after one silence.
    r = _browser(setup)
    own = instance_name(setup.game_id, 1, WATCH_SERVICE)
    assert own == _ad(setup, 1, service=WATCH_SERVICE).instance_name
    r.remember(1, own, REAL)
    r.remember(1, "lanopoli-copy." + WATCH_SERVICE, FORGED)
    assert r.addresses(1) == [FORGED, REAL] and r.addresses(2) == []
    assert [r.next_address(1) for _ in range(4)] == [FORGED, REAL, FORGED, REAL]
    assert r.next_address(2) is None
    r.remember(1, own, ("10.0.0.3", 4001))  # the seat moved: its own name's address replaced
    assert r.addresses(1) == [("10.0.0.3", 4001), FORGED]
    assert r.next_address(1) == ("10.0.0.3", 4001)  # never given before: first


def test_copies_are_bounded_and_never_push_out_the_seats_own_name(setup):
    # §N10 'Any seat serves': at most SEAT_ADDRS_KEPT copies (the newest), plus the seat's own.
    r = _browser(setup)
    r.remember(1, instance_name(setup.game_id, 1, WATCH_SERVICE), REAL)
    for i in range(20):
        r.remember(1, f"copy{i}." + WATCH_SERVICE, ("10.0.0.66", 100 + i))
    addrs = r.addresses(1)
    assert len(addrs) == SEAT_ADDRS_KEPT + 1 and REAL in addrs
    assert ("10.0.0.66", 119) in addrs and ("10.0.0.66", 100) not in addrs
    assert REAL in [r.next_address(1) for _ in range(SEAT_ADDRS_KEPT + 1)]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["own", "a", "b", "c", "d", "e", "f"]), st.integers(1, 6)), min_size=1,
                max_size=30), st.integers(0, 8))
def test_every_kept_address_is_tried_within_one_round(setup, adverts, calls):
    # Property (§N10 'Failover'): whatever adverts came, the seat's own name's latest address is
    # kept, at most SEAT_ADDRS_KEPT + 1 are, and any len(addresses) calls of next_address in a row
    # give every kept address once: none is skipped for ever.
    r = _browser(setup)
    own = instance_name(setup.game_id, 2, WATCH_SERVICE)
    last_own = None
    for name, port in adverts:
        n = own if name == "own" else name + "." + WATCH_SERVICE
        r.remember(2, n, ("10.0.0.9", port))
        last_own = ("10.0.0.9", port) if name == "own" else last_own
    for _ in range(calls):
        r.next_address(2)
    addrs = r.addresses(2)
    assert len(addrs) <= SEAT_ADDRS_KEPT + 1 and (last_own is None or last_own in addrs)
    assert sorted(r.next_address(2) for _ in addrs) == sorted(addrs)
