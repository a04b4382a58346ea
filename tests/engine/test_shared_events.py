"""engine.rules.movement's prebuilt TurnStarted/DiceRolled events (issue 14): the event a turn
appends equals a freshly built one (same class, fields, hash, repr, encoding), for every seat
and dice; dice outside the table (a bool, a value off 1..6) still get their own event."""
from __future__ import annotations

from hypothesis import given, strategies as st

from engine.events import DiceRolled, TurnStarted, encode_event
from engine.game import new_game
from engine.rules import movement
from engine.state import DICE_JAIL, P_DICE


def _same(a, b) -> None:
    assert type(a) is type(b)
    assert a == b and hash(a) == hash(b) and repr(a) == repr(b)
    assert encode_event(a) == encode_event(b)


@given(seats=st.integers(2, 8), data=st.data())
def test_start_turn_appends_a_turn_started_equal_to_a_fresh_one(seats, data):
    s = new_game("classico", seats)
    seat = data.draw(st.integers(0, seats - 1))
    ev: list = []
    movement.start_turn(s, ev, seat)
    _same(ev[-1], TurnStarted(seat))


@given(seats=st.integers(2, 8), data=st.data(),
       d1=st.one_of(st.integers(1, 6), st.integers(0, 20), st.booleans()),
       d2=st.one_of(st.integers(1, 6), st.integers(0, 20), st.booleans()))
def test_apply_dice_appends_a_dice_rolled_equal_to_a_fresh_one(seats, data, d1, d2):
    s = new_game("classico", seats)
    s.current = data.draw(st.integers(0, seats - 1))
    s.phase = P_DICE
    s.dice_for = DICE_JAIL  # a jail try: no move, so any dice values are safe to apply
    s.jail[s.current] = 1
    ev: list = []
    movement.apply_dice(s, ev, d1, d2)
    _same(ev[0], DiceRolled(s.current, d1, d2))
