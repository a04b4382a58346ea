"""bench/bench_step_path.py's reading of the peers' traces (bench/_path_child.py writes them):
on a synthetic 3-peer game with known times, the round's period, the delivery, the turnaround
and the segments of the completing message's handling come out as built."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import bench_step_path  # noqa: E402

N = 3
STEPS = 10
PERIOD = 1e-3  # s between rounds
DELIVER = 100e-6  # s from a sendto to the read
STAGGER = 10e-6  # peer p sends p * STAGGER after the round starts
HANDLE = 50e-6  # s from the completing read to the handler's return
FLUSH = 20e-6  # s from the handler's return to the first sendto


def addr(p: int) -> list:
    return ["127.0.0.1", 40000 + p]


def simulate() -> tuple[list[dict], list[list[float]]]:
    """A causal synthetic game: peer p (seat p) sends step 0 at p * STAGGER, then step k+1
    HANDLE + FLUSH after reading the last message of step k; each sendto (one per other peer,
    1 µs apart) is read DELIVER later. Returns the traces (``_path_child``'s format) and the
    first-sendto time of every step by every peer."""
    first = [[p * STAGGER for p in range(N)]]
    events: list[list] = [[] for _ in range(N)]
    for k in range(STEPS):
        sends = {}
        for p in range(N):
            for j, dest in enumerate(d for d in range(N) if d != p):
                t = first[k][p] + j * 1e-6
                sends[(p, dest)] = t
                events[p].append(("s", t, k, addr(dest)))
        nxt = []
        for q in range(N):
            reads = sorted((sends[(p, q)] + DELIVER, p) for p in range(N) if p != q)
            for i, (t, p) in enumerate(reads):
                last = i == len(reads) - 1
                if last:
                    events[q].append(("i", t + 5e-6))
                    events[q].append(("v", t + 10e-6, t + 20e-6))
                    events[q].append(("c", t + 21e-6, k, "decision"))
                    events[q].append(("l", t + 25e-6, t + 30e-6))
                    events[q].append(("o", t + 35e-6, t + 45e-6))
                events[q].append(("r", t, k, p, k + 1 if last else k, t + (HANDLE if last else 10e-6)))
            nxt.append(reads[-1][0] + HANDLE + FLUSH)
        first.append(nxt)
    return [{"addr": addr(q), "ev": events[q]} for q in range(N)], first


def synthetic_traces() -> list[dict]:
    return simulate()[0]


def test_the_round_figures_of_a_synthetic_game():
    traces, first = simulate()
    res = bench_step_path.analyse(traces, trim=0)
    assert res["steps"] == STEPS  # steps 0..STEPS-1 are sent by every peer
    assert res["deliver"]["p50_us"] == pytest.approx(1e6 * DELIVER, abs=0.01)
    assert res["deliver"]["n"] == STEPS * N * (N - 1)
    assert res["turnaround"]["p50_us"] == pytest.approx(1e6 * (HANDLE + FLUSH), abs=0.01)
    assert res["turnaround"]["n"] == N * (STEPS - 1)  # the last step's successor is never sent
    periods = sorted(max(first[k + 1]) - max(first[k]) for k in range(STEPS - 1))
    assert res["period"]["n"] == STEPS - 1
    assert res["period"]["p50_us"] == pytest.approx(1e6 * periods[(STEPS - 1) // 2], abs=0.01)
    assert res["last_peer_deliver"]["p50_us"] == pytest.approx(1e6 * DELIVER, abs=0.01)


def test_the_segments_of_the_completing_message():
    seg = bench_step_path.segments(synthetic_traces())
    assert set(seg) == {"decision"}
    row = seg["decision"]
    assert row["n"] == N * (STEPS - 1)  # the last step's handling has no sendto after it
    assert row["read>inbox"] == pytest.approx(5.0, abs=0.01)
    assert row["inbox>resolve"] == pytest.approx(5.0, abs=0.01)
    assert row["resolve"] == pytest.approx(10.0, abs=0.01)
    assert row["record"] == pytest.approx(5.0, abs=0.01)
    assert row["own"] == pytest.approx(10.0, abs=0.01)
    assert row["own>returned"] == pytest.approx(1e6 * HANDLE - 45.0, abs=0.01)
    assert row["returned>sendto"] == pytest.approx(1e6 * FLUSH, abs=0.01)
    assert row["total"] == pytest.approx(1e6 * (HANDLE + FLUSH), abs=0.01)


def test_our_seat_is_the_one_never_read_from():
    peers = [bench_step_path.Peer(t, N) for t in synthetic_traces()]
    assert [p.seat for p in peers] == list(range(N))
