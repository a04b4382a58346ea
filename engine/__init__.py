"""lanopoli's pure rules engine (ARCHITECTURE.md §1): no I/O, no clock, no randomness of its own.

Public surface re-exported here; see protocol.md part E for the wire-level contracts
(action encoding, PRNG, state encoding and hash, chance-step kinds, rule choices).
"""
# First: the guard that keeps a stale compiled build (setup.py) from shadowing an edited .py,
# and honours LANOPOLI_PURE=1 (engine/_accel.py). It must run before any other engine import.
from . import _accel

_accel.install()

from .actions import Action, action_sort_key, decode_action, encode_action
from .editions import EDITIONS, Edition
from .errors import IllegalAction
from .events import encode_event
from .game import (Pending, apply_action, apply_chance, apply_step, chance_inplace, new_game,
                   pending, shortage_possible, step_inplace)
from .legal import bid_limits, legal_actions
from .hashing import decode_state, encode_state, state_hash
from .observation import (PrivateView, PublicView, apply_reveal, card_pairs, choose, denominations,
                          fake_thresholds, has_hidden, held_unknown, private_view, public_view)
from .playout import random_playout
from .rules.endgame import is_terminal, standings, winner
from .state import State


def __getattr__(name: str):  # noqa: ANN202 - PEP 562
    """``Knowledge`` and ``hidden_items`` (observation API of hidden information) are looked up in
    engine.observation on first use: importing them here would load the niente bot and rules in
    every peer (engine.observation's ``_HIDDEN_API``)."""
    if name in ("Knowledge", "hidden_items"):
        value = globals()[name] = getattr(observation, name)  # later reads skip this hook
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "new_game", "pending", "legal_actions", "apply_step", "apply_chance", "apply_action",
    "is_terminal", "winner", "standings", "state_hash", "encode_state", "decode_state",
    "encode_action", "decode_action", "encode_event", "IllegalAction", "EDITIONS", "Edition",
    "Pending", "State", "Action", "action_sort_key", "bid_limits", "step_inplace",
    "chance_inplace", "random_playout", "shortage_possible",
    # The observation API (engine.observation: the rest of it is imported from there).
    "PublicView", "PrivateView", "Knowledge", "public_view", "private_view", "has_hidden",
    "hidden_items", "apply_reveal", "choose",
    # ... and what p2p's hidden layer asks of it (engine.api.HiddenInformation, protocol.md §C12).
    "denominations", "card_pairs", "fake_thresholds", "held_unknown",
]
