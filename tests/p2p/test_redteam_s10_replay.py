"""Red team, session 10 (H94): replays across games (protocol.md §C9.4 'Late and foreign datagrams':
every session message carries the game id; §C3.4 row 'other game id': dropped, counted
``wrong_game``).

The players keep their keys from game to game (ui keeps one identity per config directory), so
every message a seat signed in an earlier game still verifies under its key. A seat-holder of
game B that saw game A (the same players, an earlier evening) replays all of A's traffic into B:
STEP, ALIVE, DROP, ESCROW, COMPLAINT, CATCHUP pages, each signed by the right key. In memory,
virtual clock, fake engine, seat loss on.
"""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.lockstep import GameOver, PeerMisbehaved

from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal

OPTS = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5}
REPLAYER = 1
#: A's messages the replayer pushes into B per round of the network.
PER_ROUND = 40


def _sessions(demo_seed: bytes) -> list:
    """A 3-seat game of the harness's players (keys from_seed(bytes([i])), the same in every
    game); ``demo_seed`` fixes its game id, chains and seeds."""
    lobbies = make_lobbies(3, options=OPTS, demo_seed=demo_seed)
    pump_lobbies(lobbies)
    return [lob.start_session(E) for lob in sorted(lobbies.values(), key=lambda lob: lob.my_seat)]


def _play(demo_seed: bytes, replay: list | None = None) -> Net:
    net = Net(_sessions(demo_seed), random_legal(E, seed=11))
    queue = list(replay or [])

    def hook(n: Net) -> None:
        for _ in range(min(PER_ROUND, len(queue))):
            raw = queue.pop(0)
            for i, s in enumerate(n.s):
                if i != REPLAYER and s is not None:
                    s.receive_message(raw, n.now)
        return None

    net.run(max_time=1e4, hook=hook)
    return net


def test_a_whole_earlier_game_replayed_into_a_new_one_changes_nothing():
    """Game A is played; game B (same players, another game id) is played once clean and once
    with every message of A (all seats', in the order sent) replayed into seats 0 and 2 by seat
    1. The rule (§C9.4): every replayed message is dropped as another game's; B ends on the
    same final hash, nobody is proven, dropped or misbehaving."""
    a = _play(b"evening-1")
    old = [raw for _seat, raw in a.sent_log]
    assert len(old) > 100 and all(len([e for e in ev if isinstance(e, GameOver)]) == 1 for ev in a.events)
    clean = _play(b"evening-2")
    attacked = _play(b"evening-2", replay=old)
    finals = [{e.final_hash for e in ev if isinstance(e, GameOver)} for ev in (clean.events[0], attacked.events[0])]
    assert finals[0] == finals[1] and len(finals[0]) == 1
    for i in (0, 2):
        assert attacked.s[i].stats["wrong_game"] >= len(old)
        assert not [e for e in attacked.events[i] if isinstance(e, PeerMisbehaved)]
        assert [type(e).__name__ for e in attacked.events[i]] == [type(e).__name__ for e in clean.events[i]]
