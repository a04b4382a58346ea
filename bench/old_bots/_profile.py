"""Bot profiles: the few numbers that make one bot differ from another.

A profile is data, like an edition: every bot runs the same decision code
(``engine.bots._decide``) with its own profile. Money in classico euro (scaled to other editions
by their VIA! salary, e.g. ×2.5 for editrice-giochi), percentages as ints (no floats:
DESIGN.md §1 — a bot must decide the same on every peer).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["Profile", "BOTS", "scaled"]

CLASSICO_GO_SALARY = 200
"""Profiles are written in classico euro; other editions scale them by their VIA! salary."""


@dataclass(frozen=True)
class Profile:
    """How a bot weighs money against property. All amounts in euro, all ratios in percent."""
    name: str
    """Registry key."""
    reserve: int
    """Cash kept in hand before buying or building, euro (raised by the rents on the board)."""
    threat_pct: int
    """Part of the worst rent an opponent can charge added to the reserve, percent."""
    bid_pct: int
    """Auction ceiling as a percent of the printed price (before group bonuses)."""
    build_reserve_pct: int
    """Reserve kept when building, as a percent of ``reserve`` (building wins games)."""
    rival_pct: int
    """How much a trade that completes a rival's colour set counts against it, percent of the
    set's value (0: the bot does not mind; 100: a rival's set weighs as much as its own)."""
    margin: int
    """Least gain, euro, that makes a trade worth doing (for the bot or the partner)."""
    trade_every: int
    """A bot proposes at most one trade every this many of its own turns."""
    jail_stay_rent: int
    """Stay in jail (roll for doubles) once the worst opponent rent reaches this, euro."""


BOTS: dict[str, Profile] = {p.name: p for p in (
    Profile(name="default", reserve=150, threat_pct=35, bid_pct=110, build_reserve_pct=60,
            rival_pct=50, margin=20, trade_every=3, jail_stay_rent=400),
    Profile(name="cautious", reserve=300, threat_pct=60, bid_pct=90, build_reserve_pct=100,
            rival_pct=80, margin=40, trade_every=3, jail_stay_rent=200),
    Profile(name="aggressive", reserve=60, threat_pct=15, bid_pct=140, build_reserve_pct=30,
            rival_pct=30, margin=10, trade_every=2, jail_stay_rent=700),
)}
"""Registered bot profiles by name: "default", "cautious", "aggressive"."""


_SCALED: dict[tuple[str, int], Profile] = {}


def scaled(name: str, go_salary: int) -> Profile:
    """Profile ``name`` with its euro amounts scaled from classico (VIA! €200) to an edition
    whose VIA! pays ``go_salary``. Raises KeyError for an unknown name."""
    key = (name, go_salary)
    p = _SCALED.get(key)
    if p is None:
        b = BOTS[name]
        k = go_salary
        d = CLASSICO_GO_SALARY
        p = _SCALED[key] = replace(b, reserve=b.reserve * k // d, margin=b.margin * k // d,
                                   jail_stay_rent=b.jail_stay_rent * k // d)
    return p
