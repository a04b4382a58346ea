"""Editions as strategies (issue 13): money and estate are objects on the Edition.

The shared rules call ``s.ed.money`` (engine.rules.money.Euro / engine.rules.banknotes.Banknotes)
and ``s.ed.estate`` (engine.rules.estate.Houses / HotelsOnly) instead of asking which edition
runs; these tests pin which edition has which strategy, that the rules' entry points are the
strategy's answers, and that the modules turned into strategies have no edition branches left.
"""
from __future__ import annotations

import ast
import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import engine as E
from engine.editions import EDITIONS
from engine.rules import building, money, mortgage
from engine.rules.banknotes import BANKNOTES, Banknotes
from engine.rules.estate import HOTELS_ONLY, HOUSES, HotelsOnly, Houses
from engine.rules.money import EURO, Euro

ROOT = Path(__file__).resolve().parents[2]


def test_each_edition_has_its_money_and_estate():
    for name, ed in EDITIONS.items():
        niente = name == "niente-e-come-sembra"
        assert ed.money is (BANKNOTES if niente else EURO)
        assert ed.estate is (HOTELS_ONLY if niente else HOUSES)
        # the data switches still say the same thing (new_state validates them)
        assert ed.hotels_only is niente
        assert (ed.decoder is not None) is niente
    assert isinstance(BANKNOTES, Euro) and isinstance(HOTELS_ONLY, Houses)
    assert type(EURO) is Euro and type(HOUSES) is Houses
    assert isinstance(BANKNOTES, Banknotes) and isinstance(HOTELS_ONLY, HotelsOnly)


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


def test_strategy_modules_have_no_edition_branches():
    """The rules that became strategies do not look at the edition's switches or its hidden
    state: no ``.nx``, ``.hotels_only``, ``.decoder`` read in them."""
    for rel in ("engine/rules/building.py", "engine/rules/mortgage.py", "engine/rules/money.py",
                "engine/rules/estate.py"):
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        reads = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                 and n.attr in ("nx", "hotels_only", "decoder")]
        assert reads == [], rel
