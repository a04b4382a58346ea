"""The magnifier (niente-e-come-sembra): inspection windows, inspections and their outcomes.

Rulebook: "Quando un giocatore effettua scambi o pagamenti con la Banca o con un altro
giocatore, un giocatore qualsiasi può utilizzare un gettone lente di ingrandimento per
controllare il denaro utilizzato. Non potete controllare il vostro denaro."; "Se trovate un
falso, ditelo a tutti e tenetelo voi! Il giocatore ... dovrà utilizzarne altre per portare a
termine il pagamento"; "Qualsiasi giocatore, voi inclusi, potrà girare un gettone lente di
ingrandimento verde e controllare anche quelle banconote!"; "Quando un giocatore sta per
utilizzare una carta Imprevisti, gli altri giocatori possono girare un gettone ... mettete quella
carta sul fondo del mazzo delle carte Imprevisti e incassate una ricompensa di 100"; "[In
prigione] Non potete utilizzare la lente di ingrandimento".

Lockstep form (protocol.md §E8):

* After a step in which players paid (``nx[NX_PAY]``), if some seat may inspect (in the game,
  not in jail, a green token, and a payment by another player whose bills still lie where they
  were paid), the game enters the decision phase "inspect_window"; its actors are those seats.
  Each may send ``InspectBill(bill)`` (one bill of another player's payment; two seats may not
  pick the same bill) or nothing. Every other action is refused ("inspection_window"): the
  payment is frozen while it is being checked.
* A kept Imprevisti card being used (engine.rules.faceup_cards) opens the same phase with the
  card: the other eligible seats may send ``InspectCard()``; the first in seat order inspects.
* A step with no inspection closes the window (the card's effect then applies). Otherwise each
  inspection spends one token and needs an outcome: the chance-like phase "inspection" waits for
  ``apply_reveal(state, fakes)``: the protocol layer opens every seat's committed share of the
  item and sums them (protocol.md §C12). Engine-only simulations, which have no
  shares, may instead call ``apply_chance`` (``standin_outcomes``).
  Outcomes already public (a bill inspected before) need no reveal.
* Outcomes: a fake bill moves from whoever holds it now (the payee, or the bank's pile if the
  payment went through the bank) to the inspector, and the payer owes that holder its value at
  once (a debt if short) — the same end result as paying the rest with other bills; a fake card
  goes under the deck, has no effect, and the bank pays the inspector 100; a genuine one changes
  nothing. Then a new window may open on the rest of the payment (and the payer's new bills).
  Every inspection spends a token that only VIA! restores, so windows always end.
"""
from __future__ import annotations

from ..errors import IllegalAction
from ..state import P_INSPECT, P_REVEAL
from .banknotes import (FAKE, GENUINE, NX_CARD, NX_CPUB, NX_DEN, NX_INSP, NX_LENS, NX_PAY,
                        NX_PILE, NX_PUB, NX_WALLET, NX_WIN, UNKNOWN, move_bill)
from .money import R_CARD, R_COUNTERFEIT, charge, transfer
from .niente_events import BillInspected, CardInspected, CardReturned, InspectionOpened

__all__ = ["can_inspect", "window_actors", "open_bill_window", "open_card_window",
           "inspect_bill", "inspect_card", "end_window_step", "unknown_items", "reveal",
           "standin_outcomes", "bill_choices", "fake_rate", "fake_threshold"]

K_BILL, K_CARD = 0, 1


def can_inspect(s, seat: int) -> bool:
    """In the game, not in jail, at least one green token."""
    return not s.out[seat] and not s.jail[seat] and s.nx[NX_LENS][seat] > 0


def _still_there(s, taker: int, bill: int) -> bool:
    nx = s.nx
    return bill in (nx[NX_PILE] if taker < 0 else nx[NX_WALLET][taker])


def window_actors(s) -> tuple[int, ...]:
    """Seats that may inspect in the open window (sorted)."""
    nx = s.nx
    card = nx[NX_CARD]
    out = []
    for seat in range(s.n):
        if not can_inspect(s, seat):
            continue
        if card:
            if card[0] != seat:
                out.append(seat)
        elif any(p[0] != seat for p in nx[NX_WIN]):
            out.append(seat)
    return tuple(out)


def _open(s, ev, kind: str) -> bool:
    actors = window_actors(s)
    if not actors:
        return False
    s.resume.append(s.phase)
    s.phase = P_INSPECT
    ev.append(InspectionOpened(kind, actors))
    return True


def open_bill_window(s, ev) -> bool:
    """After a step: open a window on the payments recorded since the last one, if anybody may
    inspect them (else forget them). True if the window opened."""
    nx = s.nx
    pays = []
    for p in nx[NX_PAY]:
        payer, taker = p[0], p[1]
        if s.out[payer] or (taker >= 0 and s.out[taker]):
            continue
        bills = [b for b in p[2:] if nx[NX_PUB][b] != FAKE and _still_there(s, taker, b)]
        if bills:
            pays.append([payer, taker] + bills)
    nx[NX_PAY] = []
    if not pays:
        return False
    nx[NX_WIN] = pays
    if _open(s, ev, "bills"):
        return True
    nx[NX_WIN] = []
    return False


def open_card_window(s, ev, seat: int, deck: int, card: int, target: int) -> bool:
    """``seat`` is about to use Imprevisti ``card``: open a window if anybody else may inspect
    it (True), else the caller applies the effect at once (False)."""
    nx = s.nx
    nx[NX_CARD] = [seat, deck, card, target]
    if nx[NX_CPUB][card] == GENUINE or not _open(s, ev, "card"):
        nx[NX_CARD] = []
        return False
    return True


def _check_window(s, seat: int) -> None:
    if s.phase != P_INSPECT:
        raise IllegalAction("no inspection window is open", "no_window")
    if not can_inspect(s, seat):
        raise IllegalAction("you cannot inspect (no green token, in jail)", "cannot_inspect")
    for q in s.nx[NX_INSP]:
        if q[0] == seat:
            raise IllegalAction("one inspection per step", "already_inspected")


def bill_choices(s, seat: int) -> list[int]:
    """Bills ``seat`` may inspect in the open bill window, sorted."""
    nx = s.nx
    taken = {q[2] for q in nx[NX_INSP] if q[1] == K_BILL}
    out = set()
    for p in nx[NX_WIN]:
        if p[0] != seat:
            out.update(b for b in p[2:] if b not in taken)
    return sorted(out)


def inspect_bill(s, ev, seat: int, bill: int) -> None:
    """InspectBill: spend a token on one bill of another player's payment in the window."""
    _check_window(s, seat)
    nx = s.nx
    if nx[NX_CARD]:
        raise IllegalAction("a card is being checked, not a payment", "no_window")
    for p in nx[NX_WIN]:
        if p[0] != seat and bill in p[2:]:
            break
    else:
        raise IllegalAction("not a bill of another player's payment", "not_inspectable")
    for q in nx[NX_INSP]:
        if q[2] == bill and q[1] == K_BILL:
            raise IllegalAction("that bill is already being inspected", "already_inspected")
    nx[NX_LENS][seat] -= 1
    nx[NX_INSP].append([seat, K_BILL, bill, p[0], p[1]])


def inspect_card(s, ev, seat: int) -> None:
    """InspectCard: spend a token on the Imprevisti card being used (first in seat order)."""
    _check_window(s, seat)
    nx = s.nx
    card = nx[NX_CARD]
    if not card:
        raise IllegalAction("no card is being used", "no_window")
    if card[0] == seat:
        raise IllegalAction("you may not inspect your own card", "not_inspectable")
    if nx[NX_INSP]:
        raise IllegalAction("the card is already being inspected", "already_inspected")
    nx[NX_LENS][seat] -= 1
    nx[NX_INSP].append([seat, K_CARD, card[2], card[0], -1])


def unknown_items(s) -> list[tuple[str, int]]:
    """What the "inspection" phase waits for, in order: ("bill", id) / ("card", index) whose
    status is not public yet. ``apply_reveal`` takes one bool per item."""
    nx = s.nx
    out = []
    for q in nx[NX_INSP]:
        if q[1] == K_BILL:
            if nx[NX_PUB][q[2]] == UNKNOWN:
                out.append(("bill", q[2]))
        elif nx[NX_CPUB][q[2]] == UNKNOWN:
            out.append(("card", q[2]))
    return out


def end_window_step(s, ev) -> list | None:
    """After a window decision step: no inspection closes the window; inspections with public
    outcomes resolve now; others wait in phase "inspection" (chance-like). Returns the card in
    use that the closed window lets take effect (``_close``), else None."""
    nx = s.nx
    if not nx[NX_INSP]:
        return _close(s, ev, resolved=False)
    if unknown_items(s):
        s.phase = P_REVEAL
        return None
    return reveal(s, ev, [])


def fake_rate(ed, denomination: int) -> tuple[int, int]:
    """(num, den): the edition's probability that a bill of ``denomination`` is fake
    (``DecoderRules.fake_rates``, else ``standin_fake_bill``)."""
    dec = ed.decoder
    for d, num, den in getattr(dec, "fake_rates", ()):
        if d == denomination:
            return num, den
    return dec.standin_fake_bill


def fake_threshold(ed, denomination: int, modulus: int) -> int:
    """T = floor(modulus * num / den): a bill of ``denomination`` is fake iff the sum of all
    seats' shares modulo ``modulus`` is below T (protocol.md §C12.1)."""
    num, den = fake_rate(ed, denomination)
    return modulus * num // den


def standin_outcomes(s, rng) -> list[bool]:
    """Outcomes for engine-only simulations (``engine.bots.play_game``, random playouts), where
    no peers hold secret shares: each unknown item's outcome from the step's beacon. A bill is
    fake when ``rng.below(den) < num`` (``fake_rate`` of its denomination); a card is the
    opposite of its pair's public status, else fake when ``rng.below(2) == 0``.

    A network game never uses this: the lockstep layer opens the seats' committed shares and
    calls ``engine.apply_reveal`` (protocol.md §C12), so the holder of a bill
    knows its status in advance and nobody can choose it."""
    cpub = s.nx[NX_CPUB]
    den_of = s.nx[NX_DEN]
    out = []
    for kind, ident in unknown_items(s):
        if kind == "bill":
            num, den = fake_rate(s.ed, den_of[ident])
            out.append(rng.below(den) < num)
        elif cpub[ident ^ 1] != UNKNOWN:
            out.append(cpub[ident ^ 1] == GENUINE)
        else:
            out.append(rng.below(2) == 0)
    return out


def reveal(s, ev, fakes) -> list | None:
    """Apply the outcomes (``fakes``: one bool per ``unknown_items`` entry, in order), then close
    the window; returns the card in use that now takes effect (``_close``), else None. Raises
    ValueError on a wrong count (state unchanged)."""
    nx = s.nx
    items = unknown_items(s)
    if len(fakes) != len(items):
        raise ValueError(f"expected {len(items)} outcomes, got {len(fakes)}")
    for (kind, ident), fake in zip(items, fakes):
        nx[NX_PUB if kind == "bill" else NX_CPUB][ident] = FAKE if fake else GENUINE
    resolved = False
    queue = nx[NX_INSP]
    nx[NX_INSP] = []
    for inspector, kind, ident, payer, taker in queue:
        if kind == K_BILL:
            fake = nx[NX_PUB][ident] == FAKE
            ev.append(BillInspected(inspector, payer, ident, fake))
            for p in nx[NX_WIN]:
                if ident in p[2:]:
                    del p[p.index(ident, 2)]
            if fake and not s.out[inspector] and _still_there(s, taker, ident):
                move_bill(s, ev, ident, taker, inspector)
                if not s.out[payer]:
                    charge(s, ev, payer, taker, nx[NX_DEN][ident], R_COUNTERFEIT)
        else:
            fake = nx[NX_CPUB][ident] == FAKE
            ev.append(CardInspected(inspector, payer, ident, fake))
            if fake:
                card = nx[NX_CARD]
                nx[NX_CARD] = []
                s.decks[card[1]].append(card[2])
                ev.append(CardReturned(card[0], card[1], card[2]))
                reward = s.ed.decoder.inspect_reward
                if not s.out[inspector]:
                    transfer(s, ev, -1, inspector, reward, R_CARD)
        resolved = True
    return _close(s, ev, resolved)


def _close(s, ev, resolved: bool) -> list | None:
    """Close the window: back to the interrupted phase; after an inspection round the rest of
    the payment may be inspected again (next window). A card still in use (not found fake) is
    returned as [seat, deck, card, target] for the caller to apply at once
    (``niente_flow``: ``faceup_cards.apply_used``; faceup_cards, whose magnifier opens this
    window, is above this module), else None."""
    nx = s.nx
    if resolved:
        nx[NX_PAY] = [p for p in nx[NX_WIN] if len(p) > 2] + nx[NX_PAY]
    nx[NX_WIN] = []
    s.phase = s.resume.pop()
    card = nx[NX_CARD]
    if not card:
        return None
    nx[NX_CARD] = []
    return card


__all__ += ["K_BILL", "K_CARD"]
