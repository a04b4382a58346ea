"""Engine events in plain words, for the game log in the middle of the board.

``Narrator(edition, names).lines(events) -> list[str]`` turns the engine events of one or more
steps (engine/events.py) into translated sentences, e.g. "Marco paga €50 di affitto a Giulia
per Viale Vesuvio". Property names stay as printed (Italian), the board's words of the game and
the cards' texts are in the player's language (ui.i18n.term: "GO", "Chance" in English;
ui.i18n.card_text: "Advance to GO! Collect €200."); money is "€1.500"
(``ui.i18n.format_money``). Bookkeeping events already told by another sentence (the money of
a purchase, of a building) produce nothing. The narrator remembers which square a pending rent
is for (``RentDue`` comes before the ``MoneyPaid`` of the claim).
"""

from __future__ import annotations

from typing import Any, Sequence

from engine.editions import K_TAX
from ui.i18n import _, card_text, format_money, from_name, square_name, term, to_name
from ui.log_order import WAITS, of_window, pull_outcomes, rent_key, settles_debt, trade_first, window_follows

#: MoneyPaid reasons told by a more specific event of the same step.
_SILENT_PAYMENTS = frozenset(("purchase", "auction", "house", "sale", "mortgage", "lift"))


def card_title(edition: Any, deck: int, card: int, width: int = 40) -> str:
    """The card's first words in the player's language (``ui.i18n.card_text``), at most ``width``
    characters: up to its first ":", "!" or "." ("Albergo gratis!", "Avete vinto alla lotteria";
    "Free hotel!", "You have won the lottery"); a title that starts "Invece di ..., " ("Instead
    of ..., ") keeps what follows the comma ("Andate avanti fino al VIA!", "Advance to GO and
    collect €200")."""
    text = card_text(edition.decks[deck][card])
    cut = min((i for i in (text.find(":"), text.find("!"), text.find(".")) if i >= 0), default=len(text))
    title = text[:cut + (text[cut:cut + 1] == "!")].strip()
    if title.startswith(("Invece di", "Instead of")) and ", " in title:
        title = title.rsplit(", ", 1)[1]
        title = title[:1].upper() + title[1:]
    return title if len(title) <= width else title[:width - 1] + "…"


def chat_line(line: Any) -> str:
    """A chat line (``p2p.chat.ChatLine``) as the log shows it: "» Anna: ciao", spectators
    marked as such. The text is the author's: the screens show log lines without markup."""
    who = line.name if line.role != "spectator" else _("{name} (spectator)").format(name=line.name)
    return "» " + who + ": " + line.text


class Narrator:
    """Sentences for engine events. ``edition``: ``engine.Edition``; ``names``: player names in
    seat order; ``me``: our seat (refused actions are told only for it; -1: none)."""

    def __init__(self, edition: Any, names: Sequence[str], me: int = -1) -> None:
        self.ed = edition
        self.names = tuple(names)
        self.me = me
        #: Denomination of each bill id (niente-e-come-sembra; set by the screen from the state).
        self.denominations: Sequence[int] = ()
        self._rent_square: dict[tuple[int, int], int] = {}
        #: Rents (creditor, debtor) still open when the next turn began: the owner claims them
        #: under the next player's "— X's turn —" line (the rule lets him until the next roll).
        self._late_rents: set[tuple[int, int]] = set()
        #: The last Moved / CardDrawn / AuctionEnded of each seat: why a debt opens.
        self._context: dict[int, Any] = {}
        #: Lines held back: the next turn's "— X's turn —" line (and what follows it) while the
        #: rents of the landing that ended the last turn are due (``_held_rents``), so that the
        #: owner's claim, one step later, is told before it (:meth:`lines`).
        self._held: list[str] = []
        self._held_rents: set[tuple[int, int]] = set()
        #: Held rents whose claim opened a debt (``DebtOpened``): the turn line waits for the
        #: debt's payment or the debtor's bankruptcy, and the debtor's sales and mortgages come
        #: before it too (the next player cannot roll while the debt is open, engine.game.advance).
        self._held_debts: set[tuple[int, int]] = set()
        #: niente: the held rents were paid with bills: the held lines wait for what follows
        #: the payment too (the payer's choice of bills, a magnifier window and its outcome):
        #: None, no such wait; True, a choice or a window is open; False, its outcome was told.
        self._window: bool | None = None
        #: Seats whose JailCardUsed was told and whose LeftJail("card") is still to come (the
        #: engine tells both; niente: after the card's magnifier window), told once.
        self._jail_card: set[int] = set()
        #: The debtor of the last DebtOpened, until the next roll: a roll of ours refused meanwhile
        #: ("not_your_roll") went with the claim that opened the debt, in one step (walk, H130).
        self._debtor: int | None = None

    def who(self, seat: int) -> str:
        """A seat's name; the bank for -1."""
        if seat < 0:
            return _("the bank")
        return self.names[seat] if seat < len(self.names) else _("seat {seat}").format(seat=seat)

    def to(self, seat: int) -> str:
        """"to" + a seat's name, folded as the language wants it ("alla banca", "ad Anna")."""
        return _("to the bank") if seat < 0 else to_name(self.who(seat))

    def frm(self, seat: int) -> str:
        """"from" + a seat's name ("dalla banca", "da Anna")."""
        return _("from the bank") if seat < 0 else from_name(self.who(seat))

    def square(self, sq: int) -> str:
        """A square's name: as printed, but the board's words of the game in English
        (ui.i18n.term: "GO", "Jail / Just Visiting")."""
        return square_name(self.ed.squares[sq])

    def lines(self, events: Sequence[Any]) -> list[str]:
        """Sentences for ``events`` in order (see the module doc), with one reordering: a rent
        is claimed in the step after the landing (engine.rules.rent: the owner may ask "prima
        che il giocatore successivo abbia lanciato i dadi"), when the landing's step has already
        started the next turn. The next turn's line is then held back until the claim (or the
        lapse, or the debt) of every rent due at the turn's start is told, so the log reads
        "Bruno pays €6 rent to Anna for Viale Vesuvio", then "— Carla's turn —" (session 10's
        newcomer walk). The first such outcome of each held rent before the next turn's start in
        ``events`` is told first (the seats' inputs of one step are simultaneous: a mortgage
        lifted by another seat in the claim's step comes after; the screen may hand over several
        steps at once). Any other line, or :meth:`flush`, lets the held lines out first; a claim
        told after them says the owner claims it. A claim that opens a debt (the debtor lacks the
        cash) keeps the line held until the debt is paid or the debtor goes bankrupt (``settles_debt``):
        the next player cannot roll meanwhile (engine.game.advance), so every line until then (the
        debtor's mortgages and sales) is the last turn's (H125's walk, s12). niente-e-come-sembra: a held rent paid with
        bills also waits for what follows the payment (``of_window``: the choice of bills, a
        magnifier window and its outcome, told at once), until a batch ends with nothing open.
        An accepted trade is told before the transfers it caused (``trade_first``)."""
        out: list[str] = []
        queue = list(events)
        trade_first(queue)
        if self._held:
            pull_outcomes(queue, 0, self._held_rents)
        i = 0
        while i < len(queue):
            e = queue[i]
            i += 1
            key = rent_key(e)
            if self._held and self._window is not None and of_window(e):
                # niente: the rent's bills, their window and its outcome come before the turn line.
                self._window = type(e).__name__ in WAITS
                text = self.line(e)
                out.extend(text.split("\n") if text else ())
                continue
            if self._held_debts and type(e).__name__ != "TurnStarted" and key not in self._held_rents:
                # A held rent's debt is open: what happens until it is paid is of the last turn.
                text = self.line(e)
                out.extend(text.split("\n") if text else ())
                if settles_debt(e, self._held_debts):
                    out.extend(self._outcome_told(queue, i))
                continue
            if self._held and key not in self._held_rents:
                # Not the held rent's outcome: the held lines go first, if this event says anything.
                text = self.line(e)
                if text:
                    out.extend(self.flush())
                    out.extend(text.split("\n"))
                continue
            if type(e).__name__ == "TurnStarted" and not set(self._rent_square) <= self._late_rents:
                # The turn passes with a rent of this turn still to claim: hold its line.
                self._held_rents = set(self._rent_square) - self._late_rents
                self._held = [_("— {name}'s turn —").format(name=self.who(e.seat), to_name=self.to(e.seat))]
                pull_outcomes(queue, i, self._held_rents)
                continue
            text = self.line(e)
            if text:
                out.extend(text.split("\n"))
            if key is not None and key in self._held_rents:
                self._held_rents.discard(key)
                if type(e).__name__ == "DebtOpened":
                    self._held_debts.add(key)  # the turn line waits for the debt's outcome
                    continue
                out.extend(self._outcome_told(queue, i))
        if self._held and self._window is False:
            out.extend(self.flush())  # what followed the payment is told: the turn line now
        return out

    def _outcome_told(self, queue: list[Any], i: int) -> list[str]:
        """A held rent's outcome (or its debt's) was just told, ``queue[i:]`` still to come: when
        no held rent or debt is left open, the held lines go out now (``flush``), or, when a
        niente window follows (``window_follows``), once the batch ends with it told (``_window``
        False). Else nothing yet ([])."""
        if self._held_rents or self._held_debts:
            return []
        if window_follows(queue, i):
            self._window = False
            return []
        return self.flush()

    def flush(self) -> list[str]:
        """The held lines (see :meth:`lines`), now; the rents still due are from then on the
        last turn's ("{partner} claims the rent: ..."). Empty when nothing is held."""
        held, self._held = self._held, []
        self._window = None
        if held:
            self._late_rents = set(self._rent_square)
            self._held_rents = set()
            self._held_debts = set()
        return held

    @property
    def holding(self) -> bool:
        """True while lines are held back (a rent of the last turn not yet claimed)."""
        return bool(self._held)

    def line(self, e: Any) -> str | None:  # noqa: C901 - one branch per event type
        """One sentence for one event, or None when it tells nothing new."""
        k = type(e).__name__
        m = format_money
        if k == "FirstPlayerRolled":
            parts = ", ".join(f"{self.who(s)} {t}" for s, t in zip(e.seats, e.totals))
            return _("Who starts: {rolls}").format(rolls=parts)
        if k == "TurnStarted":
            self._late_rents = set(self._rent_square)
            return _("— {name}'s turn —").format(name=self.who(e.seat), to_name=self.to(e.seat))
        if k == "DiceRolled":
            self._debtor = None  # any debt is settled: a roll is applied only without one
            return _("{name} rolls {d1} and {d2}").format(name=self.who(e.seat), d1=e.d1, d2=e.d2)
        if k in ("Moved", "CardDrawn", "AuctionEnded"):
            self._context[getattr(e, "seat", getattr(e, "winner", -1))] = e
        if k == "Moved":
            return _("{name} moves to {square}").format(name=self.who(e.seat), square=self.square(e.to))
        if k == "MoneyPaid":
            return self._money(e)
        if k == "PropertyBought":
            won = self._context.get(e.seat)
            if type(won).__name__ == "AuctionEnded" and won.square == e.square:
                return None  # "X wins Y at auction for €n" said it already (the engine tells both)
            return _("{name} buys {square} for {money}").format(
                name=self.who(e.seat), square=self.square(e.square), money=m(e.price))
        if k == "AuctionStarted":
            return _("Auction for {square}").format(square=self.square(e.square))
        if k == "OwnInput":  # the engine tells every bid (BidOffered): nothing to add
            return None
        if k == "SeatChanged":
            return self._seat_changed(e)
        if k == "BadRecords":  # a spectator's server lied (ui.watch, protocol.md §N10)
            return _("{name} sent a record that does not verify (step {step}): following another player").format(
                name=self.who(e.seat), step=e.step)
        if k == "ChatLine":
            return chat_line(e)
        if k in ("BidPlaced", "BidOffered"):  # every bid of a round, the highest last
            return _("{name} bids {money}").format(name=self.who(e.seat), money=m(e.amount))
        if k == "AuctionTied":
            return _("Tie at {money} between {names}: everybody bids again").format(
                money=m(e.amount), names=", ".join(self.who(s) for s in e.seats))
        if k == "AuctionTieRolled":
            parts = ", ".join(f"{self.who(s)} {t}" for s, t in zip(e.seats, e.totals))
            return _("Tie-break roll: {rolls}").format(rolls=parts)
        if k == "BidPassed":
            return _("{name} leaves the auction").format(name=self.who(e.seat))
        if k == "AuctionEnded":
            if e.winner < 0:
                return _("Nobody bid for {square}").format(square=self.square(e.square))
            return _("{name} wins {square} at auction for {money}").format(
                name=self.who(e.winner), square=self.square(e.square), money=m(e.amount))
        if k == "RentDue":
            self._rent_square[(e.creditor, e.debtor)] = e.square
            self._late_rents.discard((e.creditor, e.debtor))  # a new claim, of this turn
            return None
        if k == "RentLapsed":
            self._rent_square.pop((e.creditor, e.debtor), None)
            self._late_rents.discard((e.creditor, e.debtor))
            return _("{name} did not ask for the rent of {square} in time").format(
                name=self.who(e.creditor), square=self.square(e.square))
        if k == "DebtOpened":
            return self._debt(e)
        if k == "CardDrawn":
            card = self.ed.decks[e.deck][e.card]
            return _("{name} draws {deck}: “{text}”").format(
                name=self.who(e.seat), deck=term(self.ed.deck_names[e.deck]), text=card_text(card))
        if k == "JailCardUsed":
            self._jail_card.add(e.seat)
            return _("{name} uses the card to get out of jail free").format(name=self.who(e.seat))
        if k == "SentToJail":
            if e.why == "doubles":  # the move itself looks ordinary (6 and 6): say why
                return _("{name} goes to jail: three doubles in a row").format(name=self.who(e.seat))
            return _("{name} goes to jail").format(name=self.who(e.seat))
        if k == "LeftJail":
            if e.how == "card" and e.seat in self._jail_card:  # "uses the card ..." said it (walk, s12)
                self._jail_card.discard(e.seat)
                return None
            how = {"fine": _("paying the fine"), "card": _("with the card"), "doubles": _("with a double"),
                   "third_turn": _("after the third try")}.get(e.how, e.how)
            return _("{name} gets out of jail {how}").format(name=self.who(e.seat), how=how)
        if k == "BuildingBought":
            if e.level >= 5:
                return _("{name} builds a hotel on {square}").format(name=self.who(e.seat),
                                                                     square=self.square(e.square))
            return _("{name} builds a house on {square} ({n} in all)").format(
                name=self.who(e.seat), square=self.square(e.square), n=e.level)
        if k == "BuildingSold":
            return _("{name} sells a building on {square}").format(name=self.who(e.seat),
                                                                   square=self.square(e.square))
        if k == "PropertyMortgaged":
            return _("{name} mortgages {square}").format(name=self.who(e.seat), square=self.square(e.square))
        if k == "MortgageLifted":
            return _("{name} lifts the mortgage on {square}").format(name=self.who(e.seat),
                                                                     square=self.square(e.square))
        if k == "TradeProposed":
            return _("{name} offers a trade to {partner}").format(
                name=self.who(e.proposer), partner=self.who(e.partner), to_partner=self.to(e.partner))
        if k == "TradeClosed":
            text = {"accepted": _("{partner} accepts the trade offered by {name}"),
                    "rejected": _("{partner} refuses the trade offered by {name}"),
                    "withdrawn": _("{name} withdraws the trade offered to {partner}"),
                    "void": _("The trade offered by {name} to {partner} is no longer possible")}.get(e.outcome)
            return text.format(name=self.who(e.proposer), partner=self.who(e.partner),
                               to_partner=self.to(e.partner)) if text else None
        if k == "PropertyTransferred":
            return _("{square} passes from {name} to {partner}").format(
                square=self.square(e.square), name=self.who(e.frm), partner=self.who(e.to),
                from_name=self.frm(e.frm), to_partner=self.to(e.to))
        if k == "WentBankrupt":
            return _("{name} goes bankrupt; everything goes to {partner}").format(
                name=self.who(e.seat), partner=self.who(e.creditor), to_partner=self.to(e.creditor))
        if k == "GameWon":
            return _("{name} wins the game!").format(name=self.who(e.seat))
        if k in _NIENTE:
            return getattr(self, "_" + k)(e)
        if k == "ActionRefused":
            if e.seat == self.me and e.reason == "not_your_roll" and self._debtor is not None:
                # Our roll went with the claim that opened the debt (engine order: the claim first).
                return _("Your roll does not count: {name} must settle the debt first; roll again then").format(
                    name=self.who(self._debtor))
            if e.seat == self.me:
                return _("Your move was refused by the rules ({reason})").format(reason=e.reason)
            return None
        return None

    def _seat_changed(self, e: Any) -> str:
        """A seat that its person no longer plays (ui.play.SeatChanged), for everybody's log."""
        name = self.who(e.seat)
        if e.change == "lost":
            return _("The others lost contact with you and dropped your seat: you are watching the game now.")
        if e.change == "back":
            if e.seat == self.me:
                return _("You are back at the table (step {step}); catching up with the others.").format(step=e.step)
            return _("{name} is back at the table").format(name=name)
        if e.change == "skipped":
            if e.seat == self.me:
                return _("The others let your turn pass (step {step}): you play again at the next one.").format(
                    step=e.step)
            return _("{name}'s turn was skipped by a majority vote").format(name=name)
        if e.change == "silent":
            return _("{name}: nothing heard for too long; voting to let the game go on without them").format(name=name)
        if e.change == "bankrupt":
            return _("{name}: disconnected, the seat goes bankrupt").format(name=name)
        return _("{name}: disconnected, a bot plays").format(name=name)

    def _debt(self, e: Any) -> str:
        """Whom the debtor owes, how much and why (rent of a square, a tax, a card, an auction
        price), from the events just before it (the engine's DebtOpened carries no reason)."""
        self._debtor = e.debtor
        sq = self._rent_square.get((e.creditor, e.debtor))
        last = self._context.get(e.debtor)
        kind = type(last).__name__
        if sq is not None:
            why = _("rent for {square}").format(square=self.square(sq))
        elif kind == "CardDrawn":
            why = _("card “{card}”").format(card=card_title(self.ed, last.deck, last.card))
        elif kind == "AuctionEnded" and last.square >= 0:
            why = _("auction for {square}").format(square=self.square(last.square))
        elif kind == "Moved" and self.ed.squares[last.to].kind == K_TAX:
            why = self.square(last.to)
        else:
            why = ""
        if why:
            return _("{name} owes {money} to {partner} ({reason}) and lacks the cash: sell, mortgage "
                     "or declare bankruptcy").format(name=self.who(e.debtor), money=format_money(e.amount),
                                                     partner=self.who(e.creditor), to_partner=self.to(e.creditor),
                                                     reason=why)
        return _("{name} owes {money} to {partner} and lacks the cash: sell, mortgage or declare "
                 "bankruptcy").format(name=self.who(e.debtor), money=format_money(e.amount),
                                      partner=self.who(e.creditor), to_partner=self.to(e.creditor))

    # -- niente-e-come-sembra (engine/rules/niente_events.py) ------------------------------

    def _card(self, deck: int, card: int) -> str:
        return card_title(self.ed, deck, card)

    def _BillInspected(self, e: Any) -> str:
        den = format_money(self._denomination(e.bill))
        if e.fake:
            return _("{name} inspects a {money} bill of {partner}: it is fake!").format(
                name=self.who(e.inspector), money=den, partner=self.who(e.payer))
        return _("{name} inspects a {money} bill of {partner}: it is genuine.").format(
            name=self.who(e.inspector), money=den, partner=self.who(e.payer))

    def _denomination(self, bill: int) -> int:
        return self.denominations[bill] if 0 <= bill < len(self.denominations) else 0

    def _CardInspected(self, e: Any) -> str:
        title = self._card(1, e.card)
        if e.fake:
            return _("{name} inspects the Chance card “{card}” of {partner}: it is fake! The card is "
                     "discarded").format(name=self.who(e.inspector), card=title, partner=self.who(e.seat))
        return _("{name} inspects the Chance card “{card}” of {partner}: it is genuine.").format(
            name=self.who(e.inspector), card=title, partner=self.who(e.seat))

    def _FaceUpTaken(self, e: Any) -> str:
        return _("{name} takes the face-up Chance card “{card}”").format(
            name=self.who(e.seat), card=self._card(1, e.card))

    def _CardKept(self, e: Any) -> str:
        return _("{name} keeps the card “{card}” for later").format(
            name=self.who(e.seat), card=self._card(e.deck, e.card))

    def _CardPlayed(self, e: Any) -> str:
        if e.target >= 0:
            return _("{name} uses the card “{card}” on {square}").format(
                name=self.who(e.seat), card=self._card(e.deck, e.card), square=self.square(e.target))
        return _("{name} uses the card “{card}”").format(name=self.who(e.seat), card=self._card(e.deck, e.card))

    def _PropertySoldToBank(self, e: Any) -> str:
        return _("{name} sells {square} back to the bank for {money}").format(
            name=self.who(e.seat), square=self.square(e.square), money=format_money(e.price))

    def _FinalRentPaid(self, e: Any) -> str:
        return _("End of the game: the bank pays {name} {money} of rents").format(
            name=self.who(e.seat), money=format_money(e.amount), to_name=self.to(e.seat))

    def _LensesRestored(self, e: Any) -> str:
        return _("{name}'s magnifier tokens are green again").format(name=self.who(e.seat))

    def _money(self, e: Any) -> str | None:
        m = format_money(e.amount)
        r = e.reason
        if r in _SILENT_PAYMENTS or e.amount == 0:
            return None
        payer, payee, to = self.who(e.payer), self.who(e.payee), self.to(e.payee)
        if r == "salary":
            return _("{name} collects {money} from the bank (GO)").format(name=payee, money=m)
        if r == "tax":  # engine.rules.movement: the tax square just landed on (Moved, same step)
            last = self._context.get(e.payer)
            if type(last).__name__ == "Moved" and self.ed.squares[last.to].kind == K_TAX:
                return _("{name} pays {money} in tax ({square})").format(
                    name=payer, money=m, square=self.square(last.to))
            return _("{name} pays {money} in tax").format(name=payer, money=m)
        if r == "rent":
            sq = self._rent_square.pop((e.payee, e.payer), None)
            if sq is not None and (e.payee, e.payer) in self._late_rents:
                # Under the next player's turn line it read as a payment of that turn (issue 11
                # newcomer walk): say it is the owner claiming the last turn's rent.
                self._late_rents.discard((e.payee, e.payer))
                return _("{partner} claims the rent: {name} pays {money} for {square}").format(
                    name=payer, money=m, partner=payee, square=self.square(sq))
            if sq is not None:
                return _("{name} pays {money} rent to {partner} for {square}").format(
                    name=payer, money=m, partner=payee, square=self.square(sq), to_partner=to)
            return _("{name} pays {money} rent to {partner}").format(name=payer, money=m, partner=payee, to_partner=to)
        if r == "jail_fine":
            return _("{name} pays the {money} fine").format(name=payer, money=m)
        if r == "counterfeit":  # the bank re-pays a fake bill it received: "The bank pays ..."
            return _("{name} pays {money} again to {partner} in place of the fake bill").format(
                name=payer[:1].upper() + payer[1:], money=m, partner=payee, to_partner=to)
        if e.payer < 0:
            return _("{name} receives {money} from the bank").format(name=payee, money=m)
        return _("{name} pays {money} to {partner}").format(name=payer, money=m, partner=payee, to_partner=to)


#: Events told by a ``Narrator._<name>`` method (niente-e-come-sembra).
_NIENTE = frozenset(("BillInspected", "CardInspected", "FaceUpTaken", "CardKept", "CardPlayed",
                     "PropertySoldToBank", "FinalRentPaid", "LensesRestored"))

__all__ = ["Narrator", "card_title"]
