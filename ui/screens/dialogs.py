"""Modal dialogs. Each offers only choices the engine allows and dismisses with its answer
(an engine action, a request, or None when cancelled); the game screen submits it."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, OptionList, Select, SelectionList
from textual.widgets.option_list import Option

import engine
from engine import actions as A
from ui.i18n import _, format_money
from ui.backends import CreateRequest


class _Dialog(ModalScreen):
    """Escape cancels (dismiss None)."""

    BINDINGS = [Binding("escape", "cancel", _("Cancel"))]

    def action_cancel(self) -> None:
        """Esc: close the dialog with no answer (None)."""
        self.dismiss(None)


class ConfirmDialog(_Dialog):
    """Asks ``question``; dismisses True (confirmed) or False/None. The focus starts on No, so
    that Enter after a stray key never confirms something that cannot be undone; ``y``/``n``
    answer too. ``yes``: the confirming button's text (default "Yes, go ahead")."""

    BINDINGS = [Binding("escape", "cancel", _("Cancel")), Binding("n", "cancel", _("No")),
                Binding("y", "confirm", _("Yes"))]

    def __init__(self, question: str, yes: str | None = None) -> None:
        super().__init__()
        self.question = question
        self.yes = yes

    def compose(self) -> ComposeResult:
        """The question and the No / Yes buttons."""
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="question")
            with Horizontal(classes="buttons"):
                yield Button(escape(_("No [n]")), id="no", variant="primary", compact=True)
                yield Button(escape((self.yes or _("Yes, go ahead")) + " [y]"), id="yes", variant="error", compact=True)

    def on_mount(self) -> None:
        """Focus starts on No: Enter alone never confirms."""
        self.query_one("#no", Button).focus()

    def action_confirm(self) -> None:
        """y: answer yes."""
        self.dismiss(True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Answer True for Yes, False for No."""
        self.dismiss(event.button.id == "yes")


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
            yield Input(str(lo), id="amount", type="integer")
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


def manage_label(state: Any, a: Any) -> str:
    """Plain words for a build/sell/mortgage/lift action (niente-e-come-sembra: hotel, sell
    back to the bank), with its price."""
    tb = state.tb
    name = state.ed.squares[a.square].name
    if engine.has_hidden(state):
        from engine.observation import hotel_sale_price as hotel_half

        if isinstance(a, A.BuildHouse):
            return _("Buy a hotel for {square} ({money})").format(square=name, money=format_money(tb.house_cost[a.square]))
        if isinstance(a, A.SellBuilding):
            return _("Sell the hotel of {square} to the bank (+{money})").format(
                square=name, money=format_money(hotel_half(state, a.square)))
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


class ManageDialog(_Dialog):
    """Build evenly, sell, mortgage, lift: the legal ones for our seat, one line each;
    dismisses the chosen action or None."""

    def __init__(self, state: Any, legal: list) -> None:
        super().__init__()
        self.state = state
        kinds = (A.BuildHouse, A.SellBuilding, A.SellProperty) if engine.has_hidden(state) else \
            (A.BuildHouse, A.SellBuilding, A.Mortgage, A.LiftMortgage)  # niente: Mortgage = SellProperty
        self.choices = [a for a in legal if isinstance(a, kinds)]

    def compose(self) -> ComposeResult:
        """One line per legal build, sale, mortgage or lift of ours, and Cancel."""
        with Vertical(classes="dialog wide"):
            yield Label(_("Your properties: choose what to do (Enter)"), classes="title")
            yield OptionList(*[Option(manage_label(self.state, a), id=str(i)) for i, a in enumerate(self.choices)],
                             id="choices")
            yield Button(_("Cancel"), id="cancel", compact=True)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Answer the chosen action."""
        self.dismiss(self.choices[int(event.option.id)])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Cancel: no action."""
        self.dismiss(None)


def describe_offer(state: Any, o: list, names: tuple, me: int = -1) -> list[str]:
    """Plain lines for an open offer ``o`` (engine state ``offers`` entry, read through
    ``engine.observation.offer``), the proposer's side first; our seat ``me`` reads "You give"."""
    from engine.observation import offer

    sq = state.ed.squares
    o = offer(o)
    deck = state.ed.deck_names

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
        return [(_("jail card ({deck})").format(deck=self.state.ed.deck_names[d]), d) for d in decks]

    def compose(self) -> ComposeResult:
        """The partner, what we give and what we get (properties, cards, money), Propose and Cancel."""
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
        """One line per way to settle the mortgaged properties received (lift some now, or keep them
        and pay the 10 %)."""
        with Vertical(classes="dialog wide"):
            yield Label(_("You received mortgaged properties"), classes="title")
            yield OptionList(*[Option(self._label(a), id=str(i)) for i, a in enumerate(self.choices)])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Answer the chosen settlement."""
        self.dismiss(self.choices[int(event.option.id)])


#: (checkbox id, engine option key) of the house rules (engine/rules/house_rules.py;
#: docs/RULES.md), all off by default like ``lanopoli host``'s flags.
HOUSE_RULES = (("pot", "free_parking_pot"), ("no-auctions", "no_auctions"), ("double-go", "double_go_salary"))


def house_rule_label(key: str) -> str:
    """The checkbox text of a house rule (translated)."""
    return {"free_parking_pot": _("Free-parking pot (taxes and fines go to whoever lands there)"),
            "no_auctions": _("No auctions (a declined property stays with the bank)"),
            "double_go_salary": _("Double salary landing exactly on VIA!")}[key]


class CreateDialog(_Dialog):
    """A new game: edition, seats, bots for the empty seats, and the lobby options of ``lanopoli
    host`` (ui/peer.py ``game_options``): the rule for a player who drops out (``on_drop`` bot /
    bankrupt / off, after ``drop_timeout`` s of silence, protocol.md §C7.1), the house rules (all off
    by default) and the timed game (minutes; editions with ``timed_game`` only). Bad input shows
    an error and keeps the dialog. Dismisses a CreateRequest or None."""

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
            yield Checkbox(_("Bots take the empty seats when you press Start"), value=True, id="bots", compact=True)
            with Horizontal(classes="row"):
                yield Label(_("If a player drops out"), classes="prompt")
                yield Select([(_("a bot plays for them"), "bot"), (_("they go bankrupt"), "bankrupt"),
                              (_("the game waits for them"), "off")], value="bot", allow_blank=False, id="on_drop",
                             compact=True)
            with Horizontal(classes="row"):
                yield Label(_("after seconds of silence ({low}–{high})").format(low=MIN_DROP_TIMEOUT, high=MAX_DROP_TIMEOUT),
                            classes="prompt")
                yield Input("30", id="drop_timeout", type="integer", compact=True)
            yield Label(_("House rules (off unless ticked)"), classes="subtitle")
            for wid, key in HOUSE_RULES:
                yield Checkbox(house_rule_label(key), value=False, id=wid, compact=True)
            with Horizontal(classes="row", id="timed-row"):
                yield Label(_("Timed game, minutes (empty: no limit)"), classes="prompt")
                yield Input("", placeholder=_("off"), id="timed", type="number", compact=True)
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


class JoinCodeDialog(_Dialog):
    """Join by address when multicast is blocked: the host's code ADDRESS:PORT/XXXXX-XXXXX
    (``ui.backends.parse_join_code``). Dismisses the text or None."""

    def compose(self) -> ComposeResult:
        """The code field (ADDRESS:PORT/CODE), an error line, Join and Cancel."""
        with Vertical(classes="dialog"):
            yield Label(_("Join by address"), classes="title")
            yield Label(_("Type the code the host's screen shows (ADDRESS:PORT/CODE):"))
            yield Input(placeholder="192.168.1.20:40000/7KQ2M-XH3PA", id="code")
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
            yield Input(placeholder=_("your message"), id="chat", max_length=MAX_CHAT_TEXT)
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
           "CreateDialog", "JoinCodeDialog", "describe_offer", "manage_label"]
