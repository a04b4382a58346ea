"""A slow player is not a lost peer (protocol.md §C8.3 "ALIVE and the turn time"): a seat whose
session keeps sending ALIVE while its player thinks is not voted out after ``p2p.drop_timeout``,
only after ``p2p.turn_time``; a silent seat is still dropped after the drop timeout. In memory,
virtual clock, fake engine."""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.lockstep import GameOver, PeerStalled, SeatDropped, SeatDropVoted

from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal

DROP_TIMEOUT = 5
TURN_TIME = 60


class ThinkingSeat(Net):
    """Net in which seat ``slow`` takes no decision from step ``from_step`` until the virtual
    clock reaches ``until`` (its peer is connected all along: it receives, handles its timers
    and sends what its session sends)."""

    def __init__(self, sessions, choose, slow: int, from_step: int, until: float) -> None:
        super().__init__(sessions, choose)
        self.slow, self.from_step, self.until = slow, from_step, until
        self.thinking_since: float | None = None

    def thinks(self, seat: int, s) -> bool:
        if seat != self.slow or s.step < self.from_step or self.now >= self.until:
            return False
        if self.thinking_since is None:
            self.thinking_since = self.now
        return True


def game(options: dict, n: int = 3):
    lobbies = make_lobbies(n, options=dict({"target": 30, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: DROP_TIMEOUT},
                                           **options))
    pump_lobbies(lobbies)
    return [l.start_session(E) for l in sorted(lobbies.values(), key=lambda l: l.my_seat)]


def run_thinking(options: dict, until: float) -> ThinkingSeat:
    net = ThinkingSeat(game(options), random_legal(E, seed=5), slow=1, from_step=6, until=until)
    net.run(max_time=1e5, hook=lambda net: net.until if net.now < net.until else None)
    return net


def agreed(net: Net) -> None:
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1


def test_alive_player_thinking_past_the_drop_timeout_keeps_its_seat():
    net = run_thinking({C.OPT_TURN_TIME: TURN_TIME}, until=8 * DROP_TIMEOUT)
    assert net.thinking_since is not None and net.now >= net.thinking_since + 8 * DROP_TIMEOUT
    assert not any(isinstance(e, (SeatDropVoted, SeatDropped, PeerStalled)) for evs in net.events for e in evs)
    assert net.s[1].stats["alive_sent"] >= 8  # one ALIVE every KEEPALIVE_INTERVAL = 5 s
    assert all(net.s[i].stats["alive"] >= 8 for i in (0, 2))
    agreed(net)


def test_alive_but_idle_seat_is_dropped_by_agreement_at_the_turn_time():
    net = run_thinking({C.OPT_TURN_TIME: TURN_TIME}, until=1e9)  # never decides
    start = net.thinking_since
    for i in (0, 2):
        (vote,) = [e for e in net.events[i] if isinstance(e, SeatDropVoted)]
        (drop,) = [e for e in net.events[i] if isinstance(e, SeatDropped)]
        assert vote.seat == drop.seat == 1 and drop.reconstructed
    assert net.s[1].spectator  # its own drop: it follows the game
    assert net.now >= start + TURN_TIME
    agreed(net)


def test_unlimited_turn_time_never_drops_an_alive_seat():
    net = ThinkingSeat(game({C.OPT_TURN_TIME: 0}), random_legal(E, seed=5), slow=1, from_step=6, until=1e9)
    net.run(max_time=2000.0)
    assert net.thinking_since is not None and net.now >= net.thinking_since + 1000
    assert not any(isinstance(e, (SeatDropVoted, SeatDropped, PeerStalled)) for evs in net.events for e in evs)
    assert all(s.phase == "running" for s in net.s)


def test_silent_seat_is_dropped_after_the_drop_timeout_not_the_turn_time():
    net = Net(game({C.OPT_TURN_TIME: TURN_TIME}), random_legal(E, seed=5))
    gone: dict = {}

    def hook(net):
        if net.s[1] is not None and net.s[1].step >= 6:
            gone["step"], gone["at"] = net.s[1].step, net.now
            net.s[1] = None  # the peer vanished: no message, no ALIVE

    net.run(max_time=1e5, hook=hook)
    for i in (0, 2):
        (drop,) = [e for e in net.events[i] if isinstance(e, SeatDropped)]
        assert drop.seat == 1
    votes = [e for e in net.events[0] if isinstance(e, SeatDropVoted)]
    assert votes and votes[0].step >= gone["step"]
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in (0, 2)]
    assert all(len(o) == 1 for o in overs) and overs[0][0].final_hash == overs[1][0].final_hash
    assert net.s[0].stats["alive"] == 0


def test_forged_or_misplaced_alive_does_not_keep_a_seat():
    from p2p.identity import Identity
    from p2p.wire import MSG_ALIVE, seal

    sessions = game({C.OPT_TURN_TIME: TURN_TIME})
    s0 = sessions[0]
    started = s0.step_started
    forged = seal(Identity.from_seed(b"someone else"), MSG_ALIVE, [s0.game_id, 1, s0.step, 0])
    s0.receive_message(forged, started + 1)
    other_step = seal(sessions[1].identity, MSG_ALIVE, [s0.game_id, 1, s0.step + 1, 0])
    s0.receive_message(other_step, started + 2)
    assert s0.stats["bad_signature"] == 1 and s0.stats["alive"] == 0
    assert s0.vote_time(1) == started + DROP_TIMEOUT
    good = seal(sessions[1].identity, MSG_ALIVE, [s0.game_id, 1, s0.step, 0])
    s0.receive_message(good, started + 3)
    assert s0.stats["alive"] == 1 and s0.vote_time(1) == started + 3 + DROP_TIMEOUT


def test_lobby_accepts_only_a_whole_number_of_seconds_as_turn_time():
    import pytest

    from p2p.errors import LocalProtocolError
    from p2p.setup_options import check_p2p_options

    for ok in (0, 2, 300, C.MAX_TURN_TIME):
        check_p2p_options(((C.OPT_TURN_TIME, ok),))
    for bad in (-1, C.MAX_TURN_TIME + 1, "300", True):
        with pytest.raises(LocalProtocolError):
            check_p2p_options(((C.OPT_TURN_TIME, bad),))
