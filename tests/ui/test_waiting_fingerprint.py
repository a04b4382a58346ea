"""The host's waiting room names the host's key fingerprint under the join code (protocol.md §N3
"Contested game ids"): a joiner whose games list shows this game twice (⚠ + a fingerprint under
each address) asks the host which one, and the host reads it here (RV13-C #1a, H154: no screen
showed a host its own fingerprint). A real loopback game, 80x24 and 120x40, English and Italian."""

from __future__ import annotations

import pytest

from pilot_support import sync, until
from ui.app import LanopoliApp
from ui.backends import CreateRequest, NetLobby, Settings
from ui.i18n import set_language
from ui.screens import WaitingScreen


@pytest.mark.parametrize("size, lang, text", [
    ((80, 24), "en", "yours has the fingerprint"),
    ((120, 40), "it", "la tua ha l'impronta")])
@sync
async def test_the_host_reads_its_fingerprint_in_the_waiting_room(tmp_path, size, lang, text):
    set_language(lang)
    try:
        backend = NetLobby("127.0.0.1", log_dir=None, bot_pace=0)
        app = LanopoliApp(backend=backend, settings=Settings(name="Giulia", path=tmp_path / "p.json"))
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            app.start_driver(backend.create("Giulia", CreateRequest(seats=3, bots=False)), False)
            await until(pilot, lambda: isinstance(app.screen, WaitingScreen) and app.driver.join_code)
            await pilot.pause(0.6)  # one update_view
            fp = app.driver.node.identity.fingerprint
            shown = str(app.screen.query_one("#code").render())
            assert text in shown and fp in shown, shown
            assert app.screen.query_one("#code").region.bottom <= size[1]  # on screen, not cut off
            await app.action_quit()
    finally:
        set_language("en")
