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
"""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.gamelog import KIND_STEP, LogWriter, OwnLog, step_payload
from p2p.resume import resume_session
from p2p.session_events import SeatDropped
from p2p.wire import (MSG_CATCHUP_REQ, MSG_CATCHUP_RESP, MSG_STEP, CatchupResponse, decode_catchup_req,
                      decode_catchup_resp, open_envelope, seal, seal_message, unpack)

from p2p_harness import Net, finish_together, make_lobbies, pump_lobbies, random_legal, restart_overturned
from redteam_auth_kit import step_of

VICTIM, LIAR = 2, 1
CRASH_AT, BEHIND = 300, 250
OPTS = {"target": 400, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5}


def _tail_lie(a, r, plan: dict) -> list:
    """The liar's page for request ``r``: its genuine records, cut after the last record of a
    decision step (a short page is allowed: §C9.2, the requester asks the rest again), where its
    own message is a second version. Once; then its pages are genuine."""
    raw = a.catchup.build_response(r.from_step, r.to_step, a.step, [], [])
    records = [list(x) for x in decode_catchup_resp(open_envelope(raw, C.MAX_CATCHUP_MSG).body).records]
    if "k" in plan:
        return records
    for end in range(len(records), 0, -1):
        if records[end - 1][0] != KIND_STEP:
            continue
        k, msgs = unpack(records[end - 1][1])
        mine = msgs[LIAR]
        if mine is None or type(step_of(mine).input) is bytes:
            continue  # a chance step: a reveal cannot be changed
        msgs = list(msgs)
        msgs[LIAR] = seal(a.identity, MSG_STEP, [*step_of(mine)[:5], ["adv", 7]])
        records = records[:end - 1] + [[KIND_STEP, step_payload(k, msgs)]]
        plan.update(k=k, first=mine, second=msgs[LIAR])
        return records
    return records


def test_a_second_version_of_the_responders_own_message_at_a_pages_tail_is_caught_and_the_table_converges(tmp_path):
    """Seat 2 resumes ~250 steps behind; seat 1's first page ends with its second version of its
    step-k message. Measured: seat 2 applies it, the next page's records disagree
    ('records skip a step'), the dispute finds both versions, seat 2 rolls back once to the kept
    one, seat 1 is proven and voted out, seats 0 and 2 finish together."""
    lobbies = make_lobbies(3, options=OPTS, chain=1024)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    paths = [tmp_path / f"{i}.log" for i in range(3)]
    sessions = [lob.start_session(E, log=LogWriter(p, lob.log_header())) for p, lob in zip(paths, ordered)]
    for s, p in zip(sessions, paths):
        s.own_log = OwnLog(f"{p}.own")
    secrets = [lob.chain.value(0) for lob in ordered]
    st: dict = {"resumed": False}
    plan: dict = {}

    def drop(src, dst, data):
        if not st["resumed"] or src != VICTIM or dst != LIAR or data[:2] != bytes([0x93, MSG_CATCHUP_REQ]) \
                or net.s[LIAR] is None:
            return False
        r = decode_catchup_req(open_envelope(data, C.MAX_CATCHUP_MSG).body)
        a = net.s[LIAR]
        if "k" in plan:
            return False  # after the lie: the liar answers as usual
        page = _tail_lie(a, r, plan)
        raw = seal_message(a.identity, MSG_CATCHUP_RESP,
                           CatchupResponse(a.setup.game_id, LIAR, r.from_step, a.step, page, [], []))
        net.s[VICTIM].receive_message(raw, net.now)
        return True  # the liar's answer is the page above, first

    restarts: list = []
    overturned = restart_overturned([str(p) for p in paths], secrets, restarts)

    def hook(n):
        if not st["resumed"] and n.s[VICTIM].step >= CRASH_AT:
            st["resumed"] = True
            n.s[VICTIM].log.close()
            n.s[VICTIM].own_log.close()
            n.s[VICTIM], _ = resume_session(paths[VICTIM], ordered[VICTIM].identity, secrets[VICTIM], E,
                                            own_log_path=f"{paths[VICTIM]}.own", now=n.now,
                                            truncate_at=CRASH_AT - BEHIND)  # its log cut ~250 steps back
        return overturned(n)

    net = Net(sessions, random_legal(E, seed=3), drop=drop)
    net.run(max_time=1e5, max_rounds=5_000_000, hook=hook)
    assert st["resumed"] and "k" in plan  # premise: the page's tail carried the second version
    assert (VICTIM, plan["k"], True) in restarts  # it applied it, then rolled back to the kept one
    honest = (0, VICTIM)
    finish_together(net, net.s, paths, honest, cheaters={LIAR})
    for i in honest:
        assert [e.seat for e in net.events[i] if isinstance(e, SeatDropped)] == [LIAR], i
