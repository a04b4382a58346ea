#!/usr/bin/env python3
"""The network rows of issue 14 in one run, as ratios (prints, asserts nothing).

    python bench/bench_rows.py [--rows steps4,steps8,datagrams,loss,verify,rss] [--games 1]

Rows (each measured in this one process run, so that the machine's load is shared alike):

* ``steps4`` / ``steps8``: lockstep steps/s of a bot game with 4 (8) peer processes on loopback
  (``ui.demo.run_demo``; steps between the first ``progress`` line and the last peer's GameOver,
  as ``mesh_round`` times only its rounds; the rate to the last ``done`` line, which adds the
  drain after the game, §N4 "Draining", up to ``QUIET_S`` = 0.5 s, is printed beside it) next
  to ``../shared/tools/mesh_round/bench.py --n 4`` (``--n 8``) run right after it: ratio.
* ``datagrams``: from the same 8-peer game, datagrams sent per step by every peer together,
  split by kind with the transport's counters (``bench/_net_child.py`` reads them out of each
  child): first transmissions of data chunks, retransmissions (timeout / fast), pure acks,
  challenges/responses; next to the floor of one datagram per ordered pair of seats,
  N·(N−1); and payloads sent per step by message type.
* ``loss``: the same seeded 4-peer game clean and with 20% of every peer's outgoing datagrams
  dropped (``--loss 0.2``), interleaved (clean, lossy, clean, lossy...): lossy / clean time.
* ``losssim``: the transport alone at 20% loss on a simulated clock (``loss_simulation``: 4
  sans-I/O endpoints playing a lockstep exchange, seeded drops): lossy / clean time per step
  without the machine's noise, datagrams, duplicates and resends per step.
* ``verify``: ``p2p.identity.verify`` (the one every signed message goes through) against
  the raw Ed25519 verify of ``cryptography`` and of PyNaCl (libsodium), interleaved on one
  message; and ``verify_log`` messages/s on the clean 4-peer game's log.
* ``rss``: each peer's resident set along the 4-peer and 8-peer games (``rss_kb`` on progress
  lines and at the end): first, last, max, and growth per step (least squares over the second
  half); and, at the end, its proportional and private shares (``rss_figures``).
* ``memory``: ``bench/bench_memory.py`` — a synthetic 10k-step game of 4 in-memory sessions,
  RSS slope per step and peer with the catch-up history kept in memory (before issue 14) and
  served from the log (after), in fresh child processes of this run.
* ``catchup``: ``bench/bench_catchup.py --net 3`` — a restarted peer catching up 500 missed steps in
  memory (real engine, 4 seats) and, in the same run, three restarts of a real peer process
  among 4 on loopback (median): steps/s next to the target of 1,000.

``--ab-checkout DIR`` (with ``--ab-pairs``, ``--ab-peers``): games alternated between another
checkout (``git worktree add DIR <commit>``: its peers run its own code) and this one, same seeds:
CPU ms per step per peer of each and the new/base ratio per pair (``--rows none`` for only that).

Output: one line per figure, then one JSON line with everything.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bench_network  # noqa: E402 - bench/, the script's own folder (mesh_round)
from _rss import rss_figures  # noqa: E402 - bench/ too (the rss row's figures)

CHILD = ROOT / "bench" / "_net_child.py"
TYPE_NAMES = {16: "STEP", 17: "ESCROW", 18: "DROP", 19: "CATCHUP_REQ", 20: "CATCHUP_RESP",
              21: "HINT", 22: "ALIVE", 23: "ABANDON", 24: "COMPLAINT", 36: "CHAT"}


def _child_python(tmp: Path, child: Path = CHILD) -> str:
    """An executable standing in for the interpreter, so that the demo's children run
    ``child`` (``_net_child.py`` of this checkout or another one; ``DemoOptions.python``; the
    demo appends ``-m ui.cli ...``)."""
    script = tmp / ("counting-python" + str(child.parent.parent).replace("/", "_"))
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{child}" "$@"\n')
    script.chmod(0o755)
    return str(script)


def play(peers: int, seed: str, tmp: Path, loss: float = 0.0, env: dict | None = None,
         child: Path = CHILD) -> dict:
    """One demo game with counting children; its figures (steps/s, counters, RSS). ``env``:
    extra environment variables for the children (``_net_child.py``'s A/B switches);
    ``child``: the ``_net_child.py`` the peers run (another checkout's runs that checkout's code)."""
    from ui.demo import DemoOptions, run_demo

    tag = f"{peers}-{seed}-{loss}-{time.monotonic_ns()}"
    out = tmp / f"out-{tag}"
    out.mkdir()
    keys = tmp / f"keys-{tag}"
    keys.mkdir()
    opts = DemoOptions(peers=peers, seed=seed, edition="classico", log_dir=tmp / f"game-{tag}", timeout_s=600,
                       lang="en", python=_child_python(tmp, child), loss=loss)
    extra = {"LANOPOLI_BENCH_OUT": str(out), **(env or {})}
    os.environ.update(extra)
    try:
        outcome = asyncio.run(run_demo(opts, keys, lambda _peers: None))
    finally:
        for k in extra:
            os.environ.pop(k, None)
    if not outcome.ok:
        import shutil

        from ui.demo import stderr_tail

        keep = Path(tempfile.gettempdir()) / f"lanopoli-rows-failed-{tag}"
        shutil.copytree(tmp, keep, dirs_exist_ok=True)
        for p in outcome.peers:
            print(f"peer {p.index}: rc {p.returncode} error {p.error} stderr: {stderr_tail(p)}", file=sys.stderr)
        raise SystemExit(f"{peers}-peer game {seed} loss {loss} failed: {outcome.groups} timed out "
                         f"{outcome.timed_out}; logs and stderr kept in {keep}")
    ps = outcome.peers
    t0, s0 = min((p.first_progress_at, p.first_progress_step or 0) for p in ps if p.first_progress_at is not None)
    t1 = max(p.done_at for p in ps)
    steps = max(int(p.done["steps"]) for p in ps)
    children = [json.loads(f.read_text()) for f in out.glob("*.json")]
    # The game's own window (first progress line to the last GameOver, one monotonic clock for
    # all processes), as mesh_round times its rounds: without the drain after it (_net_child).
    firsts = [c["first_mono"] for c in children if "first_mono" in c]
    overs = [c["over_mono"] for c in children if "over_mono" in c]
    over_s = max(overs) - min(firsts) if firsts and len(overs) == len(children) else None
    return {"peers": peers, "seed": seed, "loss": loss, "steps": steps, "game_s": t1 - t0,
            "steps_per_s": (steps - s0) / (t1 - t0), "children": children, "over_s": over_s,
            "steps_per_s_to_over": None if over_s is None else (steps - s0) / over_s,
            "log": ps[0].done["log"], "hash": outcome.agreed_hash}


def mesh_round(n: int, rounds: int) -> float | None:
    """rounds/s of the bare signed all-to-all round (``bench_network.mesh_round``, up to 15 min
    for the 8-peer runs under load), or None if the tool is missing or failed."""
    line = bench_network.mesh_round(n, rounds, timeout=900)
    return None if line is None else float(line["rounds_per_s"])


def cpu_ms_per_step(game: dict) -> list[float]:
    """Each peer's CPU time (user + system, ms) per step from its first progress line to its
    end: steadier than steps/s on a loaded machine (it does not count waiting for a core)."""
    return [1000 * c["cpu_game_s"] / c["cpu_steps"] for c in game["children"] if c.get("cpu_steps")]


def datagram_kinds(game: dict) -> dict:
    """Datagrams per step of all peers together, by kind (see the module doc)."""
    steps = game["steps"]
    n = game["peers"]
    tot: dict[str, int] = {}
    by_type: dict[str, int] = {}
    chunks: dict[str, int] = {}
    for c in game["children"]:
        for k, v in c["transport"].items():
            tot[k] = tot.get(k, 0) + v
        for k, v in c["sent_by_type"].items():
            name = TYPE_NAMES.get(int(k), k)
            by_type[name] = by_type.get(name, 0) + v
        for k, v in c["chunks_by_type"].items():
            name = TYPE_NAMES.get(int(k), k)
            chunks[name] = chunks.get(name, 0) + v
    probes = tot.get("challenges_sent", 0) + tot.get("responses_sent", 0)
    sent = tot["datagrams_sent"]
    first = sent - tot["pure_acks_sent"] - tot["retransmits"] - probes
    per = lambda x: round(x / steps, 2)  # noqa: E731
    return {"per_step": per(sent), "floor": n * (n - 1), "ratio": round(sent / steps / (n * (n - 1)), 3),
            "data_first": per(first), "retransmits": per(tot["retransmits"]),
            "fast_retransmits": per(tot["fast_retransmits"]), "timeouts": per(tot["timeouts"]),
            "pure_acks": per(tot["pure_acks_sent"]), "probes": per(probes),
            "payloads_by_type": {k: per(v) for k, v in sorted(by_type.items())},
            "chunks_by_type": {k: per(v) for k, v in sorted(chunks.items())},
            "duplicates_received": per(tot["duplicates"]), "steps": steps}


def verify_rates(n: int = 3000, rounds: int = 5) -> dict:
    """Interleaved rates (verifies/s, best of ``rounds``) of p2p.identity.verify and of the
    raw Ed25519 verify of cryptography and of PyNaCl on one 200-byte message."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from p2p.identity import Identity, signed_bytes, verify

    ident = Identity.from_seed(b"bench-rows")
    body = bytes(range(200))
    sig = ident.sign(b"step", body)
    msg = signed_bytes(b"step", body)
    pub = Ed25519PrivateKey.from_private_bytes(
        __import__("hashlib").sha256(b"lanopoli/1/ed25519\x00bench-rows").digest()).public_key()
    fns = {"identity.verify": lambda: verify(ident.public_key, b"step", body, sig),
           "cryptography": lambda: pub.verify(sig, msg)}
    try:
        from nacl.bindings import crypto_sign_verify_detached

        pk = ident.public_key
        fns["pynacl"] = lambda: crypto_sign_verify_detached(sig, msg, pk)
    except ImportError:
        pass
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(rounds):
        for name, fn in fns.items():
            t = time.perf_counter()
            for _ in range(n):
                fn()
            best[name] = min(best[name], time.perf_counter() - t)
    return {k: round(n / v) for k, v in best.items()}


def verify_log_rate(log: str, repeat: int = 3) -> dict:
    """``verify_log`` signed messages/s on one log (best of ``repeat``), each run a first check:
    what ``identity.verify_many`` remembered from the run before is forgotten (a re-check skips
    the remembered signatures: ``bench/bench_verify.py`` prints that figure apart)."""
    from p2p import identity
    from p2p.verify import verify_log

    best = float("inf")
    for _ in range(repeat):
        getattr(identity, "forget", lambda: None)()  # an A/B base may not have it
        t = time.perf_counter()
        rep = verify_log(log)
        best = min(best, time.perf_counter() - t)
    return {"messages": rep.messages, "messages_per_s": round(rep.messages / best), "ok": rep.ok}


def ab_verify(pairs: int, seed: str, rounds: int, tmp: Path) -> dict:
    """4-peer games with the old and the new signature check, interleaved (old, new, old...),
    each next to a mesh_round run: medians of steps/s and of the ratio to mesh_round."""
    rows: dict[str, list] = {"old": [], "new": []}
    for g in range(pairs):
        for name, env in (("old", {"LANOPOLI_BENCH_VERIFY": "cryptography"}), ("new", {})):
            game = play(4, f"{seed}-ab-{g}", tmp, env=env)
            floor = mesh_round(4, rounds)
            rows[name].append((game["steps_per_s"], floor))
            print(f"A/B verify {name}: {game['steps_per_s']:.1f} steps/s, mesh_round {floor}", flush=True)
    out = {}
    for name, r in rows.items():
        out[name] = {"steps_per_s": round(statistics.median(x for x, _ in r), 1),
                     "ratio": round(statistics.median(x / f for x, f in r if f), 3)}
    print(f"A/B verify: {json.dumps(out)}", flush=True)
    return out


def ab_transport(pairs: int, seed: str, tmp: Path, rev: str) -> dict:
    """Git revision ``rev``'s p2p/transport.py ("old", ``LANOPOLI_BENCH_TRANSPORT``) and the
    working tree's ("new"), interleaved: per pair an 8-peer game each, then the same 4-peer game
    clean and at 20% loss each. Medians."""
    old = tmp / "old_transport.py"
    old.write_bytes(subprocess.run(["git", "show", f"{rev}:p2p/transport.py"], cwd=ROOT, check=True,
                                   capture_output=True).stdout)
    envs = {"old": {"LANOPOLI_BENCH_TRANSPORT": str(old)}, "new": {}}
    rows: dict[str, dict[str, list]] = {k: {"rate8": [], "dg8": [], "acks8": [], "clean": [], "lossy": []} for k in envs}
    for g in range(pairs):
        for name, env in envs.items():
            game = play(8, f"{seed}-abt8-{g}", tmp, env=env)
            kinds = datagram_kinds(game)
            rows[name]["rate8"].append(game["steps_per_s"])
            rows[name]["dg8"].append(kinds["per_step"])
            rows[name]["acks8"].append(kinds["pure_acks"] + kinds["retransmits"])
            print(f"A/B transport {name}: 8 peers {game['steps_per_s']:.1f} steps/s, datagrams/step "
                  f"{json.dumps(kinds)}", flush=True)
        for name, env in envs.items():
            c = play(4, f"{seed}-abt4-{g}", tmp, env=env)
            lo = play(4, f"{seed}-abt4-{g}", tmp, loss=0.2, env=env)
            rows[name]["clean"].append(c["game_s"])
            rows[name]["lossy"].append(lo["game_s"])
            print(f"A/B transport {name}: 4 peers clean {c['game_s']:.2f} s, 20% loss {lo['game_s']:.2f} s "
                  f"= {lo['game_s'] / c['game_s']:.2f}x; lossy datagrams {json.dumps(datagram_kinds(lo))}", flush=True)
    med = statistics.median
    out = {name: {"steps_per_s_8": round(med(r["rate8"]), 1), "datagrams_per_step_8": round(med(r["dg8"]), 2),
                  "datagram_ratio_8": round(med(r["dg8"]) / 56, 3), "acks_and_resends_8": round(med(r["acks8"]), 2),
                  "loss20_vs_clean": round(med(lo / c for lo, c in zip(r["lossy"], r["clean"])), 2)}
           for name, r in rows.items()}
    print(f"A/B transport: {json.dumps(out)}", flush=True)
    return out


def ab_checkout(peers: int, pairs: int, seed: str, tmp: Path, base_root: str) -> dict:
    """Games alternated between the checkout ``base_root`` ("base": its peers run
    ``<base_root>/bench/_net_child.py``, which puts that checkout first on ``sys.path``, e.g. a
    ``git worktree add`` of the commit before a change) and this one ("new"), the same seed per
    pair: CPU ms per step per peer (median of the game's peers) and steps/s of each game, and
    the new/base CPU ratio of each pair, the figure the machine's load disturbs least."""
    children = {"base": Path(base_root).resolve() / "bench" / "_net_child.py", "new": CHILD}
    rows: dict[str, dict[str, list]] = {k: {"cpu": [], "rate": []} for k in children}
    for g in range(pairs):
        for name, child in children.items():
            game = play(peers, f"{seed}-ab-{g}", tmp, child=child)
            cpu = statistics.median(cpu_ms_per_step(game))
            rows[name]["cpu"].append(round(cpu, 3))
            rows[name]["rate"].append(round(game["steps_per_s"], 1))
            print(f"A/B checkout {name} ({child.parent.parent}): {peers} peers, {game['steps']} steps, "
                  f"CPU {cpu:.3f} ms per step per peer, {game['steps_per_s']:.1f} steps/s", flush=True)
    ratios = [round(b / a, 3) for a, b in zip(rows["base"]["cpu"], rows["new"]["cpu"])]
    out = {"peers": peers, **rows, "cpu_ratios": ratios, "cpu_ratio_median": statistics.median(ratios)}
    print(f"A/B checkout: {json.dumps(out)}", flush=True)
    return out


def loss_simulation(loss: float = 0.2, seeds: int = 15, steps: int = 400, n: int = 4,
                    latency: float = 0.0003, work: float = 0.0012) -> dict:
    """The transport's loss recovery alone, without the machine's noise: ``n`` sans-I/O
    ``Endpoint``s on a simulated clock play a lockstep exchange (each sends its step message
    to every other one ``work`` s after holding all of the previous step's, every datagram
    arrives ``latency`` s after it left, or is dropped with probability ``loss``, seeded).
    Simulated seconds per step clean and lossy (mean over ``seeds`` runs), their ratio, and
    datagrams, duplicates received and resends per step. The defaults mimic a 4-peer game on
    loopback (~1.5 ms per step)."""
    import heapq
    import random

    from p2p.endpoint import Endpoint

    def run(p: float, seed: int) -> tuple[float, float, float, float]:
        rng = random.Random(seed)
        addrs = [("127.0.0.1", 9000 + i) for i in range(n)]
        index = {a: i for i, a in enumerate(addrs)}
        eps = [Endpoint(epoch=100 + i) for i in range(n)]
        step, got, busy = [0] * n, [dict() for _ in range(n)], [False] * n
        q: list = []
        counter, sent = [0], [0]

        def push(t: float, *ev: object) -> None:
            counter[0] += 1
            heapq.heappush(q, (t, counter[0], ev))

        def flush(i: int, now: float) -> None:
            for dg, a in eps[i].datagrams_to_send(now):
                sent[0] += 1
                if rng.random() >= p:
                    push(now + latency, "rx", index[a], dg, i)
            t = eps[i].get_timer()
            if t is not None:
                push(max(t, now), "timer", i)

        def advance(i: int, now: float) -> None:
            if not busy[i] and len(got[i].get(step[i], ())) == n - 1:
                del got[i][step[i]]
                step[i] += 1
                if step[i] < steps:
                    busy[i] = True
                    push(now + work, "send", i)

        for i in range(n):
            push(0.0, "send", i)
        now = 0.0
        while q and min(step) < steps:
            now, _, ev = heapq.heappop(q)
            if ev[0] == "send":
                i = ev[1]
                busy[i] = False
                for j in range(n):
                    if j != i:
                        eps[i].send(addrs[j], bytes([i]) + step[i].to_bytes(4, "big") + bytes(180))
                flush(i, now)
                advance(i, now)
            elif ev[0] == "timer":
                eps[ev[1]].handle_timer(now)
                flush(ev[1], now)
            else:
                _, j, dg, i = ev
                for _src, m in eps[j].receive_datagram(dg, addrs[i], now):
                    got[j].setdefault(int.from_bytes(m[1:5], "big"), set()).add(m[0])
                flush(j, now)
                advance(j, now)
        tot = [e.totals() for e in eps]
        return (now / steps, sent[0] / steps, sum(t["duplicates"] for t in tot) / steps,
                sum(t["retransmits"] for t in tot) / steps)

    clean = run(0.0, 0)
    lossy = [run(loss, s) for s in range(1, seeds + 1)]
    mean = lambda i: statistics.fmean(r[i] for r in lossy)  # noqa: E731
    return {"clean_ms_per_step": round(clean[0] * 1e3, 3), "lossy_ms_per_step": round(mean(0) * 1e3, 3),
            "ratio": round(mean(0) / clean[0], 2), "datagrams_per_step": round(mean(1), 1),
            "duplicates_per_step": round(mean(2), 1), "resends_per_step": round(mean(3), 2)}


def _sibling_json(script: str, *args: str) -> dict:
    """Run ``bench/<script>`` in a fresh interpreter; its last output line as JSON."""
    out = subprocess.run([sys.executable, str(ROOT / "bench" / script), *args], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="steps4,steps8,datagrams,loss,losssim,verify,rss,memory,catchup")
    ap.add_argument("--memory-steps", type=int, default=10_000, help="steps of the memory row's game")
    ap.add_argument("--games", type=int, default=1, help="games per figure (medians)")
    ap.add_argument("--seed", default="rows")
    ap.add_argument("--rounds", type=int, default=2000, help="mesh_round rounds")
    ap.add_argument("--ab-verify", type=int, default=0, metavar="PAIRS",
                    help="also play PAIRS of 4-peer games, old (cryptography) and new (libsodium) "
                         "signature check interleaved, with mesh_round between: steps/s ratio")
    ap.add_argument("--ab-transport", type=int, default=0, metavar="PAIRS",
                    help="also play PAIRS of rounds, old and new transport timing interleaved: an "
                         "8-peer game (steps/s, datagrams/step) and a 4-peer game clean and at 20%% loss")
    ap.add_argument("--ab-rev", default="HEAD", help="git revision of the 'old' transport")
    ap.add_argument("--ab-checkout", metavar="DIR", help="also play --ab-pairs pairs of games alternated "
                    "between the checkout DIR (base) and this one (new), for each of --ab-peers: CPU ratio")
    ap.add_argument("--ab-pairs", type=int, default=3)
    ap.add_argument("--ab-peers", default="4,8")
    args = ap.parse_args(argv)
    rows = set(args.rows.split(","))
    res: dict = {}
    with tempfile.TemporaryDirectory(prefix="lanopoli-bench-rows-") as d:
        tmp = Path(d)
        games4: list[dict] = []
        for n in (4, 8):
            if not rows & {f"steps{n}", "rss"} and not (n == 8 and "datagrams" in rows):
                continue
            games = [play(n, f"{args.seed}-{g}", tmp) for g in range(args.games)]
            drained = statistics.median(g["steps_per_s"] for g in games)
            overs = [g["steps_per_s_to_over"] for g in games]
            rate = statistics.median(overs) if None not in overs else drained  # None: older children
            floor = mesh_round(n, args.rounds) if f"steps{n}" in rows else None
            cpus = [c for g in games for c in cpu_ms_per_step(g)]
            cpu = statistics.median(cpus) if cpus else float("nan")  # nan: children without the counter
            res[f"steps{n}"] = {"steps_per_s": round(rate, 1), "mesh_round": floor,
                                "ratio": round(rate / floor, 3) if floor else None,
                                "steps": [g["steps"] for g in games], "cpu_ms_per_step_per_peer": round(cpu, 3),
                                "steps_per_s_to_last_done": round(drained, 1)}
            print(f"{n} peers: lockstep {rate:.1f} steps/s, mesh_round {floor} rounds/s, "
                  f"ratio {res[f'steps{n}']['ratio']}; CPU {cpu:.3f} ms per step per peer; "
                  f"{drained:.1f} steps/s to the last done line (with the drain)", flush=True)
            if n == 8 and "datagrams" in rows:
                res["datagrams"] = datagram_kinds(games[0])
                print(f"8 seats: datagrams per step {json.dumps(res['datagrams'])}", flush=True)
            if n == 4:
                games4 = games
                res["datagrams4"] = datagram_kinds(games[0])
                print(f"4 seats: datagrams per step {json.dumps(res['datagrams4'])}", flush=True)
            if "rss" in rows:
                res[f"rss{n}"] = rss_figures(games[0])
                print(f"{n} peers RSS: {json.dumps(res[f'rss{n}'])}", flush=True)
        if "loss" in rows:
            clean, lossy = [], []
            for g in range(max(args.games, 2)):
                seed = f"{args.seed}-loss-{g}"
                clean.append(play(4, seed, tmp))
                lossy.append(play(4, seed, tmp, loss=0.2))
            c = statistics.median(x["game_s"] for x in clean)
            lo = statistics.median(x["game_s"] for x in lossy)
            res["loss"] = {"clean_s": round(c, 2), "loss20_s": round(lo, 2), "ratio": round(lo / c, 2),
                           "steps": [x["steps"] for x in clean], "same_hash": all(
                               a["hash"] == b["hash"] for a, b in zip(clean, lossy)),
                           "lossy_datagrams": datagram_kinds(lossy[0])}
            print(f"20% loss: {lo:.2f} s vs clean {c:.2f} s = {res['loss']['ratio']}x "
                  f"(same games: {res['loss']['same_hash']}); lossy datagrams/step "
                  f"{json.dumps(res['loss']['lossy_datagrams'])}", flush=True)
            games4 = games4 or clean
        if "losssim" in rows:
            res["losssim"] = loss_simulation()
            print(f"20% loss, transport alone on a simulated clock: {json.dumps(res['losssim'])}", flush=True)
        if "verify" in rows:
            rates = verify_rates()
            res["verify"] = {**rates, "ratio_vs_cryptography": round(rates["identity.verify"] / rates["cryptography"], 2)}
            games4 = games4 or [play(4, f"{args.seed}-verify", tmp)]
            if games4:
                res["verify_log"] = verify_log_rate(games4[0]["log"])
                res["verify"]["verify_log_vs_cryptography"] = round(
                    res["verify_log"]["messages_per_s"] / rates["cryptography"], 2)
            print(f"verify: {json.dumps(res['verify'])} verify_log {json.dumps(res.get('verify_log'))}", flush=True)
        if "memory" in rows:
            m = _sibling_json("bench_memory.py", "--steps", str(args.memory_steps))
            res["memory"] = {k: {f: m[k][f] for f in ("steps", "rss_first_kb", "rss_last_kb", "kb_per_step_per_peer")}
                             for k in ("before", "after")}
            print(f"memory over {m['after']['steps']} steps, per peer: {m['before']['kb_per_step_per_peer']:+.3f} kB/step "
                  f"(history in memory) -> {m['after']['kb_per_step_per_peer']:+.3f} kB/step (served from the log); "
                  f"4 sessions' RSS at the end {m['before']['rss_last_kb'] / 1024:.1f} -> "
                  f"{m['after']['rss_last_kb'] / 1024:.1f} MB", flush=True)
        if "catchup" in rows:
            c = _sibling_json("bench_catchup.py", "--net", "3")
            net = c["net"]["steps_per_s"]
            med = net[len(net) // 2] if net else None
            res["catchup"] = {**{k: c[k] for k in ("steps_per_s", "steps_per_s_cpu", "waited_for_timers_s")},
                              "ratio_to_target": round(c["steps_per_s"] / 1000, 2), "loopback_steps_per_s": net,
                              "loopback_ratio_to_target": None if med is None else round(med / 1000, 2)}
            print(f"catch-up of a restarted peer: in memory ({c['caught_up_to'] - c['resumed_at']} steps) "
                  f"{c['steps_per_s']} steps/s = {res['catchup']['ratio_to_target']} x the 1,000 target; "
                  f"4 processes on loopback (median of {len(net)}) {med} steps/s = "
                  f"{res['catchup']['loopback_ratio_to_target']} x", flush=True)
        if args.ab_transport:
            res["ab_transport"] = ab_transport(args.ab_transport, args.seed, tmp, args.ab_rev)
        if args.ab_checkout:
            res["ab_checkout"] = [ab_checkout(int(n), args.ab_pairs, args.seed, tmp, args.ab_checkout)
                                  for n in args.ab_peers.split(",")]
        if args.ab_verify:
            res["ab_verify"] = ab_verify(args.ab_verify, args.seed, args.rounds, tmp)
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
