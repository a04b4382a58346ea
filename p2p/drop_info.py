"""What seat loss decides (protocol.md §C8.3, §C8.4): a ``Decision`` (a drop the votes suffice
for) and a ``DropInfo`` (how a dropped seat is played). Made by ``seat_loss.SeatLoss`` (which
re-exports both); plain data, no logic.
"""

from __future__ import annotations

from typing import NamedTuple

from .beacon import HashChain

__all__ = ["Decision", "DropInfo"]


class DropInfo(NamedTuple):
    """How a dropped seat is played: from ``step`` on, by ``rule``; ``chain``: its recombined
    ``HashChain`` (its real reveals) or None (the public stand-in reveals); ``cheat``: set when
    its DROP record proved its escrow bad (then it is never re-seated, §C8.5, §C8.9)."""

    step: int
    rule: str
    chain: HashChain | None
    cheat: str | None = None


class Decision(NamedTuple):
    """A drop that can be applied: the votes (envelopes, voter seat order), the dropped seat's
    ESCROW envelope or None, and its recombined chain or None."""

    votes: list
    escrow: bytes | None
    chain: HashChain | None
    #: ``BAD_RECOMBINATION`` when the votes' shares prove the dropped seat's escrow bad.
    cheat: str | None = None
