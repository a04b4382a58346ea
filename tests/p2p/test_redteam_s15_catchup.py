"""Red team session 15 on main (H163): a responder lying at the tail of a catch-up page
(protocol.md §C9.2, §C3.4 "Two versions applied").

A page's last STEP record is covered by no later signed message in the page: nothing in the page
contradicts it. The responder (seat 1, a seat-holder) answers a resumed peer's requests first
(they are broadcast) with its genuine records, but cuts its first page short after a decision
step (a short page is allowed) and there puts a second version of its OWN message of that step
(same history, another input, its valid signature). The requester applies the tail like live
messages (§C9.2): a fork with the table.
What must hold: the requester meets the others' messages of the next step (another
``prev_digest``), disputes, finds both versions signed by the responder, and the table converges
(the kept version by §C3.4's rule, a roll back where needed); the responder is voted out and
named; the honest peers end with one final hash and logs that verify.

3 seats (Q = 2: the two honest seats drop the liar), fake engine, the victim resumes ~250 steps
behind (as tests/p2p/redteam_s10_kit.py), restarts of a peer halted with ``StepOverturned`` as
the node does.

Which of the two versions ``kept_version`` keeps (§C3.4: the smaller SHA-256 of the bodies)
used to decide the outcome, so the tests run both (H179): the liar searches its second input
(``["adv", n]``, n = 7, 8, ...) until its version is, or is not, the kept one. Not kept (the case
H163 wrote): the victim rolls back to the table's version. Kept: the victim held it and took
every record of the next step as superseded, while the table, far past that step (it keeps
``KEEP_STEPS`` = 4), could never roll back to it: every peer stalled for good (votes split across
steps, nobody dropped); a dropped seat's returning peer (§C8.4, §C8.9) never caught up.
Rule since (§C3.4 'Two versions applied', 'its word alone'): a version applied from the last STEP
record of the equivocator's own page rests on its word alone; another seat's record wins.
"""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.gamelog import KIND_STEP, LogWriter, OwnLog, step_payload
from p2p.resume import resume_session
from p2p.session_events import GameOver, SeatDropped
from p2p.step_collect import kept_version
from p2p.wire import (MSG_CATCHUP_REQ, MSG_CATCHUP_RESP, MSG_STEP, CatchupResponse, decode_catchup_req,
                      decode_catchup_resp, open_envelope, seal, seal_message, unpack)

from p2p_harness import Net, finish_together, make_lobbies, pump_lobbies, random_legal, restart_overturned
from redteam_auth_kit import step_of
from test_resilience import crash_at_step, logged_game, restart_from_log

VICTIM, LIAR = 2, 1
CRASH_AT, BEHIND = 300, 250
OPTS = {"target": 400, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5}
#: Virtual seconds: either order finishes at t = 0 (no timer needed); the stall before H179
#: showed by t = 5 (the drop timeout) and never moved after.
MAX_TIME = 120.0


def _second_version(a, mine: bytes, lie_kept: bool) -> bytes:
    """The liar's second version of its STEP ``mine`` (same history, input ``["adv", n]``, its
    valid signature), the first n >= 7 whose body ``kept_version`` keeps (``lie_kept``) or not."""
    n = 7
    while True:
        second = seal(a.identity, MSG_STEP, [*step_of(mine)[:5], ["adv", n]])
        a_body, b_body = open_envelope(mine).body, open_envelope(second).body
        if (kept_version(a_body, b_body) == b_body) == lie_kept:
            return second
        n += 1


def _tail_lie(a, r, plan: dict, lie_kept: bool, after: int = 0) -> list:
    """The liar's page for request ``r``: its genuine records, cut after the last record of a
    decision step (a short page is allowed: §C9.2, the requester asks the rest again), where its
    own message is a second version, then ``after`` genuine records (RV16-G F2). Once; later pages
    are genuine unless ``plan["repeat"]``: then every page covering k is its records cut at k with
    the same second version there (RV16-G F1)."""
    raw = a.catchup.build_response(r.from_step, r.to_step, a.step, [], [])
    records = [list(x) for x in decode_catchup_resp(open_envelope(raw, C.MAX_CATCHUP_MSG).body).records]
    if "k" in plan:
        if not plan.get("repeat"):
            return records
        plan["reps"] = plan.get("reps", 0) + 1
        assert plan["reps"] <= 40, f"the liar served its lie {plan['reps']} times"
        for end, rec in enumerate(records, 1):
            if rec[0] == KIND_STEP and unpack(rec[1])[0] == plan["k"]:
                msgs = list(unpack(rec[1])[1])
                msgs[LIAR] = plan["second"]
                return records[:end - 1] + [[KIND_STEP, step_payload(plan["k"], msgs)]]
        return records
    for end in range(len(records) - after, 0, -1):
        if records[end - 1][0] != KIND_STEP:
            continue
        k, msgs = unpack(records[end - 1][1])
        mine = msgs[LIAR]
        if mine is None or type(step_of(mine).input) is bytes:
            continue  # a chance step: a reveal cannot be changed
        msgs = list(msgs)
        msgs[LIAR] = _second_version(a, mine, lie_kept)
        records = records[:end - 1] + [[KIND_STEP, step_payload(k, msgs)]] + records[end:end + after]
        plan.update(k=k, first=mine, second=msgs[LIAR])
        return records
    return records


def _serves(plan: dict, r) -> bool:
    """Whether the liar answers request ``r`` with its own page: before its lie, and (``repeat``)
    every request covering the lied step k."""
    return "k" not in plan or (plan.get("repeat", False) and r.from_step <= plan["k"] < r.to_step)


def three_seats(tmp_path):
    """A started 3-seat table (OPTS) with its logs and own-message logs under ``tmp_path``:
    (lobbies in seat order, log paths, sessions, chain secrets)."""
    lobbies = make_lobbies(3, options=OPTS, chain=1024)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    paths = [tmp_path / f"{i}.log" for i in range(3)]
    sessions = [lob.start_session(E, log=LogWriter(p, lob.log_header())) for p, lob in zip(paths, ordered)]
    for s, p in zip(sessions, paths):
        s.own_log = OwnLog(f"{p}.own")
    secrets = [lob.chain.value(0) for lob in ordered]
    return ordered, paths, sessions, secrets


def resume_victim(n, ordered, paths, secrets, **cut) -> None:
    """Restart the victim's session in net ``n`` from its log (``cut``: ``resume_session``'s)."""
    n.s[VICTIM].log.close()
    n.s[VICTIM].own_log.close()
    n.s[VICTIM], _ = resume_session(paths[VICTIM], ordered[VICTIM].identity, secrets[VICTIM], E,
                                    own_log_path=f"{paths[VICTIM]}.own", now=n.now, **cut)


def resumed_catch_up(tmp_path, lie_kept: bool, repeat: bool = False, after: int = 0, crash: bool = False):
    """Seat 2 (3 seats) resumes ~250 steps behind; seat 1 answers first with ``_tail_lie``
    (``repeat``, ``after`` as there). ``crash``: the victim's process restarts from its log (no cut)
    right after it applied the lie's page (RV16-G F3). Returns (net, plan, restarts, paths)."""
    ordered, paths, sessions, secrets = three_seats(tmp_path)
    st: dict = {"resumed": False}
    plan: dict = {"repeat": repeat}

    def resume(n, **cut):
        resume_victim(n, ordered, paths, secrets, **cut)

    def drop(src, dst, data):
        if not st["resumed"] or src != VICTIM or dst != LIAR or data[:2] != bytes([0x93, MSG_CATCHUP_REQ]) \
                or net.s[LIAR] is None:
            return False
        r = decode_catchup_req(open_envelope(data, C.MAX_CATCHUP_MSG).body)
        a = net.s[LIAR]
        if not _serves(plan, r):
            return False  # after the lie: the liar answers as usual
        page = _tail_lie(a, r, plan, lie_kept, after)
        raw = seal_message(a.identity, MSG_CATCHUP_RESP,
                           CatchupResponse(a.setup.game_id, LIAR, r.from_step, a.step, page, [], []))
        net.s[VICTIM].receive_message(raw, net.now)
        if crash and "k" in plan and net.s[VICTIM].step > plan["k"] and not st.get("crashed"):
            st["crashed"] = True
            resume(net)  # a crash mid-catch-up: the same log, no cut
        return True  # the liar's answer is the page above, first

    restarts: list = []
    overturned = restart_overturned([str(p) for p in paths], secrets, restarts)

    def hook(n):
        if not st["resumed"] and n.s[VICTIM].step >= CRASH_AT:
            st["resumed"] = True
            resume(n, truncate_at=CRASH_AT - BEHIND)  # its log cut ~250 steps back
        return overturned(n)

    net = Net(sessions, random_legal(E, seed=3), drop=drop)
    net.run(max_time=MAX_TIME, max_rounds=5_000_000, hook=hook)
    assert st["resumed"] and "k" in plan  # premise: the page's tail carried the second version
    assert st.get("crashed", False) == crash  # premise: the victim restarted after the lie
    body = open_envelope(plan["second"]).body
    assert (kept_version(open_envelope(plan["first"]).body, body) == body) == lie_kept  # premise: the order
    return net, plan, restarts, paths


def assert_converged(net, plan, restarts, paths) -> None:
    """The victim rolled back to the table's version of k; seats 0 and 2 finish together, seat 1
    named and dropped."""
    assert (VICTIM, plan["k"], True) in restarts  # it applied it, then rolled back to the table's
    honest = (0, VICTIM)
    finish_together(net, net.s, paths, honest, cheaters={LIAR})
    for i in honest:
        assert [e.seat for e in net.events[i] if isinstance(e, SeatDropped)] == [LIAR], i


@pytest.mark.parametrize("lie_kept", [False, True], ids=["table_version_kept", "lie_kept"])
def test_a_second_version_of_the_responders_own_message_at_a_pages_tail_is_caught_and_the_table_converges(
        tmp_path, lie_kept):
    """Seat 2 resumes ~250 steps behind; seat 1's first page ends with its second version of its
    step-k message. Measured (the table's version kept): seat 2 applies it, the next page's records
    disagree ('records skip a step'), the dispute finds both versions, seat 2 rolls back once to
    the kept one, seat 1 is proven and voted out, seats 0 and 2 finish together. The lie kept
    (a stall of every peer before H179): the same, the victim rolls back because its version
    rested on the liar's word alone."""
    assert_converged(*resumed_catch_up(tmp_path, lie_kept))


@pytest.mark.parametrize("lie_kept", [False, True], ids=["table_version_kept", "lie_kept"])
def test_a_returning_players_catch_up_survives_a_second_version_at_a_pages_tail(tmp_path, lie_kept):
    """The realistic way to be far behind the table (§C8.4): 5 seats, seat 3 killed at step 6,
    dropped; restarted from its log 60 steps later it follows as a spectator and asks its seat
    back (§C8.9). Seat 1 answers its first request with a page whose tail is a second version of
    its own message (``_tail_lie``). Holds either way: the returning peer rolls back once to the
    table's version, catches up and ends with the table's GameOver and final hash (the lie kept,
    before H179: stuck at the step after the lie for good while the table finished)."""
    assert_returned(*returning_catch_up(tmp_path, lie_kept))


def returning_catch_up(tmp_path, lie_kept: bool, repeat: bool = False, after: int = 0):
    """5 seats; seat 3 killed at step 6, dropped, restarted from its log 60 steps later as a
    spectator asking its seat back (§C8.9); seat 1 answers its first request with ``_tail_lie``
    (``repeat``, ``after`` as there). Returns (net, plan, restarts)."""
    ret = 3
    opts = {"target": 300, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}
    sessions, paths, secrets, _ = logged_game(tmp_path, 5, opts)
    st: dict = {"crashed": False, "back": False, "asked": False}
    plan: dict = {"repeat": repeat}
    restarts: list = []
    overturned = restart_overturned([str(p) for p in paths], secrets, restarts)

    def hook(n):
        if not st["crashed"]:
            st["crashed"] = crash_at_step(n, ret, 6)
        elif not st["back"]:
            if any(ret not in x.dropped or x.step < x.dropped[ret].step + 60 for x in n.s if x is not None):
                return None
            restart_from_log(n, sessions, paths, secrets, ret)
            st["back"] = True
        elif not st["asked"] and n.s[ret].spectator:
            st["asked"] = n.s[ret].request_reseat(bytes(range(32)), n.now)
        return overturned(n)

    def drop(src, dst, data):
        if not st["back"] or src != ret or dst != LIAR or data[:2] != bytes([0x93, MSG_CATCHUP_REQ]):
            return False
        r = decode_catchup_req(open_envelope(data, C.MAX_CATCHUP_MSG).body)
        if not _serves(plan, r):
            return False
        a = net.s[LIAR]
        page = _tail_lie(a, r, plan, lie_kept, after)
        raw = seal_message(a.identity, MSG_CATCHUP_RESP,
                           CatchupResponse(a.setup.game_id, LIAR, r.from_step, a.step, page, [], []))
        net.s[ret].receive_message(raw, net.now)
        return True  # the liar's answer is the page above, first

    net = Net(list(sessions), random_legal(E, seed=11), drop=drop)
    net.run(max_time=30.0, max_rounds=2_000_000, hook=hook)
    assert st["back"] and st["asked"] and "k" in plan  # premise: it returned, asked, got the lie
    return net, plan, restarts


def assert_returned(net, plan, restarts) -> None:
    """The returning peer (seat 3) rolled back to the table's version of k and every peer ended
    with one GameOver hash."""
    ret = 3
    assert (ret, plan["k"], True) in restarts  # it rolled back to the table's version
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert len(overs[ret]) == 1, net.describe()
    assert len({o[-1].final_hash for o in overs if o}) == 1
