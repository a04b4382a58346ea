"""Trades: the offers made to us (accept after a confirmation, or refuse) and proposing one
(partner, properties, money, jail cards of both sides, checked by the engine before it is sent)."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Select, SelectionList

import engine
from engine import actions as A
from ui.i18n import _, format_money, term
from ui.screens.modal import ConfirmDialog, InOrderInput, TickList, _Dialog


def describe_offer(state: Any, o: list, names: tuple, me: int = -1) -> list[str]:
    """Plain lines for an open offer ``o`` (engine state ``offers`` entry, read through
    ``engine.observation.offer``), the proposer's side first; our seat ``me`` reads "You give"."""
    from engine.observation import offer

    sq = state.ed.squares
    o = offer(o)
    deck = [term(d) for d in state.ed.deck_names]  # "Chance" in English (ui.i18n.term)

    def side(squares, cash, cards) -> str:
        """One side of a trade as text: its properties (mortgaged marked), money and jail cards."""
        parts = [sq[i].name + (" (" + _("mortgaged") + ")" if state.mort[i] else "") for i in squares]
        if cash:
            parts.append(format_money(cash))
        parts += [_("jail card ({deck})").format(deck=deck[d]) for d in cards]
        return ", ".join(parts) or _("nothing")

    def gives(seat: int, things: str) -> str:
        if seat == me:
            return _("You give: {things}").format(things=things)
        return _("{name} gives: {things}").format(name=names[seat], things=things)

    return [gives(o.proposer, side(o.give, o.give_cash, o.give_cards)),
            gives(o.partner, side(o.get, o.get_cash, o.get_cards))]


class OfferDialog(_Dialog):
    """The offers made to us: accept (after a confirmation) or refuse each one. Dismisses
    ``AcceptTrade``/``RejectTrade`` or None."""

    def __init__(self, state: Any, seat: int, legal: list, names: tuple) -> None:
        super().__init__()
        self.state, self.seat, self.legal, self.names = state, seat, legal, names

    def compose(self) -> ComposeResult:
        """Every trade offered to our seat, each with Accept and Decline."""
        from engine.observation import offer

        with VerticalScroll(classes="dialog wide"):
            yield Label(_("Trades offered to you"), classes="title")
            for o in self.state.offers:
                if offer(o).partner != self.seat:
                    continue
                p = offer(o).proposer
                yield Label(_("From {name}:").format(name=self.names[p]), classes="subtitle")
                for line in describe_offer(self.state, o, self.names, self.seat):
                    yield Label("  " + line)
                with Horizontal(classes="buttons"):
                    if A.AcceptTrade(p, ()) in self.legal:
                        yield Button(_("Accept"), id=f"accept-{p}", variant="success", compact=True)
                    yield Button(_("Refuse"), id=f"reject-{p}", variant="error", compact=True)
            yield Label("", id="error", classes="error")
            yield Button(_("Close"), id="cancel", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Accept (after a confirmation: a trade cannot be undone), decline, or close."""
        bid = event.button.id or ""
        if bid.startswith("accept-"):
            # A trade cannot be undone: ask first (the question's focus starts on No).
            action = A.AcceptTrade(int(bid[7:]), ())

            def answered(ok: bool | None) -> None:
                """The confirmation closed: accept the trade only on yes."""
                if ok:
                    self.dismiss(action)
            self.app.push_screen(ConfirmDialog(_("Accept this trade? It cannot be undone."), yes=_("Yes, accept")),
                                 answered)
        elif bid.startswith("reject-"):
            self.dismiss(A.RejectTrade(int(bid[7:])))
        else:
            self.dismiss(None)


class TradeDialog(_Dialog):
    """Propose a trade: partner, properties, money and jail cards from both sides. The offer
    is checked by the engine before it is sent; dismisses ``ProposeTrade`` or None."""

    def __init__(self, state: Any, seat: int, names: tuple) -> None:
        super().__init__()
        self.state, self.seat, self.names = state, seat, names
        self.partners = [i for i in range(state.n) if i != seat and not state.out[i]]

    def _props(self, who: int) -> list[tuple[str, int]]:
        s = self.state
        return [(s.ed.squares[sq].name + (" ×" if s.mort[sq] else ""), sq)
                for sq in s.tb.properties if s.owner[sq] == who and s.level[sq] == 0]

    def _cards(self, who: int) -> list[tuple[str, int]]:
        decks = sorted({k >> 8 for k in self.state.held[who]})
        return [(_("jail card ({deck})").format(deck=term(self.state.ed.deck_names[d])), d) for d in decks]

    def compose(self) -> ComposeResult:
        """The partner, what we give and what we get (properties, cards, money), Propose and Cancel."""
        first = self.partners[0]
        with Vertical(classes="dialog trade"):
            yield Label(_("Propose a trade"), classes="title")
            yield Select([(self.names[i], i) for i in self.partners], value=first, allow_blank=False, id="partner")
            with Horizontal(classes="sides"):
                with Vertical(classes="side"):
                    yield Label(_("You give"), classes="subtitle")
                    yield TickList(*self._props(self.seat), *self._cards_options(self.seat, "mine"), id="give")
                    yield InOrderInput(placeholder=_("euro you pay"), id="give_cash", type="integer")
                with Vertical(classes="side"):
                    yield Label(_("You get"), classes="subtitle")
                    yield TickList(*self._props(first), *self._cards_options(first, "theirs"), id="get")
                    yield InOrderInput(placeholder=_("euro you receive"), id="get_cash", type="integer")
            yield Label("", id="error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button(_("Propose"), id="propose", variant="primary", compact=True)
                yield Button(_("Cancel"), id="cancel", compact=True)

    def _cards_options(self, who: int, tag: str) -> list[tuple[str, int]]:
        # Cards are told apart from squares by an offset: squares are 0..39.
        return [(label, 100 + d) for label, d in self._cards(who)]

    def on_mount(self) -> None:
        """Hide the error line, highlight the first choice."""
        self.query_one("#error").display = False
        self._highlight_first()

    def _highlight_first(self) -> None:
        """Space ticks the first entry at once (a SelectionList starts with nothing
        highlighted, and Space would do nothing before an arrow key)."""
        for lst in self.query(SelectionList):
            if lst.option_count and lst.highlighted is None:
                lst.highlighted = 0

    def _error(self, text: str) -> None:
        err = self.query_one("#error", Label)
        err.update(text)
        err.display = True

    def on_select_changed(self, event: Select.Changed) -> None:
        """Another partner: list what that seat can give."""
        get = self.query_one("#get", SelectionList)
        get.clear_options()
        who = int(event.value)
        get.add_options(self._props(who) + self._cards_options(who, "theirs"))
        self._highlight_first()

    def offer(self) -> Any:
        """The ProposeTrade built from the widgets (ValueError for bad money input)."""
        partner = int(self.query_one("#partner", Select).value)
        give = sorted(self.query_one("#give", SelectionList).selected)
        get = sorted(self.query_one("#get", SelectionList).selected)

        def cash(wid: str) -> int:
            """The whole euro typed in field ``wid`` (0 when empty); ValueError otherwise."""
            v = self.query_one(wid, Input).value.strip()
            return int(v) if v else 0

        return A.ProposeTrade(partner, tuple(x for x in give if x < 100), tuple(x for x in get if x < 100),
                              cash("#give_cash"), cash("#get_cash"), tuple(x - 100 for x in give if x >= 100),
                              tuple(x - 100 for x in get if x >= 100), ())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Propose the trade (errors shown in the dialog), or close."""
        if event.button.id != "propose":
            self.dismiss(None)
            return
        try:
            a = self.offer()
        except ValueError:
            self._error(_("Money must be a whole number of euro."))
            return
        if not (a.give_squares or a.get_squares or a.give_cash or a.get_cash or a.give_cards or a.get_cards):
            self._error(_("Choose something to give or to get."))
            return
        try:
            engine.apply_action(self.state, self.seat, a)
        except engine.IllegalAction as e:
            self._error(_("Not allowed: {reason}").format(reason=e.reason))
            return
        except ValueError:
            pass  # a chance step is pending: the engine checks the offer when it is applied
        self.dismiss(a)
