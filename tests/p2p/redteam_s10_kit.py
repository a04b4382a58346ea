"""Red team, session 10 (H94): what tests/p2p/test_redteam_s10_*.py share — a 3-seat game in
which seat 2 resumes from a log that lost its last records and catches up (protocol.md §C9,
§C10) while seat 1, a seat-holder, answers every catch-up request of seat 2 first with a page of
its own choosing (it sees the requests: they are broadcast, §C9.1).

In memory on ``p2p_harness.Net`` (virtual clock, fake engine, game and own-message logs as a
real peer keeps them). The attacker's pages are signed by its own seat key, so they pass the
responder's signature check; what is in them is the test's choice.
"""

from __future__ import annotations

from typing import Any, Callable

import fake_engine as E
from p2p import const as C
from p2p.gamelog import LogReader, LogWriter, OwnLog
from p2p.lockstep import CaughtUp, GameOver, PeerMisbehaved
from p2p.resume import resume_session
from p2p.wire import (MSG_CATCHUP_REQ, MSG_CATCHUP_RESP, CatchupResponse, decode_catchup_req, decode_catchup_resp,
                      open_envelope, seal_message)

from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal

VICTIM, ATTACKER = 2, 1
#: The victim crashes at this step and loses its last LOST log records (~ as many steps).
CRASH_AT, LOST = 300, 250

#: ``page(attacker_session, request) -> list of (kind, payload) records``: the attacker's answer.
Page = Callable[[Any, Any], list]


def genuine_first_step(a: Any, r: Any) -> list:
    """The attacker's real log records of the request's first step only (a truncated page,
    every record genuine): what ``CatchUp.build_response`` gives for [from, from + 1)."""
    raw = a.catchup.build_response(r.from_step, r.from_step + 1, a.step, [], [])
    return list(decode_catchup_resp(open_envelope(raw, C.MAX_CATCHUP_MSG).body).records)


def catch_up_with(tmp_path: Any, page: Page | None) -> dict:
    """Run the game; seat 2 crashes at step CRASH_AT, resumes from its log cut LOST records short
    (own-message log kept) and catches up. With ``page``, seat 1 answers each of seat 2's
    requests at once with ``page(...)`` (signed by seat 1, ``head_step`` its own step) and
    nothing else. Returns: ``requests`` (seat 2's CATCHUP_REQs sent after the resume),
    ``pages`` (CaughtUp events of seat 2), ``misbehaved`` (its PeerMisbehaved events),
    ``finals`` (final hashes of the seats that finished), ``finished`` (how many)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    lobbies = make_lobbies(3, options={"target": 400}, chain=1024)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    paths = [str(tmp_path / f"{i}.log") for i in range(3)]
    sessions = [lob.start_session(E, log=LogWriter(p, lob.log_header())) for p, lob in zip(paths, ordered)]
    for s, p in zip(sessions, paths):
        s.own_log = OwnLog(p + ".own")
    st = {"resumed": False, "requests": 0}

    def drop(src: int, dst: int, data: bytes) -> bool:
        if not st["resumed"] or src != VICTIM or dst != ATTACKER or data[:2] != bytes([0x93, MSG_CATCHUP_REQ]):
            return False
        st["requests"] += 1
        if page is None:
            return False
        r = decode_catchup_req(open_envelope(data, C.MAX_CATCHUP_MSG).body)
        a = net.s[ATTACKER]
        raw = seal_message(a.identity, MSG_CATCHUP_RESP,
                           CatchupResponse(a.setup.game_id, ATTACKER, r.from_step, a.step, page(a, r), [], []))
        net.s[VICTIM].receive_message(raw, net.now)
        return True  # the attacker's own answer is the page above

    def crash(n: Net) -> None:
        if not st["resumed"] and n.s[VICTIM].step >= CRASH_AT:
            st["resumed"] = True
            v = n.s[VICTIM]
            v.log.close()
            v.own_log.close()
            recs = list(LogReader(paths[VICTIM]))
            with open(paths[VICTIM], "r+b") as f:
                f.truncate(recs[len(recs) - LOST].offset)
            n.s[VICTIM], _ = resume_session(paths[VICTIM], ordered[VICTIM].identity, ordered[VICTIM].chain_secret, E,
                                            own_log_path=paths[VICTIM] + ".own", now=n.now)
            n.events[VICTIM].clear()

    net = Net(sessions, random_legal(E, seed=3), drop=drop)
    net.run(max_time=1e5, hook=crash)
    ev = net.events[VICTIM]
    overs = [e for evs in net.events for e in evs if isinstance(e, GameOver)]
    return {"requests": st["requests"], "pages": len([e for e in ev if isinstance(e, CaughtUp)]),
            "misbehaved": [e for e in ev if isinstance(e, PeerMisbehaved)],
            "finals": {e.final_hash for e in overs}, "finished": len(overs), "resumed": st["resumed"]}
