"""The end: final standings and how they were computed, or why the game stopped (a fault or a
detected cheat, with the culprit and the evidence file); where the game log is and the command
that verifies it."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Label

import engine
from engine.rules.endgame import net_worth
from ui.i18n import _, format_money

#: Plain words for the fault codes of ui.play.Fault (NodeError codes).
def fault_text(code: str) -> str:
    """A translated sentence for a fault code."""
    return {
        "desync": _("A player's program computed a different game state: the game cannot go on."),
        "equivocation": _("A player sent two different signed moves for the same step: that is cheating."),
        "cheat": _("A player broke the rules of the protocol (a dice reveal that does not check out): that is cheating."),
        "stalled": _("A player stopped answering: the game cannot go on."),
        "lobby": _("The game could not start."),
        "not_found": _("The game was not found on the network."),
        "timeout": _("The game took too long."),
        "beacon": _("The dice supply ran out."),
    }.get(code, _("The game stopped because of an error."))


def standings_lines(state: Any, names: tuple) -> list[str]:
    """One line per seat, best first: place, name, net worth and what it is made of."""
    out = []
    for place, (seat, worth) in enumerate(engine.standings(state), 1):
        name = names[seat] if seat < len(names) else str(seat)
        if state.out[seat]:
            out.append(_("{place}. {name} — bankrupt").format(place=place, name=name))
            continue
        props = worth - state.cash[seat]
        out.append(_("{place}. {name} — {worth} (cash {cash} + properties and buildings {props})").format(
            place=place, name=name, worth=format_money(net_worth(state, seat)), cash=format_money(state.cash[seat]),
            props=format_money(props)))
    return out


class EndScreen(Screen):
    """Shown once the driver is "over" or "failed"; q quits."""

    BINDINGS = [Binding("q", "app.quit", "quit")]

    def __init__(self, driver: Any) -> None:
        super().__init__()
        self.driver = driver

    def compose(self) -> ComposeResult:
        d = self.driver
        with VerticalScroll(id="end"):
            if d.fault is None:
                yield Label(_("Game over"), classes="title", id="end-title")
                winner = engine.winner(d.state) if d.state is not None else None
                if winner is not None:
                    yield Label(_("{name} wins!").format(name=d.names[winner]), classes="subtitle", id="winner")
            else:
                f = d.fault
                yield Label(_("The game stopped"), classes="title error", id="end-title")
                yield Label(fault_text(f.code), id="fault")
                if f.seat is not None and f.seat < len(d.names):
                    yield Label(_("Culprit: {name} (seat {seat}), at step {step}.").format(
                        name=d.names[f.seat], seat=f.seat + 1, step=f.step), id="culprit")
                if f.evidence is not None:
                    yield Label(_("The signed evidence was saved in: {path}").format(path=f.evidence), id="evidence")
                yield Label(_("Detail: {message}").format(message=f.message), classes="note")
            if d.state is not None and d.names:
                yield Label(_("Final standings:") if d.fault is None else _("Standings when the game stopped:"),
                            classes="subtitle")
                for line in standings_lines(d.state, d.names):
                    yield Label("  " + line, classes="standing")
                yield Label(_("How: the last player left wins; the others are ranked by net worth = cash "
                              "+ price of each property (less the mortgage if mortgaged) + the cost of its buildings."),
                            classes="note")
            if d.log_path is not None:
                yield Label(_("Game log: {path}").format(path=d.log_path), id="log")
                yield Label(_("Check it: lanopoli verify {path}").format(path=d.log_path), id="verify")
            else:
                yield Label(_("This game was played on this computer only: there is no network log."), classes="note")
            yield Label(_("Press q to quit."))


__all__ = ["EndScreen", "fault_text", "standings_lines"]
