"""Digest disputes (protocol.md §C3.4 "Digest dispute", state machine in §C3.6).

A current-step message with our prev hash but another prev digest means that its seat signed a
wrong digest, or that some seat sent different messages of the previous step to different
peers. The session then asks for the disputed seat's record of that step (CATCHUP_REQ) and
this part remembers the dispute until it is settled::

    idle --digest mismatch--> open(seat, message, deadline)
    open --equivocation found in a record--> idle   (the session halts: Equivocation)
    open --the disputed seat's record (from a peer at the disputed step or later) shows none
         | deadline--> idle  (Desync of that seat)

One dispute at a time: further mismatches wait for it.
"""

from __future__ import annotations

from typing import NamedTuple

from . import const as C


class Dispute(NamedTuple):
    """An open digest dispute: ``seat`` sent ``raw`` (its signed message of ``step``) with a
    prev digest we do not share; settled at the latest at ``deadline`` (seconds)."""

    seat: int
    raw: bytes
    deadline: float
    step: int


class Disputes:
    """The session's open digest dispute, if any (module docstring)."""

    def __init__(self) -> None:
        self._open: Dispute | None = None

    @property
    def open(self) -> Dispute | None:
        """The open dispute or None."""
        return self._open

    def start(self, seat: int, raw: bytes, now: float, step: int) -> None:
        """Open a dispute about ``seat``'s message ``raw`` of ``step``; it ends by ``now +
        DISPUTE_TIMEOUT``."""
        self._open = Dispute(seat, raw, now + C.DISPUTE_TIMEOUT, step)

    def deadline(self) -> float | None:
        """When the open dispute times out, or None."""
        return None if self._open is None else self._open.deadline

    def settle(self, from_seat: int | None, head_step: int = 0, from_step: int = 0) -> Dispute | None:
        """Close the dispute if ``from_seat`` is the disputed seat and its answer holds its
        records from ``from_step`` <= the step before the disputed one, made at ``head_step``
        >= the disputed step (so they cover the step before: they showed no equivocation), or
        ``from_seat`` is None (timeout): returns the closed dispute (its seat signed a wrong
        digest), else None (still open, or none open). Any other answer (delayed from before
        the dispute, or a page that starts later) proves nothing."""
        d = self._open
        if d is None or (from_seat is not None and (from_seat != d.seat or head_step < d.step
                                                     or from_step > d.step - 1)):
            return None
        self._open = None
        return d

    def clear(self) -> None:
        """Forget the dispute (an equivocation named the culprit)."""
        self._open = None
