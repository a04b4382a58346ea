"""The decisions of a bot, phase by phase (see ``engine.bots`` for the overview).

Every function reads the state's flat lists directly (never a copy) and returns one Action or
None. They only return actions the engine accepts: the checks mirror engine/rules/*.py, and the
playout tests (tests/engine/test_playouts.py) fail on any bot action the engine refuses.
"""
from __future__ import annotations

from ..actions import (Bid, BuildHouse, BuyProperty, DeclareBankruptcy, DeclineProperty,
                       DrawCardInstead, PayCardFine, SellProperty,
                       LiftMortgage, Mortgage, PassBid, PayJailFine, RollDice, SellBuilding,
                       SettleMortgages, UseJailCard)
from ..editions import K_STATION, K_STREET, K_UTILITY
from ..legal import legal_actions
from ..rules.auction import min_bid
from ..errors import IllegalAction
from ..rules.bankruptcy import check_declare
from ..rules.building import liquidation_value, sell_error
from ..rules.mortgage import mortgage_error
from ..state import LOT_PROPERTY
from ._trade import own_offer, propose
from ._value import (Static, blocks_set, board, completes_set, owns_mortgaged, reserve_bounds,
                     reserve_for, worst_rent)

__all__ = ["on_roll", "on_buy", "on_auction", "on_raise", "on_inherit", "on_card_choice"]

HOTEL = 5
# Actions without fields are immutable values: one instance each, not one per decision.
_ROLLDICE = RollDice()
_BUYPROPERTY = BuyProperty()
_DECLINEPROPERTY = DeclineProperty()
_PASSBID = PassBid()
_PAYJAILFINE = PayJailFine()
_SHARED: dict = {}


def shared_action(cls, a, b=None):
    """``cls(a)``, or ``cls(a, b)`` if ``b`` is not None, built once per ``(cls, a, b)`` and
    then shared, for fields from a small set (squares, seats; never amounts): actions are
    frozen values, and a frozen dataclass's ``__init__`` stores each field with
    ``object.__setattr__``, interpreted even in the compiled engine (ClaimRent alone was ~1% of
    a compiled bot game). Never emptied. Fixed arity: compiled, a C call (_decide.pxd)."""
    key = (cls, a, b)
    x = _SHARED.get(key)
    if x is None:
        x = _SHARED[key] = cls(a) if b is None else cls(a, b)
    return x


# ------------------------------------------------------------------------------ own turn

def on_roll(s, st: Static, prof, seat: int):
    """Before the roll of ``seat``'s turn: lift a mortgage, build, offer a trade, leave jail,
    or roll. Each call returns one action; the turn's roll comes once nothing else is wanted."""
    if s.offers:
        if own_offer(s, seat) is not None:
            # One proposal per turn: with our offer open we roll (or leave jail) at once, so a
            # rejection cannot reach us before this turn's roll. A stale offer stays open too
            # (its partner's bot rejects it): were it withdrawn, the next state would have no
            # offer and we would propose again, so two other seats trading the asked street
            # back and forth in the step we offer would hold our turn for ever (RV16-D F1,
            # protocol.md §C8.3 'Own decision across steps', 'What changed in version 6').
            return _jail(s, st, prof, seat) if s.jail[seat] else RollDice()
    cash = s.cash[seat]
    reserve = -1
    # Cheap pre-checks (the reserve is at least prof.reserve) keep worst_rent off the hot path.
    if cash >= 2 * prof.reserve and owns_mortgaged(s, st, seat):
        reserve = reserve_for(s, st, prof, seat)
        a = _lift(s, st, prof, seat, reserve)
        if a is not None:
            return a
    if cash - st.min_house_cost >= prof.reserve * prof.build_reserve_pct // 100:
        sets = board(s, st)[0].get(seat)
        if sets:  # owns a colour set whole: _build may find a street
            a = _build(s, st, prof, seat, reserve, sets)
            if a is not None:
                return a
    if s.doubles == 0 and not s.jail[seat] and (s.turn // s.n) % prof.trade_every == 0:
        a = propose(s, st, prof, seat)
        if a is not None:
            return a
    if s.jail[seat]:
        return _jail(s, st, prof, seat)
    return _ROLLDICE


def _lift(s, st: Static, prof, seat: int, reserve: int):
    """Lift one mortgage when rich: streets of complete sets first, then by board order."""
    if s.debts and _owes(s, seat):
        return None
    cash = s.cash[seat]
    lift = s.tb.lift
    mort = s.mort
    owner = s.owner
    is_prop = st.is_property
    best = -1
    sq = -1
    for _ in range(mort.count(1)):  # visit only the mortgaged squares, in board order
        sq = mort.index(1, sq + 1)
        if owner[sq] == seat and is_prop[sq] and cash - lift[sq] >= 2 * reserve:
            if best < 0 or (completes_set(s, sq, seat) and not completes_set(s, best, seat)):
                best = sq
    return shared_action(LiftMortgage, best) if best >= 0 else None


def _owes(s, seat: int) -> bool:
    """True if ``seat`` is a debtor in ``s.debts``. A loop, not ``any(generator)``: a
    generator is a closure, which Cython does not allow in the typed functions of
    _decide.pxd."""
    for d in s.debts:
        if d[0] == seat:
            return True
    return False


def _count_owned(squares, owner: list, seat: int) -> int:
    """How many of ``squares`` ``seat`` owns under ``owner`` (a loop: see :func:`_owes`)."""
    n = 0
    for m in squares:
        if owner[m] == seat:
            n += 1
    return n


def _build(s, st: Static, prof, seat: int, reserve: int, sets: tuple[int, ...]):
    """One building on a colour set ``seat`` owns whole, the set with the best return per euro
    first, evenly (lowest street first). ``reserve``: the seat's reserve in euro, or -1 if not
    computed yet; ``sets``: the colour sets ``seat`` owns whole, in build order (board)."""
    if s.debts and _owes(s, seat):
        return None
    tb = s.tb
    level = s.level
    mort = s.mort
    groups = st.groups
    cash = s.cash[seat]
    keep = -1  # computed at the first buildable street (worst_rent is the costly part)
    for gi in sets:
        low = -1
        # One pass: skip a set with a mortgaged street; else find its lowest street.
        for m in groups[gi]:
            if mort[m]:
                low = -2
                break
            if low < 0 or level[m] < level[low]:
                low = m
        if low < 0 or level[low] >= HOTEL:
            continue
        if level[low] == 4:
            if s.hotels <= 0:
                continue
        elif s.houses <= 0:
            continue
        left = cash - tb.house_cost[low]
        if keep < 0:
            lo, hi = reserve_bounds(st, prof)
            if left < lo * prof.build_reserve_pct // 100:
                continue  # too poor for this set whatever the board looks like
            if reserve < 0 and left < hi * prof.build_reserve_pct // 100:
                reserve = reserve_for(s, st, prof, seat)
            keep = (reserve if reserve >= 0 else hi) * prof.build_reserve_pct // 100
        if left >= keep:
            return shared_action(BuildHouse, low)
    return None


def _jail(s, st: Static, prof, seat: int):
    """Leave jail early while the board is cheap, stay (roll for doubles) once it is dear."""
    unowned = 0
    for sq in st.properties:
        if s.owner[sq] < 0:
            unowned += 1
    if unowned == 0 and worst_rent(s, st, seat) >= prof.jail_stay_rent:
        return _ROLLDICE
    if s.held[seat]:
        return UseJailCard(s.held[seat][0] >> 8)
    fine = s.ed.jail_fine
    cash = s.cash[seat]
    # Pay when the fine is small beside our cash (classico €50 from €400 up; fabrianopoli's
    # €500 only when rich) and leaves the reserve.
    if cash - fine >= prof.reserve and 8 * fine <= cash:
        return _PAYJAILFINE
    return _ROLLDICE


def on_buy(s, st: Static, prof, seat: int):
    """Buy the property landed on when the reserve allows it, or always when it completes or
    blocks a colour set and the price is payable; otherwise decline (it goes to auction)."""
    sq = s.pos[seat]
    price = s.tb.price[sq]
    cash = s.cash[seat]
    if cash < price:
        return _DECLINEPROPERTY
    lo, hi = reserve_bounds(st, prof)
    if cash - price >= hi or (cash - price >= lo
                              and cash - price >= reserve_for(s, st, prof, seat)):
        return _BUYPROPERTY
    if (completes_set(s, sq, seat) or blocks_set(s, sq, seat)) and cash - price >= prof.reserve // 3:
        return _BUYPROPERTY
    return _DECLINEPROPERTY


def _auction_ceiling(s, st: Static, prof, seat: int, sq: int, low: int) -> int:
    """Highest bid in euro ``seat`` makes for ``sq`` (below ``low``, the minimum bid, when it
    will not bid)."""
    tb = s.tb
    price = tb.price[sq]
    value = price * prof.bid_pct // 100
    if completes_set(s, sq, seat):
        value += st.set_price[tb.group[sq]] // 2
    elif blocks_set(s, sq, seat):
        value += price // 2
    elif tb.kind[sq] in (K_STATION, K_UTILITY):
        owned = _count_owned(tb.group_of[sq], s.owner, seat)
        value += owned * price // 4
    cash = s.cash[seat]
    lo, hi = reserve_bounds(st, prof)
    if min(value, cash - lo // 2) < low:
        return low - 1  # cannot reach the minimum bid even before the rent threat
    if cash - hi // 2 >= value:
        return value  # rich enough whatever the board looks like
    return min(value, cash - reserve_for(s, st, prof, seat) // 2)


def auction_top(s, st: Static, prof, seat: int) -> tuple[int, int]:
    """(top, price) for ``seat`` in the current auction step: ``top`` the highest bid in euro
    it makes for the lot now (below ``min_bid(s)`` when it will not bid), ``price`` the lot's
    printed price (the deed's, or the building's cost). A building-shortage lot (rulebook "La
    Banca non ha edifici a sufficienza?") is worth up to twice the building's printed cost,
    within the reserve. Also used by bench/bench_auction.py to give its cheating bidders the
    same valuation as the bot."""
    if s.auc_lot != LOT_PROPERTY:
        price = s.tb.house_cost[s.auc_target[seat]]
        return min(2 * price * prof.bid_pct // 100, s.cash[seat] - reserve_for(s, st, prof, seat)), price
    sq = s.auc_sq
    return _auction_ceiling(s, st, prof, seat, sq, min_bid(s)), s.tb.price[sq]


def on_auction(s, st: Static, prof, seat: int, tops: dict | None = None):
    """Bid what the competition would make the seat pay, at once, or pass.

    ``top`` is the seat's own ceiling (``auction_top``); ``rival`` the highest ceiling of the
    other seats still in the auction (the high bidder included), computed as if they valued
    the lot with this bot's profile (a bot's ceiling depends only on the public state). If
    ``top`` beats ``rival``: bid ``rival`` + the minimum raise (at least the minimum bid), the
    price at which an ascending auction between them would end; if ``rival`` beats ``top``:
    bid ``top``, so that the winner pays more than this seat would have; on a tie: bid ``top``
    (equal bids tie, nobody can raise, and the tied seats roll for the lot at the ceiling,
    engine.rules.auction). Why
    (issue 10, bench/bench_auction.py): the former opening at half the printed price and
    raises of a tenth let a seat that always bids the minimum, or one that waited for the
    others' bids, win for much less than the bot paid; now neither pays less than the bot in
    its place, and a contested auction takes two or three rounds instead of many.

    ``tops``: optional cache ``{(seat, id(profile)): auction_top(...)[0]}`` shared by the
    bidders of one step (``choose_all``): every bidder weighs every other's ceiling, and a
    ceiling is a function of the state, the seat and the profile only."""
    if tops is None:
        tops = {}
    low = min_bid(s)
    top = _top(s, st, prof, seat, tops)
    if top < low:
        return _PASSBID
    rival = -1
    auc_in = s.auc_in
    for other in range(s.n):
        if other != seat and auc_in[other]:
            t = _top(s, st, prof, other, tops)
            if t > rival:
                rival = t
    if rival < top:
        return Bid(min(top, max(low, rival + s.ed.auction_min_raise)))
    return Bid(top)


def _top(s, st: Static, prof, seat: int, tops: dict) -> int:
    """``auction_top(s, st, prof, seat)[0]``, memoised in ``tops`` (see on_auction). Keyed by
    the profile's identity: hashing a frozen dataclass hashes all its fields (a generated
    ``__hash__``, interpreted even compiled); the profiles outlive the step, and two equal
    profiles would only compute the same ceiling twice."""
    key = (seat, id(prof))
    t = tops.get(key)
    if t is None:
        t = tops[key] = auction_top(s, st, prof, seat)[0]
    return t


# ------------------------------------------------------------------------------ money trouble

def on_raise(s, st: Static, prof, seat: int):
    """Raise money for a debt (see :func:`_raise`), checked against ``legal_actions``: in an
    edition without mortgages (niente-e-come-sembra sells to the bank instead) the first legal
    SellProperty / SellBuilding is used, else None (the engine's default sale then applies)."""
    a = _raise(s, st, prof, seat)
    fr = s.tb.flow_rules  # the edition's flow if it adds rules (engine.board.Tables), or None
    if (fr is None or not fr.extends_legal) and _legal_for_debtor(s, seat, a):
        return a  # the common case, without listing every legal action
    legal = legal_actions(s, seat)
    if a in legal:
        return a
    for cls in (SellProperty, SellBuilding, Mortgage, DeclareBankruptcy):
        for x in legal:
            if type(x) is cls:
                return x
    return None


def _legal_for_debtor(s, seat: int, a) -> bool:
    """True only if ``a`` (a Mortgage, SellBuilding or DeclareBankruptcy of :func:`_raise`) is
    in ``legal_actions(s, seat)`` for the head debtor ``seat`` of an edition whose flow adds no
    actions (``Edition.flow.extends_legal`` False): the same tests as legal_actions for that
    seat. False means "ask legal_actions" (never a wrong True)."""
    t = type(a)
    if t is Mortgage:
        sq = a.square
        return (s.owner[sq] == seat and not s.mort[sq] and s.tb.price[sq] > 0
                and mortgage_error(s, seat, sq) is None)
    if t is SellBuilding:
        sq = a.square
        return (s.owner[sq] == seat and s.level[sq] > 0 and s.tb.price[sq] > 0
                and sell_error(s, seat, sq) is None)
    if t is DeclareBankruptcy:
        try:
            check_declare(s, seat)
        except IllegalAction:
            return False
        return True
    return False


def _raise(s, st: Static, prof, seat: int):
    """Mortgage what earns least, then sell buildings evenly, then mortgage the streets of
    sets; declare bankruptcy only when even that cannot pay."""
    owed = 0
    for d in s.debts:  # engine.rules.money.owed_by
        if d[0] == seat:
            owed += d[2]
    cash = s.cash[seat]
    need = owed - cash
    tb = s.tb
    owner = s.owner
    level = s.level
    mort = s.mort
    kind = tb.kind
    is_prop = st.is_property
    group_levels = st.sq_group_get
    # What selling and mortgaging everything would raise: the engine's own test for
    # bankruptcy (the edition's estate; niente: the bank buys property back at its price).
    if cash + liquidation_value(s, seat) < owed:
        return DeclareBankruptcy()
    # 1. Mortgage a property outside any complete set with no buildings in its group:
    #    the one whose mortgage covers the need, else the largest. One pass over the seat's
    #    squares in board order (list.index runs in C).
    best = -1
    sq = -1
    for _ in range(owner.count(seat)):
        sq = owner.index(seat, sq + 1)
        if mort[sq]:
            continue
        if not is_prop[sq] or _any_built(group_levels[sq](level)):
            continue  # buildings in its group: sell them first
        if kind[sq] == K_STREET and completes_set(s, sq, seat):
            continue
        if best < 0 or _better_mortgage(tb, sq, best, need):
            best = sq
    if best >= 0:
        return shared_action(Mortgage, best)
    # 2. Sell a building: from the set with the cheapest houses, on its highest street.
    sell = -1
    for gi in reversed(st.build_order):
        g = st.groups[gi]
        top = -1
        for m in g:
            if owner[m] == seat and level[m] and (top < 0 or level[m] > level[top]):
                top = m
        if top >= 0:
            sell = top
            break
    if sell >= 0:
        return shared_action(SellBuilding, sell)
    # 3. Mortgage the streets of complete sets (no buildings left on them).
    for sq in st.properties:
        if owner[sq] == seat and not mort[sq] and not _group_built(s, sq):
            return shared_action(Mortgage, sq)
    return DeclareBankruptcy()  # pragma: no cover - liquidation_value said we could pay


def _any_built(levels: tuple) -> bool:
    """``any(levels)`` as a loop (compiled: C truth tests, no call of the builtin)."""
    for lv in levels:
        if lv:
            return True
    return False


def _group_built(s, sq: int) -> bool:
    level = s.level
    for m in s.tb.group_of[sq]:
        if level[m]:
            return True
    return False


def _better_mortgage(tb, sq: int, best: int, need: int) -> bool:
    """Prefer the smallest mortgage that covers ``need``; failing that the largest."""
    a, b = tb.mortgage[sq], tb.mortgage[best]
    if a >= need and b >= need:
        return a < b
    if a >= need or b >= need:
        return a >= need
    return a > b


def on_inherit(s, st: Static, prof, seat: int):
    """Mortgaged properties received from a bankrupt: lift those we can afford above the
    reserve (streets that complete a set first), pay the 10 % on the rest."""
    tb = s.tb
    squares = sorted(s.inherit[1:], key=lambda sq: (not completes_set(s, sq, seat), sq))
    fees = sum(tb.fee[sq] for sq in squares)
    budget = s.cash[seat] - prof.reserve - fees
    lift = []
    for sq in squares:
        extra = tb.lift[sq] - tb.fee[sq]
        if extra <= budget:
            lift.append(sq)
            budget -= extra
    return SettleMortgages(tuple(sorted(lift)))


def on_card_choice(s, st: Static, prof, seat: int):
    """"Pagate una multa ... oppure prendete un cartoncino": pay when the fine leaves the
    reserve, else take the chance of the other deck."""
    key = s.draw_deck
    fine = s.ed.decks[key >> 8][key & 255].amount
    if s.cash[seat] - fine >= prof.reserve:
        return PayCardFine()
    return DrawCardInstead()
