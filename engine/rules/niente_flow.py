"""How the niente-e-come-sembra rules plug into the engine's steps: :class:`NienteFlow`
(:data:`NIENTE_FLOW`), this edition's flow strategy (``Edition.flow``; the hooks and where
engine.game calls them: engine.rules.flow).

* ``after_step`` / ``after_chance`` run once a step's inputs (or its chance outcome) have been
  applied: silence in "take_card" declines; silence in "pay_bills" keeps the default bills
  (engine.rules.bill_choice); silence (or a refused input) of the head debtor in
  "raise_money" lets the bank buy back a property (engine.rules.niente_estate.default_raise);
  a window step ends (engine.rules.counterfeit); then payments made with default bills open
  "pay_bills" for their payers; then the final payments open an inspection window if anybody
  may inspect; then the end of the game is checked.
* ``pending_parts``, ``window_legal``, ``extend_legal``: what the new phases wait for and the
  new actions a seat may send.
* ``HANDLERS``: the handlers of the new actions (``NienteFlow.handlers``; engine.game refuses
  them as "not_in_edition" in the other editions).
"""
from __future__ import annotations

from .. import actions as A
from ..errors import IllegalAction
from ..events import ActionRefused
from ..state import P_INSPECT, P_OVER, P_PAY, P_RAISE, P_REVEAL, P_TAKE
from . import bankruptcy, bill_choice, counterfeit, faceup_cards, niente_estate
from .banknotes import NX_DUE, NX_FACEUP, NX_HAND, NX_PAY
from .flow import PlainFlow

__all__ = ["NienteFlow", "NIENTE_FLOW", "NIENTE_PHASES", "pending_parts", "after_step",
           "after_chance", "window_legal", "extend_legal", "check_action", "HANDLERS",
           "WINDOW_CODES"]

NIENTE_PHASES = frozenset((P_INSPECT, P_REVEAL, P_TAKE, P_PAY))
WINDOW_CODES = frozenset((A.InspectBill.CODE, A.InspectCard.CODE))


def pending_parts(s) -> tuple[bool, tuple[int, ...], str]:
    """(chance, actors, kind) of a niente phase."""
    ph = s.phase
    if ph == P_INSPECT:
        return False, counterfeit.window_actors(s), "inspect_window"
    if ph == P_REVEAL:
        return True, (), "inspection"
    if ph == P_PAY:
        return False, bill_choice.pay_actors(s), "pay_bills"
    return False, (s.current,), "take_card"


def _settle(s, ev, advance) -> None:
    advance(s, ev)
    if s.phase in (P_OVER, P_INSPECT, P_REVEAL, P_PAY):
        return
    if s.nx[NX_DUE] and bill_choice.open_pay_step(s, ev):
        return
    if s.nx[NX_PAY] and counterfeit.open_bill_window(s, ev):
        return
    winner = niente_estate.maybe_end(s, ev)
    if winner >= 0:
        bankruptcy._game_over(s, ev, winner)


def _use_card(s, ev, card) -> None:
    """A card that an inspection window held and did not find fake (``counterfeit.reveal`` /
    ``end_window_step`` return it: [seat, deck, card, target]) takes effect now, as the window
    closes; None: no card was in use."""
    if card:
        faceup_cards.apply_used(s, ev, card[0], card[1], card[2], card[3])


def after_step(s, ev, inputs, ph0: int, ev0: int, advance) -> None:
    """End of a decision step that started in phase ``ph0``; ``ev[ev0:]`` are its events.
    ``advance`` is engine.game.advance (passed in: engine.game imports this module)."""
    ph = s.phase
    if ph0 == P_TAKE and ph == P_TAKE:
        faceup_cards.decline(s, ev, s.current)
    elif ph0 == P_RAISE and ph == P_RAISE and s.debts:
        debtor = s.debts[0][0]
        a = inputs[debtor]
        if a is None or any(type(e) is ActionRefused and e.seat == debtor for e in ev[ev0:]):
            if niente_estate.default_raise(s, ev, debtor) and s.phase == P_RAISE:
                bankruptcy.declare(s, ev, debtor)
    elif ph0 == P_INSPECT and ph == P_INSPECT:
        _use_card(s, ev, counterfeit.end_window_step(s, ev))
    elif ph0 == P_PAY and ph == P_PAY:
        bill_choice.end_pay_step(s, ev, inputs, ev0)
    _settle(s, ev, advance)


def after_chance(s, ev, advance) -> None:
    """End of a chance step (``advance``: engine.game.advance)."""
    _settle(s, ev, advance)


def check_action(s, a) -> None:
    """No card may be played while a payment or a card is being checked ("inspection_window");
    every other out-of-turn action stays legal (bills under inspection do not move meanwhile,
    engine.rules.banknotes.on_transfer)."""
    if (s.phase == P_INSPECT or s.phase == P_PAY) and a.CODE == A.UseCard.CODE:
        raise IllegalAction("no card may be played while a payment is being made or checked",
                            "inspection_window")


def window_legal(s, seat: int) -> list:
    """Legal actions of ``seat`` in phase "inspect_window"."""
    if seat not in counterfeit.window_actors(s):
        return []
    if s.nx[counterfeit.NX_CARD]:
        return [A.InspectCard()]
    return [A.InspectBill(b) for b in counterfeit.bill_choices(s, seat)]


def extend_legal(s, seat: int, out: list) -> None:
    """Append the niente actions ``seat`` may send now (codes 40..46, in code order)."""
    nx = s.nx
    if s.phase == P_INSPECT:
        out += window_legal(s, seat)
    if s.phase == P_TAKE and s.current == seat:
        out += [A.TakeCard(i) for i, c in enumerate(nx[NX_FACEUP]) if c >= 0]
        out.append(A.DeclineCard())
    uses = []
    for key in nx[NX_HAND][seat] if s.phase != P_INSPECT and s.phase != P_PAY else ():
        c = s.ed.decks[key >> 8][key & 255]
        uses += [A.UseCard(key >> 8, key & 255, t) for t in faceup_cards.use_targets(s, seat, c.kind)]
    uses.sort(key=A.action_sort_key)
    out += uses
    if any(d[0] == seat for d in s.debts):
        out += [A.SellProperty(sq) for sq in s.tb.properties
                if niente_estate.sell_property_error(s, seat, sq) is None]
    if s.phase == P_PAY and bill_choice.wallet_before(s, seat) is not None:
        # One representative (like Bid): the default bills; any set passing
        # bill_choice.choice_error is legal.
        out.append(A.PayBills(bill_choice.default_bills(s, seat)))


def _use_card_action(s, ev, seat, a, in_auction) -> None:
    check_action(s, a)
    faceup_cards.use(s, ev, seat, a.deck, a.card, a.target)


HANDLERS = {
    A.InspectBill.CODE: lambda s, ev, seat, a, x: counterfeit.inspect_bill(s, ev, seat, a.bill),
    A.InspectCard.CODE: lambda s, ev, seat, a, x: counterfeit.inspect_card(s, ev, seat),
    A.TakeCard.CODE: lambda s, ev, seat, a, x: faceup_cards.take(s, ev, seat, a.slot),
    A.DeclineCard.CODE: lambda s, ev, seat, a, x: faceup_cards.decline(s, ev, seat),
    A.UseCard.CODE: _use_card_action,
    A.SellProperty.CODE: lambda s, ev, seat, a, x: niente_estate.sell_property(
        s, ev, seat, a.square),
    A.PayBills.CODE: lambda s, ev, seat, a, x: bill_choice.pay_bills(s, ev, seat, a.bills),
}
"""Handlers of the niente actions, with engine.game's handler signature (``NienteFlow.handlers``;
UseCard checks the window first, :func:`check_action`)."""



def standin_reveal(s, ev, rng) -> None:
    """Engine-only simulations (no peers, no shares): ``apply_chance`` on phase "inspection"
    draws the outcomes from the beacon (engine.rules.counterfeit.standin_outcomes). Network
    games never take this path: the lockstep layer supplies the outcomes of the opened shares
    through ``apply_reveal`` (protocol.md §C12)."""
    _use_card(s, ev, counterfeit.reveal(s, ev, counterfeit.standin_outcomes(s, rng)))


def reveal_inplace(s, ev, fakes, advance) -> None:
    """Phase "inspection" (checked by the caller, engine.game.apply_reveal): apply the
    fake/genuine outcomes (one bool per item of ``counterfeit.unknown_items(s)``, in order) to
    ``s`` in place, then run the flow on (``advance``: engine.game.advance). Raises ValueError
    if the count is wrong."""
    _use_card(s, ev, counterfeit.reveal(s, ev, fakes))
    advance(s, ev)
    _settle(s, ev, advance)


def apply_action(state, seat: int, action, step_inplace) -> tuple:
    """``engine.apply_action`` for this edition: a decision step in which every other seat sends
    None, run through ``step_inplace`` (engine.game.step_inplace, passed in: engine.game
    imports this module; so windows and silence rules apply); raises IllegalAction (nothing
    changed) if the action is refused."""
    inputs = [None] * state.n
    inputs[seat] = action
    s = state.copy()
    ev: list = []
    step_inplace(s, inputs, ev)
    for e in ev:
        if type(e) is ActionRefused and e.seat == seat:
            raise IllegalAction(e.reason, e.reason)
    return s, tuple(ev)


class NienteFlow(PlainFlow):
    """niente-e-come-sembra's flow strategy (``Edition.flow``; the hooks: engine.rules.flow):
    its phases "inspect_window", "inspection", "take_card", "pay_bills", its actions
    (:data:`HANDLERS`), the end-of-step rules (:func:`after_step`) and its ending."""

    __slots__ = ()
    name = "niente"
    extends_legal = True
    step_rules = True
    handlers = HANDLERS

    def pending(self, s) -> tuple[bool, tuple[int, ...], str]:
        """:func:`pending_parts` for this edition's phases (else as PlainFlow: AssertionError)."""
        if s.phase in NIENTE_PHASES:
            return pending_parts(s)
        return PlainFlow.pending(self, s)

    def chance(self, s, ev, rng) -> None:
        """Chance step "inspection" outside a network game: :func:`standin_reveal`."""
        if s.phase == P_REVEAL:
            standin_reveal(s, ev, rng)
        else:
            PlainFlow.chance(self, s, ev, rng)

    def after_step(self, s, ev, inputs, ph0: int, ev0: int, advance) -> None:
        """:func:`after_step`."""
        after_step(s, ev, inputs, ph0, ev0, advance)

    def after_chance(self, s, ev, advance) -> None:
        """:func:`after_chance`."""
        _settle(s, ev, advance)

    def reveal(self, s, ev, fakes, advance) -> None:
        """:func:`reveal_inplace`."""
        reveal_inplace(s, ev, fakes, advance)

    def extend_legal(self, s, seat: int, out: list) -> None:
        """:func:`extend_legal`."""
        extend_legal(s, seat, out)

    def apply_action(self, state, seat: int, action, step_inplace) -> tuple:
        """:func:`apply_action`: the whole step runs (windows and silence rules apply)."""
        return apply_action(state, seat, action, step_inplace)


NIENTE_FLOW = NienteFlow()
"""niente-e-come-sembra's flow strategy (``Edition.flow``)."""
