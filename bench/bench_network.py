#!/usr/bin/env python3
"""Network benchmark: whole bot games with N peer processes on loopback, and discovery alone
(prints, asserts nothing).

    python bench/bench_network.py [--peers 4] [--games 3] [--seed bench] [--rounds 2000]
    python bench/bench_network.py --games 0 --discovery-trials 10     # discovery figures only

For each game (``lanopoli demo`` machinery, ``ui.demo.run_demo``) it measures, from the
children's JSON lines (protocol.md part L) as the parent receives them:

* lockstep steps per second: (last ``done`` step count − first ``progress`` step) / (time of
  the last ``done`` − time of the first ``progress``), so process start, discovery and the
  lobby are not counted. The last ``done`` follows each node's close: the linger (idle
  ~1 round trip after the game, protocol.md §N2.4 "Draining") and one mDNS goodbye per advert
  (§N3), ~10 ms in all; before issue 14 the close waited 0.3 s (joiner) to 0.6 s (host) for
  python-zeroconf's repeated goodbyes and the peers' delayed acks, which this figure counted;
* end-to-end "found": each child's ``found.elapsed_s``, from the start of its node to holding
  every seat's signed setup and seed reveal — browse, resolve *and* the whole lobby handshake
  (JOIN, STATUS, PROPOSAL, SETUP_SIG, SEED), and for the host the joiners' start-up too;
* each peer process's peak RSS (``done.maxrss_kb``; target < 80 MB).

Then it runs the bare signed all-to-all round of ``../shared/tools/mesh_round/bench.py --n N``
in the same run and prints both rates and their ratio (target ≥ 0.5).

**Discovery alone** (``--discovery-trials``, target < 0.5 s): this process advertises a game
(``p2p.discovery``, loopback) and waits until its announcements are out; then, per trial, it
starts a fresh child interpreter (this file, ``--discovery-child``) that imports what the peer
command ``lanopoli join`` imports (``ui.cli``, ``ui.peer``, ``p2p.node``), starts zeroconf on
127.0.0.1, browses, and stops at the moment the service is resolved into a GameAd. Wall-clock
stamps (``time.time``, one clock for both processes) split the child's life into: interpreter
start-up (spawn → first line of this file), imports, zeroconf start, browse → resolved. It
also runs ``python -X importtime -m ui.cli join --help`` and reports the biggest imports.
Output: one line per game / trial, then the summary lines, then one JSON line.
"""

import time

_T_MAIN = time.time()  # first thing the child does: the end of interpreter start-up

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PEER_COMMAND_MODULES = ("ui.cli", "ui.peer", "p2p.node")
"""What ``lanopoli join`` imports before it browses (ui.cli dispatches to ui.peer, which runs
p2p.node); the discovery child imports the same, so their cost is in its figures."""

MESH_ROUND = ROOT.parent / "shared" / "tools" / "mesh_round" / "bench.py"
TARGET_RATIO = 0.5
TARGET_FOUND_S = 0.5
TARGET_RSS_MB = 80.0


def game_figures(outcome) -> dict:
    """Steps/s, discovery times and peak RSS of one finished demo run."""
    peers = outcome.peers
    starts = [(p.first_progress_at, p.first_progress_step or 0) for p in peers if p.first_progress_at is not None]
    t_start, step_start = min(starts)
    t_end = max(p.done_at for p in peers)
    steps = max(int(p.done["steps"]) for p in peers)
    found = [float(p.found["elapsed_s"]) for p in peers if p.found is not None]
    rss_mb = [int(p.done["maxrss_kb"]) / 1024 for p in peers if p.done.get("maxrss_kb") is not None]
    return {
        "steps": steps,
        "game_s": round(t_end - t_start, 3),
        "steps_per_s": round((steps - step_start) / (t_end - t_start), 1) if t_end > t_start else None,
        "found_s_max": round(max(found), 3) if found else None,
        "found_s_median": round(statistics.median(found), 3) if found else None,
        "maxrss_mb_max": round(max(rss_mb), 1) if rss_mb else None,
        "final_state_hash": outcome.agreed_hash,
    }


def mesh_round(n: int, rounds: int, timeout: float = 600) -> dict | None:
    """Run the mesh_round floor benchmark (``n`` peers, ``rounds`` rounds, at most ``timeout``
    seconds); its JSON line, or None if the tool is missing or failed (said on stderr).
    bench_rows.py uses it too."""
    if not MESH_ROUND.exists():
        print(f"mesh_round not found at {MESH_ROUND}; skipping the floor figure", file=sys.stderr)
        return None
    proc = subprocess.run([sys.executable, str(MESH_ROUND), "--n", str(n), "--rounds", str(rounds)],
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        print(f"mesh_round failed ({proc.returncode}): {proc.stderr.strip()[-500:]}", file=sys.stderr)
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def discovery_child(gid_hex: str) -> None:
    """Child side of a discovery trial: import the peer command's modules, start zeroconf on
    loopback, browse, stop when game ``gid_hex`` is resolved. Prints one JSON line of
    ``time.time`` stamps: main (first line of this file), imports, zeroconf, browse, resolved."""
    import importlib

    for m in PEER_COMMAND_MODULES:
        importlib.import_module(m)
    from p2p.discovery import Discovery
    t_imports = time.time()
    gid = bytes.fromhex(gid_hex)

    async def run() -> dict:
        t_loop = time.time()
        disco = Discovery(["127.0.0.1"])
        await disco.start()
        t_zc = time.time()
        disco.browse()
        t_browse = time.time()
        await disco.wait_for(lambda ad: ad.game_id == gid, 10.0)
        t_resolved = time.time()
        await disco.close()
        return {"loop": t_loop, "zeroconf": t_zc, "browse": t_browse, "resolved": t_resolved}

    stamps = asyncio.run(run())
    print(json.dumps({"main": _T_MAIN, "imports": t_imports, **stamps}))


async def discovery_trials(trials: int, gap: float) -> list[dict]:
    """Advertise one game on 127.0.0.1 and time ``trials`` fresh child processes finding it
    (module docstring), ``gap`` seconds apart. Returns one dict of durations in seconds per
    trial. A gap under ~1 s makes the host's answer fall under mDNS's one-second rule (a record
    multicast less than 1 s ago is answered only after a further second, RFC 6762 §6;
    python-zeroconf's delayed queue), so trials would measure that rule, not a fresh joiner."""
    import os

    from p2p.const import PROTOCOL_VERSION
    from p2p.ad_record import GameAd
    from p2p.discovery import Discovery

    gid = os.urandom(16)
    ad = GameAd(version=PROTOCOL_VERSION, game_id=gid, edition="classico", seats_taken=1, seats_total=2,
                state="lobby", fingerprint=os.urandom(8).hex(), address="127.0.0.1", port=45999)
    out = []
    async with Discovery(["127.0.0.1"]) as host:
        await host.advertise(ad)
        await asyncio.sleep(1.5)  # the host is already up when a joiner starts (announcements done)
        for _ in range(trials):
            t_spawn = time.time()
            proc = await asyncio.create_subprocess_exec(
                sys.executable, str(Path(__file__).resolve()), "--discovery-child", gid.hex(),
                stdout=asyncio.subprocess.PIPE, cwd=str(ROOT))
            stdout, _ = await proc.communicate()
            st = json.loads(stdout.decode().strip().splitlines()[-1])
            out.append({
                "interpreter_s": round(st["main"] - t_spawn, 3),
                "imports_s": round(st["imports"] - st["main"], 3),
                "zeroconf_start_s": round(st["zeroconf"] - st["loop"], 3),
                "browse_to_resolved_s": round(st["resolved"] - st["browse"], 3),
                "main_to_resolved_s": round(st["resolved"] - st["main"], 3),
                "spawn_to_resolved_s": round(st["resolved"] - t_spawn, 3),
            })
            await asyncio.sleep(gap)
    return out


def import_profile(top: int = 6) -> dict:
    """Start-up costs of the peer command, in seconds: wall time of a bare ``python -c pass``,
    of ``python -m ui.cli join --help`` (interpreter + ui.cli; join's own modules load lazily),
    and ``-X importtime`` of importing ``PEER_COMMAND_MODULES``: the sum of the top-level
    imports' cumulative times and the ``top`` biggest top-level packages."""
    def wall(cmd: list[str]) -> float:
        t = time.time()
        subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
        return round(time.time() - t, 3)

    bare = min(wall([sys.executable, "-c", "pass"]) for _ in range(3))
    join_help = min(wall([sys.executable, "-m", "ui.cli", "join", "--help"]) for _ in range(3))
    code = "import " + ", ".join(PEER_COMMAND_MODULES)
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    by_pkg: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        parts = line.split("|")
        if len(parts) != 3 or not parts[1].strip().isdigit():
            continue
        name = parts[2]
        if name.startswith(" ") and not name.startswith("  "):  # top level: one space, no indent
            pkg = name.strip().split(".")[0]
            by_pkg[pkg] = by_pkg.get(pkg, 0) + int(parts[1])
    biggest = sorted(by_pkg.items(), key=lambda kv: -kv[1])[:top]
    return {"bare_python_s": bare, "join_help_wall_s": join_help,
            "peer_imports_s": round(sum(by_pkg.values()) / 1e6, 3),
            "biggest_imports_s": {k: round(v / 1e6, 3) for k, v in biggest}}


def _med(rows: list[dict], key: str) -> float:
    return round(statistics.median(r[key] for r in rows), 3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--peers", type=int, default=4)
    parser.add_argument("--games", type=int, default=3, help="0: discovery figures only")
    parser.add_argument("--seed", default="bench", help="game i uses seed '<seed>-<i>'")
    parser.add_argument("--rounds", type=int, default=2000, help="mesh_round rounds")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--discovery-trials", type=int, default=10,
                        help="child processes timed finding an advertised game (0: skip)")
    parser.add_argument("--discovery-gap", type=float, default=1.5,
                        help="seconds between discovery trials (< 1 s: see discovery_trials)")
    parser.add_argument("--discovery-child", metavar="GID", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.discovery_child:
        discovery_child(args.discovery_child)
        return 0

    summary: dict = {"peers": args.peers}
    per_game = []
    if args.games:
        from ui.demo import DemoOptions, run_demo

        with tempfile.TemporaryDirectory(prefix="lanopoli-bench-") as tmp:
            for g in range(args.games):
                opts = DemoOptions(peers=args.peers, seed=f"{args.seed}-{g}", edition="classico",
                                   log_dir=Path(tmp) / f"game-{g}", timeout_s=args.timeout, lang="en")
                keys = Path(tmp) / f"keys-{g}"
                keys.mkdir()
                outcome = asyncio.run(run_demo(opts, keys, lambda peers: None))
                if not outcome.ok:
                    print(f"game {g}: FAILED (timed out: {outcome.timed_out}; hashes: {outcome.groups}); "
                          f"see the children's stderr above", file=sys.stderr)
                    return 1
                figures = game_figures(outcome)
                per_game.append(figures)
                print(f"game {g}: {figures['steps']} steps in {figures['game_s']} s = "
                      f"{figures['steps_per_s']} steps/s; node start to lobby done (found) "
                      f"≤ {figures['found_s_max']} s; max RSS {figures['maxrss_mb_max']} MB", flush=True)

        total_steps = sum(f["steps"] for f in per_game)
        rate = statistics.median(f["steps_per_s"] for f in per_game)
        floor = mesh_round(args.peers, args.rounds)
        floor_rate = floor["rounds_per_s"] if floor else None
        ratio = round(rate / floor_rate, 3) if floor_rate else None
        found_max = max(f["found_s_max"] for f in per_game)
        found_med = round(statistics.median(f["found_s_median"] for f in per_game), 3)
        rss_max = max(f["maxrss_mb_max"] for f in per_game)
        print(f"lockstep: {rate} steps/s (median of {len(per_game)} games, {total_steps} steps); "
              f"mesh_round floor: {floor_rate} rounds/s; ratio {ratio} (target ≥ {TARGET_RATIO})")
        print(f"end-to-end found (node start → every seat's setup signature and seed held, i.e. "
              f"discovery + whole lobby): median {found_med} s, max {found_max} s; "
              f"max RSS per peer {rss_max} MB (target < {TARGET_RSS_MB:g} MB)")
        summary.update({"games": per_game, "steps_per_s_median": rate,
                        "mesh_round_rounds_per_s": floor_rate, "ratio": ratio,
                        "target_ratio": TARGET_RATIO, "found_s_max": found_max,
                        "found_s_median": found_med, "maxrss_mb_max": rss_max, "mesh_round": floor})

    if args.discovery_trials:
        trials = asyncio.run(discovery_trials(args.discovery_trials, args.discovery_gap))
        for i, t in enumerate(trials):
            print(f"discovery trial {i}: interpreter {t['interpreter_s']} s + imports {t['imports_s']} s "
                  f"+ zeroconf start {t['zeroconf_start_s']} s + browse→resolved "
                  f"{t['browse_to_resolved_s']} s; process start→resolved {t['spawn_to_resolved_s']} s",
                  flush=True)
        prof = import_profile()
        med = {k: _med(trials, k) for k in trials[0]}
        spread = {k: [min(t[k] for t in trials), max(t[k] for t in trials)]
                  for k in ("browse_to_resolved_s", "spawn_to_resolved_s")}
        print(f"discovery (target < {TARGET_FOUND_S} s, median of {len(trials)}, "
              f"{args.discovery_gap} s apart): browse→resolved "
              f"{med['browse_to_resolved_s']} s; peer code start (after interpreter start-up)→resolved "
              f"{med['main_to_resolved_s']} s; process spawn→resolved {med['spawn_to_resolved_s']} s "
              f"= interpreter {med['interpreter_s']} + imports {med['imports_s']} + zeroconf start "
              f"{med['zeroconf_start_s']} + browse→resolved {med['browse_to_resolved_s']}; "
              f"range browse→resolved {spread['browse_to_resolved_s']}, spawn→resolved "
              f"{spread['spawn_to_resolved_s']}")
        print(f"start-up: bare python {prof['bare_python_s']} s; `python -m ui.cli join --help` "
              f"{prof['join_help_wall_s']} s; -X importtime of {', '.join(PEER_COMMAND_MODULES)}: "
              f"{prof['peer_imports_s']} s, biggest {prof['biggest_imports_s']}")
        summary.update({"discovery_trials": trials, "discovery_median": med, "discovery_range": spread, "discovery_gap_s": args.discovery_gap,
                        "import_profile": prof, "target_found_s": TARGET_FOUND_S})
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
