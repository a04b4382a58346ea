"""The engine's state machine: decision steps, chance steps, and the public functions.

Theory of operation (DESIGN.md §1-2, ARCHITECTURE.md §1). The state is always in one *phase*:

* chance phases — "first_player", "dice", "card", "auction_tie": the next step is ``apply_chance(state,
  beacon)``; the beacon is turned into outcomes by ``engine.rng.BeaconRng``;
* decision phases — "roll"/"jail" (current player), "buy_or_auction" (current player),
  "auction_bid" (bidders), "raise_money" (debtor), "mortgage_choice" (heir): the next step is
  ``apply_step(state, inputs)`` with one input (Action or None) per seat, applied in seat
  order. Every seat still in the game may also send an out-of-turn action (BuildHouse,
  SellBuilding, Mortgage, LiftMortgage, ProposeTrade, AcceptTrade, RejectTrade, WithdrawTrade,
  ClaimRent) in any decision step; an action illegal when its turn comes is refused
  (``ActionRefused``) and changes nothing; None changes nothing (except in an auction step,
  where an actor's silence is a pass unless it holds a tied bid, engine.rules.auction);
* "game_over": terminal.

Between phases the engine runs transient bookkeeping (``advance``): pay queued debts or enter
"raise_money", end of move (roll again on a double), next turn, next queued auction.

What an edition adds comes from its strategies, never from a test of which edition runs
(ARCHITECTURE.md §1.4): its phases, actions, chance steps and end-of-step rules from
``Edition.flow`` (engine.rules.flow), the card draw, the face-up deal and UseJailCard from
``Edition.cards`` (engine.rules.cards). What a seat may send next: engine.legal.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from . import actions as A
from .editions import EDITIONS
from .errors import IllegalAction
from .events import ActionRefused, DebtOpened
from .rng import BeaconRng
from .rules import auction, bankruptcy, building, cards, jail, mortgage, movement, rent, trade
from .rules import house_rules, sale, timed
from .rules.money import settle
from .state import (CHANCE_PHASES, P_AUCTION, P_AUCTION_NEXT, P_BUY, P_CARD,
                    P_CHOICE, P_DICE, P_END_MOVE, P_FIRST, P_INHERIT, P_JAIL_MOVE, P_NEXT_TURN,
                    P_OVER, P_RAISE, P_ROLL, PHASE_NAMES, State, new_state)
from .state import P_AUCTION_TIE, P_REVEAL

__all__ = ["Pending", "new_game", "pending", "apply_step", "apply_chance",
           "apply_action", "apply_reveal", "step_inplace", "chance_inplace", "advance",
           "shortage_possible"]


@dataclass(frozen=True, slots=True)
class Pending:
    """What the state waits for (ARCHITECTURE.md §1)."""
    chance: bool
    """True: the next step is a chance step and needs a beacon."""
    actors: tuple[int, ...]
    """Decision step: seats whose input the game waits for (sorted)."""
    kind: str
    """"first_player", "dice", "card", "roll", "jail", "buy_or_auction", "auction_bid",
    "raise_money", "mortgage_choice" or "game_over"."""
    terminal: bool
    """True once the game is over."""


def new_game(edition: str, seats: int, options: Mapping[str, object] | None = None) -> State:
    """A new game of ``edition`` for ``seats`` players, waiting for the "first_player" chance
    step. ``options``: the lobby options of engine.rules.house_rules (all off by default:
    ``free_parking_pot``, ``no_auctions``, ``double_go_salary`` bools, ``timed_minutes`` int
    for editions with a timed game); they become ``State.opts`` and so part of the state hash.
    Raises ValueError for a bad edition or seat count, an unknown option key or a bad value
    (so that peers never silently disagree on a setup)."""
    ed = EDITIONS.get(edition) if isinstance(edition, str) else None
    if ed is None:
        raise ValueError(f"unknown edition {edition!r}")
    return new_state(ed, seats, house_rules.parse_options(ed, options))


_PENDING_FIRST = Pending(True, (), "first_player", False)
_PENDING_DICE = Pending(True, (), "dice", False)
_PENDING_CARD = Pending(True, (), "card", False)
_PENDING_TIE = Pending(True, (), "auction_tie", False)
_PENDING_OVER = Pending(False, (), "game_over", True)


def pending(s: State) -> Pending:
    """What ``s`` waits for now."""
    ph = s.phase
    if ph == P_ROLL:
        return Pending(False, (s.current,), "jail" if s.jail[s.current] else "roll", False)
    if ph == P_DICE:
        return _PENDING_DICE
    if ph == P_BUY:
        return Pending(False, (s.current,), "buy_or_auction", False)
    if ph == P_AUCTION:
        return Pending(False, auction.actors(s), "auction_bid", False)
    if ph == P_CARD:
        return _PENDING_CARD
    if ph == P_RAISE:
        return Pending(False, (s.debts[0][0],), "raise_money", False)
    if ph == P_INHERIT:
        return Pending(False, (s.inherit[0],), "mortgage_choice", False)
    if ph == P_FIRST:
        return _PENDING_FIRST
    if ph == P_CHOICE:
        return Pending(False, (s.current,), "card_choice", False)
    if ph == P_OVER:
        return _PENDING_OVER
    if ph == P_AUCTION_TIE:
        return _PENDING_TIE
    # A phase of the edition's own flow (engine.rules.flow; AssertionError for a transient one).
    chance, actors, kind = s.ed.flow.pending(s)
    return Pending(chance, actors, kind, False)


# ---------------------------------------------------------------------------------- actions

def _roll(s, ev, seat, a, in_auction):
    if s.phase != P_ROLL or s.current != seat:
        raise IllegalAction("it is not your roll", "not_your_roll")
    movement.roll_dice(s, ev, seat)


def _bid(s, ev, seat, a, in_auction):
    if not in_auction:
        raise IllegalAction("no auction step is running", "not_bidding")
    auction.bid(s, ev, seat, a.amount)


def _pass_bid(s, ev, seat, a, in_auction):
    if not in_auction:
        raise IllegalAction("no auction step is running", "not_bidding")
    auction.pass_bid(s, ev, seat)


def _mortgage_action(s, ev, seat, a, in_auction):
    mortgage.mortgage(s, ev, seat, a.square)


_HANDLERS = {
    A.RollDice.CODE: _roll,
    A.BuyProperty.CODE: lambda s, ev, seat, a, x: auction.buy(s, ev, seat),
    A.DeclineProperty.CODE: lambda s, ev, seat, a, x: auction.decline(s, ev, seat),
    A.Bid.CODE: _bid,
    A.PassBid.CODE: _pass_bid,
    A.PayJailFine.CODE: lambda s, ev, seat, a, x: jail.pay_fine(s, ev, seat),
    A.UseJailCard.CODE: lambda s, ev, seat, a, x: s.ed.cards.use_jail_card(s, ev, seat, a.deck),
    A.BuildHouse.CODE: lambda s, ev, seat, a, x: building.build(s, ev, seat, a.square),
    A.SellBuilding.CODE: lambda s, ev, seat, a, x: building.sell(s, ev, seat, a.square),
    A.Mortgage.CODE: _mortgage_action,
    A.LiftMortgage.CODE: lambda s, ev, seat, a, x: mortgage.lift(s, ev, seat, a.square),
    A.ProposeTrade.CODE: lambda s, ev, seat, a, x: trade.propose(s, ev, seat, a),
    A.AcceptTrade.CODE: lambda s, ev, seat, a, x: trade.accept(s, ev, seat, a.proposer, a.lift),
    A.RejectTrade.CODE: lambda s, ev, seat, a, x: trade.reject(s, ev, seat, a.proposer),
    A.WithdrawTrade.CODE: lambda s, ev, seat, a, x: trade.withdraw(s, ev, seat),
    A.ClaimRent.CODE: lambda s, ev, seat, a, x: rent.claim_rent(s, ev, seat, a.square, a.debtor),
    A.DeclareBankruptcy.CODE: lambda s, ev, seat, a, x: bankruptcy.declare(s, ev, seat),
    A.SettleMortgages.CODE: lambda s, ev, seat, a, x: bankruptcy.settle_mortgages(
        s, ev, seat, a.lift),
    A.TimeUp.CODE: lambda s, ev, seat, a, x: timed.time_up(s, ev, seat),
    A.PayCardFine.CODE: lambda s, ev, seat, a, x: cards.choose(s, ev, seat, False),
    A.DrawCardInstead.CODE: lambda s, ev, seat, a, x: cards.choose(s, ev, seat, True),
    A.AuctionProperty.CODE: lambda s, ev, seat, a, x: sale.start_sale(s, ev, seat, a.square),
}
# The same handlers keyed by the exact action class: one dict lookup replaces the code lookup
# and the type check (an object of another class takes the slow path in _dispatch).
_BY_TYPE = {A.ACTION_TYPES[code]: h for code, h in _HANDLERS.items()}
_BuildHouse = A.BuildHouse


def _dispatch(s: State, seat: int, a, ev: list, in_auction: bool) -> None:
    """Apply one action of ``seat``; raises IllegalAction (state unchanged) if illegal."""
    t = type(a)
    if s.out[seat]:
        raise IllegalAction("you are out of the game", "bankrupt")
    h = _BY_TYPE.get(t)
    if h is None:
        code = getattr(a, "CODE", None)
        if A.ACTION_TYPES.get(code) is not t:
            raise IllegalAction("not an action", "not_an_action")
        h = s.ed.flow.handlers.get(code)  # the actions of the edition's own flow
        if h is None:
            raise IllegalAction("not an action of this edition", "not_in_edition")
    h(s, ev, seat, a, in_auction)
    ph = s.phase
    if ph in _QUIET and not s.debts and not (s.out[s.current] and ph in _TURN_PHASES):
        return  # advance() would return at once: its fast exit, here without the call
    advance(s, ev)


# Phases in which a building shortage is not auctioned (requests go in seat order): an
# auction, a debt or an inheritance is already being settled.
_NO_SHORTAGE_PHASES = frozenset((P_AUCTION, P_RAISE, P_INHERIT, P_OVER, P_FIRST))
_TURN_PHASES = frozenset((P_ROLL, P_DICE, P_BUY, P_CARD, P_JAIL_MOVE, P_END_MOVE))
# Phases in which, with no debt queued and the current player still in (for _TURN_PHASES),
# the loop of advance() returns at once: its fast exit below.
_QUIET = frozenset(range(len(PHASE_NAMES))) - {P_RAISE, P_END_MOVE, P_NEXT_TURN,
                                                P_AUCTION_NEXT, P_JAIL_MOVE, P_AUCTION}


def advance(s: State, ev: list) -> None:
    """Run transient phases until the state waits for a step (see module doc)."""
    ph = s.phase
    if ph in _QUIET and not s.debts and not (s.out[s.current] and ph in _TURN_PHASES):
        return  # nothing to run (the common case after an action)
    if ph == P_END_MOVE and not s.debts:
        # The end of most moves, unrolled from the loop below (same checks, same order): a
        # double rolls again, else the next turn starts; either way the state then waits
        # (phase "roll", no debt queued, the new current player still in: the loop's exit).
        c = s.current
        if not s.out[c]:
            if s.doubles and not s.jail[c]:
                s.phase = P_ROLL
                return
            if not s.time_up:
                movement.next_turn(s, ev)
                return
    while True:
        ph = s.phase
        if ph == P_OVER:
            return
        if s.debts and not (ph == P_AUCTION and sale.is_sale(s)):  # debts wait for a sale
            if ph != P_RAISE:
                if not settle(s, ev):
                    s.resume.append(ph)
                    s.phase = P_RAISE
                    d = s.debts[0]
                    ev.append(DebtOpened(d[0], d[1], d[2]))
                    return
                continue
            if not settle(s, ev):
                return
        if ph == P_RAISE:
            s.phase = s.resume.pop()
            continue
        if s.out[s.current] and ph in _TURN_PHASES:
            # The current player went bankrupt mid-turn: the rest of the turn is void.
            s.phase = P_NEXT_TURN
            continue
        if ph == P_END_MOVE:
            movement.end_move(s, ev)
        elif ph == P_NEXT_TURN:
            if s.time_up and timed.check_expired(s, ev):
                timed.finish(s, ev)
            else:
                movement.next_turn(s, ev)
        elif ph == P_AUCTION_NEXT:
            auction.auction_next(s, ev)
        elif ph == P_JAIL_MOVE:
            movement.jail_move(s, ev)
        elif ph == P_AUCTION and not auction.actors(s):
            auction.end_step(s, ev, ())
        else:
            return


def step_inplace(s: State, inputs: Sequence, ev: list, strict: int = -1) -> None:
    """Decision step in place: apply ``inputs`` (one per seat, Action or None) in seat order,
    appending events to ``ev``. Raises ValueError if the state waits for a chance step or is
    over, or if ``len(inputs) != s.n``. For simulations; peers use ``apply_step``.

    ``strict``: leave it at -1 (``apply_action`` passes the one seat whose input is applied
    even when None and whose IllegalAction propagates, state left half-changed: it runs on a
    copy, instead of becoming ``ActionRefused``)."""
    ph = s.phase
    if ph in CHANCE_PHASES or ph == P_OVER:
        raise ValueError(f"not a decision step: {PHASE_NAMES[ph]}")
    if len(inputs) != s.n:
        raise ValueError("one input per seat")
    ev0 = len(ev)
    in_auction = ph == P_AUCTION
    if in_auction:
        step_actors = auction.actors(s)
        s.step_bids = []
    short = None
    # A shortage needs BuildHouse requests from two seats (building.shortage): never with a
    # single BuildHouse, so the common one-builder step skips the check. Counted with a loop
    # (compiled: a C counter and pointer compares; list(map(type, inputs)).count built a map
    # and a list every step, about 3% of a compiled bot game).
    if strict < 0 and ph not in _NO_SHORTAGE_PHASES:
        builds = 0
        for a in inputs:
            if type(a) is _BuildHouse:
                builds += 1
        if builds >= 2:
            short = building.shortage(s, inputs)
    out = s.out
    by_type = _BY_TYPE  # a local: game.pxd types it dict, so compiled .get is a C call
    seat = -1
    for a in inputs:
        seat += 1
        if a is None and seat != strict:
            continue
        if short and type(a) is _BuildHouse and (seat, a.square) in short[1]:
            ev.append(ActionRefused(seat, a.CODE, "shortage_auction"))
            continue
        # _dispatch, inlined for the common case (an action of the shared rules).
        h = None if out[seat] else by_type.get(type(a))
        try:
            if h is None:
                _dispatch(s, seat, a, ev, in_auction and s.phase == P_AUCTION)
                continue
            h(s, ev, seat, a, in_auction and s.phase == P_AUCTION)
            ph2 = s.phase
            if ph2 not in _QUIET or s.debts or (out[s.current] and ph2 in _TURN_PHASES):
                advance(s, ev)
        except IllegalAction as e:
            if seat == strict:
                raise
            ev.append(ActionRefused(seat, getattr(a, "CODE", 0), e.code))
    if short and s.phase not in _NO_SHORTAGE_PHASES:
        auction.start_building(s, ev, short[0], [r for r in short[1] if not s.out[r[0]]])
    if in_auction:
        if s.phase == P_AUCTION:
            auction.end_step(s, ev, step_actors)
            advance(s, ev)
        s.step_bids = []
    elif ph == P_CHOICE and s.phase == P_CHOICE:
        _choice_silence(s, ev)
    rules = s.tb.flow_rules  # the edition's flow if it adds rules (engine.board.Tables), or None
    if rules is not None:
        rules.after_step(s, ev, inputs, ph, ev0, advance)


def _choice_silence(s: State, ev: list) -> None:
    """A card-choice step ended without a choice: the player pays the fine (like a silent
    bidder who leaves an auction, a vanished player cannot block the game)."""
    cards.choose(s, ev, s.current, False)
    advance(s, ev)


def chance_inplace(s: State, rng, ev: list) -> None:
    """Chance step in place with ``rng`` (an object with ``below(n)`` and ``die()``, normally
    ``BeaconRng(beacon)``; tests may pass ``engine.testing.ScriptedRng``). Raises ValueError if
    the state does not wait for a chance step."""
    ph = s.phase
    if ph == P_DICE:
        d1 = rng.die()
        movement.apply_dice(s, ev, d1, rng.die())
    elif ph == P_CARD:
        s.ed.cards.draw(s, ev, rng)  # the edition's card strategy (engine.rules.cards)
    elif ph == P_FIRST:
        movement.first_player(s, ev, rng)
        s.ed.cards.deal(s, ev, rng)
    elif ph == P_AUCTION_TIE:
        auction.roll_tie(s, ev, rng)
    else:  # a chance phase of the edition's own flow, else ValueError (engine.rules.flow)
        s.ed.flow.chance(s, ev, rng)
    ph = s.phase
    if ph not in _QUIET or s.debts or (s.out[s.current] and ph in _TURN_PHASES):
        advance(s, ev)  # (advance's own fast exit, here without the call: "buy", "card")
    rules = s.tb.flow_rules  # (as at the end of step_inplace)
    if rules is not None:
        rules.after_chance(s, ev, advance)


def apply_step(state: State, inputs: Sequence) -> tuple[State, tuple]:
    """Functional decision step: ``(new_state, events)``; ``state`` is not modified.
    Errors: as ``step_inplace``."""
    s = state.copy()
    ev: list = []
    step_inplace(s, inputs, ev)
    return s, tuple(ev)


def apply_chance(state: State, beacon: bytes) -> tuple[State, tuple]:
    """Functional chance step with the 32-byte ``beacon`` (engine.rng): ``(new_state, events)``.
    Raises ValueError if the state does not wait for a chance step or the beacon is empty."""
    rng = BeaconRng(beacon)
    s = state.copy()
    ev: list = []
    chance_inplace(s, rng, ev)
    return s, tuple(ev)


def apply_action(state: State, seat: int, action) -> tuple[State, tuple]:
    """One action as a decision step in which every other seat sends None (so in an auction
    step the other bidders pass). Raises IllegalAction (nothing changed) if illegal, ValueError
    if the state waits for a chance step or is over. The step is ``step_inplace``'s, on a copy,
    except that this seat's IllegalAction is raised instead of becoming ``ActionRefused`` (and
    ``action`` None is an illegal action, "not_an_action")."""
    ph = state.phase
    if ph in CHANCE_PHASES or ph == P_OVER:
        raise ValueError(f"not a decision step: {PHASE_NAMES[ph]}")
    if not 0 <= seat < state.n:
        raise ValueError("no such seat")
    return state.ed.flow.apply_action(state, seat, action, step_inplace)  # engine.rules.flow


def apply_reveal(state: State, fakes: Sequence) -> tuple[State, tuple]:
    """Phase "inspection" (niente-e-come-sembra): apply the fake/genuine outcomes (one bool per
    item of ``engine.hidden_items(state)``, in order) on a copy: ``(new_state, events)``. The
    p2p layer computes them from every seat's opened share (protocol.md §C12.5). Raises
    ValueError if the state is not in that phase or the count is wrong."""
    if state.phase != P_REVEAL:
        raise ValueError("the state does not wait for inspection outcomes")
    fakes = [bool(f) for f in fakes]
    s = state.copy()
    ev: list = []
    s.ed.flow.reveal(s, ev, fakes, advance)
    return s, tuple(ev)


def shortage_possible(s: State) -> bool:
    """True if the next step is a decision step in which BuildHouse requests of two seats could
    make a building shortage (``building.shortage``, checked only outside
    ``_NO_SHORTAGE_PHASES``): the p2p layer seals such a step (protocol.md §C13)."""
    ph = s.phase
    return ph not in CHANCE_PHASES and ph not in _NO_SHORTAGE_PHASES and building.shortage_possible(s)
