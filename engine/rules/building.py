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

The bodies are the edition's estate strategy (``s.ed.estate``, engine.rules.estate: houses and
hotels with mortgages, or niente-e-come-sembra's hotels only); this module is the shared rules'
entry point and the shortage check.
"""
from __future__ import annotations

from ..actions import BuildHouse
from ..board import HOTEL, K_STREET, LOT_HOTEL, LOT_HOUSE
from ..errors import refuse

__all__ = ["HOTEL", "build_error", "check_build", "build", "place", "shortage", "shortage_possible",
           "sell_error", "check_sell", "sell", "sell_all", "liquidation_value"]


def build_error(s, seat: int, sq: int) -> tuple[str, str] | None:
    """(code, reason) why ``seat`` may not build one level on ``sq`` now, or None if it may."""
    return s.ed.estate.build_error(s, seat, sq)


def check_build(s, seat: int, sq: int) -> None:
    """Raise IllegalAction unless ``seat`` may build one level on ``sq`` now."""
    refuse(s.ed.estate.build_error(s, seat, sq))


def build(s, ev, seat: int, sq: int) -> None:
    """BuildHouse: one more level on ``sq`` (house, or the hotel over 4 houses)."""
    check_build(s, seat, sq)
    s.ed.estate.place(s, ev, seat, sq, s.tb.house_cost[sq])


def place(s, ev, seat: int, sq: int, price: int) -> None:
    """Put one more level on ``sq`` (checked by the caller) for ``price`` euro."""
    s.ed.estate.place(s, ev, seat, sq, price)


def shortage(s, inputs) -> tuple[int, list[tuple[int, int]]] | None:
    """Building shortage in a decision step ("Se più giocatori vogliono comprare l'ultima casa
    o l'ultimo albergo disponibile, il Banchiere deve metterli all'asta"): if at least two seats
    send a BuildHouse that is legal at the start of the step for the same kind of building
    (house, or hotel) and the bank has fewer of them than requests, returns
    ``(LOT_HOUSE or LOT_HOTEL, [(seat, square), ...])``; houses are checked first."""
    req: dict[int, list[tuple[int, int]]] = {LOT_HOUSE: [], LOT_HOTEL: []}
    lot_of = s.ed.estate.lot
    for seat, a in enumerate(inputs):
        if type(a) is BuildHouse and not s.out[seat] and build_error(s, seat, a.square) is None:
            req[lot_of(s, a.square)].append((seat, a.square))
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
    lot_of = s.ed.estate.lot
    want = {LOT_HOUSE: 0, LOT_HOTEL: 0}
    for seat in range(n):
        if s.out[seat]:
            continue
        lots = set()
        for sq in range(tb.nsq):
            if s.owner[sq] == seat and tb.kind[sq] == K_STREET and build_error(s, seat, sq) is None:
                lots.add(lot_of(s, sq))
        for lot in lots:
            want[lot] += 1
    return any(c >= 2 and c > stock[lot] for lot, c in want.items())


def sell_error(s, seat: int, sq: int) -> tuple[str, str] | None:
    """(code, reason) why ``seat`` may not sell a building of ``sq`` now, or None."""
    return s.ed.estate.sell_error(s, seat, sq)


def check_sell(s, seat: int, sq: int) -> None:
    """Raise IllegalAction unless ``seat`` may sell a building of ``sq`` now."""
    refuse(s.ed.estate.sell_error(s, seat, sq))


def sell(s, ev, seat: int, sq: int) -> None:
    """SellBuilding: one level back to the bank at half price (see module doc for hotels)."""
    s.ed.estate.sell(s, ev, seat, sq)


def sell_all(s, ev, seat: int) -> None:
    """Bankruptcy: every building of ``seat`` goes back to the bank at half price."""
    s.ed.estate.sell_all(s, ev, seat)


def liquidation_value(s, seat: int) -> int:
    """Euro ``seat`` could still raise from the bank: buildings at half price plus the mortgage
    value of every unmortgaged property (niente: printed prices plus half hotels)."""
    return s.ed.estate.liquidation_value(s, seat)
