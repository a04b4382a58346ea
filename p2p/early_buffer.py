"""Session messages that arrive before our own session starts (protocol.md §N2.6 "Bounds",
"Early session messages"; H100, H94's session-10 break).

A seat that started its game before us (it held every SEED first) sends its step-0 message and
whatever its session sends next while we still wait for a SEED; the node keeps those payloads
and hands them to its session when the game starts (``Node._begin_game``). Only a seat of the
setup we hold can need that, so ``EarlyBuffer.hold`` keeps a payload only if:

* it came over a channel keyed with the X25519 key of a player of the setup the lobby holds
  (``Endpoint.peer_key``; the lobby keys every seat's channel at the PROPOSAL and a started seat
  keys ours, §N2.2). A plain channel or another key is a stranger's (``early_stranger``); before
  a PROPOSAL no seat can have started (it lacks our SETUP_SIG and SEED, §C2.2 steps 4-6);
* its length fits its type's ``MAX_SIZE`` (§C1; the session would drop it anyway: ``early_oversize``);
* its seat has kept fewer than ``EARLY_PER_SEAT`` payloads and ``EARLY_BYTES_PER_SEAT`` bytes
  (first come, first kept: the step-0 message is a seat's first; ``early_full``).

When the setup changes (a round restarted without the seats that did not confirm, §C2.2 step 7)
what came from keys no longer in it is dropped (``early_stale``). Each dropped payload is counted
in ``dropped`` by reason, never acted on. Worst case held: (``MAX_SEATS`` - 1) x 64 KiB = 448 KiB
of payloads, whatever strangers send (before: 256 payloads of any size from anyone, ~16 MB).
"""

from __future__ import annotations

from typing import Any

from .const import MAX_CATCHUP_MSG
from .envelope import MAX_SIZE, SESSION_TYPES

__all__ = ["EARLY_BYTES_PER_SEAT", "EARLY_PER_SEAT", "EarlyBuffer"]

#: Payloads kept per seat before our session starts (the step-0 message, an escrow, a hint...).
EARLY_PER_SEAT = 64
#: Bytes kept per seat: one largest session message (a CATCHUP_RESP, 64 KiB) fits.
EARLY_BYTES_PER_SEAT = MAX_CATCHUP_MSG


class EarlyBuffer:
    """The session payloads kept for the session we are about to start, in arrival order.

    Owns them and their per-seat counts; ``dropped`` (reason -> payloads) is readable."""

    def __init__(self) -> None:
        self._held: list[tuple[bytes, bytes]] = []  # (sender's X25519 key, payload), arrival order
        self._count: dict[bytes, int] = {}
        self._bytes: dict[bytes, int] = {}
        self._setup: Any = None  # the setup whose keys ``_keys`` holds
        self._keys: frozenset[bytes] = frozenset()
        self.dropped: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._held)

    @property
    def held_bytes(self) -> int:
        """Bytes of payload kept (all seats)."""
        return sum(self._bytes.values())

    def hold(self, payload: bytes, peer_key: bytes | None, lobby: Any) -> bool:
        """Keep ``payload`` (a session-tagged envelope, §C1) that arrived over a channel keyed
        with ``peer_key`` (None: plain) while ``lobby`` (the node's ``Lobby``, or None) waits:
        True if kept, else False and counted in ``dropped`` (see the module docstring)."""
        setup = None if lobby is None else lobby.setup
        if setup is not self._setup:
            self._new_setup(setup)
        if peer_key is None or peer_key not in self._keys:
            return self._drop("early_stranger")
        mtype = payload[1] if len(payload) > 1 else -1
        if mtype not in SESSION_TYPES or len(payload) > MAX_SIZE[mtype]:
            return self._drop("early_oversize")
        count, size = self._count.get(peer_key, 0), self._bytes.get(peer_key, 0)
        if count >= EARLY_PER_SEAT or size + len(payload) > EARLY_BYTES_PER_SEAT:
            return self._drop("early_full")
        self._count[peer_key] = count + 1
        self._bytes[peer_key] = size + len(payload)
        self._held.append((peer_key, payload))
        return True

    def take(self) -> list[bytes]:
        """The payloads kept, in arrival order; the buffer is empty afterwards."""
        held, self._held = self._held, []
        self._count.clear()
        self._bytes.clear()
        return [payload for _, payload in held]

    def _new_setup(self, setup: Any) -> None:
        """The lobby holds another setup (or none): only its players' keys may keep payloads."""
        self._setup = setup
        self._keys = frozenset(() if setup is None else (p.x25519_key for p in setup.players))
        kept = [(k, p) for k, p in self._held if k in self._keys]
        if len(kept) != len(self._held):
            self.dropped["early_stale"] = self.dropped.get("early_stale", 0) + len(self._held) - len(kept)
            for key in [k for k in self._count if k not in self._keys]:
                del self._count[key], self._bytes[key]
            self._held = kept

    def _drop(self, reason: str) -> bool:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1
        return False
