"""Turn skip inside ``LockstepSession`` (protocol.md §C8.10): a majority lets an idle seat's
turn pass long before the turn time, the seat keeps its seat and plays again, every log verifies;
a seat whose late message some peer applied rolls back (StepOverturned) when the others skipped
it; verify refuses a skipped seat without its certificate; a drop at the same step overturns a
skip. In memory, virtual clock, fake engine. Any delivery order (property):
tests/p2p/test_turn_skip_race.py; at sealed steps: tests/p2p/test_turn_skip_sealed.py.
"""

from __future__ import annotations

import fake_engine as E
import msgpack
from p2p import const as C
from p2p.gamelog import KIND_SKIP, LogReader
from p2p.lockstep import GameOver, SeatDropped, SeatDropVoted, StepOverturned
from p2p.session_events import TurnSkipped
from p2p.verify import verify_log

from p2p.wire import decode_step_body, open_envelope

from p2p_harness import Net, random_legal

from turn_skip_kit import IdleSeat, game


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
    """Precedence drop > skip (§C8.10), 5 seats (Q = 3), seat 4 silent at step k: seats 0, 1, 2 vote to
    skip its turn, seats 1, 2, 3 to drop it. Seat 0 (no drop vote) gets the skip certificate first
    and applies k with seat 4 skipped; the others drop seat 4 at k (a peer that voted DROP applies a
    skip only with the §C8.3 certificate, so seats 1 and 2 wait for the drop, seat 3 too once it
    holds the drop quorum: version 5 releases the shares then). Seat 0 learns of the drop from their
    records, halts with StepOverturned(k, 4), is resumed from its log cut at k, catches up the drop,
    and the four end the game with one final hash and complete logs."""
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
    # Version 5 (§C8.3 rule (c)): the quorum decides the drop at seat 3 (it waits at k, no
    # certificate); it is applied once the voters' shares are released, below.
    assert sessions[3].step == k and sessions[3].seats.quorum_at(k) == 4
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
