"""Red team session 15, second round (H169): signed endpoints (protocol version 6, §C2.1 'A stale
endpoint at restart') against a seat that moved (§N3.2 seat adverts, ``rendezvous.SeatAddresses``).
Tests only, sans-I/O.

Version 6 puts each seat's endpoint in the signed setup: where it was at the start. A seat that
restarts elsewhere (its old port taken: §C10 "it binds any port") is found by its seat advert, as
before. Keys are public, so a hostile laptop can advertise any seat anywhere; the setup now also
names, for everyone, an address the seat is known to have left. Can that stale, signed address be
used to pin the seat to a dead address, or to redirect another seat onto it?

Holds (three seats: ours ME, S at S0 then S1, T at T0; the game started at t = 1 s):
* S's real advert after its restart moves it to S1 (it was heard at S0 only at the start).
* A forged advert naming S's signed setup endpoint S0 while S is heard at S1 is ignored.
* A forged advert moving T (quiet) onto S0 is refused: S0 is an address S left and may return to.
* Once S has been quiet ``ADVERT_HEARD_S``, a forged advert does move it back to S0 (dead): the
  stated race of §N3.2; S's next authenticated datagram from S1 moves it back (``spoke``).
"""

from __future__ import annotations

from p2p.rendezvous import ADVERT_HEARD_S, SeatAddresses

ME, S0, T0 = ("10.0.0.1", 41000), ("10.0.0.2", 41001), ("10.0.0.3", 41002)
S1 = ("10.0.0.2", 52117)  # S's new port after its restart (its old one was taken)
S, T = 1, 2


def _table():
    """The seats at their signed setup endpoints, started at 1 s, and S moved to S1 at 100 s by
    its own advert; ``heard``: address -> loop time we last heard a seat there."""
    seats = SeatAddresses()
    seats.set_endpoints([ME, S0, T0], 0)
    seats.started(1.0)
    heard: dict = {}
    assert seats.advert(S, S1, None, 100.0, heard.get) == "moved"
    heard[S1] = 101.0
    return seats, heard


def test_n3_2_a_restarted_seat_is_moved_by_its_advert_and_its_setup_endpoint_is_kept_as_left():
    seats, _ = _table()
    assert seats.endpoints[S] == S1 and seats.left_from == {S0: S}


def test_n3_2_a_forged_advert_naming_a_heard_seats_signed_endpoint_is_ignored():
    """§N3.2 "a seat heard at its address lately is there, whatever an advert says"."""
    seats, heard = _table()
    assert seats.advert(S, S0, heard[S1], 101.0 + ADVERT_HEARD_S / 2, heard.get) == "ignored"
    assert seats.endpoints[S] == S1


def test_n3_2_a_forged_advert_cannot_redirect_another_seat_onto_a_left_setup_endpoint():
    """T quiet since the start: an advert putting it at S0 (S's signed setup endpoint, which S
    left and may speak from again) is refused and T stays at T0."""
    seats, heard = _table()
    assert seats.advert(T, S0, None, 200.0, heard.get) == "refused"
    assert seats.endpoints[T] == T0 and seats.endpoints[S] == S1


def test_stated_n3_2_a_quiet_moved_seat_pinned_back_to_its_dead_setup_endpoint_returns_when_it_speaks():
    """§N3.2 (stated race): S quiet for ``ADVERT_HEARD_S`` at S1; a forged advert moves it back to
    S0, its signed but dead setup endpoint. S1 is kept as an address S left, refused to the
    others, and S's first authenticated datagram from S1 moves it there again."""
    seats, heard = _table()
    now = heard[S1] + ADVERT_HEARD_S + 1.0
    assert seats.advert(S, S0, heard[S1], now, heard.get) == "moved"
    assert seats.endpoints[S] == S0 and seats.left_from == {S1: S}
    assert seats.advert(T, S1, None, now, heard.get) == "refused"
    assert seats.spoke(S1) == S and seats.endpoints[S] == S1
