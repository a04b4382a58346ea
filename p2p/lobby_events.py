"""The lobby's events (protocol.md §C2): what ``p2p.lobby.Lobby.next_event`` returns, raised by
the lobby itself, its admission (``p2p.admission``) and its setup round (``p2p.setup_round``).
Frozen records; texts are fixed English (never text a peer chose), translated by ui."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .wire import Setup

__all__ = ["LEFT", "GameStarted", "LobbyAborted", "LobbyPeerMisbehaved", "LobbyStatus", "PlayerJoined", "PlayerLeft",
           "PlayerRemoved", "SameKeyJoin", "SetupProposed", "SetupRestarted"]

#: Joiner: the ``LobbyAborted`` reason of ``Lobby.leave`` (protocol.md §C2.2); the node of a joiner
#: that left ends quietly on it (p2p/node_lobby.py).
LEFT = "left the lobby"


@dataclass(frozen=True)
class LobbyStatus:
    """Seats taken so far (``taken`` of ``seats``), with the players' names."""

    edition: str
    seats: int
    taken: int
    names: tuple


@dataclass(frozen=True)
class _PlayerEvent:
    """A player, by its name and its key's ``fingerprint`` (16 hex digits)."""

    name: str
    fingerprint: str


class PlayerJoined(_PlayerEvent):
    """Host only: a player joined."""


class PlayerLeft(_PlayerEvent):
    """Host only: a player left before the setup was proposed."""


class PlayerRemoved(_PlayerEvent):
    """Host only: a player did not confirm the setup in time (its SETUP_SIG or SEED missing at
    ``SETUP_TIMEOUT``, or no fresh JOIN after a new round): removed and banned from this lobby
    (protocol.md §C2.2 step 7). The waiting room shows "<name> removed: did not confirm"."""


@dataclass(frozen=True)
class SetupProposed:
    """The setup is fixed; we signed it and wait for the other seats' signatures."""

    setup: Setup
    my_seat: int


@dataclass(frozen=True)
class SetupRestarted:
    """The setup of round ``round`` - 1 was given up (seats that did not confirm it were
    removed, protocol.md §C2.2 step 7): back to waiting, with fresh seed commitments."""

    round: int


@dataclass(frozen=True)
class GameStarted:
    """All seats signed the setup and revealed their seeds. ``endpoints``: each seat's
    address in seat order; ``game_seed``: 32 bytes."""

    setup: Setup
    setup_bytes: bytes
    my_seat: int
    game_seed: bytes
    endpoints: tuple


@dataclass(frozen=True)
class LobbyAborted:
    """The lobby ended without a game: ``reason`` in English (fixed texts only: never text a
    peer chose); ``reject_code``: the host's REJECT code (``const.REJECT_CODES``) if it
    refused our JOIN, else None."""

    reason: str
    reject_code: int | None = None


@dataclass(frozen=True)
class LobbyPeerMisbehaved:
    """A message from ``addr`` was dropped: bad signature, wrong game, bad reveal..."""

    addr: Any
    reason: str
    evidence: bytes


@dataclass(frozen=True)
class SameKeyJoin:
    """Host only: a JOIN or PROBE from ``addr`` signed with our own player key (signature
    checked: only a holder of our key signs so), i.e. a second player started on our key
    directory, on this computer (protocol.md §C2.2). It is answered as any; the joiner stops
    (``p2p.admission.SAME_KEY``). One per such message: ``p2p.node_lobby`` reports it once per
    address (``node_reports.SameKeyJoined``) so that the host's ui names --config-dir."""

    addr: Any
