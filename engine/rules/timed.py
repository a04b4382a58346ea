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
``timed_minutes``) and, once it has passed on its own clock, each peer sends ``TimeUp`` at a
decision step. ``TimeUp`` is a vote: the time is up once a strict majority of the seats still
in the game (not bankrupt) have voted, so one dishonest peer cannot end the game early. Votes
are kept in ``State.time_up`` (bit ``i`` = seat ``i`` voted, ``EXPIRED`` once the majority is
reached; sticky), a repeated vote changes nothing, a bankrupt seat's vote is refused
(``bankrupt``). The majority is counted at every vote and again when the turn ends (a
bankruptcy may have shrunk the seats still in). Seats the peers dropped (played by a bot,
which never votes on its own) join the vote once a strict majority of the seats neither
bankrupt nor dropped have voted (``absent_vote``, used by the lockstep layer), so the time
can still be called with absent players. The game then ends when the current turn ends (the
dice would pass to the next player), and the richest
by the edition's net worth (``engine.rules.endgame.net_worth``: mortgaged property at price
minus mortgage value, i.e. half; buildings at ``Edition.worth_building_pct`` of their cost)
wins; ties go to the one with more cash, then to the first in turn order after the player whose
turn ended.
"""
from __future__ import annotations

from typing import Collection

from ..errors import IllegalAction
from ..events import TimeExpired, TimeVoted
from ..state import O_TIMED
from .bankruptcy import _game_over
from .endgame import net_worth

__all__ = ["EXPIRED", "time_up", "votes", "needed", "expired", "check_expired",
           "absent_vote", "finish", "timed_winner"]

EXPIRED = 1 << 8
"""Bit of ``State.time_up`` set once the time is up (seats are 0..7: bits 0..7 are votes)."""


def votes(s) -> int:
    """How many seats still in the game have voted TimeUp."""
    return sum(1 for i in range(s.n) if not s.out[i] and s.time_up >> i & 1)


def needed(s) -> int:
    """Votes needed now: a strict majority of the seats still in (not bankrupt)."""
    return sum(1 for o in s.out if not o) // 2 + 1


def expired(s) -> bool:
    """True once the agreed time is up (majority reached now or earlier)."""
    return bool(s.time_up & EXPIRED)


def time_up(s, ev, seat: int) -> None:
    """TimeUp from ``seat`` (still in the game): record its vote (a repeat changes nothing)
    and, if the votes now reach a strict majority of the seats still in, note that the time is
    up (``TimeExpired``). Raises IllegalAction ``not_timed`` unless the game was set up with
    ``timed_minutes``."""
    if not s.opts[O_TIMED]:
        raise IllegalAction("the game is not timed", "not_timed")
    bit = 1 << seat
    if s.time_up & (bit | EXPIRED):
        return  # idempotent per seat; after the end of time votes no longer matter
    s.time_up |= bit
    ev.append(TimeVoted(seat, votes(s), needed(s)))
    check_expired(s, ev, seat)


def check_expired(s, ev, seat: int = -1) -> bool:
    """Count the votes: set ``EXPIRED`` (and emit ``TimeExpired(seat)``, -1 when a bankruptcy
    rather than a vote made the majority) the first time they reach the majority. Returns
    ``expired(s)``."""
    if s.time_up & EXPIRED:
        return True
    if s.time_up and votes(s) >= needed(s):
        s.time_up |= EXPIRED
        ev.append(TimeExpired(seat))
        return True
    return False


def absent_vote(s, seat: int, absent: Collection[int]) -> bool:
    """Should dropped ``seat`` (one of ``absent``, the seats the peers dropped) vote TimeUp at
    this decision step? True when the game is timed, the time not yet up, ``seat`` still in
    and not yet voted, and a strict majority of the seats neither bankrupt nor in ``absent``
    have voted. Deterministic (state and the agreed drops only), so every peer and the
    verifier fill the same input (protocol.md §C8.4)."""
    if not s.opts[O_TIMED] or s.time_up & EXPIRED or s.out[seat] or s.time_up >> seat & 1:
        return False
    live = [i for i in range(s.n) if not s.out[i] and i not in absent]
    return sum(1 for i in live if s.time_up >> i & 1) >= len(live) // 2 + 1


def timed_winner(s) -> int:
    """Seat with the highest net worth among those still in (ties: more cash, then turn order
    after the current player)."""
    n = s.n
    c = s.current
    alive = [i for i in range(n) if not s.out[i]]
    return max(alive, key=lambda i: (net_worth(s, i), s.cash[i], -((i - c - 1) % n)))


def finish(s, ev) -> None:
    """The turn is over after the time expired: the game ends (phase game_over)."""
    _game_over(s, ev, timed_winner(s))  # the same ending as the last bankruptcy
