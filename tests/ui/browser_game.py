"""The game screen of a pinned local game, for the browser test (test_browser.py): run by the
page's textual-serve as ``python tests/ui/browser_game.py MARKER``; writes MARKER once the game
screen is drawn and the game waits for the player (so the test knows when to take the
screenshot). Italian, four players, the snapshot tests' mid-game state."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_app_snapshots import NAMES, dice, midgame_state  # noqa: E402

from ui.app import LanopoliApp  # noqa: E402
from ui.i18n import set_language  # noqa: E402
from ui.play import LocalGame  # noqa: E402


def main(marker: str) -> None:
    set_language("it")
    game = LocalGame(NAMES, 0, state=midgame_state(), chance=dice((2, 1)), delay=0)
    app = LanopoliApp(driver=game)

    def check() -> None:
        if game.human.deciding and type(app.screen).__name__ == "GameScreen":
            Path(marker).write_text("game screen\n", "utf-8")

    app.call_later(lambda: app.set_interval(0.2, check))
    app.run()


if __name__ == "__main__":
    main(sys.argv[1])
