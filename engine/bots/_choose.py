"""The bots' entry points, ``choose`` and ``choose_all`` (re-exported by ``engine.bots``, whose
docstring says what a bot does): which seats are asked, and which phase decision runs.

A module of its own, not ``engine/bots/__init__.py``, so that setup.py compiles it (packages'
``__init__.py`` stay Python): ``_choose_all`` runs at every decision step of a bot game.
"""
from __future__ import annotations

from ..actions import ClaimRent
from ..state import P_AUCTION, P_BUY, P_CHOICE, P_INHERIT, P_OVER, P_RAISE, P_ROLL
from ._decide import (on_auction, on_buy, on_card_choice, on_inherit, on_raise, on_roll,
                      shared_action)
from ._profile import BOTS, scaled
from ._trade import answer, own_offer
from ._value import static

__all__ = ["choose", "choose_all"]


def choose(state, seat: int, bot: str = "default"):
    """The action of seat ``seat`` for the next decision step, or None for "nothing".

    ``state``: an ``engine.State`` (not modified); ``seat``: 0..n-1; ``bot``: a key of
    :data:`BOTS`. Returns None during chance steps, once the game is over, and for bankrupt
    seats. Raises KeyError for an unknown bot name and IndexError for a seat out of range.
    """
    if bot not in BOTS:
        raise KeyError(bot)
    return _choose(state, seat, bot, None)


def _choose(s, seat: int, bot: str, prof):
    """choose for a checked bot name; ``prof``: ``scaled(bot, s.ed.go_salary)`` if the caller
    has it (play_game), else None (looked up when a decision is due)."""
    if s.out[seat] or s.phase == P_OVER:
        return None
    ph = s.phase
    # The profile and the edition tables are looked up only when a decision is due: most
    # calls are for seats with nothing to do (the hot path of every lockstep step).
    if ph == P_AUCTION and s.auc_in[seat] and s.auc_bidder != seat:
        # A bidder that sends anything but a Bid leaves the auction (engine.rules.auction);
        # rent claims wait: they lapse only when dice are rolled.
        return on_auction(s, static(s), prof or scaled(bot, s.ed.go_salary), seat)
    if s.claims:
        for c in s.claims:
            if c[0] == seat:
                return shared_action(ClaimRent, c[2], c[1])
    if s.offers:
        # Before its roll, a seat whose own offer is open rolls first (on_roll): answering
        # could let its offer be rejected meanwhile and tempt it to propose again this turn.
        if not (ph == P_ROLL and s.current == seat and own_offer(s, seat) is not None):
            for o in s.offers:
                if o[1] == seat:
                    return answer(s, static(s), prof or scaled(bot, s.ed.go_salary), seat, o)
    if ph == P_ROLL:
        if s.current == seat:
            return on_roll(s, static(s), prof or scaled(bot, s.ed.go_salary), seat)
        return None
    if ph == P_BUY:
        if s.current == seat:
            return on_buy(s, static(s), prof or scaled(bot, s.ed.go_salary), seat)
        return None
    if ph == P_RAISE:
        if s.debts[0][0] == seat:
            return on_raise(s, static(s), prof or scaled(bot, s.ed.go_salary), seat)
        return None
    if ph == P_INHERIT:
        if s.inherit[0] == seat:
            return on_inherit(s, static(s), prof or scaled(bot, s.ed.go_salary), seat)
        return None
    if ph == P_CHOICE and s.current == seat:
        return on_card_choice(s, static(s), prof or scaled(bot, s.ed.go_salary), seat)
    return None


def choose_all(state, bots) -> list:
    """The inputs of every seat for the next decision step: exactly
    ``[choose(state, i, bots[i]) for i in range(state.n)]`` (``bots``: one bot name per seat),
    computed faster: ``choose`` is asked only for the seats that can get an answer other than
    None (the actor of the phase, auction bidders, creditors of open rent claims, partners of
    open offers; see the branches of ``choose``). Raises KeyError for an unknown bot name."""
    for b in bots:
        if b not in BOTS:
            raise KeyError(b)
    return _choose_all(state, bots)


def _choose_all(s, bots, profs=None) -> list:
    """choose_all for bot names already checked (play_game checks them once per game).
    ``profs``: optional ``scaled(bots[i], s.ed.go_salary)`` per seat, computed once per game
    by play_game (the same Profile objects choose would look up)."""
    n = s.n
    ph = s.phase
    fr = s.tb.flow_rules  # the edition's flow if it adds rules (engine.board.Tables), or None
    if fr is not None and fr.extends_legal:  # its own actions (niente): any seat may act; ask all
        return [choose(s, i, bots[i]) for i in range(n)]
    if ph == P_ROLL or ph == P_BUY or ph == P_CHOICE:
        actor = s.current
    elif ph == P_RAISE:
        actor = s.debts[0][0]
    elif ph == P_INHERIT:
        actor = s.inherit[0]
    elif ph == P_AUCTION:
        actor = -1
    else:
        return [choose(s, i, bots[i]) for i in range(n)]
    if not s.offers:
        # choose()'s branches called directly (most steps): rent claims first, then the one
        # actor of the phase, or the bidders of an auction.
        inputs = [None] * n
        out = s.out
        for c in s.claims:
            if inputs[c[0]] is None and not out[c[0]] and (actor >= 0 or not _bids(s, c[0])):
                inputs[c[0]] = shared_action(ClaimRent, c[2], c[1])  # its first open claim
        if actor >= 0:
            if not out[actor] and inputs[actor] is None:
                prof = scaled(bots[actor], s.ed.go_salary) if profs is None else profs[actor]
                # The two phases of most steps called by name (compiled: C calls, see
                # _choose.pxd), the others through _ON_PHASE.
                if ph == P_ROLL:
                    inputs[actor] = on_roll(s, static(s), prof, actor)
                elif ph == P_BUY:
                    inputs[actor] = on_buy(s, static(s), prof, actor)
                else:
                    inputs[actor] = _ON_PHASE[ph](s, static(s), prof, actor)
            return inputs
        st = static(s)
        b = s.auc_bidder
        tops: dict = {}  # the bidders' ceilings, shared by this step's decisions
        for i, x in enumerate(s.auc_in):
            if x and i != b and not out[i]:
                prof = scaled(bots[i], s.ed.go_salary) if profs is None else profs[i]
                inputs[i] = on_auction(s, st, prof, i, tops)
        return inputs
    ask = [False] * n
    if actor >= 0:
        ask[actor] = True
    else:
        b = s.auc_bidder
        for i, x in enumerate(s.auc_in):
            if x and i != b:
                ask[i] = True
    for c in s.claims:
        ask[c[0]] = True
    for o in s.offers:
        ask[o[1]] = True
    if profs is None:
        return [_choose(s, i, bots[i], None) if ask[i] else None for i in range(n)]
    return [_choose(s, i, bots[i], profs[i]) if ask[i] else None for i in range(n)]


def _bids(s, seat: int) -> bool:
    """True if ``seat`` is asked for a bid in the running auction step (choose's first
    branch: a bid comes before any rent claim)."""
    return s.phase == P_AUCTION and bool(s.auc_in[seat]) and s.auc_bidder != seat


_ON_PHASE = {P_ROLL: on_roll, P_BUY: on_buy, P_CHOICE: on_card_choice, P_RAISE: on_raise,
             P_INHERIT: on_inherit}
"""The decision of the seat a one-actor phase waits for (choose_all's fast path)."""
