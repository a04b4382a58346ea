"""Red team session 13 on main (H149): turn skips (protocol.md §C8.10) by one lying seat.

§C8.10: a seat's turn is skipped only with a certificate of Q = floor(N/2) + 1 SKIP votes of
distinct active seats other than the target. The liar signs SKIP(k, d) against an honest seat d
that is not slow, at every step it reaches, and sends it to every peer at once. Checked: the game
is the same game as without the lie (same steps, same final hash, the same virtual time), no turn
is skipped, nobody is dropped. In memory, fake engine, virtual clock."""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.lockstep import GameOver, SeatDropped
from p2p.session_events import TurnSkipped
from p2p.wire import MSG_SKIP, SkipVote, seal_message

from p2p_harness import Net, random_legal, started_sessions

OPTS = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5, "target": 60}


def _play(n: int, target: int | None):
    """The game of ``n`` seats; seat n-1 votes SKIP(k, target) at each step k it reaches (None:
    honest). Returns (net, steps voted at)."""
    net = Net(started_sessions(n, options=OPTS), random_legal(E, seed=3))
    voted: set = set()

    def hook(net):
        liar = net.s[n - 1]
        if target is not None and liar.phase == "running" and liar.step not in voted:
            voted.add(liar.step)
            raw = seal_message(liar.identity, MSG_SKIP, SkipVote(liar.game_id, n - 1, liar.step, target, 0))
            for j in range(n - 1):
                net.s[j].receive_message(raw, net.now)

    net.run(max_time=1e4, hook=hook)
    return net, voted


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("target", [0, 1])
def test_one_seats_skip_votes_against_an_honest_seat_change_nothing(n, target):
    """§C8.10 'Certificate': one voter is never a quorum (Q >= 2 from 3 seats on)."""
    honest, _ = _play(n, None)
    net, voted = _play(n, target)
    assert len(voted) > 50
    over = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in range(n)]
    ref = [e for e in honest.events[0] if isinstance(e, GameOver)]
    assert all(len(o) == 1 and (o[0].final_hash, o[0].steps) == (ref[0].final_hash, ref[0].steps) for o in over)
    assert net.now == honest.now
    for i in range(n):
        assert not [e for e in net.events[i] if isinstance(e, (TurnSkipped, SeatDropped))], i
