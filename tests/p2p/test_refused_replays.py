"""Replays of a refused STEP cost no second verify (protocol.md §C3.4 'Refused messages').

A signed STEP that is verified and then refused — a lone mismatch (§C3.4 'One seat's word':
signed over another history), a plain chance step's message that is not its seat's forced body
(§C3.8, ``not_forced``), a second message of a seat over another history than the one we hold
or applied (superseded) — is not held, so a replay of the same bytes would be verified again,
one Ed25519 verify each time, at every honest peer it reaches. ``step_collect.StepCollector``
keeps the SHA-256 digests of the refused envelopes per kept step and epoch (at most
``REFUSED_KEEP`` each) and the inbox drops their replays before anything else, counted
``refused_again``. Verifies are counted by wrapping ``p2p.envelope.verify``. In memory,
virtual clock, fake engine."""

from __future__ import annotations

from unittest.mock import patch

import pytest
from hypothesis import given, settings, strategies as st

import fake_engine as E
from p2p import const as C, envelope, step_collect
from p2p.lockstep import Desync, GameOver, PeerMisbehaved
from p2p.step_collect import StepCollector
from p2p.wire import decode_step_body, open_envelope

from p2p_harness import Net, random_legal, started_sessions
from test_forced_session import REASON, garble, misbehaved, with_acks
from test_redteam_s10_desync import CHEAT, OPTS, WrongStateHash
from test_resilience import logged_game

REPLAYS = 10


@pytest.fixture
def verifies(monkeypatch):
    """The bodies ``p2p.envelope.verify`` was asked to check, in order."""
    seen: list[bytes] = []
    real = envelope.verify

    def counting(public_key, domain, body, sig):
        seen.append(body)
        return real(public_key, domain, body, sig)

    monkeypatch.setattr(envelope, "verify", counting)
    return seen


def test_a_refused_not_forced_message_is_verified_once_however_often_it_comes(verifies):
    """§C3.4 'Refused messages', §C3.8: seat 1's signed reveal with an ack at plain chance step
    0, sent REPLAYS times: one verify, one ``not_forced`` and one report; the replays counted
    ``refused_again``; the seat's forced body is still taken and the step applies."""
    s0, s1, s2 = started_sessions(3)
    raw = s1.messages_to_send()[0]
    bad = with_acks(s1, raw)
    body = open_envelope(bad).body
    for _ in range(REPLAYS):
        s0.receive_message(bad, 0.0)
    assert verifies.count(body) == 1
    assert s0.stats["not_forced"] == 1 and s0.stats["refused_again"] == REPLAYS - 1
    assert len(misbehaved(s0, REASON)) == 1 and s0.steps.held(0, 1) is None
    s0.receive_message(raw, 0.0)
    s0.receive_message(s2.messages_to_send()[0], 0.0)
    assert s0.step == 1 and s0.phase == "running"


def test_over_a_held_forced_body_the_refused_message_costs_no_more_verifies(verifies):
    """§C3.8: seat 1's forced body is held unchecked (garbage signature); its signed body with
    an ack is refused after two verifies (its own and the held one's); its replays cost none."""
    s0, s1, _ = started_sessions(3)
    raw = s1.messages_to_send()[0]
    s0.receive_message(garble(raw), 0.0)
    bad = with_acks(s1, raw)
    for _ in range(REPLAYS):
        s0.receive_message(bad, 0.0)
    assert verifies.count(open_envelope(bad).body) == 1 and verifies.count(open_envelope(raw).body) == 1
    assert s0.stats["not_forced"] == 1 and s0.stats["refused_again"] == REPLAYS - 1
    assert s0.steps.held(0, 1).env.raw == garble(raw)


class ReplayedLie(WrongStateHash):
    """``WrongStateHash`` (seat CHEAT's step-k message to victim 0 signed over a flipped state
    hash), the lie delivered REPLAYS times, and again each time the cheater re-sends step k."""

    def __call__(self, src: int, dst: int, data: bytes) -> bool:
        told = dst in self.told
        dropped = super().__call__(src, dst, data)
        if dropped and self.lie is not None and decode_step_body(open_envelope(data).body).step == self.k:
            for _ in range(REPLAYS - 1 if not told else 1):
                self.net.s[dst].receive_message(self.lie, self.net.now)
        return dropped


def test_a_lone_mismatch_is_verified_once_however_often_it_is_replayed(tmp_path, verifies):
    """§C3.4 'One seat's word' + 'Refused messages': the victim refuses the lie once (one verify,
    one report), drops its replays unverified (``refused_again``) and the game goes on: the
    seat's real message is applied, nobody halts or is dropped, all finish."""
    sessions, _, _, _ = logged_game(tmp_path, 4, OPTS)
    atk = ReplayedLie(sessions, (0,), "state")
    net = atk.net = Net(list(sessions), random_legal(E, seed=5), drop=atk)
    net.run(max_time=1e4)
    assert atk.lie is not None
    assert verifies.count(open_envelope(atk.lie).body) == 1
    assert sessions[0].stats["refused_again"] >= REPLAYS - 1
    reports = [e for e in net.events[0] if isinstance(e, PeerMisbehaved) and "another history" in e.reason]
    assert len(reports) == 1
    assert not any(isinstance(e, Desync) for i in range(3) for e in net.events[i]), net.describe()
    assert all(any(isinstance(e, GameOver) for e in net.events[i]) for i in range(3)), net.describe()


def test_an_epoch_or_the_steps_end_forgets_the_refused():
    """``StepCollector.refuse``: remembered per step for its epoch (a drop starts another epoch:
    a replay is judged again) until the step is forgotten (``applied``, ``KEEP_STEPS`` later)
    or ``forget_refused`` (an overturn)."""
    c = StepCollector(3, 0, b"\0" * 32)
    c.refuse(5, 0, b"a")
    c.refuse(4, 0, b"old")
    assert c.refused(5, 0, b"a") and not c.refused(5, 0, b"b") and not c.refused(5, 1, b"a")
    assert not c.refused(6, 0, b"a") and c.refused(4, 0, b"old")
    c.refuse(5, 1, b"b")  # another epoch: that step's first-epoch ones are forgotten
    assert c.refused(5, 1, b"b") and not c.refused(5, 0, b"a") and not c.refused(5, 1, b"a")
    c.applied(4 + C.KEEP_STEPS - 1)  # step 4 forgotten with its slots, step 5 kept
    assert not c.refused(4, 0, b"old") and c.refused(5, 1, b"b")
    c.forget_refused()
    assert not c.refusals and not c.refused(5, 1, b"b")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.binary(max_size=3)), max_size=80))
def test_property_refused_is_only_what_was_refused_and_stays_bounded(calls):
    """Whatever is refused: ``refused(step, epoch, raw)`` is True exactly for bytes refused at
    that step in that epoch since the step's last epoch change, at most ``REFUSED_KEEP`` of
    them per step (here 3, so that the bound is met)."""
    c = StepCollector(3, 0, b"\0" * 32)
    model: dict = {}
    with patch.object(step_collect, "REFUSED_KEEP", 3):
        for step, epoch, raw in calls:
            c.refuse(step, epoch, raw)
            if model.get(step, (None,))[0] != epoch:
                model[step] = (epoch, [])
            kept = model[step][1]
            if raw not in kept and len(kept) < 3:
                kept.append(raw)
            assert all(len(v[1]) <= 3 for v in c.refusals.values())
    for s in range(4):
        for e in range(3):
            for r in {x for _, _, x in calls} | {b"never"}:
                assert c.refused(s, e, r) == (s in model and model[s][0] == e and r in model[s][1])
