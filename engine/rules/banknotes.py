"""Banknotes (niente-e-come-sembra): money as individual bills with stable ids.

Rulebook passages: "Il banchiere mescola le banconote e consegna a ciascun giocatore ... (Total =
1500)"; "ogni volta che pagate la Banca, posizionate il denaro in fondo al mazzo corrispondente";
"Se trovate un falso ... tenetelo voi! Il giocatore ... dovrà utilizzarne altre".

Model (protocol.md §E8):

* every bill has an int id for the whole game; ``nx[NX_DEN][id]`` is its denomination;
* each player holds ``nx[NX_WALLET][seat]`` (ids, ascending); the bank holds the ordered pile
  ``nx[NX_PILE]`` (top first); ``s.cash[seat]`` stays the total of the wallet and ``s.bank``
  the bank's balance, so every other rule keeps reading plain euro;
* a payment by a player picks bills from the wallet (``select``: an exact set when one exists,
  else the fewest large bills covering the amount) — the default, which the payer may replace
  by bills of its choice in the next step (``nx[NX_DUE]``, engine.rules.bill_choice); bills
  paid to the bank go to the bottom of
  the pile; a payment that needs change goes through the bank: the payer's bills go to the
  bottom of the pile and the bank pays the payee the amount and the payer the change from the
  top of its pile ("the bank gives change");
* the bank pays from the top of its pile (``bank_take``); if its pile cannot make the amount it
  prints new genuine bills with fresh ids (classic rule "la Banca non fallisce mai"; rare);
* every payment by a player is recorded in ``nx[NX_PAY]`` as ``[payer, taker, bill...]`` for
  the inspection window (engine.rules.counterfeit); ``taker`` is who holds the bills now;
* every change of holder emits ``BillsMoved(frm, to, bills)`` (the p2p layer delivers secret
  shares from these events).

The VIA! salary also turns the receiver's red magnifier tokens green ("Potrete riattivare i
gettoni rossi passando dal VIA!").
"""
from __future__ import annotations

from ..events import MoneyPaid
from .niente_events import BillsMoved, LensesRestored
from .money import R_BANKRUPTCY, R_SALARY, Euro

__all__ = ["NX_DEN", "NX_WALLET", "NX_PILE", "NX_PUB", "NX_LENS", "NX_FACEUP", "NX_HAND",
           "NX_CPUB", "NX_PAY", "NX_WIN", "NX_INSP", "NX_CARD", "NX_DUE", "NX_FIELDS", "new_nx",
           "holder_of", "pay_with", "give_bills",
           "select", "bank_take", "on_transfer", "Banknotes", "BANKNOTES", "move_bill", "check_bills", "restore_lenses",
           "UNKNOWN", "GENUINE", "FAKE", "DENOMINATIONS"]

# Layout of State.nx (one list per entry; see protocol.md §E8 for the wire form).
(NX_DEN, NX_WALLET, NX_PILE, NX_PUB, NX_LENS, NX_FACEUP, NX_HAND, NX_CPUB, NX_PAY, NX_WIN,
 NX_INSP, NX_CARD, NX_DUE) = range(13)
NX_FIELDS = ("den", "wallet", "pile", "pub", "lens", "faceup", "hand", "cpub", "pay", "win",
             "insp", "card", "due")
UNKNOWN, GENUINE, FAKE = 0, 1, 2
"""Public status of a bill or an Imprevisti card (known to everybody after an inspection)."""
DENOMINATIONS = (500, 100, 50, 20, 10)


def new_nx(ed, seats: int) -> list:
    """The decoder state of a new game: bills dealt, lenses green, face-up row empty (it is
    dealt by the "first_player" chance step, engine.rules.faceup_cards.deal)."""
    dec = ed.decoder
    den: list[int] = []
    wallets: list[list[int]] = []
    pile: list[int] = []
    for stack in range(dec.stacks):
        ids = list(range(len(den), len(den) + len(dec.start_bills)))
        den.extend(dec.start_bills)
        if stack < seats:
            wallets.append(ids)
        else:
            pile.extend(ids)
    for d, count in dec.bank_bills:
        pile.extend(range(len(den), len(den) + count))
        den.extend([d] * count)
    if sum(dec.start_bills) != ed.start_cash:
        raise ValueError("start bills do not add up to the starting money")
    imp = len(ed.decks[1])
    return [den, wallets, pile, [UNKNOWN] * len(den), [dec.magnifiers] * seats,
            [-1] * dec.faceup, [[] for _ in range(seats)], [UNKNOWN] * imp, [], [], [], [], []]


def _by_den(den: list[int], ids) -> dict[int, list[int]]:
    by: dict[int, list[int]] = {d: [] for d in DENOMINATIONS}
    for b in ids:
        by[den[b]].append(b)
    return by


def _exact(by: dict[int, list[int]], amount: int) -> list[int] | None:
    """Bills summing to ``amount`` exactly, or None. 10|20|100|500 is a divisibility chain, on
    which greedy is exact; only the 50s are not, so every count of 50s is tried, most first."""
    fifties = by[50]
    for k50 in range(min(len(fifties), amount // 50), -1, -1):
        rem = amount - 50 * k50
        pick = fifties[:k50]
        for d in (500, 100, 20, 10):
            k = min(len(by[d]), rem // d)
            if k:
                pick = pick + by[d][:k]
                rem -= k * d
        if rem == 0:
            return pick
    return None


def select(den: list[int], wallet: list[int], amount: int) -> list[int]:
    """The bills a player pays ``amount`` (<= wallet total) with: an exact set when one exists
    (fewest bills by the greedy rule, lowest ids first within a denomination), else the
    largest bills until the amount is covered, dropping any bill not needed (change follows)."""
    pick = _exact(_by_den(den, wallet), amount)
    if pick is not None:
        return pick
    pick = []
    total = 0
    for b in sorted(wallet, key=lambda b: (-den[b], b)):
        pick.append(b)
        total += den[b]
        if total >= amount:
            break
    for b in sorted(pick, key=lambda b: (den[b], b)):
        if total - den[b] >= amount:
            pick.remove(b)
            total -= den[b]
    return pick


def bank_take(s, amount: int) -> list[int]:
    """Remove bills worth exactly ``amount`` from the bank's pile (top first within a
    denomination) and return their ids; prints new genuine bills for what the pile cannot make."""
    nx = s.nx
    den = nx[NX_DEN]
    pile = nx[NX_PILE]
    pick = _exact(_by_den(den, pile), amount)
    if pick is None:
        pick = []
        rem = amount
        by = _by_den(den, pile)
        for d in DENOMINATIONS:
            k = min(len(by[d]), rem // d)
            pick += by[d][:k]
            rem -= k * d
        for d in DENOMINATIONS:
            while rem >= d:
                den.append(d)
                nx[NX_PUB].append(GENUINE)  # printed by the bank: never fake
                pile.append(len(den) - 1)
                pick.append(len(den) - 1)
                rem -= d
        if rem:
            raise AssertionError(f"amount {amount} is not a multiple of the smallest bill")
    taken = set(pick)
    nx[NX_PILE] = [b for b in pile if b not in taken]
    return pick


def give_bills(s, seat: int, ids: list[int]) -> None:
    """Add bills ``ids`` to ``seat``'s wallet (kept ascending); the caller moves the euro and
    takes the bills from where they were."""
    _give(s.nx, seat, ids)


def _give(nx, seat: int, ids: list[int]) -> None:
    w = nx[NX_WALLET][seat]
    w.extend(ids)
    w.sort()


def on_transfer(s, ev, payer: int, payee: int, amount: int, reason: int) -> None:
    """Move the bills of a payment whose euro totals ``engine.rules.money.transfer`` has
    already moved (payer/payee -1 = bank)."""
    nx = s.nx
    if payer < 0:
        ids = bank_take(s, amount)
        _give(nx, payee, ids)
        ev.append(BillsMoved(-1, payee, tuple(ids)))
        if reason == R_SALARY:
            restore_lenses(s, ev, payee)
        return
    den = nx[NX_DEN]
    wallet = nx[NX_WALLET][payer]
    pick = None
    if nx[NX_INSP]:  # a bill being inspected stays where it is until its outcome is known
        held = {q[2] for q in nx[NX_INSP] if q[1] == 0}
        free = [b for b in wallet if b not in held]
        if sum(den[b] for b in free) >= amount:
            pick = select(den, free, amount)
    if pick is None:
        pick = select(den, wallet, amount)
    choice = len(pick) < len(wallet) and reason != R_BANKRUPTCY
    taker, got, change = pay_with(s, ev, payer, payee, amount, pick)
    if choice:
        # The payer may pay with other bills in the next step (engine.rules.bill_choice): the
        # payment waits there, with what is needed to undo it, before anybody may inspect it.
        nx[NX_DUE].append([payer, payee, amount, reason, 0, taker, len(pick)] + pick
                          + [len(got)] + got + [len(change)] + change)
    elif reason != R_BANKRUPTCY:
        nx[NX_PAY].append([payer, taker] + pick)


class Banknotes(Euro):
    """Money strategy of niente-e-come-sembra (``Edition.money``): every euro amount is also a
    set of bills that moves with it (module doc), and the game hides which bills are fake
    (``State.nx``, laid out by :func:`new_nx`). One shared instance :data:`BANKNOTES`."""

    __slots__ = ()
    name = "banknotes"

    def new_hidden(self, ed, seats: int) -> list:
        """``State.nx`` of a new game (:func:`new_nx`; ``ed.decoder`` gives the bills)."""
        return new_nx(ed, seats)

    def transfer(self, s, ev, payer: int, payee: int, amount: int, reason: int) -> None:
        """The euro totals (``Euro.transfer``), then the bills themselves (:func:`on_transfer`)."""
        Euro.transfer(self, s, ev, payer, payee, amount, reason)
        on_transfer(s, ev, payer, payee, amount, reason)


BANKNOTES = Banknotes()
"""The banknote money strategy (niente-e-come-sembra's ``Edition.money``)."""


def pay_with(s, ev, payer: int, payee: int, amount: int, pick: list[int]) -> tuple:
    """Hand over bills ``pick`` (in ``payer``'s wallet, worth at least ``amount``, euro totals
    already moved): exactly ``amount`` to a player goes straight to it; otherwise the bills go
    to the bottom of the bank's pile and the bank pays the payee ``amount`` and the payer the
    change from the top. Returns ``(taker, got, change)``: who holds ``pick`` now (-1 = the
    pile), the bank's bills the payee got (``[]`` if none), the change bills the payer got."""
    nx = s.nx
    den = nx[NX_DEN]
    gone = set(pick)
    nx[NX_WALLET][payer] = [b for b in nx[NX_WALLET][payer] if b not in gone]
    total = sum(den[b] for b in pick)
    got: list[int] = []
    change: list[int] = []
    if total == amount and payee >= 0:
        _give(nx, payee, pick)
        ev.append(BillsMoved(payer, payee, tuple(pick)))
        return payee, got, change
    nx[NX_PILE].extend(pick)
    ev.append(BillsMoved(payer, -1, tuple(pick)))
    if payee >= 0:
        got = bank_take(s, amount)
        _give(nx, payee, got)
        ev.append(BillsMoved(-1, payee, tuple(got)))
    if total > amount:
        change = bank_take(s, total - amount)
        _give(nx, payer, change)
        ev.append(BillsMoved(-1, payer, tuple(change)))
    return -1, got, change


def holder_of(s, bill: int) -> int | None:
    """Seat holding ``bill``, -1 for the bank's pile, None if nobody (never, by invariant)."""
    nx = s.nx
    for seat, w in enumerate(nx[NX_WALLET]):
        if bill in w:
            return seat
    return -1 if bill in nx[NX_PILE] else None


def move_bill(s, ev, bill: int, frm: int, to: int) -> None:
    """Hand one given bill from ``frm`` to ``to`` (-1 = bank), euro totals included (used when
    an inspector keeps a fake)."""
    nx = s.nx
    v = nx[NX_DEN][bill]
    if frm < 0:
        nx[NX_PILE].remove(bill)
        s.bank -= v
    else:
        nx[NX_WALLET][frm].remove(bill)
        s.cash[frm] -= v
    if to < 0:
        nx[NX_PILE].append(bill)
        s.bank += v
    else:
        _give(nx, to, [bill])
        s.cash[to] += v
    ev.append(MoneyPaid(frm, to, v, "counterfeit"))
    ev.append(BillsMoved(frm, to, (bill,)))


def restore_lenses(s, ev, seat: int) -> None:
    """Turn ``seat``'s red magnifier tokens green."""
    lens = s.nx[NX_LENS]
    full = s.ed.decoder.magnifiers
    if lens[seat] < full:
        lens[seat] = full
        ev.append(LensesRestored(seat))


def check_bills(s) -> None:
    """Raise AssertionError unless every bill is held exactly once, each wallet adds up to the
    seat's cash and the pile to the bank's share of all the money (tests and debugging)."""
    nx = s.nx
    den = nx[NX_DEN]
    seen = [0] * len(den)
    for seat, w in enumerate(nx[NX_WALLET]):
        assert w == sorted(w), "wallet not sorted"
        assert sum(den[b] for b in w) == s.cash[seat], f"wallet {seat} != cash"
        for b in w:
            seen[b] += 1
    for b in nx[NX_PILE]:
        seen[b] += 1
    assert seen == [1] * len(den), "a bill is missing or held twice"
    assert sum(den) - sum(s.cash) == sum(den[b] for b in nx[NX_PILE])
    assert len(nx[NX_PUB]) == len(den)
