"""Editions: board, decks, money rules and rule switches as data (STYLE.md §5).

``EDITIONS[name]`` is a frozen :class:`Edition` (engine.editions.base): data, rule switches and
the money and estate strategies (engine.rules.money, engine.rules.estate); the shared rules in
``engine/rules/`` read them, no edition forks the code. Each edition is one module here
(classico, editrice_giochi, fabrianopoli, niente) that builds its ``EDITION`` from the data files
and its switches; this package is only the registry and re-exports the types.

The registry imports an edition's module the first time the edition is asked for
(``EDITIONS[name]``, ``EDITIONS.get(name)``): a peer plays one edition, and
niente-e-come-sembra's module pulls in its own rules (engine.rules.niente_flow and what it
imports), which no other edition runs (issue 14, "peer RSS"). Names, their order, ``in`` and
``len`` need no import; the editions built are the same objects as an eager import's.
"""
from __future__ import annotations

import importlib
from typing import Iterator, Mapping

from .base import (CARD_KINDS, K_CARD, K_FREE, K_GO, K_GOTOJAIL, K_JAIL, K_STATION, K_STREET, K_TAX,
                   K_UTILITY, SQUARE_KINDS, Card, Edition, Square, Tables, edition_from_files,
                   load_board, load_decks)

__all__ = [
    "Edition", "Square", "Card", "Tables", "EDITIONS", "load_board", "load_decks",
    "edition_from_files",
    "K_GO", "K_STREET", "K_STATION", "K_UTILITY", "K_TAX", "K_CARD", "K_JAIL", "K_FREE",
    "K_GOTOJAIL", "SQUARE_KINDS", "CARD_KINDS",
]

_MODULES: dict[str, str] = {
    "classico": "classico", "editrice-giochi": "editrice_giochi",
    "fabrianopoli": "fabrianopoli", "niente-e-come-sembra": "niente"}
"""Every edition's name (``State.edition``, the lobby's choice) -> its module in this package."""


class _Registry(Mapping[str, Edition]):
    """A read-only mapping name -> :class:`Edition` that imports each edition's module on
    first use and keeps its ``EDITION``. Raises ``KeyError`` for an unknown name, like a dict."""

    __slots__ = ("_built",)

    def __init__(self) -> None:
        self._built: dict[str, Edition] = {}

    def __getitem__(self, name: str) -> Edition:
        ed = self._built.get(name)
        if ed is None:
            ed = importlib.import_module(f"{__name__}.{_MODULES[name]}").EDITION
            self._built[name] = ed
        return ed

    def __contains__(self, name: object) -> bool:
        return name in _MODULES

    def __iter__(self) -> Iterator[str]:
        return iter(_MODULES)

    def __len__(self) -> int:
        return len(_MODULES)

    def __repr__(self) -> str:
        return f"EDITIONS({list(_MODULES)})"


EDITIONS: Mapping[str, Edition] = _Registry()
"""The registry: every edition by its name (``State.edition``, the lobby's choice)."""
