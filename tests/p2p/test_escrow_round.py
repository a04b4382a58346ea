"""The escrow round (protocol.md §C8.2, p2p/escrow_acks.py wired into lockstep and verify): a
chance step begins only once every active seat's escrow is CONFIRMED by the applied STEPs'
acknowledgements; until then the step is an escrow round (inputs nil, no engine transition).
A dealer that deals to nobody and a recipient that never acknowledges lose their seat; the
honest seats finish with one final hash and logs that verify."""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.lockstep import CheaterProven, GameOver, SeatDropped, StepApplied
from p2p.verify import verify_log
from p2p.wire import MSG_ESCROW, MSG_STEP, decode_step_body, open_envelope

from p2p_harness import Net, random_legal
from test_resilience import logged_game

OPTS = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}


def _kinds(events):
    return [e.kind for e in events if isinstance(e, StepApplied)]


def _finish_together(net, paths, honest):
    finals = {e.final_hash for i in honest for e in net.events[i] if isinstance(e, GameOver)}
    assert len(finals) == 1, finals
    for i in honest:
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and rep.complete, (i, rep.error)


def test_the_first_chance_step_waits_for_one_escrow_round_then_acks_ride_in_steps(tmp_path):
    sessions, paths, _, _ = logged_game(tmp_path, 4, OPTS)
    net = Net(list(sessions), random_legal(E, seed=1))
    net.run(max_time=1e4)
    kinds = _kinds(net.events[0])
    assert kinds[0] == "escrow" and kinds.count("escrow") == 1  # game start only: no drop later
    assert all(_kinds(ev) == kinds for ev in net.events)
    _finish_together(net, paths, range(4))
    # Every seat acknowledged the three other escrows exactly once, in its step-0 message.
    for i in range(4):
        acks = []
        for src, raw in net.sent_log:
            env = open_envelope(raw, C.MAX_STEP_MSG)
            if src == i and env.mtype == MSG_STEP:
                acks += [a.dealer for a in decode_step_body(env.body).acks]
        assert sorted(set(acks)) == [d for d in range(4) if d != i]


def test_no_escrow_round_without_seat_loss(tmp_path):
    sessions, paths, _, _ = logged_game(tmp_path, 3, {"target": 40})
    net = Net(list(sessions), random_legal(E, seed=2))
    net.run(max_time=1e4)
    assert "escrow" not in _kinds(net.events[0])
    _finish_together(net, paths, range(3))


def test_a_dealer_that_deals_to_nobody_is_voted_out(tmp_path):
    sessions, paths, _, _ = logged_game(tmp_path, 4, OPTS)
    bad = 3

    def drop(src, dst, data):
        return src == bad and data[:2] == bytes([0x93, MSG_ESCROW])
    net = Net(list(sessions), random_legal(E, seed=3), drop=drop)
    net.run(max_time=1e4)
    for i in range(3):
        assert [(e.seat, e.reconstructed) for e in net.events[i] if isinstance(e, SeatDropped)] == [(bad, False)]
        assert not [e for e in net.events[i] if isinstance(e, CheaterProven)]
    _finish_together(net, paths, range(3))


def test_a_recipient_that_never_acknowledges_is_proven_by_history(tmp_path):
    sessions, paths, _, _ = logged_game(tmp_path, 4, OPTS)
    mute = 2
    sessions[mute].seats.owed_acks = lambda: ()  # its STEPs never acknowledge an escrow
    net = Net(list(sessions), random_legal(E, seed=4))
    net.run(max_time=1e4)
    for i in (0, 1, 3):
        assert {e.seat for e in net.events[i] if isinstance(e, CheaterProven)} == {mute}
        assert [e.seat for e in net.events[i] if isinstance(e, SeatDropped)] == [mute]
    _finish_together(net, paths, (0, 1, 3))
    for i in (0, 1, 3):
        assert {c["seat"] for c in verify_log(paths[i], engine=E).cheaters} == {mute}


def test_acks_that_do_not_fit_wait_for_the_next_step(tmp_path, monkeypatch):
    """§C8.2: a STEP that would pass MAX_STEP_MSG with all its acks carries the first ones that
    fit; the others stay owed and ride in the sender's next STEP (here: one ack per message)."""
    import p2p.own_step as L  # our STEP is sealed there (OwnStep.send_own)
    real = L.seal_envelope

    def small(identity, mtype, body):
        if mtype == MSG_STEP and len(body.acks) > 1:
            raise L.LocalProtocolError("oversize")
        return real(identity, mtype, body)
    monkeypatch.setattr(L, "seal_envelope", small)
    sessions, paths, _, _ = logged_game(tmp_path, 4, OPTS)
    net = Net(list(sessions), random_legal(E, seed=1))
    net.run(max_time=1e4)
    sent = [decode_step_body(open_envelope(raw, C.MAX_STEP_MSG).body) for src, raw in net.sent_log
            if src == 0 and open_envelope(raw, C.MAX_STEP_MSG).mtype == MSG_STEP]
    first = {}
    for b in sent:
        for a in b.acks:
            first.setdefault(a.dealer, b.step)
    assert sorted(first) == [1, 2, 3] and len(set(first.values())) == 3  # one per step
    _finish_together(net, paths, range(4))
