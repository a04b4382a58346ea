"""The fill-in bots of ``lanopoli play`` keep their keys and their own game log under the host's
log directory (``ui.net_game.bot_dir_of``), so that the host's rejoin can resume them after a
crash (tests/e2e/test_play_bots_resume.py); once the game is over the logs stay and verify, the
keys and ``.resume`` files are gone."""

from __future__ import annotations

import asyncio

from p2p.verify import verify_log
from ui.backends import CreateRequest, NetLobby
from ui.net_game import bot_dir_of, bot_dirs_of


def test_bot_dirs_are_per_game_and_per_key(tmp_path):
    gid, other = bytes(range(16)), bytes(16)
    a, b = bot_dir_of(tmp_path, gid, b"\x01" * 32), bot_dir_of(tmp_path, gid, b"\x02" * 32)
    assert a != b and a.parent == b.parent and a.parent.name == gid.hex()[:16]
    assert bot_dirs_of(tmp_path, gid) == []  # nothing made yet
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    bot_dir_of(tmp_path, other, b"\x01" * 32).mkdir(parents=True)
    assert bot_dirs_of(tmp_path, gid) == [a, b]


def test_a_finished_game_leaves_each_bots_log_and_removes_its_keys(tmp_path):
    async def play():
        game = NetLobby("127.0.0.1", log_dir=tmp_path, bot_pace=0).create("Carla", CreateRequest(seats=3))
        game.human.set_autoplay(True)
        task = asyncio.ensure_future(game.run())
        while not game.join_code:
            await asyncio.sleep(0.05)
        await game.fill_with_bots()
        await asyncio.wait_for(task, 120)
        await game.close()
        return game

    game = asyncio.run(play())
    assert game.phase == "over"
    dirs = bot_dirs_of(tmp_path, game.node.session.setup.game_id)
    assert len(dirs) == 2
    for d in dirs:
        logs = list(d.glob("game-*.log"))
        assert len(logs) == 1 and verify_log(logs[0]).ok
        assert not list(d.glob("*.key")) and not list(d.glob("*.resume"))
