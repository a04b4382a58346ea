"""The yes/no confirmation names the language's own yes key (H101's walk: the Italian UI said
"Sì, esco [y]"): Italian "[s]" and ``s`` answers yes; ``y`` answers yes in both languages; ``n``
and Enter on the focused No never confirm."""

from __future__ import annotations

import pytest
from textual.app import App

from pilot_support import sync
from ui.i18n import set_language
from ui.screens.modal import ConfirmDialog


class _Ask(App):
    answer: object = "none yet"

    def on_mount(self) -> None:
        self.push_screen(ConfirmDialog("?"), lambda yes: setattr(self, "answer", yes))


@pytest.mark.parametrize(("lang", "key", "answer", "label"), [
    ("it", "s", True, "[s]"), ("it", "y", True, "[s]"), ("it", "n", None, "[s]"), ("it", "enter", False, "[s]"),
    ("en", "y", True, "[y]"), ("en", "n", None, "[y]"), ("en", "s", "none yet", "[y]"),
])
def test_the_yes_key_is_the_one_the_button_names(lang, key, answer, label):
    @sync
    async def run():
        set_language(lang)
        try:
            app = _Ask()
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.pause(0.1)
                assert str(app.screen.query_one("#yes").label).endswith(label)
                await pilot.press(key)
                await pilot.pause(0.1)
                assert app.answer == answer
        finally:
            set_language("en")
    run()
