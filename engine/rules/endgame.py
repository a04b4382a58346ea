"""End of the game (rulebook: "Come si vince": "Vince la sfida l'ultimo giocatore rimasto in
partita con del denaro dopo che tutti gli altri giocatori sono andati in bancarotta").

Classico ends only by bankruptcy (engine.rules.bankruptcy); the timed game (engine.rules.timed)
and niente-e-come-sembra's "every property owned" (engine.rules.niente_estate) end with several
players still in. ``standings`` ranks everybody: the winner, the other players still in by the
rule of that ending, then the bankrupt by when they went out (last out first). ``net_worth``:
cash + printed price of each property (half of it while mortgaged) + the price paid for its
buildings.
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
    """``[(seat, net worth in euro), ...]`` best first, one row per seat (docs/RULES.md
    "Standings"):

    * players still in come first: once the game is over the winner (``s.winner``) leads, the
      others follow by the rule that picked it — niente-e-come-sembra's end ("every property
      owned"): most money, ties to the lower seat; the timed game (engine.rules.timed): net
      worth, then cash, then turn order after the player whose turn ended; while the game is
      still running (a stopped game): net worth, then cash, then seat;
    * bankrupt players follow with 0, by when they went out, the last out first ("Vince la
      sfida l'ultimo giocatore rimasto in partita": the last one out came closest), from
      ``State.out`` (k = the k-th seat to go out).

    Same signature and row form as before issue 12; only the order of the rows changed."""
    n = s.n
    over = s.phase == P_OVER
    if over and s.ed.end_when_all_owned:
        def key(i):  # niente: "Vince il giocatore che avrà più denaro"
            return (-s.cash[i], i)
    elif over and s.time_up:
        c = s.current

        def key(i):  # engine.rules.timed.timed_winner, best first
            return (-net_worth(s, i), -s.cash[i], (i - c - 1) % n)
    else:
        def key(i):
            return (-net_worth(s, i), -s.cash[i], i)
    alive = sorted((i for i in range(n) if not s.out[i]), key=key)
    if over and s.winner in alive:
        alive.remove(s.winner)
        alive.insert(0, s.winner)
    gone = sorted((i for i in range(n) if s.out[i]), key=lambda i: -s.out[i])
    return [(i, net_worth(s, i)) for i in alive] + [(i, 0) for i in gone]
