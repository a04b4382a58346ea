"""Dialogs of niente-e-come-sembra (protocol.md §E8): inspect a bill or a card with
the magnifier, take a face-up Imprevisti, use a kept card.

Like the other dialogs (ui/screens/dialogs.py) each offers only the actions in
``engine.legal_actions`` for our seat and dismisses the chosen engine action, or None when
cancelled. What we know privately (``driver.private_view()``, protocol.md §C12.7) is shown next to
the choices — a bill we once held and know to be fake, a card we know — and never sent.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, OptionList
from textual.widgets.option_list import Option

from engine import actions as A
from engine.rules.banknotes import GENUINE, NX_CARD, NX_DEN, NX_FACEUP, NX_HAND, NX_LENS, NX_PUB, NX_WIN
from ui.i18n import _, format_money
from ui.narrate import card_title
from ui.screens.dialogs import _Dialog
from ui.widgets.players import card_known_fake


def held_imprevisti(state: Any, seat: int) -> list[int]:
    """The Imprevisti cards ``seat`` holds (kept ones and the jail card), card indices."""
    return [k & 255 for k in list(state.nx[NX_HAND][seat]) + list(state.held[seat]) if k >> 8 == 1]


def bill_label(state: Any, bill: int, names: tuple, view: dict) -> str:
    """"€50 of Marco (paid to Giulia)" with what we know of it: public status or our view."""
    nx = state.nx
    payer, taker = next(((p[0], p[1]) for p in nx[NX_WIN] if bill in p[2:]), (-1, -1))

    def who(seat: int) -> str:
        return _("the bank") if seat < 0 else names[seat] if seat < len(names) else "?"

    text = _("{money} of {name} (paid to {partner})").format(
        money=format_money(nx[NX_DEN][bill]), name=who(payer), partner=who(taker))
    if nx[NX_PUB][bill] == GENUINE:
        return text + " — " + _("already checked: genuine")
    known = view.get(("bill", bill))
    if known is not None:
        return text + " — " + (_("you held it: it is fake!") if known else _("you held it: genuine"))
    return text


class InspectDialog(_Dialog):
    """The magnifier in an inspection window: choose one bill of another player's payment, or
    inspect the Imprevisti being used. Spends a green token. Dismisses ``InspectBill(bill)``,
    ``InspectCard()`` or None."""

    def __init__(self, state: Any, seat: int, legal: list, names: tuple, view: dict) -> None:
        super().__init__()
        self.state, self.seat, self.names, self.view = state, seat, names, view
        self.bills = [a for a in legal if isinstance(a, A.InspectBill)]
        self.card = next((a for a in legal if isinstance(a, A.InspectCard)), None)

    def compose(self) -> ComposeResult:
        s = self.state
        tokens = s.nx[NX_LENS][self.seat]
        with Vertical(classes="dialog wide"):
            yield Label(_("Magnifier: check the money or the card"), classes="title")
            yield Label(_("It uses one of your green tokens (you have {n}); passing VIA! turns them green "
                          "again.").format(n=tokens), classes="note")
            if self.card is not None:
                using = s.nx[NX_CARD]
                seat, card = using[0], using[2]
                yield Label(_("{name} is using the Imprevisti “{card}”. One card of each pair is fake: a fake "
                              "one is discarded and the bank pays you {money}.").format(
                    name=self.names[seat], card=card_title(s.ed, 1, card),
                    money=format_money(s.ed.decoder.inspect_reward)))
                with Horizontal(classes="buttons"):
                    yield Button(_("Inspect the card"), id="inspect-card", variant="primary", compact=True)
                    yield Button(_("Cancel"), id="cancel", compact=True)
                return
            yield Label(_("Choose a bill (Enter). If it is fake you keep it and the payer pays again."))
            yield OptionList(*[Option(bill_label(s, a.bill, self.names, self.view), id=str(i))
                               for i, a in enumerate(self.bills)], id="bills")
            yield Button(_("Cancel"), id="cancel", compact=True)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.bills[int(event.option.id)])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(self.card if event.button.id == "inspect-card" else None)


class TakeCardDialog(_Dialog):
    """On Imprevisti: take one of the face-up cards ("prendete una qualsiasi delle carte").
    Dismisses ``TakeCard(slot)`` or None; with an Imprevisti already in hand the game screen
    asks before the swap."""

    def __init__(self, state: Any, seat: int, legal: list, view: dict) -> None:
        super().__init__()
        self.state, self.seat, self.view = state, seat, view
        self.choices = [a for a in legal if isinstance(a, A.TakeCard)]

    def label(self, a: Any) -> str:
        """The card's full text, with what we know of it."""
        card = self.state.nx[NX_FACEUP][a.slot]
        text = self.state.ed.decks[1][card].text
        fake = card_known_fake(self.state, card, self.view)
        if fake is not None:
            text += " — " + (_("known fake") if fake else _("known genuine"))
        return text

    def compose(self) -> ComposeResult:
        held = held_imprevisti(self.state, self.seat)
        with Vertical(classes="dialog wide"):
            yield Label(_("Take a face-up Imprevisti (Enter)"), classes="title")
            if held:
                yield Label(_("You hold “{card}”: you may keep only one Imprevisti, it would go under the "
                              "deck.").format(card=card_title(self.state.ed, 1, held[0])), classes="note")
            yield OptionList(*[Option(self.label(a), id=str(i)) for i, a in enumerate(self.choices)], id="cards")
            yield Button(_("Cancel"), id="cancel", compact=True)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.choices[int(event.option.id)])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)


def use_label(state: Any, a: Any) -> str:
    """"“Albergo gratis!” on Via Roma" for a UseCard action."""
    title = card_title(state.ed, a.deck, a.card)
    if a.target >= 0:
        return _("“{card}” on {square}").format(card=title, square=state.ed.squares[a.target].name)
    return f"“{title}”"


class UseCardDialog(_Dialog):
    """Use a kept card now: the legal UseCard actions (card and target), one line each.
    Dismisses the chosen ``UseCard`` or None."""

    def __init__(self, state: Any, legal: list) -> None:
        super().__init__()
        self.state = state
        self.choices = [a for a in legal if isinstance(a, A.UseCard)]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(_("Use a card (Enter)"), classes="title")
            if any(a.deck == 1 for a in self.choices):
                yield Label(_("The other players may inspect an Imprevisti before it takes effect."), classes="note")
            yield OptionList(*[Option(use_label(self.state, a), id=str(i)) for i, a in enumerate(self.choices)],
                             id="uses")
            yield Button(_("Cancel"), id="cancel", compact=True)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.choices[int(event.option.id)])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)


def confirm_question(state: Any, seat: int, action: Any) -> str | None:
    """The question to ask before an irreversible niente choice, or None: selling a property
    back to the bank, taking a face-up card that replaces the Imprevisti we hold."""
    if isinstance(action, A.SellProperty):
        return _("Sell {square} back to the bank for {money}? It cannot be undone.").format(
            square=state.ed.squares[action.square].name, money=format_money(state.tb.price[action.square]))
    if isinstance(action, A.TakeCard):
        held = held_imprevisti(state, seat)
        if held:
            return _("Take it? Your “{card}” goes under the deck.").format(card=card_title(state.ed, 1, held[0]))
    return None


__all__ = ["confirm_question", "InspectDialog", "TakeCardDialog", "UseCardDialog", "bill_label", "use_label", "held_imprevisti"]
