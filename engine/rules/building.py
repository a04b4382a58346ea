"""Houses and hotels (rulebook: "GLI EDIFICI", "La costruzione delle case", "La costruzione degli
alberghi", "La Banca non ha edifici a sufficienza?", "Come vendere gli edifici").

* Build only on a complete colour set you own, with no mortgaged street in it ("Su una strada
  non si possono costruire edifici se qualsiasi altra strada ... è stata ipotecata"), at any time
  ("non occorre attendere il proprio turno"), evenly ("non si può ad esempio costruire una
  seconda casa su una stessa strada se su ciascuna delle altre ... non avete costruito almeno
  una casa"), at most 4 houses, then a hotel that returns the 4 houses to the bank.
* Stock: ``houses``/``hotels`` of the edition (32/12); nothing is built when the bank has none
  ("non si può costruire nulla di nuovo").
* Selling: half the price ("alla metà del loro prezzo d'acquisto"; rounded up to the euro,
  ``Tables.sell_back``: editrice-giochi's €125 house sells for €63), evenly ("in maniera
  equilibrata"). A hotel sold becomes 4 houses ("scambiarli immediatamente con 4 case") when the
  bank has 4 houses; otherwise (rule choice, protocol.md part E) selling that hotel sells the whole colour
  set down to the highest even level the bank's houses allow, at half price for every building.
* Shortage ("La Banca non ha edifici a sufficienza?"): when two or more players ask in the same
  decision step for more houses (or hotels) than the bank has, none of those requests is
  carried out; the bank auctions one building among them (``shortage``,
  engine.rules.auction.start_building): opening €10, raises of €1; the winner pays the bid
  instead of the printed price and the building goes on the street it asked for (if that is
  still legal). Further requests repeat the procedure while the shortage lasts.
* A player who owes money (raise_money) may sell but not build.
"""
from __future__ import annotations

from ..editions import K_STREET
from ..errors import IllegalAction
from ..actions import BuildHouse
from ..events import BuildingBought, BuildingSold, maker
from ..state import LOT_HOTEL, LOT_HOUSE
from .money import R_HOUSE, R_SALE, transfer

_BuildingBought = maker(BuildingBought)  # fast constructor (events.maker)

HOTEL = 5


def build_error(s, seat: int, sq: int) -> tuple[str, str] | None:
    """(code, reason) why ``seat`` may not build one level on ``sq`` now, or None if it may."""
    if s.ed.hotels_only:
        return _niente().build_error(s, seat, sq)
    tb = s.tb
    if not 0 <= sq < tb.nsq or tb.kind[sq] != K_STREET:
        return ("not_a_street", "not a street")
    if s.owner[sq] != seat:
        return ("not_owner", "you do not own that street")
    owner = s.owner
    level = s.level
    lo = 9
    for m in tb.group_of[sq]:
        if owner[m] != seat:
            return ("set_incomplete", "you do not own the whole colour set")
        if s.mort[m]:
            return ("set_mortgaged", "a street of the set is mortgaged")
        if level[m] < lo:
            lo = level[m]
    lv = level[sq]
    if lv >= HOTEL:
        return ("max_buildings", "the street already has a hotel")
    if lv != lo:
        return ("uneven", "build evenly across the set")
    if lv == 4:
        if s.hotels <= 0:
            return ("no_stock", "the bank has no hotels")
    elif s.houses <= 0:
        return ("no_stock", "the bank has no houses")
    if s.cash[seat] < tb.house_cost[sq]:
        return ("insufficient_cash", "not enough cash")
    for d in s.debts:
        if d[0] == seat:
            return ("in_debt", "pay your debt first")
    return None


def check_build(s, seat: int, sq: int) -> None:
    """Raise IllegalAction unless ``seat`` may build one level on ``sq`` now."""
    err = build_error(s, seat, sq)
    if err:
        raise IllegalAction(err[1], err[0])


def build(s, ev, seat: int, sq: int) -> None:
    """BuildHouse: one more level on ``sq`` (house, or the hotel over 4 houses)."""
    check_build(s, seat, sq)
    place(s, ev, seat, sq, s.tb.house_cost[sq])


def place(s, ev, seat: int, sq: int, price: int) -> None:
    """Put one more level on ``sq`` (checked by the caller) for ``price`` euro."""
    if s.ed.hotels_only:
        _niente().place(s, ev, seat, sq, price)
        return
    lv = s.level[sq] + 1
    if lv == HOTEL:
        s.hotels -= 1
        s.houses += 4
    else:
        s.houses -= 1
    s.level[sq] = lv
    if price:
        transfer(s, ev, seat, -1, price, R_HOUSE)
    ev.append(_BuildingBought(seat, sq, lv))


def shortage(s, inputs) -> tuple[int, list[tuple[int, int]]] | None:
    """Building shortage in a decision step ("Se più giocatori vogliono comprare l'ultima casa
    o l'ultimo albergo disponibile, il Banchiere deve metterli all'asta"): if at least two seats
    send a BuildHouse that is legal at the start of the step for the same kind of building
    (house, or hotel) and the bank has fewer of them than requests, returns
    ``(LOT_HOUSE or LOT_HOTEL, [(seat, square), ...])``; houses are checked first."""
    req: dict[int, list[tuple[int, int]]] = {LOT_HOUSE: [], LOT_HOTEL: []}
    for seat, a in enumerate(inputs):
        if type(a) is BuildHouse and not s.out[seat] and build_error(s, seat, a.square) is None:
            req[LOT_HOTEL if s.level[a.square] == 4 or s.ed.hotels_only else LOT_HOUSE].append(
                (seat, a.square))
    for lot, stock in ((LOT_HOUSE, s.houses), (LOT_HOTEL, s.hotels)):
        r = req[lot]
        if len(r) >= 2 and len(r) > stock:
            return lot, r
    return None


def shortage_possible(s) -> bool:
    """True if the BuildHouse requests of the next decision step could make a building shortage
    (``shortage``): for houses, or for hotels, at least two seats could each legally ask for one
    now and the bank has fewer than the seats that could. The phase is not checked here (see
    ``engine.game.shortage_possible``). Used by the p2p layer, which seals the decisions of
    such a step (protocol.md §C13: else a seat that waits sees who asks for the last buildings)."""
    n = s.n
    stock = {LOT_HOUSE: s.houses, LOT_HOTEL: s.hotels}
    if stock[LOT_HOUSE] >= n and stock[LOT_HOTEL] >= n:
        return False  # one request per seat and step: never more requests than buildings
    tb = s.tb
    want = {LOT_HOUSE: 0, LOT_HOTEL: 0}
    for seat in range(n):
        if s.out[seat]:
            continue
        lots = set()
        for sq in range(tb.nsq):
            if s.owner[sq] == seat and tb.kind[sq] == K_STREET and build_error(s, seat, sq) is None:
                lots.add(LOT_HOTEL if s.level[sq] == 4 or s.ed.hotels_only else LOT_HOUSE)
        for lot in lots:
            want[lot] += 1
    return any(c >= 2 and c > stock[lot] for lot, c in want.items())


def sell_error(s, seat: int, sq: int) -> tuple[str, str] | None:
    """(code, reason) why ``seat`` may not sell a building of ``sq`` now, or None."""
    if s.ed.hotels_only:
        return _niente().sell_error(s, seat, sq)
    tb = s.tb
    if not 0 <= sq < tb.nsq or tb.kind[sq] != K_STREET:
        return ("not_a_street", "not a street")
    if s.owner[sq] != seat:
        return ("not_owner", "you do not own that street")
    lv = s.level[sq]
    if lv == 0:
        return ("no_building", "no building on that street")
    for m in tb.group_of[sq]:
        if s.level[m] > lv:
            return ("uneven", "sell evenly across the set")
    return None


def check_sell(s, seat: int, sq: int) -> None:
    """Raise IllegalAction unless ``seat`` may sell a building of ``sq`` now."""
    err = sell_error(s, seat, sq)
    if err:
        raise IllegalAction(err[1], err[0])


def sell(s, ev, seat: int, sq: int) -> None:
    """SellBuilding: one level back to the bank at half price (see module doc for hotels)."""
    if s.ed.hotels_only:
        _niente().sell(s, ev, seat, sq)
        return
    check_sell(s, seat, sq)
    tb = s.tb
    half = tb.sell_back[sq]
    lv = s.level[sq]
    if lv < HOTEL:
        s.level[sq] = lv - 1
        s.houses += 1
        transfer(s, ev, -1, seat, half, R_SALE)
        ev.append(BuildingSold(seat, sq, lv - 1))
        return
    if s.houses >= 4:
        s.level[sq] = 4
        s.houses -= 4
        s.hotels += 1
        transfer(s, ev, -1, seat, half, R_SALE)
        ev.append(BuildingSold(seat, sq, 4))
        return
    # Not enough houses to break the hotel: sell the whole set down evenly.
    grp = tb.group_of[sq]
    avail = s.houses + sum(s.level[m] for m in grp if s.level[m] < HOTEL)
    q, r = divmod(min(avail, 4 * len(grp)), len(grp))
    sold_levels = 0
    for i, m in enumerate(grp):
        new = q + 1 if i < r else q
        old = s.level[m]
        if old == HOTEL:
            s.hotels += 1
        else:
            s.houses += old
        s.houses -= new
        sold_levels += old - new
        s.level[m] = new
        ev.append(BuildingSold(seat, m, new))
    transfer(s, ev, -1, seat, half * sold_levels, R_SALE)


def sell_all(s, ev, seat: int) -> None:
    """Bankruptcy: every building of ``seat`` goes back to the bank at half price."""
    if s.ed.hotels_only:
        _niente().sell_all(s, ev, seat)
        return
    tb = s.tb
    total = 0
    for sq, o in enumerate(s.owner):
        if o == seat and s.level[sq]:
            lv = s.level[sq]
            if lv == HOTEL:
                s.hotels += 1
            else:
                s.houses += lv
            total += lv * tb.sell_back[sq]
            s.level[sq] = 0
            ev.append(BuildingSold(seat, sq, 0))
    if total:
        transfer(s, ev, -1, seat, total, R_SALE)


def liquidation_value(s, seat: int) -> int:
    """Euro ``seat`` could still raise from the bank: buildings at half price plus the mortgage
    value of every unmortgaged property."""
    if s.ed.hotels_only:  # niente: no mortgages, the bank buys property back at its price
        return _niente().liquidation_value(s, seat)
    tb = s.tb
    owner = s.owner
    level = s.level
    mort = s.mort
    sell_back = tb.sell_back
    mortgage = tb.mortgage
    total = 0
    sq = -1
    try:
        while True:  # visit only the seat's squares (list.index runs in C)
            sq = owner.index(seat, sq + 1)
            total += level[sq] * sell_back[sq]
            if not mort[sq]:
                total += mortgage[sq]
    except ValueError:
        return total


def _niente():
    """engine.rules.niente_estate (hotels only; imported lazily: it imports this package)."""
    from . import niente_estate
    return niente_estate
