"""Every DROP vote held, by slot, across the epochs of a step: the quorum of an earlier epoch of
the current step still binds (protocol.md §C8.3 rule (c), 'The quorum binds in every epoch of
its step'; red team s12b #2, H128; H132).

``seat_loss.SeatLoss`` keeps one vote per voter and step (a later epoch replaces it, a second
target of one slot is an equivocation and is not kept): what it needs to count the quorum of
the current epoch. That loses two things a held quorum of an earlier epoch of the same step
says: a liar's two votes of one (step, epoch) slot can complete a quorum against d at one honest
seat (which releases its share of d) and a quorum against another seat at the others (which drop
that seat at step k, so the epoch moves on at k); to those others the liar's vote against d is
its second one (proven, kind 1, never kept), and the epoch-e quorum counted for nothing once they
were in e + 1. d's chain secret h_0 is the same in every epoch (each epoch's escrow re-deals the
same h_0, §C8.2), so the colluders held t shares of it while d played on.

Here every verified vote is kept by its slot (step, epoch, seat), an equivocator's second vote
included (signed: the liar did cast it), and ``bound`` names an active seat against which Q
distinct seats, active with it in that epoch, signed votes of an EARLIER epoch of the step: the
drop of that seat was decided there, so no peer applies the step with its message (no
certificate, the step waits, the seat itself stops, the votes are forwarded with our re-sends).
Without a liar such a quorum never exists: the epoch moves on at step k only by a drop at k, and
two quorums of one slot share a seat, which would have signed two votes of that slot.
"""

from __future__ import annotations

from .escrow import released
from .wire import DropVote

__all__ = ["SlotVotes"]


class SlotVotes:
    """The signed DROP votes of the steps not yet applied, by slot (step, epoch, seat) -> voter
    -> (vote, envelope): a released vote replaces the same voter's open one, never back.
    ``n``: the setup's seats; ``quorum``: Q (§C8.3)."""

    def __init__(self, n: int, quorum: int) -> None:
        self._q = quorum
        self._held: dict[tuple[int, int, int], dict[int, tuple[DropVote, bytes]]] = {}
        #: epoch -> the seats active during it (set when it begins: game start, drop, re-seat).
        self._active: dict[int, tuple[bool, ...]] = {0: (True,) * n}

    def epoch_began(self, epoch: int, active: list[bool]) -> None:
        """The seats active in ``epoch`` (a drop or a re-seat just began it)."""
        self._active[epoch] = tuple(active)

    def add(self, v: DropVote, raw: bytes) -> None:
        """Keep ``v`` (its signature verified by the caller), whatever else its voter signed."""
        held = self._held.setdefault((v.step, v.epoch, v.seat), {})
        old = held.get(v.voter)
        if old is None or (released(v) and not released(old[0])):
            held[v.voter] = (v, raw)

    def bound(self, step: int, epoch: int, active: list[bool]) -> int | None:
        """The seat, active now, against which we hold votes of ``step`` in an epoch before
        ``epoch`` (the current one) from Q distinct seats other than it, all active with it in
        that epoch: its drop was decided at ``step`` in that epoch (§C8.3 rule (c)); or None."""
        for (s, e, t), held in self._held.items():
            if s != step or e >= epoch or not active[t] or len(held) < self._q:
                continue
            was = self._active.get(e)
            if was is not None and was[t] and sum(1 for i in held if i != t and was[i]) >= self._q:
                return t
        return None

    def bound_votes(self, step: int, epoch: int, active: list[bool], sent: list[bytes]) -> list[bytes]:
        """The envelopes of the earlier epochs' votes against the ``bound`` seat (epoch, voter
        order) not in ``sent``: forwarded with our re-sends, so every peer holds the quorum
        (§C8.3 rule (c)); [] when no seat is bound."""
        t = self.bound(step, epoch, active)
        if t is None:
            return []
        return [raw for (s, e, d) in sorted(self._held) if s == step and d == t and e < epoch
                for _, (_, raw) in sorted(self._held[(s, e, d)].items()) if raw not in sent]

    def forget(self, upto: int) -> None:
        """Forget the slots of steps <= ``upto`` (applied), ours included: ``bound`` reads only the
        current step, and votes against us of a past step are counted by ``SeatLoss`` (its own
        table), so a slot kept here would be read by nobody (red team s12d #1, H136: a seat
        signing DROP(j, us, e) for each of the 256 epoch values of every past step grew it for
        the whole game)."""
        for key in [key for key in self._held if key[0] <= upto]:
            del self._held[key]

    def clear(self) -> None:
        """Forget every vote (``SeatLoss.clear_votes``)."""
        self._held.clear()
