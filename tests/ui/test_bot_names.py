"""A network game's bots are numbered in seat order (issue 11, session 3 leftover: "Bot 1/2/3"
came out in start order, while the setup seats players by public key, protocol.md §C2.3)."""

from __future__ import annotations

import asyncio

from hypothesis import given, strategies as st

from ui.backends import CreateRequest, NetLobby
from ui.play import bot_names


@given(st.lists(st.binary(min_size=32, max_size=32), min_size=1, max_size=7, unique=True))
def test_bot_numbers_rise_with_the_seats_their_keys_get(keys):
    names = bot_names(keys)
    seated = sorted(zip(keys, names))  # the setup's seat order: public key ascending
    assert [name for _, name in seated] == [f"Bot {i}" for i in range(1, len(keys) + 1)]


async def _until(cond, seconds: float = 20.0) -> None:
    """Sleep until ``cond()`` holds or ``seconds`` pass (the asserts after it then say what failed)."""
    for _ in range(int(seconds / 0.05)):
        if cond():
            return
        await asyncio.sleep(0.05)


def test_a_host_with_three_bots_sees_them_in_seat_order(tmp_path):
    """Real loopback peers: a host fills three seats with bots; in the started game's names
    (seat order) the bots read Bot 1, Bot 2, Bot 3 from the top, wherever the host sits."""

    async def run():
        lobby = NetLobby("127.0.0.1", log_dir=tmp_path, bot_pace=0)
        game = lobby.create("Marco", CreateRequest(seats=4))
        game.human.set_autoplay(True)
        task = asyncio.ensure_future(game.run())
        try:
            await _until(lambda: game.join_code)
            await game.fill_with_bots()
            await _until(lambda: game.phase in ("playing", "over", "failed") and len(game.names) == 4)
            return game.names, game.fault
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await game.close()

    names, fault = asyncio.run(run())
    assert fault is None
    assert [n for n in names if n != "Marco"] == ["Bot 1", "Bot 2", "Bot 3"] and "Marco" in names
