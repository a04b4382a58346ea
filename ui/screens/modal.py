"""The base of every modal dialog (Esc cancels) and the yes/no confirmation, which the other
dialogs ask before something that cannot be undone. The dialogs themselves: ``ui/screens/dialogs.py``
(and the files it gathers), ``ui/screens/niente_dialogs.py``."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.segment import Segment
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Key
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widgets import Button, Checkbox, Input, Label, OptionList, SelectionList
from textual.widgets.option_list import OptionDoesNotExist

from ui.i18n import _


class TickList(SelectionList):
    """A SelectionList whose box shows "X" only on a ticked entry: Textual draws "▐X▌" before
    every entry and tells ticked ones by colour alone (session 11's walk: the trade dialog read
    "▐X▌ Viale Vesuvio" with nothing chosen; a monochrome terminal shows no difference)."""

    def render_line(self, y: int) -> Strip:
        """The line as SelectionList draws it, with an empty box when the entry is not ticked."""
        strip = super().render_line(y)
        try:
            option = self.get_option_at_index(self.scroll_offset[1] + y)
        except OptionDoesNotExist:
            return strip
        segments = list(strip)
        if option.value in self.selected or len(segments) < 2 or segments[1].text != Checkbox.BUTTON_INNER:
            return strip
        segments[1] = Segment(" " * len(segments[1].text), segments[1].style)
        return Strip(segments, strip.cell_length)


class InOrderInput(Input):
    """An ``Input`` whose editing keys act in the order typed. Textual (8.2) runs an Input's
    Backspace, Delete, arrows, Home and End as bindings, which the App checks once the key has
    bubbled back up from the Input, after the Input has already inserted the characters queued
    behind it: "Backspace Backspace 5 0" typed while the app was busy (a redraw, bots bidding)
    left "" instead of "50" (session 11's walk, the auction's bid box in tmux). These keys are
    handled here, in the Input's own queue."""

    #: key -> Input action method (textual.widgets.Input.BINDINGS).
    KEYS_IN_ORDER = {"backspace": "action_delete_left", "delete": "action_delete_right",
                     "left": "action_cursor_left", "right": "action_cursor_right",
                     "home": "action_home", "end": "action_end"}

    async def _on_key(self, event: Key) -> None:
        action = self.KEYS_IN_ORDER.get(event.key)
        if action is None:
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        getattr(self, action)()


class _Dialog(ModalScreen):
    """Escape cancels (dismiss None). Keys that reach the dialog before its widgets exist act in
    it, in order: Textual hands a key to the screen itself while nothing in it has the focus, so
    a dialog opened while keys were queued (a click on a command, then typing at once) lost them.
    They wait here until the widgets are composed, then go to the widget that got the focus (the
    box of a bid, a chat line), ahead of any key typed after. The game screen's keys are priority
    bindings, so the key that opens a dialog opens it before the next key is routed
    (``ui.screens.game``): "o 1 2 0 Enter" typed at once bids €120 (session 12's walk)."""

    BINDINGS = [Binding("escape", "cancel", _("Cancel"))]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Keys handed to this screen before its widgets were composed; None once they are.
        self._early_keys: list[Key] | None = []

    def _forward_event(self, event: Any) -> None:
        """Textual (8.2): the app hands a key here when no widget of the screen has the focus;
        before the widgets exist, keep it for :meth:`_compose` to hand on."""
        if self._early_keys is not None and isinstance(event, Key):
            self._early_keys.append(event)
            return
        super()._forward_event(event)

    async def _compose(self) -> None:
        """Compose as Textual does (which focuses the first focusable widget), then hand the keys
        kept meanwhile to the focused widget (or the screen), in the same step, so that a key the
        app hands to the focused widget afterwards comes after them."""
        await super()._compose()
        early, self._early_keys = self._early_keys or [], None
        target = self.focused or self
        for event in early:
            target._forward_event(event)  # as the app hands a key to the focused widget

    def action_cancel(self) -> None:
        """Esc: close the dialog with no answer (None)."""
        self.dismiss(None)


class ChoiceDialog(_Dialog):
    """One of ``self.choices`` (the actions of ``legal`` of the kinds the subclass offers) from an
    ``OptionList`` whose option ids are their indices: Enter dismisses the chosen action; the
    Cancel button, like Esc, dismisses None. ``state``: the engine state the labels read."""

    #: The action classes offered (a subclass sets them, or overrides ``offered``).
    kinds: tuple[type, ...] = ()

    def __init__(self, state: Any, legal: list) -> None:
        super().__init__()
        self.state = state
        self.choices: list = [a for a in legal if isinstance(a, self.offered(state))]

    def offered(self, state: Any) -> tuple[type, ...]:
        """The action classes this dialog offers in ``state`` (default: ``kinds``)."""
        return self.kinds

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Answer the chosen action."""
        self.dismiss(self.choices[int(event.option.id)])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Cancel: no action."""
        self.dismiss(None)


class ConfirmDialog(_Dialog):
    """Asks ``question``; dismisses True (confirmed) or False/None. The focus starts on No, so
    that Enter after a stray key never confirms something that cannot be undone; ``y``/``n``
    answer too, and the language's own yes key (Italian ``s``, "sì"), which the Yes button names.
    ``yes``: the confirming button's text (default "Yes, go ahead")."""

    BINDINGS = [Binding("escape", "cancel", _("Cancel")), Binding("n", "cancel", _("No")),
                Binding("y", "confirm", _("Yes"))]

    def __init__(self, question: str, yes: str | None = None) -> None:
        super().__init__()
        self.question = question
        self.yes = yes
        #: The key the Yes button names: "y" in English, "s" (sì) in Italian; "y" works in both.
        self.yes_key = _("y (the key that answers yes)")[:1]

    def compose(self) -> ComposeResult:
        """The question and the No / Yes buttons."""
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="question")
            with Horizontal(classes="buttons"):
                yield Button(escape(_("No [n]")), id="no", variant="primary", compact=True)
                yield Button(escape((self.yes or _("Yes, go ahead")) + f" [{self.yes_key}]"), id="yes", variant="error",
                             compact=True)

    def on_mount(self) -> None:
        """Focus starts on No: Enter alone never confirms."""
        self.query_one("#no", Button).focus()

    def action_confirm(self) -> None:
        """y: answer yes."""
        self.dismiss(True)

    def on_key(self, event: Key) -> None:
        """The language's yes key (Italian ``s``) answers yes, as ``y`` does."""
        if event.key != "y" and event.key == self.yes_key:  # "y" is bound to action_confirm already
            event.stop()
            self.action_confirm()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Answer True for Yes, False for No."""
        self.dismiss(event.button.id == "yes")
