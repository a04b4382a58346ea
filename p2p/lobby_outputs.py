"""What a lobby puts out (protocol.md §C2.2 "Checks"): the envelopes queued for the transport, the
events for its driver, the counters of what it received and dropped. ``p2p.lobby.Lobby`` is one
(its parts, ``admission`` and ``setup_round``, act through these calls); sans-I/O, no clock.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from .lobby_events import LobbyPeerMisbehaved

__all__ = ["LobbyOutputs"]


class LobbyOutputs:
    """A lobby's output queues and counters. ``stats``: ``received``, ``malformed``, ``dropped``
    (all drops), and one per drop reason (``wrong_game``, ``bad_signature``, ``not_host``,
    ``not_seated``, ``wrong_phase``, ``key_mismatch``, ``unverifiable``, ``probe_game_id``,
    ``join_unconfirmed``, ``buffer_full``...) or other event (``join_kept``, ``removed``...)."""

    def __init__(self) -> None:
        self._out: list[tuple[Any, bytes]] = []
        self._events: deque = deque()
        self.stats: dict[str, int] = dict.fromkeys(("received", "malformed", "dropped"), 0)

    def messages_to_send(self) -> list[tuple[Any, bytes]]:
        """``[(addr, envelope bytes)]`` to send over the reliable transport (drains the queue)."""
        out, self._out = self._out, []
        return out

    def next_event(self) -> Any:
        """Next event or None: ``LobbyStatus``, ``PlayerJoined``, ``PlayerLeft``,
        ``SetupProposed``, ``GameStarted``, ``LobbyAborted``, ``LobbyPeerMisbehaved``."""
        return self._events.popleft() if self._events else None

    def send(self, addr: Any, raw: bytes) -> None:
        """Queue the envelope ``raw`` for ``addr`` (``messages_to_send``)."""
        self._out.append((addr, raw))

    def emit(self, event: Any) -> None:
        """Queue ``event`` (``next_event``)."""
        self._events.append(event)

    def count(self, key: str) -> None:
        """One more ``key`` in ``stats``."""
        self.stats[key] = self.stats.get(key, 0) + 1

    def drop(self, reason: str) -> None:
        """An unchecked or unauthenticated message: counted, nothing else (no event: nobody
        can be blamed for it)."""
        self.stats["dropped"] += 1
        self.count(reason)

    def misbehaved(self, addr: Any, reason: str, env: Any) -> None:
        """Only for messages signed by a seated player (or the host): evidence that names it
        (``env``: its ``wire.Envelope``)."""
        self.stats["dropped"] += 1
        self.emit_misbehaved(addr, reason, env.raw)

    def emit_misbehaved(self, addr: Any, reason: str, raw: bytes) -> None:
        """``LobbyPeerMisbehaved`` with the evidence ``raw`` (not counted as a drop)."""
        self._events.append(LobbyPeerMisbehaved(addr, reason, raw))
