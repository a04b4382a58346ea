"""What the turn-skip session tests share (tests/p2p/test_turn_skip_session.py, test_turn_skip_race.py,
test_turn_skip_own.py; protocol.md §C8.10): ``game`` (n fake-engine sessions with a turn time, drop
rule ``bot``, each logging), ``TURN_TIME``, ``SKIP_AFTER`` (the players' patience) and ``IdleSeat``
(a harness Net where one seat stays silent for some steps and the others press the skip key).
In memory, virtual clock.
"""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.gamelog import LogWriter

from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal


TURN_TIME = 300
SKIP_AFTER = 3.0  # the players' patience: they vote to skip an awaited seat after this many seconds


def game(n: int, tmp_path, options: dict | None = None):
    lobbies = make_lobbies(n, options=dict({"target": 25, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30,
                                            C.OPT_TURN_TIME: TURN_TIME}, **(options or {})))
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    tmp_path.mkdir(parents=True, exist_ok=True)
    paths = [tmp_path / f"p{i}.lnplog" for i in range(n)]
    return [l.start_session(E, log=LogWriter(p, l.log_header())) for l, p in zip(ordered, paths)], paths


class IdleSeat(Net):
    """Seat ``idle`` keeps its peer alive (ALIVE, timers) but takes no decision at steps
    ``from_step`` <= k < ``to_step``; from ``to_step`` on it decides at once (so its comeback
    never races the votes: those come ``SKIP_AFTER`` s into a step). Every other player presses
    the skip key against any seat the step has waited for ``SKIP_AFTER`` seconds (``skip_turn``)."""

    def __init__(self, sessions, idle: int, from_step: int, to_step: int, choose=None) -> None:
        super().__init__(sessions, choose or random_legal(E, seed=3))
        self.idle, self.from_step, self.to_step = idle, from_step, to_step
        self.asked_at: dict[int, float] = {}  # step -> when the idle seat was first awaited

    def thinks(self, seat: int, s) -> bool:
        if seat != self.idle or not self.from_step <= s.step < self.to_step:
            return False
        self.asked_at.setdefault(s.step, self.now)
        return True

    def hook(self) -> float | None:
        wake = []
        for o in self.s:
            if o.phase != "running" or not o.skippable():
                continue
            for seat in o.waiting_for():
                if seat != o.my_seat:
                    due = o.step_started + SKIP_AFTER
                    if self.now >= due:
                        o.skip_turn(seat, now=self.now)
                    else:
                        wake.append(due)
        return min(wake) if wake else None
