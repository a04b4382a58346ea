"""Estate strategies: what can be built, sold and mortgaged, and for how much (issue 13).

An edition's ``Edition.estate`` is one of two stateless objects, chosen once when the edition
is declared (engine/editions), so the shared rules (engine.rules.building, engine.rules.mortgage,
engine.rules.bankruptcy, the shortage check) call it instead of asking which edition runs:

* :class:`Houses` (:data:`HOUSES`, every edition but one): four houses then a hotel, built
  evenly, sold back at half price, mortgages (rulebook passages: engine.rules.building,
  engine.rules.mortgage module docs).
* :class:`HotelsOnly` (:data:`HOTELS_ONLY`, niente-e-come-sembra): one hotel per street, no
  houses, no mortgages; a debtor sells deeds back to the bank at their printed price and hotels
  at half, rounded up to €10 (rulebook passages: engine.rules.niente_estate module doc).

Every method takes the state ``s`` first; errors are ``(code, reason)`` tuples (None: allowed)
or :class:`engine.errors.IllegalAction`; amounts are euro. This module imports only what is
below ``engine.editions`` (which imports it).
"""
from __future__ import annotations

from ..board import HOTEL, K_STREET, LOT_HOTEL, LOT_HOUSE
from ..errors import refuse
from ..events import BuildingBought, BuildingSold, PropertyMortgaged, maker
from .money import R_HOUSE, R_MORTGAGE, R_SALE, round10, transfer
from .niente_events import PropertySoldToBank

__all__ = ["Houses", "HotelsOnly", "HOUSES", "HOTELS_ONLY", "hotel_half", "sell_deed",
           "sell_property_error", "sell_property", "street_error", "hotel_room_error"]

_BuildingBought = maker(BuildingBought)  # fast constructor (events.maker)


def _houses_liquidation(s, seat: int) -> int:
    """:meth:`Houses.liquidation_value`. A function of its own so that estate.pxd can type it
    (compiled: the lists' count/index are C calls, not method lookups; a bot game asks this
    on every debt and bankruptcy check, ~3% of a compiled bot game, perf)."""
    tb = s.tb
    owner = s.owner
    level = s.level
    mort = s.mort
    sell_back = tb.sell_back
    mortgage = tb.mortgage
    total = 0
    sq = -1
    for _ in range(owner.count(seat)):  # visit only the seat's squares (C calls; no
        sq = owner.index(seat, sq + 1)  # ValueError to end the loop: raising costs more)
        total += level[sq] * sell_back[sq]
        if not mort[sq]:
            total += mortgage[sq]
    return total


def _owner_error(s, seat: int, sq: int) -> tuple[str, str] | None:
    if not 0 <= sq < s.tb.nsq or s.tb.price[sq] <= 0:
        return ("not_a_property", "not a property")
    if s.owner[sq] != seat:
        return ("not_owner", "you do not own that property")
    return None


def street_error(tb, s, seat: int, sq: int) -> tuple[str, str] | None:
    """Building or selling a building (and the free-hotel card, faceup_cards.use_error):
    (code, reason) unless ``sq`` is a street ``seat`` owns, else None."""
    if not 0 <= sq < tb.nsq or tb.kind[sq] != K_STREET:
        return ("not_a_street", "not a street")
    if s.owner[sq] != seat:
        return ("not_owner", "you do not own that street")
    return None


def hotel_room_error(s, sq: int) -> tuple[str, str] | None:
    """Hotels only: (code, reason) why no hotel can go on street ``sq`` now, or None: it has
    its hotel already, or the bank has none left. The one statement of that rule for buying a
    hotel (``HotelsOnly.build_error``) and for the free-hotel card (``faceup_cards.use_error``);
    niente-e-come-sembra rulebook, ALBERGHI: "Potete avere solo un albergo per ogni strada"
    (cards may put one on a street outside a complete set) and "Gli alberghi sono finiti?"."""
    if s.level[sq]:
        return ("max_buildings", "the street already has a hotel")
    if s.hotels <= 0:
        return ("no_stock", "the bank has no hotels")
    return None


def _payer_error(tb, s, seat: int, sq: int) -> tuple[str, str] | None:
    """Building: ``seat`` has the building's price and owes nothing."""
    if s.cash[seat] < tb.house_cost[sq]:
        return ("insufficient_cash", "not enough cash")
    for d in s.debts:
        if d[0] == seat:
            return ("in_debt", "pay your debt first")
    return None


class Houses:
    """Houses and hotels, with mortgages (classico, editrice-giochi, fabrianopoli)."""

    __slots__ = ()
    name = "houses"
    """Short name, for messages and tests."""

    def build_error(self, s, seat: int, sq: int) -> tuple[str, str] | None:
        """(code, reason) why ``seat`` may not build one level on ``sq`` now, or None."""
        # street_error inlined: legal_actions and the bots call this for every street of
        # every seat at every decision.
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
        return _payer_error(tb, s, seat, sq)  # reached only by a legal build, rarely

    def lot(self, s, sq: int) -> int:
        """What one more level on ``sq`` takes from the bank's stock: LOT_HOUSE or LOT_HOTEL."""
        return LOT_HOTEL if s.level[sq] == 4 else LOT_HOUSE

    def place(self, s, ev, seat: int, sq: int, price: int) -> None:
        """Put one more level on ``sq`` (checked by the caller) for ``price`` euro."""
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

    def sell_error(self, s, seat: int, sq: int) -> tuple[str, str] | None:
        """(code, reason) why ``seat`` may not sell a building of ``sq`` now, or None."""
        tb = s.tb
        err = street_error(tb, s, seat, sq)
        if err:
            return err
        lv = s.level[sq]
        if lv == 0:
            return ("no_building", "no building on that street")
        for m in tb.group_of[sq]:
            if s.level[m] > lv:
                return ("uneven", "sell evenly across the set")
        return None

    def sell(self, s, ev, seat: int, sq: int) -> None:
        """SellBuilding: one level back to the bank at half price; a hotel the bank cannot
        break into 4 houses sells the set down evenly (engine.rules.building module doc)."""
        refuse(self.sell_error(s, seat, sq))
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

    def sell_all(self, s, ev, seat: int) -> None:
        """Bankruptcy: every building of ``seat`` goes back to the bank at half price."""
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

    def liquidation_value(self, s, seat: int) -> int:
        """Euro ``seat`` could still raise from the bank: buildings at half price plus the
        mortgage value of every unmortgaged property (:func:`_houses_liquidation`)."""
        return _houses_liquidation(s, seat)

    def mortgage_error(self, s, seat: int, sq: int) -> tuple[str, str] | None:
        """(code, reason) why ``seat`` may not mortgage ``sq`` now, or None."""
        err = _owner_error(s, seat, sq)
        if err:
            return err
        if s.mort[sq]:
            return ("mortgaged", "already mortgaged")
        for m in s.tb.group_of[sq]:
            if s.level[m]:
                return ("has_buildings", "sell the buildings of the set first")
        return None

    def mortgage(self, s, ev, seat: int, sq: int) -> None:
        """Mortgage: the bank pays the mortgage value."""
        refuse(self.mortgage_error(s, seat, sq))
        s.mort[sq] = 1
        transfer(s, ev, -1, seat, s.tb.mortgage[sq], R_MORTGAGE)
        ev.append(PropertyMortgaged(seat, sq))

    def lift_error(self, s, seat: int, sq: int) -> tuple[str, str] | None:
        """(code, reason) why ``seat`` may not lift the mortgage of ``sq`` now, or None."""
        err = _owner_error(s, seat, sq)
        if err:
            return err
        if not s.mort[sq]:
            return ("not_mortgaged", "not mortgaged")
        if s.cash[seat] < s.tb.lift[sq]:
            return ("insufficient_cash", "not enough cash")
        for d in s.debts:
            if d[0] == seat:
                return ("in_debt", "pay your debt first")
        return None

    def before_bankruptcy(self, s, ev, seat: int) -> None:
        """``seat`` goes bankrupt (engine.rules.bankruptcy.go_bankrupt, first): nothing to do
        here, its buildings are sold by :meth:`sell_all` and its deeds follow the estate."""


HOUSES = Houses()
"""Houses and hotels with mortgages (``Edition.estate``'s default)."""


# --- hotels only (niente-e-come-sembra) --------------------------------------------------

def hotel_half(s, sq: int) -> int:
    """Euro the bank pays for the hotel of ``sq``: half its price, rounded up to 10."""
    return round10((s.tb.house_cost[sq] + 1) // 2)


def _sell_hotel(s, ev, seat: int, sq: int) -> None:
    s.level[sq] = 0
    s.hotels += 1
    transfer(s, ev, -1, seat, hotel_half(s, sq), R_SALE)
    ev.append(BuildingSold(seat, sq, 0))


def sell_property_error(s, seat: int, sq: int) -> tuple[str, str] | None:
    """(code, reason) why ``seat`` may not sell ``sq`` back to the bank now, or None."""
    tb = s.tb
    if not 0 <= sq < tb.nsq or tb.price[sq] <= 0:
        return ("not_a_property", "not a property")
    if s.owner[sq] != seat:
        return ("not_owner", "you do not own that property")
    if not any(d[0] == seat for d in s.debts):
        return ("not_in_debt", "only to raise money for a debt")
    return None


def sell_deed(s, ev, seat: int, sq: int) -> None:
    """The bank buys ``sq`` (checked by the caller) at its printed price, its hotel at half."""
    if s.level[sq]:
        _sell_hotel(s, ev, seat, sq)
    price = s.tb.price[sq]
    s.owner[sq] = -1
    transfer(s, ev, -1, seat, price, R_SALE)
    ev.append(PropertySoldToBank(seat, sq, price))


def sell_property(s, ev, seat: int, sq: int) -> None:
    """SellProperty: the bank buys ``sq`` back at its printed price (and its hotel at half)."""
    refuse(sell_property_error(s, seat, sq))
    sell_deed(s, ev, seat, sq)


class HotelsOnly(Houses):
    """One hotel per street, no houses, no mortgages (niente-e-come-sembra)."""

    __slots__ = ()
    name = "hotels_only"

    def build_error(self, s, seat: int, sq: int) -> tuple[str, str] | None:
        """(code, reason) why ``seat`` may not buy a hotel for ``sq`` now, or None."""
        tb = s.tb
        err = street_error(tb, s, seat, sq)
        if err:
            return err
        for m in tb.group_of[sq]:
            if s.owner[m] != seat:
                return ("set_incomplete", "you do not own the whole colour set")
        return hotel_room_error(s, sq) or _payer_error(tb, s, seat, sq)

    def lot(self, s, sq: int) -> int:
        """Every building is a hotel (the shortage auction counts hotels only)."""
        return LOT_HOTEL

    def place(self, s, ev, seat: int, sq: int, price: int) -> None:
        """Put the hotel on ``sq`` (checked by the caller) for ``price`` euro."""
        s.level[sq] = HOTEL
        s.hotels -= 1
        if price:
            transfer(s, ev, seat, -1, price, R_HOUSE)
        ev.append(BuildingBought(seat, sq, HOTEL))

    def sell_error(self, s, seat: int, sq: int) -> tuple[str, str] | None:
        """(code, reason) why ``seat`` may not sell the hotel of ``sq`` now, or None."""
        err = street_error(s.tb, s, seat, sq)
        if err:
            return err
        return None if s.level[sq] else ("no_building", "no hotel on that street")

    def sell(self, s, ev, seat: int, sq: int) -> None:
        """SellBuilding: the hotel goes back to the bank at half price (rounded up to 10)."""
        refuse(self.sell_error(s, seat, sq))
        _sell_hotel(s, ev, seat, sq)

    def sell_all(self, s, ev, seat: int) -> None:
        """Every hotel of ``seat`` back to the bank at half price."""
        for sq, o in enumerate(s.owner):
            if o == seat and s.level[sq]:
                _sell_hotel(s, ev, seat, sq)

    def liquidation_value(self, s, seat: int) -> int:
        """Euro ``seat`` could still raise from the bank: printed prices plus half hotels."""
        tb = s.tb
        total = 0
        for sq in tb.properties:
            if s.owner[sq] == seat:
                total += tb.price[sq] + (hotel_half(s, sq) if s.level[sq] else 0)
        return total

    def mortgage_error(self, s, seat: int, sq: int) -> tuple[str, str] | None:
        """No mortgages: Mortgage means selling the deed back to the bank, only in debt."""
        return sell_property_error(s, seat, sq)

    def mortgage(self, s, ev, seat: int, sq: int) -> None:
        """The bank buys the property back at its price (:func:`sell_property`)."""
        sell_property(s, ev, seat, sq)

    def lift_error(self, s, seat: int, sq: int) -> tuple[str, str] | None:
        """There is nothing to lift."""
        return ("no_mortgages", "there are no mortgages in this edition")

    def before_bankruptcy(self, s, ev, seat: int) -> None:
        """The bank buys back every property and hotel of ``seat`` first, so its whole cash
        goes to the creditor (rulebook passage: engine.rules.niente_estate)."""
        for sq in s.tb.properties:
            if s.owner[sq] == seat:
                sell_deed(s, ev, seat, sq)


HOTELS_ONLY = HotelsOnly()
"""Hotels only, no mortgages (niente-e-come-sembra's ``Edition.estate``)."""
