"""The engine seam as ``typing.Protocol`` classes: what p2p/ and ui/ may call on an engine.

The lockstep session, the verifier and the UI drivers take the engine as an argument (the
package ``engine`` itself, or a stand-in such as the dice race of tests/p2p/fake_engine.py), so
the contract is structural: any module or object with these functions will do. Both protocols
are ``runtime_checkable`` (``isinstance(engine, Engine)`` checks the names exist, not their
signatures; tests/engine/test_api.py checks the real engine and the stand-in).

* :class:`Engine` — the core every peer needs (ARCHITECTURE.md "engine API"; protocol.md part E
  for the encodings and the hash): build a game, ask what it waits for, apply decision and
  chance steps, hash and encode.
* :class:`HiddenInformation` — what an edition with hidden information adds
  (engine.observation; protocol.md §C12): whether a state has it, its items (bills by
  denomination, Imprevisti pairs, the fake thresholds), the items a seat holds whose status is
  not public, the items an inspection waits for, applying their outcomes, the bot that plays
  with a seat's private knowledge. p2p/hidden.py reaches the engine only through these, so a
  stand-in engine can drive the hidden layer (tests/p2p/test_hidden_seam.py).

Optional names a caller looks up with ``getattr`` and does without: ``standings``,
``bid_limits``, ``shortage_possible`` (sealed auctions, protocol.md §C13), ``retire_seat`` (a
rule that retires a dropped seat; the real engine has none), ``bots``, ``EDITIONS``.
"""
from __future__ import annotations

from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

__all__ = ["Engine", "HiddenInformation"]


@runtime_checkable
class Engine(Protocol):
    """The functional engine API; states are never modified by these calls."""

    def new_game(self, edition: str, seats: int, options: Mapping[str, object] | None = None) -> Any:
        """A new game's state; ValueError/KeyError for an unknown edition or bad options."""

    def pending(self, state: Any) -> Any:
        """What ``state`` waits for: ``.chance``, ``.actors``, ``.kind``, ``.terminal``."""

    def legal_actions(self, state: Any, seat: int) -> list:
        """What ``seat`` may send now (sorted; None, "nothing", is always allowed too)."""

    def apply_step(self, state: Any, inputs: Sequence) -> tuple:
        """A decision step, one input per seat in seat order: ``(new_state, events)``."""

    def apply_chance(self, state: Any, beacon: bytes) -> tuple:
        """A chance step from a 32-byte beacon: ``(new_state, events)``."""

    def is_terminal(self, state: Any) -> bool:
        """True once the game is over."""

    def winner(self, state: Any) -> int | None:
        """The winning seat once terminal, else None."""

    def state_hash(self, state: Any) -> bytes:
        """32 bytes, SHA-256 of ``encode_state(state)``."""

    def encode_state(self, state: Any) -> bytes:
        """The canonical encoding of ``state``."""

    def encode_action(self, action: Any) -> list:
        """An action as a msgpack-able list."""

    def decode_action(self, obj: Any) -> Any:
        """The inverse of ``encode_action``; ValueError if malformed."""


@runtime_checkable
class HiddenInformation(Protocol):
    """What an engine with hidden information (niente-e-come-sembra) adds."""

    def has_hidden(self, state: Any) -> bool:
        """True if ``state``'s edition has hidden items (bills, fake cards)."""

    def denominations(self, state: Any) -> tuple:
        """Euro by bill id, a tuple of ints (() without hidden information): the bills are items
        0..B-1 of protocol.md §C12.1."""

    def card_pairs(self, state: Any) -> int:
        """How many Imprevisti pairs (one card of each is fake): items B..B+pairs-1; 0 without."""

    def fake_thresholds(self, state: Any, modulus: int) -> dict:
        """``{denomination: T}``: a bill is fake iff its shares' sum mod ``modulus`` < T (§C12.1)."""

    def held_unknown(self, state: Any, seat: int) -> tuple:
        """``(bills, cards)``: the bill ids (wallet order) and Imprevisti card indices (kept, then
        the jail card) ``seat`` holds whose status is not public: what §C12.3 makes due to it."""

    def hidden_items(self, state: Any) -> list:
        """The items the "inspection" phase waits for, in order."""

    def apply_reveal(self, state: Any, fakes: Sequence[bool]) -> tuple:
        """One outcome per hidden item: ``(new_state, events)``; ValueError if not due."""

    def choose(self, state: Any, seat: int, bot: str = "default", view: Any = None) -> Any:
        """The edition's bot for ``seat`` given its private knowledge ``view`` (None: none)."""
