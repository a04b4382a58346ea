"""bench/peer_gnome_run.py counts the GNOME simulator's dice throws right (not its speed).

The real simulator (GitHub mayankkejriwal/GNOME-p3) is not in the tree, so the runner is pointed
at a stand-in with the same shape: ``monopoly_simulator.gameplay`` imports ``roll_die`` by name
from ``action_choices`` (as the simulator does) and ends some games by the runaway-cash check of
``card_utility_actions``; a stand-in ``numpy`` in the tree draws the tournament seeds. Each game's
number of throws follows from its seed, so the expected totals are known exactly.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"

_NUMPY = '''
import random as _r
class _Random:
    _g = _r.Random(0)
    def seed(self, s): self._g.seed(s)
    def shuffle(self, xs): xs.reverse()  # cheap: 12 consecutive seeds cover both endings
    def choice(self, a): return self._g.choice(a)
random = _Random()
'''
_ACTIONS = '''
def roll_die(die_objects, choice):
    return [choice(a=d) for d in die_objects]
'''
_CARDS = '''
def check_for_game_termination(board, tot_time):
    return board["cash"] > 10000
'''
_LOGGING = '''
import logging
def log_file_create(filename):
    lg = logging.getLogger("monopoly_simulator.logging_info")
    lg.setLevel(logging.DEBUG)
    lg.addHandler(logging.FileHandler(filename, mode="w"))
    return lg
'''
# Seed s plays s % 7 + 1 turns, one throw each; an odd seed gains 3,000 a turn, so the
# runaway-cash check stops it after its 4th throw (10,000 exceeded at 12,000).
_GAMEPLAY = '''
import logging
import numpy as np
import xlsxwriter
from monopoly_simulator import card_utility_actions
from monopoly_simulator.action_choices import roll_die
logger = logging.getLogger("monopoly_simulator.logging_info")

def play_game_in_tournament(seed):
    with open("seeds.txt", "a") as f:
        f.write(f"{seed}\\n")
    board = {"cash": 0}
    for _ in range(seed % 7 + 1):
        logger.debug("rolling")
        roll_die([[1, 2, 3, 4, 5, 6]] * 2, np.random.choice)
        board["cash"] += 3000 if seed % 2 else 0
        if card_utility_actions.check_for_game_termination(board, 0.0):
            break
    return "player_1"
'''


def _fake_tree(root: Path) -> Path:
    sim = root / "monopoly_simulator"
    sim.mkdir(parents=True)
    (root / "numpy").mkdir()
    (root / "numpy" / "__init__.py").write_text(_NUMPY)
    (sim / "__init__.py").write_text("")
    for name, text in (("action_choices", _ACTIONS), ("card_utility_actions", _CARDS),
                       ("logging_info", _LOGGING), ("gameplay", _GAMEPLAY)):
        (sim / f"{name}.py").write_text(text)
    return root


def _expected(seeds: list[int]) -> tuple[int, int]:
    """(throws, games stopped by the cash check) of the stand-in's games."""
    rolls = capped = 0
    for s in seeds:
        turns = s % 7 + 1
        if s % 2 and turns >= 4:
            rolls += 4
            capped += 1
        else:
            rolls += turns
    return rolls, capped


def _run(tree: Path, *extra: str) -> dict:
    p = subprocess.run([sys.executable, str(BENCH / "peer_gnome_run.py"), str(tree), "12", *extra],
                       capture_output=True, text=True, check=True)
    line = next(x for x in p.stdout.splitlines() if x.startswith("peer games="))
    return dict(kv.split("=") for kv in line.split()[1:])


def test_counts_every_throw_and_the_capped_games(tmp_path):
    tree = _fake_tree(tmp_path / "gnome")
    f = _run(tree)
    seeds = [int(x) for x in (tree / "monopoly_simulator" / "seeds.txt").read_text().split()]
    assert len(seeds) == 12 and len(set(seeds)) == 12
    rolls, capped = _expected(seeds)
    assert 0 < capped < 12  # the seeds exercise both endings
    assert (int(f["games"]), int(f["rolls"]), int(f["capped"]), int(f["finished"])) == \
        (12, rolls, capped, 12 - capped)


def test_log_mode_counts_the_same_and_bench_engine_parses_the_line(tmp_path):
    tree = _fake_tree(tmp_path / "gnome")
    quiet = _run(tree)
    (tree / "monopoly_simulator" / "seeds.txt").unlink()
    logged = _run(tree, "log")
    assert (logged["rolls"], logged["capped"]) == (quiet["rolls"], quiet["capped"])
    sys.path.insert(0, str(BENCH))
    try:
        import bench_engine
    finally:
        sys.path.remove(str(BENCH))
    r = bench_engine.run_peer(str(BENCH / "peer_gnome_run.py"), str(tree), 12)
    assert (r["games"], r["rolls"]) == (12, int(quiet["rolls"]))
