"""A joiner peer for the end-to-end tests whose bot holds its input once, so that a test can act
while the game is provably still running.

``python tests/e2e/held_peer.py --host ADDRESS:PORT --game GAMEID --seed SEED --log-dir DIR
--hold-at K --release FILE`` joins the game by address (``PeerConfig.host_addr``, no mDNS),
plays its seat with ``engine.bots.choose(state, seat, "default")`` through
``PeerConfig.local_input`` and, at its first decision step >= K, prints the progress line
``{"type": "holding", "step": k}`` and answers that step only once FILE exists. Lockstep
(protocol.md §C3): no peer applies step k without our message, so until FILE is created every peer
is at step k or k - 1, never finished. Other progress lines are those of ``lanopoli join
--progress-json`` (protocol.md part L). Exit code 0 when the game ended, 1 when the node
stopped (an ``error`` line is printed).

``--hold-kind KIND`` holds only at a decision of our own of that ``engine.pending`` kind (e.g.
``roll``: a player stalling at its own roll, §C8.10), and ``--holds N`` holds the first N such
steps >= K (each until FILE exists; a step the others moved past is never answered); the line
is then ``{"type": "holding", "step": k, "turn": t, "pos": p, "kind": KIND}`` (``state.turn``,
our ``state.pos``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

import engine
from engine import bots
from p2p.node import NodeError, PeerConfig, run_peer
from ui.progress import progress_printer

#: Seconds between two looks for the release file.
POLL_S = 0.02


def main(argv: list[str] | None = None) -> int:
    """Run the held joiner (module docstring); returns the exit code."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", required=True, help="the host's ADDRESS:PORT")
    p.add_argument("--game", required=True, help="the game id, 32 hex digits")
    p.add_argument("--seed", required=True, help="demo seed of this peer's secrets")
    p.add_argument("--log-dir", type=Path, required=True)
    p.add_argument("--hold-at", type=int, required=True, help="hold the first decision step >= this")
    p.add_argument("--release", type=Path, required=True, help="answer the held step once this file exists")
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--bind", default="127.0.0.1", help="our address (default 127.0.0.1)")
    p.add_argument("--name", default="", help="player name (default: bot-<fingerprint>)")
    p.add_argument("--hold-kind", default=None, help="hold only at our own decision of this pending kind")
    p.add_argument("--holds", type=int, default=1, help="how many steps to hold (default 1)")
    args = p.parse_args(argv)
    addr, port = args.host.rsplit(":", 1)
    emit = progress_printer()
    step = 0  # the step the session is at: one past the last StepApplied
    held = 0

    def observe(ev: Any) -> None:
        nonlocal step
        if type(ev).__name__ == "StepApplied":
            step = ev.step + 1

    async def hold(state: Any, seat: int) -> Any:
        pos = getattr(state, "pos", None)
        line = {"type": "holding", "step": step, "turn": getattr(state, "turn", None),
                "pos": None if pos is None else pos[seat]}
        if args.hold_kind is not None:
            line["kind"] = args.hold_kind
        emit(line)
        while not args.release.exists():
            await asyncio.sleep(POLL_S)
        return bots.choose(state, seat, "default")

    def local_input(state: Any, seat: int) -> Any:
        nonlocal held
        pend = engine.pending(state)
        if held < args.holds and step >= args.hold_at and \
                (args.hold_kind is None or (pend.kind == args.hold_kind and seat in pend.actors)):
            held += 1
            return hold(state, seat)
        return bots.choose(state, seat, "default")

    cfg = PeerConfig(role="join", bind=args.bind, game_id=bytes.fromhex(args.game), host_addr=(addr, int(port)),
                     demo_seed=args.seed.encode("utf-8"), log_dir=args.log_dir, progress=emit,
                     timeout=args.timeout, local_input=local_input, observer=observe, name=args.name)
    try:
        asyncio.run(run_peer(cfg))
    except NodeError as exc:
        emit(exc)  # the error line (ui.progress.progress_json)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
