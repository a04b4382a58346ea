"""Lockstep session (DESIGN.md §2, protocol.md §C3, §5): full games over an in-memory network with a
virtual clock, loss recovery by the timer, API misuse, and hostile peers."""

from __future__ import annotations

import random

import pytest

import fake_engine as E
from p2p import const as C
from p2p.errors import LocalProtocolError
from p2p.lockstep import (HALTED, CheatDetected, Desync, Equivocation, GameOver, PeerMisbehaved, StepApplied)
from p2p.wire import MSG_STEP, decode_step_body, open_envelope, pack, seal

from p2p_harness import Net, drain, first_legal, random_legal, started_sessions


def to_first_decision(s0, s1) -> None:
    """Exchange the automatic reveals of two sessions until a decision step (the fake engine
    starts with two chance steps: first player, then the first roll)."""
    while s0.pending.chance:
        m0, m1 = s0.messages_to_send(), s1.messages_to_send()
        for raw in m1:
            s0.receive_message(raw, 0.0)
        for raw in m0:
            s1.receive_message(raw, 0.0)


def finals(net: Net) -> list:
    return [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_full_game_all_peers_agree(n):
    sessions = started_sessions(n, options={"target": 25})
    net = Net(sessions, random_legal(E, seed=n))
    net.run()
    overs = finals(net)
    assert all(len(o) == 1 for o in overs)
    assert len({(o[0].winner, o[0].final_hash, o[0].steps) for o in overs}) == 1
    assert overs[0][0].winner is not None
    assert all(s.phase == "finished" for s in sessions)
    # every peer saw the same sequence of step hashes
    hashes = [[e.state_hash for e in evs if isinstance(e, StepApplied)] for evs in net.events]
    assert all(h == hashes[0] for h in hashes) and len(hashes[0]) == overs[0][0].steps
    assert net.now == 0.0  # no timer was needed on a lossless network


def test_dropped_message_is_recovered_by_the_timer():
    sessions = started_sessions(3)
    dropped = []

    def drop(src, dst, raw):
        b = decode_step_body(open_envelope(raw).body)
        if b.step == 4 and src == 1 and dst == 2 and not dropped:
            dropped.append(raw)
            return True
        return False

    net = Net(sessions, first_legal(E), drop=drop)
    net.run()
    assert dropped
    assert len({o[0].final_hash for o in finals(net)}) == 1
    assert net.now >= C.RESEND_INTERVAL  # progress needed the re-send timer
    assert sum(s.stats["resent"] + s.stats["answered"] for s in sessions) >= 1


def test_heavy_random_loss_still_agrees():
    sessions = started_sessions(4)
    rng = random.Random(7)
    net = Net(sessions, random_legal(E, seed=3), drop=lambda s, d, r: rng.random() < 0.25)
    net.run(max_time=1e6)
    overs = finals(net)
    assert all(len(o) == 1 for o in overs)
    assert len({o[0].final_hash for o in overs}) == 1


def test_api_misuse_raises_and_changes_nothing():
    s0, s1 = started_sessions(2)
    assert s0.pending.chance and s0.needs_local_input() is None  # step 0 picks the first player
    with pytest.raises(LocalProtocolError):
        s0.submit_local_input(None)
    sent = s0.messages_to_send()
    assert sent == [s0.steps.own(0)]  # only the automatic reveal
    s1.receive_message(sent[0], 0.0)
    to_first_decision(s0, s1)
    assert s0.step == 2 and s0.needs_local_input() is not None
    s0.submit_local_input(None)
    with pytest.raises(LocalProtocolError):
        s0.submit_local_input(None)
    assert s0.waiting_for() == (1,)


# --- hostile peers ----------------------------------------------------------------------------

def forge(sess, *, step=None, prev_hash=None, prev_digest=None, inp=None, game_id=None, seat=None):
    """A step message signed with ``sess``'s key (a peer's own key: it can sign anything)."""
    return seal(sess.identity, MSG_STEP, [
        game_id or sess.game_id, sess.step if step is None else step, sess.my_seat if seat is None else seat,
        prev_hash or sess.state_hash, prev_digest or sess.prev_digest, inp])


def test_forged_signature_is_dropped_counted_and_reported():
    """§C3.4: a STEP that is not a forced body (here nil at a chance step; a forced reveal needs
    no signature, §C3.8, tests/p2p/test_forced_session.py) is dropped on a bad signature."""
    s0, s1 = started_sessions(2)
    raw = s1.messages_to_send()[0]
    env = open_envelope(forge(s1, inp=None))
    bad = pack([env.mtype, env.body, env.sig[:-1] + bytes([env.sig[-1] ^ 1])])
    s0.receive_message(bad, 0.0)
    assert s0.stats["bad_signature"] == 1 and s0.phase == "running" and s0.step == 0
    ev = [e for e in drain(s0) if isinstance(e, PeerMisbehaved)]
    assert ev and ev[0].seat == 1 and ev[0].reason == "bad signature" and ev[0].evidence == bad
    s0.receive_message(raw, 0.0)  # the genuine one still goes through
    assert s0.step == 1


def test_replay_from_another_step_and_another_game_is_rejected():
    sessions = started_sessions(2)
    net = Net(sessions, first_legal(E))
    for _ in range(6):
        net.inputs()
        net.deliver()
    s0, s1 = sessions
    old = [raw for src, raw in net.sent_log if src == 1][0]  # seat 1's step-0 message
    step_before = s0.step
    s0.receive_message(old, 0.0)
    assert s0.stats["stale"] == 1 and s0.step == step_before and s0.phase == "running"
    other_game = forge(s1, game_id=b"\x99" * 16)
    s0.receive_message(other_game, 0.0)
    assert s0.stats["wrong_game"] == 1 and s0.phase == "running"
    too_far = forge(s1, step=s1.step + C.STEP_WINDOW)
    s0.receive_message(too_far, 0.0)
    assert s0.stats["too_far"] == 1


def test_equivocation_on_an_applied_step_halts_with_both_messages():
    s0, s1 = started_sessions(2)
    honest = s1.messages_to_send()[0]  # step 0 reveal
    s0.receive_message(honest, 0.0)
    assert s0.step == 1  # step 0 applied; its messages are kept for KEEP_STEPS steps
    other = forge(s1, step=0, inp=None)  # a second, different signed message for step 0
    s0.receive_message(other, 0.0)
    (eq,) = [e for e in drain(s0) if isinstance(e, Equivocation)]
    assert (eq.step, eq.seat, eq.first, eq.second) == (0, 1, honest, other)
    assert s0.phase == HALTED


def test_equivocation_on_a_buffered_step_is_detected():
    s0, s1, s2 = started_sessions(3)
    m1 = s1.messages_to_send()[0]
    s0.receive_message(m1, 0.0)  # s0 holds seat 1's step 0 message; waits for seat 2
    second = forge(s1, inp=b"\x05" * 32)
    s0.receive_message(second, 0.0)
    (eq,) = [e for e in drain(s0) if isinstance(e, Equivocation)]
    assert (eq.step, eq.seat, eq.first, eq.second) == (0, 1, m1, second)
    assert open_envelope(eq.first).verify(s1.identity.public_key)
    assert open_envelope(eq.second).verify(s1.identity.public_key)
    assert s0.phase == HALTED
    s0.receive_message(s2.messages_to_send()[0], 0.0)
    assert s0.step == 0  # halted: nothing more is applied


def test_two_messages_over_different_histories_are_no_equivocation():
    """§C8.3 "asymmetric race", §C8.8: a seat overturned by a drop re-signs a step over another
    prev digest; that second message is superseded, not equivocation, and a complaint with the
    pair proves nothing (issue 9)."""
    from p2p.complaints import check_equivocation

    s0, s1, s2 = started_sessions(3)
    m1 = s1.messages_to_send()[0]
    s0.receive_message(m1, 0.0)
    other = forge(s1, prev_digest=b"\x07" * 32, inp=b"\x05" * 32)  # over another history
    s0.receive_message(other, 0.0)
    assert not [e for e in drain(s0) if isinstance(e, (Equivocation, CheatDetected))]
    assert s0.phase == "running" and s0.stats["superseded"] == 1
    assert check_equivocation(s0.setup, m1, other) is None
    assert check_equivocation(s0.setup, m1, forge(s1, inp=b"\x05" * 32)) == 1  # same history: proven
    s0.receive_message(s2.messages_to_send()[0], 0.0)
    assert s0.step == 1  # applied with the message over our history


def test_wrong_prev_hash_is_a_desync_with_evidence():
    s0, s1 = started_sessions(2)
    s1.messages_to_send()
    bad = forge(s1, prev_hash=b"\x00" * 32, inp=s1.chain.reveal_at(1))
    s0.receive_message(bad, 0.0)
    (d,) = [e for e in drain(s0) if isinstance(e, Desync)]
    assert (d.step, d.seat, d.field, d.theirs) == (0, 1, "state", bad)
    ours = decode_step_body(open_envelope(d.ours).body)
    assert ours.prev_hash == s0.state_hash and open_envelope(d.ours).verify(s0.identity.public_key)
    assert s0.phase == HALTED and s0.dump()["halt_reason"]["type"] == "Desync"


def test_wrong_prev_digest_is_a_desync():
    s0, s1 = started_sessions(2)
    s1.messages_to_send()
    s0.receive_message(forge(s1, prev_digest=b"\x01" * 32, inp=s1.chain.reveal_at(1)), 0.0)
    (d,) = [e for e in drain(s0) if isinstance(e, Desync)]
    assert d.field == "digest"


def test_bad_reveal_is_detected_as_cheating():
    s0, s1 = started_sessions(2)
    s1.messages_to_send()
    bad = forge(s1, inp=b"\x42" * 32)  # not the pre-image of seat 1's chain head
    s0.receive_message(bad, 0.0)
    (c,) = [e for e in drain(s0) if isinstance(e, CheatDetected)]
    assert (c.step, c.seat, c.evidence) == (0, 1, bad)
    assert "reveal" in c.reason and s0.phase == HALTED


def test_undecodable_action_counts_as_nothing_and_is_reported():
    sessions = started_sessions(2)
    s0, s1 = sessions
    to_first_decision(s0, s1)
    assert s0.step == 2 and not s0.pending.chance
    s0.receive_message(forge(s1, inp=["adv", 99]), 0.0)  # outside the engine's action schema
    s0.submit_local_input(None)
    evs = drain(s0)
    assert any(isinstance(e, PeerMisbehaved) and e.reason == "undecodable action" for e in evs)
    assert s0.step == 3 and s0.phase == "running"


def test_messages_for_our_own_seat_from_outside_are_dropped():
    s0, s1 = started_sessions(2)
    s0.receive_message(s0.messages_to_send()[0], 0.0)
    assert s0.stats["bad_seat"] == 1


def test_old_step_message_is_answered_with_our_message_of_that_step():
    sessions = started_sessions(2)
    s0, s1 = sessions
    m0 = s0.messages_to_send()[0]
    m1 = s1.messages_to_send()[0]
    s0.receive_message(m1, 0.0)  # s0 completes step 0; s1 never got m0
    assert s0.step == 1 and s1.step == 0
    s0.messages_to_send()
    s1.handle_timer(s1.get_timer())  # s1 re-sends its step-0 message
    (again,) = s1.messages_to_send()
    s0.receive_message(again, 1.0)
    assert s0.messages_to_send() == [m0]
    s1.receive_message(m0, 1.0)
    assert s1.step == 1
