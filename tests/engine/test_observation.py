"""engine.observation: the views p2p/ and ui/ read instead of the state's layout (issue 13).

Each test plays niente-e-come-sembra with the edition's bots (``engine.choose``) and checks a
view against the layout it hides (engine.rules.banknotes ``NX_*``, protocol.md §E8) — which
only the engine and its tests may read.
"""
from __future__ import annotations

import dataclasses
import hashlib

import pytest
from hypothesis import given, settings, strategies as st

import engine
from engine import observation as obs
from engine.bots import _niente
from engine.rules import banknotes as B
from engine.rules.counterfeit import unknown_items
from engine.state import P_INSPECT

NIENTE = "niente-e-come-sembra"


def play(seats: int, seed: int, steps: int):
    """Yield the states of a bot game of niente-e-come-sembra (at most ``steps`` steps);
    inspection outcomes and beacons derived from ``seed``."""
    s = engine.new_game(NIENTE, seats)
    for k in range(steps):
        if engine.is_terminal(s):
            return
        yield s
        beacon = hashlib.sha256(seed.to_bytes(8, "big") + k.to_bytes(8, "big")).digest()
        pend = engine.pending(s)
        if pend.kind == "inspection":
            s, _ = engine.apply_reveal(s, [b & 1 == 0 for b in beacon[:len(engine.hidden_items(s))]])
        elif pend.chance:
            s, _ = engine.apply_chance(s, beacon)
        else:
            s, _ = engine.apply_step(s, [engine.choose(s, i) for i in range(s.n)])


@settings(max_examples=6, deadline=None)
@given(seats=st.integers(2, 4), seed=st.integers(0, 2**32))
def test_views_agree_with_the_layout_they_hide(seats: int, seed: int) -> None:
    """§E8: a seat's bills add up to its cash; the public view reads the public lists."""
    for s in play(seats, seed, 250):
        nx = s.nx
        pub = obs.public_view(s)
        assert pub.cash == tuple(s.cash) and pub.lenses == tuple(nx[B.NX_LENS])
        assert pub.faceup == tuple(nx[B.NX_FACEUP]) and pub.bill_status == tuple(nx[B.NX_PUB])
        assert pub.kept == tuple(len(h) for h in nx[B.NX_HAND])
        assert [(p.payer, p.taker, list(p.bills)) for p in pub.window] == [(p[0], p[1], p[2:]) for p in nx[B.NX_WIN]]
        assert engine.hidden_items(s) == unknown_items(s)
        for seat in range(s.n):
            me = obs.private_view(s, seat)
            assert sorted(b.id for b in me.bills) == sorted(nx[B.NX_WALLET][seat])
            assert sum(b.value for b in me.bills) == s.cash[seat] == me.money
            assert me.kept == tuple(nx[B.NX_HAND][seat])
            held = obs.held_items(s, seat)
            assert held[:len(nx[B.NX_WALLET][seat])] == [("bill", b) for b in nx[B.NX_WALLET][seat]]
            assert tuple(i for k, i in held if k == "card") == me.imprevisti == tuple(obs.held_imprevisti(s, seat))
            bills, cards = obs.held_unknown(s, seat)
            unknown = [it for it in held if obs.public_status(s, it) == obs.UNKNOWN]
            assert [("bill", b) for b in bills] + [("card", c) for c in cards] == unknown


def test_a_private_view_shows_what_the_seat_knows_and_public_statuses() -> None:
    """protocol.md §C12.7: a seat knows the items it held; an inspection makes a status public."""
    s = engine.new_game(NIENTE, 2)
    mine = s.nx[B.NX_WALLET][0]
    s.nx[B.NX_PUB][mine[0]] = B.FAKE
    view = obs.private_view(s, 0, {("bill", mine[1]): True, ("bill", mine[2]): False})
    status = {b.id: b.status for b in view.bills}
    assert (status[mine[0]], status[mine[1]], status[mine[2]]) == ("fake", "fake", "genuine")
    assert status[mine[3]] == "unknown"
    groups = dict(view.by_denomination())
    assert set(groups) >= set(obs.DENOMINATIONS)
    assert sum(len(g) for g in groups.values()) == len(mine)


def test_a_card_is_known_from_its_twin() -> None:
    """"una delle due": one card of each Imprevisti pair is fake, so a public twin tells."""
    s = engine.new_game(NIENTE, 2)
    assert obs.card_status(s, 4) is None and obs.card_status(s, 4, {("card", 4): True}) is True
    s.nx[B.NX_CPUB][5] = B.FAKE
    assert obs.card_status(s, 4) is False and obs.card_status(s, 5) is True


def test_views_are_frozen() -> None:
    s = engine.new_game(NIENTE, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        obs.public_view(s).cash = ()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        obs.private_view(s, 0).money = 0  # type: ignore[misc]


def test_an_edition_without_hidden_information_has_empty_views() -> None:
    s = engine.new_game("classico", 3)
    assert not engine.has_hidden(s) and obs.denominations(s) == () and obs.card_pairs(s) == 0
    pub = obs.public_view(s)
    assert pub.window == () and pub.card_in_use is None and pub.bill_status == ()
    assert obs.private_view(s, 1).bills == () and obs.private_view(s, 1).money == s.cash[1]


@pytest.mark.parametrize("edition", ["classico", NIENTE])
def test_choose_with_a_view_is_the_editions_bot_and_the_old_calls_still_work(edition: str) -> None:
    """engine.choose(state, seat, bot, view) answers as the niente bot it fronts, and as the
    base bot (engine.bots.choose) in an edition without hidden information."""
    for s in play(3, 7, 120) if edition == NIENTE else [engine.new_game(edition, 3)]:
        for seat in range(s.n):
            assert engine.choose(s, seat) == _niente.choose(s, seat, "default", None)
            if edition == "classico":
                assert engine.choose(s, seat, view={}) == engine.bots.choose(s, seat)
    knowledge = engine.Knowledge({("bill", 1): True}, secret=b"k")
    assert dict(knowledge) == {("bill", 1): True} and knowledge.secret == b"k"


def test_inspection_phase_names_what_it_waits_for() -> None:
    """protocol.md §C12.5: apply_reveal takes one outcome per hidden item; a wrong count raises."""
    for s in play(3, 11, 400):
        if engine.pending(s).kind == "inspection":
            items = engine.hidden_items(s)
            assert items and all(obs.public_status(s, it) == obs.UNKNOWN for it in items)
            with pytest.raises(ValueError):
                engine.apply_reveal(s, [False] * (len(items) + 1))
            return
        assert s.phase != P_INSPECT or engine.hidden_items(s) == []
    pytest.fail("no inspection in 400 steps of this game")


def test_the_card_in_use_and_the_inspection_it_waits_for() -> None:
    """"Quando un giocatore sta per utilizzare una carta Imprevisti, gli altri giocatori
    possono" inspect it: the public view names the card and its user, then the one hidden item."""
    from engine import actions as A
    from engine.editions import EDITIONS
    from engine.testing import scenario

    s = scenario(3, edition=NIENTE)
    card = next(c.index for c in EDITIONS[NIENTE].decks[obs.IMPREVISTI] if c.kind == "collect")
    s.decks[obs.IMPREVISTI].remove(card)
    s.undrawn[obs.IMPREVISTI] -= 1
    s.nx[B.NX_HAND][0] = [obs.IMPREVISTI * 256 + card]
    assert obs.kept_cards(s, 0) == (obs.IMPREVISTI * 256 + card,) and obs.public_view(s).kept == (1, 0, 0)
    s, _ = engine.apply_action(s, 0, A.UseCard(obs.IMPREVISTI, card, -1))
    assert obs.card_in_use(s) == obs.CardUse(0, obs.IMPREVISTI, card, -1) == obs.public_view(s).card_in_use
    s, _ = engine.apply_action(s, 1, A.InspectCard())
    assert engine.hidden_items(s) == [("card", card)]
    s, _ = engine.apply_reveal(s, [True])
    assert obs.card_status(s, card) is True and obs.card_in_use(s) is None


def test_an_open_offer_reads_as_an_offer() -> None:
    """Trades ("COME FARE AFFARI CON GLI ALTRI GIOCATORI"): an open offer as named fields."""
    from engine import actions as A
    from engine.testing import scenario

    s = scenario(2, owners={1: 0, 3: 1})
    s, _ = engine.apply_action(s, 0, A.ProposeTrade(1, (1,), (3,), 20, 0, (), (), ()))
    assert obs.public_view(s).offers == (obs.Offer(0, 1, (1,), (3,), 20, 0, (), (), ()),)
