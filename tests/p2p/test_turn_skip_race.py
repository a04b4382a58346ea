"""Turn skip inside ``LockstepSession`` (protocol.md §C8.10, precedence drop > skip > the seat's
message): a property over real sessions and any delivery order (a race of the idle seat's late
message against the skip votes, or random delivery) — no two peers ever keep different outcomes
of the same slot. In memory, virtual clock, fake engine.
"""

from __future__ import annotations

import random

import fake_engine as E
import msgpack
import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st
from p2p.gamelog import KIND_SKIP, KIND_STEP, LogReader
from p2p.lockstep import StepOverturned

from p2p_harness import Net

from turn_skip_kit import game


def _reach_decision_of_one_seat(sessions, min_step: int = 3):
    """Play (first legal inputs) until the current step is a skippable decision step of one
    actor, every peer at it with nothing sent yet; returns that actor."""
    net = Net(sessions, lambda s: (E.legal_actions(s.state, s.my_seat) or [None])[0])
    for _ in range(500):
        s0 = sessions[0]
        if s0.step >= min_step and s0.skippable() and len(s0.pending.actors) == 1 \
                and all(s.step == s0.step and not s.steps.has_own(s.step) for s in sessions):
            return s0.pending.actors[0]
        if not net.inputs():
            net.deliver()
    raise AssertionError("no decision step reached")


@pytest.mark.parametrize("mode", ["race", "random"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(3, 4), st.data())
def test_property_real_sessions_never_keep_different_outcomes(tmp_path_factory, mode, n, data):
    """Real LockstepSessions (fake engine): at a decision step k of seat d, the others send
    their messages; d sends its message at a random moment (or never); a random set of the
    others press the skip key at random moments; every datagram is delivered, in any order
    (one destination at a time). Whatever the order: no peer halts except a non-voter that
    applied d's message and then saw the skip certificate (StepOverturned(k, d), the roll back
    of §C8.10); every peer that applied k and did not roll back logged the same step-k record
    (and the same kind-6 record or none)."""
    sessions, paths = game(n, tmp_path_factory.mktemp("prop"))
    d = _reach_decision_of_one_seat(sessions)
    k = sessions[0].step
    others = [i for i in range(n) if i != d]
    # "race": every other seat votes and d applied its own message first (the roll back case);
    # "random": any voters, d sends or not, any order.
    race = mode == "race"
    voters = frozenset(others) if race else data.draw(st.sets(st.sampled_from(others)), "voters")
    d_sends = race or data.draw(st.booleans(), "d sends")
    now = [sessions[0].step_started]
    pool: list[tuple] = [("press", v) for v in sorted(voters)] + ([("d",)] if d_sends else [])

    def flush(i: int) -> None:
        for raw in sessions[i].messages_to_send():
            pool.extend(("msg", i, j, raw) for j in range(n) if j != i)

    def play(i: int) -> None:
        s = sessions[i]
        if s.phase == "running" and s.step <= k + 1 and (i != d or s.step > k) and s.needs_local_input() is not None:
            s.submit_local_input((E.legal_actions(s.state, s.my_seat) or [None])[0], now=now[0])

    for i in others:
        play(i)
        flush(i)
    if race:
        # d gets the others' messages first and applies k with its own at once, before any
        # other peer holds it: the race of §C8.10 that ends in a roll back when a quorum skips.
        for ev in [ev for ev in pool if ev[0] == "msg" and ev[2] == d]:
            pool.remove(ev)
            sessions[d].receive_message(ev[3], now[0])
        pool.remove(("d",))
        s = sessions[d]
        s.submit_local_input((E.legal_actions(s.state, d) or [None])[0], now=now[0])
        assert s.step == k + 1
        play(d)
        flush(d)
        for v in sorted(voters):  # and every other player has pressed J already
            pool.remove(("press", v))
            assert sessions[v].skip_turn(d, now=now[0])
            flush(v)
    # One drawn seed orders every delivery (thousands of draws would overrun hypothesis's buffer
    # when a roll back brings catch-up pages).
    order = random.Random(data.draw(st.integers(0, 2**32 - 1), "delivery order seed"))
    for _ in range(6000):
        if not pool:
            break
        ev = pool.pop(order.randrange(len(pool)))
        now[0] += 0.3  # past every answer rate limit: nothing is refused for being too soon
        if ev[0] == "d":
            s = sessions[d]
            if s.step == k and s.needs_local_input() is not None:
                s.submit_local_input((E.legal_actions(s.state, d) or [None])[0], now=now[0])
            touched = [d]
        elif ev[0] == "press":
            sessions[ev[1]].skip_turn(d, now=now[0])
            touched = [ev[1]]
        else:
            _, src, dst, raw = ev
            sessions[dst].receive_message(raw, now[0])
            touched = [dst]
        for i in touched:
            play(i)
            flush(i)
    halts = {i: s.halt_reason for i, s in enumerate(sessions) if s.halt_reason is not None}
    for i, why in halts.items():
        assert isinstance(why, StepOverturned) and (why.step, why.seat) == (k, d), (i, why)
        assert i not in voters  # the voter's promise: a voter never rolls back
    for s in sessions:
        s.log.close()
    records = {}
    for i, p in enumerate(paths):
        if i in halts:
            continue
        recs = [r for r in LogReader(p) if r.kind in (KIND_STEP, KIND_SKIP)]
        at_k = [(r.kind, r.payload) for r in recs if msgpack.unpackb(r.payload)[0] == k]
        if any(kind == KIND_STEP for kind, _ in at_k):
            records[i] = at_k
    assert len({tuple(v) for v in records.values()}) <= 1, {i: [x[0] for x in v] for i, v in records.items()}
    outcome = "none" if not records else "skip" if any(kind == KIND_SKIP for kind, _ in next(iter(records.values()))) \
        else "message"
    event(f"outcome {outcome}, rolled back {len(halts)}")
    event(f"n={n} voters={len(voters)} d_sends={d_sends} -> {outcome}")
