"""Dialogs of niente-e-come-sembra (protocol.md §E8): inspect a bill or a card with
the magnifier, take a face-up Imprevisti, use a kept card, choose the bills of a payment.

Like the other dialogs (ui/screens/dialogs.py) each offers only the actions in
``engine.legal_actions`` for our seat and dismisses the chosen engine action, or None when
cancelled. What we know privately (``driver.private_view()``, protocol.md §C12.7) is shown next to
the choices — a bill we once held and know to be fake, a card we know — and never sent.
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, OptionList
from textual.widgets.option_list import Option

from engine import actions as A
from engine import observation as obs
from engine.observation import choice_error, choosable_bills, due_amount
from ui.i18n import _, card_text, format_money, to_name
from ui.narrate import card_title
from ui.screens.dialogs import _Dialog
from ui.screens.modal import ChoiceDialog
from ui.widgets.players import card_known_fake


def bill_label(state: Any, bill: int, names: tuple, view: dict) -> str:
    """"€50 of Marco (paid to Giulia)" with what we know of it: public status or our view."""
    payer, taker = next(((p.payer, p.taker) for p in obs.window_payments(state) if bill in p.bills), (-1, -1))

    def who(seat: int) -> str:
        """The name of ``seat``, "the bank" for -1."""
        return _("the bank") if seat < 0 else names[seat] if seat < len(names) else "?"

    # {to_name}: "alla banca", "ad Anna" (the Italian catalog folds the preposition, ui.narrate).
    text = _("{money} of {name} (paid to {partner})").format(
        money=format_money(obs.bill_value(state, bill)), name=who(payer), partner=who(taker),
        to_name=_("to the bank") if taker < 0 else to_name(who(taker)))
    if obs.public_status(state, ("bill", bill)) == obs.GENUINE:
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
        """Our green tokens, the Imprevisti being used or the bills paid in the window, and the
        buttons."""
        s = self.state
        tokens = obs.green_lenses(s, self.seat)
        with Vertical(classes="dialog wide"):
            yield Label(_("Magnifier: check the money or the card"), classes="title")
            yield Label(_("It uses one of your green tokens (you have {n}); passing GO turns them green "
                          "again.").format(n=tokens), classes="note")
            if self.card is not None:
                using = obs.card_in_use(s)
                seat, card = using.seat, using.card
                yield Label(_("{name} is using the Chance card “{card}”. One card of each pair is fake: a fake "
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
        """Inspect the chosen bill."""
        self.dismiss(self.bills[int(event.option.id)])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Inspect the card, or let the window pass (None)."""
        self.dismiss(self.card if event.button.id == "inspect-card" else None)


class TakeCardDialog(ChoiceDialog):
    """On Imprevisti: take one of the face-up cards ("prendete una qualsiasi delle carte").
    Dismisses ``TakeCard(slot)`` or None; with an Imprevisti already in hand the game screen
    asks before the swap."""

    kinds = (A.TakeCard,)

    def __init__(self, state: Any, seat: int, legal: list, view: dict) -> None:
        super().__init__(state, legal)
        self.seat, self.view = seat, view

    def label(self, a: Any) -> str:
        """The card's full text, with what we know of it."""
        card = obs.faceup_cards(self.state)[a.slot]
        text = card_text(self.state.ed.decks[1][card])
        fake = card_known_fake(self.state, card, self.view)
        if fake is not None:
            text += " — " + (_("known fake") if fake else _("known genuine"))
        return text

    def compose(self) -> ComposeResult:
        """The face-up Imprevisti we may take (with a note if we already hold one), and Cancel."""
        held = obs.held_imprevisti(self.state, self.seat)
        with Vertical(classes="dialog wide"):
            yield Label(_("Take a face-up Chance card (Enter)"), classes="title")
            if held:
                yield Label(_("You hold “{card}”: you may keep only one Chance card, it would go under the "
                              "deck.").format(card=card_title(self.state.ed, 1, held[0])), classes="note")
            yield OptionList(*[Option(self.label(a), id=str(i)) for i, a in enumerate(self.choices)], id="cards")
            yield Button(_("Cancel"), id="cancel", compact=True)


def use_label(state: Any, a: Any) -> str:
    """"“Albergo gratis!” on Via Roma" for a UseCard action."""
    title = card_title(state.ed, a.deck, a.card)
    if a.target >= 0:
        return _("“{card}” on {square}").format(card=title, square=state.ed.squares[a.target].name)
    return f"“{title}”"


class UseCardDialog(ChoiceDialog):
    """Use a kept card now: the legal UseCard actions (card and target), one line each.
    Dismisses the chosen ``UseCard`` or None."""

    kinds = (A.UseCard,)

    def compose(self) -> ComposeResult:
        """The cards we may use now, a note when the others may inspect an Imprevisti, and Cancel."""
        with Vertical(classes="dialog wide"):
            yield Label(_("Use a card (Enter)"), classes="title")
            if any(a.deck == 1 for a in self.choices):
                yield Label(_("The other players may inspect a Chance card before it takes effect."), classes="note")
            yield OptionList(*[Option(use_label(self.state, a), id=str(i)) for i, a in enumerate(self.choices)],
                             id="uses")
            yield Button(_("Cancel"), id="cancel", compact=True)


class BillGroup(NamedTuple):
    """Bills of one denomination and one known status among those we may pay with:
    ``den`` (euro), ``status`` ("fake" | "genuine" | "unknown"), ``bills`` (ids, in the order
    we hand them over: ``engine.observation.bill_order``)."""

    den: int
    status: str
    bills: tuple


_STATUS_ORDER = {"genuine": 0, "unknown": 1, "fake": 2}


def bill_groups(state: Any, seat: int, view: Mapping) -> list[BillGroup]:
    """Our bills for the payment waiting for its bills, grouped by denomination (largest
    first) and by what we know of them (public status or our private view): genuine, unknown,
    fake. Empty when we have no payment we can still choose for."""
    mine = choosable_bills(state, seat) or []
    key = obs.bill_order(view)
    groups: dict[tuple, list] = {}
    for b in mine:
        groups.setdefault((obs.bill_value(state, b), obs.bill_status(state, b, view)), []).append(b)
    return [BillGroup(d, st, tuple(sorted(ids, key=lambda b: key(state, b))))
            for (d, st), ids in sorted(groups.items(), key=lambda kv: (-kv[0][0], _STATUS_ORDER[kv[0][1]]))]


class BillsDialog(_Dialog):
    """Pay with the bills we choose (niente-e-come-sembra, phase "pay_bills"; rulebook "Se
    sapete di avere una banconota falsa, cercate di tenerla"). One row per denomination and
    known status (``bill_groups``): ←/→ (or -/+) change how many of that row we pay with;
    "keep my fakes" and "spend my fakes first" fill the rows as the standing choices would;
    Enter pays once the chosen bills cover the amount with none to spare
    (``engine.observation.choice_error``). The rows start at "keep my fakes". Which of
    equal bills go is ``bill_order`` (the other players cannot tell which one we kept).
    Dismisses ``PayBills(bills)`` or None (cancelled: the game still waits for our choice)."""

    BINDINGS = [Binding("escape", "cancel", _("Cancel")),
                Binding("right,plus,equals_sign", "more", _("One more"), show=False),
                Binding("left,minus", "fewer", _("One fewer"), show=False),
                Binding("k", "fill('keep')", _("Keep my fakes"), show=False),
                Binding("f", "fill('spend')", _("Spend my fakes first"), show=False)]

    def __init__(self, state: Any, seat: int, names: tuple, view: Mapping) -> None:
        super().__init__()
        self.state, self.seat, self.names, self.view = state, seat, names, view
        self.groups = bill_groups(state, seat, view)
        self.amount, self.payee = due_amount(state, seat) or (0, -1)
        self.counts = [0] * len(self.groups)
        self._fill("keep")

    def _fill(self, policy: str) -> None:
        pick = (obs.keep_fakes if policy == "keep" else obs.spend_fakes)(self.state, self.seat, self.view)
        chosen = set(pick or ())
        self.counts = [sum(b in chosen for b in g.bills) for g in self.groups]

    def chosen(self) -> tuple:
        """The bill ids the rows name now, ascending."""
        return tuple(sorted(b for g, k in zip(self.groups, self.counts) for b in g.bills[:k]))

    def row_text(self, i: int) -> str:
        """Row ``i``: the denomination, what we know of it (fake, genuine, not checked) and how many
        we pay."""
        g = self.groups[i]
        what = {"fake": _("fake ✗"), "genuine": _("genuine"), "unknown": _("not checked")}[g.status]
        return _("{money} {status}: pay {k} of {n}").format(
            money=format_money(g.den), status=what, k=self.counts[i], n=len(g.bills))

    def summary(self) -> str:
        """The chosen total and what is wrong with it, or the change it brings."""
        total = sum(obs.bill_value(self.state, b) for b in self.chosen())
        err = choice_error(self.state, self.seat, self.chosen())
        text = _("Chosen: {money}").format(money=format_money(total))
        if err is None:
            change = total - self.amount
            return text + (" · " + _("change from the bank: {money}").format(money=format_money(change))
                           if change else "")
        return text + " · " + {"not_enough": _("not enough"),
                               "overpaid": _("a bill is not needed: leave it out")}.get(err[0], _("not allowed"))

    def compose(self) -> ComposeResult:
        """The amount and the payee, one row per denomination and status, the keep / spend fills and
        Pay."""
        name = _("the bank") if self.payee < 0 else self.names[self.payee] if self.payee < len(self.names) else "?"
        to = _("to the bank") if self.payee < 0 else to_name(name)
        with Vertical(classes="dialog wide"):
            yield Label(_("Pay {money} to {name}: choose the bills").format(
                money=format_money(self.amount), name=name, to_name=to), classes="title")
            yield Label(_("←/→ fewer/more of a row, Enter pays. Only you know which of your bills are fake; "
                          "the bank gives the change."), classes="note")
            yield OptionList(*[Option(self.row_text(i), id=str(i)) for i in range(len(self.groups))], id="bills")
            yield Label(self.summary(), id="bill-summary")
            with Horizontal(classes="buttons"):
                yield Button(_("Pay"), id="pay", variant="primary", compact=True)
                yield Button(escape(_("Keep my fakes [k]")), id="keep", compact=True)
                yield Button(escape(_("Spend my fakes first [f]")), id="spend", compact=True)
                yield Button(_("Cancel"), id="cancel", compact=True)

    def _refresh(self) -> None:
        ol = self.query_one("#bills", OptionList)
        for i in range(len(self.groups)):
            ol.replace_option_prompt_at_index(i, self.row_text(i))
        self.query_one("#bill-summary", Label).update(self.summary())

    def _change(self, by: int) -> None:
        i = self.query_one("#bills", OptionList).highlighted
        if i is None:
            return
        self.counts[i] = max(0, min(len(self.groups[i].bills), self.counts[i] + by))
        self._refresh()

    def action_more(self) -> None:
        """Right arrow: pay one more bill of the selected row."""
        self._change(1)

    def action_fewer(self) -> None:
        """Left arrow: pay one fewer bill of the selected row."""
        self._change(-1)

    def action_fill(self, policy: str) -> None:
        """Fill the rows by a standing policy ("keep" our known fakes, "spend" them first)."""
        self._fill(policy)
        self._refresh()

    def action_pay(self) -> None:
        """Dismiss with PayBills of the chosen bills if the engine would take them."""
        bills = self.chosen()
        if choice_error(self.state, self.seat, bills) is None:
            self.dismiss(A.PayBills(bills))
        else:
            self.app.bell()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on a row: pay what is chosen."""
        self.action_pay()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Pay, fill by a policy, or close without paying."""
        bid = event.button.id
        if bid == "pay":
            self.action_pay()
        elif bid in ("keep", "spend"):
            self.action_fill(bid)
        else:
            self.dismiss(None)


def confirm_question(state: Any, seat: int, action: Any) -> str | None:
    """The question to ask before an irreversible niente choice, or None: selling a property
    back to the bank, taking a face-up card that replaces the Imprevisti we hold."""
    if isinstance(action, A.SellProperty):
        return _("Sell {square} back to the bank for {money}? It cannot be undone.").format(
            square=state.ed.squares[action.square].name, money=format_money(state.tb.price[action.square]))
    if isinstance(action, A.TakeCard):
        held = obs.held_imprevisti(state, seat)
        if held:
            return _("Take it? Your “{card}” goes under the deck.").format(card=card_title(state.ed, 1, held[0]))
    return None


__all__ = ["confirm_question", "BillsDialog", "BillGroup", "bill_groups", "InspectDialog", "TakeCardDialog",
           "UseCardDialog", "bill_label", "use_label"]
