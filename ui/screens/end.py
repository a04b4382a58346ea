"""The end: final standings and how they were computed, why there is no winner when the game was
abandoned (protocol.md §C8.7), or why the game stopped (a fault or a detected cheat, with the
culprit and the evidence file); where the game log is and the command that verifies it."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Label

import engine
from engine.observation import time_expired as expired
from ui.display import abandoned_text, fault_hint, fault_sentence, winner_text
from ui.i18n import _, format_money

#: Plain words for the fault codes of ui.play.Fault (NodeError codes): ui.display.fault_sentence.
fault_text = fault_sentence


def ending(state: Any) -> str:
    """How the game was decided: "last" (one player left: classico's "l'ultimo giocatore
    rimasto"), "timed" (the agreed time ran out: the richest wins, engine/rules/timed.py),
    "all_owned" (niente-e-come-sembra's "FINE DEL GIOCO": every property owned, most money
    wins) or "running" (it stopped before its end)."""
    if not engine.is_terminal(state):
        return "running"
    if sum(1 for o in state.out if not o) <= 1:
        return "last"
    if expired(state):
        return "timed"
    if state.ed.end_when_all_owned:
        return "all_owned"
    return "last"


def standings_lines(state: Any, names: tuple) -> list[str]:
    """One line per seat in the order of ``engine.standings`` (best first; the engine decides
    the order, bankrupt players included): place, name and the figures the edition's rule ranks
    by — cash alone where most money wins (niente-e-come-sembra, whichever way its game ended),
    else net worth and what it is made of."""
    out = []
    # niente-e-come-sembra counts money alone once over, whichever way it ended
    # (engine.rules.endgame.net_worth): a last player left shows cash too, never a "properties
    # €0" sum that its properties contradict.
    cash_only = state.ed.end_when_all_owned and engine.is_terminal(state)
    for place, (seat, worth) in enumerate(engine.standings(state), 1):
        name = names[seat] if seat < len(names) else str(seat + 1)
        if state.out[seat]:
            out.append(_("{place}. {name} — bankrupt").format(place=place, name=name))
        elif cash_only:
            out.append(_("{place}. {name} — {cash} in cash").format(
                place=place, name=name, cash=format_money(state.cash[seat])))
        else:
            out.append(_("{place}. {name} — {worth} (cash {cash} + properties and buildings {props})").format(
                place=place, name=name, worth=format_money(worth), cash=format_money(state.cash[seat]),
                props=format_money(worth - state.cash[seat])))
    return out


def rule_text(state: Any) -> str:
    """How the winner and the order were decided, in this edition's own words."""
    how = ending(state)
    if how == "all_owned":
        return _("How: every property was owned, so the game ended; the bank paid each player the rent of "
                 "their properties, and the player with the most money wins (a tie goes to the earlier seat). "
                 "Properties and buildings do not count.")
    pct = state.ed.worth_building_pct
    # A mortgaged property counts its price less its printed mortgage value (engine.rules.endgame
    # .net_worth), not "half": editrice-giochi's companies cost €375 and mortgage for €188, so
    # they count €187 (issue 11: "half" read as €187,50 or €188).
    worth = _("net worth = cash + price of each property (less its mortgage value if mortgaged) + what the "
              "buildings cost") \
        if pct == 100 else _("net worth = cash + price of each property (less its mortgage value if mortgaged) + "
                             "the buildings at {pct}% of their cost").format(pct=pct)
    if how == "timed":
        # Ties as engine.rules.timed.timed_winner breaks them.
        return _("How: the agreed time ran out, and the richest player wins (a tie goes to more cash, then to the "
                 "first in turn order after the last turn); {worth}.").format(worth=worth)
    if how == "last":
        return _("How: the last player left in the game wins; the others follow in the order they went "
                 "bankrupt, the last one out first.")
    return _("The players still in are ranked by {worth}; those who went bankrupt follow, the last one "
             "out first.").format(worth=worth)


class EndScreen(Screen):
    """Shown once the driver is "over" or "failed"; q quits. A spectator's q (or Escape) goes
    back to the list of games it opened this one from (``LanopoliApp.leave_spectator``)."""

    BINDINGS = [Binding("q", "leave", "quit"), Binding("escape", "back", "back", show=False)]

    def __init__(self, driver: Any) -> None:
        super().__init__()
        self.driver = driver

    def compose(self) -> ComposeResult:
        """The winner (or the fault and whom it blames), the final standings, where the log is."""
        d = self.driver
        with VerticalScroll(id="end"):
            if d.fault is None:
                yield Label(_("Game over"), classes="title", id="end-title")
                abandoned = getattr(d, "abandoned", None)
                winner = engine.winner(d.state) if d.state is not None else None
                if abandoned:
                    text = abandoned_text(abandoned, d.names, getattr(d, "seat", -1))
                    yield Label(text, classes="subtitle", id="abandoned")
                elif winner is not None:
                    yield Label(_("{name} wins!").format(name=d.names[winner]), classes="subtitle", id="winner")
            else:
                f = d.fault
                yield Label(_("The game stopped"), classes="title error", id="end-title")
                yield Label(fault_text(f.code), id="fault")
                hint = fault_hint(f.code, f.message)
                if hint is not None:
                    yield Label(hint, id="fault-hint")
                if f.seat is not None and f.seat < len(d.names):
                    yield Label(_("Culprit: {name} (seat {seat}), at step {step}.").format(
                        name=d.names[f.seat], seat=f.seat + 1, step=f.step), id="culprit")
                if f.evidence is not None:
                    yield Label(_("The signed evidence was saved in: {path}").format(path=f.evidence), id="evidence")
                yield Label(_("Technical detail (in English, for a bug report): {message}").format(message=f.message),
                            classes="note")
            if d.state is not None and d.names:
                stopped = d.fault is not None or getattr(d, "abandoned", None)
                yield Label(_("Standings when the game stopped:") if stopped else _("Final standings:"),
                            classes="subtitle")
                for line in standings_lines(d.state, d.names):
                    yield Label("  " + line, classes="standing")
                yield Label(rule_text(d.state), classes="note", id="rule")
            if getattr(d, "spectator", False):
                yield Label(_("You watched this game: every move was checked as lanopoli verify does."),
                            classes="note")
            elif d.log_path is not None:
                yield Label(_("Game log: {path}").format(path=d.log_path), id="log")
                yield Label(_("Check it: lanopoli verify {path}").format(path=d.log_path), id="verify")
            else:
                yield Label(_("This game was played on this computer only: there is no network log."), classes="note")
            back = getattr(d, "spectator", False) and getattr(self.app, "list_below", lambda: False)()
            yield Label(_("Press q (or Esc) to go back to the list of games.") if back else _("Press q to quit."),
                        id="end-keys")

    async def action_leave(self) -> None:
        """q: quit; a spectator goes back to the list of games (or quits without one)."""
        if getattr(self.driver, "spectator", False):
            self.app.leave_spectator(self.driver)
        else:
            await self.app.action_quit()

    def action_back(self) -> None:
        """Escape: a spectator's, as q."""
        if getattr(self.driver, "spectator", False):
            self.app.leave_spectator(self.driver)


__all__ = ["EndScreen", "ending", "fault_text", "rule_text", "standings_lines"]
