"""The waiting room shows who the host removed for not confirming the setup (protocol.md §C2.2
step 7, issue 10): Italian by default, English on request."""

from __future__ import annotations

from types import SimpleNamespace

from p2p.admission import PlayerRemoved
from pilot_support import sync, waiting_room_text
from ui import i18n
from ui.net_game import NetGame


def _driver_after_removal() -> NetGame:
    """A host's driver that saw the lobby's PlayerRemoved event for "Fantasma"."""
    d = NetGame({"role": "host", "name": "Giulia", "seats": 3})
    d.observe(PlayerRemoved("Fantasma", "00" * 8))
    return d


def test_the_driver_keeps_the_names_of_removed_players():
    assert _driver_after_removal().lobby_removed == ("Fantasma",)


async def _who(driver) -> str:
    return await waiting_room_text(driver, "who")


@sync
async def test_the_waiting_room_shows_a_removed_player_in_italian_and_english():
    driver = SimpleNamespace(seats_total=3, lobby_names=("Giulia",), lobby_removed=("Fantasma",), join_code="",
                             chat_lines=())
    before = i18n.current_language()
    try:
        i18n.set_language("it")
        assert "Fantasma — rimosso: non ha confermato" in await _who(driver)
        i18n.set_language("en")
        assert "Fantasma — removed: did not confirm" in await _who(driver)
    finally:
        i18n.set_language(before)
