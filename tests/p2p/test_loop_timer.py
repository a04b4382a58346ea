"""``loop_timer.LoopTimer`` (the asyncio timer of ``Link`` and ``Node``): one handle at the earliest
deadline asked since it last fired; a later ask keeps it, an earlier one replaces it. Driven with a
stand-in loop that records ``call_at`` (no clock, nothing waits)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from p2p.loop_timer import LoopTimer


class Handle:
    def __init__(self, when, fn):
        self.when, self.fn, self.cancelled = when, fn, False

    def cancel(self):
        self.cancelled = True


class Loop:
    """``call_at`` only: the handles made, in order."""

    def __init__(self):
        self.handles: list[Handle] = []

    def call_at(self, when, fn):
        h = Handle(when, fn)
        self.handles.append(h)
        return h

    def live(self):
        return [h for h in self.handles if not h.cancelled]


def test_a_later_deadline_keeps_the_armed_handle_an_earlier_one_replaces_it():
    loop, fired = Loop(), []
    t = LoopTimer(loop, lambda: fired.append(t.at))
    t.arm(None)
    assert loop.handles == [] and t.at is None
    t.arm(5.0)
    t.arm(7.0)  # later: kept, no new handle
    assert [h.when for h in loop.handles] == [5.0] and t.at == 5.0
    t.arm(3.0)  # earlier: the old one cancelled
    assert [(h.when, h.cancelled) for h in loop.handles] == [(5.0, True), (3.0, False)]
    h = loop.live()[0]
    h.cancelled = True  # the loop runs it: no longer pending
    h.fn()
    assert fired == [None] and t.at is None  # disarmed before fire runs: it may arm again
    t.arm(9.0)
    assert t.at == 9.0 and len(loop.live()) == 1
    t.cancel()
    t.cancel()  # idempotent
    assert loop.live() == [] and t.at is None


@given(st.lists(st.one_of(st.none(), st.floats(0, 100)), max_size=30))
def test_the_armed_time_is_the_earliest_asked_and_one_handle_is_live(asks):
    loop = Loop()
    t = LoopTimer(loop, lambda: None)
    for when in asks:
        t.arm(when)
    times = [w for w in asks if w is not None]
    assert t.at == (min(times) if times else None)
    assert [h.when for h in loop.live()] == ([min(times)] if times else [])
