"""Pilot test of the turn-skip key of ``lanopoli play``'s game screen (protocol.md §C8.10, part
U): J asks the driver to vote that the seats the game waits for let their turn pass, the bottom
line shows the votes held ("1/2 to skip Giulia's turn"), and a skipped turn shows in the log.
The network side (votes, certificate, the skipped step) is tested in tests/p2p/test_turn_skip*.py;
here a LocalGame stands in for the network driver."""

from __future__ import annotations

import pytest

from engine.testing import forced_chance, scenario
from p2p.turn_skip import Tally
from pilot_support import commands, log_text, sync, until
from ui.app import LanopoliApp
from ui.play import LocalGame, SeatChanged
from ui.screens import GameScreen

pytestmark = pytest.mark.usefixtures("english")


class SkipVotingGame(LocalGame):
    """A local game whose J key behaves as a network game's: the first J casts our vote (the
    tally shows 1 of Q = 2), the second completes the quorum (the other voter) and the
    skipped turn reaches the log as the network driver reports it (SeatChanged "skipped")."""

    def __init__(self) -> None:
        super().__init__(("Marco", "Giulia", "Bruno"), 0, state=scenario(3),
                         chance=lambda state, k: forced_chance(state, dice=(1, 2)), delay=0)
        self.votes: list[tuple[int, ...]] = []
        self._tallies: list = []

    def skip_turn(self) -> tuple[int, ...]:
        self.votes.append((1,))
        if len(self.votes) == 1:
            self._tallies = [Tally(7, 1, 1, 2, True)]
        else:
            self._tallies = []
            self._new_events.append(SeatChanged(1, 7, "skipped"))
            self._notify("step")
        return (1,)

    def skip_tallies(self) -> list:
        return self._tallies


@sync
async def test_capital_j_votes_to_skip_and_the_status_line_and_log_show_it():
    game = SkipVotingGame()
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameScreen) and "roll" in commands(app))
        assert "to skip" not in app.screen.footer_text()
        await pilot.press("J")
        await until(pilot, lambda: game.votes == [(1,)])
        assert "1/2 to skip Giulia's turn" in app.screen.footer_text()
        await pilot.press("j")  # the lower-case key is the drop vote, not this one
        assert game.votes == [(1,)]
        await pilot.press("J")
        await until(pilot, lambda: "Giulia's turn was skipped by a majority vote" in log_text(app))
        assert "to skip" not in app.screen.footer_text()


def test_the_italian_catalog_has_the_skip_lines():
    from ui.i18n import _, set_language

    set_language("it")
    assert _("{votes}/{quorum} to skip {name}'s turn").format(votes=2, quorum=3, name="Bruno") == \
        "2/3 per saltare il turno di Bruno"
    assert _("{name}'s turn was skipped by a majority vote").format(name="Bruno") == \
        "Turno di Bruno saltato per voto della maggioranza"
