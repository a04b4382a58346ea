"""``estate.hotel_room_error``: the one statement of "a hotel can go on this street" that buying a
hotel (``HotelsOnly.build_error``) and the free-hotel card (``faceup_cards.use_error``) share.
niente-e-come-sembra rulebook, ALBERGHI: "Potete avere solo un albergo per ogni strada", "alcune
carte ... vi permettono di edificare alberghi anche su proprietà che non fanno parte di una serie
colorata completa", "Gli alberghi sono finiti?"."""

from engine.board import K_STREET
from engine.rules.estate import HOTELS_ONLY, hotel_room_error
from engine.rules.faceup_cards import use_error
from engine.state import HOTEL
from engine.testing import scenario

ED = "niente-e-come-sembra"
SQ = 1  # the first street of the board


def _codes(s, seat: int, sq: int) -> tuple:
    """The refusal code (or None) of the rule, of the card and of buying a hotel, in that order."""
    return tuple(None if err is None else err[0]
                 for err in (hotel_room_error(s, sq), use_error(s, seat, "free_hotel", sq),
                             HOTELS_ONLY.build_error(s, seat, sq)))


def _streets(s) -> list:
    return [sq for sq in range(s.tb.nsq) if s.tb.kind[sq] == K_STREET]


def test_a_free_street_of_a_complete_set_has_room():
    group = scenario(2, edition=ED).tb.group_of[SQ]
    s = scenario(2, edition=ED, owners={m: 0 for m in group})
    assert _codes(s, 0, SQ) == (None, None, None)


def test_the_card_needs_no_complete_set_buying_does():
    s = scenario(2, edition=ED, owners={SQ: 0})
    assert _codes(s, 0, SQ) == (None, None, "set_incomplete")


def test_a_street_with_its_hotel_has_no_room():
    group = scenario(2, edition=ED).tb.group_of[SQ]
    s = scenario(2, edition=ED, owners={m: 0 for m in group}, levels={SQ: HOTEL})
    assert _codes(s, 0, SQ) == ("max_buildings",) * 3


def test_no_room_when_the_bank_has_no_hotel_left():
    probe = scenario(2, edition=ED)
    group = probe.tb.group_of[SQ]
    others = [sq for sq in _streets(probe) if sq not in group][:probe.hotels]
    s = scenario(2, edition=ED, owners={**{m: 0 for m in group}, **{sq: 1 for sq in others}},
                 levels={sq: HOTEL for sq in others})
    assert s.hotels == 0
    assert _codes(s, 0, SQ) == ("no_stock",) * 3


def test_street_and_owner_are_checked_before_the_room():
    s = scenario(2, edition=ED, owners={SQ: 1}, levels={SQ: HOTEL})
    assert _codes(s, 0, SQ)[1:] == ("not_owner", "not_owner")
    assert use_error(s, 0, "free_hotel", 0)[0] == "not_a_street"  # square 0 is VIA!
