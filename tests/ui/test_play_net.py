"""NetGame over real loopback sockets and mDNS: the host's human seat (autoplay) plays a whole
game against a bot peer that joined by address (``fill_with_bots`` uses PeerConfig.host_addr);
the UI sees the lobby, the steps and the end, and the log it is given verifies."""

from __future__ import annotations

import asyncio

from p2p.verify import verify_log
from ui.play import CreateRequest, NetLobby


def test_net_game_with_a_bot_peer_reaches_the_end(tmp_path):
    async def run():
        lobby = NetLobby("127.0.0.1", log_dir=tmp_path)
        game = lobby.create("Marco", CreateRequest(seats=2))
        game.human.set_autoplay(True)
        kinds: list[str] = []
        game.listener = kinds.append
        task = asyncio.ensure_future(game.run())
        for _ in range(100):
            if game.join_code:
                break
            await asyncio.sleep(0.05)
        assert game.join_code.startswith("127.0.0.1:")
        await game.fill_with_bots()
        await asyncio.wait_for(task, 120)
        await game.close()
        return game, kinds

    game, kinds = asyncio.run(run())
    assert game.fault is None and game.phase == "over"
    assert set(game.names) == {"Marco", "Bot 1"} and game.seat == game.names.index("Marco")
    assert kinds.count("step") > 10 and kinds[-1] == "over"
    assert game.state is not None and game.log_path is not None
    assert verify_log(game.log_path).ok
