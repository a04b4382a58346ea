"""The commands a player may give now, built only from ``engine.legal_actions`` for our seat.

``commands_for(state, seat, legal)`` maps the legal actions to a short list of
:class:`Command` (id, label, key): direct ones (roll, buy, auction, pass, pay the fine, use a
card, declare bankruptcy) carry their engine action; the others open a dialog (bid amount,
build/sell/mortgage/lift, trade, answer an offer, settle inherited mortgages) that again only
offers legal choices. The ``ActionBar`` shows them as buttons and posts ``Chosen``.

niente-e-come-sembra (protocol.md §E8): inspect a bill or the card being used
(dialog) or let the window pass ("nothing" for the step), take a face-up Imprevisti (dialog) or
decline it, use a kept card (dialog), choose the bills of a payment (dialog, when the player's
standing choice is "ask"); selling a property back to the bank and buying hotels are in the
properties dialog.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.markup import escape
from textual.app import ComposeResult
from textual.widget import Widget
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Button

from engine import actions as A
from ui.i18n import _, format_money

#: Command id -> key binding (GameScreen.BINDINGS use the same keys).
KEYS = {
    "roll": "r", "buy": "b", "decline": "n", "bid": "o", "pass": "p", "fine": "f", "card": "c",
    "manage": "m", "trade": "t", "offer": "y", "withdraw": "w", "claim": "g", "bankrupt": "x",
    "settle": "e", "inspect": "i", "skip": "s", "take": "k", "leave_card": "d", "use": "u",
    "bills": "z",
}


@dataclass(frozen=True)
class Command:
    """One thing the player can do now. ``id``: a KEYS key; ``label``: translated text;
    ``action``: the engine action sent as is, or None when the command opens a dialog;
    ``confirm``: ask before sending (irreversible); ``nothing``: the command sends "nothing"
    for this step (let an inspection window pass) instead of an action or a dialog."""

    id: str
    label: str
    action: Any = None
    confirm: bool = False
    nothing: bool = False

    @property
    def key(self) -> str:
        """The key that gives this command."""
        return KEYS[self.id]


def commands_for(state: Any, seat: int, legal: list) -> list[Command]:
    """The commands for ``legal`` (= ``engine.legal_actions(state, seat)``), in a fixed order:
    what the turn asks first, then property management, trades, bankruptcy."""
    if state is None or seat < 0:
        return []
    by_type: dict[type, list] = {}
    for a in legal:
        by_type.setdefault(type(a), []).append(a)
    out: list[Command] = []
    tb = state.tb
    if A.RollDice in by_type:
        out.append(Command("roll", _("Roll the dice"), A.RollDice()))
    if A.PayJailFine in by_type:
        out.append(Command("fine", _("Pay {money} and leave jail").format(money=format_money(state.ed.jail_fine)),
                           A.PayJailFine()))
    if A.UseJailCard in by_type:
        out.append(Command("card", _("Use the jail card"), by_type[A.UseJailCard][0]))
    if A.BuyProperty in by_type or A.DeclineProperty in by_type:
        sq = state.pos[seat]
        if A.BuyProperty in by_type:
            out.append(Command("buy", _("Buy {square} for {money}").format(
                square=state.ed.squares[sq].name, money=format_money(tb.price[sq])), A.BuyProperty()))
        out.append(Command("decline", _("Auction it"), A.DeclineProperty()))
    if A.Bid in by_type:
        out.append(Command("bid", _("Bid (at least {money})").format(money=format_money(by_type[A.Bid][0].amount))))
    if A.PassBid in by_type:
        out.append(Command("pass", _("Leave the auction"), A.PassBid()))
    if A.InspectBill in by_type or A.InspectCard in by_type:
        what = _("Inspect the card") if A.InspectCard in by_type else _("Inspect a bill")
        out.append(Command("inspect", what))
        out.append(Command("skip", _("Do not inspect"), nothing=True))
    if A.TakeCard in by_type:
        out.append(Command("take", _("Take a face-up Chance card")))
    if A.DeclineCard in by_type:
        out.append(Command("leave_card", _("Leave the cards"), A.DeclineCard()))
    if A.UseCard in by_type:
        out.append(Command("use", _("Use a card")))
    if A.PayBills in by_type:
        out.append(Command("bills", _("Choose the bills to pay with")))
    if A.ClaimRent in by_type:
        out.append(Command("claim", _("Ask for the rent"), by_type[A.ClaimRent][0]))
    if A.SettleMortgages in by_type:
        out.append(Command("settle", _("Inherited mortgages")))
    if any(t in by_type for t in (A.BuildHouse, A.SellBuilding, A.Mortgage, A.LiftMortgage, A.SellProperty)):
        label = _("Hotels / sell to the bank") if state.ed.hotels_only else _("Build / sell / mortgage")
        out.append(Command("manage", label))
    if A.AcceptTrade in by_type or A.RejectTrade in by_type:
        out.append(Command("offer", _("Answer the offer")))
    if not state.out[seat] and sum(1 for i in range(state.n) if not state.out[i]) > 1:
        out.append(Command("trade", _("Propose a trade")))
    if A.WithdrawTrade in by_type:
        out.append(Command("withdraw", _("Withdraw your offer"), A.WithdrawTrade()))
    if A.DeclareBankruptcy in by_type:
        out.append(Command("bankrupt", _("Declare bankruptcy"), A.DeclareBankruptcy(), confirm=True))
    return out


class ActionBar(Widget):
    """Buttons for ``commands`` (key, then label) in a grid that wraps (app.tcss); pressing
    one posts ``ActionBar.Chosen``."""

    commands: reactive[tuple] = reactive((), recompose=True)

    class Chosen(Message):
        """The player picked ``command`` (a Command)."""

        def __init__(self, command: Command) -> None:
            super().__init__()
            self.command = command

    def compose(self) -> ComposeResult:
        """One button per offered command, "[key] label"."""
        self._fit_columns()
        for c in self.commands:
            yield Button(escape(f"[{c.key}] {c.label}"), id=f"cmd-{c.id}", compact=True,
                         variant="error" if c.id == "bankrupt" else "primary" if c.action is not None else "default")

    def on_resize(self) -> None:
        """Refit the columns to the new width."""
        self._fit_columns()

    def _fit_columns(self) -> None:
        """As many grid columns as the longest label allows, so that no button is cut
        ("[b] Buy Stazione Sud for €200" needs ~33 cells): 1..5 columns."""
        width = self.size.width or self.app.size.width
        longest = max((len(f"[{c.key}] {c.label}") for c in self.commands), default=1)
        self.styles.grid_size_columns = max(1, min(5, (width + 1) // (longest + 3)))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Post ``Chosen`` with the command of the pressed button."""
        event.stop()
        cid = (event.button.id or "")[4:]
        for c in self.commands:
            if c.id == cid:
                self.post_message(self.Chosen(c))
                return


__all__ = ["ActionBar", "Command", "commands_for", "KEYS"]
