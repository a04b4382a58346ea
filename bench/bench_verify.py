#!/usr/bin/env python3
"""Log verification speed next to the machine's raw Ed25519 verify rate (prints, asserts nothing).

    python bench/bench_verify.py [--log PATH] [--repeat 5] [--seed bench-verify] [--peers 4]

Without ``--log`` it first plays one seeded demo game (4 peer processes on loopback) and uses
peer 0's log. It times ``p2p.verify.verify_log`` (best of ``--repeat`` runs) and reports signed
messages verified per second (``Report.messages`` / seconds; the replay with the engine and
the hash checks are included, so this is the whole cost of ``lanopoli verify``; what
``identity.verify_many`` remembered is forgotten before each run, then one more run keeps it:
a spectator's re-check of its growing log), then times
``cryptography``'s Ed25519 ``verify`` alone on a 200-byte message, the floor any verifier pays
per message. Target: verify_log ≥ 0.5 × the raw rate.

    python bench/bench_verify.py --bulk [--sizes 1,2,4,8,16,32,200] [--rounds 5]

``--bulk`` times ``p2p.identity.verify_many`` against ``verify`` one by one on batches of each
size (fresh signatures every time, so nothing is remembered; interleaved, best of ``--rounds``):
signatures/s of each and their ratio, and the CPU time per signature of all threads (what the
hand-off to the pool costs). Where the ratio crosses 1 is ``identity.BULK_MIN``. On a loaded
machine the second core is busy and the ratio stays near 1; the CPU figures still show the cost.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from p2p.verify import verify_log  # noqa: E402

try:
    from p2p.identity import forget  # noqa: E402 - what verify_many remembered (issue 14)
except ImportError:  # a revision without it (an A/B base): nothing is remembered there
    def forget() -> None:
        pass
from ui.demo import DemoOptions, run_demo  # noqa: E402

TARGET_RATIO = 0.5


def raw_ed25519_rate(n: int = 5000, size: int = 200) -> float:
    """Ed25519 signature verifications per second with ``cryptography`` (one key, best of 3)."""
    key = Ed25519PrivateKey.generate()
    pub = key.public_key()
    msg = bytes(range(256))[:size]
    sig = key.sign(msg)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(n):
            pub.verify(sig, msg)
        best = min(best, time.perf_counter() - t0)
    return n / best


def bulk_rates(sizes: list[int], rounds: int, per: int = 800) -> list[dict]:
    """verify_many vs one-by-one verify, signatures/s per batch size (module docstring)."""
    from p2p.identity import BULK_MIN, Identity, verify, verify_many

    ids = [Identity.from_seed(bytes([i])) for i in range(4)]
    serial = lambda batch: [verify(*it) for it in batch]  # noqa: E731
    out = []
    for size in sizes:
        n = max(size, per // size * size)
        best = {"one by one": float("inf"), "verify_many": float("inf")}
        cpu = {"one by one": float("inf"), "verify_many": float("inf")}
        for r in range(rounds):
            for name, fn in (("one by one", serial), ("verify_many", verify_many)):
                items = []
                for j in range(n):  # fresh bodies: never answered from verify_many's memo
                    body = f"{size}/{r}/{name}/{j}".encode().ljust(200, b".")
                    ident = ids[j % 4]
                    items.append((ident.public_key, b"step", body, ident.sign(b"step", body)))
                batches = [items[i:i + size] for i in range(0, n, size)]
                t0, c0 = time.perf_counter(), time.process_time()
                for b in batches:
                    fn(b)
                best[name] = min(best[name], time.perf_counter() - t0)
                cpu[name] = min(cpu[name], time.process_time() - c0)  # every thread's CPU
        fig = {"size": size, "one_by_one_per_s": round(n / best["one by one"]),
               "verify_many_per_s": round(n / best["verify_many"]),
               "ratio": round(best["one by one"] / best["verify_many"], 3), "bulk_min": BULK_MIN,
               "cpu_us_one_by_one": round(cpu["one by one"] / n * 1e6, 1),
               "cpu_us_verify_many": round(cpu["verify_many"] / n * 1e6, 1)}
        print(f"batch {size:4d}: one by one {fig['one_by_one_per_s']:,}/s, verify_many "
              f"{fig['verify_many_per_s']:,}/s, ratio {fig['ratio']:.2f}; CPU per signature (all threads) "
              f"{fig['cpu_us_one_by_one']} vs {fig['cpu_us_verify_many']} µs", flush=True)
        out.append(fig)
    return out


def play_one(seed: str, peers: int, tmp: Path) -> Path:
    """Play one seeded demo game and return peer 0's log path."""
    opts = DemoOptions(peers=peers, seed=seed, edition="classico", log_dir=tmp / "game", timeout_s=600, lang="en")
    (tmp / "keys").mkdir()
    outcome = asyncio.run(run_demo(opts, tmp / "keys", lambda _peers: None))
    if not outcome.ok:
        raise SystemExit(f"the demo game failed (timed out: {outcome.timed_out}); cannot benchmark verify")
    return Path(outcome.peers[0].done["log"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--log", type=Path, help="an existing game log (default: play one game)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", default="bench-verify")
    parser.add_argument("--peers", type=int, default=4)
    parser.add_argument("--bulk", action="store_true", help="verify_many vs verify per batch size")
    parser.add_argument("--sizes", default="1,2,4,8,16,32,200")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    if args.bulk:
        figs = bulk_rates([int(x) for x in args.sizes.split(",")], args.rounds)
        print(json.dumps({"bulk": figs}))
        return 0

    with tempfile.TemporaryDirectory(prefix="lanopoli-bench-verify-") as tmp:
        log = args.log or play_one(args.seed, args.peers, Path(tmp))
        best = warm = None
        for _ in range(args.repeat):
            forget()  # every run checks every signature (a first ``lanopoli verify``)
            t0 = time.perf_counter()
            report = verify_log(log)
            elapsed = time.perf_counter() - t0
            if not report.ok:
                print(f"the log does not verify: step {report.first_bad_step}: {report.error}", file=sys.stderr)
                return 1
            best = elapsed if best is None else min(best, elapsed)
        t0 = time.perf_counter()
        verify_log(log)  # again, nothing forgotten: a spectator's re-check of its growing log
        warm = time.perf_counter() - t0
        size = log.stat().st_size
    rate = report.messages / best
    raw = raw_ed25519_rate()
    ratio = rate / raw
    print(f"verify_log: {report.messages} signed messages, {report.steps} steps, {size} bytes in {best:.3f} s "
          f"= {rate:,.0f} messages/s")
    print(f"raw Ed25519 verify (cryptography): {raw:,.0f} /s; ratio {ratio:.2f} (target ≥ {TARGET_RATIO})")
    print(f"again with the signatures remembered (a spectator's re-check): {report.messages / warm:,.0f} messages/s")
    print(json.dumps({"messages": report.messages, "steps": report.steps, "log_bytes": size,
                      "verify_s": round(best, 4), "messages_per_s": round(rate), "raw_ed25519_per_s": round(raw),
                      "remembered_messages_per_s": round(report.messages / warm),
                      "ratio": round(ratio, 3), "target_ratio": TARGET_RATIO}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
