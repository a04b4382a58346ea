"""The games list shows a contested game id as two rows, each marked with its fingerprint
(protocol.md §N3 "Contested game ids": "the list still shows both, with their fingerprints").

``Discovery`` lists two adverts of one game id when two keys claim it (another instance name, or
a TXT sent under the host's own name: tests/p2p/test_discovery_forged_txt.py). The lobby and
watch lists (ui/screens/lobby.py, ui/screens/watch.py) keyed their rows by game id, so two
adverts of one id raised textual's ``DuplicateKey`` on the list's refresh: one forged advert took
the lobby screen down. Now a row has no key; ``backend.contested(ad)`` marks each contested row
with ``⚠`` and the advert's fingerprint, so a player chooses by key. ``LocalLobby`` stands in for
``NetLobby`` (same ``games()``/``contested()``; ``NetLobby.contested`` is ``Discovery.contested``).
"""

from __future__ import annotations

import asyncio

from p2p.ad_record import GameAd
from p2p.const import PROTOCOL_VERSION
from ui.app import LanopoliApp
from ui.backends import LocalLobby, Settings

GID, OTHER_GID = bytes(range(16)), bytes(range(1, 17))
HOST_FP, FORGER_FP, THIRD_FP = "ab" * 8, "ef" * 8, "12" * 8


def _ad(gid: bytes, fp: str, name: str, state: str = "lobby") -> GameAd:
    return GameAd(version=PROTOCOL_VERSION, game_id=gid, edition="classico", seats_taken=1, seats_total=4,
                  state=state, fingerprint=fp, address="127.0.0.1", port=40000, host_name=name, players=(name,))


ADS = [_ad(GID, HOST_FP, "Giulia"), _ad(GID, FORGER_FP, "Giulia"), _ad(OTHER_GID, THIRD_FP, "Marco")]


def _rows(app: LanopoliApp) -> list[list[str]]:
    table = app.screen.query_one("#games")
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def _check_list(tmp_path, watch: bool) -> None:
    async def main():
        app = LanopoliApp(backend=LocalLobby(ADS), settings=Settings(name="Anna", path=tmp_path / "play.json"),
                          watch=watch)
        async with app.run_test(size=(120, 24)) as pilot:
            await pilot.pause()
            hosts = sorted(row[0] for row in _rows(app))
            await app.action_quit()
        return hosts

    hosts = asyncio.run(main())
    assert len(hosts) == 3
    assert sum(f"⚠ {HOST_FP}" in h for h in hosts) == 1 and sum(f"⚠ {FORGER_FP}" in h for h in hosts) == 1
    assert [h for h in hosts if "Marco" in h] == ["Marco"]  # an uncontested game: no mark


def test_the_lobby_list_shows_both_adverts_of_a_contested_game_id_by_fingerprint(tmp_path):
    """§N3 "Contested game ids": two adverts of one game id, two keys: two rows in the lobby
    list, each with ``⚠`` and its fingerprint; the other game's row is unmarked."""
    _check_list(tmp_path, watch=False)


def test_the_watch_list_shows_both_adverts_of_a_contested_game_id_by_fingerprint(tmp_path):
    """§N3 "Contested game ids", the watch list (``lanopoli watch``): as the lobby list."""
    _check_list(tmp_path, watch=True)


def test_local_lobby_contested_is_the_game_id_rule():
    """``LocalLobby.contested``: another ad with the game id and another key (``pk``, else ``fp``);
    the same key twice is not a contest (§N3)."""
    lobby = LocalLobby(ADS)
    assert [lobby.contested(ad) for ad in ADS] == [True, True, False]
    assert not LocalLobby([ADS[0], ADS[0]]).contested(ADS[0])
