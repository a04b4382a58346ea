"""Never fork (protocol.md §C8.3, §C8.7): a seat is dropped only with the signed votes of a strict
majority of all the setup's seats, so the two sides of a partition never both drop each
other; a side without a majority pauses and goes on from the same step when the partition
heals; a two-seat game never drops anyone and may end as abandoned (a signed outcome, never a
win). In memory, virtual clock, fake engine."""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.beacon import HashChain
from p2p.gamelog import KIND_STEP, LogReader
from p2p.lockstep import (ABANDONED, GameAbandoned, GameOver, SeatDropped, SeatDropVoted, SeatLost)
from p2p.seat_loss import UNDECIDED, quorum, recover_chain
from p2p.verify import verify_log
from p2p.wire import DropVote, Escrow, EscrowEntry

from p2p_harness import BadReveal, Net, make_lobbies, pump_lobbies, random_legal
from test_resilience import logged_game


def logged(tmp_path, n, options):
    """Sessions of an n-seat game with game and own-message logs, and the log paths."""
    sessions, paths, _, _ = logged_game(tmp_path, n, options)
    return sessions, paths


class Partition:
    """Cut the network between ``groups`` once seat ``watch`` reaches ``at_step``, for
    ``seconds`` of virtual time; ``silent``: seats that stop for good at the same moment."""

    def __init__(self, groups, at_step, seconds, watch=0, silent=()):
        self.side = {seat: g for g, members in enumerate(groups) for seat in members}
        self.at_step, self.seconds, self.watch, self.silent = at_step, seconds, watch, set(silent)
        self.start = None
        self.net = None
        self.waiting_seen = {}

    def drop(self, src, dst, data):
        if src in self.silent and self.start is not None:
            return True
        if self.start is None or self.net.now >= self.start + self.seconds:
            return False
        return self.side.get(src) != self.side.get(dst)

    def hook(self, net):
        self.net = net
        s = net.s[self.watch]
        if self.start is None and s is not None and s.step >= self.at_step:
            self.start = net.now
        if self.start is not None and net.now < self.start + self.seconds:
            for i, x in enumerate(net.s):
                if x is not None and x.paused():
                    self.waiting_seen[i] = x.paused()
            return self.start + self.seconds
        return None


def run(sessions, part, seed=3, max_time=1e5):
    net = Net(list(sessions), random_legal(E, seed=seed), drop=part.drop)
    part.net = net
    net.run(max_time=max_time, hook=part.hook)
    return net


def overs(net, seats):
    return [[e for e in net.events[i] if isinstance(e, GameOver)] for i in seats]


def step_records(path):
    return [r.payload for r in LogReader(path) if r.kind == KIND_STEP]


def test_quorum_is_a_strict_majority_of_all_seats():
    assert [quorum(n) for n in range(2, 9)] == [2, 2, 3, 3, 4, 4, 5]


def test_two_seat_partition_pauses_both_sides_and_the_game_goes_on_from_the_same_step(tmp_path):
    """The forking case of issue 9 item 2: each side used to drop the other with its own vote."""
    sessions, paths = logged(tmp_path, 2, {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3})
    part = Partition([[0], [1]], at_step=8, seconds=30.0)
    net = run(sessions, part)
    assert part.start is not None and set(part.waiting_seen) == {0, 1}  # both paused, naming the other
    assert part.waiting_seen[0] == (1,) and part.waiting_seen[1] == (0,)
    for i in (0, 1):
        assert not any(isinstance(e, (SeatDropVoted, SeatDropped)) for e in net.events[i])
    o = overs(net, (0, 1))
    assert all(len(x) == 1 for x in o) and o[0][0].final_hash == o[1][0].final_hash
    assert step_records(paths[0]) == step_records(paths[1])
    for s in sessions:
        s.log.close()
    assert all(verify_log(p, engine=E).complete for p in paths)


def test_three_seats_majority_side_drops_the_minority_which_never_drops_anyone(tmp_path):
    sessions, paths = logged(tmp_path, 3, {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3})
    part = Partition([[0, 1], [2]], at_step=6, seconds=40.0)
    net = run(sessions, part)
    for i in (0, 1):
        assert [e.seat for e in net.events[i] if isinstance(e, SeatDropped)] == [2]
    assert not any(isinstance(e, SeatDropped) and e.seat != 2 for e in net.events[2])
    assert 2 in part.waiting_seen  # the minority paused
    o = overs(net, (0, 1))
    assert all(len(x) == 1 for x in o) and o[0][0].final_hash == o[1][0].final_hash
    lost = [e for e in net.events[2] if isinstance(e, SeatLost)]
    if not lost:  # it had not applied the step it was dropped at: it follows as a spectator
        assert sessions[2].spectator and overs(net, (2,))[0][0].final_hash == o[0][0].final_hash
        assert step_records(paths[2]) == step_records(paths[0])


def test_after_a_drop_two_seats_cut_off_from_each_other_both_pause(tmp_path):
    """3 seats, seat 2 gone for good, then 0 and 1 cannot reach each other: a lone vote is not
    a quorum (2 of 3 seats), however many seats were dropped before."""
    sessions, paths = logged(tmp_path, 3, {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3})
    gone = Partition([[0, 1, 2]], at_step=4, seconds=0.0, silent=[2])
    net = Net(list(sessions), random_legal(E, seed=5), drop=gone.drop)
    gone.net = net
    cut = Partition([[0], [1]], at_step=12, seconds=30.0)
    cut.net = net

    def hook(net):
        gone.hook(net)
        return cut.hook(net)

    net.drop = lambda s, d, x: gone.drop(s, d, x) or cut.drop(s, d, x)
    net.run(max_time=1e5, hook=hook)
    for i in (0, 1):
        assert [e.seat for e in net.events[i] if isinstance(e, SeatDropped)] == [2]
    assert cut.start is not None and cut.waiting_seen.get(0) == (1,) and cut.waiting_seen.get(1) == (0,)
    o = overs(net, (0, 1))
    assert all(len(x) == 1 for x in o) and o[0][0].final_hash == o[1][0].final_hash
    assert step_records(paths[0]) == step_records(paths[1])


def test_a_lone_seat_may_end_the_game_as_abandoned_and_verify_says_so(tmp_path):
    sessions, paths = logged(tmp_path, 2, {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3})
    part = Partition([[0], [1]], at_step=6, seconds=1e9)
    net = run(sessions, part, max_time=200.0)
    s0, s1 = sessions
    assert s0.paused() == (1,) and s1.paused() == (0,)
    s0.abandon(net.now)
    (ab,) = [e for e in [s0.next_event()] if isinstance(e, GameAbandoned)]
    assert ab.seat == 0 and s0.phase == ABANDONED and s0.get_timer() is None
    raw = s0.messages_to_send()[-1]
    s1.receive_message(raw, net.now)  # the partition heals: no drop possible, seat 1 ends too
    (ab1,) = [e for e in [s1.next_event()] if isinstance(e, GameAbandoned)]
    assert ab1.seat == 0 and s1.phase == ABANDONED
    for s in sessions:
        s.log.close()
    for p in paths:
        rep = verify_log(p, engine=E)
        assert rep.ok and not rep.complete and rep.abandoned["seat"] == 0 and rep.winner is None


def test_abandon_in_a_three_seat_game_is_a_seat_that_left(tmp_path):
    """With a quorum still possible, another seat's ABANDON is an immediate drop vote: the
    game goes on without it (protocol.md §C8.7)."""
    sessions, paths = logged(tmp_path, 3, {"target": 30, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30})
    net = Net(list(sessions), random_legal(E, seed=7))
    state = {"done": False}

    def hook(net):
        s2 = net.s[2]
        if not state["done"] and s2 is not None and s2.step >= 5 and s2.phase == "running":
            s2.abandon(net.now)
            for raw in s2.messages_to_send():
                for i in (0, 1):
                    net.s[i].receive_message(raw, net.now)
            net.s[2] = None
            state["done"] = True
        return None

    net.run(max_time=1e5, hook=hook)
    for i in (0, 1):
        (d,) = [e for e in net.events[i] if isinstance(e, SeatDropped)]
        assert d.seat == 2 and d.reconstructed
    o = overs(net, (0, 1))
    assert all(len(x) == 1 for x in o) and o[0][0].final_hash == o[1][0].final_hash
    assert net.now < 30  # no drop timeout was waited for


# --- the threshold escrow (protocol.md §C8.2, §C8.3) ---------------------------------------------------

def _votes(seat, with_share, without, share=b"\x01" * C.SHARE_LEN):
    vs = [DropVote(b"g" * 16, v, 3, seat, 0, share) for v in with_share]
    vs += [DropVote(b"g" * 16, v, 3, seat, 0, None) for v in without]
    return sorted(vs, key=lambda v: v.voter)


@pytest.mark.parametrize("n", [5])
def test_mixed_votes_decide_nothing_until_t_shares_are_released(n):
    """Recipients m = 4, t = Q = 3 (version 5, §C8.3 'Recombination'): open votes never decide
    the stand-in (version 4 took m - t + 1 = 2 shareless votes for it); 1 or 2 released shares
    and open votes wait for the releases; only the escrow judges shares."""
    lobbies = make_lobbies(n)
    pump_lobbies(lobbies)
    setup = next(iter(lobbies.values())).setup
    assert recover_chain(setup, None, _votes(4, [0], [1, 2]), 4) == (UNDECIDED, None, (), ())
    assert recover_chain(setup, None, _votes(4, [0, 1], [2]), 4) == (UNDECIDED, None, (), ())
    assert recover_chain(setup, None, _votes(4, [], [0, 1, 2]), 4) == (UNDECIDED, None, (), ())
    # With the escrow, shares are checked first: these match no commitment, so no vote counts.
    esc = Escrow(setup.game_id, 4, 0, tuple(EscrowEntry(v, bytes(32), bytes(82)) for v in range(4)))
    assert recover_chain(setup, esc, _votes(4, [0, 1, 2], []), 4) == (UNDECIDED, None, (), (0, 1, 2))


def test_any_quorum_of_shares_recombines_the_same_chain():
    from p2p.escrow import make_shares, recombine, share_commit

    secret = bytes(range(32))
    gid = b"G" * 16
    recipients = [0, 1, 2, 4]
    shares = make_shares(secret, gid, 1, recipients, 3)
    entries = tuple(EscrowEntry(v, share_commit(shares[v], gid, 3, v, 1), b"") for v in recipients)
    esc = Escrow(gid, 3, 1, entries)
    head = HashChain(secret, 64).head
    for pick in ([0, 1, 2], [0, 2, 4], [1, 2, 4]):
        chain = recombine(esc, {v: shares[v] for v in pick}, head, 64, 3)
        assert chain is not None and chain.value(0) == secret
    bad = dict(shares)
    bad[4] = (int.from_bytes(bad[4], "big") ^ 1).to_bytes(C.SHARE_LEN, "big")
    assert recombine(esc, {v: bad[v] for v in (0, 1, 4)}, head, 64, 3) is None


# --- complaints (protocol.md §C8.8) -------------------------------------------------------------------

def honest_seats_agree_and_verify_names(net, sessions, paths, cheater):
    """Seats 0 and 1 finished with one final hash; their logs verify complete and name
    ``cheater`` as the only cheater."""
    o = overs(net, (0, 1))
    assert all(len(x) == 1 for x in o) and o[0][0].final_hash == o[1][0].final_hash
    for s in sessions[:2]:
        s.log.close()
    for p in paths[:2]:
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error
        assert {c["seat"] for c in rep.cheaters} == {cheater}


def test_nil_at_a_chance_step_to_one_peer_gets_the_cheater_dropped_not_the_victim(tmp_path):
    """Issue 9 item 4: seat 2 sends seat 0 a signed nil at a chance step and the real reveal to
    seat 1. Seat 0 no longer halts alone: its COMPLAINT convinces seat 1 (which compares it
    with the reveal it applied: equivocation), seat 2 is voted out by the quorum {0, 1}, the
    honest seats finish with one final hash and verify names seat 2."""
    from p2p.lockstep import CheaterProven
    from p2p.wire import MSG_STEP, decode_step_body, open_envelope, seal

    sessions, paths = logged(tmp_path, 3, {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30})
    cheat = {"done": None}

    def drop(src, dst, data):
        if src != 2 or dst != 0 or data[:2] != bytes([0x93, MSG_STEP]) or cheat["done"] is not None:
            return False
        env = open_envelope(data)
        b = decode_step_body(env.body)
        if b.step < 6 or type(b.input) is not bytes:
            return False
        nil = seal(sessions[2].identity, MSG_STEP, [b.game_id, b.step, 2, b.prev_hash, b.prev_digest, None])
        cheat["done"] = b.step
        sessions[0].receive_message(nil, net.now)
        return True

    net = Net(list(sessions), random_legal(E, seed=9), drop=drop)
    net.run(max_time=1e5)
    assert cheat["done"] is not None
    for i in (0, 1):
        proven = [e for e in net.events[i] if isinstance(e, CheaterProven)]
        assert proven and {e.seat for e in proven} == {2}
        assert [e.seat for e in net.events[i] if isinstance(e, SeatDropped)] == [2]
    assert not any(isinstance(e, SeatDropVoted) and e.seat == 0 for e in net.events[1])
    honest_seats_agree_and_verify_names(net, sessions, paths, cheater=2)


def test_asymmetric_race_the_peer_that_applied_the_dropped_seats_message_rolls_back(tmp_path):
    """protocol.md §C8.3 "asymmetric race": seat 4's step-k message reaches seat 3 only. Seat 3
    applies step k with it; seats 0, 1, 2 (a quorum of 5) drop seat 4 at k. Seat 3 learns it
    from their records (its step k+1 message is superseded, not a lie), halts with
    StepOverturned, restarts from its log cut at k, catches up the drop and finishes with the
    others: every step record is the same on every peer."""
    from p2p.lockstep import StepOverturned
    from p2p.resume import resume_session
    from p2p.wire import MSG_STEP, decode_step_body, open_envelope

    sessions, paths, secrets, _ = logged_game(tmp_path, 5, {"target": 40, C.OPT_ON_DROP: "bot",
                                                             C.OPT_DROP_TIMEOUT: 5})
    cut = {"k": None, "at": None}

    def drop(src, dst, data):
        if src == 4 and dst != 3:
            if cut["k"] is None and data[:2] == bytes([0x93, MSG_STEP]):
                b = decode_step_body(open_envelope(data).body)
                if b.step >= 6:
                    cut["k"], cut["at"] = b.step, net.now
            return cut["k"] is not None  # from then on seat 4 reaches seat 3 only
        if src == 3 and dst != 4 and cut["k"] is not None and net.now < cut["at"] + 7.0:
            # For a while seat 3 is slow to reach the others: its step-k message gets through,
            # nothing later and nothing of seat 4's (no forward, no catch-up answer, no hint).
            if data[:2] != bytes([0x93, MSG_STEP]):
                return True
            b = decode_step_body(open_envelope(data).body)
            return b.seat != 3 or b.step != cut["k"]
        return False

    net = Net(list(sessions), random_legal(E, seed=4), drop=drop)
    state = {"overturned": None}

    def hook(net):
        s3 = net.s[3]
        if s3 is not None and s3.phase == "halted" and isinstance(s3.halt_reason, StepOverturned):
            state["overturned"] = s3.halt_reason
            s3.log.close()
            s3.own_log.close()
            net.s[3], _ = resume_session(paths[3], s3.identity, secrets[3], E, own_log_path=str(paths[3]) + ".own",
                                         now=net.now, truncate_at=s3.halt_reason.step)
        return None

    net.run(max_time=1e5, hook=hook)
    ov = state["overturned"]
    assert ov is not None and ov.seat == 4 and ov.step == cut["k"]
    for i in (0, 1, 2):
        assert [(e.step, e.seat) for e in net.events[i] if isinstance(e, SeatDropped)] == [(cut["k"], 4)]
    o = overs(net, (0, 1, 2, 3))
    assert all(len(x) == 1 for x in o) and len({x[0].final_hash for x in o}) == 1
    assert step_records(paths[3]) == step_records(paths[0]) == step_records(paths[1])


def test_bad_reveal_to_everyone_drops_the_cheater_with_its_real_reveal(tmp_path):
    """A seat that signs a wrong reveal at a chance step for everyone is proven by every honest
    peer (§C8.8 kind 2), voted out by the quorum at that very step, and its reveal is the one
    recombined from its escrow: the roll is the one it tried to dodge (§C8.1)."""
    from p2p.lockstep import CheaterProven

    sessions, paths = logged(tmp_path, 3, {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30})
    cheat = BadReveal(sessions[2].identity, 2)
    net = cheat.net = Net(list(sessions), random_legal(E, seed=12), drop=cheat)
    net.run(max_time=1e5)
    assert cheat.step is not None
    for i in (0, 1):
        assert {e.seat for e in net.events[i] if isinstance(e, CheaterProven)} == {2}
        (d,) = [e for e in net.events[i] if isinstance(e, SeatDropped)]
        assert (d.step, d.seat, d.reconstructed) == (cheat.step, 2, True)
    honest_seats_agree_and_verify_names(net, sessions, paths, cheater=2)


def test_a_restarted_peer_takes_back_its_vote_and_signs_no_other(tmp_path):
    """One vote per step and epoch survives a crash (§C8.3): the vote is written to the
    own-message log before it is sent; the restarted session adopts and re-sends the very same
    envelope and will not vote again at that step."""
    from p2p.resume import resume_session
    from p2p.wire import MSG_DROP

    sessions, paths, secrets, _ = logged_game(tmp_path, 3, {"target": 40, C.OPT_ON_DROP: "bot",
                                                             C.OPT_DROP_TIMEOUT: 5})
    s0, s1, s2 = sessions
    net = Net([s0, s1, s2], random_legal(E, seed=2))
    for _ in range(6):
        net.inputs()
        net.deliver()
    s2.messages_to_send()  # seat 2 falls silent
    net.s[2] = None
    s0.handle_timer(s0.vote_time(2))
    (vote,) = [m for m in s0.messages_to_send() if m[:2] == bytes([0x93, MSG_DROP])]
    s0.log.close()
    s0.own_log.close()
    back, _ = resume_session(paths[0], s0.identity, secrets[0], E, own_log_path=str(paths[0]) + ".own",
                             now=s0.vote_time(2) + 1.0)
    assert back.step == s0.step and vote in back.messages_to_send()
    assert back.drop_deadline() is None  # already voted in this step and epoch
    back.handle_timer(back.vote_time(2) + 100.0)
    assert not [m for m in back.messages_to_send() if m[:2] == bytes([0x93, MSG_DROP]) and m != vote]
