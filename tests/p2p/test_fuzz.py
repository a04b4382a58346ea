"""Malformed input never crashes a session or the verifier (protocol.md §C1, §6): random and
mutated datagrams at a running session are counted and dropped, and the game still finishes
with every peer agreeing; mutated log files give a report, never an exception.
``LANOPOLI_FUZZ_N`` raises the number of cases (bench/fuzz_session.py runs 100,000+)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings, strategies as st

import fake_engine as E
from p2p.gamelog import LogWriter
from p2p.lockstep import HALTED

from fuzzing import SessionFuzzer, fuzz_logs, fuzz_session, mutate
from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal

N = int(os.environ.get("LANOPOLI_FUZZ_N", "3000"))
FZ = SessionFuzzer(seed=3)


@settings(max_examples=max(200, N // 10), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.binary(max_size=1500), pick=st.integers(0, 10**6), rounds=st.integers(0, 3), seed=st.integers())
def test_hypothesis_datagrams_never_crash_the_session(data, pick, rounds, seed):
    import random

    rng = random.Random(seed)
    FZ.hit(data)
    raw = FZ.corpus[pick % len(FZ.corpus)]
    for _ in range(rounds):
        raw = mutate(rng, raw)
    FZ.hit(raw)
    assert FZ.sessions[0].phase != HALTED


def test_many_mutated_datagrams_are_counted_and_the_game_still_finishes():
    fz, _ = fuzz_session(N)
    s0 = fz.sessions[0]
    assert s0.phase != HALTED and fz.sent == N
    dropped = sum(s0.stats[k] for k in ("malformed", "wrong_type", "wrong_game", "bad_seat", "bad_signature",
                                         "stale", "too_far", "duplicate", "ignored"))
    assert dropped >= N * 0.9  # nearly everything is dropped; the rest are genuine duplicates' answers
    finals = fz.finish()
    assert len(set(finals)) == 1 and all(s.phase == "finished" for s in fz.sessions)


def test_mutated_logs_never_crash_verify(tmp_path):
    lobbies = make_lobbies(3, options={"target": 15})
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    w = LogWriter(tmp_path / "g.log", ordered[0].log_header())
    sessions = [l.start_session(E, log=w if i == 0 else None) for i, l in enumerate(ordered)]
    Net(sessions, random_legal(E, seed=1)).run()
    w.close()
    counts = fuzz_logs(str(tmp_path / "g.log"), max(100, N // 30))
    assert sum(counts.values()) == max(100, N // 30)
    assert counts["step"] + counts["header"] > 0
