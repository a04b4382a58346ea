"""Red team of the re-seat (protocol.md §C8.9) and the escrow epoch (§C8.2): attacks a hostile
seat or LAN peer can mount with RESEAT requests, each with the rule that holds against it.

* A seat that leaves and returns again and again (drop + re-seat = two new epochs per cycle)
  used to run the epoch past the wire's range (then 0..8): every honest peer raised
  ``LocalProtocolError`` sealing its next ESCROW and the game died. Now the epoch is 0..255 and
  a re-seat counts only while the epoch leaves room for a drop of every active seat but one
  (``reseat.epoch_room``); past it the seat stays with the bot.
* A replayed RESEAT (saved by any peer that saw it) re-seats a player who asked and left again:
  accepted and documented in §C8.9 (one drop timeout, two epochs, once per drop); the game goes
  on and never forks.

In memory, virtual clock, fake engine (tests/p2p/p2p_harness.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import fake_engine as E
from p2p import const as C
from p2p import wire
from p2p.errors import LocalProtocolError, WireError
from p2p.lockstep import GameOver, SeatDropped, SeatReturned
from p2p.reseat import epoch_room, readmissions, request_for
from p2p.resume import resume_session
from p2p.verify import verify_log

from p2p_harness import BadReveal, Net, random_legal, started_sessions
from test_resilience import logged_game

OPTS = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}


def _cycling(sessions, paths, secrets, seat, cycles):
    """Hook: ``seat`` plays 3 steps, crashes, waits until the others dropped it, restarts from
    its log and asks for its seat back; ``cycles`` times. Records (what, step, epoch)."""
    st_ = {"state": "playing", "cycle": 0, "mark": 0, "secret": None, "log": [], "refused": False}

    def hook(net):
        s = net.s[seat]
        others = [x for i, x in enumerate(net.s) if i != seat and x is not None]
        if st_["state"] == "playing" and st_["cycle"] < cycles and s is not None \
                and s.step >= st_["mark"] + 3 and all(x.active[seat] for x in others):
            s.log.close()
            s.own_log.close()
            net.s[seat] = None
            st_["state"] = "down"
            st_["log"].append(("crash", s.step, s.epoch))
        elif st_["state"] == "down" and all(seat in x.dropped and x.step >= x.dropped[seat].step + 2
                                             for x in others):
            s2, _ = resume_session(paths[seat], sessions[seat].identity, secrets[seat], E,
                                   own_log_path=str(paths[seat]) + ".own", now=net.now,
                                   reseat_secret=st_["secret"])
            net.s[seat] = s2
            st_["state"] = "resumed"
        elif st_["state"] == "resumed" and s.spectator:
            st_["secret"] = bytes([st_["cycle"] + 1]) * 32
            if s.request_reseat(st_["secret"], net.now):
                st_["state"] = "asking"
                st_["asked_at"] = s.step
        elif st_["state"] == "asking" and all(x.active[seat] for x in others) and not s.spectator:
            st_["cycle"] += 1
            st_["mark"] = s.step
            st_["state"] = "playing"
            st_["log"].append(("back", s.step, s.epoch))
        return None

    return hook, st_


def _events(net, cls):
    return [[e for e in evs if isinstance(e, cls)] for evs in net.events]


def test_leave_and_return_cycles_cannot_run_the_epoch_off_the_wire(tmp_path, monkeypatch):
    """The attack as it was: MAX_EPOCH = 8 (the wire's old bound). A 3-seat game; seat 2
    leaves and returns 6 times. Before the fix the 5th drop made epoch 9 and every honest peer
    raised LocalProtocolError sealing its ESCROW. Now re-seats stop while epoch + active + 1
    would pass the bound: the seat stays with the bot, the game ends with one final hash and
    every log verifies."""
    monkeypatch.setattr(C, "MAX_EPOCH", 8)
    sessions, paths, secrets, _ = logged_game(tmp_path, 3, {"target": 160, **OPTS})
    net = Net(list(sessions), random_legal(E, seed=3))
    hook, st_ = _cycling(sessions, paths, secrets, seat=2, cycles=6)
    net.run(max_time=1e5, hook=hook)
    live = [s for s in net.s if s is not None]
    assert all(s.phase == "finished" for s in live), [(s.phase, s.halt_reason) for s in live]
    assert max(s.epoch for s in live) <= 8
    backs = [e for e in st_["log"] if e[0] == "back"]
    # 3 seats: re-seats at epochs 1, 3, 5 are admitted (1+2+1, 3+2+1, 5+2+1 <= 8), the one at 7 is not.
    assert [b[2] for b in backs] == [2, 4, 6], st_["log"]
    assert st_["state"] == "asking" and net.s[2].spectator  # its 4th request is refused by everyone
    overs = _events(net, GameOver)
    assert len({(o[-1].final_hash, o[-1].steps) for o in overs}) == 1
    for p in paths[:2]:
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error


def test_epoch_on_the_wire_is_0_to_max_epoch():
    gid = bytes(16)
    for mtype, body in ((wire.MSG_DROP, wire.DropVote(gid, 0, 5, 1, C.MAX_EPOCH, None)),
                        (wire.MSG_SKIP, wire.SkipVote(gid, 0, 5, 1, C.MAX_EPOCH))):
        enc = wire.SCHEMAS[mtype].encode(body)
        assert wire.SCHEMAS[mtype].decode(enc).epoch == C.MAX_EPOCH
        with pytest.raises(LocalProtocolError):
            wire.SCHEMAS[mtype].encode(body._replace(epoch=C.MAX_EPOCH + 1))
        with pytest.raises(WireError):
            wire.SCHEMAS[mtype].decode(wire.pack([*body[:4], C.MAX_EPOCH + 1] + ([None] if mtype == wire.MSG_DROP else [])))


def test_readmissions_refuse_past_the_epoch_room():
    sessions = started_sessions(4, options={"target": 40, **OPTS})
    setup, ids = sessions[0].setup, [s.identity for s in sessions]
    reqs = {s: request_for(ids[s], setup, s, 7, bytes([s]) * 32) for s in (2, 3)}
    active = [True, True, False, False]
    fields = [[reqs[2], reqs[3]], [reqs[2], reqs[3]], None, None]
    drops = {2: 7, 3: 7}
    # 2 active: a re-seat needs epoch + 2 + 1 <= MAX; the second one epoch + 1 + 3 + 1.
    assert set(readmissions(setup, active, drops, fields, C.MAX_EPOCH - 5, {})) == {2, 3}
    assert set(readmissions(setup, active, drops, fields, C.MAX_EPOCH - 4, {})) == {2}
    assert readmissions(setup, active, drops, fields, C.MAX_EPOCH - 2, {}) == {}


@settings(max_examples=200, deadline=None)
@given(seats=st.integers(3, 8), moves=st.lists(st.booleans(), max_size=400))
def test_epoch_never_leaves_the_wire_range(seats, moves):
    """Property: whatever sequence of drops (while 2+ seats are active) and re-seat attempts,
    the epoch stays <= MAX_EPOCH and a drop of every active seat but one always still fits."""
    epoch, active = 0, seats
    for drop in moves:
        if drop and active > 1:
            epoch, active = epoch + 1, active - 1
        elif not drop and active < seats and epoch_room(epoch, active):
            epoch, active = epoch + 1, active + 1
        assert epoch + active - 1 <= C.MAX_EPOCH


def test_replayed_request_reseats_a_player_who_left_again_once(tmp_path):
    """Accepted limit (§C8.9 'Faults it is safe against'): the returning player asks once and
    leaves at once; a hostile peer that saved its RESEAT re-sends it to every carrier, which
    holds it as fresh. The seat is re-seated without its player, then dropped again after the
    drop timeout (a new drop step: the saved request is dead from then on). Cost: one drop
    timeout and two epochs per request the player signed; no fork, the game ends, logs verify."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, {"target": 60, **OPTS})
    net = Net(list(sessions), random_legal(E, seed=5))
    seat = 3
    st_ = {"state": "playing", "saved": None, "replays": 0}

    def hook(net):
        s = net.s[seat]
        others = net.s[:seat]
        if st_["state"] == "playing" and s is not None and s.step >= 4:
            s.log.close()
            s.own_log.close()
            net.s[seat] = None
            st_["state"] = "down"
        elif st_["state"] == "down" and all(seat in x.dropped and x.step >= x.dropped[seat].step + 2 for x in others):
            s2, _ = resume_session(paths[seat], sessions[seat].identity, secrets[seat], E,
                                   own_log_path=str(paths[seat]) + ".own", now=net.now)
            net.s[seat] = s2
            st_["state"] = "resumed"
        elif st_["state"] == "resumed" and s.spectator:
            assert s.request_reseat(bytes(range(32)), net.now)
            st_["saved"] = s.messages_to_send()[-1]
            net.s[seat] = None  # it leaves at once: its request reached nobody
            st_["state"] = "gone"
            st_["at"] = net.now
        elif st_["state"] == "gone" and st_["replays"] < 20 and net.now >= st_["at"] + st_["replays"] * C.RESEAT_RESEND:
            for x in others:  # the hostile replayer (any peer of the LAN) re-sends it every second
                x.receive_message(st_["saved"], net.now)
            st_["replays"] += 1
            return st_["at"] + st_["replays"] * C.RESEAT_RESEND
        return None

    net.run(max_time=1e5, hook=hook)
    assert st_["saved"] is not None and st_["replays"] >= 1
    back = _events(net, SeatReturned)[:seat]
    drops = _events(net, SeatDropped)[:seat]
    assert all(len(b) == 1 for b in back), back  # re-seated once, never again on the same request
    # Dropped again at the step it came back (nobody plays it; it never dealt its new escrow, so
    # the stand-in plays its chance inputs, §C8.5).
    assert all(len(d) == 2 and d[1].step >= b[0].step and not d[1].reconstructed for d, b in zip(drops, back))
    overs = _events(net, GameOver)[:seat]
    assert len({(o[-1].final_hash, o[-1].steps) for o in overs}) == 1
    for p in paths[:seat]:
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error


def test_a_proven_cheater_is_not_carried_back(tmp_path):
    """H2's open point (§C8.9 'Carrying'): a seat proven to cheat by a COMPLAINT (here kind 2, a
    reveal that does not hash to its chain, sent to everyone) is voted out at once; its player
    then asks for the seat back with a fresh chain, re-sent every second. The honest carriers
    hold proven cheaters' requests as "ignored" and never carry them, so with an honest quorum
    it never returns (before: it was re-seated, re-dropped at once by the cheater votes, and
    could loop, two epochs and a new escrow round of every seat per cycle)."""
    from p2p.lockstep import CheaterProven

    sessions, paths, _, _ = logged_game(tmp_path, 4, {"target": 60, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30})
    cheat = BadReveal(sessions[3].identity, 3)

    st_ = {"req": None, "sent": 0}

    def hook(net):
        honest = net.s[:3]
        if st_["req"] is None and all(3 in s.dropped for s in honest):
            net.s[3] = None  # the cheater's peer leaves; its player asks to come back
            st_["req"] = request_for(sessions[3].identity, sessions[0].setup, 3, honest[0].dropped[3].step,
                                     bytes(range(32)))
            st_["at"] = net.now
        if st_["req"] is not None and all(s.phase == "running" for s in honest) \
                and net.now >= st_["at"] + st_["sent"] * C.RESEAT_RESEND:
            for s in honest:
                s.receive_message(st_["req"], net.now)
            st_["sent"] += 1
            return st_["at"] + st_["sent"] * C.RESEAT_RESEND
        return None

    net = cheat.net = Net(list(sessions), random_legal(E, seed=12), drop=cheat)
    net.run(max_time=1e5, hook=hook)
    assert st_["sent"] >= 1
    for i in range(3):
        assert {e.seat for e in net.events[i] if isinstance(e, CheaterProven)} == {3}
        assert not [e for e in net.events[i] if isinstance(e, SeatReturned)]
        assert net.s[i].reseat.carrier.stats["held"] == 0
    overs = _events(net, GameOver)[:3]
    assert len({(o[-1].final_hash, o[-1].steps) for o in overs}) == 1
    for p in paths[:3]:
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error
