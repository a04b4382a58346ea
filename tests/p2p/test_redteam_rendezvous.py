"""Red team of the seat rendezvous (protocol.md §N3.2, p2p/rendezvous.py): a hostile laptop on
the LAN copies a seat's advert (its keys are public: every advert and the setup carry them) and
advertises it under another instance name with its own address, while the honest seat's advert
is live. Zeroconf on loopback with explicit interfaces, as tests/p2p/test_rendezvous.py.

What this shows (§N3.2): ``Rendezvous`` alone cannot tell a copied advert from the seat's own
(``accept`` checks keys, and keys are public), and it keeps the forged address: the honest
advert does not change, so nothing re-resolves it. Before the fix the node adopted it, sent that
seat's messages to the forger and restricted channels to the forged address, so the live seat
was cut off and dropped after the drop timeout. The defence is the node's
(``rendezvous.SeatAddresses``: a seat heard lately keeps its address; one moved goes back when it speaks
from where it was heard), tested with real processes in
tests/e2e/test_redteam_rendezvous_e2e.py. The channel stays keyed with the seat's X25519 key
either way, so the forger can never speak for the seat."""

from __future__ import annotations

import asyncio

from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from p2p import const as C
from p2p.rendezvous import ADVERT_HEARD_S, SEAT_SERVICE, Rendezvous, SeatAd, SeatAddresses

from p2p_harness import started_sessions

HONEST = ("127.0.0.62", 42000)
FORGER = ("127.0.0.63", 43000)


def test_a_copied_advert_redirects_a_seat_while_its_own_advert_is_live():
    setup = started_sessions(3)[0].setup
    p = setup.players[1]
    forged = SeatAd(C.PROTOCOL_VERSION, setup.game_id, 1, p.public_key, p.x25519_key, *FORGER)

    async def run():
        seen = []
        r0 = Rendezvous(["127.0.0.61"], setup, 0, lambda s, a: seen.append((s, a)))
        r1 = Rendezvous([HONEST[0]], setup, 1, lambda s, a: None)
        azc = AsyncZeroconf(interfaces=[FORGER[0]])
        info = AsyncServiceInfo(SEAT_SERVICE, f"x-forged.{SEAT_SERVICE}", port=FORGER[1], properties=forged.txt(),
                                server="x-forged.local.", parsed_addresses=[FORGER[0]])
        try:
            await r0.start("127.0.0.61", 41000)
            await r1.start(*HONEST)
            for _ in range(200):
                if r0.found.get(1) == HONEST:
                    break
                await asyncio.sleep(0.05)
            honest_first = r0.found.get(1)
            await (await azc.async_register_service(info, cooperating_responders=True))
            for _ in range(200):
                if r0.found.get(1) == FORGER:
                    break
                await asyncio.sleep(0.05)
            # The honest advert stays registered and unchanged: give it time to "answer again".
            await asyncio.sleep(3.0)
            return honest_first, r0.found.get(1), seen
        finally:
            await azc.async_unregister_service(info)
            await azc.async_close()
            for r in (r0, r1):
                await r.close()

    honest_first, now, seen = asyncio.run(run())
    assert honest_first == HONEST
    # Rendezvous reports the forged address and keeps it while the honest advert lives: the
    # node, not the advert check, must refuse to act on it for a live seat.
    assert now == FORGER and (1, FORGER) in seen, seen


# -- the node's defence, sans-I/O (rendezvous.SeatAddresses, §N3.2) ------------------------------

def _three_seats() -> SeatAddresses:
    seats = SeatAddresses()
    seats.set_endpoints([("127.0.0.61", 41000), HONEST, ("127.0.0.64", 44000)], 0)
    return seats


def test_an_advert_for_a_seat_heard_lately_is_ignored_once_and_kept_pending():
    seats = _three_seats()
    assert seats.advert(1, FORGER, heard=100.0, now=100.0 + ADVERT_HEARD_S / 2) == "ignored"
    assert seats.advert(1, FORGER, heard=100.0, now=100.0 + ADVERT_HEARD_S / 2) == "ignored_again"
    assert seats.endpoints[1] == HONEST and seats.pending == {1: FORGER}
    assert seats.peers() == [HONEST, ("127.0.0.64", 44000)]


def test_a_quiet_seat_moves_and_moves_back_when_it_speaks_from_where_it_was_heard():
    seats = _three_seats()
    assert seats.advert(1, FORGER, heard=100.0, now=100.0 + ADVERT_HEARD_S + 1) == "moved"
    assert seats.endpoints[1] == FORGER and seats.left_from == {HONEST: 1} and seats.pending == {}
    assert seats.spoke(("127.0.0.99", 1)) is None
    assert seats.spoke(HONEST) == 1
    assert seats.endpoints[1] == HONEST and seats.left_from == {}


def test_a_never_heard_seat_moves_without_being_remembered_and_the_same_address_is_nothing():
    seats = _three_seats()
    assert seats.advert(2, ("127.0.0.64", 44000), heard=None, now=5.0) == "same"
    assert seats.advert(2, FORGER, heard=None, now=5.0) == "moved"
    assert seats.endpoints[2] == FORGER and seats.left_from == {}
