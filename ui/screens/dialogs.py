"""Modal dialogs. Each offers only choices the engine allows and dismisses with its answer
(an engine action, a request, or None when cancelled); the game screen submits it.

Here: managing our properties, settling inherited mortgages, join by code, a chat line. Each
larger dialog has its own file, and this module names them all (import them from here):
the base ``_Dialog`` and ``ConfirmDialog`` (modal.py), ``BidDialog`` (bid_dialog.py),
``OfferDialog``, ``TradeDialog``, ``describe_offer`` (trade_dialogs.py), ``CreateDialog``,
``HOUSE_RULES`` (create_dialog.py); niente-e-come-sembra's own dialogs: niente_dialogs.py."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, OptionList
from textual.widgets.option_list import Option

from engine import actions as A
from engine.observation import hotel_sale_price
from ui.i18n import _, format_money
from ui.screens.bid_dialog import BidDialog
from ui.screens.create_dialog import HOUSE_RULES, CreateDialog, house_rule_label
from ui.screens.modal import ChoiceDialog, ConfirmDialog, InOrderInput, _Dialog
from ui.screens.trade_dialogs import OfferDialog, TradeDialog, describe_offer


def manage_label(state: Any, a: Any) -> str:
    """Plain words for a build/sell/mortgage/lift action (an edition with hotels only, as
    niente-e-come-sembra: a hotel, a deed sold back to the bank), with its price."""
    tb = state.tb
    name = state.ed.squares[a.square].name
    if state.ed.hotels_only:
        if isinstance(a, A.BuildHouse):
            return _("Buy a hotel for {square} ({money})").format(square=name, money=format_money(tb.house_cost[a.square]))
        if isinstance(a, A.SellBuilding):
            return _("Sell the hotel of {square} to the bank (+{money})").format(
                square=name, money=format_money(hotel_sale_price(state, a.square)))
        if isinstance(a, A.SellProperty):
            return _("Sell {square} back to the bank (+{money})").format(square=name, money=format_money(tb.price[a.square]))
    if isinstance(a, A.BuildHouse):
        what = _("a hotel") if state.level[a.square] == 4 else _("a house")
        return _("Build {what} on {square} ({money})").format(what=what, square=name,
                                                             money=format_money(tb.house_cost[a.square]))
    if isinstance(a, A.SellBuilding):
        return _("Sell a building on {square} (+{money})").format(square=name,
                                                                  money=format_money(tb.house_cost[a.square] // 2))
    if isinstance(a, A.Mortgage):
        return _("Mortgage {square} (+{money})").format(square=name, money=format_money(tb.mortgage[a.square]))
    return _("Lift the mortgage on {square} ({money})").format(square=name, money=format_money(tb.lift[a.square]))


class ManageDialog(ChoiceDialog):
    """Build evenly, sell, mortgage, lift: the legal ones for our seat, one line each;
    dismisses the chosen action or None."""

    def offered(self, state: Any) -> tuple[type, ...]:
        """Hotels only: no mortgages, deeds sold back to the bank."""
        if state.ed.hotels_only:
            return (A.BuildHouse, A.SellBuilding, A.SellProperty)
        return (A.BuildHouse, A.SellBuilding, A.Mortgage, A.LiftMortgage)

    def compose(self) -> ComposeResult:
        """One line per legal build, sale, mortgage or lift of ours, and Cancel."""
        with Vertical(classes="dialog wide"):
            yield Label(_("Your properties: choose what to do (Enter)"), classes="title")
            yield OptionList(*[Option(manage_label(self.state, a), id=str(i)) for i, a in enumerate(self.choices)],
                             id="choices")
            yield Button(_("Cancel"), id="cancel", compact=True)


class SettleDialog(ChoiceDialog):
    """Mortgaged properties inherited from a bankrupt: lift some now or pay the 10 % on them.
    Dismisses the chosen ``SettleMortgages`` or None."""

    kinds = (A.SettleMortgages,)

    def _label(self, a: Any) -> str:
        if not a.lift:
            return _("Keep them mortgaged (pay the 10 % now)")
        return _("Lift the mortgage on: {squares}").format(
            squares=", ".join(self.state.ed.squares[sq].name for sq in a.lift))

    def compose(self) -> ComposeResult:
        """One line per way to settle the mortgaged properties received (lift some now, or keep them
        and pay the 10 %)."""
        with Vertical(classes="dialog wide"):
            yield Label(_("You received mortgaged properties"), classes="title")
            yield OptionList(*[Option(self._label(a), id=str(i)) for i, a in enumerate(self.choices)])


class JoinCodeDialog(_Dialog):
    """Join by address when multicast is blocked: the host's code ADDRESS:PORT/XXXXX-XXXXX
    (``ui.backends.parse_join_code``). Dismisses the text or None."""

    def compose(self) -> ComposeResult:
        """The code field (ADDRESS:PORT/CODE), an error line, Join and Cancel."""
        with Vertical(classes="dialog"):
            yield Label(_("Join by address"), classes="title")
            yield Label(_("Type the code the host's screen shows (ADDRESS:PORT/CODE):"))
            yield InOrderInput(placeholder="192.168.1.20:40000/7KQ2M-XH3PA", id="code")
            yield Label("", id="error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button(_("Join"), id="join", variant="primary", compact=True)
                yield Button(_("Cancel"), id="cancel", compact=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter: check the code and answer it."""
        self._done()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Join with the code, or close without one."""
        if event.button.id == "join":
            self._done()
        else:
            self.dismiss(None)

    def _done(self) -> None:
        from ui.backends import parse_join_code

        code = self.query_one("#code", Input).value
        try:
            parse_join_code(code)
        except ValueError:
            self.query_one("#error", Label).update(_("That is not a join code (ADDRESS:PORT/CODE)."))
            return
        self.dismiss(code)


class ChatDialog(_Dialog):
    """One chat line (protocol.md §N9): Enter sends it with ``say(text)`` (the driver's), Esc
    closes. ``say``'s refusals (empty, too long, too fast: ``p2p.chat.ChatLimited``) show in
    the dialog, which stays open. Dismisses True once a line went out, else None."""

    def __init__(self, say: Any) -> None:
        super().__init__()
        self.say = say

    def compose(self) -> ComposeResult:
        """The message field and an error line."""
        from p2p.const import MAX_CHAT_TEXT

        with Vertical(classes="dialog"):
            yield Label(_("Say something to the others (Enter sends, Esc closes):"))
            yield InOrderInput(placeholder=_("your message"), id="chat", max_length=MAX_CHAT_TEXT)
            yield Label("", id="error", classes="error")

    def on_mount(self) -> None:
        """Focus the message field."""
        self.query_one("#chat", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter: send the line (protocol.md §N9); a rate limit or a bad line shows an error."""
        from p2p.chat import ChatLimited

        try:
            self.say(event.value)
        except ChatLimited:
            self.query_one("#error", Label).update(_("Too many messages: wait a moment."))
            return
        except ValueError:
            self.query_one("#error", Label).update(_("Type a message first."))
            return
        self.dismiss(True)


__all__ = ["HOUSE_RULES", "ChatDialog", "ConfirmDialog", "BidDialog", "ManageDialog", "OfferDialog", "TradeDialog", "SettleDialog",
           "CreateDialog", "JoinCodeDialog", "describe_offer", "house_rule_label", "manage_label"]
