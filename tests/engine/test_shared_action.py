"""The bots' shared actions (engine/bots/_decide.shared_action, issue 14): an action built once
per (class, square, seat) and reused must be indistinguishable from a freshly built one — equal,
same encoding for the step's signed input — or a compiled bot game would diverge from a pure one
(the regression fingerprint, bench/regression_fingerprint.py, checks whole games; this checks the
cache's contract directly)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from engine.actions import BuildHouse, ClaimRent, LiftMortgage, Mortgage, SellBuilding
from engine.bots._decide import shared_action

ONE_FIELD = (BuildHouse, SellBuilding, Mortgage, LiftMortgage)


@given(cls=st.sampled_from(ONE_FIELD), square=st.integers(0, 39))
def test_a_shared_one_field_action_equals_a_fresh_one_and_is_reused(cls, square):
    a = shared_action(cls, square)
    assert a == cls(square) and type(a) is cls
    assert shared_action(cls, square) is a


@given(square=st.integers(0, 39), debtor=st.integers(0, 7))
def test_a_shared_rent_claim_equals_a_fresh_one_and_is_reused(square, debtor):
    a = shared_action(ClaimRent, square, debtor)
    assert a == ClaimRent(square, debtor)
    assert shared_action(ClaimRent, square, debtor) is a
    # another debtor, or another kind of action on the same square, is another object
    assert shared_action(ClaimRent, square, (debtor + 1) % 8) != a
    assert shared_action(Mortgage, square) != a
