"""Paying with the bills you choose (niente-e-come-sembra).

Rulebook (monopoly-niente-e-come-sembra.txt): "Se sapete di avere una banconota falsa, cercate di
tenerla fino alla fine del gioco ... Cercate anche di non far capire agli altri giocatori quali
sono le banconote false, così non sapranno quando cercate di utilizzarle"; after a fake is found
"Il giocatore ... dovrà utilizzarne altre per portare a termine il pagamento".

Only the payer knows which of its bills are fake (protocol.md §C12.7), so the engine cannot
choose for it: the choice is an input. Lockstep form (protocol.md §E8):

* A payment by a player moves the euro at once and, provisionally, the default bills
  (engine.rules.banknotes.select). When the payer had other bills it could have used, the payment
  is *due*: ``nx[NX_DUE]`` keeps ``[payer, payee, amount, reason, offered, taker, k, pick..., k,
  got..., k, change...]`` — enough to undo it (who holds the default bills now, the bank's bills
  the payee got, the change the payer got).
* After the step, before any inspection window, the decision phase "pay_bills" opens: its
  actors are the payers with due payments (every due one is now "offered"). An actor may send
  ``PayBills(bills)`` for its oldest offered payment: the default is undone and the payment made
  again with ``bills`` (change from the bank as before). Silence, a refused PayBills or any other
  action keeps the default bills for *all* its offered payments (a vanished peer cannot block the
  game). A seat that answered and has more offered payments is asked again in the next step.
* ``bills`` must be the payer's (as it held them before the payment), worth at least the amount,
  with no bill to spare (dropping any one would leave less than the amount), not under
  inspection; the undo needs every bill of the default payment still where it went (they may
  have moved on in the same step): else refused (``bills_moved``).
* Then the payments are final (``nx[NX_PAY]``) and the inspection window may open on them. A fake
  found there makes the payer pay its value again: a new payment, whose bills it chooses the
  same way ("dovrà utilizzarne altre").
"""
from __future__ import annotations

from ..actions import PayBills
from ..errors import refuse
from ..events import ActionRefused
from ..state import P_PAY
from .banknotes import (NX_DEN, NX_DUE, NX_INSP, NX_PAY, NX_PILE, NX_WALLET, BillsMoved,
                        give_bills, pay_with, select)
from .niente_events import BillChoiceOpened, BillsChosen

__all__ = ["due_parts", "pay_actors", "open_pay_step", "oldest_due", "wallet_before",
           "choosable_bills", "due_amount", "default_bills", "choice_error", "pay_bills", "end_pay_step", "finalize_out"]

D_PAYER, D_PAYEE, D_AMOUNT, D_REASON, D_OFFERED, D_TAKER = range(6)


def due_parts(d: list) -> tuple[list, list, list]:
    """(pick, got, change) of a due record (module doc)."""
    i = 6
    k = d[i]
    pick = d[i + 1:i + 1 + k]
    i += 1 + k
    k = d[i]
    got = d[i + 1:i + 1 + k]
    i += 1 + k
    k = d[i]
    return pick, got, d[i + 1:i + 1 + k]


def pay_actors(s) -> tuple[int, ...]:
    """Seats with an offered due payment, sorted (the actors of "pay_bills")."""
    return tuple(sorted({d[D_PAYER] for d in s.nx[NX_DUE] if d[D_OFFERED]}))


def _finalize(s, d: list) -> None:
    """The payment ``d`` keeps the bills it has now: it becomes inspectable (``NX_PAY``)."""
    s.nx[NX_DUE].remove(d)
    s.nx[NX_PAY].append([d[D_PAYER], d[D_TAKER]] + due_parts(d)[0])


def finalize_out(s) -> None:
    """Due payments of seats that went out keep their bills (nothing is left to choose)."""
    for d in [d for d in s.nx[NX_DUE] if s.out[d[D_PAYER]]]:
        _finalize(s, d)


def open_pay_step(s, ev) -> bool:
    """After a step with due payments: offer them all and enter "pay_bills" (True), or, if no
    payer is left, make them final (False)."""
    finalize_out(s)
    dues = s.nx[NX_DUE]
    if not dues:
        return False
    for d in dues:
        d[D_OFFERED] = 1
    s.resume.append(s.phase)
    s.phase = P_PAY
    ev.append(BillChoiceOpened(pay_actors(s)))
    return True


def oldest_due(s, seat: int) -> list | None:
    """The oldest offered due payment of ``seat``, or None."""
    for d in s.nx[NX_DUE]:
        if d[D_PAYER] == seat and d[D_OFFERED]:
            return d
    return None


def _where(s, holder: int) -> list[int]:
    nx = s.nx
    return nx[NX_PILE] if holder < 0 else nx[NX_WALLET][holder]


def _undoable(s, d: list) -> bool:
    pick, got, change = due_parts(d)
    there = set(_where(s, d[D_TAKER]))
    if not all(b in there for b in pick):
        return False
    payee = d[D_PAYEE]
    if got and (payee < 0 or not set(got) <= set(s.nx[NX_WALLET][payee])):
        return False
    return set(change) <= set(s.nx[NX_WALLET][d[D_PAYER]])


def wallet_before(s, seat: int) -> list[int] | None:
    """``seat``'s bills as they were before its oldest offered due payment (ascending), or
    None if it has none or that payment can no longer be undone."""
    d = oldest_due(s, seat)
    if d is None or not _undoable(s, d):
        return None
    pick, _, change = due_parts(d)
    gone = set(change)
    return sorted([b for b in s.nx[NX_WALLET][seat] if b not in gone] + pick)


def choosable_bills(s, seat: int) -> list[int] | None:
    """The bills ``seat`` may pay its oldest offered due payment with (``wallet_before``
    minus bills under inspection, ascending), or None if it has no such payment or that
    payment can no longer be undone."""
    before = wallet_before(s, seat)
    if before is None:
        return None
    inspected = {q[2] for q in s.nx[NX_INSP] if q[1] == 0}
    return [b for b in before if b not in inspected]


def due_amount(s, seat: int) -> tuple[int, int] | None:
    """(amount, payee) of ``seat``'s oldest offered due payment (payee -1: the bank), or None."""
    d = oldest_due(s, seat)
    return None if d is None else (d[D_AMOUNT], d[D_PAYEE])


def default_bills(s, seat: int) -> tuple[int, ...] | None:
    """The bills ``seat``'s oldest offered due payment was provisionally made with (sorted),
    or None."""
    d = oldest_due(s, seat)
    return None if d is None else tuple(sorted(due_parts(d)[0]))


def choice_error(s, seat: int, bills) -> tuple[str, str] | None:
    """(code, reason) why ``seat`` may not pay its oldest offered due payment with ``bills``
    now, or None."""
    if s.phase != P_PAY:
        return ("not_paying", "no payment is waiting for its bills")
    d = oldest_due(s, seat)
    if d is None:
        return ("not_paying", "you have no payment waiting for its bills")
    mine = choosable_bills(s, seat)
    if mine is None:
        return ("bills_moved", "the bills of that payment have moved on: it stays as made")
    mine = set(mine)
    if len(set(bills)) != len(bills):
        return ("not_your_bill", "a bill is named twice")
    den = s.nx[NX_DEN]
    total = 0
    for b in bills:
        if b not in mine:
            return ("not_your_bill", "not a bill you held before that payment")
        total += den[b]
    if total < d[D_AMOUNT]:
        return ("not_enough", "those bills do not cover the amount")
    if any(total - den[b] >= d[D_AMOUNT] for b in bills):
        return ("overpaid", "a bill is not needed: leave it out")
    return None


def pay_bills(s, ev, seat: int, bills) -> None:
    """PayBills: undo ``seat``'s oldest offered due payment and make it again with ``bills``
    (module doc); the payment is then final. Raises IllegalAction (nothing changed)."""
    refuse(choice_error(s, seat, bills))
    d = oldest_due(s, seat)
    pick, got, change = due_parts(d)
    bills = sorted(bills)
    if bills != sorted(pick):
        nx = s.nx
        payer, payee, taker = d[D_PAYER], d[D_PAYEE], d[D_TAKER]
        # Undo: the default bills back to the payer, the payee's and the change back to the
        # pile's top (where bank_take took them), then pay again with the chosen bills.
        _take_from(s, taker, pick)
        give_bills(s, payer, pick)
        ev.append(BillsMoved(taker, payer, tuple(pick)))
        for holder, ids in ((payee, got), (payer, change)):
            if ids:
                _take_from(s, holder, ids)
                nx[NX_PILE][:0] = ids
                ev.append(BillsMoved(holder, -1, tuple(ids)))
        taker, _, _ = pay_with(s, ev, payer, payee, d[D_AMOUNT], bills)
        d[D_TAKER] = taker
        d[6:] = [len(bills)] + bills + [0, 0]
        ev.append(BillsChosen(seat, tuple(bills)))
    _finalize(s, d)


def _take_from(s, holder: int, ids) -> None:
    gone = set(ids)
    nx = s.nx
    if holder < 0:
        nx[NX_PILE] = [b for b in nx[NX_PILE] if b not in gone]
    else:
        nx[NX_WALLET][holder] = [b for b in nx[NX_WALLET][holder] if b not in gone]


def end_pay_step(s, ev, inputs, ev0: int) -> None:
    """End of a "pay_bills" step: a payer that did not send an accepted PayBills keeps the
    default bills of all its offered payments; when none is left offered, the phase closes
    (back to the interrupted one; new due payments open the next "pay_bills")."""
    refused = {e.seat for e in ev[ev0:] if type(e) is ActionRefused}
    answered = {seat for seat, a in enumerate(inputs)
                if type(a) is PayBills and seat not in refused}
    for d in [d for d in s.nx[NX_DUE] if d[D_OFFERED] and d[D_PAYER] not in answered]:
        _finalize(s, d)
    finalize_out(s)
    if not pay_actors(s):
        s.phase = s.resume.pop()


def default_choice(den: list[int], wallet: list[int], amount: int) -> list[int]:
    """The engine's own choice (engine.rules.banknotes.select), for UIs and bots."""
    return select(den, wallet, amount)


__all__ += ["default_choice"]
