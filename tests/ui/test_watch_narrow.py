"""``lanopoli watch`` at 80 columns: the list's help line wraps instead of losing its end.

Found by a newcomer's walk (H101): at 80x24 the Italian line showed "... Invio per guardare una
partita (o" and the promise "(ogni mossa verificata)" was cut off.
"""

from __future__ import annotations

import pytest

from pilot_support import sync
from ui.app import LanopoliApp
from ui.backends import LocalLobby, Settings
from ui.i18n import _, set_language


@pytest.mark.parametrize("lang", ["it", "en"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_the_watch_lists_help_line_is_whole_at_every_size(tmp_path, lang, size):
    @sync
    async def run():
        set_language(lang)
        try:
            app = LanopoliApp(backend=LocalLobby([]), settings=Settings(name="Prof", path=tmp_path / "p.json"),
                              watch=True)
            async with app.run_test(size=size) as pilot:
                await pilot.pause()
                label = app.screen.query_one("#watch-help")
                text = _("Live standings, ▶ whose turn it is; Enter watches a game (every move verified).")
                lines = [strip.text.rstrip() for strip in label.render_lines(label.region.reset_offset)]
                assert app.screen.region.contains_region(label.region)
                assert " ".join(line.strip() for line in lines if line.strip()) == text
        finally:
            set_language("en")
    run()
