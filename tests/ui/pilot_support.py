"""Helpers for the Pilot tests of ``lanopoli play``'s Textual app (test_app_pilot.py,
test_niente_pilot.py): run an async test without a plugin, wait for a UI condition, read the
action bar and the log. The English-language fixture they use is ``english`` in conftest.py."""

from __future__ import annotations

import asyncio
import functools

from ui.widgets import ActionBar


def sync(fn):
    """Run an async test with asyncio.run (no async plugin needed)."""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        return asyncio.run(fn(*args, **kwargs))
    return run


async def until(pilot, cond, seconds=10.0):
    """Let the app run until ``cond()`` (fails the test after ``seconds``)."""
    for _ in range(int(seconds / 0.05)):
        if cond():
            return
        await pilot.pause(0.05)
    raise AssertionError("condition not reached")


def commands(app):
    """Ids of the commands the current screen's action bar offers."""
    return [c.id for c in app.screen.query_one(ActionBar).commands]


def log_text(app):
    """The current screen's game log, one line per entry."""
    return "\n".join(app.screen.lines)


async def waiting_room_text(driver, label_id: str, bots: bool = False) -> str:
    """The text of the waiting room's label ``label_id`` ("who", "notice") for ``driver`` (a
    ``NetGame`` or a stand-in with its lobby attributes), rendered at 80x24."""
    from textual.app import App
    from textual.widgets import Label

    from ui.screens import WaitingScreen

    class Room(App):
        def on_mount(self) -> None:
            self.push_screen(WaitingScreen(driver, bots=bots))

    app = Room()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        return str(app.screen.query_one(f"#{label_id}", Label).render())
