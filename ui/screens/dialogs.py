"""Modal dialogs. Each offers only choices the engine allows and dismisses with its answer
(an engine action, a request, or None when cancelled); the game screen submits it."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, OptionList, Select, SelectionList
from textual.widgets.option_list import Option

import engine
from engine import actions as A
from ui.i18n import _, format_money
from ui.play import CreateRequest


class _Dialog(ModalScreen):
    """Escape cancels (dismiss None)."""

    BINDINGS = [Binding("escape", "cancel", _("Cancel"))]

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmDialog(_Dialog):
    """Asks ``question``; dismisses True (confirmed) or False/None."""

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="question")
            with Horizontal(classes="buttons"):
                yield Button(_("Yes, go ahead"), id="yes", variant="error", compact=True)
                yield Button(_("No"), id="no", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class BidDialog(_Dialog):
    """A bid in the running auction: amount between ``engine.bid_limits``; dismisses
    ``Bid(amount)``, ``PassBid()`` or None."""

    def __init__(self, state: Any, seat: int, names: tuple) -> None:
        super().__init__()
        self.state, self.seat, self.names = state, seat, names
        self.limits = engine.bid_limits(state, seat) or (0, 0)

    def compose(self) -> ComposeResult:
        s = self.state
        lot = s.ed.squares[s.auc_sq].name if s.auc_sq >= 0 else "?"
        with Vertical(classes="dialog"):
            yield Label(_("Auction for {square} (printed price {money})").format(
                square=lot, money=format_money(s.tb.price[s.auc_sq] if s.auc_sq >= 0 else 0)), classes="title")
            if s.auc_bidder >= 0:
                yield Label(_("Highest bid: {money} by {name}").format(money=format_money(s.auc_high),
                                                                     name=self.names[s.auc_bidder]))
            else:
                yield Label(_("No bid yet."))
            lo, hi = self.limits
            yield Label(_("Your bid, from {low} to {high}:").format(low=format_money(lo), high=format_money(hi)))
            yield Input(str(lo), id="amount", type="integer")
            yield Label("", id="error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button(_("Bid"), id="bid", variant="primary", compact=True)
                yield Button(_("Leave the auction"), id="pass", compact=True)
                yield Button(_("Cancel"), id="cancel", compact=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._bid()

    def on_button_pressed(self, event: Button.Pressed) -> None:
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


def manage_label(state: Any, a: Any) -> str:
    """Plain words for a build/sell/mortgage/lift action, with its price."""
    tb = state.tb
    name = state.ed.squares[a.square].name
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


class ManageDialog(_Dialog):
    """Build evenly, sell, mortgage, lift: the legal ones for our seat, one line each;
    dismisses the chosen action or None."""

    def __init__(self, state: Any, legal: list) -> None:
        super().__init__()
        self.state = state
        self.choices = [a for a in legal if isinstance(a, (A.BuildHouse, A.SellBuilding, A.Mortgage, A.LiftMortgage))]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(_("Your properties: choose what to do (Enter)"), classes="title")
            yield OptionList(*[Option(manage_label(self.state, a), id=str(i)) for i, a in enumerate(self.choices)],
                             id="choices")
            yield Button(_("Cancel"), id="cancel", compact=True)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.choices[int(event.option.id)])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)


def describe_offer(state: Any, o: list, names: tuple) -> list[str]:
    """Plain lines for an open offer ``o`` (engine state ``offers`` entry)."""
    from engine.rules import trade as T

    sq = state.ed.squares
    proposer, partner = o[T.O_PROPOSER], o[T.O_PARTNER]
    deck = state.ed.deck_names

    def side(squares, cash, cards) -> str:
        parts = [sq[i].name + (" (" + _("mortgaged") + ")" if state.mort[i] else "") for i in squares]
        if cash:
            parts.append(format_money(cash))
        parts += [_("jail card ({deck})").format(deck=deck[d]) for d in cards]
        return ", ".join(parts) or _("nothing")

    return [_("{name} gives: {things}").format(name=names[proposer], things=side(o[T.O_GIVE], o[T.O_GIVE_CASH], o[T.O_GIVE_CARDS])),
            _("{name} gives: {things}").format(name=names[partner], things=side(o[T.O_GET], o[T.O_GET_CASH], o[T.O_GET_CARDS]))]


class OfferDialog(_Dialog):
    """The offers made to us: accept (after a confirmation) or refuse each one. Dismisses
    ``AcceptTrade``/``RejectTrade`` or None."""

    def __init__(self, state: Any, seat: int, legal: list, names: tuple) -> None:
        super().__init__()
        self.state, self.seat, self.legal, self.names = state, seat, legal, names
        self._armed: str | None = None

    def compose(self) -> ComposeResult:
        from engine.rules import trade as T

        with VerticalScroll(classes="dialog wide"):
            yield Label(_("Trades offered to you"), classes="title")
            for o in self.state.offers:
                if o[T.O_PARTNER] != self.seat:
                    continue
                p = o[T.O_PROPOSER]
                yield Label(_("From {name}:").format(name=self.names[p]), classes="subtitle")
                for line in describe_offer(self.state, o, self.names):
                    yield Label("  " + line)
                with Horizontal(classes="buttons"):
                    if A.AcceptTrade(p, ()) in self.legal:
                        yield Button(_("Accept"), id=f"accept-{p}", variant="success", compact=True)
                    yield Button(_("Refuse"), id=f"reject-{p}", variant="error", compact=True)
            yield Label("", id="error", classes="error")
            yield Button(_("Close"), id="cancel", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        bid = event.button.id or ""
        if bid.startswith("accept-"):
            if self._armed != bid:  # confirm step: a trade cannot be undone
                self._armed = bid
                event.button.label = _("Sure? Press again")
                return
            self.dismiss(A.AcceptTrade(int(bid[7:]), ()))
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
        return [(_("jail card ({deck})").format(deck=self.state.ed.deck_names[d]), d) for d in decks]

    def compose(self) -> ComposeResult:
        first = self.partners[0]
        with Vertical(classes="dialog trade"):
            yield Label(_("Propose a trade"), classes="title")
            yield Select([(self.names[i], i) for i in self.partners], value=first, allow_blank=False, id="partner")
            with Horizontal(classes="sides"):
                with Vertical(classes="side"):
                    yield Label(_("You give"), classes="subtitle")
                    yield SelectionList(*self._props(self.seat), *self._cards_options(self.seat, "mine"), id="give")
                    yield Input(placeholder=_("euro you pay"), id="give_cash", type="integer")
                with Vertical(classes="side"):
                    yield Label(_("You get"), classes="subtitle")
                    yield SelectionList(*self._props(first), *self._cards_options(first, "theirs"), id="get")
                    yield Input(placeholder=_("euro you receive"), id="get_cash", type="integer")
            yield Label("", id="error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button(_("Propose"), id="propose", variant="primary", compact=True)
                yield Button(_("Cancel"), id="cancel", compact=True)

    def _cards_options(self, who: int, tag: str) -> list[tuple[str, int]]:
        # Cards are told apart from squares by an offset: squares are 0..39.
        return [(label, 100 + d) for label, d in self._cards(who)]

    def on_select_changed(self, event: Select.Changed) -> None:
        get = self.query_one("#get", SelectionList)
        get.clear_options()
        who = int(event.value)
        get.add_options(self._props(who) + self._cards_options(who, "theirs"))

    def offer(self) -> Any:
        """The ProposeTrade built from the widgets (ValueError for bad money input)."""
        partner = int(self.query_one("#partner", Select).value)
        give = sorted(self.query_one("#give", SelectionList).selected)
        get = sorted(self.query_one("#get", SelectionList).selected)

        def cash(wid: str) -> int:
            v = self.query_one(wid, Input).value.strip()
            return int(v) if v else 0

        return A.ProposeTrade(partner, tuple(x for x in give if x < 100), tuple(x for x in get if x < 100),
                              cash("#give_cash"), cash("#get_cash"), tuple(x - 100 for x in give if x >= 100),
                              tuple(x - 100 for x in get if x >= 100), ())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id != "propose":
            self.dismiss(None)
            return
        err = self.query_one("#error", Label)
        try:
            a = self.offer()
        except ValueError:
            err.update(_("Money must be a whole number of euro."))
            return
        if not (a.give_squares or a.get_squares or a.give_cash or a.get_cash or a.give_cards or a.get_cards):
            err.update(_("Choose something to give or to get."))
            return
        try:
            engine.apply_action(self.state, self.seat, a)
        except engine.IllegalAction as e:
            err.update(_("Not allowed: {reason}").format(reason=e.reason))
            return
        except ValueError:
            pass  # a chance step is pending: the engine checks the offer when it is applied
        self.dismiss(a)


class SettleDialog(_Dialog):
    """Mortgaged properties inherited from a bankrupt: lift some now or pay the 10 % on them.
    Dismisses the chosen ``SettleMortgages`` or None."""

    def __init__(self, state: Any, legal: list) -> None:
        super().__init__()
        self.state = state
        self.choices = [a for a in legal if isinstance(a, A.SettleMortgages)]

    def _label(self, a: Any) -> str:
        if not a.lift:
            return _("Keep them mortgaged (pay the 10 % now)")
        return _("Lift the mortgage on: {squares}").format(
            squares=", ".join(self.state.ed.squares[sq].name for sq in a.lift))

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(_("You received mortgaged properties"), classes="title")
            yield OptionList(*[Option(self._label(a), id=str(i)) for i, a in enumerate(self.choices)])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.choices[int(event.option.id)])


class CreateDialog(_Dialog):
    """A new game: edition, seats, bots for the empty seats. Dismisses a CreateRequest."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(_("New game"), classes="title")
            yield Label(_("Edition"))
            yield Select([(ed.title, key) for key, ed in engine.EDITIONS.items()], value="classico",
                         allow_blank=False, id="edition")
            yield Label(_("Players"))
            yield Select([(str(n), n) for n in range(2, 9)], value=4, allow_blank=False, id="seats")
            yield Checkbox(_("Bots take the empty seats when you press Start"), value=True, id="bots")
            yield Label(_("If a player drops out, the game waits for them, then stops "
                          "(a bot taking their seat is not available yet)."), classes="note")
            with Horizontal(classes="buttons"):
                yield Button(_("Create"), id="create-game", variant="primary", compact=True)
                yield Button(_("Cancel"), id="cancel", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id != "create-game":
            self.dismiss(None)
            return
        self.dismiss(CreateRequest(edition=str(self.query_one("#edition", Select).value),
                                   seats=int(self.query_one("#seats", Select).value),
                                   bots=self.query_one("#bots", Checkbox).value))


class JoinCodeDialog(_Dialog):
    """Join by address when multicast is blocked: the host's code ADDRESS:PORT/GAMEID.
    Dismisses the text or None."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(_("Join by address"), classes="title")
            yield Label(_("Type the code the host's screen shows (ADDRESS:PORT/GAME ID):"))
            yield Input(placeholder="192.168.1.20:40000/3f2a…", id="code")
            yield Label("", id="error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button(_("Join"), id="join", variant="primary", compact=True)
                yield Button(_("Cancel"), id="cancel", compact=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._done()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "join":
            self._done()
        else:
            self.dismiss(None)

    def _done(self) -> None:
        from ui.play import parse_join_code

        code = self.query_one("#code", Input).value
        try:
            parse_join_code(code)
        except ValueError:
            self.query_one("#error", Label).update(_("That is not a join code (ADDRESS:PORT/GAME ID)."))
            return
        self.dismiss(code)


__all__ = ["ConfirmDialog", "BidDialog", "ManageDialog", "OfferDialog", "TradeDialog", "SettleDialog",
           "CreateDialog", "JoinCodeDialog", "describe_offer", "manage_label"]
