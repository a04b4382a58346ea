"""Turn skip inside ``LockstepSession`` (protocol.md §C8.10): a majority lets an idle seat's
turn pass long before the turn time, the seat keeps its seat and plays again, every log verifies;
a seat whose late message some peer applied rolls back (StepOverturned) when the others skipped
it. In memory, virtual clock, fake engine."""

from __future__ import annotations

import random

import fake_engine as E
import msgpack
import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st
from p2p import const as C
from p2p.gamelog import KIND_SKIP, KIND_STEP, LogReader, LogWriter
from p2p.lockstep import GameOver, SeatDropped, SeatDropVoted, StepOverturned
from p2p.session_events import TurnSkipped
from p2p.verify import verify_log

from p2p.wire import decode_step_body, open_envelope

from p2p_harness import Net, drain, make_lobbies, pump_lobbies, random_legal

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


def _classico_table(tmp_path):
    """3 seats of the real engine (classico, drop rule ``bot``), each logging to
    ``tmp_path/<seat>.log``: (log writers, sessions), seat order."""
    import engine as RE

    lobbies = make_lobbies(3, edition="classico", options={C.OPT_ON_DROP: "bot"})
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    writers = [LogWriter(tmp_path / f"{i}.log", lob.log_header()) for i, lob in enumerate(ordered)]
    return writers, [lob.start_session(RE, log=w) for lob, w in zip(ordered, writers)]


def _assert_clean_finish(net, writers, tmp_path):
    """After ``net.run`` of a ``_classico_table``: nobody misbehaved, every peer ended the game
    once with the same final hash, and every log verifies complete (§C6)."""
    import engine as RE
    from p2p.lockstep import PeerMisbehaved

    for w in writers:
        w.close()
    assert not [e for evs in net.events for e in evs if isinstance(e, PeerMisbehaved)]
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
    for i in range(len(writers)):
        rep = verify_log(tmp_path / f"{i}.log", engine=RE)
        assert rep.ok and rep.complete, rep.error


class IdleSeat(Net):
    """Seat ``idle`` keeps its peer alive (ALIVE, timers) but takes no decision at steps
    ``from_step`` <= k < ``to_step``; from ``to_step`` on it decides at once (so its comeback
    never races the votes: those come ``SKIP_AFTER`` s into a step). Every other player presses
    the skip key against any seat the step has waited for ``SKIP_AFTER`` seconds (``skip_turn``)."""

    def __init__(self, sessions, idle: int, from_step: int, to_step: int, choose=None) -> None:
        super().__init__(sessions, choose or random_legal(E, seed=3))
        self.idle, self.from_step, self.to_step = idle, from_step, to_step
        self.asked_at: dict[int, float] = {}  # step -> when the idle seat was first awaited

    def thinks(self, seat: int, s) -> bool:
        if seat != self.idle or not self.from_step <= s.step < self.to_step:
            return False
        self.asked_at.setdefault(s.step, self.now)
        return True

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
        return min(wake) if wake else None


def test_a_majority_lets_the_idle_seats_turn_pass_and_it_plays_again(tmp_path):
    sessions, paths = game(3, tmp_path)
    net = IdleSeat(sessions, idle=1, from_step=4, to_step=10)
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
    # the idle seat played again after its idle steps (it moved at a step after its skips)
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
    push their records, it finds the kind-6 record and halts with StepOverturned(k, 2); resumed
    from its log cut at k (as the node does, §C8.10, §C8.3) it catches up the skip, keeps its
    seat and the game ends with one final hash and logs that verify."""
    from p2p.gamelog import OwnLog
    from p2p.resume import resume_session

    sessions, paths = game(3, tmp_path)
    sessions[2].own_log = OwnLog(str(paths[2]) + ".own")
    state = {"k": None, "resumed": None}

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

    def hook(net):
        s = net.s[2]
        if state["resumed"] is None and isinstance(s.halt_reason, StepOverturned):
            s.log.close()
            s.own_log.close()
            again, rep = resume_session(paths[2], s.identity, s.chain.value(0), E, own_log_path=str(paths[2]) + ".own",
                                        now=net.now, truncate_at=s.halt_reason.step)
            assert again.step == k and rep.damage is not None  # the overturned step is cut off
            net.s[2] = state["resumed"] = again
        return None

    net.run(max_time=1e5, hook=hook)
    assert any(isinstance(e, StepOverturned) and (e.step, e.seat) == (k, 2) for e in net.events[2])
    assert [(e.step, e.seat) for e in net.events[0] if isinstance(e, TurnSkipped)] == [(k, 2)]
    again = state["resumed"]
    assert again is not None and again.active == [True] * 3  # it kept its seat
    assert not any(isinstance(e, (SeatDropped, SeatDropVoted)) for evs in net.events for e in evs)
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert [len(o) for o in overs] == [1, 1, 1] and len({o[0].final_hash for o in overs}) == 1
    for s in (sessions[0], sessions[1], again):
        s.log.close()
    for p in paths:
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error


def _step_of(raw: bytes) -> int | None:
    from p2p.wire import decode_step_body, open_envelope
    try:
        return decode_step_body(open_envelope(raw, C.MAX_STEP_MSG).body).step
    except Exception:
        return None


# -- property: real sessions, any delivery order --

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


class CommitIdleNet(Net):
    """Classico, real engine and bots: seat ``idle`` withholds its input at the first sealed
    commit step (§C13.2) from step 5 on; the others vote to skip its turn there."""

    def __init__(self, sessions, idle: int) -> None:
        import engine as RE
        super().__init__(sessions, lambda s: RE.bots.choose(s.state, s.my_seat))
        self.idle = idle
        self.commit_step: int | None = None

    def inputs(self) -> bool:
        from p2p.sealed import COMMIT
        moved = False
        for s in self.s:
            if s.needs_local_input() is None:
                continue
            if s.my_seat == self.idle and s.step >= 5 and s.sealed.phase == COMMIT and self.commit_step in (None, s.step):
                self.commit_step = s.step
                continue
            s.submit_local_input(self.choose(s), now=self.now)
            moved = True
        for s in self.s:
            if s.my_seat != self.idle and s.step == self.commit_step and s.waiting_for() == (self.idle,):
                moved = s.skip_turn(self.idle, self.now) or moved
        return moved


def test_a_skip_at_a_sealed_commit_step_is_a_withdrawal_at_the_open_step(tmp_path):
    """§C8.10 with §C13: seat 2's turn is skipped at an auction's commit step, so it has no
    commitment; at the open step it sends nil (no 'opening without a commitment'), the
    auction goes on without its bid, the game ends the same on every peer and the logs verify."""
    writers, sessions = _classico_table(tmp_path)
    net = CommitIdleNet(sessions, idle=2)
    net.run(max_time=1e6, max_rounds=5_000_000)
    k = net.commit_step
    assert k is not None
    skipped = [[(e.step, e.seat) for e in evs if isinstance(e, TurnSkipped)] for evs in net.events]
    assert skipped == [[(k, 2)]] * 3
    _assert_clean_finish(net, writers, tmp_path)


def test_a_seat_whose_late_commitment_was_skipped_does_not_open_it(tmp_path):
    """§C8.10 with §C13.3: seat 2 commits at a commit step k while it still lacks seat 1's
    commitment; the votes of seats 0 and 1 (a quorum) reach it before seat 1's commitment. It
    applies k with its own turn skipped, so it has no commitment there: at the open step it
    sends nil, not its opening (which the others would call 'an opening without a commitment')."""
    import engine as RE
    from p2p.sealed import COMMIT

    writers, ss = _classico_table(tmp_path)
    bot = lambda s: RE.bots.choose(s.state, s.my_seat)  # noqa: E731
    net = Net(ss, bot)
    for _ in range(100_000):
        if all(s.sealed.phase == COMMIT and s.step == ss[0].step and s.needs_local_input() is not None for s in ss):
            break
        if not net.inputs():
            net.deliver()
    k = ss[0].step
    assert ss[0].sealed.phase == COMMIT

    def send(src, dsts, raws):
        for raw in raws:
            for d in dsts:
                ss[d].receive_message(raw, 0.0)

    ss[0].submit_local_input(bot(ss[0]))
    ss[1].submit_local_input(bot(ss[1]))
    c0, c1 = ss[0].messages_to_send(), ss[1].messages_to_send()
    send(0, (1, 2), c0)
    send(1, (0,), c1)
    ss[2].submit_local_input(bot(ss[2]))
    c2 = ss[2].messages_to_send()  # its commitment: held back
    assert ss[0].skip_turn(2) and ss[1].skip_turn(2)
    v0, v1 = ss[0].messages_to_send(), ss[1].messages_to_send()
    send(0, (1, 2), v0)
    send(1, (0, 2), v1)
    assert ss[0].step == ss[1].step == k + 1 and ss[2].step == k  # seat 2 still lacks seat 1's
    send(1, (2,), c1)
    assert ss[2].step == k + 1 and [(e.step, e.seat) for e in drain(ss[2]) if isinstance(e, TurnSkipped)] == [(k, 2)]
    mine = ss[2].steps.own(k + 1)
    assert mine is not None and decode_step_body(open_envelope(mine, C.MAX_STEP_MSG).body).input is None
    send(2, (0, 1), c2)  # its superseded commitment, late: stale
    net.run(max_time=1e6, max_rounds=5_000_000)
    _assert_clean_finish(net, writers, tmp_path)


def test_verify_refuses_a_skipped_seat_without_its_certificate(tmp_path):
    """verify (§C6, §C8.10): a kind-1 record with nil for an active seat needs the kind-6 record
    before it; with the certificate cut out (or cut to fewer than Q votes) the log is bad at
    that step."""
    sessions, paths = game(3, tmp_path)
    net = IdleSeat(sessions, idle=1, from_step=4, to_step=7)
    net.run(max_time=1e5, hook=lambda n: n.hook())
    for s in sessions:
        s.log.close()
    data = paths[0].read_bytes()
    (rec,) = [r for r in LogReader(paths[0]) if r.kind == KIND_SKIP][:1]
    step = msgpack.unpackb(rec.payload)[0]
    end = rec.offset + 5 + len(rec.payload) + 4
    cut = tmp_path / "cut.lnplog"
    cut.write_bytes(data[:rec.offset] + data[end:])
    rep = verify_log(cut, engine=E)
    assert not rep.ok and rep.first_bad_step == step and "no message from an active seat" in rep.error
    from p2p.turn_skip import skip_record
    _, seat, votes = msgpack.unpackb(rec.payload)
    weak = skip_record(step, seat, votes[:1])
    import struct
    import zlib
    body = bytes((KIND_SKIP,)) + weak
    forged = tmp_path / "weak.lnplog"
    forged.write_bytes(data[:rec.offset] + struct.pack(">IB", len(weak), KIND_SKIP) + weak
                       + struct.pack(">I", zlib.crc32(body)) + data[end:])
    rep = verify_log(forged, engine=E)
    assert not rep.ok and rep.first_bad_step == step and "quorum" in rep.error


def test_a_drop_at_the_same_step_overturns_a_skip(tmp_path):
    """Precedence drop > skip (§C8.10), 5 seats (Q = 3), seat 4 silent at step k: seats 0, 1, 2
    vote to skip its turn, seats 1, 2, 3 to drop it. Seat 0 (no drop vote) gets the skip
    certificate first and applies k with seat 4 skipped; the others drop seat 4 at k (a peer
    that voted DROP applies a skip only with the §C8.3 certificate, so seats 1 and 2 wait for
    the drop). Seat 0 learns of the drop from their records, halts with StepOverturned(k, 4),
    is resumed from its log cut at k, catches up the drop, and the four end the game with one
    final hash and complete logs."""
    from p2p.gamelog import OwnLog
    from p2p.resume import resume_session

    sessions, paths = game(5, tmp_path)
    sessions[0].own_log = OwnLog(str(paths[0]) + ".own")
    net = Net(sessions, random_legal(E, seed=4))
    for _ in range(400):
        s0 = sessions[0]
        if s0.step >= 3 and s0.skippable() and all(s.step == s0.step and not s.steps.has_own(s.step) for s in sessions):
            break
        if not net.inputs():
            net.deliver()
    k = sessions[0].step
    net.s[4] = None  # seat 4 falls silent for good
    net.inputs()
    net.deliver()  # seats 0-3 hold each other's step-k messages
    assert all(sessions[i].waiting_for() == (4,) for i in range(4))
    votes = {}
    for i in (0, 1, 2):
        assert sessions[i].skip_turn(4)
    for i in (1, 2, 3):
        assert sessions[i].vote_out(4)
    for i in range(4):
        votes[i] = sessions[i].messages_to_send()
    skips = {i: [r for r in votes[i] if r[1] == 26] for i in range(4)}
    drops = {i: [r for r in votes[i] if r[1] == 18] for i in range(4)}
    for i in (1, 2):
        for raw in skips[i]:
            sessions[0].receive_message(raw, net.now)  # seat 0: the skip certificate
    assert sessions[0].step == k + 1 and 4 in sessions[0].skips.skipped(k)
    for i in (1, 2):
        for raw in drops[i]:
            sessions[3].receive_message(raw, net.now)  # seat 3: the drop quorum
    assert sessions[3].step == k + 1 and not sessions[3].active[4]
    for i in range(4):  # then everything else, to everyone
        for j in range(4):
            if j != i:
                for raw in votes[i]:
                    sessions[j].receive_message(raw, net.now)
    state = {"resumed": None}

    def hook(net):
        s = net.s[0]
        if state["resumed"] is None and isinstance(s.halt_reason, StepOverturned):
            assert (s.halt_reason.step, s.halt_reason.seat) == (k, 4)
            s.log.close()
            s.own_log.close()
            again, _ = resume_session(paths[0], s.identity, s.chain.value(0), E, own_log_path=str(paths[0]) + ".own",
                                      now=net.now, truncate_at=k)
            net.s[0] = state["resumed"] = again
        return None

    net.run(max_time=1e5, hook=hook)
    again = state["resumed"]
    assert again is not None and not again.active[4] and again.dropped[4].step == k
    assert all(not sessions[i].active[4] and sessions[i].dropped[4].step == k for i in (1, 2, 3))
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in range(4)]
    assert [len(o) for o in overs] == [1] * 4 and len({o[0].final_hash for o in overs}) == 1
    for s in (again, *sessions[1:4]):
        s.log.close()
    for p in paths[:4]:
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error
