"""Drop votes that split (protocol.md §C8.3 "When an honest peer votes", "Split votes"; issue 10):
an alive seat that waits is heard, so the survivors of a crash do not vote against it, and a
peer whose vote time came for several seats names the one the others already named. In
memory, virtual clock, fake engine; each scenario fails (the survivors wait for ever) without
the rule it tests."""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.liveness import Liveness
from p2p.lockstep import GameOver, SeatDropped
from p2p.verify import verify_log
from p2p.wire import MSG_CATCHUP_RESP, MSG_DROP, MSG_HINT, MSG_STEP, decode_drop, decode_step_body, open_envelope

from p2p_harness import Net, random_legal
from test_resilience import logged_game

DROP3 = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}


def _step_of(raw: bytes) -> tuple[int, int] | None:
    """(seat, step) of a STEP envelope, else None."""
    env = open_envelope(raw, C.MAX_CATCHUP_MSG)
    if env.mtype != MSG_STEP:
        return None
    b = decode_step_body(env.body)
    return b.seat, b.step


def _mtype(raw: bytes) -> int:
    return open_envelope(raw, C.MAX_CATCHUP_MSG).mtype


def _crashed(st: dict, src: int, raw: bytes, seat: int, k: int) -> bool:
    """True if ``raw`` from ``src`` is lost because ``seat`` crashed as it sent its message of
    step ``k`` (from then on nothing of it arrives; ``st["crash"]`` notes it)."""
    if src != seat:
        return False
    ss = _step_of(raw)
    if ss is not None and ss[1] >= k:
        st["crash"] = True
    return st["crash"]


# -- the timers (p2p/liveness.py) ----------------------------------------------------------------

def test_an_indirect_sign_of_life_delays_a_vote_by_one_drop_timeout_at_most() -> None:
    """``heard_behind`` (a re-send of the last step, a catch-up request, a vote of this step)
    restarts the seat's silence clock, but only up to one drop timeout after the step's start:
    a replay of a crashed seat's old message cannot hold the step for longer than 2 drop
    timeouts (ALIVE, signed for this step, still can until the turn time)."""
    live = Liveness(1.0)
    live.begin(10.0)
    assert live.vote_time(1, 3.0, 0.0) == 13.0
    live.heard_behind(1, 11.5)
    assert live.vote_time(1, 3.0, 0.0) == 14.5
    for t in range(12, 100):
        live.heard_behind(1, float(t))
    assert live.vote_time(1, 3.0, 0.0) == 16.0  # capped: start + 2 x drop timeout
    assert live.vote_time(1, 3.0, 5.0) == 15.0  # the turn time still bounds it
    live.heard(1, 50.0)  # a signed ALIVE of this step: the player is thinking
    assert live.vote_time(1, 3.0, 0.0) == 53.0
    live.begin(60.0)  # a new step forgets both
    assert live.vote_time(1, 3.0, 0.0) == 63.0


def _resend_gaps(live: Liveness, count: int = 8) -> list[float]:
    """Seconds between ``count`` successive re-sends of a step's message, from a step's start."""
    live.begin(0.0)
    live.arm_resend(0.0)
    now, gaps = C.RESEND_INTERVAL, []
    for _ in range(count):
        assert live.resend_due(now)
        gaps.append(live.resend_at - now)
        now = live.resend_at
    return gaps


def test_a_waiting_seat_re_sends_at_least_every_keepalive_period() -> None:
    """A seat whose message is out sends no ALIVE: its re-sends are what the others hear, so the
    back-off stops at the keep-alive period (drop timeout / 3 when shorter than
    RESEND_MAX_INTERVAL): at least three chances per drop timeout. Seat loss off: the usual cap."""
    assert max(_resend_gaps(Liveness(1.0))) == pytest.approx(1.0)
    assert max(_resend_gaps(Liveness(None))) == pytest.approx(C.RESEND_MAX_INTERVAL)


# -- whole sessions ------------------------------------------------------------------------------

def test_a_live_seat_one_step_behind_is_not_voted_out(tmp_path) -> None:
    """The CI failure (tests/p2p/test_reseat_session.py, n=3 crash_step=9 seed=424 loss=0.1),
    made deterministic: seat 2 crashes as it reaches step K; seat 0 never got seat 2's message of
    step K-1 and its catch-up answers are lost for 4 s, so seat 0 re-sends its step-(K-1)
    message while seat 1 waits at step K for seats 0 and 2. Before: both silent since the step
    began, seat 1 voted against the lowest, the live seat 0, while seat 0 voted against seat
    2: no quorum, both waited for ever. Now seat 0's re-sends are heard: seat 1 votes against
    seat 2, seat 0 catches up and does too, seat 2 is dropped and the game ends."""
    K = 7  # step 0 of a seat-loss game is an escrow round (§C8.2): the game's steps from 1
    sessions, paths, _, _ = logged_game(tmp_path, 3, DROP3)
    st = {"crash": None}

    def drop(src: int, dst: int, raw: bytes) -> bool:
        ss = _step_of(raw)
        if src == 2 and dst == 0 and ss == (2, K - 1):
            return True  # seat 0 lacks seat 2's last message
        if dst == 0 and st["crash"] is not None and net.now < st["crash"] + 4.0 \
                and _mtype(raw) in (MSG_CATCHUP_RESP, MSG_HINT):
            return True  # and cannot catch up for a while
        return False

    def hook(net: Net) -> None:
        s = net.s[2]
        if st["crash"] is None and s is not None and s.step >= K:
            net.s[2] = None
            st["crash"] = net.now
        return None

    net = Net(list(sessions), random_legal(E, seed=5), drop=drop)
    net.run(max_time=1e4, hook=hook)
    assert st["crash"] is not None
    for i in (0, 1):
        assert [(e.step, e.seat) for e in net.events[i] if isinstance(e, SeatDropped)] == [(K, 2)], net.describe()
    o = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in (0, 1)]
    assert all(len(x) == 1 for x in o) and o[0][0].final_hash == o[1][0].final_hash
    for i in (0, 1):
        sessions[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and rep.complete, rep.error


def test_a_spiteful_voter_cannot_split_the_honest_votes(tmp_path) -> None:
    """5 seats (Q = 3). Seat 4 crashes at step K. Seat 1 is spiteful: at step K it keeps its
    message from seat 2 and votes at once against the honest seat 0 (which everyone else holds),
    hoping seat 2 — for which both 1 and 4 are silent since the step began — votes against 1
    (the lowest) and the honest votes split (4 would get 0 and 3 only). Its own vote is a sign
    of life at this step: seat 2 votes against 4 like seats 0 and 3, seat 4 is dropped, and the
    honest seats (and the spiteful one) finish the game with one final hash."""
    K = 5
    sessions, paths, _, _ = logged_game(tmp_path, 5, DROP3)
    st = {"crash": False, "spite": False}

    def drop(src: int, dst: int, raw: bytes) -> bool:
        return _crashed(st, src, raw, 4, K) or (src == 1 and dst == 2 and _step_of(raw) == (1, K))

    def hook(net: Net) -> None:
        s1 = net.s[1]
        if not st["spite"] and s1.step == K and s1.steps.has_own(K):
            # Signed by seat 1 itself: the vote an honest peer would never cast (it holds 0's
            # message or has not waited the drop timeout); sent to everyone.
            s1._out.append(s1.seats.vote(K, 0))  # noqa: SLF001
            st["spite"] = True
        return None

    net = Net(list(sessions), random_legal(E, seed=9), drop=drop)
    net.run(max_time=1e4, hook=hook)
    assert st["spite"] and st["crash"]
    for i in (0, 2, 3):
        assert [(e.step, e.seat) for e in net.events[i] if isinstance(e, SeatDropped)] == [(K, 4)], net.describe()
    o = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in (0, 2, 3)]
    assert all(len(x) == 1 for x in o) and len({x[0].final_hash for x in o}) == 1
    for i in (0, 2, 3):
        sessions[i].log.close()  # (seat 4, silent, lost its seat: SeatLost; not checked here)
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and rep.complete, rep.error


def test_a_voter_names_the_seat_the_others_named(tmp_path) -> None:
    """Seats 3 and 4 of 5 both go silent at step K for seat 0, which holds a vote against 4 when
    its vote time comes for both: it votes against 4 (the lowest would have been 3), so the
    votes gather on one seat."""
    K = 5  # one more than before the escrow round at step 0 (§C8.2)
    sessions, paths, _, _ = logged_game(tmp_path, 5, DROP3)
    s0 = sessions[0]
    net = Net(list(sessions), random_legal(E, seed=2), drop=lambda src, dst, raw: False)
    # Drive the game to step K with everyone up.
    while s0.step < K:
        net.inputs()
        net.deliver()
    # From here seats 3 and 4 send nothing to seat 0; seat 2 votes against 4 (delivered to 0).
    for i in (1, 2):
        while net.s[i].needs_local_input() is not None:
            net.s[i].submit_local_input(net.choose(net.s[i]), now=net.now)
    if s0.needs_local_input() is not None:
        s0.submit_local_input(net.choose(s0), now=net.now)
    for i in (1, 2):
        for raw in net.s[i].messages_to_send():
            s0.receive_message(raw, net.now)
    s0.messages_to_send()
    assert set(s0.waiting_for()) == {3, 4}
    vote = sessions[2].seats.vote(K, 4)
    s0.receive_message(vote, net.now)
    # Two seats due at once: one re-send period later (drop timeout 3 s / 3); and as one vote
    # (it may be a spiteful seat's) is all that separates them, one more (H33, §C8.3).
    t = s0.drop_deadline()
    assert t == pytest.approx(s0.step_started + 3.0 + 2 * 1.0)
    s0.handle_timer(t)
    assert s0.seats.has_voted(K, 4) and not s0.seats.has_voted(K, 3)
    assert any(_mtype(raw) == MSG_DROP for raw in s0.messages_to_send())


def test_a_voter_that_may_not_apply_its_step_is_paused_and_reports_the_stall(tmp_path) -> None:
    """§C8.3 "Split votes": seat 0 of 5 voted against seat 4 (its message came late), then got
    it, but holds no certificate (no step-(K+1) message and no catch-up reaches it) and no
    quorum: it may not apply step K. Before, it was not paused() and reported no stall (no seat
    was silent), so its node waited for ever; now it names seat 4, reports PeerStalled for it
    every STALL_TIMEOUT, and its node abandons after its stall limit like any paused peer. (The
    others' DROP votes of step K+1 are lost too: each is a certificate signer, H106.)"""
    from p2p.lockstep import PeerStalled

    K = 4
    sessions, _, _, _ = logged_game(tmp_path, 5, DROP3)
    s0 = sessions[0]

    def drop(src: int, dst: int, raw: bytes) -> bool:
        if dst != 0:
            return False
        ss = _step_of(raw)
        if ss == (4, K):
            return not s0.seats.voted_at(K)  # seat 4's message arrives once seat 0 voted
        if _mtype(raw) == MSG_DROP:
            return decode_drop(open_envelope(raw, C.MAX_CATCHUP_MSG).body).step > K
        return (ss is not None and ss[1] > K) or _mtype(raw) in (MSG_CATCHUP_RESP, MSG_HINT)

    net = Net(list(sessions), random_legal(E, seed=3), drop=drop)
    net.run(max_time=60.0)
    assert s0.step == K and s0.phase == "running" and s0.seats.has_voted(K, 4)
    assert s0.waiting_for() == ()
    assert s0.paused() == (4,)
    stalls = [e for e in net.events[0] if isinstance(e, PeerStalled)]
    assert stalls and all(e.seats == (4,) and e.step == K for e in stalls)


def test_a_seat_silent_to_one_peer_only_does_not_split_the_votes(tmp_path) -> None:
    """5 seats (Q = 3). Seat 4 crashes at step K; seat 1 (spiteful) sends seat 2 nothing at all
    at step K — no message, no vote — and votes against the honest seat 0 to the others. For
    seat 2 both 1 and 4 fell silent when the step began, while 0 and 3 miss only 4. Before,
    seat 2 named the lowest, 1: {0, 3} against 4, {2} against 1, {1} against 0, no quorum, a
    stall. Now seat 2, whose vote times of two seats coincide, waits one re-send period for
    the others' votes and names 4 with them: 4 is dropped; in the new epoch seat 2 names 1,
    whose message the others then forward to it (§C8.3), and the game ends."""
    K = 5
    sessions, paths, _, _ = logged_game(tmp_path, 5, DROP3)
    st = {"crash": False, "spite": False}

    def drop(src: int, dst: int, raw: bytes) -> bool:
        return _crashed(st, src, raw, 4, K) or (src == 1 and dst == 2 and net.s[1].step == K)

    def hook(net: Net) -> None:
        s1 = net.s[1]
        if not st["spite"] and s1.step == K and s1.steps.has_own(K):
            s1._out.append(s1.seats.vote(K, 0))  # noqa: SLF001 (signed by seat 1: its one vote of K)
            st["spite"] = True
        return None

    net = Net(list(sessions), random_legal(E, seed=4), drop=drop)
    net.run(max_time=1e3, hook=hook)  # the game takes ~100 s; a split would wait for ever
    assert st["crash"] and st["spite"]
    for i in (0, 2, 3):
        assert [e.seat for e in net.events[i] if isinstance(e, SeatDropped)][:1] == [4], net.describe()
    o = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in (0, 2, 3)]
    assert all(len(x) == 1 for x in o) and len({x[0].final_hash for x in o}) == 1, net.describe()
    for i in (0, 2, 3):
        sessions[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and rep.complete, rep.error
