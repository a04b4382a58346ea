"""Canonical encodings (protocol.md part E "Actions", "State encoding")."""
from dataclasses import fields

import msgpack
import pytest
from hypothesis import given, settings, strategies as st

from engine import (decode_action, decode_state, encode_action, encode_event, encode_state,
                    new_game, random_playout, state_hash)
from engine.actions import ACTION_TYPES, Bid, RollDice
from engine.events import MoneyPaid


def test_action_round_trip_every_type():
    for code, cls in ACTION_TYPES.items():
        args = [(3, 5) if str(f.type).startswith("tuple") else 3 for f in fields(cls)]
        sample = cls(*args)
        wire = encode_action(sample)
        assert wire[0] == code
        assert decode_action(msgpack.unpackb(msgpack.packb(wire))) == sample


@pytest.mark.parametrize("bad", [
    None, [], {}, "x", [0], [99], [True], [1, 2], [4], [4, "10"], [4, 1.5], [4, True],
    [4, 2**40], [13, 1], [13, 1, [3, 1]], [13, 1, [1, 1]], [13, 1, "ab"], [13, 1, [1] * 65],
    [12, 1, [], [], 0, 0, [], []], ["4", 10],
])
def test_decode_action_rejects_malformed(bad):
    with pytest.raises(ValueError):
        decode_action(bad)


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=3)
                    | st.floats(allow_nan=False),
                    lambda c: st.lists(c, max_size=5) | st.dictionaries(st.text(max_size=2), c,
                                                                          max_size=3),
                    max_leaves=12))
@settings(max_examples=300, deadline=None)
def test_decode_action_never_crashes_on_hostile_input(obj):
    try:
        a = decode_action(obj)
    except ValueError:
        return
    assert decode_action(encode_action(a)) == a


def test_state_round_trip_and_hash_stable():
    s, _ = random_playout(3, seats=4, max_steps=2000)
    b = encode_state(s)
    s2 = decode_state(b)
    assert encode_state(s2) == b and state_hash(s2) == state_hash(s)
    assert state_hash(new_game("classico", 2)) == state_hash(new_game("classico", 2))
    assert state_hash(new_game("classico", 2)) != state_hash(new_game("classico", 3))


@pytest.mark.parametrize("mutate", [
    lambda o: o[:-1], lambda o: [2] + o[1:], lambda o: o[:1] + ["nope"] + o[2:],
    lambda o: o[:3] + [1.5] + o[4:], lambda o: o[:19] + [[1500]] + o[20:],
])
def test_decode_state_rejects_malformed(mutate):
    obj = msgpack.unpackb(encode_state(new_game("classico", 2)))
    with pytest.raises(ValueError):
        decode_state(msgpack.packb(mutate(obj)))
    with pytest.raises(ValueError):
        decode_state(b"\xc1garbage")


def test_encode_event():
    assert encode_event(MoneyPaid(-1, 0, 200, "salary")) == ["MoneyPaid", -1, 0, 200, "salary"]
    assert encode_action(RollDice()) == [1] and encode_action(Bid(12)) == [4, 12]
