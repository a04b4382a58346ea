"""Events a ``LockstepSession`` reports (``next_event``), shared by the session's parts
(protocol.md §C3-§C9). Plain frozen dataclasses: the node and the UI only read them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class StepApplied:
    """Step ``step`` was applied. ``kind``: "chance" or "decision"; ``engine_events``: what the
    engine returned; ``state_hash``: 32 bytes, the state after the step."""

    step: int
    kind: str
    engine_events: tuple
    state_hash: bytes


@dataclass(frozen=True)
class GameOver:
    """The engine reached a terminal state. ``winner``: seat or None; ``final_hash``: 32 bytes;
    ``steps``: number of steps applied."""

    winner: int | None
    final_hash: bytes
    steps: int


@dataclass(frozen=True)
class PeerMisbehaved:
    """A message claiming to come from ``seat`` was dropped (bad signature, input of the wrong
    kind, undecodable action). ``evidence``: the raw message bytes. Does not halt the game."""

    seat: int | None
    step: int
    reason: str
    evidence: bytes


@dataclass(frozen=True)
class Desync:
    """``seat`` signed a different state hash (``field`` = "state") or step digest
    (``field`` = "digest") than ours for step ``step``. Evidence: both signed messages.
    The session halts."""

    step: int
    seat: int
    field: str
    theirs: bytes
    ours: bytes


@dataclass(frozen=True)
class Equivocation:
    """``seat`` signed two different messages for ``step``: ``first`` and ``second`` (raw,
    both with valid signatures). The session halts."""

    step: int
    seat: int
    first: bytes
    second: bytes


@dataclass(frozen=True)
class CheatDetected:
    """``seat``'s signed message for ``step`` breaks the protocol in a way that cannot be
    ignored (a reveal that does not hash to its previous reveal, no reveal at a chance step).
    ``evidence``: the raw message. The session halts."""

    step: int
    seat: int
    reason: str
    evidence: bytes


@dataclass(frozen=True)
class BeaconExhausted:
    """Our hash chain has no reveal left for chance step ``step``. The session halts."""

    step: int


@dataclass(frozen=True)
class PeerStalled:
    """Step ``step`` has heard nothing from ``seats`` (other active seats whose message it
    lacks and that sent no ALIVE for STALL_TIMEOUT) for ``waited`` seconds (the shortest
    silence among them). Repeated every STALL_TIMEOUT while some seat is silent; a seat that
    is alive but thinking is not stalled (protocol.md §C8.3). The node decides what to do."""

    step: int
    seats: tuple
    waited: float


@dataclass(frozen=True)
class SeatDropVoted:
    """We signed a DROP vote: ``seat`` sent nothing for ``step`` within the drop timeout."""

    step: int
    seat: int


@dataclass(frozen=True)
class SeatDropped:
    """Every other active seat voted: ``seat`` is dropped from ``step`` on (protocol.md §C8).
    ``rule``: "bot" or "bankrupt" as applied; ``reconstructed``: its chance contribution comes
    from its recombined hash chain (True) or the public stand-in (False). If ``seat`` is ours
    the session becomes a spectator."""

    step: int
    seat: int
    rule: str
    reconstructed: bool


@dataclass(frozen=True)
class SeatReturned:
    """``seat``, dropped before, is played by its player again from ``step`` on: the bodies of
    step - 1 of enough active seats carried its signed request (protocol.md §C8.9). If ``seat``
    is ours the session is no longer a spectator."""

    step: int
    seat: int


@dataclass(frozen=True)
class TurnSkipped:
    """A quorum voted to let ``seat``'s turn at ``step`` pass (protocol.md §C8.10): its input
    there counted as nil, the seat keeps playing. ``votes``: the votes of the certificate
    (Q); ``quorum``: Q."""

    step: int
    seat: int
    votes: int
    quorum: int


@dataclass(frozen=True)
class SeatLost:
    """We applied ``step`` with our own message but the other seats agreed to drop us at that
    step: our state forked from theirs. The session halts; restart it as a spectator from the
    other peers' records (``resume_session`` with ``truncate_at`` = ``step``)."""

    step: int


@dataclass(frozen=True)
class CaughtUp:
    """Catch-up from ``source`` applied steps ``from_step`` .. ``to_step`` - 1 (``to_step`` is
    our step now)."""

    source: int
    from_step: int
    to_step: int


@dataclass(frozen=True)
class GameAbandoned:
    """The game ended at ``step`` as abandoned (protocol.md §C8.7): ``seat`` signed ABANDON
    (ours when we gave up waiting, another's when no drop can go on without it).
    ``state_hash``: 32 bytes, the state after step - 1. No winner. ``reason``: why we signed
    it, for our player ("" when another seat's ABANDON ended it; never on the wire)."""

    step: int
    seat: int
    state_hash: bytes
    reason: str = ""


@dataclass(frozen=True)
class CheaterProven:
    """Signed evidence proves that ``seat`` cheated (protocol.md §C8.8): seen at ``step``,
    ``reason`` in English; ``complaint``: the COMPLAINT envelope sent to every seat, or the
    DROP record payload whose shares prove the seat's escrow bad (§C8.3) or whose recombined
    secret does not make its hidden leaves (§C12.6; reported with its drop). The session votes the seat out at once; it does not halt."""

    step: int
    seat: int
    reason: str
    complaint: bytes


@dataclass(frozen=True)
class StepOverturned:
    """We applied ``step`` with ``seat``'s message, but a quorum of the others dropped ``seat``
    at that step (they never got its message in time; protocol.md §C8.3 "asymmetric race"):
    our state differs from theirs from ``step`` on. The session halts; restart it from our
    log with ``resume_session(..., truncate_at=step)``: it catches up the drop and goes on
    as a player.

    ``chosen`` / ``other`` (None unless so): ``seat`` signed two versions of its ``step``
    message over one history, we applied ``other`` and the table converges on ``chosen``
    (protocol.md §C3.4 "Two versions applied"): after the restart, hand both to the session's
    ``adopt_equivocation`` so that it applies ``chosen`` (signed STEP envelopes)."""

    step: int
    seat: int
    chosen: bytes | None = None
    other: bytes | None = None


def event_json(ev: Any) -> dict:
    """A JSON-able copy of an event for a bug report or an evidence file
    (``LockstepSession.dump``): ``{"type": class name, field: value}``, bytes as hex, ints,
    strings and None as they are, anything else as its ``repr``."""
    d: dict = {"type": type(ev).__name__}
    for k, v in ev.__dict__.items():
        d[k] = v.hex() if isinstance(v, bytes) else v if isinstance(v, (int, str, type(None))) else repr(v)
    return d
