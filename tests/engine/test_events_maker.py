"""engine.events.maker: the fast constructor builds the very same frozen event as the class."""
import copy
import dataclasses
import pickle

import pytest
from hypothesis import given, settings, strategies as st

from engine import events as E
from engine.events import encode_event, maker

EVENT_CLASSES = [v for v in vars(E).values()
                 if isinstance(v, type) and hasattr(v, "__dataclass_fields__")]
WITH_MAKER = [c for c in EVENT_CLASSES if c in E._MAKERS]

_VALUE = st.one_of(st.integers(-1, 10_000), st.text(max_size=8),
                   st.tuples(st.integers(-1, 40), st.integers(-1, 40)))


def test_most_event_classes_have_a_maker():
    assert len(WITH_MAKER) >= len(EVENT_CLASSES) - 3
    for c in EVENT_CLASSES:
        if c not in E._MAKERS:
            with pytest.raises(KeyError):
                maker(c)


@pytest.mark.parametrize("cls", WITH_MAKER, ids=lambda c: c.__name__)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_maker_builds_what_the_class_builds(cls, data):
    vals = [data.draw(_VALUE) for _ in dataclasses.fields(cls)]
    a, b = maker(cls)(*vals), cls(*vals)
    assert type(a) is cls
    assert a == b and hash(a) == hash(b) and repr(a) == repr(b)
    assert encode_event(a) == encode_event(b)
    assert pickle.loads(pickle.dumps(a)) == b and copy.deepcopy(a) == b
    for f in dataclasses.fields(cls):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(a, f.name, 1)
    if dataclasses.fields(cls):
        f0 = dataclasses.fields(cls)[0].name
        assert dataclasses.replace(a, **{f0: 7}) == dataclasses.replace(b, **{f0: 7})


def test_maker_checks_its_arguments():
    with pytest.raises(TypeError):
        maker(E.Moved)(1, 2)
