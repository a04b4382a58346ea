"""The host side of ``lanopoli play`` without the screen, for the end-to-end tests: the same
lobby backend and driver the app uses (``ui.backends.NetLobby``, ``ui.net_game.NetGame``), the
human's seat on autoplay.

``python tests/e2e/play_host_peer.py host --log-dir DIR --config-dir KEYS --seats N --humans H
--edition E --timed MIN --pace S`` creates a game on 127.0.0.1 as "Carla", prints ``{"type": "lobby",
"game_id": hex}``, waits until H players sit (Carla included), fills the other seats with bots
(``NetGame.fill_with_bots``, as pressing Start does) and plays; every applied step prints
``{"type": "step", "step": n}``.

``python tests/e2e/play_host_peer.py rejoin --log-dir DIR --config-dir KEYS --pace S`` is
Carla's ``lanopoli play`` after a restart: Enter on "your game" (``NetLobby.mine`` then
``NetLobby.rejoin``), then plays on.

Both end with ``{"type": "end", "phase": ..., "abandoned": ..., "winner": seat or None,
"fault": code or None}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

import engine
from p2p.identity import Identity
from p2p.timed_clock import timed_options
from ui.backends import CreateRequest, NetLobby


def say(**msg) -> None:
    print(json.dumps(msg), flush=True)


async def play(args: argparse.Namespace) -> int:
    lobby = NetLobby("127.0.0.1", log_dir=Path(args.log_dir), identity=Identity.load_or_create(args.config_dir),
                     bot_pace=0.0)
    if args.mode == "host":
        req = CreateRequest(edition=args.edition, seats=args.seats, options=timed_options(args.timed))
        game = lobby.create("Carla", req)
    else:
        mine = lobby.mine()
        say(type="mine", games=len(mine))
        game = lobby.rejoin("Carla", mine[0])
    game.human.pace = args.pace
    game.human.set_autoplay(True)
    filled = False
    last = -1

    def listener(kind: str) -> None:
        nonlocal filled, last
        node = game.node
        if kind == "lobby" and args.mode == "host" and node is not None and node.lobby is not None and last < 0:
            last = 0
            say(type="lobby", game_id=node.lobby.game_id.hex())
        if kind == "lobby" and args.mode == "host" and not filled and len(game.lobby_names) >= args.humans \
                and game.can_fill:
            filled = True
            asyncio.ensure_future(game.fill_with_bots())
        if kind == "step" and node is not None and node.session is not None and node.step != last:
            last = node.step
            say(type="step", step=node.step)

    game.listener = listener
    try:
        await game.run()
    finally:
        await game.close()
    winner = engine.winner(game.state) if game.state is not None and engine.is_terminal(game.state) else None
    say(type="end", phase=game.phase, abandoned=game.abandoned, winner=winner,
        fault=None if game.fault is None else game.fault.code)
    return 0 if game.phase == "over" else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mode", choices=("host", "rejoin"))
    p.add_argument("--log-dir", required=True)
    p.add_argument("--config-dir", required=True)
    p.add_argument("--seats", type=int, default=4)
    p.add_argument("--humans", type=int, default=2)
    p.add_argument("--edition", default="editrice-giochi")  # has the timed game
    p.add_argument("--timed", type=float, default=1.0)
    p.add_argument("--pace", type=float, default=0.0)
    return asyncio.run(play(p.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
