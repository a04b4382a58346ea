"""The auction dialog: a bid between ``engine.bid_limits``, or leave (a tied seat: don't raise)."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label

import engine
from engine import actions as A
from ui.i18n import _, format_money
from ui.screens.modal import InOrderInput, _Dialog


class BidDialog(_Dialog):
    """A bid in the running auction: amount between ``engine.bid_limits``; dismisses
    ``Bid(amount)``, ``PassBid()`` or None."""

    def __init__(self, state: Any, seat: int, names: tuple) -> None:
        super().__init__()
        self.state, self.seat, self.names = state, seat, names
        self.limits = engine.bid_limits(state, seat) or (0, 0)

    def compose(self) -> ComposeResult:
        """The lot and its printed price, the highest bid and bidder, the bid field and the buttons."""
        s = self.state
        lot = s.ed.squares[s.auc_sq].name if s.auc_sq >= 0 else "?"
        with Vertical(classes="dialog"):
            yield Label(_("Auction for {square} (printed price {money})").format(
                square=lot, money=format_money(s.tb.price[s.auc_sq] if s.auc_sq >= 0 else 0)), classes="title")
            tied = self._tied()
            if s.auc_bidder >= 0:
                yield Label(_("Highest bid: {money} by {name}").format(money=format_money(s.auc_high),
                                                                     name=self.names[s.auc_bidder]))
            elif tied:  # AuctionTied: nobody holds the high bid, everybody bids again
                yield Label(_("Tie at {money} ({names}): raise").format(
                    money=format_money(s.auc_high), names=", ".join(self.names[i] for i in tied)))
                yield Label(_("If nobody raises, the tied bidders roll the dice for it."))
            else:
                yield Label(_("No bid yet."))
            lo, hi = self.limits
            yield Label(_("Your bid, from {low} to {high}:").format(low=format_money(lo), high=format_money(hi)))
            yield InOrderInput(str(lo), id="amount", type="integer")
            yield Label("", id="error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button(_("Bid"), id="bid", variant="primary", compact=True)
                # A tied seat that does not raise keeps its tied bid (engine.rules.auction).
                yield Button(_("Don't raise") if self.seat in tied else _("Leave the auction"), id="pass",
                             compact=True)
                yield Button(_("Cancel"), id="cancel", compact=True)

    def _tied(self) -> list[int]:
        """The seats holding a tied highest bid (engine.rules.auction: ``auc_bidder`` -1, the
        tied amount in ``auc_high``, the tied seats marked 2 in ``auc_in``), else []."""
        s = self.state
        if s.auc_bidder >= 0 or s.auc_high <= 0:
            return []
        return [i for i, a in enumerate(s.auc_in) if a > 1]

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the bid field: bid that amount."""
        self._bid()

    def on_input_changed(self, event: Input.Changed) -> None:
        """Typing clears the refusal of the previous amount (it stayed under a valid one)."""
        self.query_one("#error", Label).update("")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Bid, pass (PassBid) or close without answering."""
        if event.button.id == "bid":
            self._bid()
        elif event.button.id == "pass":
            self.dismiss(A.PassBid())
        else:
            self.dismiss(None)

    def _bid(self) -> None:
        lo, hi = self.limits
        try:
            amount = int(self.query_one("#amount", Input).value)
        except ValueError:
            amount = -1
        if not lo <= amount <= hi:
            self.query_one("#error", Label).update(_("The bid must be between {low} and {high}.").format(
                low=format_money(lo), high=format_money(hi)))
            return
        self.dismiss(A.Bid(amount))
