"""Board and building constants every layer shares (the bottom of the engine's imports).

The square kinds are ints on the hot path (``Tables.kind``; the names are the data files'
spelling), the building levels and auction lots are ``State``'s small ints. They live here,
below ``engine.editions`` and ``engine.state`` (which re-export them), so that the editions'
strategy objects (``engine.rules.money``, ``engine.rules.estate``) can use them and still be
imported by ``engine.editions`` without an import circle (issue 13).
"""
from __future__ import annotations

__all__ = ["K_GO", "K_STREET", "K_STATION", "K_UTILITY", "K_TAX", "K_CARD", "K_JAIL", "K_FREE",
           "K_GOTOJAIL", "SQUARE_KINDS", "CARD_KINDS", "LOT_PROPERTY", "LOT_HOUSE", "LOT_HOTEL",
           "HOTEL"]

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
