"""The sample game's vectors (make_vectors.py part): ``play_game`` runs the lobby and a whole
2-seat classico lockstep game of two in-memory peers from fixed demo seeds (game.json: setup,
setup hash, game seed, initial state and its hash, the first ``FIRST_HASHES`` state hashes and the
final one; game.lnplog, protocol.md §C6), and ``verify_json`` is ``lanopoli verify --json`` of its
log (verify.json).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from repo_first import ROOT  # (importing it also puts the repository's engine/p2p first on sys.path)

import engine as E
import engine.bots  # noqa: F401  (E.bots)
from p2p.gamelog import LogWriter
from p2p.identity import Identity
from p2p.lobby import Lobby
from p2p.lockstep import GameOver, StepApplied
from p2p.wire import setup_hash


FIRST_HASHES = 40
"""How many per-step state hashes game.json lists from step 0 (plus the final one)."""


def play_game(seeds: tuple[str, str], log_path: Path) -> dict:
    """Run the lobby and a whole lockstep game of two in-memory peers (no loss, every seat's
    input chosen by ``engine.bots.choose(state, seat)``), writing seat 0's log to ``log_path``.
    Returns the game facts of game.json."""
    ids = [Identity.from_seed(s.encode()) for s in seeds]
    addrs = [("127.0.0.1", 41000), ("127.0.0.1", 41001)]
    host = Lobby.host(ids[0], edition="classico", seats=2, name="host", endpoint=addrs[0],
                      demo_seed=seeds[0].encode())
    join = Lobby.join(ids[1], endpoint=addrs[1], host_addr=addrs[0], game_id=host.game_id, name="joiner",
                      demo_seed=seeds[1].encode())
    lobbies = {addrs[0]: host, addrs[1]: join}
    while True:
        batch = [(src, dst, raw) for src, lob in lobbies.items() for dst, raw in lob.messages_to_send()]
        if not batch:
            break
        for src, dst, raw in batch:
            lobbies[tuple(dst)].receive_message(raw, src, 0.0)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    writer = LogWriter(log_path, ordered[0].log_header())
    sessions = [lob.start_session(E, log=writer if i == 0 else None) for i, lob in enumerate(ordered)]
    hashes: list[str] = []
    over = None
    for _ in range(1_000_000):
        for s in sessions:
            if s.needs_local_input() is not None:
                s.submit_local_input(E.bots.choose(s.state, s.my_seat), now=0.0)
        moved = False
        for i, s in enumerate(sessions):
            for raw in s.messages_to_send():
                sessions[1 - i].receive_message(raw, 0.0)
                moved = True
        for i, s in enumerate(sessions):
            while (ev := s.next_event()) is not None:
                if i == 0 and isinstance(ev, StepApplied):
                    hashes.append(ev.state_hash.hex())
                if i == 0 and isinstance(ev, GameOver):
                    over = ev
        if over is not None or not moved:
            break
    writer.close()
    if over is None:
        raise RuntimeError(f"game {seeds} did not finish")
    init = E.new_game("classico", 2, {})
    return {"seeds": list(seeds), "edition": "classico", "seats": 2, "options": [],
            "game_id": host.game_id.hex(), "setup": ordered[0].setup_bytes.hex(),
            "setup_hash": setup_hash(ordered[0].setup_bytes).hex(),
            "game_seed": ordered[0].game_seed.hex(),
            "initial_state": E.encode_state(init).hex(),
            "initial_state_hash": E.state_hash(init).hex(),
            "steps": over.steps, "winner": over.winner,
            "first_state_hashes": hashes[:FIRST_HASHES], "final_state_hash": over.final_hash.hex(),
            "log_sha256": hashlib.sha256(log_path.read_bytes()).hexdigest()}


def verify_json(log_path: Path) -> dict:
    """``lanopoli verify --json`` of the log (subprocess), minus the keys ``log`` and
    ``seconds``; the exit code is added as ``exit_code``."""
    proc = subprocess.run([sys.executable, "-m", "ui.cli", "verify", "--json", str(log_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "LANG": "C.UTF-8"})
    out = json.loads(proc.stdout)
    out.pop("log", None)
    out.pop("seconds", None)
    out["exit_code"] = proc.returncode
    return out
