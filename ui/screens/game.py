"""The game screen: board (with dice, turn and log in the middle), players, the commands.

Everything shown comes from the driver (ui/play.py): ``driver.state`` for the board and the
players, ``engine.legal_actions(state, driver.seat)`` for the commands, ``driver.take_events()``
for the log, ``driver.waiting()``/``driver.fault`` for the faults. The screen keeps only what it
shows (the narrated log lines); every choice goes back as an engine action through
``driver.submit``.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Label

import engine
from engine import actions as A
from ui.board_layout import WIDE_FROM, wide_board_width
from ui.display import table_code_line
from ui.i18n import _, format_money, ngettext, to_name
from ui.narrate import Narrator
from ui.screens.dialogs import BidDialog, ConfirmDialog, ManageDialog, OfferDialog, SettleDialog, TradeDialog
from ui.screens.niente_dialogs import BillsDialog, InspectDialog, TakeCardDialog, UseCardDialog, confirm_question
from ui.widgets import ActionBar, Board, PlayersPanel, commands_for
from ui.widgets.actions import KEYS

#: Log lines kept for the centre of the board.
LOG_LINES = 300
#: Seconds between two redraws while steps arrive quickly (autoplay, bots).
REDRAW_S = 0.05


class DriverChanged(Message):
    """The driver reported ``kind`` ("lobby", "step", "fault", "over")."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind


def _bindings() -> list[Binding]:
    """The game screen's keys, all priority bindings: Textual runs a priority binding as the app
    routes the key, so a dialog the key opens is on screen before the next key is routed, and the
    keys typed behind it in one burst reach the dialog ("o 1 2 0 Enter" bids €120). As plain
    bindings they ran only once the key had bubbled up from the focused button, after the app
    had already handed that button the digits (lost) and Enter (pressed it)."""
    labels = {"roll": "roll", "buy": "buy", "decline": "auction", "bid": "bid", "pass": "pass",
              "fine": "fine", "card": "card", "manage": "properties", "trade": "trade", "offer": "offers",
              "withdraw": "withdraw", "claim": "rent", "bankrupt": "bankruptcy", "settle": "mortgages",
              "inspect": "inspect", "skip": "skip", "take": "take card", "leave_card": "leave cards", "use": "use card",
              "bills": "bills"}
    out = [Binding(key, f"command('{cid}')", labels[cid], show=False, priority=True) for cid, key in KEYS.items()]
    out.append(Binding("a", "autoplay", "autoplay", show=False, priority=True))
    out.append(Binding("q", "leave", "quit", show=False, priority=True))
    out.append(Binding("escape", "back", "back", show=False, priority=True))  # a spectator's only
    out.append(Binding("l", "magnifier", "magnifier", show=False, priority=True))
    out.append(Binding("v", "bill_policy", "bills", show=False, priority=True))
    out.append(Binding("h", "chat", "chat", show=False, priority=True))
    out.append(Binding("question_mark", "legend", "legend", show=False, priority=True))
    out.append(Binding("j", "vote_out", "vote out", show=False, priority=True))
    out.append(Binding("J", "skip_turn", "skip turn", show=False, priority=True))
    return out


class GameScreen(Screen):
    """Plays ``driver`` (a ui.play.GameDriver) for the human at ``driver.seat``."""

    BINDINGS = _bindings()

    def __init__(self, driver: Any) -> None:
        super().__init__()
        self.driver = driver
        self.lines: deque[str] = deque(maxlen=LOG_LINES)
        self._narrator: Narrator | None = None
        self._redraw_pending = False
        self._sent_on: Any = None  # the state our last action was chosen on
        self._board_n = 0  # squares of the board the board widget was fitted for
        self._code_shown = False  # the table code's line is in the log (network games)

    def compose(self) -> ComposeResult:
        """The board and the players panel side by side, the status line, the action bar."""
        with Horizontal(id="top"):
            yield Board(id="board")
            yield PlayersPanel(id="players")
        yield Label("", id="status")
        yield ActionBar(id="actions")

    def on_mount(self) -> None:
        """Apply the saved bill policy (niente), redraw now and every second."""
        settings = getattr(self.app, "settings", None)
        if settings is not None and settings.path is not None:
            # The standing choice of bills the player saved (niente); without a settings file
            # (tests, demos) the driver's own choice stands.
            self.driver.human.set_bills(settings.bills)
        self.set_interval(1.0, self._redraw)
        self._fit_board(self.app.size.width)
        self._redraw()

    def on_resize(self, event: Any) -> None:
        """The terminal's size changed: fit the board to it."""
        self._fit_board(event.size.width)

    def _fit_board(self, width: int) -> None:
        """Wide layout: the board exactly as wide as its cells (ui.board_layout.wide_board_width),
        the players panel the rest; narrow: the whole width (app.tcss)."""
        s = self.driver.state
        self._board_n = n = len(s.ed.squares) if s is not None else 40
        self.query_one(Board).styles.width = wide_board_width(width, n) if width >= WIDE_FROM else None

    # -- driver -> screen ------------------------------------------------------------------

    def on_driver_changed(self, message: DriverChanged) -> None:
        """The driver changed: the end screen at the end or on a fault; else one redraw within
        REDRAW_S."""
        if message.kind in ("over", "fault"):
            self._redraw()
            self.app.game_finished(self.driver)
            return
        if not self._redraw_pending:
            self._redraw_pending = True
            self.set_timer(REDRAW_S, self._redraw)

    def _redraw(self) -> None:
        self._redraw_pending = False
        d = self.driver
        s = d.state
        if s is None:
            return
        if len(s.ed.squares) != self._board_n:  # the state came after the mount (niente: 36 squares)
            self._fit_board(self.app.size.width)
        if self._narrator is None and d.names:
            self._narrator = Narrator(s.ed, d.names, d.seat)
        code = getattr(d, "table_code", "")
        if code and not self._code_shown:  # first line of the game's log: compare it out loud (§C2.4)
            self._code_shown = True
            self.lines.append(table_code_line(code))
        events = d.take_events()
        if self._narrator is not None and engine.has_hidden(s):
            self._narrator.denominations = engine.observation.denominations(s)  # bill id -> euro
        if self._narrator is not None and events:
            self.lines.extend(self._narrator.lines(events))
        board = self.query_one(Board)
        board.names = d.names
        board.status = self.status_text()
        board.log = tuple(self.lines)
        board.table_code = code
        board.state = s
        players = self.query_one(PlayersPanel)
        players.names = d.names
        players.me = d.seat
        players.view = d.private_view()
        players.changes = dict(getattr(d, "seat_changes", {}))
        players.state = s
        self.query_one("#status", Label).update(self.footer_text())
        # After a choice, offer nothing until the state moves on: no double roll by a
        # second key press while the peers apply the step.
        busy = d.human.autoplay or self._sent_on is s
        # Rent is claimed by HumanSeat itself (auto_claim) at our next input: its key would only
        # send a second claim, refused by the rules (seen in session 11's walk: "[g] Ask for the
        # rent" stayed while the step waited for the next player's roll).
        cmds = () if busy else tuple(c for c in commands_for(s, d.seat, self.legal())
                                     if c.id != "claim" or not d.human.auto_claim)
        bar = self.query_one(ActionBar)
        if bar.commands != cmds:
            bar.commands = cmds

    def legal(self) -> list:
        """Our legal actions now (empty while we wait for a chance step or after the end)."""
        d = self.driver
        if d.state is None or d.seat < 0 or d.phase != "playing":
            return []
        return engine.legal_actions(d.state, d.seat)

    def status_text(self) -> str:
        """What the game waits for, in plain words, for the centre of the board."""
        d = self.driver
        s = d.state
        if d.phase == "over":
            return _("The game is over.")
        if self._out():  # no bot and no decision of ours left: say so, not "the bot plays for you"
            return _("You are bankrupt: you can follow the game to its end.")
        if d.human.autoplay:
            return _("The bot is playing for you (press a to take over).")
        p = engine.pending(s)
        if d.seat in p.actors and p.kind == "raise_money" and s.debts:
            _debtor, creditor, amount, _square = s.debts[0][:4]
            to = _("to the bank") if creditor < 0 else to_name(d.names[creditor])
            return _("You owe {money} to {name} and have {cash}: sell, mortgage, or declare bankruptcy.").format(
                money=format_money(amount), name=_("the bank") if creditor < 0 else d.names[creditor],
                to_name=to, cash=format_money(s.cash[d.seat]))
        if d.seat in p.actors:
            return {"roll": _("Your turn: roll the dice."),
                    "jail": _("You are in jail: roll for a double, pay the fine or use a card."),
                    "buy_or_auction": _("Buy this property or put it up for auction."),
                    "auction_bid": _("Auction: bid or leave."),
                    "raise_money": _("You owe money: sell, mortgage, or declare bankruptcy."),
                    "mortgage_choice": _("Choose what to do with the inherited mortgages."),
                    "inspect_window": _("Magnifier: inspect the payment or the card, or let it go."),
                    "take_card": _("Take a face-up Chance card or leave them."),
                    "pay_bills": _("Choose the bills you pay with (z)."),
                    }.get(p.kind, _("Your move."))
        if p.actors:
            who = ", ".join(d.names[i] for i in p.actors if i < len(d.names))
            return _("Waiting for {names}.").format(names=who)
        return ""

    def footer_text(self) -> str:
        """Bottom line: our turn time left (when it runs), waiting for slow peers, autoplay
        and quit keys."""
        d = self.driver
        parts = []
        s = d.state
        if getattr(d, "spectator", False):  # lanopoli watch: nothing to decide, nothing to say
            return self._spectator_footer()
        # Our money and whose turn it is, whatever the terminal size (the players panel may
        # be short of rows, the board's centre of columns).
        if s is not None and 0 <= d.seat < s.n and 0 <= s.current < len(d.names):
            parts.append(_("You: {money}").format(money=format_money(s.cash[d.seat])))
            parts.append(_("Your turn") if s.current == d.seat else _("Turn: {name}").format(
                name=d.names[s.current], to_name=to_name(d.names[s.current])))
        left = d.turn_left()
        if left is not None:
            parts.append(_("{seconds:.0f} s left").format(seconds=left))  # short: "q: quit" must fit 80 columns
        w = d.waiting()
        turn = parts[-1] if len(parts) == 2 else None
        if w is not None:
            seats, seconds = w
            parts.append(_("Waiting for {names} for {seconds:.0f} s").format(
                names=", ".join(d.names[i] for i in seats if i < len(d.names)), seconds=seconds))
            if turn is not None and s is not None and s.current != d.seat and tuple(seats) == (s.current,):
                parts.remove(turn)  # "Turn: Anna · Waiting for Anna for 5 s" says Anna twice
        for t in d.skip_tallies():  # votes to let an idle seat's turn pass (protocol.md §C8.10)
            if t.seat < len(d.names):
                parts.append(_("{votes}/{quorum} to skip {name}'s turn").format(
                    votes=t.votes, quorum=t.quorum, name=d.names[t.seat]))
        magnifier = None
        if s is not None and engine.has_hidden(s):
            magnifier = {"ask": _("l: magnifier always"),
                         "mine": _("l: magnifier for you only"),
                         "never": _("l: magnifier never")}[d.human.inspect]
            parts.append(magnifier)
        at = len(parts)
        if not self._out():  # a bankrupt seat has nothing for a bot to play
            parts.append(_("a: let the bot play for me (on)") if d.human.autoplay else _("a: let the bot play for me"))
        parts.append(_("q: quit"))
        if magnifier is not None and len(" · ".join(parts)) > self._width():
            # "q: quit" must stay on screen (niente at 80 columns cut it off): the magnifier
            # setting goes first; the legend ("?") names the l key.
            parts.remove(magnifier)
            at -= 1
        if not self._out() and len(" · ".join(parts)) > self._width():
            # "q: quit" must stay on screen (a wait for two players cut it at 80 columns): the
            # autoplay hint goes short.
            parts[at] = _("a: bot (on)") if d.human.autoplay else _("a: bot")
            if len(" · ".join(parts)) > self._width():  # a wait for three players: it goes
                del parts[at]
        if s is not None and engine.has_hidden(s):
            # How our bills are chosen (v), only where it fits: "q: quit" must stay on screen.
            bills = {"keep": _("v: keep fakes"), "spend": _("v: spend fakes"),
                     "ask": _("v: ask for bills")}[d.human.bills]
            if len(" · ".join(parts)) + 3 + len(bills) <= (self.size.width or 80):
                parts.insert(at, bills)
        chat = _("h: chat")
        if len(" · ".join(parts)) + 3 + len(chat) <= self._width():
            parts.insert(len(parts) - 1, chat)
        return " · ".join(parts)

    def _spectator_footer(self) -> str:
        """A spectator's bottom line: whose turn, read-only, chat, and ``q``: back to the list of
        games it was opened from (``LanopoliApp.list_below``), else quit. Whole at 80 columns:
        "read-only" goes short, then the chat hint goes; the ``q`` hint always stays."""
        d, s = self.driver, self.driver.state
        turn = [_("Turn: {name}").format(name=d.names[s.current], to_name=to_name(d.names[s.current]))] \
            if s is not None and 0 <= s.current < len(d.names) else []
        q = _("q: back to the list") if self._list_below() else _("q: quit")
        for parts in ([_("watching: read-only, every move verified"), _("h: chat")], [_("read-only"), _("h: chat")],
                      [_("read-only")]):
            line = " · ".join(turn + parts + [q])
            if len(line) <= self._width():
                break
        return line

    def _list_below(self) -> bool:
        """The app shows a list of games under this screen (False outside a running app)."""
        try:
            return bool(getattr(self.app, "list_below", lambda: False)())
        except RuntimeError:  # textual's NoActiveAppError: a bare screen in a test
            return False

    def _out(self) -> bool:
        """Our seat has gone bankrupt (state ``out``, engine/state.py) in a game still running."""
        s, seat = self.driver.state, self.driver.seat
        return s is not None and 0 <= seat < s.n and bool(s.out[seat])

    def _width(self) -> int:
        """Columns of the screen; 80 outside a running app (tests build a bare GameScreen)."""
        try:
            return self.size.width or 80
        except RuntimeError:  # textual's NoActiveAppError
            return 80

    # -- screen -> driver ------------------------------------------------------------------

    def on_action_bar_chosen(self, message: ActionBar.Chosen) -> None:
        """A button of the action bar: run its command."""
        self.run_command(message.command.id)

    def action_command(self, cid: str) -> None:
        """A command key: run that command."""
        self.run_command(cid)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Textual: a command key works only while its command is offered."""
        if action == "command":
            return any(c.id == parameters[0] for c in self.query_one(ActionBar).commands)
        if action == "back":  # Escape is a spectator's key: a player's Escape stays as it was
            return bool(getattr(self.driver, "spectator", False))
        return True

    def action_leave(self) -> None:
        """q: leave the game, after a question whose default is No (a running network game goes
        on without us: the others drop our seat after their drop timeout). A spectator goes
        back to the list of games it opened this one from, without a question (watching costs
        the game nothing): ``LanopoliApp.leave_spectator``."""
        if getattr(self.driver, "spectator", False):
            self.app.leave_spectator(self.driver)
            return
        if self.driver.phase != "playing":
            self.app.action_quit_now()
            return
        question = _("Leave the game? The others go on without you: after a while a bot plays your seat, "
                     "or it goes bankrupt, as the game was set up.") if self.driver.log_path is not None \
            or getattr(self.driver, "node", None) is not None else _("Leave the game? It ends here.")
        bots = getattr(self.driver, "bots_running", 0)
        if bots:  # the host's bots run in this program (session 11's walk: they left with it)
            question = ngettext(
                "Leave the game? The bot that took an empty seat runs in this program and leaves with you; "
                "if too few players are left to go on without you both, the game ends for everyone.",
                "Leave the game? The {n} bots that took the empty seats run in this program and leave with "
                "you; if too few players are left to go on without you all, the game ends for everyone.",
                bots).format(n=bots)
        self.app.push_screen(ConfirmDialog(question, yes=_("Yes, leave")),
                             lambda ok: self.app.action_quit_now() if ok else None)

    def action_back(self) -> None:
        """Escape (a spectator's, ``check_action``): as ``q``, back to the list of games."""
        self.app.leave_spectator(self.driver)

    def action_magnifier(self) -> None:
        """l (niente-e-come-sembra): when to offer the magnifier — every payment, only payments
        to us and cards, never (HumanSeat.inspect); an open window we no longer want passes."""
        if self.driver.state is not None and engine.has_hidden(self.driver.state):
            self.driver.human.cycle_inspect()
            self._redraw()

    def action_bill_policy(self) -> None:
        """v (niente-e-come-sembra): how our bills are chosen when we pay — keep our known
        fakes, spend them first, or ask at every payment (HumanSeat.bills); saved in the
        settings for the next games."""
        if self.driver.state is None or not engine.has_hidden(self.driver.state):
            return
        from ui.hidden import BILL_POLICIES

        human = self.driver.human
        human.set_bills(BILL_POLICIES[(BILL_POLICIES.index(human.bills) + 1) % len(BILL_POLICIES)])
        settings = getattr(self.app, "settings", None)
        if settings is not None:
            settings.bills = human.bills
            settings.save()
        self._redraw()

    def action_chat(self) -> None:
        """h: type a chat line for the others (protocol.md §N9; a spectator's goes through the
        seat it watches, §N10); it shows in the log."""
        from ui.screens.dialogs import ChatDialog
        self.app.push_screen(ChatDialog(self.driver.say), lambda _sent: self._redraw())

    def action_legend(self) -> None:
        """?: what the marks on the board mean (ui/screens/legend.py)."""
        from ui.screens.legend import LegendDialog
        self.app.push_screen(LegendDialog(self.driver.state))

    def action_vote_out(self) -> None:
        """j: vote to drop the seats the game waits for now (protocol.md §C13.6); the vote
        shows in the log as a SeatChanged line."""
        if self.driver.vote_out():
            self._redraw()
            return
        self._no_vote(_("Nobody to vote out: the game is not waiting for anyone."),
                      _("No vote sent: you already voted, or nobody can be voted out now."))

    def action_skip_turn(self) -> None:
        """J: vote to let the turn of the seats the game waits for pass at this step (their
        input counts as nil, they keep their seats; protocol.md §C8.10). The votes held show in
        the bottom line, a skipped turn in the log."""
        if self.driver.skip_turn():
            self._redraw()
            return
        self._no_vote(_("Nobody to skip: the game is not waiting for anyone."),
                      _("No vote sent: you already voted, or this turn cannot be skipped now."))

    def _no_vote(self, nobody: str, refused: str) -> None:
        """j/J sent no vote: say why in the log (the driver reports no waiting before
        WAIT_NOTICE_S, so a key pressed then reads as "nobody waited for")."""
        self.lines.append(nobody if self.driver.waiting() is None else refused)
        self._redraw()

    def action_autoplay(self) -> None:
        """a: let the bot play for us, or take the controls back (not for a spectator)."""
        if getattr(self.driver, "spectator", False):
            return
        self.driver.human.set_autoplay(not self.driver.human.autoplay)
        self._redraw()

    def run_command(self, cid: str) -> None:
        """Carry out command ``cid`` (a KEYS key) if it is offered now."""
        d = self.driver
        cmd = next((c for c in self.query_one(ActionBar).commands if c.id == cid), None)
        if cmd is None:
            return
        s, seat, legal = d.state, d.seat, self.legal()
        if cmd.nothing:
            self._send(None)
            return
        if cmd.action is not None:
            if cmd.confirm:
                question = _("Declare bankruptcy? Everything you own goes to your creditor and you leave the game.")
                self.app.push_screen(ConfirmDialog(question, yes=_("Yes, declare bankruptcy")),
                                     lambda ok: self._send(cmd.action) if ok else None)
            else:
                self._send(cmd.action)
            return
        dialog = {"bid": lambda: BidDialog(s, seat, d.names),
                  "manage": lambda: ManageDialog(s, legal),
                  "offer": lambda: OfferDialog(s, seat, legal, d.names),
                  "trade": lambda: TradeDialog(s, seat, d.names),
                  "settle": lambda: SettleDialog(s, legal),
                  "inspect": lambda: InspectDialog(s, seat, legal, d.names, d.private_view()),
                  "take": lambda: TakeCardDialog(s, seat, legal, d.private_view()),
                  "use": lambda: UseCardDialog(s, legal),
                  "bills": lambda: BillsDialog(s, seat, d.names, d.private_view())}[cid]()
        # The state the dialog shows goes with its answer: an answer to an offer is kept with the
        # offer as the player saw it (HumanSeat.submit), not as the last step left it (RV16S-B F1).
        self.app.push_screen(dialog, lambda action: self._after_dialog(action, s))

    def _after_dialog(self, action: Any, shown: Any = None) -> None:
        if action is None:
            return
        question = _("Sell a building for half what it cost?") if isinstance(action, A.SellBuilding) \
            else confirm_question(self.driver.state, self.driver.seat, action)
        if question:
            self.app.push_screen(ConfirmDialog(question), lambda ok: self._send(action, shown) if ok else None)
            return
        self._send(action, shown)

    def _send(self, action: Any, shown: Any = None) -> None:
        self.driver.submit(action, shown)
        self._sent_on = self.driver.state
        self._redraw()


__all__ = ["GameScreen", "DriverChanged"]
