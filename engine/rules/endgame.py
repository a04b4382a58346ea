"""End of the game (rulebook: "Come si vince": "Vince la sfida l'ultimo giocatore rimasto in
partita con del denaro dopo che tutti gli altri giocatori sono andati in bancarotta").

Classico ends only by bankruptcy (engine.rules.bankruptcy). ``net_worth`` ranks the players
for ``standings``: cash + printed price of each property (half of it while mortgaged) + the
price paid for its buildings.
"""
from __future__ import annotations

from ..state import P_OVER


def is_terminal(s) -> bool:
    """True once a single player is left."""
    return s.phase == P_OVER


def winner(s) -> int | None:
    """Seat of the winner once terminal, else None."""
    return s.winner if s.phase == P_OVER else None


def net_worth(s, seat: int) -> int:
    """Euro: cash, properties (mortgaged at price minus mortgage value), buildings at
    ``Edition.worth_building_pct`` % of their cost (rounded up; 50 in editrice-giochi's timed
    game "alla metà del loro valore di acquisto")."""
    tb = s.tb
    total = s.cash[seat]
    if s.ed.end_when_all_owned and s.phase == P_OVER:
        return total  # niente: "Vince il giocatore che avrà più denaro"
    built = 0
    for sq, o in enumerate(s.owner):
        if o == seat:
            total += tb.price[sq] - (tb.mortgage[sq] if s.mort[sq] else 0)
            built += s.level[sq] * tb.house_cost[sq]
    return total + (built * s.ed.worth_building_pct + 99) // 100


def standings(s) -> list[tuple[int, int]]:
    """(seat, net worth) best first; bankrupt seats last with 0; ties by seat."""
    rows = [(i, 0 if s.out[i] else net_worth(s, i)) for i in range(s.n)]
    return sorted(rows, key=lambda r: (s.out[r[0]], -r[1], r[0]))
