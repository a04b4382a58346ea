"""Four peers play a whole game of the real engine (edition "classico") over the in-memory
network with some loss; all agree step by step, and the log each wrote verifies offline
(DESIGN.md §2, §5)."""

from __future__ import annotations

import random

import engine as E
from p2p.gamelog import LogWriter
from p2p.lockstep import GameOver, StepApplied
from p2p.verify import verify_log

from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal


def chooser():
    bots = getattr(E, "bots", None)
    if bots is not None and hasattr(bots, "choose"):
        return lambda s: bots.choose(s.state, s.my_seat)
    return random_legal(E, seed=2024)


def test_classico_game_agrees_and_verifies(tmp_path):
    lobbies = make_lobbies(4, edition="classico")
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    writers = [LogWriter(tmp_path / f"{i}.log", l.log_header()) for i, l in enumerate(ordered)]
    sessions = [l.start_session(E, log=w) for l, w in zip(ordered, writers)]
    rng = random.Random(3)
    net = Net(sessions, chooser(), drop=lambda s, d, r: rng.random() < 0.02)
    net.run(max_time=1e6, max_rounds=5_000_000)
    for w in writers:
        w.close()
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs), [s.phase for s in sessions]
    assert len({(o[0].final_hash, o[0].winner, o[0].steps) for o in overs}) == 1
    hashes = [[e.state_hash for e in evs if isinstance(e, StepApplied)] for evs in net.events]
    assert all(h == hashes[0] for h in hashes)
    rep = verify_log(tmp_path / "2.log", engine=E)
    assert rep.ok and rep.complete, rep.error
    assert rep.final_state_hash == overs[0][0].final_hash.hex() and rep.winner == overs[0][0].winner
