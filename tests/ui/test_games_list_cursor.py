"""The games lists keep the cursor on the listing, not on the row number, and join / watch what is
drawn under it (RV13-C #1, session 13; protocol.md §N3 "Contested game ids").

Since a contested game id is listed as two rows (H145), a goodbye of another advert above them
moved the host's row up while the cursor kept its number: the clone's row came under the cursor,
and Enter read the list again and joined the clone. Now a refresh puts the cursor back on the same
listing (``ui.backends.row_identity``: instance name and key), and ``j`` / ``w`` / Enter take the
row as drawn."""

from __future__ import annotations

import asyncio

from p2p.ad_record import GameAd
from p2p.const import PROTOCOL_VERSION
from ui.app import LanopoliApp
from ui.backends import LocalLobby, Settings, cursor_row, row_identity

GID = bytes(range(1, 17))


def _ad(gid: bytes, fp: str, name: str, state: str = "lobby") -> GameAd:
    return GameAd(version=PROTOCOL_VERSION, game_id=gid, edition="classico", seats_taken=1, seats_total=4,
                  state=state, fingerprint=fp, address="127.0.0.1", port=40000, host_name=name, players=(name,))


DECOY, HOST, CLONE = _ad(bytes(16), "12" * 8, "Zed"), _ad(GID, "ab" * 8, "Giulia"), _ad(GID, "ef" * 8, "Giulia")


def _pick_after_goodbye(tmp_path, watch: bool, refresh: bool):
    """Cursor on the host's row (1 of [decoy, host, clone]); the decoy says goodbye; the list is
    redrawn (``refresh``) or not yet; then join (lobby list) or watch (watch list): what was taken."""
    taken = []

    async def main():
        lobby = LocalLobby([DECOY, HOST, CLONE])
        app = LanopoliApp(backend=lobby, settings=Settings(name="Anna", path=tmp_path / "p.json"), watch=watch)
        async with app.run_test(size=(120, 24)) as pilot:
            await pilot.pause()
            table = app.screen.query_one("#games")
            table.move_cursor(row=1)
            await pilot.pause()
            lobby.ads.remove(DECOY)  # the attacker's goodbye for its decoy
            if refresh:
                app.screen.refresh_games()
                await pilot.pause()
            app.start_driver = lambda drv, bots: taken.append(drv)
            app.start_watch = lambda ad, status: taken.append(ad)
            lobby.join = lambda name, ad: ad
            (app.screen.action_watch if watch else app.screen.action_join)()
            await app.action_quit()

    asyncio.run(main())
    return taken


def test_the_lobby_list_joins_the_game_the_cursor_was_on_after_a_goodbye_above_it(tmp_path):
    assert _pick_after_goodbye(tmp_path, watch=False, refresh=True) == [HOST]


def test_the_lobby_list_joins_the_row_as_drawn_before_its_refresh(tmp_path):
    assert _pick_after_goodbye(tmp_path, watch=False, refresh=False) == [HOST]


def test_the_watch_list_watches_the_game_the_cursor_was_on_after_a_goodbye_above_it(tmp_path):
    assert _pick_after_goodbye(tmp_path, watch=True, refresh=True) == [HOST]


def test_row_identity_tells_two_keys_of_one_game_apart_and_cursor_row_finds_it():
    assert row_identity(HOST) != row_identity(CLONE)
    assert cursor_row([HOST, CLONE], row_identity(CLONE), 0) == 1
    assert cursor_row([HOST], row_identity(CLONE), 5) == 0  # gone: the row clamped
    assert cursor_row([], None, 3) == 0
