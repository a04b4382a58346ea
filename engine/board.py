"""Board and building constants every layer shares (the bottom of the engine's imports).

The square kinds are ints on the hot path (``Tables.kind``; the names are the data files'
spelling), the building levels and auction lots are ``State``'s small ints. They live here,
below ``engine.editions`` and ``engine.state`` (which re-export them), so that the editions'
strategy objects (``engine.rules.money``, ``engine.rules.estate``) can use them and still be
imported by ``engine.editions`` without an import circle (issue 13). :class:`Tables` (the
editions' flat lists) lives here for the same reason: ``engine.state`` types ``State.tb`` with
it when compiled (engine/state.pxd), and the compiled ``engine.state`` must not need
``engine.editions`` at import.
"""
from __future__ import annotations

__all__ = ["K_GO", "K_STREET", "K_STATION", "K_UTILITY", "K_TAX", "K_CARD", "K_JAIL", "K_FREE",
           "K_GOTOJAIL", "SQUARE_KINDS", "CARD_KINDS", "LOT_PROPERTY", "LOT_HOUSE", "LOT_HOTEL",
           "HOTEL", "Tables"]

# Square kinds (ints on the hot path; the names are the data-file spelling).
K_GO, K_STREET, K_STATION, K_UTILITY, K_TAX, K_CARD, K_JAIL, K_FREE, K_GOTOJAIL = range(9)
SQUARE_KINDS = ("go", "street", "station", "utility", "tax", "card", "jail", "free_parking",
                "go_to_jail")
# Card effect kinds (cards_it_classic.json effect_schema).
CARD_KINDS = ("move_to", "move_to_nearest", "move_relative", "collect", "pay",
              "collect_from_each_player", "pay_each_player", "repairs", "go_to_jail",
              "get_out_of_jail_free", "pay_or_draw")
LOT_PROPERTY, LOT_HOUSE, LOT_HOTEL = 0, 1, 2
"""What an auction sells: the deed ``auc_sq``, or one house / hotel in a building shortage."""
HOTEL = 5
"""Building level of a hotel (levels 0..4 are houses)."""


class Tables:
    """Flat lists precomputed from an edition's squares for the hot path (read-only by habit)."""

    __slots__ = ("kind", "price", "group", "rent", "house_cost", "sell_back", "mortgage", "lift",
                 "fee",
                 "amount", "deck", "group_members", "group_of", "properties", "stations",
                 "utilities", "nsq", "flow_rules")

    def __init__(self, squares: tuple, groups: tuple[tuple[int, ...], ...],
                 interest_pct: int = 10, flow_rules: object = None) -> None:
        self.nsq = len(squares)
        # The edition's flow strategy if it adds rules to the shared state machine (end-of-step
        # rules or actions of its own: ``step_rules``/``extends_legal``, engine.rules.flow),
        # else None: the hot path's one typed test per step (engine.game, engine.bots), instead
        # of calling the plain flow's empty hooks or reading s.ed.flow (perf, compiled).
        self.flow_rules = flow_rules
        self.kind = [s.kind for s in squares]
        self.price = [s.price for s in squares]
        self.group = [s.group for s in squares]
        self.rent = [s.rent for s in squares]
        self.house_cost = [s.house_cost for s in squares]
        # A building goes back to the bank at half its cost, rounded up to the euro
        # (editrice-giochi: "a metà prezzo", "arrotondando sempre per eccesso": 125 -> 63;
        # the classic costs are even, so nothing changes there).
        self.sell_back = [(c + 1) // 2 for c in self.house_cost]
        self.mortgage = [s.mortgage for s in squares]
        # Lifting a mortgage costs the mortgage plus 10 %, rounded up to the euro
        # (Hasbro: "valore ipotecario aumentato del 10%"; rounding not printed, see protocol.md part E).
        self.fee = [(m * interest_pct + 99) // 100 for m in self.mortgage]
        self.lift = [m + f for m, f in zip(self.mortgage, self.fee)]
        self.amount = [s.amount for s in squares]
        self.deck = [s.deck for s in squares]
        self.group_members = [list(g) for g in groups]
        self.properties = [s.index for s in squares if s.price > 0]
        self.stations = [s.index for s in squares if s.kind == K_STATION]
        self.utilities = [s.index for s in squares if s.kind == K_UTILITY]
        # group_of[sq]: the squares whose ownership decides the rent of sq (colour set,
        # all stations, all utilities).
        go: list[tuple[int, ...]] = [() for _ in squares]
        for g in groups:
            for m in g:
                go[m] = tuple(g)
        for m in self.stations:
            go[m] = tuple(self.stations)
        for m in self.utilities:
            go[m] = tuple(self.utilities)
        self.group_of = go
