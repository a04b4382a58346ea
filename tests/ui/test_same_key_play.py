"""The Textual host's side of one key directory for two players (H108; session 10's walk): a
player who joins a ``lanopoli play`` host with the host's own player key (p2p lobby event
``SameKeyJoin``, the node's ``SameKeyJoined``) stops with SAME_KEY on its side; the host's waiting
room now says so with the hint ``lanopoli host`` prints (ui.display.fault_hint 'same_key', naming
--config-dir), Italian by default, English with --lang en. Before, the room showed nothing."""

from __future__ import annotations

import pytest

from p2p.lobby_events import SameKeyJoin
from p2p.node_lobby import SAME_KEY_REPORTS
from pilot_support import sync, waiting_room_text
from ui.display import fault_hint
from ui.i18n import set_language
from ui.net_game import NetGame


def _host() -> NetGame:
    """A host's driver (no node started): the lobby's events reach it through ``observe``."""
    return NetGame({"role": "host", "name": "Giulia", "seats": 3})


async def _notice(driver: NetGame) -> str:
    return await waiting_room_text(driver, "notice", bots=True)


@pytest.mark.parametrize("lang, words", [("it", "ha provato a entrare con la tua stessa chiave"),
                                         ("en", "tried to join with your own player key")])
@sync
async def test_the_waiting_room_tells_the_host_to_use_config_dir(lang, words):
    set_language(lang)
    try:
        driver = _host()
        assert await _notice(driver) == ""
        driver.observe(SameKeyJoin(("127.0.0.1", 40001)))
        text = await _notice(driver)
        expected = fault_hint("same_key", "127.0.0.1:40001")  # what `lanopoli host` prints
    finally:
        set_language("en")
    assert words in text and "127.0.0.1:40001" in text and "--config-dir" in text
    assert text == expected


def test_once_per_address_and_a_few_addresses_at_most():
    """As the node's SameKeyJoined (p2p/node_lobby.py): one line per joiner's address, at most
    SAME_KEY_REPORTS, so a player retrying from new ports never floods the room."""
    driver = _host()
    for _ in range(3):
        driver.observe(SameKeyJoin(("127.0.0.1", 40001)))
    assert len(driver.notices) == 1
    for port in range(40002, 40012):
        driver.observe(SameKeyJoin(("127.0.0.1", port)))
    assert len(driver.notices) == SAME_KEY_REPORTS
    assert all("--config-dir" in n for n in driver.notices)
