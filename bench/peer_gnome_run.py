"""Run N games of the USC/ISI GNOME Monopoly simulator in one process and count its dice rolls.

    python bench/peer_gnome_run.py TREE N [log|nolog] [--meta-seed S]

TREE is an unpacked tree of the simulator (GitHub mayankkejriwal/GNOME-p3, branch master; the
folder that holds ``monopoly_simulator/`` and ``monopoly_game_schema_v1-2.json``; see
bench/README.md for how to get it). Needs numpy in the interpreter that runs this file (the
simulator draws its dice with ``np.random.choice``); xlsxwriter is optional (the simulator
imports it for a history spreadsheet that the tournament path never writes: a stub stands in).
No network: only TREE is read.

What runs: the simulator's own tournament path, ``gameplay.play_game_in_tournament(seed)``,
four players with its default agent (``background_agent_v3_1``), its default board schema
(v1-2), no novelty, game seeds drawn as its ``test_harness.play_tournament_without_novelty``
draws them (``np.random.seed(meta_seed)``, shuffle ``range(1_000_000)``, the first N; meta seed
5 by default, as there). A game ends as the simulator ends it: one player left, or its
"runaway cash" stop (a player holding more than $10,000), after which it names the richest
player the winner; the runner reports how many games ended each way.

How rolls are counted (the same way as ``bench_engine.py`` and
``../shared/tools/peer_engines/gamescomputersplay_run.py``): one throw of the two dice is one
roll. The simulator throws through one function, ``action_choices.roll_die`` (called from
``gameplay.simulate_game_instance``, once per turn); the runner wraps that function in the
modules that hold it and counts its calls. In this simulator every turn throws exactly once:
doubles give no extra throw, and a jailed player's turn still throws (the throw is then
ignored), so those throws are counted too.

``nolog`` (default): the simulator's loggers stay at Python's default level (WARNING), so its
``logger.debug`` calls return at once (their string arguments are still built: that is the
simulator's own code). ``log``: each game writes the DEBUG log file its test harness writes
(``logging_info.log_file_create``), into a temporary folder deleted afterwards; this is the
harness's default and is much slower.

Prints one line ``peer games=N rolls=R cpu=S games/s=G rolls/s=X finished=F capped=C`` (CPU time
of this process over the games only: imports and seed drawing excluded; board set-up per game
included, as it is part of the simulator's game), which ``bench_engine.py --peer-gnome`` parses.
"""
from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
import tempfile
import time
import types

_ROLLS = [0]


def _stub_xlsxwriter() -> None:
    """The simulator's gameplay imports xlsxwriter at module level but uses it only when a
    history file is asked for (never on the tournament path): stand in for it when absent."""
    try:
        import xlsxwriter  # noqa: F401
    except ImportError:
        stub = types.ModuleType("xlsxwriter")

        def _absent(*_a, **_k):
            raise RuntimeError("xlsxwriter is not installed (history spreadsheets unavailable)")
        stub.Workbook = _absent
        sys.modules["xlsxwriter"] = stub


def _sim_dir(tree: str) -> str:
    """The simulator's package folder's parent must be on sys.path; its code opens the schema as
    ``../monopoly_game_schema_v1-2.json``, i.e. relative to ``monopoly_simulator/``."""
    root = os.path.abspath(tree)
    if os.path.basename(root) == "monopoly_simulator":
        root = os.path.dirname(root)
    if not os.path.isfile(os.path.join(root, "monopoly_simulator", "gameplay.py")):
        raise SystemExit(f"{tree}: no monopoly_simulator/gameplay.py (is it the GNOME-p3 tree?)")
    return root


def _count_rolls(action_choices) -> None:
    """Wrap the one dice function where it is defined and in every simulator module that bound
    it by name (gameplay does: ``from monopoly_simulator.action_choices import roll_die``)."""
    orig = action_choices.roll_die

    def roll_die(die_objects, choice):
        _ROLLS[0] += 1
        return orig(die_objects, choice)
    action_choices.roll_die = roll_die
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("monopoly_simulator.") \
                and getattr(mod, "roll_die", None) is orig:
            mod.roll_die = roll_die


def tournament_seeds(np, meta_seed: int, n: int) -> list[int]:
    """The game seeds the simulator's test harness draws for a tournament of ``n`` games."""
    np.random.seed(meta_seed)
    big = list(range(1_000_000))
    np.random.shuffle(big)
    return big[:n]


def run(tree: str, n: int, log: bool, meta_seed: int = 5) -> dict:
    """Play ``n`` games; returns ``{"games", "rolls", "cpu_s", "finished", "capped", "winners"}``
    (``finished``: games that ended with one player left; ``capped``: ended by the runaway-cash
    stop). Changes the working directory to the simulator's package folder."""
    root = _sim_dir(tree)
    sys.path.insert(0, root)
    os.chdir(os.path.join(root, "monopoly_simulator"))
    try:
        import numpy as np
    except ImportError:
        raise SystemExit("the GNOME simulator needs numpy: pip install numpy") from None
    _stub_xlsxwriter()
    from monopoly_simulator import action_choices, card_utility_actions, gameplay
    from monopoly_simulator.logging_info import log_file_create
    _count_rolls(action_choices)
    # Which way each game ended: the simulator's loop calls check_for_game_termination after
    # every turn; a True there is the runaway-cash stop.
    capped = [0]
    orig_term = card_utility_actions.check_for_game_termination

    def check_for_game_termination(board, tot_time):
        stop = orig_term(board, tot_time)
        capped[0] += bool(stop)
        return stop
    gameplay.card_utility_actions.check_for_game_termination = check_for_game_termination
    seeds = tournament_seeds(np, meta_seed, n)
    logdir = tempfile.mkdtemp(prefix="gnome-log-") if log else None
    winners: dict[str, int] = {}
    try:
        t0 = time.process_time()
        for i, seed in enumerate(seeds):
            logger = log_file_create(os.path.join(logdir, f"game_{i}.log")) if log else None
            w = gameplay.play_game_in_tournament(seed)
            winners[str(w)] = winners.get(str(w), 0) + 1
            if logger is not None:
                for h in logger.handlers[:]:
                    logger.removeHandler(h)
                    h.close()
        cpu = time.process_time() - t0
    finally:
        if logdir:
            shutil.rmtree(logdir, ignore_errors=True)
        logging.getLogger("monopoly_simulator.logging_info").setLevel(logging.NOTSET)
    return {"games": n, "rolls": _ROLLS[0], "cpu_s": cpu, "finished": n - capped[0],
            "capped": capped[0], "winners": winners}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree", help="unpacked GNOME-p3 tree (holds monopoly_simulator/)")
    ap.add_argument("games", type=int)
    ap.add_argument("log", nargs="?", choices=("log", "nolog"), default="nolog")
    ap.add_argument("--meta-seed", type=int, default=5)
    args = ap.parse_args(argv)
    r = run(args.tree, args.games, args.log == "log", args.meta_seed)
    cpu = r["cpu_s"]
    print(f"peer games={r['games']} rolls={r['rolls']} cpu={cpu:.3f} "
          f"games/s={r['games'] / cpu:.1f} rolls/s={r['rolls'] / cpu:.0f} "
          f"finished={r['finished']} capped={r['capped']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
