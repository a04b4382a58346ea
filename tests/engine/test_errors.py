"""engine.errors: IllegalAction and ``refuse``, the one raise of the rules' ``*_error`` checks."""
from __future__ import annotations

import pytest

import engine as E
from engine.errors import IllegalAction, refuse
from engine.rules import building, mortgage


def test_refuse_raises_code_and_reason_and_passes_none():
    refuse(None)
    with pytest.raises(IllegalAction) as e:
        refuse(("not_owner", "you do not own that property"))
    assert (e.value.code, e.value.reason) == ("not_owner", "you do not own that property")


def test_check_functions_raise_what_the_error_functions_say():
    """building/mortgage ``check_*`` raise exactly the (code, reason) of their ``*_error``."""
    s = E.new_game("classico", 2)
    for sq in range(s.tb.nsq):
        for err, check in ((building.build_error, building.check_build),
                           (building.sell_error, building.check_sell),
                           (mortgage.mortgage_error, mortgage.check_mortgage),
                           (mortgage.lift_error, mortgage.check_lift)):
            want = err(s, 0, sq)
            assert want is not None  # nobody owns anything yet
            with pytest.raises(IllegalAction) as e:
                check(s, 0, sq)
            assert (e.value.code, e.value.reason) == want
