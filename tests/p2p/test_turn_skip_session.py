"""Turn skip inside ``LockstepSession`` (protocol.md §C8.10): a majority lets an idle seat's
turn pass long before the turn time, the seat keeps its seat and plays again, every log verifies;
a seat whose late message some peer applied rolls back (StepOverturned) when the others skipped
it. In memory, virtual clock, fake engine."""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.gamelog import KIND_SKIP, LogReader, LogWriter
from p2p.lockstep import GameOver, SeatDropped, SeatDropVoted, StepOverturned
from p2p.session_events import TurnSkipped
from p2p.verify import verify_log

from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal

TURN_TIME = 300
SKIP_AFTER = 3.0  # the players' patience: they vote to skip an awaited seat after this many seconds


def game(n: int, tmp_path, options: dict | None = None):
    lobbies = make_lobbies(n, options=dict({"target": 25, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30,
                                            C.OPT_TURN_TIME: TURN_TIME}, **(options or {})))
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    tmp_path.mkdir(parents=True, exist_ok=True)
    paths = [tmp_path / f"p{i}.lnplog" for i in range(n)]
    return [l.start_session(E, log=LogWriter(p, l.log_header())) for l, p in zip(ordered, paths)], paths


class IdleSeat(Net):
    """Seat ``idle`` keeps its peer alive (ALIVE, timers) but takes no decision from step
    ``from_step`` until the clock reaches ``until``. Every other player presses the skip key
    against any seat the step has waited for ``SKIP_AFTER`` seconds (``skip_turn``)."""

    def __init__(self, sessions, idle: int, from_step: int, until: float) -> None:
        super().__init__(sessions, random_legal(E, seed=3))
        self.idle, self.from_step, self.until = idle, from_step, until
        self.asked_at: dict[int, float] = {}  # step -> when the idle seat was first awaited

    def inputs(self) -> bool:
        s = self.s[self.idle]
        if s.step >= self.from_step and self.now < self.until and s.needs_local_input() is not None:
            self.asked_at.setdefault(s.step, self.now)
            hidden, self.s[self.idle] = s, None
            try:
                return super().inputs()
            finally:
                self.s[self.idle] = hidden
        return super().inputs()

    def hook(self) -> float | None:
        wake = []
        for o in self.s:
            if o.phase != "running" or not o.skippable():
                continue
            for seat in o.waiting_for():
                if seat != o.my_seat:
                    due = o.step_started + SKIP_AFTER
                    if self.now >= due:
                        o.skip_turn(seat, now=self.now)
                    else:
                        wake.append(due)
        return min(wake) if wake else (self.until if self.now < self.until else None)


def test_a_majority_lets_the_idle_seats_turn_pass_and_it_plays_again(tmp_path):
    sessions, paths = game(3, tmp_path)
    net = IdleSeat(sessions, idle=1, from_step=4, until=40.0)
    net.run(max_time=1e5, hook=lambda n: n.hook())
    for s in sessions:
        s.log.close()
    skipped = [sorted((e.step, e.seat) for e in evs if isinstance(e, TurnSkipped)) for evs in net.events]
    assert skipped[0] and skipped[0] == skipped[1] == skipped[2]  # the same turns, on every peer
    assert {seat for _, seat in skipped[0]} == {1}
    assert all(e.votes == 2 and e.quorum == 2 for evs in net.events for e in evs if isinstance(e, TurnSkipped))
    # long before the turn time: nobody was dropped, nobody even voted to drop
    assert not any(isinstance(e, (SeatDropped, SeatDropVoted)) for evs in net.events for e in evs)
    assert all(s.active == [True] * 3 for s in sessions)
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
    # the idle seat played again after `until` (it moved at a step after its skips)
    last_skip = skipped[0][-1][0]
    moved = [e for e in net.events[0] if type(e).__name__ == "StepApplied" and e.step > last_skip
             and any(getattr(x, "seat", None) == 1 and type(x).__name__ == "Moved" for x in e.engine_events)]
    assert moved
    for p in paths:
        rep = verify_log(p, engine=E)
        assert rep.error is None and rep.complete, rep.error
        kinds = [r.kind for r in LogReader(p)]
        assert kinds.count(KIND_SKIP) == len(skipped[0])
    assert net.s[0].stats["skip_votes"] >= len(skipped[0])


def test_no_skip_with_two_seats_nor_at_a_chance_step(tmp_path):
    sessions, _ = game(2, tmp_path)
    assert not sessions[0].skippable() and not sessions[0].skip_turn(1)
    sessions, _ = game(3, tmp_path / "3")
    s = sessions[0]
    assert s.pending.chance and not s.skippable()  # step 0: the first player is drawn
    assert not s.skip_turn(1)
    assert not s.skip_tallies()


def test_tally_and_one_vote_per_seat(tmp_path):
    sessions, _ = game(4, tmp_path)  # Q = 3
    net = Net(sessions, random_legal(E, seed=1))
    # play until a decision step whose actor is seat 3, with seat 3 holding back
    for _ in range(200):
        s0 = sessions[0]
        if s0.skippable() and s0.pending.actors == (3,):
            break
        net.inputs()
        net.deliver()
    hold = sessions[3]
    net.s[3] = None  # seat 3's peer is silent from now on (but not yet dropped)
    net.inputs()
    net.deliver()  # the others' messages of this step
    assert sessions[0].skippable() and sessions[0].waiting_for() == (3,)
    assert sessions[0].skip_turn(3) and not sessions[0].skip_turn(3)
    assert not sessions[0].skip_turn(0)  # our own seat
    net.deliver()
    (t,) = sessions[1].skip_tallies()
    assert (t.seat, t.votes, t.quorum, t.ours) == (3, 1, 3, False)
    assert sessions[1].skip_turn(3)
    net.deliver()
    assert [x.votes for x in sessions[2].skip_tallies()] == [2]
    k = sessions[2].step
    assert sessions[2].skip_turn(3)
    net.deliver()
    assert all(s.step > k for s in sessions[:3])  # the quorum skipped seat 3's turn at k
    assert [e.seat for evs in net.events[:3] for e in evs if isinstance(e, TurnSkipped)] == [3, 3, 3]
    assert hold.step == k  # it heard nothing


def test_a_seat_that_applied_its_late_message_rolls_back(tmp_path):
    """Seat 2's message of step k reaches nobody; it applied k itself (it held everyone's).
    Seats 0 and 1 skip its turn. Its step-(k+1) message carries another digest: the others
    push their records, it finds the kind-6 record and halts with StepOverturned(k, 2) — the
    node then resumes it from its log cut at k (§C8.10, §C8.3)."""
    sessions, _ = game(3, tmp_path)
    state = {"k": None}

    def drop(src, dst, raw):
        k = state["k"]
        return k is not None and src == 2 and raw[:2] == bytes((0x93, 16)) and sessions[2].step <= k + 1 \
            and b"" != raw and _step_of(raw) == k

    net = Net(sessions, random_legal(E, seed=2), drop=drop)
    for _ in range(200):
        if sessions[0].skippable() and sessions[0].pending.actors == (2,):
            break
        net.inputs()
        net.deliver()
    state["k"] = k = sessions[0].step
    net.inputs()  # everybody sends step k, seat 2's is lost
    net.deliver()
    assert sessions[2].step == k + 1 and sessions[0].step == k  # seat 2 applied k, the others wait
    for i in (0, 1):
        assert sessions[i].skip_turn(2)
    net.run(max_time=200)
    assert any(isinstance(e, StepOverturned) and (e.step, e.seat) == (k, 2) for e in net.events[2])
    assert [(e.step, e.seat) for e in net.events[0] if isinstance(e, TurnSkipped)] == [(k, 2)]


def _step_of(raw: bytes) -> int | None:
    from p2p.wire import decode_step_body, open_envelope
    try:
        return decode_step_body(open_envelope(raw, C.MAX_STEP_MSG).body).step
    except Exception:
        return None
