"""Red team session 14 on main (H156): a turn skip (protocol.md §C8.10) overturning a step whose
overturned version re-seated a dropped seat (§C8.9).

§C8.9 'Why there is no race': the re-seat is decided by the step-k bodies, which every peer that
applies k holds identically. A skip makes two versions of step k possible for a while (§C8.10
'Precedence and roll back': a peer that applied d's late message rolls back when it sees the
quorum's kind-6 record). If d's own body is the carrier that completes a re-seat, the peer that
applied it re-seats the returning seat and starts a new escrow epoch (it deals an ESCROW of the
new epoch to everyone, §C8.2) on the version the table overturns. Checked: after the roll back
every honest peer ends the same game, nobody is re-seated, nobody (seat d least of all) is
proven or dropped for what it signed on the overturned version, and every log verifies.
In memory, virtual clock, fake engine.
"""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.lockstep import CheaterProven, GameOver, SeatDropped, SeatReturned, StepOverturned
from p2p.reseat import request_for
from p2p.resume import resume_session
from p2p.verify import verify_log

from p2p_harness import Net, random_legal
from test_resilience import logged_game
from test_turn_skip_session import _step_of

OPTS = {"target": 80, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3, C.OPT_TURN_TIME: 300}
GONE, LATE, EARLY_CARRIERS = 4, 3, (1, 2)


def _play(tmp_path, third_carrier: bool, later_drop: int | None = None, how: str = "skip"):
    sessions, paths, secrets, _ = logged_game(tmp_path, 5, OPTS)
    setup, gone_id = sessions[0].setup, sessions[GONE].identity
    st_ = {"state": "playing", "k": None, "req": None, "next": 0.0, "resumed": None}

    def drop(src, dst, raw):
        k = st_["k"]
        return k is not None and src == LATE and net.s[LATE] is not None and net.s[LATE].step <= k + 1 \
            and raw[:2] == bytes((0x93, 16)) and _step_of(raw) == k

    net = Net(list(sessions), random_legal(E, seed=2), drop=drop)
    live = (0, 1, 2, 3)

    def hook(net):
        s0 = net.s[0]
        if st_["state"] == "playing" and s0.step >= 2:
            net.s[GONE].log.close()
            net.s[GONE].own_log.close()
            net.s[GONE] = None  # seat 4 leaves: dropped by the bot rule
            st_["state"] = "gone"
        elif st_["state"] == "gone" and all(GONE in net.s[i].dropped for i in live):
            at = s0.dropped[GONE].step
            st_["req"] = request_for(gone_id, setup, GONE, at, bytes([0x44]) * 32)
            st_["state"], st_["from"] = "asking", s0.step + 3
        elif st_["state"] == "asking" and s0.phase == "running" and s0.step >= st_["from"] \
                and s0.skippable() and s0.pending.actors == (LATE,) and s0.active[:4] == [True] * 4 \
                and all(net.s[i].step == s0.step for i in live):
            st_["k"] = s0.step  # seat 3 decides now; the request reaches it just before it signs
            if third_carrier:
                net.s[LATE].receive_message(st_["req"], net.now)
            st_["state"] = "k"
        elif st_["state"] == "k" and net.s[LATE].step == st_["k"] + 1 \
                and all(net.s[i].step == st_["k"] for i in (0, 1, 2)):
            for i in (0, 1, 2):  # the players press J (skip) or j (drop): seat 3's message of k never came
                assert (net.s[i].skip_turn if how == "skip" else net.s[i].vote_out)(LATE, now=net.now)
            st_["state"] = "voted"
        if later_drop is not None and st_["resumed"] is not None and st_["state"] == "voted" \
                and st_["resumed"].step >= st_["k"] + 3 and net.s[later_drop] is not None:
            net.s[later_drop].log.close()  # a real new epoch after the overturned one
            net.s[later_drop].own_log.close()
            net.s[later_drop] = None
            st_["later"] = True
        s3 = net.s[LATE]
        if st_["resumed"] is None and s3 is not None and (isinstance(s3.halt_reason, StepOverturned)
                                                          or type(s3.halt_reason).__name__ == "SeatLost"):
            s3.log.close()
            s3.own_log.close()
            again, _ = resume_session(paths[LATE], s3.identity, secrets[LATE], E,
                                      own_log_path=str(paths[LATE]) + ".own", now=net.now,
                                      truncate_at=s3.halt_reason.step)
            net.s[LATE] = st_["resumed"] = again
        if st_["req"] is not None and net.now >= st_["next"]:
            for i in EARLY_CARRIERS:  # the returning player's request, re-sent every second
                if net.s[i] is not None:
                    net.s[i].receive_message(st_["req"], net.now)
            st_["next"] = net.now + C.RESEAT_RESEND
            return st_["next"]
        return None

    net.run(max_time=1e5, hook=hook)
    assert st_["k"] is not None and st_["state"] == "voted", st_["state"]
    return net, st_, paths


@pytest.mark.parametrize("later_drop", [None, 2, 0])
def test_c8_10_a_skip_overturning_the_step_that_re_seated_a_player_leaves_one_game(tmp_path, later_drop):
    """5 seats (Q = 3); seat 4 left and was dropped; its player's RESEAT reaches carriers 1 and
    2 only (2 < min(Q, 4 active) = 3: never enough). At step k (seat 3's decision) it reaches
    seat 3 as well, which carries it; seat 3's message of k reaches nobody, seat 3 applies k
    with 3 carriers and re-seats seat 4 (epoch + 1, a new ESCROW), while 0, 1, 2 skip seat 3's
    turn (Q votes) and re-seat nobody. Seat 3 meets the kind-6 record, halts with
    StepOverturned(k, 3), resumes from its log cut at k. Then: one game, seat 4 never back,
    nobody proven or dropped but seat 4, every log verifies. ``later_drop``: that seat leaves
    3 steps later, so the table reaches for real the epoch whose ESCROW seat 3 dealt on the
    overturned version (§C8.2: one escrow per seat and epoch): seat 3 must not be proven for
    dealing another one now."""
    net, st_, paths = _play(tmp_path, third_carrier=True, later_drop=later_drop)
    k = st_["k"]
    assert any(isinstance(e, SeatReturned) and e.seat == GONE for e in net.events[LATE]), \
        "premise: seat 3 re-seated seat 4 on the version of step k it applied"
    assert any(isinstance(e, StepOverturned) and (e.step, e.seat) == (k, LATE) for e in net.events[LATE])
    honest = [i for i in range(4) if i != later_drop]
    assert later_drop is None or st_.get("later")
    for i in honest:
        if i != LATE:
            assert not [e for e in net.events[i] if isinstance(e, SeatReturned)], i
    for i in honest:
        assert not [e for e in net.events[i] if isinstance(e, CheaterProven)], (i, net.events[i])
        assert {e.seat for e in net.events[i] if isinstance(e, SeatDropped)} >= {GONE} | (
            set() if later_drop is None else {later_drop}), i
        assert LATE not in {e.seat for e in net.events[i] if isinstance(e, SeatDropped)}, i
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in honest]
    assert all(len(o) == 1 for o in overs) and len({(o[0].final_hash, o[0].steps) for o in overs}) == 1
    for i in honest:
        net.s[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and rep.complete, (i, rep.error)


def _play_returning(tmp_path, then_everyone: bool = False):
    """As ``_play``, but seat 4's player really comes back: its peer restarts from its log as a
    spectator and asks (§C8.9 'Request'); its RESEATs reach carriers 1 and 2 only, and seat 3
    just before it signs step k; seat 3's message of k reaches only seat 4's peer, which applies
    k with it (3 carriers: it re-seats itself, a new epoch, its ESCROW and step-(k+1) message),
    as seat 3 does, while 0, 1, 2 skip seat 3's turn. A peer that halts (StepOverturned,
    SeatLost) is resumed from its log cut there, as the node does. ``then_everyone``: once seat
    4's peer resumed after the overturn, its RESEATs reach every carrier (it comes back for real,
    with the same chain secret: the same request bytes, §C8.9 'secret_for')."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 5, OPTS)
    secret = bytes([0x45]) * 32
    st_ = {"state": "playing", "k": None, "resumed": {}}

    def drop(src, dst, raw):
        if raw[:2] == bytes((0x93, 25)):  # RESEAT (type 25) of seat 4: to carriers 1 and 2 only
            return not st_.get("open") and dst not in EARLY_CARRIERS
        k = st_["k"]
        return k is not None and src == LATE and dst != GONE and net.s[LATE] is not None \
            and net.s[LATE].step <= k + 1 and raw[:2] == bytes((0x93, 16)) and _step_of(raw) == k

    net = Net(list(sessions), random_legal(E, seed=2), drop=drop)
    live = (0, 1, 2, 3)

    def restart(i, s, at):
        s.log.close()
        s.own_log.close()
        again, _ = resume_session(paths[i], s.identity, secrets[i], E, own_log_path=str(paths[i]) + ".own",
                                  now=net.now, truncate_at=at, reseat_secret=secret if i == GONE else None)
        net.s[i] = again
        st_["resumed"].setdefault(i, []).append(at)
        return again

    def hook(net):
        s0 = net.s[0]
        if st_["state"] == "playing" and s0.step >= 2:
            net.s[GONE].log.close()
            net.s[GONE].own_log.close()
            net.s[GONE] = None
            st_["state"] = "gone"
        elif st_["state"] == "gone" and all(GONE in net.s[i].dropped
                                             and net.s[i].step >= net.s[i].dropped[GONE].step + 2 for i in live):
            restart(GONE, sessions[GONE], None)
            st_["state"] = "resumed"
        elif st_["state"] == "resumed" and net.s[GONE].spectator:
            assert net.s[GONE].request_reseat(secret, net.now)
            st_["state"], st_["from"] = "asking", s0.step + 3
        elif st_["state"] == "asking" and s0.phase == "running" and s0.step >= st_["from"] \
                and s0.skippable() and s0.pending.actors == (LATE,) and s0.active[:4] == [True] * 4 \
                and all(net.s[i].step == s0.step for i in live):
            st_["k"] = s0.step
            req = request_for(sessions[GONE].identity, s0.setup, GONE, s0.dropped[GONE].step, secret)
            net.s[LATE].receive_message(req, net.now)
            st_["state"] = "k"
        elif st_["state"] == "k" and net.s[LATE].step == st_["k"] + 1 \
                and all(net.s[i].step == st_["k"] for i in (0, 1, 2)):
            for i in (0, 1, 2):
                assert net.s[i].skip_turn(LATE, now=net.now)
            st_["state"] = "voted"
        if then_everyone and len(st_["resumed"].get(GONE, ())) >= 2 and not st_.get("open"):
            g = net.s[GONE]  # as the node does after a restart as a spectator: ask again (same secret)
            if g.phase == "running" and g.spectator:
                st_["open"] = g.request_reseat(secret, net.now)
        for i in range(5):
            s = net.s[i]
            if s is not None and s.phase == "halted" and len(st_["resumed"].get(i, ())) < 4:
                reason = s.halt_reason
                if isinstance(reason, StepOverturned) or type(reason).__name__ == "SeatLost":
                    restart(i, s, reason.step)
        return None

    net.run(max_time=1e5, hook=hook)
    assert st_["k"] is not None and st_["state"] == "voted", st_["state"]
    return net, st_, paths


def test_c8_3_a_drop_of_the_carrier_whose_own_version_re_seated_a_player_leaves_one_game(tmp_path):
    """The drop twin (§C8.3 'drop > message'): 0, 1, 2 vote seat 3 out at k instead of skipping
    its turn (key j). Seat 3 applied k with its own body and re-seated seat 4 there; it halts
    SeatLost(k), resumes from its log cut at k as a spectator. Then: seat 4 never back (2
    carriers of min(Q, 3) = 3), nobody proven, one game among 0, 1, 2 and every log verifies."""
    net, st_, paths = _play(tmp_path, third_carrier=True, how="drop")
    assert any(isinstance(e, SeatReturned) and e.seat == GONE for e in net.events[LATE]), "premise"
    for i in (0, 1, 2):
        assert not [e for e in net.events[i] if isinstance(e, (SeatReturned, CheaterProven))], i
        assert {e.seat for e in net.events[i] if isinstance(e, SeatDropped)} == {GONE, LATE}, i
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in range(4)]
    assert all(len(o) == 1 for o in overs[:3])
    assert len({(o[-1].final_hash, o[-1].steps) for o in overs if o}) == 1
    for i in range(4):
        net.s[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok, (i, rep.error)


@pytest.mark.parametrize("then_everyone", [False, True])
def test_c8_10_the_returning_player_that_followed_the_overturned_version_comes_back_to_the_table(
        tmp_path, then_everyone):
    """The returning player's own peer applied the overturned version of step k (it re-seated
    itself there). Checked: it halts and resumes like seat 3, the table ends one game with one
    final hash at every peer (the returning one included, re-seated for real later or watching
    to the end), nobody is proven, only seat 4 was ever dropped, and every log verifies."""
    net, st_, paths = _play_returning(tmp_path, then_everyone)
    k = st_["k"]
    assert any(isinstance(e, SeatReturned) and e.seat == GONE for e in net.events[GONE]), \
        "premise: seat 4's peer re-seated itself on the overturned version"
    assert any(isinstance(e, StepOverturned) and e.step == k for e in net.events[LATE])
    for i in range(5):
        assert not [e for e in net.events[i] if isinstance(e, CheaterProven)], (i, net.events[i])
        assert LATE not in {e.seat for e in net.events[i] if isinstance(e, SeatDropped)}, i
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in range(5)]
    assert all(len(o) >= 1 for o in overs), [len(o) for o in overs]
    assert len({(o[-1].final_hash, o[-1].steps) for o in overs}) == 1
    if then_everyone:  # re-seated for real afterwards, at every peer, and plays to the end
        assert all(sum(isinstance(e, SeatReturned) and e.seat == GONE for e in net.events[i]) >= 1 for i in range(5))
        assert not net.s[GONE].spectator and all(s.active[GONE] for s in net.s)
    for i in range(5):
        net.s[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and rep.complete, (i, rep.error)
