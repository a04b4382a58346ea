"""Escrow acknowledgements in the agreed history, and the escrow round (protocol.md §C8.2).

Why
---
A dealer can sign two different ESCROW envelopes for one epoch and deal one to some recipients
and the other to the rest. Each honest voter then checks its DROP share against *its* copy, and
every peer holding the other copy sees a false share (COMPLAINT kind 5): honest voters are
convicted and, with 5+ seats, peers holding different copies decide the drop differently (real
chain vs stand-in). So which escrow a drop recombines against, and which escrow a kind-5
complaint is judged by, must be decided from bytes every peer agrees on: the applied STEPs.

What
----
Each seat's STEP body carries, in its 9th field, ``[dealer, epoch, SHA-256(ESCROW envelope)]``
for each escrow of the current epoch it holds and has not acknowledged in an applied STEP yet.
STEP bodies are covered by the step digest and applied identically by every peer, so
``AckLedger.add`` is called with the same arguments, in the same order (step by step, seat
order), by every peer and by ``verify``: its answers are the same everywhere.

A dealer's escrow of an epoch is CONFIRMED once every recipient (the active seats other than the
dealer when the epoch began) acknowledged the same hash; EQUIVOCATED (never confirmed) once two
recipients acknowledged different hashes. Ignored, deterministically: an acknowledgement by the
dealer itself or by a seat that is not a recipient, one of an epoch never opened, and a
recipient's second acknowledgement of the same (dealer, epoch) (its first one stands).

The escrow round (``escrow_round``): a chance step k starts only when every active dealer's
escrow of the current epoch is CONFIRMED by steps < k. Otherwise step k is an escrow round:
every seat's input is nil, its STEP carries its acknowledgements, and the step is applied with
no engine transition (state and chance index unchanged). Since nobody reveals before every
escrow is confirmed, a drop of a dealer whose escrow is not confirmed can use the public
stand-in without giving anyone a choice, and every honest voter's share is judged against the
one escrow it acknowledged itself.

Pure bookkeeping: no I/O, no crypto beyond SHA-256 of an envelope.
"""

from __future__ import annotations

import hashlib
from typing import Iterable, Sequence

from .bodies import EscrowAck

__all__ = ["EQUIVOCATED", "AckLedger", "EscrowAck", "escrow_hash", "escrow_round"]

#: ``AckLedger.status`` when recipients acknowledged two different escrows of one dealer and epoch.
EQUIVOCATED = "equivocated"


def escrow_hash(raw: bytes) -> bytes:
    """SHA-256 of an ESCROW envelope (the whole signed envelope bytes): what a STEP acknowledges."""
    return hashlib.sha256(raw).digest()


class AckLedger:
    """Acknowledgements applied from the agreed history, per (dealer, epoch).

    ``open_epoch(epoch, active)`` is called when an epoch begins (game start, each drop, each
    re-seat) with the active seats of that moment: it fixes each dealer's recipients.
    ``add(seat, acks)`` applies one seat's STEP ack field at step application; ``end_round``
    counts an applied escrow round of the epoch."""

    def __init__(self, seats: int) -> None:
        self.n = seats
        #: epoch -> the active seats when it began.
        self._active: dict[int, tuple[bool, ...]] = {}
        #: (dealer, epoch) -> {recipient: hash}
        self._acks: dict[tuple[int, int], dict[int, bytes]] = {}
        #: (dealer, epoch) pairs with two different acknowledged hashes.
        self._split: set[tuple[int, int]] = set()
        #: epoch -> escrow rounds applied in it.
        self._rounds: dict[int, int] = {}
        # Derived, kept so the per-step questions cost a dict look-up (an epoch's active seats
        # never change once opened): (seat, epoch) -> the dealers whose escrow it receives, and
        # (seat, epoch) -> the dealers it acknowledged (a subset of those).
        self._dealers_of: dict[tuple[int, int], tuple[int, ...]] = {}
        self._acked_by: dict[tuple[int, int], set[int]] = {}
        # (dealer, epoch) -> its CONFIRMED hash, once ``status`` found it: final, so the escrow
        # round's question (``all_confirmed``, asked before every step) is a look-up per dealer
        # (issue 14). Why final: every recipient acknowledged, and a recipient's later
        # acknowledgements are ignored (its first stands) as are a non-recipient's, so the
        # held hashes never change and no split can come; the recipients of an opened epoch
        # never change either (``open_epoch`` keeps the first ``active``).
        self._confirmed: dict[tuple[int, int], bytes] = {}

    def open_epoch(self, epoch: int, active: Sequence[bool]) -> None:
        """Epoch ``epoch`` begins with ``active`` seats (len = seats); idempotent for a replay."""
        self._active.setdefault(epoch, tuple(bool(a) for a in active))

    def recipients(self, dealer: int, epoch: int) -> list[int]:
        """The seats that must acknowledge ``dealer``'s escrow of ``epoch`` ([] for an unknown
        epoch or an inactive dealer: nothing can be confirmed)."""
        if not 0 <= dealer < self.n:
            return []
        return list(self._dealers(dealer, epoch))  # the same set: the others active at the start

    def add(self, seat: int, acks: Iterable[EscrowAck]) -> list[tuple[int, int]]:
        """Apply ``seat``'s acknowledgements (one applied STEP body). Returns the (dealer, epoch)
        pairs that became EQUIVOCATED by this call (for the session's events)."""
        newly = []
        for a in acks:
            if not 0 <= a.dealer < self.n or seat not in self._dealers(a.dealer, a.epoch):
                continue  # the dealer itself, a non-recipient, or an epoch we never opened
            key = (a.dealer, a.epoch)
            held = self._acks.setdefault(key, {})
            if seat in held:
                continue  # its first acknowledgement stands
            held[seat] = a.hash
            self._acked_by.setdefault((seat, a.epoch), set()).add(a.dealer)
            if key not in self._split and len(set(held.values())) > 1:
                self._split.add(key)
                newly.append(key)
        return newly

    def acks_of(self, dealer: int, epoch: int) -> dict[int, bytes]:
        """recipient -> the hash it acknowledged for ``dealer``'s escrow of ``epoch`` (a copy)."""
        return dict(self._acks.get((dealer, epoch), {}))

    def acked(self, seat: int, dealer: int, epoch: int) -> bool:
        """True if ``seat``'s acknowledgement of ``dealer``'s escrow of ``epoch`` was applied."""
        return seat in self._acks.get((dealer, epoch), {})

    def status(self, dealer: int, epoch: int) -> bytes | str | None:
        """The confirmed hash of ``dealer``'s escrow of ``epoch``; ``EQUIVOCATED``; or None
        (some recipient has not acknowledged yet, or nothing to confirm)."""
        key = (dealer, epoch)
        done = self._confirmed.get(key)
        if done is not None:
            return done
        if key in self._split:
            return EQUIVOCATED
        want = self._dealers(dealer, epoch) if 0 <= dealer < self.n else ()
        held = self._acks.get(key, {})
        if not want or any(i not in held for i in want):
            return None
        done = self._confirmed[key] = held[want[0]]
        return done

    def confirmed(self, dealer: int, epoch: int, raw: bytes | None) -> bool:
        """True if ``raw`` (an ESCROW envelope we hold, or None) is ``dealer``'s CONFIRMED escrow of
        ``epoch``: the only escrow a drop recombines against and a kind-5 complaint is judged by."""
        st = self.status(dealer, epoch)
        return raw is not None and isinstance(st, bytes) and st == escrow_hash(raw)

    def all_confirmed(self, epoch: int, active: Sequence[bool]) -> bool:
        """True if the escrow of every seat active now (``active``) of ``epoch`` is CONFIRMED."""
        return all(isinstance(self.status(d, epoch), bytes) for d in range(self.n) if active[d])

    def unacked(self, seat: int, epoch: int, active: Sequence[bool]) -> list[int]:
        """Dealers active now whose escrow of ``epoch`` ``seat`` must still acknowledge."""
        dealers = self._dealers(seat, epoch)
        done = self._acked_by.get((seat, epoch))
        if done is None:
            return [d for d in dealers if active[d]]
        if len(done) == len(dealers):
            return []  # the usual case once the epoch's escrows are acknowledged
        return [d for d in dealers if active[d] and d not in done]

    def recipients_of(self, seat: int, epoch: int) -> list[int]:
        """The dealers of ``epoch`` whose escrow ``seat`` receives (ascending)."""
        return list(self._dealers(seat, epoch))

    def _dealers(self, seat: int, epoch: int) -> tuple[int, ...]:
        """``recipients_of`` as a tuple, cached once the epoch is opened. Also ``recipients``
        of ``seat`` as a dealer: both are the other seats active when the epoch began."""
        key = (seat, epoch)
        got = self._dealers_of.get(key)
        if got is not None:
            return got
        act = self._active.get(epoch)
        if act is None:
            return ()  # not cached: the epoch may be opened later
        got = tuple(d for d in range(self.n) if act[d] and d != seat) if act[seat] else ()
        self._dealers_of[key] = got
        return got

    def end_round(self, epoch: int) -> None:
        """An escrow round of ``epoch`` was applied."""
        self._rounds[epoch] = self._rounds.get(epoch, 0) + 1

    def rounds(self, epoch: int) -> int:
        """Escrow rounds of ``epoch`` applied so far."""
        return self._rounds.get(epoch, 0)


def escrow_round(ledger: AckLedger, epoch: int, active: Sequence[bool], needed: bool, chance: bool) -> bool:
    """True if the step about to begin is an escrow round (protocol.md §C8.2): escrows are dealt
    (``needed``: seat loss on and a drop possible), the engine waits for a chance step
    (``chance``: not an inspection, not the final attestation) and the escrow of some active
    seat of ``epoch`` is not CONFIRMED by the steps applied so far. Evaluated by every peer and
    by ``verify`` right after the previous step (and its re-seats) was applied, before any drop
    at the new step: the same answer everywhere."""
    return needed and chance and not ledger.all_confirmed(epoch, active)
