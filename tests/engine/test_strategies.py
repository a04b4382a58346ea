"""Editions as strategies (issue 13): money, estate, cards and flow are objects on the Edition.

The shared rules call ``s.ed.money`` (engine.rules.money.Euro / engine.rules.banknotes.Banknotes),
``s.ed.estate`` (engine.rules.estate.Houses / HotelsOnly), ``s.ed.cards``
(engine.rules.cards.Deck / engine.rules.faceup_cards.FaceUp) and engine.game ``s.ed.flow``
(engine.rules.flow.PlainFlow / engine.rules.niente_flow.NienteFlow) instead of asking which
edition runs; these tests pin which edition has which strategy, that the rules' entry points are the
strategy's answers, and that the modules turned into strategies have no edition branches left.
"""
from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine as E
import engine.actions as A
from engine.editions import EDITIONS
from engine.rules import building, money, mortgage
from engine.rules.banknotes import BANKNOTES, Banknotes
from engine.rules.cards import DECK, Deck
from engine.rules.estate import HOTELS_ONLY, HOUSES, HotelsOnly, Houses
from engine.rules.faceup_cards import FACE_UP, FaceUp
from engine.rules.flow import PLAIN_FLOW, PlainFlow
from engine.rules.money import EURO, Euro
from engine.rules.niente_flow import NIENTE_FLOW, NienteFlow

ROOT = Path(__file__).resolve().parents[2]


def test_each_edition_has_its_money_and_estate():
    for name, ed in EDITIONS.items():
        niente = name == "niente-e-come-sembra"
        assert ed.money is (BANKNOTES if niente else EURO)
        assert ed.estate is (HOTELS_ONLY if niente else HOUSES)
        assert ed.cards is (FACE_UP if niente else DECK)
        assert ed.flow is (NIENTE_FLOW if niente else PLAIN_FLOW)
        assert ed.flow.extends_legal is niente
        # the hot path's one typed test per step: the flow only when it adds rules
        assert ed.tables.flow_rules is (NIENTE_FLOW if niente else None)
        # the data switches still say the same thing (new_state validates them)
        assert ed.hotels_only is niente
        assert (ed.decoder is not None) is niente
    assert isinstance(BANKNOTES, Euro) and isinstance(HOTELS_ONLY, Houses)
    assert type(EURO) is Euro and type(HOUSES) is Houses
    assert isinstance(BANKNOTES, Banknotes) and isinstance(HOTELS_ONLY, HotelsOnly)
    assert type(DECK) is Deck and type(PLAIN_FLOW) is PlainFlow
    assert isinstance(FACE_UP, FaceUp) and isinstance(FACE_UP, Deck)
    assert isinstance(NIENTE_FLOW, NienteFlow) and isinstance(NIENTE_FLOW, PlainFlow)


def test_hidden_state_comes_from_the_money_strategy():
    assert E.new_game("classico", 3).nx == []
    nx = E.new_game("niente-e-come-sembra", 3).nx
    assert nx and nx == BANKNOTES.new_hidden(EDITIONS["niente-e-come-sembra"], 3)


@settings(max_examples=25, deadline=None)
@given(edition=st.sampled_from(sorted(EDITIONS)), seed=st.integers(0, 2**32 - 1),
       steps=st.integers(0, 400))
def test_rule_entry_points_answer_what_the_estate_says(edition, seed, steps):
    """building.* and mortgage.* are the edition's estate strategy, square by square, at a
    random point of a random game."""
    ed = EDITIONS[edition]
    s = E.new_game(edition, ed.min_players)
    rng = random.Random(seed)
    for _ in range(steps):
        p = E.pending(s)
        if not p.chance and not p.actors:  # game over
            break
        if p.chance:
            s, _ = (E.apply_chance(s, rng.randbytes(8)) if p.kind != "inspection" else
                    E.apply_reveal(s, [False] * len(E.hidden_items(s))))
        else:
            inputs = [None] * s.n
            for seat in p.actors:
                legal = E.legal_actions(s, seat)
                inputs[seat] = rng.choice(legal) if legal else None
            s, _ = E.apply_step(s, inputs)
    estate = s.ed.estate
    # the shortage check counts hotels only where the estate builds hotels only
    want = {1: 0, 2: 0}
    for seat in range(s.n):
        lots = {2 if s.level[sq] == 4 or s.ed.hotels_only else 1 for sq in range(s.tb.nsq)
                if not s.out[seat] and estate.build_error(s, seat, sq) is None}
        for lot in lots:
            want[lot] += 1
    stock = {1: s.houses, 2: s.hotels}
    assert building.shortage_possible(s) is any(c >= 2 and c > stock[k] for k, c in want.items())
    for seat in range(s.n):
        assert building.liquidation_value(s, seat) == estate.liquidation_value(s, seat)
        for sq in range(-1, s.tb.nsq + 1):
            assert building.build_error(s, seat, sq) == estate.build_error(s, seat, sq)
            assert building.sell_error(s, seat, sq) == estate.sell_error(s, seat, sq)
            assert mortgage.mortgage_error(s, seat, sq) == estate.mortgage_error(s, seat, sq)
            assert mortgage.lift_error(s, seat, sq) == estate.lift_error(s, seat, sq)


def test_transfer_goes_through_the_money_strategy():
    s = E.new_game("classico", 2)
    ev: list = []
    money.transfer(s, ev, 0, 1, 100, money.R_RENT)
    assert s.cash == [1400, 1600] and len(ev) == 1
    s = E.new_game("niente-e-come-sembra", 2)
    ev = []
    money.transfer(s, ev, -1, 0, 200, money.R_SALARY)
    names = [type(e).__name__ for e in ev]
    assert names[0] == "MoneyPaid" and "BillsMoved" in names


#: The flow and the shared rules: no edition branch left in them (the niente modules, the
#: observation API and the niente bot are that edition's own code and read its layout).
FLOW_MODULES = ("engine/game.py", "engine/rules/building.py",
                "engine/rules/mortgage.py", "engine/rules/money.py", "engine/rules/estate.py",
                "engine/rules/cards.py", "engine/rules/flow.py", "engine/rules/jail.py",
                "engine/rules/movement.py", "engine/rules/trade.py", "engine/rules/bankruptcy.py",
                "engine/rules/auction.py", "engine/rules/rent.py", "engine/rules/sale.py",
                "engine/rules/endgame.py", "engine/rules/timed.py", "engine/rules/deal.py",
                "engine/rules/house_rules.py", "engine/bots/_choose.py", "engine/bots/_decide.py",
                "engine/bots/_value.py", "engine/bots/_trade.py")


def test_strategy_modules_have_no_edition_branches():
    """The flow and the rules that call strategies do not look at the edition's switches or its
    hidden state: no ``.nx``, ``.hotels_only``, ``.decoder`` read in them, and no import of the
    niente rule modules."""
    for rel in FLOW_MODULES:
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        reads = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                 and n.attr in ("nx", "hotels_only", "decoder")]
        assert reads == [], rel
        imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        # (niente_events only declares event types; HotelsOnly's sale tells PropertySoldToBank)
        assert not [m for m in imported if ("niente" in m and not m.endswith("niente_events"))
                    or m.endswith(("banknotes", "faceup_cards", "counterfeit", "bill_choice"))], rel


def test_a_niente_action_is_refused_in_another_edition():
    """The flow's own actions come from ``Edition.flow.handlers``: elsewhere they are refused
    "not_in_edition" (and a non-action "not_an_action"), as before the flow was a strategy."""
    s = E.new_game("classico", 2)
    s, _ = E.apply_chance(s, bytes(32))
    seat = E.pending(s).actors[0]
    for a, code in ((A.InspectCard(), "not_in_edition"), (A.DeclineCard(), "not_in_edition"),
                    (object(), "not_an_action")):
        _, ev = E.apply_step(s, [a if i == seat else None for i in range(s.n)])
        assert [(e.seat, e.reason) for e in ev if type(e).__name__ == "ActionRefused"] == \
            [(seat, code)]


def test_card_strategy_lands_draws_and_deals():
    """Deck: a card square waits for the draw and nothing is dealt face up; FaceUp: Imprevisti
    offers the face-up cards ("take_card") while one lies there."""
    s = E.new_game("classico", 2)
    ev: list = []
    DECK.deal(s, ev, None)
    DECK.land(s, ev, 0, 1)
    assert ev == [] and E.pending(s).kind == "card" and s.draw_deck == 1
    s = E.new_game("niente-e-come-sembra", 2)
    s, _ = E.apply_chance(s, bytes(32))  # first player; the face-up Imprevisti are dealt
    FACE_UP.land(s, ev, s.current, 1)
    assert E.pending(s).kind == "take_card"
    FACE_UP.land(s, ev, s.current, 0)
    assert E.pending(s).kind == "card" and s.draw_deck == 0


def test_plain_flow_adds_nothing():
    s = E.new_game("classico", 2)
    ev: list = []
    PLAIN_FLOW.after_step(s, ev, [None, None], s.phase, 0, None)
    PLAIN_FLOW.after_chance(s, ev, None)
    out: list = []
    PLAIN_FLOW.extend_legal(s, 0, out)
    assert ev == [] and out == [] and PLAIN_FLOW.handlers == {}
    with pytest.raises(ValueError, match="not a chance step"):
        PLAIN_FLOW.chance(s, ev, None)
    with pytest.raises(ValueError, match="inspection outcomes"):
        PLAIN_FLOW.reveal(s, ev, [], None)
    with pytest.raises(AssertionError, match="transient phase"):
        PLAIN_FLOW.pending(s)
