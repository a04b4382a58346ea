"""Red team session 11 (H107): the re-seat's carry slots (protocol.md §C8.9 'Carrying').

An active seat carries at most ``RESEAT_CARRY`` = 2 requests in its STEP body, the lowest seats
first (``reseat.Carrier.field``), and a request counts only when min(Q, active) carriers carry
the very same bytes. In memory, virtual clock, fake engine (tests/p2p/p2p_harness.py).
"""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.lockstep import GameOver, SeatReturned
from p2p.reseat import request_for
from p2p.resume import resume_session

from p2p_harness import Net, random_legal
from test_resilience import logged_game

OPTS = {"target": 80, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}
LIARS, CARRIER, RETURNING = (0, 1), 2, 3


def test_two_dropped_colluders_cannot_keep_an_honest_player_from_its_seat(tmp_path):
    """HOLDS since H112 (was BREAK, MED: an honest player kept out of its own seat for the rest
    of the game; fixed by the carry rotation, §C8.9 'Carrying', ``reseat.carry_start``). 7 seats
    (Q = 4), colluders at seats 0 and 1 (2 <= N - Q). They leave and are dropped by the bot
    rule; from then on each signs a RESEAT of its own seat (its key, its drop step: valid) and
    sends it to seat 2 ONLY, every RESEAT_RESEND (2 datagrams of ~150 B a second). Seat 2
    holds them fresh and, lowest seats first, fills its two carry slots with them; no other
    carrier has them, so neither colluder is ever re-seated (1 carrier < 4) and the slots stay
    full. Honest seat 3 crashes, is dropped, resumes and asks for its seat (§C8.9 'Request'):
    seats 4, 5, 6 carry its request, seat 2 never can, and 4 carriers are needed (min(Q, 4
    active)): it stays with the bot to the end. Without the colluders' requests it comes back
    (checked by the same hook with ``attack`` False; seat 2's bodies carried (0, 1) at every
    step, seat 4's (3,)). The fix: a carrier holding more fresh requests than its slots
    carries the seats first in cyclic order from ``carry_start(step)``, the same on every
    carrier, so at a step whose start is 3 seats 2, 4, 5 and 6 all carry seat 3's request."""
    for attack in (False, True):
        back = _play(tmp_path / ("attack" if attack else "plain"), attack)
        if not attack:
            assert back, "the harness: without the colluders' requests the player must come back"
    assert back, "the honest returning player was never re-seated (its seat stayed with the bot)"


def _play(tmp_path, attack: bool) -> bool:
    tmp_path.mkdir(parents=True)
    sessions, paths, secrets, _ = logged_game(tmp_path, 7, OPTS)
    setup = sessions[0].setup
    net = Net(list(sessions), random_legal(E, seed=11))
    honest = [i for i in range(7) if i not in LIARS and i != RETURNING]
    st_ = {"state": "liars", "next": 0.0}

    def dropped(seat, at_least=0):
        return all(seat in net.s[i].dropped and net.s[i].step >= net.s[i].dropped[seat].step + at_least
                   for i in honest)

    def hook(net):
        wake = None
        if st_["state"] == "liars" and all(net.s[i].step >= 2 for i in honest):
            for liar in LIARS:  # the colluders leave: voted out as silent, played by the bot
                net.s[liar].log.close()
                net.s[liar].own_log.close()
                net.s[liar] = None
            st_["state"] = "liars_gone"
        elif st_["state"] == "liars_gone" and all(dropped(liar) for liar in LIARS):
            s = net.s[RETURNING]
            s.log.close()
            s.own_log.close()
            net.s[RETURNING] = None
            st_["state"] = "down"
        elif st_["state"] == "down" and dropped(RETURNING, 2):
            s2, _ = resume_session(paths[RETURNING], sessions[RETURNING].identity, secrets[RETURNING], E,
                                   own_log_path=str(paths[RETURNING]) + ".own", now=net.now)
            net.s[RETURNING] = s2
            st_["state"] = "resumed"
        elif st_["state"] == "resumed" and net.s[RETURNING].spectator:
            assert net.s[RETURNING].request_reseat(bytes(range(32)), net.now)
            st_["state"] = "asking"
        if attack and st_["state"] != "liars" and net.now >= st_["next"] and all(dropped(x) for x in LIARS):
            for liar in LIARS:  # to seat 2 only
                at = net.s[CARRIER].dropped[liar].step
                raw = request_for(sessions[liar].identity, setup, liar, at, bytes([liar + 1]) * 32)
                net.s[CARRIER].receive_message(raw, net.now)
            st_["next"] = net.now + C.RESEAT_RESEND
            wake = st_["next"]
        return wake

    net.run(max_time=1e5, hook=hook)
    assert st_["state"] == "asking", st_
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(overs[i]) == 1 for i in honest)
    return all(any(isinstance(e, SeatReturned) and e.seat == RETURNING for e in net.events[i]) for i in honest)
