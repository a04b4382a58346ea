"""The games lists show a contested game id as two rows, each marked with its fingerprint, and what a
player sees of them on an 80x24 screen (protocol.md §N3 "Contested game ids": "the list still shows
both, with their fingerprints"); the waiting room tells a joiner the host's advert is gone even while
a clone of its game id stays listed (RV13-C #6).

``Discovery`` lists two adverts of one game id when two keys claim it (another instance name, or a TXT
sent under the host's own name: tests/p2p/test_discovery_forged_txt.py). The lobby and watch lists
(ui/screens/lobby.py, ui/screens/watch.py) keyed their rows by game id, so two adverts of one id raised
textual's ``DuplicateKey`` on the list's refresh: one forged advert took the lobby screen down. Now a
row has no key; ``ui.backends.contest_cells`` marks each contested row with ``⚠`` before the host's
name and ``⚠ <fp>`` under its address, so a player chooses by key. At 80 columns the fingerprint after
the name pushed the address off screen (RV13-C #1, #8): it is under the address now. ``LocalLobby``
stands in for ``NetLobby`` (same ``games()``/``contested()``; ``NetLobby.contested`` is
``Discovery.contested``). Moved here from tests/p2p/test_discovery_list.py (a Pilot test of ui/screens).
"""

from __future__ import annotations

import asyncio

import pytest
from textual.geometry import Region

from p2p.ad_record import GameAd
from p2p.const import PROTOCOL_VERSION
from p2p.identity import fingerprint_of
from ui.app import LanopoliApp
from ui.backends import LocalLobby, Settings, joined_host_key

GID, OTHER_GID = bytes(range(16)), bytes(range(1, 17))
HOST_PK, FORGER_PK, THIRD_PK = b"\x01" * 32, b"\x02" * 32, b"\x03" * 32
HOST_FP, FORGER_FP, THIRD_FP = (fingerprint_of(k) for k in (HOST_PK, FORGER_PK, THIRD_PK))
WIDE = "192.168.100.200"  # the longest IPv4 address a LAN gives, with a 5-digit port


def _ad(gid: bytes, pk: bytes, name: str, port: int = 40000, state: str = "lobby") -> GameAd:
    return GameAd(version=PROTOCOL_VERSION, game_id=gid, edition="classico", seats_taken=1, seats_total=4,
                  state=state, fingerprint=fingerprint_of(pk), address=WIDE, port=port, host_name=name,
                  players=(name, "Marco", "Anna"), public_key=pk, x25519_key=pk[::-1])


HOST, CLONE = _ad(GID, HOST_PK, "Giulia"), _ad(GID, FORGER_PK, "Giulia", 51234)
THIRD = _ad(OTHER_GID, THIRD_PK, "Marco")
ADS = [HOST, CLONE, THIRD]


def _seen(size: tuple[int, int], watch: bool, ads: list) -> tuple[list[list[str]], list[str]]:
    """The list's cells (row by row) and the lines of text the table shows on a ``size`` screen."""
    async def main():
        app = LanopoliApp(backend=LocalLobby(ads), settings=Settings(name="Anna", path=None), watch=watch)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            table = app.screen.query_one("#games")
            cells = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
            lines = [s.text for s in table.render_lines(Region(0, 0, table.size.width, table.size.height))]
            await app.action_quit()
        return cells, lines

    return asyncio.run(main())


@pytest.mark.parametrize("watch", [False, True], ids=["lobby", "watch"])
def test_n3_a_games_list_shows_both_adverts_of_a_contested_game_id_by_fingerprint(watch):
    """§N3 "Contested game ids": two adverts of one game id, two keys: two rows in the lobby list and in
    the watch list (``lanopoli watch``), each with ``⚠`` and its whole fingerprint; the other game's row
    is unmarked."""
    cells, _ = _seen((120, 24), watch, ADS)
    assert len(cells) == 3
    marked = sorted(row[0] for row in cells if row[0].startswith("⚠ "))
    assert marked == ["⚠ Giulia", "⚠ Giulia"]
    wheres = [row[3 if watch else 4] for row in cells]
    assert sorted(w.split("\n")[1] for w in wheres if "\n" in w) == sorted([f"⚠ {HOST_FP}", f"⚠ {FORGER_FP}"])
    assert [row[0] for row in cells if "Marco" in row[0]] == ["Marco"] and f"{WIDE}:40000" in wheres


@pytest.mark.parametrize("watch", [False, True], ids=["lobby", "watch"])
def test_n3_at_80x24_a_contested_row_keeps_the_address_and_the_fingerprint_on_screen(watch):
    """RV13-C #8 (and #1 b): on an 80x24 screen what the player sees of each row holds its whole
    address and, for a contested row, its whole fingerprint (before: the fingerprint after the host's
    name widened the Host column and cut the lobby's Where column to "19")."""
    _, lines = _seen((80, 24), watch, ADS)
    text = "\n".join(lines)
    for ad in ADS:
        assert f"{ad.address}:{ad.port}" in text
    assert f"⚠ {HOST_FP}" in text and f"⚠ {FORGER_FP}" in text
    assert THIRD_FP not in text


def test_n3_local_lobby_contested_is_the_game_id_rule():
    """``LocalLobby.contested``: another ad with the game id and another key (``pk``, else ``fp``);
    the same key twice is not a contest (§N3; ``p2p.ad_listings.claimed_by_another``)."""
    lobby = LocalLobby(ADS)
    assert [lobby.contested(ad) for ad in ADS] == [True, True, False]
    assert not LocalLobby([HOST, HOST]).contested(HOST)


def _room_sees_goodbye(gone: GameAd, stays: list) -> tuple[bool, bool]:
    """Anna joined Giulia's game from the list (her NetGame was given the advert's keys) and waits in
    its room; ``gone`` says goodbye while ``stays`` stay listed: (host_gone before, after)."""
    from textual.app import App

    from ui.net_game import NetGame
    from ui.screens.lobby import WaitingScreen

    driver = NetGame(dict(role="join", name="Anna", game_id=GID, host_addr=(WIDE, 40000),
                          host_keys=(HOST_PK, HOST_PK[::-1])))
    driver.phase = "lobby"
    backend = LocalLobby([gone, *stays])

    class Room(App):
        def on_mount(self) -> None:
            self.backend = backend
            self.push_screen(WaitingScreen(driver, bots=False))

    async def main():
        app = Room()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            before = app.screen.host_gone()
            backend.ads.remove(gone)
            after = app.screen.host_gone()
            app.screen.update_view()  # what the room's 0.5 s redraw shows
            await pilot.pause()
            shown = "The game's advert is gone" in str(app.screen.query_one("#notice").render())
            assert shown == after
            app.exit()
        return before, after

    return asyncio.run(main())


def test_waiting_room_tells_the_host_is_gone_while_a_clone_of_the_game_id_stays():
    """RV13-C #6: the host's advert says goodbye, a clone of its game id under another key stays
    listed: the room says the advert is gone (``WaitingScreen.host_gone`` matches the game id AND the
    host key Anna joined, ``ui.backends.joined_host_key``; it matched the game id alone and the clone
    kept the notice away)."""
    assert _room_sees_goodbye(HOST, [CLONE, THIRD]) == (False, True)


def test_waiting_room_keeps_quiet_while_the_hosts_advert_stays_and_a_clone_goes():
    """The clone saying goodbye is no notice: the advert Anna joined is still listed."""
    assert _room_sees_goodbye(CLONE, [HOST]) == (False, False)


def test_waiting_room_tells_the_host_is_gone_while_a_clone_with_the_hosts_own_key_stays():
    """RV14-A #4: ``pk`` is public: a clone under another name (at its own address) may carry the host's
    key and fingerprint; after the host's goodbye it kept the notice away. Joined from the list, the
    room also matches the address and port Anna joined. A clone naming the host's address too (its
    joins reach the real host) cannot be told from the host's advert: stated in ``host_gone``."""
    from dataclasses import replace

    same_key = replace(CLONE, public_key=HOST_PK, x25519_key=HOST_PK[::-1], fingerprint=HOST_FP)
    assert _room_sees_goodbye(HOST, [same_key, THIRD]) == (False, True)
    assert _room_sees_goodbye(same_key, [HOST]) == (False, False)


def test_joined_host_key_is_the_adverts_pk_else_unknown():
    """``joined_host_key``: the ``pk`` a join from the list was given; None for a driver without it
    (the room then matches the game id alone, as before)."""
    from ui.net_game import NetGame

    assert joined_host_key(NetGame(dict(role="join", name="A", host_addr=(WIDE, 1), host_keys=(HOST_PK, b"x" * 32)))) \
        == HOST_PK
    assert joined_host_key(NetGame(dict(role="join", name="A"))) is None


def test_n3_a_contested_rows_fingerprint_is_drawn_with_16_digits_whatever_the_advert_says():
    """RV14-D: an advert without ``pk`` may carry a ``fp`` of 2..64 hex digits (p2p/ad_record.py); a
    forger's 64-digit one widened the Where column past an 80-column screen. The row shows the 16
    digits a host's waiting room names (protocol.md §N3 'Contested game ids')."""
    from dataclasses import replace

    from ui.backends import contest_cells

    long_fp = replace(CLONE, public_key=None, x25519_key=None, fingerprint="ab" * 32)
    host, where, height = contest_cells(LocalLobby([HOST, long_fp]), long_fp, "Giulia")
    assert height == 2 and where == f"{WIDE}:51234\n⚠ {'ab' * 8}"
