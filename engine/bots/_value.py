"""What property is worth to a bot: cheap integer heuristics over the state's flat lists.

No search, no copies of the state: a trade is valued by looking at an ``owner`` list in which a
few squares have been reassigned (a 40-int list copy). Everything is an int (DESIGN.md §1).

Values, in euro:

* a property is worth its printed price (mortgaged: the price less the cost of lifting it);
* a complete colour set adds the sum of its printed prices again (it doubles the rent and lets
  the owner build — rulebook "Collezionate serie complete di strade dello stesso colore!");
* stations and utilities add a bonus for owning several (their rent grows with the count).
"""
from __future__ import annotations

from operator import itemgetter

from ..editions import K_STREET

__all__ = ["Static", "static", "unit_value", "holdings_value", "new_sets",
           "worst_rent", "reserve_for", "completes_set", "blocks_set", "reserve_bounds", "board",
           "split_sets", "owns_mortgaged"]

# Extra value for owning k stations / utilities (rent 25/50/100/200 and 4x/10x the dice).
_STATION_BONUS = (0, 0, 50, 150, 300)
_UTILITY_BONUS = (0, 0, 60)
# Expected dice total, used to turn a utility's dice multiplier into euro.
_DICE_MEAN = 7


class Static:
    """Per-edition lists the bots read on the hot path (computed once per edition)."""

    __slots__ = ("groups", "set_price", "build_order", "properties", "stations", "utilities",
                 "units", "group_get", "sq_group_get", "unit_of", "unit_bonus",
                 "min_house_cost", "max_rent", "streets", "street_rent", "street_rows",
                 "is_property", "rent_units", "last_board", "worst_memo",
                 "last_mortgaged")

    def __init__(self, tb, go_salary: int = 200, ed=None) -> None:
        self.groups = [tuple(g) for g in tb.group_members]
        """Colour sets: the squares of each, in board order."""
        self.set_price = [sum(tb.price[m] for m in g) for g in self.groups]
        """Sum of the printed prices of each colour set, euro."""
        # Build where a house buys the most rent per euro first (ties: lower set index).
        gain = []
        for gi, g in enumerate(self.groups):
            m = g[-1]
            per_house = (tb.rent[m][4] - tb.rent[m][1]) * 1000 // max(1, 3 * tb.house_cost[m])
            gain.append((-per_house, gi))
        self.build_order = tuple(gi for _, gi in sorted(gain))
        """Colour set indices, best return per house first."""
        self.properties = tuple(tb.properties)
        """Every purchasable square."""
        self.is_property = [sq in self.properties for sq in range(tb.nsq)]
        """is_property[sq]: True for a purchasable square."""
        self.stations = tuple(tb.stations)
        """Station squares."""
        self.utilities = tuple(tb.utilities)
        """Utility squares."""
        self.units = self.groups + [self.stations, self.utilities]
        """Valuation units: the colour sets, then the stations, then the utilities."""
        k = go_salary
        self.unit_bonus = ([(0,) * len(g) + (p,) for g, p in zip(self.groups, self.set_price)]
                           + [tuple(b * k // 200 for b in _STATION_BONUS),
                              tuple(b * k // 200 for b in _UTILITY_BONUS)])
        """unit_bonus[u][k]: euro added for owning k squares of unit u (station and utility
        bonuses are classico euro scaled by the edition's VIA! salary)."""
        self.group_get = [_getter(g) for g in self.groups]
        """group_get[gi]: list -> tuple of its entries at the squares of colour set ``gi``."""
        self.sq_group_get = [_getter(g) for g in tb.group_of]
        """sq_group_get[sq]: list -> tuple of its entries at ``tb.group_of[sq]`` (the squares
        whose ownership decides the rent of ``sq``; empty for other squares)."""
        self.unit_of = [-1] * tb.nsq
        """unit_of[sq]: index in ``units`` of the unit of property ``sq`` (-1: none)."""
        for u, members in enumerate(self.units):
            for m in members:
                self.unit_of[m] = u
        self.min_house_cost = min((tb.house_cost[g[0]] for g in self.groups), default=0)
        """Cheapest building of the edition, euro."""
        self.streets = tuple(m for g in self.groups for m in g)
        """Every street, set by set."""
        self.street_rent = [(r[1],) + tuple(r[2:]) if r else () for r in tb.rent]
        """street_rent[sq][level]: rent of street ``sq`` with ``level`` buildings, euro (level
        0: the complete-set rent)."""
        self.street_rows = tuple((m, self.street_rent[m]) for m in self.streets)
        """(street, street_rent[street]) for every street, in ``streets`` order (hot loop)."""
        self.rent_units = None if ed is None else _rent_units(self, ed)
        """(squares, owners getter, rents, multiplier) for the stations and the utilities of
        ``ed`` (the edition whose ``tb`` this is), read by worst_rent; None: not given."""
        self.max_rent = max([max(r) for r in tb.rent if r] + [0])
        """Highest printed street rent of the edition (a hotel), euro: bounds worst_rent."""
        self.last_mortgaged: tuple = (None, None, [])
        """owns_mortgaged's memo: (copies of mort and owner, seats owning a mortgaged
        property)."""
        self.worst_memo: tuple = (None, None, None, [])
        """worst_rent's memo: (owner, level, mort copies, each owner's highest rent)."""
        self.last_board: tuple = (None, ({}, {}))
        """``(copy of the owner list, board's value)`` for the last owner list :func:`board`
        saw (None equals no list: the first call computes)."""


def _getter(squares: tuple[int, ...]):
    """A function list -> tuple of its entries at ``squares``, run in C where it can
    (operator.itemgetter returns a bare item, not a tuple, for fewer than two indices)."""
    if len(squares) >= 2:
        return itemgetter(*squares)
    return lambda values: tuple(values[m] for m in squares)


def _rent_units(st: Static, ed) -> tuple:
    """Static.rent_units for edition ``ed``."""
    return tuple((sq, _getter(sq), rents, mult) for sq, rents, mult in (
        (st.stations, ed.station_rents, 1), (st.utilities, ed.utility_multipliers, _DICE_MEAN)))


_STATIC: dict[str, Static] = {}


def static(s) -> Static:
    """The :class:`Static` lists of ``s``'s edition (cached by edition name)."""
    st = _STATIC.get(s.edition)
    if st is None:
        st = _STATIC[s.edition] = Static(s.tb, s.ed.go_salary, s.ed)
    return st


def unit_value(s, st: Static, owner: list[int], seat: int, u: int) -> int:
    """Worth in euro for ``seat`` of its squares of valuation unit ``u`` under ``owner``."""
    tb = s.tb
    price = tb.price
    mort = s.mort
    v = 0
    cnt = 0
    for m in st.units[u]:
        if owner[m] == seat:
            cnt += 1
            v += price[m] - tb.lift[m] if mort[m] else price[m]
    bonus = st.unit_bonus[u]
    return v + bonus[cnt if cnt < len(bonus) else -1]


def holdings_value(s, st: Static, owner: list[int], seat: int) -> int:
    """Worth in euro of what ``seat`` owns under the ownership list ``owner`` (module docstring);
    ``s.mort`` says which squares are mortgaged."""
    return sum(unit_value(s, st, owner, seat, u) for u in range(len(st.units)))


def new_sets(st: Static, before: list[int], after: list[int], seat: int,
             units: range | list[int] | None = None) -> int:
    """Sum of the set prices (euro) of the colour sets ``seat`` completes going from ownership
    ``before`` to ``after`` (looking only at the colour sets in ``units`` when given)."""
    total = 0
    groups = st.groups
    for gi in (range(len(groups)) if units is None else units):
        if gi >= len(groups):
            continue
        g = groups[gi]
        for m in g:
            if after[m] != seat:
                break
        else:
            for m in g:
                if before[m] != seat:
                    total += st.set_price[gi]
                    break
    return total


def completes_set(s, sq: int, seat: int) -> bool:
    """True if owning ``sq`` would give ``seat`` the whole colour set of ``sq``."""
    tb = s.tb
    if tb.kind[sq] != K_STREET:
        return False
    owner = s.owner
    for m in tb.group_of[sq]:
        if owner[m] != seat and m != sq:
            return False
    return True


def blocks_set(s, sq: int, seat: int) -> bool:
    """True if one other player owns every other street of ``sq``'s colour set (so ``seat``
    taking ``sq`` keeps that player from completing it)."""
    tb = s.tb
    if tb.kind[sq] != K_STREET:
        return False
    owner = s.owner
    rival = -1
    for m in tb.group_of[sq]:
        if m == sq:
            continue
        o = owner[m]
        if o < 0 or o == seat or (rival >= 0 and o != rival):
            return False
        rival = o
    return rival >= 0


def worst_rent(s, st: Static, seat: int) -> int:
    """About the highest rent in euro ``seat`` could owe by landing on one opponent's property
    now. An unbuilt street counts at its complete-set rent (an upper bound: at most €50 over
    the printed rent on the classico board) and a utility at the mean dice total, 7: a cheap
    bound for the reserve, not a rent computation.

    The highest rent of every owner is computed once per board for all seats
    (:func:`_owner_tops`) and memoised in ``Static.worst_memo`` with copies of the lists it was
    computed from (compared by value, so the answer is the same whatever the memo holds)."""
    owner = s.owner
    mort = s.mort
    level = s.level
    memo = st.worst_memo
    if memo[0] == owner and memo[1] == level and memo[2] == mort:
        tops = memo[3]
    else:
        tops = _owner_tops(s, st, owner, level, mort)
        st.worst_memo = (owner[:], level[:], mort[:], tops)
    worst = 0
    o = 0
    for r in tops:
        if o != seat and r > worst:
            worst = r
        o += 1
    return worst


def _owner_tops(s, st: Static, owner: list[int], level: list[int], mort: list[int]) -> list[int]:
    """``tops[o]``: the highest rent (as :func:`worst_rent` counts it) of owner ``o``'s
    unmortgaged properties, 0 if none, for ``o`` in ``0..max(owner)``."""
    top = -1
    for o in owner:  # max(owner), a loop: compiled, C compares (max() compares objects)
        if o > top:
            top = o
    tops = [0] * (top + 1)
    for m, row in st.street_rows:  # plain index loops: the fastest form here
        o = owner[m]
        if o >= 0 and not mort[m]:
            lv = level[m]  # compiled: a C index into the tuple row (_value.pxd)
            r = row[lv]
            t = tops[o]  # compiled: compared as C ints (r is not boxed unless stored)
            if r > t:
                tops[o] = r
    units = st.rent_units
    if units is None:
        units = _rent_units(st, s.ed)
    for squares, get, rents, mult in units:
        holders = get(owner)
        i = 0
        for o in holders:
            if o >= 0 and not mort[squares[i]]:
                r = rents[holders.count(o) - 1] * mult
                t = tops[o]
                if r > t:
                    tops[o] = r
            i += 1
    return tops


def owns_mortgaged(s, st: Static, seat: int) -> bool:
    """True if ``seat`` owns a mortgaged property. The seats that do are memoised on the
    ``mort`` and ``owner`` lists (compared by value; they change a few dozen times a game)."""
    mort = s.mort
    owner = s.owner
    last = st.last_mortgaged
    if mort == last[0] and owner == last[1]:
        return seat in last[2]
    is_prop = st.is_property
    seats: list[int] = []
    i = -1
    for _ in range(mort.count(1)):  # visit only the mortgaged squares (C calls)
        i = mort.index(1, i + 1)
        o = owner[i]
        if is_prop[i] and o >= 0 and o not in seats:
            seats.append(o)
    st.last_mortgaged = (mort[:], owner[:], seats)
    return seat in seats


def board(s, st: Static) -> tuple[dict, dict]:
    """``(full, split)`` for the ``owner`` list of ``s``, memoised on it (a pure function of
    it): ``full[seat]``: the colour sets ``seat`` owns whole, in ``st.build_order``;
    ``split[seat]``: ``(set, partner, seat's streets, partner's streets)`` for every colour set,
    in set order, whose streets are all owned by ``seat`` and one other player.

    One entry (the last owner list seen, compared by value): a board keyed by a tuple of the
    owner list, kept across games, was found again on 5% of the computations only (200
    classico games), and its tuple, hash and thousands of kept dicts (garbage-collector
    passes) cost more than the computations it saved (issue 14, perf)."""
    owner = s.owner
    last = st.last_board
    if owner == last[0]:  # the common case: ownership changes a few dozen times a game
        return last[1]
    key = owner[:]
    entry = _board_of(st, key)
    st.last_board = (key, entry)
    return entry


def _board_of(st: Static, key: list[int]) -> tuple[dict, dict]:
    """:func:`board`'s value for the owner list ``key`` (not changed)."""
    full: dict = {}
    split: dict = {}
    groups = st.groups
    group_get = st.group_get
    owners = []  # owners[gi]: the owners of colour set gi's streets (one C call each)
    for get in group_get:
        owners.append(get(key))
    for gi in st.build_order:
        h = owners[gi]
        o = h[0]
        if o >= 0 and h.count(o) == len(h):
            full[o] = full.get(o, ()) + (gi,)
    for gi in range(len(groups)):
        h = owners[gi]
        a = 0
        for b in h:  # min(h), a loop: compiled, C compares (min() compares objects)
            if b < a:
                a = b
        if a < 0:
            continue  # a street still with the bank
        a = h[0]
        na = h.count(a)
        if na == len(h):
            continue  # whole
        for b in h:
            if b != a:
                break
        if na + h.count(b) == len(h):  # exactly two owners
            # Loops, not generators: _value.pxd compiles this function as cpdef, which
            # allows no closure. Every street of the set is a's or b's.
            ours_a = []
            ours_b = []
            for m in groups[gi]:
                if key[m] == a:
                    ours_a.append(m)
                else:
                    ours_b.append(m)
            split.setdefault(a, []).append((gi, b, tuple(ours_a), tuple(ours_b)))
            split.setdefault(b, []).append((gi, a, tuple(ours_b), tuple(ours_a)))
    return full, split


def split_sets(s, st: Static, seat: int) -> list[tuple[int, int, tuple[int, ...], tuple[int, ...]]]:
    """``(set, partner, seat's streets, partner's streets)`` for every colour set, in set order,
    owned by ``seat`` (at least one street) and one other player (all the rest); bankrupt
    partners included. Memoised on the ``owner`` list; the list returned must not be changed."""
    return board(s, st)[1].get(seat, ())


def reserve_bounds(st: Static, prof) -> tuple[int, int]:
    """(lowest, highest) value :func:`reserve_for` can return for ``prof``, euro: lets callers
    skip the board scan when the answer cannot depend on it."""
    return prof.reserve, prof.reserve + st.max_rent * prof.threat_pct // 100


def reserve_for(s, st: Static, prof, seat: int) -> int:
    """Cash in euro ``seat`` keeps in hand: the profile's reserve plus a share of the worst
    rent it could owe on its next move."""
    return prof.reserve + worst_rent(s, st, seat) * prof.threat_pct // 100
