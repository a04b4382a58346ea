"""Resilience of the lockstep session (protocol.md §C8-§10): a peer killed mid-game restarts from its
log and catches up; a damaged log is detected, reported and recovered; a silent seat is dropped
by agreement and played by the bot (or retired); a seat that withholds its reveal gets exactly
the roll it would have had. All in memory, virtual clock, fake engine."""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.beacon import beacon as make_beacon
from p2p.gamelog import LogReader, LogWriter, OwnLog
from p2p.lockstep import (CaughtUp, GameOver, PeerStalled, SeatDropped, SeatDropVoted, StepApplied)
from p2p.resume import resume_session
from p2p.verify import verify_log
from p2p.wire import MSG_STEP, decode_step_body, open_envelope

from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal

DROP = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5}


def logged_game(tmp_path, n, options):
    """Sessions of an n-seat game, each with a game log and an own-message log."""
    lobbies = make_lobbies(n, options=options)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    paths = [tmp_path / f"seat{i}.log" for i in range(n)]
    sessions = [l.start_session(E, log=LogWriter(p, l.log_header())) for l, p in zip(ordered, paths)]
    for s, p in zip(sessions, paths):
        s.own_log = OwnLog(str(p) + ".own")
    secrets = [l.chain.value(0) for l in ordered]
    return sessions, paths, secrets, ordered


def finals(net):
    return [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]


def crash_at_step(net, seat, crash_step) -> bool:
    """Kill ``seat`` once its session reached ``crash_step``: its logs keep what they wrote (no
    flush beyond), the net runs it no more. True if it was killed now."""
    s = net.s[seat]
    if s is None or s.step < crash_step:
        return False
    s.log.close()
    s.own_log.close()
    net.s[seat] = None
    return True


def restart_from_log(net, sessions, paths, secrets, seat):
    """Restart ``seat`` from its game log and own-message log (``resume_session``, protocol.md
    §C10) into the net: resume_session's report."""
    s2, rep = resume_session(paths[seat], sessions[seat].identity, secrets[seat], E,
                             own_log_path=str(paths[seat]) + ".own", now=net.now)
    net.s[seat] = s2
    return rep


def crash_and_restart(net, sessions, paths, secrets, seat, crash_step, down_for, mutate_log=None):
    """Hook: kill ``seat`` (no flush beyond what the log wrote) when it reaches ``crash_step``;
    restart it ``down_for`` seconds later with resume_session."""
    st = {"crashed_at": None, "report": None, "waiting": None}

    def hook(net):
        if st["crashed_at"] is None and crash_at_step(net, seat, crash_step):
            st["crashed_at"] = net.now
        if st["crashed_at"] is not None and st["report"] is None:
            if net.now < st["crashed_at"] + down_for:
                others = [x for x in net.s if x is not None]
                st["waiting"] = others[0].waiting_for()
                return st["crashed_at"] + down_for
            if mutate_log is not None:
                mutate_log(paths[seat])
            st["report"] = restart_from_log(net, sessions, paths, secrets, seat)
        return None

    return hook, st


@pytest.mark.parametrize("n", [2, 3])
def test_killed_peer_restarts_from_its_log_and_the_game_finishes_agreed(tmp_path, n):
    sessions, paths, secrets, _ = logged_game(tmp_path, n, {"target": 40})
    net = Net(list(sessions), random_legal(E, seed=5))
    hook, st = crash_and_restart(net, sessions, paths, secrets, seat=1, crash_step=9, down_for=3.0)
    net.run(max_time=1e5, hook=hook)
    assert st["report"] is not None and st["report"].damage is None and st["report"].steps >= 8
    assert 1 in st["waiting"]  # the others showed whom they wait for
    overs = finals(net)
    assert all(len(o) == 1 for o in overs)
    assert len({(o[0].final_hash, o[0].steps) for o in overs}) == 1
    for p in paths:
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error
    assert len({p.read_bytes() for p in paths}) == 1  # the logs are still byte-identical


def test_truncated_log_is_detected_reported_and_recovered(tmp_path):
    sessions, paths, secrets, _ = logged_game(tmp_path, 3, {"target": 40})
    net = Net(list(sessions), random_legal(E, seed=9))

    def cut(path):
        data = path.read_bytes()
        path.write_bytes(data[:-7])  # the crash tore the last record

    hook, st = crash_and_restart(net, sessions, paths, secrets, seat=2, crash_step=12, down_for=2.0, mutate_log=cut)
    net.run(max_time=1e5, hook=hook)
    dmg = st["report"].damage
    assert dmg is not None and "truncated" in dmg.reason and dmg.step == st["report"].steps
    assert list(tmp_path.glob("seat2.log.damaged-*"))  # the torn bytes are kept aside
    overs = finals(net)
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
    assert verify_log(paths[2], engine=E).ok
    assert any(isinstance(e, CaughtUp) for e in net.events[2])


def test_corrupted_record_in_the_middle_names_its_step_and_keeps_what_came_before(tmp_path):
    sessions, paths, secrets, _ = logged_game(tmp_path, 3, {"target": 40})
    net = Net(list(sessions), random_legal(E, seed=4))

    def flip(path):
        recs = list(LogReader(path))
        data = bytearray(path.read_bytes())
        data[recs[6].offset + 30] ^= 0x40  # inside step 5's record
        path.write_bytes(bytes(data))

    hook, st = crash_and_restart(net, sessions, paths, secrets, seat=0, crash_step=14, down_for=1.0, mutate_log=flip)
    net.run(max_time=1e5, hook=hook)
    rep = st["report"]
    assert rep.damage.step == 5 and rep.steps == 5 and "checksum" in rep.damage.reason
    overs = finals(net)
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
    assert verify_log(paths[0], engine=E).ok


def run_with_silent_seat(tmp_path, n, options, seat, from_step):
    sessions, paths, secrets, lobbies = logged_game(tmp_path, n, options)
    net = Net(list(sessions), random_legal(E, seed=2))

    def hook(net):
        if net.s[seat] is not None and net.s[seat].step >= from_step:
            net.s[seat] = None
        return None

    net.run(max_time=1e5, hook=hook)
    return net, sessions, paths, secrets


@pytest.mark.parametrize("rule", ["bot", "bankrupt"])
def test_silent_seat_is_dropped_by_agreement_and_the_game_finishes(tmp_path, rule):
    opts = {"target": 30, C.OPT_ON_DROP: rule, C.OPT_DROP_TIMEOUT: 5}
    net, sessions, paths, _ = run_with_silent_seat(tmp_path, 3, opts, seat=1, from_step=7)
    alive = [0, 2]
    for i in alive:
        evs = net.events[i]
        stalled = [e for e in evs if isinstance(e, SeatDropVoted)]
        assert stalled and stalled[0].seat == 1
        (d,) = [e for e in evs if isinstance(e, SeatDropped)]
        assert d.seat == 1 and d.rule == rule and d.reconstructed  # 3 seats: escrow recombined
    overs = [finals(net)[i] for i in alive]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
    assert net.now >= 5  # the drop needed the timeout
    for i in alive:
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and rep.complete, rep.error
        if rule == "bankrupt":
            assert rep.events_by_type.get("Retired") == 1 and overs[0][0].winner != 1
    assert paths[0].read_bytes() == paths[2].read_bytes()


def test_two_seat_game_never_drops_the_silent_seat_it_pauses(tmp_path):
    """protocol.md §C8.3: Q = 2 of 2 seats, so a lone peer never drops the other (the two sides
    of a partition would each drop the other and fork); it pauses and says whom it waits for."""
    net, sessions, paths, _ = run_with_silent_seat(tmp_path, 2, dict(DROP, target=20), seat=0, from_step=5)
    s1 = net.s[1]
    assert not any(isinstance(e, (SeatDropped, SeatDropVoted)) for e in net.events[1])
    assert s1.phase == "running" and s1.paused() == (0,) and s1.drop_deadline() is None
    assert verify_log(paths[1], engine=E).ok and not finals(net)[1]


def test_dropped_peer_that_comes_back_is_a_spectator_and_agrees(tmp_path):
    sessions, paths, secrets, _ = logged_game(tmp_path, 3, dict(DROP, target=40))
    net = Net(list(sessions), random_legal(E, seed=3))
    hook, st = crash_and_restart(net, sessions, paths, secrets, seat=2, crash_step=6, down_for=20.0)
    net.run(max_time=1e5, hook=hook)
    assert any(isinstance(e, SeatDropped) and e.seat == 2 for e in net.events[0])
    back = net.s[2]
    assert back.spectator and back.needs_local_input() is None
    overs = finals(net)
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
    assert len({p.read_bytes() for p in paths}) == 1


def test_drop_is_not_applied_when_one_seat_holds_the_message(tmp_path):
    """Seat 2's messages reach seat 0 but not seat 1: seat 1 votes, seat 0 does not, and passes
    the message on; nobody is dropped."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 3, dict(DROP, target=25))
    blocked = {"until": 8.0}

    def drop(src, dst, raw):
        return src == 2 and dst == 1 and raw[:2] == bytes([0x93, MSG_STEP]) and net.now < blocked["until"]

    net = Net(list(sessions), random_legal(E, seed=8), drop=drop)
    net.run(max_time=1e5)
    assert not any(isinstance(e, SeatDropped) for evs in net.events for e in evs)
    overs = finals(net)
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1


# --- withholding a reveal -------------------------------------------------------------------

@pytest.mark.parametrize("game", range(4))
def test_withholding_a_bad_roll_never_changes_it(tmp_path, game):
    """A scripted peer holds back its reveal until it has seen all others, computes its roll,
    and goes silent when it dislikes it (its own turn, roll <= 3). The others drop it; the roll
    applied is exactly the one it tried to avoid (protocol.md §C8.3)."""
    opts = dict(DROP, target=60, game=game)
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, opts)
    cheat = 3
    held: list = []
    st = {"vetoed": None}

    def drop(src, dst, raw):
        if src != cheat:
            return False
        if st["vetoed"] is not None:
            return True
        s = net.s[cheat]
        if raw[:2] != bytes([0x93, MSG_STEP]) or s.pending.kind != "dice":
            return False
        b = decode_step_body(open_envelope(raw).body)
        if b.step == s.step and not held or (held and held[0][2] == b.step):
            held.append((dst, raw, b.step))  # hold our reveal until we have seen all others
            return True
        return False

    def hook(net):
        s = net.s[cheat]
        if s is None or st["vetoed"] is not None or not held or s.step <= held[0][2]:
            return None
        # We hold every other reveal, so our own session already applied the step: that is the
        # roll everyone gets if we reveal. Nobody else knows it yet.
        step = held[0][2]
        (ev,) = [e for e in net.events[cheat] if isinstance(e, StepApplied) and e.step == step]
        roll = [x.value for x in ev.engine_events if isinstance(x, E.Rolled)][0]
        if s.state.turn == cheat and roll <= 3:
            st["vetoed"] = (step, roll)
            net.s[cheat] = None  # goes silent instead of revealing
            return None
        for dst, raw, _ in held:
            if net.s[dst] is not None:
                net.s[dst].receive_message(raw, net.now)
        held.clear()
        return None

    net = Net(list(sessions), random_legal(E, seed=game), drop=drop)
    net.run(max_time=1e6, hook=hook)
    assert st["vetoed"] is not None, "the scripted peer never wanted to withhold"
    step, bad_roll = st["vetoed"]
    for i in range(3):
        applied = [e for e in net.events[i] if isinstance(e, StepApplied) and e.step == step]
        rolled = [x.value for x in applied[0].engine_events if isinstance(x, E.Rolled)]
        assert rolled == [bad_roll]
        assert any(isinstance(e, SeatDropped) and e.seat == cheat and e.reconstructed for e in net.events[i])
    overs = [finals(net)[i] for i in range(3)]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
    assert verify_log(paths[0], engine=E).ok
