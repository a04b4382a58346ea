"""The new-game dialog: edition, seats, bots, the rule for a player who drops out, the house
rules and the timed game; answers a ``CreateRequest`` the engine accepts."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Checkbox, Input, Label, Select

import engine
from ui.backends import CreateRequest
from ui.display import seats_error
from ui.i18n import _
from ui.screens.modal import InOrderInput, _Dialog


#: (checkbox id, engine option key) of the house rules (engine/rules/house_rules.py;
#: docs/RULES.md), all off by default like ``lanopoli host``'s flags.
HOUSE_RULES = (("pot", "free_parking_pot"), ("no-auctions", "no_auctions"), ("double-go", "double_go_salary"))


def house_rule_label(key: str) -> str:
    """The checkbox text of a house rule (translated)."""
    return {"free_parking_pot": _("Free-parking pot (taxes and fines go to whoever lands there)"),
            "no_auctions": _("No auctions (a declined property stays with the bank)"),
            "double_go_salary": _("Double salary landing exactly on GO")}[key]


class _Tick(Checkbox, inherit_bindings=False):
    """A checkbox of this dialog: Space ticks it, Enter is left to the dialog (creates), as the
    dialog's hint "Enter: create" says (a plain Checkbox toggles on Enter too, so a newcomer who
    pressed Enter to create un-ticked the house rule just chosen)."""

    BINDINGS = [Binding("space", "toggle_button", show=False)]

    def render(self) -> Any:
        """The box shows "X" only when ticked (Textual draws an "X" either way, told apart by
        colour alone: in session 11's walk every house rule read "▐X▌" although all were off)."""
        self.BUTTON_INNER = "X" if self.value else " "
        return super().render()


class CreateDialog(_Dialog):
    """A new game: edition, seats, bots for the empty seats, and the lobby options of ``lanopoli
    host`` (ui/peer.py ``game_options``): the rule for a player who drops out (``on_drop`` bot /
    bankrupt / off, after ``drop_timeout`` s of silence, protocol.md §C7.1), the house rules (all off
    by default) and the timed game (minutes; editions with ``timed_game`` only). Bad input shows
    an error and keeps the dialog. Dismisses a CreateRequest or None."""

    BINDINGS = [Binding("enter", "create", show=False)]

    def compose(self) -> ComposeResult:
        """Edition, players, what happens when a player drops out, house rules, timed game, and
        Create / Cancel."""
        from p2p.const import MAX_DROP_TIMEOUT, MIN_DROP_TIMEOUT

        # Not a Tab stop itself (an invisible one between Cancel and Edition); it still scrolls
        # to the focused field when the screen is short.
        with VerticalScroll(classes="dialog create", can_focus=False):
            yield Label(_("New game"), classes="title")
            with Horizontal(classes="row"):
                yield Label(_("Edition"), classes="prompt")
                yield Select([(ed.title, key) for key, ed in engine.EDITIONS.items()], value="classico",
                             allow_blank=False, id="edition", compact=True)
                yield Label(_("Players"), classes="prompt")
                yield Select([(str(n), n) for n in range(2, 9)], value=4, allow_blank=False, id="seats",
                             compact=True, classes="short")
            yield _Tick(_("Bots take the empty seats when you press Start"), value=True, id="bots", compact=True)
            with Horizontal(classes="row"):
                yield Label(_("If a player drops out"), classes="prompt")
                yield Select([(_("a bot plays for them"), "bot"), (_("they go bankrupt"), "bankrupt"),
                              (_("the game waits for them"), "off")], value="bot", allow_blank=False, id="on_drop",
                             compact=True)
            with Horizontal(classes="row"):
                yield Label(_("after seconds of silence ({low}–{high})").format(low=MIN_DROP_TIMEOUT, high=MAX_DROP_TIMEOUT),
                            classes="prompt")
                yield InOrderInput("30", id="drop_timeout", type="integer", compact=True)
            yield Label(_("House rules (off unless ticked)"), classes="subtitle")
            for wid, key in HOUSE_RULES:
                yield _Tick(house_rule_label(key), value=False, id=wid, compact=True)
            with Horizontal(classes="row", id="timed-row"):
                yield Label(_("Timed game, minutes (empty: no limit)"), classes="prompt")
                yield InOrderInput("", placeholder=_("off"), id="timed", type="number", compact=True)
            yield Label("", id="error", classes="error")
            yield Label(_("Enter: create · Tab / Shift+Tab: the other fields · Esc: cancel"), classes="note")
            with Horizontal(classes="buttons"):
                yield Button(_("Create"), id="create-game", variant="primary", compact=True)
                yield Button(_("Cancel"), id="cancel", compact=True)

    def on_mount(self) -> None:
        """Hide the error line, show the timed-game field if the edition has one, focus Create."""
        self.query_one("#error").display = False
        self._show_timed()
        # Enter creates at once with what is shown; Shift+Tab walks back to the fields.
        self.query_one("#create-game", Button).focus()

    def action_create(self) -> None:
        """Enter on a checkbox (``_Tick``): create the game with what is shown."""
        self._create()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in a field: create the game with what is shown."""
        self._create()

    def on_select_changed(self, event: Select.Changed) -> None:
        """Another edition: show or hide its timed-game field."""
        if event.select.id == "edition":
            self._show_timed()

    def _show_timed(self) -> None:
        """The timed game only for editions that have one (editrice-giochi, fabrianopoli)."""
        ed = engine.EDITIONS[str(self.query_one("#edition", Select).value)]
        self.query_one("#timed-row").display = bool(ed.timed_game)

    def request(self) -> CreateRequest:
        """The CreateRequest of the widgets. Raises ValueError with a translated reason."""
        from p2p.const import MAX_DROP_TIMEOUT, MIN_DROP_TIMEOUT
        from p2p.timed_clock import timed_options

        edition = str(self.query_one("#edition", Select).value)
        seats = int(self.query_one("#seats", Select).value)
        try:
            drop = int(self.query_one("#drop_timeout", Input).value.strip() or "30")
        except ValueError:
            drop = -1
        if not MIN_DROP_TIMEOUT <= drop <= MAX_DROP_TIMEOUT:
            raise ValueError(_("The seconds before a silent player is dropped must be between {low} and {high}.")
                             .format(low=MIN_DROP_TIMEOUT, high=MAX_DROP_TIMEOUT))
        options: dict = {key: True for wid, key in HOUSE_RULES if self.query_one("#" + wid, Checkbox).value}
        timed = self.query_one("#timed", Input).value.strip()
        if timed and engine.EDITIONS[edition].timed_game:
            try:
                options.update(timed_options(float(timed)))
            except ValueError:
                raise ValueError(_("The timed game takes more than 0 and at most 1440 minutes.")) from None
        ed = engine.EDITIONS[edition]
        if (wrong := seats_error(edition, ed, seats)) is not None:
            raise ValueError(wrong)
        req = CreateRequest(edition=edition, seats=seats, bots=self.query_one("#bots", Checkbox).value,
                            options=options, on_drop=str(self.query_one("#on_drop", Select).value), drop_timeout=drop)
        try:
            engine.new_game(edition, seats, req.engine_options() or None)
        except ValueError as e:  # the engine's own check, as ``lanopoli host`` does
            raise ValueError(str(e)) from None
        return req

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Create the game, or close without one."""
        if event.button.id != "create-game":
            self.dismiss(None)
            return
        self._create()

    def _create(self) -> None:
        try:
            req = self.request()
        except ValueError as e:
            error = self.query_one("#error", Label)
            error.update(str(e))
            error.display = True
            return
        self.dismiss(req)
