"""Red team of the drop-vote rules of issue 10 (protocol.md §C8.3 "When an honest peer votes",
"Split votes", §C8.5 "Liveness after split votes"; p2p/liveness.py ``heard_behind``,
``session_votes.SessionVotes.vote_choice``).

One laptop is hostile: it replays any bytes it ever saw (a crashed seat's re-sends, its ALIVE),
and it votes as it likes with its own key. Each test names the attack. A rule that holds is
asserted as a regression test; a rule that breaks is a strict xfail naming the protocol.md
section (remove the mark the day it is fixed). In memory, virtual clock, fake engine.

Findings (09:00 UTC, session 4):
* Hold: a replay of a crashed seat's last re-send delays its drop by one drop timeout at most;
  a spiteful seat voting against an honest seat at every step and epoch never drops it; a
  spiteful vote against a seat one honest voter cannot hear does not steer that voter's choice
  (the others forward the seat's message on seeing the vote).
* FIXED (10:00, H33): a replay of a crashed seat's ALIVE of the current step (byte-identical,
  nothing in it changed) kept it "alive" until ``p2p.turn_time`` (300 s by default instead of
  the drop timeout), and for ever with an unlimited turn time. Now ALIVE carries a counter and
  a replay is ignored: voted out one drop timeout after its last real ALIVE.
* FIXED (09:30, H22): a spiteful vote against a live, thinking seat whose ALIVEs one honest
  voter lost for a drop timeout made that voter name it ("the seat the most others named"):
  the votes split. Now a voter for which several seats are due at once waits one re-send
  period and names the seat most named: the honest votes outnumber the spiteful one.
* FIXED (10:05, H33; was a strict xfail of 09:25): the grace was bypassed when the spiteful seat
  is also silent to two honest voters (they see it due and wait the grace too, their votes come
  late) and sends its vote to the third only: at the third's grace end its lone vote decided,
  the thinking seat was named, the votes split. Now a voter whose due seats are one vote apart
  or tied waits one more re-send period (and a vote against a deciding seat makes the peers
  that hold its latest ALIVE forward it, tests/p2p/test_alive_counter.py).
* FIXED (H31, 10:00): one unsolicited CATCHUP_RESP holding a second signed version of the
  sender's own applied message halted every honest peer (Equivocation): a veto at any moment.
  Now, with no fork in sight, it is proven and voted out (tests/p2p/test_record_equivocation.py:
  where it still halts).
"""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.lockstep import CheaterProven, SeatDropped, SeatDropVoted
from p2p.wire import MSG_ALIVE, MSG_STEP, decode_step_body, open_envelope

from p2p_harness import Net, finish_together, random_legal
from test_resilience import logged_game

DROP3 = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}


def _mtype(raw: bytes) -> int:
    return open_envelope(raw, C.MAX_CATCHUP_MSG).mtype


def _step_of(raw: bytes) -> int | None:
    env = open_envelope(raw, C.MAX_CATCHUP_MSG)
    return decode_step_body(env.body).step if env.mtype == MSG_STEP else None


class _Thinker(Net):
    """A Net where seat ``slow`` holds its input at its first decision step from step 6 (its
    player thinks, so its peer sends ALIVE), then crashes once it has sent ``crash_after`` (a
    message type) there; seat ``replayer`` then sends the crashed seat's last such bytes to every
    live seat every 0.5 s while the step lasts."""

    def __init__(self, sessions, *, slow: int, replayer: int, crash_after: int) -> None:
        super().__init__(sessions, random_legal(E, seed=1))
        self.slow, self.replayer, self.crash_after = slow, replayer, crash_after
        self.k: int | None = None  # the step at which the slow seat thinks (then crashes)
        self.crashed_at: float | None = None
        self.replayed: bytes | None = None
        self._next = 0.0

    def thinks(self, seat: int, s) -> bool:
        if seat != self.slow or s.step < 6 or self.k not in (None, s.step):
            return False
        self.k = s.step  # its player thinks: no input
        return True

    def hook(self, net: Net) -> float | None:
        s = self.s[self.slow]
        if self.crashed_at is None and s is not None and s.step == self.k:
            mine = [raw for src, raw in self.sent_log if src == self.slow and _mtype(raw) == self.crash_after
                    and (self.crash_after != MSG_STEP or _step_of(raw) == self.k - 1)]
            if mine:
                self.replayed = mine[-1]
                self.s[self.slow] = None
                self.crashed_at = self.now
        if self.crashed_at is None or self.s[0] is None or self.s[0].step != self.k:
            return None
        if self.now >= self._next:
            self._next = self.now + 0.5
            for j, o in enumerate(self.s):
                if o is not None and j != self.replayer:
                    o.receive_message(self.replayed, self.now)
        return self._next


def _replay_run(tmp_path, crash_after: int, turn_time: int, max_time: float = 1e4):
    """5 seats, Q = 3: seat 4 thinks at step K, crashes; seat 3 (hostile) replays its old bytes to
    seats 0-2. Returns the net and when seat 0 saw the drop (virtual s after the crash)."""
    opts = dict(DROP3, **{C.OPT_TURN_TIME: turn_time})
    sessions, paths, _, _ = logged_game(tmp_path, 5, opts)
    net = _Thinker(list(sessions), slow=4, replayer=3, crash_after=crash_after)
    seen: dict[str, float] = {}

    def hook(n: Net) -> float | None:
        wake = net.hook(n)
        if "drop" not in seen and any(isinstance(e, SeatDropped) for e in n.events[0]):
            seen["drop"] = n.now - net.crashed_at
        return wake
    net.run(max_time=max_time, hook=hook)
    return net, sessions, paths, seen.get("drop")


def test_a_replayed_re_send_keeps_a_crashed_seat_alive_one_drop_timeout_at_most(tmp_path):
    """Attack: seat 4 crashes at step K having sent its step-(K-1) message; hostile seat 3 replays
    those bytes to the honest seats every 0.5 s (a byte-identical re-send of the step before is an
    indirect sign of life, ``Liveness.heard_behind``), and never votes. Holds: the honest seats
    (Q = 3 of them) vote seat 4 out two drop timeouts after the step began (6 s, not for ever),
    drop it at step K, and finish together."""
    net, sessions, paths, after = _replay_run(tmp_path, MSG_STEP, 300)
    assert net.replayed is not None and net.k is not None
    for i in range(3):
        assert [(e.step, e.seat) for e in net.events[i] if isinstance(e, SeatDropped)] == [(net.k, 4)], net.describe()
    # Later than one drop timeout (the replay was heard), never later than two (the bound).
    assert after is not None and DROP3[C.OPT_DROP_TIMEOUT] < after <= 2 * DROP3[C.OPT_DROP_TIMEOUT] + 1.0
    finish_together(net, sessions, paths, range(3))


@pytest.mark.parametrize("turn_time", [60, 0])
def test_a_replayed_alive_does_not_hold_a_crashed_seat_for_ever(tmp_path, turn_time):
    """Attack: seat 4's player thinks at step K (its peer sends ALIVE, §C8.3), then the laptop
    crashes right after an ALIVE; hostile seat 3 replays that ALIVE of step K every 0.5 s. Holds
    (H33): ALIVE carries a counter ``n`` and a receiver takes only an ``n`` above the largest it
    accepted for (seat, step), so the replay is a duplicate: seat 4 is voted out one drop timeout
    after its last real ALIVE (not at the turn time of 60 s, and not never with an unlimited
    turn time, which was the strict xfail), dropped at step K, and the honest seats finish
    together."""
    net, sessions, paths, after = _replay_run(tmp_path, MSG_ALIVE, turn_time)
    assert net.replayed is not None
    for i in range(3):
        assert [(e.step, e.seat) for e in net.events[i] if isinstance(e, SeatDropped)] == [(net.k, 4)], net.describe()
        assert sessions[i].stats["ignored"] > 0  # the replays were seen and ignored
    assert after is not None and after <= DROP3[C.OPT_DROP_TIMEOUT] + 1.0, net.describe()
    finish_together(net, sessions, paths, range(3))


def test_a_spiteful_voter_against_an_honest_seat_at_every_step_drops_nobody_honest(tmp_path):
    """Attack: seat 3 of 5 signs DROP against honest seat 0 as soon as it reaches each step, in
    every epoch, for the whole game (hoping voters that must pick among several silent seats pick
    the seat most named); seat 4 crashes at step 8. Holds: one vote per seat can never make a
    quorum (Q = 3) and a voter names only seats whose own vote time came (seat 0 is heard by
    all): seat 4 is dropped, seat 0 never, and the game ends with one final hash."""
    sessions, paths, _, _ = logged_game(tmp_path, 5, DROP3)
    voted: set[tuple[int, int]] = set()

    def hook(net: Net) -> None:
        s = net.s[3]
        if s.phase == "running" and (s.step, s.epoch) not in voted and not s.seats.voted_this_epoch(s.step):
            voted.add((s.step, s.epoch))
            vote = s.seats.vote(s.step, 0)  # signed with its own key: a vote no honest peer would cast
            for j, o in enumerate(net.s):
                if o is not None and j != 3:
                    o.receive_message(vote, net.now)
        if net.s[4] is not None and net.s[4].step >= 8:
            net.s[4] = None
        return None
    net = Net(list(sessions), random_legal(E, seed=1))
    net.run(max_time=1e4, hook=hook)
    assert len(voted) > 50
    for i in range(4):
        assert [e.seat for e in net.events[i] if isinstance(e, SeatDropped)] == [4], net.describe()
    finish_together(net, sessions, paths, range(3))


@pytest.mark.parametrize("spite", [False, True])
def test_a_spiteful_vote_does_not_steer_a_voter_that_lost_a_live_seat(tmp_path, spite):
    """Attack on "name the seat the others named" (``SessionVotes.vote_choice``): 6 seats (Q = 4), seat 1
    crashes at step K; honest seat 4 loses every message of honest seat 3 for 3.5 s, so at its vote
    time both 1 and 3 are due for it. Alone it names the lowest, 1. The spiteful seat 5 votes at
    once against seat 3, to make seat 4 name 3 (then 1 would have votes from 0, 2, 3 only: no
    quorum, a stall). Holds: a peer that holds seat 3's message forwards it on seeing a vote
    against it (§C8.3), seat 4 gets it and names seat 1; seat 1 is dropped at K, the game ends."""
    sessions, paths, _, _ = logged_game(tmp_path, 6, DROP3)
    st: dict = {"k": None, "t0": None, "spite": False}

    def drop(src: int, dst: int, raw: bytes) -> bool:
        if src == 1 and st["k"] is not None:
            return True
        return (src, dst) == (3, 4) and st["t0"] is not None and net.now < st["t0"] + 3.5

    def hook(n: Net) -> None:
        if st["k"] is None and n.s[0].step >= 8:
            st["k"], st["t0"] = n.s[0].step, n.now
            n.s[1] = None
        if spite and st["k"] is not None and not st["spite"] and n.s[5].step == st["k"]:
            st["spite"] = True
            vote = n.s[5].seats.vote(st["k"], 3)
            for j, o in enumerate(n.s):
                if o is not None and j != 5:
                    o.receive_message(vote, n.now)
        return None
    net = Net(list(sessions), random_legal(E, seed=1), drop=drop)
    net.run(max_time=1e4, hook=hook)
    assert st["spite"] == spite
    honest = (0, 2, 3, 4)
    for i in honest:
        assert [(e.step, e.seat) for e in net.events[i] if isinstance(e, SeatDropped)] == [(st["k"], 1)], \
            net.describe()
    # Seat 4 names 1, or a quorum drops 1 before it votes (it waits a re-send period when two
    # seats are due at once, §C8.3): never 3.
    assert 3 not in [e.seat for e in net.events[4] if isinstance(e, SeatDropVoted) and e.step == st["k"]]
    if spite:  # the spiteful vote made the holders of seat 3's message forward it
        assert sum(sessions[i].stats["forwarded"] for i in (0, 2)) > 0
    finish_together(net, sessions, paths, honest)


# A strict xfail until H31 (10:00): every honest peer halted (LockstepSession.cross_check -> Equivocation).
def test_an_unsolicited_catch_up_with_a_second_version_does_not_veto_the_game(tmp_path):
    """Attack: at step 12 of a 4-seat game (seat loss on: a drop is possible), seat 3 signs a
    second version of its own step-11 message (same history, another input) and pushes the three
    others, unasked, a CATCHUP_RESP whose record of step 11 holds it beside their real messages.
    Every honest peer applied the same version of step 11, so voting seat 3 out (it is proven:
    two signed messages of one step) and finishing would do. Seen (09:05): seats 0-2 halt with
    Equivocation at step 12, no GameOver: one datagram vetoes the game at any moment."""
    from p2p.bodies import CatchupResponse
    from p2p.gamelog import KIND_STEP
    from p2p.wire import MSG_CATCHUP_RESP, pack, seal_message

    sessions, paths, _, _ = logged_game(tmp_path, 4, DROP3)
    pushed: dict[str, int] = {}

    def hook(net: Net) -> None:
        s0 = net.s[0]
        if pushed or s0.step < 12:
            return None
        k = s0.step - 1
        raws: list = [None] * 4
        for _, raw in net.sent_log:
            if _mtype(raw) == MSG_STEP and _step_of(raw) == k:
                raws[decode_step_body(open_envelope(raw, C.MAX_STEP_MSG).body).seat] = raw
        mine = decode_step_body(open_envelope(raws[3], C.MAX_STEP_MSG).body)
        raws[3] = seal_message(sessions[3].identity, MSG_STEP, mine._replace(input=None if mine.input is not None
                                                                             else [0]))
        resp = seal_message(sessions[3].identity, MSG_CATCHUP_RESP,
                            CatchupResponse(s0.game_id, 3, k, k + 1, ((KIND_STEP, pack([k, raws])),), (), ()))
        for j in range(3):
            net.s[j].receive_message(resp, net.now)
        pushed["step"] = k
        return None
    net = Net(list(sessions), random_legal(E, seed=1))
    net.run(max_time=1e4, hook=hook)
    assert pushed
    for i in range(3):  # proven (kind 1, both versions) and voted out; nobody halted (H31)
        assert {e.seat for e in net.events[i] if isinstance(e, CheaterProven)} == {3}, net.describe()
        assert [e.seat for e in net.events[i] if isinstance(e, SeatDropped)] == [3]
    finish_together(net, sessions, paths, range(3))


class _SlowSeat(Net):
    """A Net where seat ``thinker`` holds its input for ``think`` s at its first decision step
    from step 8 (its player thinks: its peer sends ALIVE, no message); when that step begins,
    seat ``crashed`` crashes. ``k``/``t0``: that step and when it began (virtual s)."""

    def __init__(self, sessions, *, thinker: int, crashed: int, think: float) -> None:
        super().__init__(sessions, random_legal(E, seed=1))
        self.thinker, self.crashed, self.think = thinker, crashed, think
        self.k: int | None = None
        self.t0: float | None = None

    def thinks(self, seat: int, s) -> bool:
        if seat != self.thinker or s.step < 8 or self.k not in (None, s.step) \
                or (self.t0 is not None and self.now >= self.t0 + self.think):
            return False
        if self.k is None:
            self.k, self.t0 = s.step, self.now
            self.s[self.crashed] = None
        return True


@pytest.mark.parametrize("spite", [False, True])  # [True] was a strict xfail until H22's vote grace (09:30)
def test_a_spiteful_vote_does_not_steer_a_voter_that_lost_a_thinking_seats_alives(tmp_path, spite):
    """6 seats (Q = 4). At step K seat 1 crashes and honest seat 3's player thinks for 6 s (its
    peer sends ALIVE); honest seat 4 loses everything from seat 3 for 3.5 s, so at its vote time
    both 1 and 3 are due for it. Alone (``spite`` False) it names the lowest, 1: seats 0, 2, 3, 4
    drop seat 1 and the game ends. Attack: spiteful seat 5 votes DROP(K, 3) at once. Wanted: the
    same end. Seen (09:05): seat 4 names seat 3 (one vote against it already), the votes split
    ({0, 2, 3} against 1, {4, 5} against 3, Q = 4), every seat pauses at K and its node would
    abandon after its stall limit: the spiteful seat turned a recoverable loss into a game
    without a result, at no cost (its vote is not provably false). Fixed (09:30, H22): seat 4
    waits one re-send period, holds 0's, 2's and 3's votes against 1 and names 1."""
    sessions, paths, _, _ = logged_game(tmp_path, 6, DROP3)
    net = _SlowSeat(list(sessions), thinker=3, crashed=1, think=6.0)
    cast: list[int] = []

    def drop(src: int, dst: int, raw: bytes) -> bool:
        if src == 1 and net.k is not None:
            return True
        return (src, dst) == (3, 4) and net.t0 is not None and net.now < net.t0 + 3.5
    net.drop = drop

    def hook(n: Net) -> None:
        if spite and net.k is not None and not cast and n.s[5].step == net.k:
            cast.append(net.k)
            vote = n.s[5].seats.vote(net.k, 3)  # signed by seat 5 itself
            for j, o in enumerate(n.s):
                if o is not None and j != 5:
                    o.receive_message(vote, n.now)
        return None
    net.run(max_time=400.0, hook=hook)
    assert net.k is not None and bool(cast) == spite
    honest = (0, 2, 3, 4)
    for i in honest:
        assert [(e.step, e.seat) for e in net.events[i] if isinstance(e, SeatDropped)] == [(net.k, 1)], \
            net.describe()
    finish_together(net, sessions, paths, honest)


def test_a_spiteful_seat_that_delays_honest_votes_does_not_steer_a_voter(tmp_path):
    """The lever of ``test_a_spiteful_vote_does_not_steer_a_voter_that_lost_a_thinking_seats_alives``
    against the vote grace (a voter with several due seats waits one re-send period for the
    others' votes). 6 seats (Q = 4): at step K seat 4 crashes and honest seat 1's player thinks
    (ALIVE, no message); honest voter 3 loses seat 1's ALIVEs for 3.5 s, so 1 and 4 are due for
    it. Spiteful seat 5 stays silent at step K to voters 0 and 2 only (for them 4 and 5 are due:
    they wait the grace too) and sends DROP(K, 1) to voter 3 only. When voter 3's grace ends it
    holds one vote against 1 (seat 5's) and one against 4 (seat 1's, which had no grace): a tie,
    the lowest, 1. Wanted: seat 4 dropped at K, the game ends. Seen (09:25, H22's grace in the
    working tree): votes {0, 1, 2} against 4, {3, 5} against 1, no quorum, every seat paused at
    K (its node abandons after the stall limit). Fixed (10:05, H33): a voter whose due seats are
    separated by one vote or none (the one may be spite) waits one more re-send period; voter 3
    then hears seat 1 again and names 4."""
    sessions, paths, _, _ = logged_game(tmp_path, 6, DROP3)
    net = _SlowSeat(list(sessions), thinker=1, crashed=4, think=8.0)
    cast: list[int] = []

    def drop(src: int, dst: int, raw: bytes) -> bool:
        if net.k is None:
            return False
        if src == 4 or ((src, dst) == (1, 3) and net.now < net.t0 + 3.5):
            return True
        return src == 5 and dst in (0, 2) and net.s[0] is not None and net.s[0].step == net.k

    def hook(n: Net) -> None:
        if net.k is not None and not cast and n.s[5].step == net.k:
            cast.append(net.k)
            n.s[3].receive_message(n.s[5].seats.vote(net.k, 1), n.now)  # signed by seat 5, to seat 3 only
        return None
    net.drop = drop
    net.run(max_time=400.0, hook=hook)
    assert cast
    honest = (0, 1, 2, 3)
    for i in honest:
        assert [(e.step, e.seat) for e in net.events[i] if isinstance(e, SeatDropped)] == [(net.k, 4)], \
            net.describe()
    finish_together(net, sessions, paths, honest)
