"""The timed game (monopoli-editrice-giochi.txt "Conclusione del gioco"; fabrianopoli.txt
"Velocizzare il gioco").

Editrice Giochi: "All'inizio del gioco, si stabilisce la durata della partita (es. 90 minuti).
Allo scadere del tempo, i giocatori conteranno le proprie banconote aggiungendo i valori dei
terreni, delle società, e delle stazioni, ricordando che quelli ipotecati valgono la metà. Anche
le case e gli alberghi devono essere calcolati alla metà del loro valore di acquisto. VINCE IL
PIÙ RICCO." Fabrianopoli: "... aggiungendo i valori dei terreni, stazioni, imprese, delle case e
degli alberghi (naturalmente i terreni ipotecati valgono la metà): il giocatore che risulterà il
più ricco sarà il vincitore."

The engine has no clock: the players agree the duration in the lobby (option
``timed_minutes``) and, once it has passed, the peers send ``TimeUp`` at a decision step (any
seat, any number of times: the first one applied counts, the others change nothing). The game
then ends when the current turn ends (the dice would pass to the next player), and the richest
by the edition's net worth (``engine.rules.endgame.net_worth``: mortgaged property at price
minus mortgage value, i.e. half; buildings at ``Edition.worth_building_pct`` of their cost)
wins; ties go to the one with more cash, then to the first in turn order after the player whose
turn ended.
"""
from __future__ import annotations

from ..errors import IllegalAction
from ..events import TimeExpired
from ..state import O_TIMED
from .endgame import net_worth

__all__ = ["time_up", "finish", "timed_winner"]


def time_up(s, ev, seat: int) -> None:
    """TimeUp from ``seat``: note that the time is up (idempotent). Raises IllegalAction
    ``not_timed`` unless the game was set up with ``timed_minutes``."""
    if not s.opts[O_TIMED]:
        raise IllegalAction("the game is not timed", "not_timed")
    if not s.time_up:
        s.time_up = 1
        ev.append(TimeExpired(seat))


def timed_winner(s) -> int:
    """Seat with the highest net worth among those still in (ties: more cash, then turn order
    after the current player)."""
    n = s.n
    c = s.current
    alive = [i for i in range(n) if not s.out[i]]
    return max(alive, key=lambda i: (net_worth(s, i), s.cash[i], -((i - c - 1) % n)))


def finish(s, ev) -> None:
    """The turn is over after the time expired: the game ends (phase game_over)."""
    from .bankruptcy import _game_over  # the same ending as the last bankruptcy
    _game_over(s, ev, timed_winner(s))
