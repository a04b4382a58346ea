"""Lobby options: common house rules and the timed game (new_game ``options``).

Every option is off by default; the players agree them in the lobby, they are part of the
setup and so of ``State.opts`` and the state hash (protocol.md §E5, docs/RULES.md).

| key | value | rule |
| --- | --- | --- |
| ``free_parking_pot`` | bool | taxes and card payments to the bank go to a pot in the centre; a player who lands on the free-parking square takes it (fabrianopoli.txt "Variante: ... mettere il denaro dovuto al centro del tabellone di gioco; saranno poi incassati dal giocatore che si ferma su 'Porcheggio dei Monticelli'"; a common house rule elsewhere) |
| ``no_auctions`` | bool | a declined property stays with the bank, and a bankrupt's properties go back to the bank unsold (no property auctions; building-shortage auctions still run) |
| ``double_go_salary`` | bool | a roll of the dice that ends exactly on VIA! pays twice the salary |
| ``timed_minutes`` | int 1..1440 | timed game (editions with ``timed_game`` only): the agreed duration; the engine never reads a clock, the peers send ``TimeUp`` (engine.rules.timed) |

The pot is money the bank keeps apart: ``pot`` counts the euro of the bank's balance that lie
in the centre, so money conservation (``sum(cash) + bank == 0``) is unchanged.
"""
from __future__ import annotations

from typing import Mapping

from ..state import NO_OPTIONS, O_DOUBLE_GO, O_NO_AUCTIONS, O_POT, O_TIMED
from .money import R_POT, transfer

__all__ = ["OPTION_KEYS", "MAX_MINUTES", "default_options", "parse_options", "collect_pot",
           "go_salary"]

OPTION_KEYS = ("double_go_salary", "free_parking_pot", "no_auctions", "timed_minutes")
"""Every key ``new_game`` accepts, sorted."""
_INDEX = {"free_parking_pot": O_POT, "no_auctions": O_NO_AUCTIONS,
          "double_go_salary": O_DOUBLE_GO, "timed_minutes": O_TIMED}
MAX_MINUTES = 24 * 60
"""Longest timed game, minutes."""


def default_options(ed) -> dict[str, object]:
    """The options an edition offers, with their default (off) values, for a lobby to show:
    ``{"double_go_salary": False, "free_parking_pot": False, "no_auctions": False}`` plus
    ``"timed_minutes": 0`` where the edition has a timed game (``Edition.timed_game``)."""
    out: dict[str, object] = {"double_go_salary": False, "free_parking_pot": False,
                              "no_auctions": False}
    if ed.timed_game:
        out["timed_minutes"] = 0
    return out


def parse_options(ed, options: Mapping[str, object] | None) -> tuple[int, int, int, int]:
    """``State.opts`` for ``options``. Raises ValueError for an unknown key (peers must never
    silently disagree on a setup), a non-bool flag, a duration that is not an int in
    0..MAX_MINUTES (0 = untimed), or a timed game on an edition without one."""
    if not options:
        return NO_OPTIONS
    if not isinstance(options, Mapping):
        raise ValueError("options must be a mapping")
    allowed = default_options(ed)
    unknown = sorted(k for k in options if k not in allowed)
    if unknown:
        raise ValueError(f"unknown options: {unknown}")
    opts = list(NO_OPTIONS)
    for key in sorted(options):
        v = options[key]
        if key == "timed_minutes":
            if type(v) is not int or not 0 <= v <= MAX_MINUTES:
                raise ValueError(f"timed_minutes must be an int 0..{MAX_MINUTES}")
            opts[O_TIMED] = v
        else:
            if type(v) is not bool:
                raise ValueError(f"option {key} must be true or false")
            opts[_INDEX[key]] = int(v)
    return tuple(opts)  # type: ignore[return-value]


def collect_pot(s, ev, seat: int) -> None:
    """``seat`` landed on free parking: it takes the pot (nothing happens when it is empty)."""
    if s.pot:
        amount = s.pot
        s.pot = 0
        transfer(s, ev, -1, seat, amount, R_POT)


def go_salary(s, landed_exactly: bool) -> int:
    """Salary for passing VIA!, euro: doubled by ``double_go_salary`` when a roll ends on it."""
    if landed_exactly and s.opts[O_DOUBLE_GO]:
        return 2 * s.ed.go_salary
    return s.ed.go_salary
