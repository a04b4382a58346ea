"""step_collect.StepCollector's gate queries (protocol.md §C3.4, §C8.10) and
send_stream.SendStream.next_due (§N2.5), against their definitions written out plainly.

Both run several times per step and per datagram, so they are written as plain loops (issue 14);
these properties pin them to the rules they replace: ``complete`` = every awaited seat's message
is held, ``missing`` = the awaited seats whose message is not, ``next_due`` = the earliest
``sent_at + RTO of its kind`` over the datagrams in flight."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, strategies as st

from p2p.datagram import FLAG_ACK_NOW
from p2p.send_stream import SendStream
from p2p.step_collect import Held, StepCollector


@st.composite
def _table(draw):
    n = draw(st.integers(1, 8))
    held = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    active = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return n, draw(st.integers(0, n - 1)), held, active, draw(st.booleans())


@given(_table())
def test_complete_and_missing_are_the_rule_over_the_awaited_seats(table):
    n, me, held, active, any_slot = table
    c = StepCollector(n, me, b"\0" * 32)
    step = 7
    for i, h in enumerate(held):
        if h:
            c.hold(step, i, Held(None, SimpleNamespace(raw=bytes([i]))))
    if not any_slot:
        step = 8  # a step with no slot yet: nothing held
        held = [False] * n
    assert c.keeps(step) == any(held)  # a step's slots exist once a message of it is held
    assert c.complete(step, active) == (any(held) and all(held[i] for i in range(n) if active[i]))
    assert c.missing(step, active) == tuple(i for i in range(n) if active[i] and not held[i])


_STATS = dict.fromkeys(("payloads_sent", "copies_sent", "retransmits", "fast_retransmits", "rtt_samples",
                        "timeouts"), 0)


@given(st.lists(st.tuples(st.floats(0.0, 5.0), st.booleans()), min_size=1, max_size=12),
       st.integers(0, 11))
def test_next_due_is_the_earliest_timeout_in_flight(sends, acked):
    s = SendStream(dict(_STATS), None)
    out: list = []
    now = 0.0
    for gap, _ in sends:  # one datagram each, sent ``gap`` s after the previous one
        now += gap
        s.send(b"x" * 20, ("127.0.0.1", 1))
        s.emit(lambda *a: b"d", 1, 0, 0, ("127.0.0.1", 1), now, out)
    for (_, prompt), entry in zip(sends, s.inflight.values()):
        if prompt:
            entry[0] |= FLAG_ACK_NOW  # as the lossy regime sends it (§N2.4)
    s.next_due()  # cached answer; the ack below must not leave it stale
    s.on_ack(min(acked, len(sends) - 1), 0, now)
    delayed, prompt_rto = s.recovery.rtos()
    want = min(e[2] + (prompt_rto if e[0] & FLAG_ACK_NOW else delayed) for e in s.inflight.values())
    assert s.next_due() == want
