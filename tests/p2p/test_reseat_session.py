"""Re-seating a returning player, whole sessions (protocol.md §C8.9): a peer killed until the
others drop its seat restarts from its log, follows as a spectator, asks for its seat back and
plays it again from a step every peer agrees on; the game ends with one final hash and every
log verifies. In memory, virtual clock, fake engine (chance steps and decisions)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

import fake_engine as E
from p2p import const as C
from p2p.lockstep import GameOver, SeatDropped, SeatReturned
from p2p.verify import verify_log

from p2p_harness import Net, random_legal
from test_resilience import crash_at_step, logged_game, restart_from_log

NEW_SECRET = bytes(range(32))


def _returning(sessions, paths, secrets, seat, crash_step, ask=True, extra_steps=4):
    """Hook: kill ``seat`` at ``crash_step``; once the others dropped it and went on
    ``extra_steps`` steps, restart it from its log; once it is a spectator, it asks for its seat
    back (``ask``)."""
    st = {"crashed": None, "back": None, "asked": None, "spectator_seen": False}

    def hook(net):
        if st["crashed"] is None and crash_at_step(net, seat, crash_step):
            st["crashed"] = net.now
            return None
        if st["crashed"] is not None and st["back"] is None:
            others = [x for x in net.s if x is not None]
            if any(seat not in x.dropped or x.step < x.dropped[seat].step + extra_steps for x in others) \
                    and all(x.phase == "running" for x in others):
                return None
            restart_from_log(net, sessions, paths, secrets, seat)
            st["back"] = net.now
            return None
        if st["back"] is not None and st["asked"] is None and ask:
            s2 = net.s[seat]
            if s2.spectator:
                st["spectator_seen"] = True
                st["asked"] = s2.request_reseat(NEW_SECRET, net.now)
        return None

    return hook, st


def _events(net, cls):
    return [[e for e in evs if isinstance(e, cls)] for evs in net.events]


def test_dropped_player_returns_and_plays_its_seat_again(tmp_path):
    opts = {"target": 70, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, opts)
    net = Net(list(sessions), random_legal(E, seed=11))
    hook, st = _returning(sessions, paths, secrets, seat=3, crash_step=6)
    net.run(max_time=1e5, hook=hook)
    assert st["spectator_seen"] and st["asked"]
    overs = _events(net, GameOver)
    assert all(len(o) == 1 for o in overs), [s.phase if s else None for s in net.s]
    assert len({(o[0].final_hash, o[0].steps) for o in overs}) == 1
    back = _events(net, SeatReturned)
    # Every peer, the returning one included, re-seats it at the same step (§C8.9).
    assert all(len(b) == 1 and b[0].seat == 3 for b in back), back
    assert len({b[0].step for b in back}) == 1
    dropped = _events(net, SeatDropped)[0][0]
    assert dropped.seat == 3 and dropped.step < back[0][0].step
    assert not net.s[3].spectator and net.s[3].active[3]
    # It played again: its own messages after the re-seat carry its new chain's reveals.
    assert net.s[3].chain.head != sessions[3].chain.head
    for p in paths:
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error


def test_a_player_who_does_not_ask_stays_a_spectator(tmp_path):
    opts = {"target": 50, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, opts)
    net = Net(list(sessions), random_legal(E, seed=4))
    hook, st = _returning(sessions, paths, secrets, seat=2, crash_step=5, ask=False)
    net.run(max_time=1e5, hook=hook)
    assert all(b == [] for b in _events(net, SeatReturned))
    assert net.s[2].spectator
    overs = _events(net, GameOver)
    assert len({(o[0].final_hash, o[0].steps) for o in overs}) == 1


def test_request_refused_unless_we_are_a_dropped_spectator(tmp_path):
    opts = {"target": 30, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}
    sessions, _, _, _ = logged_game(tmp_path, 3, opts)
    assert sessions[0].request_reseat(NEW_SECRET, 0.0) is False  # our seat is not dropped
    assert sessions[0].messages_to_send() is not None


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.sampled_from([3, 4, 5]), crash_step=st.integers(2, 12), seed=st.integers(0, 10**6),
       loss=st.sampled_from([0.0, 0.05, 0.1]))
@example(n=4, crash_step=2, seed=102406, loss=0.1)  # each survivor lost the others' DROP votes: none re-sent
@example(n=4, crash_step=8, seed=33600, loss=0.05)  # the spectator lost the last step's message: nobody re-sent
@example(n=3, crash_step=9, seed=424, loss=0.1)  # a live seat one step behind was voted out: votes split
def test_every_peer_reseats_at_the_same_step(tmp_path_factory, n, crash_step, seed, loss):
    """Property (§C8.9 "never fork"): with message loss, whatever the crash step, every peer
    re-seats the returning seat at the same step, and the peers that finish end with the same
    final hash and a log that verifies. A peer may instead stop with ``SeatLost`` or
    ``StepOverturned`` (a quorum dropped a seat at a step it applied with that seat's message:
    the rollback of §C8.3, which the node turns into a restart; this harness does not restart
    it)."""
    tmp = tmp_path_factory.mktemp("reseat")
    opts = {"target": 60, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}
    sessions, paths, secrets, _ = logged_game(tmp, n, opts)
    rng = random.Random(seed)
    seat = n - 1
    net = Net(list(sessions), random_legal(E, seed=seed), drop=lambda src, dst, data: rng.random() < loss)
    hook, st_ = _returning(sessions, paths, secrets, seat=seat, crash_step=crash_step)
    net.run(max_time=1e5, hook=hook)
    assert st_["asked"]
    back = _events(net, SeatReturned)
    assert len({b[0].step for b in back if b}) == 1 and all(len(b) <= 1 for b in back)
    done = [i for i, s in enumerate(net.s) if s.phase == "finished"]
    assert len(done) >= sessions[0].seats.quorum
    for i, s in enumerate(net.s):
        if i not in done:
            assert type(s.halt_reason).__name__ in ("SeatLost", "StepOverturned"), s.halt_reason
    overs = _events(net, GameOver)
    assert len({(overs[i][-1].final_hash, overs[i][-1].steps) for i in done}) == 1
    for i in done:
        assert len(back[i]) == 1
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and rep.complete, rep.error


def test_a_stranger_cannot_take_a_dropped_seat(tmp_path):
    """§C8.9 "only the seat's key can ask": a RESEAT for the dropped seat signed by another key
    (a stranger's, or another seat's) is dropped and counted by every carrier, never carried;
    the bot keeps playing the seat."""
    from p2p.identity import Identity
    from p2p.reseat import make_request

    opts = {"target": 50, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, opts)
    net = Net(list(sessions), random_legal(E, seed=8))
    hook, st = _returning(sessions, paths, secrets, seat=3, crash_step=5, ask=False)
    sent = {"done": False}

    def forge(net):
        wake = hook(net)
        live = [s for s in net.s[:3] if s is not None]
        if not sent["done"] and all(3 in s.dropped for s in live):
            at = live[0].dropped[3].step
            for who in (Identity.from_seed(b"stranger"), sessions[1].identity):
                raw = make_request(who, sessions[0].game_id, 3, at, bytes(32))
                for s in live:
                    s.receive_message(raw, net.now)
            sent["done"] = True
        return wake

    net.run(max_time=1e5, hook=forge)
    assert sent["done"]
    assert all(b == [] for b in _events(net, SeatReturned))
    assert all(s.reseat.carrier.stats["bad"] == 2 for s in net.s[:3])
    overs = _events(net, GameOver)
    assert len({(o[0].final_hash, o[0].steps) for o in overs[:3]}) == 1
