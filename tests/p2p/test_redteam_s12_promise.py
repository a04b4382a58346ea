"""Red team session 12 (H122): §C10 'No vote below our signed step' (0baad05) after a roll back.

A peer that applied step k with seat d's message and is then overturned by a quorum of DROP(k, d)
votes restarts from its log cut at k (``StepOverturned``, ``restart_overturned``, as the node
does). Its own-message log still holds its STEP of k+1, so ``Restart.promised`` bars every DROP
vote of ours at k until we reach k+1 (the STEP is refused only there). But that STEP was signed
over the history the quorum overturned: a quorum against d at (k, epoch) exists, so no
certificate of (k, d) can (§C8.3 'Conversely, if a quorum of votes exists, no certificate
can'), and our vote against d can fool nobody. When the quorum cannot decide alone (version 5:
a voter gone before it released its share, so fewer than t released shares, §C8.3 'Shares in
votes that decide nothing' (b), (c); version 4: a mixed quorum) our vote and release are the
ones the table waits for, and the promise withholds them for ever (§C8.3 rule (b) says "a seat
that has not voted in (k, e) (and may: 'A voter's promise', §C10) and holds such a quorum votes
against d at once, then releases").

In memory (p2p_harness.Net, fake engine, virtual clock), 5 seats, Q = 3, drop timeout 3 s.
"""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p import resume
from p2p.lockstep import GameOver, SeatDropVoted, StepOverturned
from p2p.wire import MSG_STEP, decode_step_body, open_envelope

from p2p_harness import Net, random_legal, restart_overturned
from test_resilience import logged_game

K = 12  # the step of the scenario
CUT_S = 8.0  # seat 1's datagrams to the others are lost for this long from step K + 1 on


def _step_of(raw: bytes) -> int | None:
    """The step of a STEP envelope, else None."""
    env = open_envelope(raw, C.MAX_CATCHUP_MSG)
    return decode_step_body(env.body).step if env.mtype == MSG_STEP else None


def _run(tmp_path):
    """Seat 0 sends its step-K message to seat 1 only and is gone (a crash, or a colluder); seat 4
    sends its step-K message to seat 1 only, votes DROP(K, 0) (it lacks 0's message; an open
    vote) and is gone before it releases; seat 1, which applied K with both and signed K+1, cannot
    reach the others for CUT_S s. Seats 2 and 3 vote DROP(K, 0) too: with 4's, a quorum of 3
    (Q = 3); 2 and 3 release their shares, 4 never does: 2 of t = 3, undecided until one more
    vote is released. Seat 1 gets
    the three votes, is overturned (StepOverturned(K, 0)) and restarts from its log cut at K,
    having lost 0's and 4's step-K messages. 2 crashes = N - Q: the three others are Q."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 5, {"target": 60, C.OPT_ON_DROP: "bot",
                                                           C.OPT_DROP_TIMEOUT: 3})
    st: dict = {"restarts": [], "cut_from": None, "gone": set()}
    overturned = restart_overturned(paths, secrets, st["restarts"])

    def drop(src, dst, raw):
        if src in st["gone"]:
            return True
        if src in (0, 4) and _step_of(raw) == K:
            if src == 0:
                st["gone"].add(0)  # its step-K message goes out (to seat 1 only), then nothing
            return dst != 1
        cut = st["cut_from"]
        return src == 1 and cut is not None and net.now < cut + CUT_S

    def hook(net):
        overturned(net)
        if st["cut_from"] is None and net.s[1] is not None and net.s[1].step > K:
            st["cut_from"] = net.now
        if any(isinstance(e, SeatDropVoted) and e.step == K for e in net.events[4]):
            st["gone"].add(4)  # its vote went out in the round before
        for i in st["gone"]:
            net.s[i] = None
        return None

    net = Net(list(sessions), random_legal(E, seed=3), drop=drop)
    net.run(max_time=200.0, max_rounds=2_000_000, hook=hook)
    return net, st


def _finished_together(net) -> bool:
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in (1, 2, 3)]
    return all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1


def test_premise_without_the_promise_seat_1s_vote_completes_the_quorum(tmp_path, monkeypatch):
    """The same run with ``Restart.promised`` always False (a mutant of 0baad05's rule): seat 1,
    restarted at K, votes DROP(K, 0) with its share, the quorum decides, 4 is dropped next and
    seats 1, 2, 3 finish with one final hash within seconds. So the promise alone is what stalls
    the table below; and the scenario does overturn seat 1."""
    monkeypatch.setattr(resume.Restart, "promised", lambda self, step: False)
    net, st = _run(tmp_path)
    assert (1, K, False) in st["restarts"]
    assert any(isinstance(e, StepOverturned) and e.step == K and e.seat == 0 for e in net.events[1])
    assert _finished_together(net), net.describe()


def test_an_overturned_peer_adds_its_vote_to_the_quorum_that_overturned_it(tmp_path):
    """BREAK s12 #4 (MED, liveness: the table waits until every node's stall limit abandons the
    game). In ``_run``'s scenario (two seats gone = N - Q, seat 1's outbound lost 8 s; or two
    colluders, seat 4 never releasing on purpose; version 5 makes every vote open first, so any
    voter gone between its vote and its release does it), seat 1 restarts at K with its STEP of
    K+1 in its own-message log: ``promised`` (§C10) bars its DROP vote and release at K, the
    quorum of 2, 3, 4 against seat 0 stays undecided (2 released shares of t = 3; version 4: 2
    shares and 1 nil, mixed) and nobody may vote again in that
    epoch: all three wait at step K for good (paused (0, 4), 200 s here; any K and any cut >= 5 s
    did the same). §C10's 'Cost' says the others vote such a peer out if it stays silent; it is
    not silent, and they cannot. Suggested fix: a roll back by a quorum against d at (k, e)
    (``StepOverturned``) ends the promise for a DROP vote against d at (k, e) (our later STEP is
    over the overturned history; a quorum exists, so no certificate of (k, d, e) can, §C8.3), or
    ``resume_session(truncate_at=k)`` keeps the later own messages only as 'never re-send'
    (``adopt_own`` refuses them) without raising ``signed_to``. FIXED (H121): the latter
    (``resume_session``: after a roll back the kept messages promise nothing, §C10)."""
    net, st = _run(tmp_path)
    assert (1, K, False) in st["restarts"]
    assert _finished_together(net), net.describe()
