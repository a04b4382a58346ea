"""No vote below our signed step (protocol.md §C10 'No vote below our signed step', §C8.3 'A voter's
promise'; H117's review #2, H118). A peer whose game log was damaged (a torn last record) resumes
at step j - 1 while its own-message log holds its STEP of step j, signed before the crash over
a history in which it applied j - 1 with every active seat's message. That message counts in
the voters' certificates as its seat never voting at j - 1, so the restarted peer casts no
DROP vote and no SKIP vote below j (``resume.Restart.promised``, ``OwnStep.promised``) until
the session reaches j, or a step whose STEP of ours no longer fits the history. Before the
rule, H117's shape (the restarted seat cut off from the others) made it vote DROP(j - 1, 0).
In memory, virtual clock, a few tenths of a second each."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

import fake_engine as E
from p2p.lockstep import CheaterProven, GameOver, SeatDropped, SeatDropVoted
from p2p.resume import Restart, resume_session
from p2p.verify import verify_log
from p2p.wire import MSG_DROP, MSG_STEP

from p2p_harness import Net, random_legal
from test_resilience import DROP, logged_game


def _crash_with_torn_log(tmp_path: Path, cut_for: float, stop_seat0: bool):
    """Seat 1 is killed right after sending its STEP of a step j > 12 whose step before is a
    decision step (skippable), its log's last record (step j - 1's) torn, and restarted one
    second later; its inbound is cut for ``cut_for`` s from then; ``stop_seat0``: seat 0 stops
    for good at the restart. Returns (net, paths, state): state["j"], state["at_restart"]
    (what the resumed session said of its votes then), state["events_before"]."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 3, {**DROP, "target": 80})  # drop timeout 5 s
    secret = secrets[1]
    own_path = Path(str(paths[1]) + ".own")
    first = sessions[1]
    state: dict = {"skippable": {}, "snap": None, "cut_until": None}

    def on_sent() -> None:
        if first.phase != "running" or first.replaying:
            return
        k = first.step
        state["skippable"][k] = first.skippable()
        if state["snap"] is None and k > 12 and state["skippable"].get(k - 1):
            state["snap"] = (k, paths[1].read_bytes(), own_path.read_bytes())

    first.own.on_sent = on_sent

    def hook(net):
        if state["snap"] is not None and net.s[1] is first:
            first.log.close()
            first.own_log.close()
            paths[1].write_bytes(state["snap"][1][:-7])  # the last record (step j - 1's) torn
            own_path.write_bytes(state["snap"][2])  # ... our STEP of j written ahead and sent
            net.s[1] = None
            return net.now + 1.0
        if net.s[1] is None:
            s2, rep = resume_session(paths[1], first.identity, secret, E, own_log_path=str(own_path), now=net.now)
            state["j"] = j = state["snap"][0]
            state["at_restart"] = {
                "damage": rep.damage, "step": s2.step, "promised": s2.own.promised(),
                "skippable": s2.skippable(), "drop_deadline": s2.drop_deadline(), "paused": s2.paused(),
                "vote_out": s2.vote_out(0, now=net.now), "skip_turn": s2.skip_turn(0, now=net.now)}
            state["events_before"] = len(net.events[1])
            state["restarted"] = net.s[1] = s2
            state["cut_until"] = net.now + cut_for
            if stop_seat0:
                net.s[0] = None
            assert j == s2.step + 1
        return None

    def drop(src, dst, raw):
        return state["cut_until"] is not None and net.now < state["cut_until"] and dst == 1

    net = Net(list(sessions), random_legal(E, seed=7), drop=drop)
    net.run(max_time=5000, max_rounds=5_000_000, hook=hook)
    return net, paths, state


def _votes_after_restart(net, state):
    return [(e.step, e.seat) for e in net.events[1][state["events_before"]:] if isinstance(e, SeatDropVoted)]


def test_a_restarted_peer_cut_off_never_votes_below_the_step_it_signed_and_finishes_with_the_others(tmp_path):
    net, paths, state = _crash_with_torn_log(tmp_path, cut_for=300.0, stop_seat0=False)
    at = state["at_restart"]
    assert at["damage"] is not None and "truncated" in at["damage"].reason and at["step"] == state["j"] - 1
    assert at["promised"] and at["skippable"]  # a decision step the player could skip, but ...
    assert at["drop_deadline"] is None and not at["vote_out"] and not at["skip_turn"]  # ... no vote of ours
    assert set(at["paused"]) == {0, 2}  # no drop comes from us: paused on the seats we wait for
    assert all(step >= state["j"] for step, _ in _votes_after_restart(net, state))  # was [(j - 1, 0)]
    assert not any(isinstance(e, CheaterProven) for evs in net.events for e in evs)
    assert all(s.phase == "finished" and s.halt_reason is None for s in net.s), net.describe()
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
    assert not net.s[1].own.promised()  # the promise ended when the catch-up reached j
    for i, p in enumerate(paths):
        net.s[i].log.close()
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error


def test_once_it_reaches_its_signed_step_the_restarted_peer_votes_as_any_peer(tmp_path):
    net, _, state = _crash_with_torn_log(tmp_path, cut_for=0.0, stop_seat0=True)  # seat 0 gone at the restart
    votes = _votes_after_restart(net, state)
    assert votes and all(step >= state["j"] and seat == 0 for step, seat in votes), votes
    assert any(isinstance(e, SeatDropped) and e.seat == 0 for e in net.events[1])
    live = [net.s[1], net.s[2]]
    assert all(s.phase == "finished" for s in live), net.describe()
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in (1, 2)]
    assert all(len(o) == 1 for o in overs) and overs[0][0].final_hash == overs[1][0].final_hash


def _fake_session(step: int, adopts: bool) -> SimpleNamespace:
    return SimpleNamespace(step=step, spectator=False, own=SimpleNamespace(adopt_own=lambda raw: adopts),
                           votes=SimpleNamespace(adopt=lambda raw: True))


@settings(max_examples=200, deadline=None)
@given(start=st.integers(0, 20), signed=st.sets(st.integers(1, 12), max_size=6),
       voted=st.sets(st.integers(1, 12), max_size=3),
       walk=st.lists(st.tuples(st.integers(0, 3), st.booleans()), max_size=12))
def test_the_promise_holds_below_the_last_signed_step_until_it_is_reached_or_the_history_changes(
        start, signed, voted, walk):
    """``Restart.promised``: after ``keep`` of our STEPs of steps start + s (s in ``signed``) and
    our DROP votes of steps start + v (v in ``voted``), every step below the highest of them is
    promised; the session then enters steps one after another (``reached``; a STEP of ours that
    no longer fits the history is refused): the promise ends at the first step >= the highest,
    or at the first refused STEP of ours, and never comes back."""
    r = Restart()
    for s in signed:
        r.keep(start + s, bytes((0x93, MSG_STEP)) + b"step-%d" % s)  # envelope header of a STEP
    for v in voted:
        r.keep(start + v, bytes((0x93, MSG_DROP)) + b"drop-%d" % v)
    top = start + max(signed | voted | {0})
    assert all(r.promised(k) for k in range(start, top)) and not r.promised(top)
    step, ended, kept = start, False, {start + s for s in signed}
    for gap, adopts in walk:
        step += gap
        has_own = step in kept  # taken once: entering a step again brings nothing more
        kept = {k for k in kept if k > step}
        r.reached(_fake_session(step, adopts))
        ended = ended or step >= top or (has_own and not adopts)
        assert r.promised(step) == (not ended), (step, top, ended)


def test_a_fresh_session_promises_nothing_and_a_later_drop_vote_promises_the_steps_below_it():
    r = Restart()
    assert not r.promised(0)
    r.keep(7, bytes((0x93, MSG_DROP)) + b"drop")  # our DROP vote of step 7: we had applied 6
    assert r.promised(5) and r.promised(6) and not r.promised(7)
