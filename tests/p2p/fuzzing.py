"""Shared fuzz drivers (protocol.md §C1 "never crashes"): random and mutated datagrams thrown at a
running 3-seat session, and mutated log files given to ``verify_log``. Used by
tests/p2p/test_fuzz.py (a few thousand, hypothesis-driven) and bench/fuzz_session.py (100,000+,
prints counts)."""

from __future__ import annotations

import os
import random
from collections import Counter

import fake_engine as E
from p2p import const as C
from p2p.verify import verify_log

from p2p_harness import Net, random_legal, started_sessions

OPTS = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5, "target": 40}


def mutate(rng: random.Random, raw: bytes) -> bytes:
    """One random mutation of ``raw``: flip, insert, delete, truncate, splice or duplicate."""
    b = bytearray(raw)
    op = rng.randrange(6)
    if op == 0 and b:
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    elif op == 1:
        i = rng.randrange(len(b) + 1)
        b[i:i] = os.urandom(rng.randrange(1, 8))
    elif op == 2 and b:
        i = rng.randrange(len(b))
        del b[i:i + rng.randrange(1, 16)]
    elif op == 3:
        b = b[:rng.randrange(len(b) + 1)]
    elif op == 4 and b:
        i = rng.randrange(len(b))
        b[i] = rng.choice((0x00, 0x7F, 0x80, 0x90, 0xC0, 0xC1, 0xC4, 0xCC, 0xCF, 0xD3, 0xDC, 0xDD, 0xFF))
    else:
        b = b + b[:rng.randrange(len(b) + 1)]
    return bytes(b)


class SessionFuzzer:
    """A 3-seat game in progress; ``hit(data)`` delivers one datagram to seat 0 and checks that
    nothing raised. ``corpus`` holds genuine messages of every session type to mutate."""

    def __init__(self, seed: int = 0) -> None:
        self.sessions = started_sessions(3, options=OPTS)
        self.net = Net(self.sessions, random_legal(E, seed=seed))
        for _ in range(12):  # play a few steps so that every kind of message exists
            self.net.inputs()
            self.net.deliver()
        s0, s1 = self.sessions[0], self.sessions[1]
        s1.request_catchup()
        self.net.deliver()
        s1._vote_drop(2)
        self.corpus = [raw for _, raw in self.net.sent_log[-60:]] + s1.messages_to_send()
        self.sent = 0

    def hit(self, data: bytes) -> None:
        self.sessions[0].receive_message(data, self.net.now)
        self.sent += 1

    def finish(self) -> list:
        """Let the game run to its end; returns each seat's final hash (all must agree)."""
        for s in self.sessions:
            s.seats.clear_votes()
        self.net.run(max_time=1e6)
        return [s.state_hash for s in self.sessions]

    def counts(self) -> Counter:
        return Counter({k: v for k, v in self.sessions[0].stats.items() if v})


def fuzz_session(n: int, seed: int = 1) -> tuple[SessionFuzzer, float]:
    """Throw ``n`` datagrams (1/4 random bytes, 3/4 mutated genuine messages) at seat 0."""
    rng = random.Random(seed)
    fz = SessionFuzzer(seed)
    for i in range(n):
        if i % 4 == 0:
            fz.hit(os.urandom(rng.randrange(0, 1400)))
        else:
            raw = rng.choice(fz.corpus)
            for _ in range(rng.randrange(1, 4)):
                raw = mutate(rng, raw)
            fz.hit(raw)
    return fz, 0.0


def fuzz_logs(path: str, n: int, seed: int = 2) -> Counter:
    """Give ``n`` mutations of the log at ``path`` to ``verify_log``; count the outcomes
    (ok / first bad step kind). Never raises."""
    rng = random.Random(seed)
    good = open(path, "rb").read()
    out: Counter = Counter()
    tmp = path + ".fuzz"
    for _ in range(n):
        data = good
        for _ in range(rng.randrange(1, 4)):
            data = mutate(rng, data)
        with open(tmp, "wb") as f:
            f.write(data)
        rep = verify_log(tmp, engine=E)
        out["ok" if rep.ok else ("header" if rep.first_bad_step == -1 else "step")] += 1
    os.unlink(tmp)
    return out
