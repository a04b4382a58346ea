"""Editions: board, decks, money rules and rule switches as data (STYLE.md §5).

``EDITIONS[name]`` is a frozen :class:`Edition` (engine.editions.base): data, rule switches and
the money and estate strategies (engine.rules.money, engine.rules.estate); the shared rules in
``engine/rules/`` read them, no edition forks the code. Each edition is one module here
(classico, editrice_giochi, fabrianopoli, niente) that builds its ``EDITION`` from the data files
and its switches; this package is only the registry and re-exports the types.
"""
from __future__ import annotations

from typing import Mapping

from . import classico, editrice_giochi, fabrianopoli, niente
from .base import (CARD_KINDS, K_CARD, K_FREE, K_GO, K_GOTOJAIL, K_JAIL, K_STATION, K_STREET, K_TAX,
                   K_UTILITY, SQUARE_KINDS, Card, Edition, Square, Tables, edition_from_files,
                   load_board, load_decks)

__all__ = [
    "Edition", "Square", "Card", "Tables", "EDITIONS", "load_board", "load_decks",
    "edition_from_files",
    "K_GO", "K_STREET", "K_STATION", "K_UTILITY", "K_TAX", "K_CARD", "K_JAIL", "K_FREE",
    "K_GOTOJAIL", "SQUARE_KINDS", "CARD_KINDS",
]

EDITIONS: Mapping[str, Edition] = {
    "classico": classico.EDITION, "editrice-giochi": editrice_giochi.EDITION,
    "fabrianopoli": fabrianopoli.EDITION, "niente-e-come-sembra": niente.EDITION}
"""The registry: every edition by its name (``State.edition``, the lobby's choice)."""
