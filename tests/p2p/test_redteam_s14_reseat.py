"""Red team session 14 on main (H156): re-seats (protocol.md §C8.9) against a lying seat.

§C8.9 'Faults it is safe against' promises that "a seat whose request min(Q, active) honest
carriers hold is re-seated". H156 BREAK #1: the epoch room (``reseat.epoch_room``: epoch + active
+ 1 <= MAX_EPOCH) was one budget of the whole table, and a drop keeps epoch + active constant:
once one seat's leave/return cycles used it up, nobody's request was ever counted again. Since
version 6 each seat has its own budget of ``reseat.MAX_RESEATS`` re-seats (§C8.9 'Budget'),
counted from the history by the session and by ``verify`` alike (``readmissions``' ``reseats``),
and the table's room can no longer run out. In memory, virtual clock, fake engine
(tests/p2p/p2p_harness.py); the game tests lower MAX_RESEATS to 2 (and MAX_EPOCH to the least
the budget's arithmetic allows at 5 seats) so the liar spends its budget in 2 cycles, not 15.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import fake_engine as E
from p2p import const as C
from p2p import reseat
from p2p.lockstep import GameOver, SeatReturned
from p2p.reseat import MAX_RESEATS, epoch_room, has_budget, needed, readmissions, request_for
from p2p.resume import resume_session
from p2p.verify import verify_log

from p2p_harness import Net, random_legal, started_sessions
from test_redteam_reseat import _cycling
from test_resilience import logged_game

OPTS = {"target": 200, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}
LIAR, HONEST = 4, 2
CARRIERS = (0, 1, 3)


def _play(tmp_path, liar_leaves: int):
    """5 seats (Q = 3). ``LIAR`` leaves ``liar_leaves`` times (each time: crash, dropped, restart, RESEAT
    re-sent every second; re-seated when it counts, ``_cycling``); 8 steps after its last request. Then honest seat
    ``HONEST`` crashes, is dropped, restarts from its log and asks for its seat (§C8.9 'Request'),
    its request re-sent by its peer every second to the end. Returns (net, liar's state)."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 5, OPTS)
    net = Net(list(sessions), random_legal(E, seed=7))
    cycle_hook, lst = _cycling(sessions, paths, secrets, seat=LIAR, cycles=liar_leaves)
    st_ = {"state": "liar"}

    def others(seat):
        return [x for i, x in enumerate(net.s) if i != seat and x is not None]

    def hook(net):
        if st_["state"] == "liar":
            cycle_hook(net)
            crashes = [b for b in lst["log"] if b[0] == "crash"]
            if len(crashes) == liar_leaves and lst["state"] in ("asking", "playing") \
                    and net.s[0].step >= lst.get("asked_at", 0) + 8:
                st_["state"] = "liar_done"
            return None
        s = net.s[HONEST]
        if st_["state"] == "liar_done":
            s.log.close()
            s.own_log.close()
            net.s[HONEST] = None
            st_["state"] = "down"
        elif st_["state"] == "down" and all(HONEST in x.dropped and x.step >= x.dropped[HONEST].step + 2
                                             for x in others(HONEST) if not x.spectator):
            s2, _ = resume_session(paths[HONEST], sessions[HONEST].identity, secrets[HONEST], E,
                                   own_log_path=str(paths[HONEST]) + ".own", now=net.now)
            net.s[HONEST] = s2
            st_["state"] = "resumed"
        elif st_["state"] == "resumed" and s.spectator:
            assert s.request_reseat(bytes([0x5A]) * 32, net.now)  # its budget is untouched
            st_["state"] = "asking"
        return None

    net.run(max_time=1e5, hook=hook)
    assert st_["state"] == "asking", (st_, lst)
    return net, lst, paths


def _back(net, seat, peers):
    return all(any(isinstance(e, SeatReturned) and e.seat == seat for e in net.events[i]) for i in peers)


def test_c8_9_premise_an_honest_player_that_asks_gets_its_seat_back(tmp_path, monkeypatch):
    """Premise of the break below (§C8.9 'Decision'): the liar leaves once and is re-seated
    (epoch 2); the honest player dropped later (epoch 3, 4 active) asks and is re-seated by
    carriers 0, 1, 3 and 4 (3 + 4 + 1 <= 8); the game ends with one hash, logs verify."""
    monkeypatch.setattr(C, "MAX_EPOCH", 8)  # the room is the wire's bound: 3 + 4 + 1 <= 8 still fits
    net, lst, paths = _play(tmp_path, liar_leaves=1)
    assert [b[0] for b in lst["log"]] == ["crash", "back"], lst["log"]
    assert _back(net, HONEST, CARRIERS)
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert len({(o[-1].final_hash, o[-1].steps) for o in (overs[i] for i in CARRIERS)}) == 1
    for p in (paths[i] for i in CARRIERS):
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error


@pytest.mark.parametrize("carriers_filter", [True, False], ids=["carriers-filter", "carriers-carry-all"])
def test_c8_9_one_seats_leave_and_return_cycles_spend_only_its_own_budget(tmp_path, monkeypatch, carriers_filter):
    """§C8.9 'Budget' (version 6; H156 BREAK #1, a strict xfail until then): MAX_RESEATS = 2 and
    MAX_EPOCH = 5 + 2·5·2 − 1 = 24, the least the budget's arithmetic allows at 5 seats. The liar
    (seat 4 of 5) leaves and returns twice and asks a third time, whatever its budget: refused by
    every carrier (its budget is spent). Then honest seat 2 crashes, is dropped and asks: its
    request, carried by honest carriers 0, 1 and 3 (min(Q, active) = 3), re-seats it. Before the
    budget the liar came back a third time (the room of 24 still had space) and, at MAX_EPOCH =
    255, ~125 cycles kept every later returning player with the bot. ``carriers-carry-all``:
    carriers carry spent seats' requests too, so the refusal is ``readmissions``' alone, and the
    carriers' logs verify only if ``verify`` counts each seat's re-seats as the session does."""
    monkeypatch.setattr(reseat, "MAX_RESEATS", 2)
    monkeypatch.setattr(C, "MAX_EPOCH", 5 + 2 * 5 * 2 - 1)
    if not carriers_filter:
        monkeypatch.setattr(reseat.Reseat, "_budgeted", lambda self, drop_steps: drop_steps)
    asks = _liar_asks_regardless(monkeypatch)
    net, lst, paths = _play(tmp_path, liar_leaves=3)
    assert asks["patched"]
    assert [b[0] for b in lst["log"]] == ["crash", "back", "crash", "back", "crash"], lst["log"]
    assert net.s[LIAR].spectator  # the liar's third request refused: its own budget is spent
    assert all(net.s[i].reseat.reseats == {LIAR: 2, HONEST: 1} for i in CARRIERS)
    carried = [sum(1 for h in net.s[i].reseat.carrier._held if h == LIAR) for i in CARRIERS]
    assert carried == ([0, 0, 0] if carriers_filter else [1, 1, 1]), carried
    assert _back(net, HONEST, CARRIERS), "the honest player was never re-seated"
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(overs[i]) == 1 for i in CARRIERS)
    assert len({(overs[i][-1].final_hash, overs[i][-1].steps) for i in CARRIERS}) == 1
    for p in (paths[i] for i in CARRIERS):
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, rep.error
    assert max(s.epoch for s in net.s if s is not None) <= C.MAX_EPOCH


def _liar_asks_regardless(monkeypatch):
    """Every session the liar restarts as (``_cycling``) asks whatever its budget:
    ``Reseat.may_return`` is an honest peer's courtesy, not a rule. Returns {"patched": bool}."""
    import test_redteam_reseat as T
    done = {"patched": False}
    real = T.resume_session

    def resumed(path, identity, *a, **kw):
        s2, rest = real(path, identity, *a, **kw)
        if s2.my_seat == LIAR:
            s2.reseat.may_return = lambda seat: True
            done["patched"] = True
        return s2, rest

    monkeypatch.setattr(T, "resume_session", resumed)
    return done


def test_max_reseats_keeps_the_tables_epoch_room_at_every_table_size():
    """§C8.9 'Budget': epoch + active starts at the seat count, a drop keeps it and a re-seat
    raises it by 2, so with every seat at its budget the largest epoch (all but one seat dropped
    afterwards) is seats + 2·seats·MAX_RESEATS − 1: within MAX_EPOCH at every table size (at 8:
    247 <= 255); one more re-seat per seat would not fit at 8 seats."""
    for n in range(C.MIN_SEATS, C.MAX_SEATS + 1):
        assert n + 2 * n * MAX_RESEATS - 1 <= C.MAX_EPOCH
    assert C.MAX_SEATS + 2 * C.MAX_SEATS * (MAX_RESEATS + 1) - 1 > C.MAX_EPOCH
    assert has_budget({}, 0) and has_budget({0: MAX_RESEATS - 1}, 0) and not has_budget({0: MAX_RESEATS}, 0)


@pytest.fixture(scope="module")
def table8():
    """An 8-seat setup, its identities, and a cache of RESEAT requests by (seat, dropped_at)."""
    sessions = started_sessions(8, options={"target": 40, **OPTS})
    return sessions[0].setup, [s.identity for s in sessions], {}


def test_a_spent_seat_is_refused_and_nobody_else(table8):
    """§C8.9 'Budget': at one step, seats 2 and 3 are carried by every active seat; seat 3 was
    re-seated MAX_RESEATS times already: 2 is re-seated, 3 is not, and with 3's budget left both."""
    setup, ids, _ = table8
    active = [True] * 8
    active[2] = active[3] = False
    reqs = [request_for(ids[s], setup, s, 9, bytes([s]) * 32) for s in (2, 3)]
    fields = [reqs if a else None for a in active]
    drops = {2: 9, 3: 9}
    assert set(readmissions(setup, active, drops, fields, 40, {3: MAX_RESEATS, 2: MAX_RESEATS - 1})) == {2}
    assert set(readmissions(setup, active, drops, fields, 40, {3: MAX_RESEATS - 1})) == {2, 3}
    assert readmissions(setup, active, drops, fields, 40, {2: MAX_RESEATS, 3: MAX_RESEATS + 3}) == {}


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 8), spent=st.lists(st.integers(0, MAX_RESEATS), min_size=8, max_size=8),
       moves=st.lists(st.integers(0, 7), max_size=40))
def test_property_a_seat_with_budget_left_and_min_q_active_carriers_is_reseated(table8, n, spent, moves):
    """Property (§C8.9 'Faults it is safe against', 'Budget'): from any reachable history (each
    seat already re-seated ``spent[seat]`` times, all back), whatever order of drops and returns
    follows, a dropped seat whose request min(Q, active) active carriers carry is re-seated
    exactly when it has budget left; the epoch room never refuses and the epoch never passes
    MAX_EPOCH (a drop of every active seat but one included)."""
    setup8, ids, cache = table8
    setup = setup8._replace(seats=n, players=setup8.players[:n])
    reseats = {s: spent[s] for s in range(n) if spent[s]}
    epoch, active, drops = 2 * sum(reseats.values()), [True] * n, {}
    for k, m in enumerate(moves):
        seat = m % n
        if active[seat]:
            if sum(active) > 1:  # the last active seat is never dropped (§C8.3)
                active[seat], drops[seat], epoch = False, k, epoch + 1
            continue
        key = (n, seat, drops[seat])
        if key not in cache:
            cache[key] = request_for(ids[seat], setup, seat, drops[seat], bytes([seat + 1]) * 32)
        carriers = [i for i in range(n) if active[i]][:needed(n, sum(active))]
        fields = [[cache[key]] if i in carriers else None for i in range(n)]
        assert epoch_room(epoch, sum(active))  # the table's room never binds under the budget
        back = readmissions(setup, active, drops, fields, epoch, reseats)
        assert (seat in back) == has_budget(reseats, seat), (seat, reseats)
        if back:
            active[seat], epoch = True, epoch + 1
            del drops[seat]
            reseats[seat] = reseats.get(seat, 0) + 1
        assert epoch + sum(active) - 1 <= C.MAX_EPOCH


def test_a_spent_seat_is_neither_carried_nor_asks(table8):
    """§C8.9 'Carrying' (courtesies beside the rule): a carrier neither holds nor carries the
    request of a seat whose budget is spent ("ignored", no slot taken), and a peer whose own
    seat's budget is spent does not ask (``Reseat.may_return``); one re-seat less, both again."""
    setup, ids, _ = table8
    carrier = reseat.Reseat(setup, 0, hidden=False)
    raw = request_for(ids[5], setup, 5, 9, bytes([5]) * 32)
    carrier.reseats[5] = MAX_RESEATS
    assert carrier.receive(raw, 0.0, {5: 9}) == "ignored" and carrier.field(0.0, {5: 9}, 10) == []
    carrier.reseats[5] = MAX_RESEATS - 1
    assert carrier.receive(raw, 0.0, {5: 9}) == "held" and carrier.field(0.0, {5: 9}, 10) == [raw]
    mine = reseat.Reseat(setup, 5, hidden=False)
    mine.reseats[5] = MAX_RESEATS
    assert not mine.may_return(5) and mine.may_return(4)
    assert not reseat.Reseat(setup, 5, hidden=True).may_return(5)  # not offered with hidden information
