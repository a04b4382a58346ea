"""engine.testing.scenario's hidden-information parameters (issue 13): tests build
niente-e-come-sembra scenarios without writing the state's layout; engine.observation reads
back exactly what was asked, and no Imprevisti card is lost or duplicated."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import EDITIONS
from engine import observation as obs
from engine.testing import scenario

ED = "niente-e-come-sembra"
IMP = obs.IMPREVISTI
CARDS = EDITIONS[ED].decks[IMP]
JAIL = next(c.index for c in CARDS if c.kind == "get_out_of_jail_free")


def imprevisti_everywhere(s):
    """Every Imprevisti card index in the deck, the face-up row, or a seat's hands."""
    out = list(s.decks[IMP][:s.undrawn[IMP]]) + [c for c in obs.faceup_cards(s) if c >= 0]
    for seat in range(s.n):
        out += obs.held_imprevisti(s, seat)
    return sorted(out)


def test_what_is_asked_is_what_the_observation_api_reads():
    row = [c.index for c in CARDS[:3]]
    kept = [c.index for c in CARDS if c.index not in row and c.kind != "get_out_of_jail_free"][:2]
    s = scenario(3, edition=ED, faceup=row, kept={1: kept, 2: [JAIL]}, magnifiers={0: 0, 2: 1},
                 window=[(1, 2, 7, 8)], card_in_use=(1, IMP, kept[0], -1))
    assert obs.faceup_cards(s) == tuple(row)
    assert obs.kept_cards(s, 1) == tuple(IMP * 256 + c for c in kept)
    assert obs.kept_cards(s, 2) == () and obs.held_imprevisti(s, 2) == [JAIL]  # held, as in classico
    assert [obs.green_lenses(s, seat) for seat in range(3)] == [0, 2, 1]
    assert obs.window_payments(s) == (obs.Payment(1, 2, (7, 8)),)
    assert obs.card_in_use(s) == obs.CardUse(1, IMP, kept[0], -1)
    assert s.phase == scenario(3, edition=ED).phase  # still the start of the turn ("roll")


@given(st.lists(st.sampled_from(range(len(CARDS))), max_size=8, unique=True), st.integers(0, 3))
def test_no_imprevisti_card_is_lost_or_doubled(cards, split):
    """Whatever cards go face up or into a seat's hand, each is in exactly one place."""
    s = scenario(2, edition=ED, faceup=cards[:split], kept={0: cards[split:split + 2], 1: cards[split + 2:]})
    assert imprevisti_everywhere(s) == imprevisti_everywhere(scenario(2, edition=ED))


def test_an_edition_without_hidden_information_refuses_them():
    with pytest.raises(ValueError):
        scenario(2, magnifiers={0: 1})


def test_more_face_up_cards_than_slots_are_refused():
    slots = len(obs.faceup_cards(scenario(2, edition=ED)))
    with pytest.raises(ValueError):
        scenario(2, edition=ED, faceup=range(slots + 1))
    assert obs.faceup_cards(scenario(2, edition=ED, faceup=[5])) == (5,) + (-1,) * (slots - 1)
