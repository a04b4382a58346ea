"""MODEL of version 5's rule: the release of escrow shares in one-phase DROP votes (protocol.md
§C8.3 'Shares in votes that decide nothing', rules (a)-(c)). The live code is
``seat_loss.SeatLoss`` (``vote``, ``release``, ``quorum_at``, ``own_votes``),
``session_votes.SessionVotes`` (``check``, ``receive``, ``certified``) and ``step_gate.StepGate.advance``;
nothing imports this model but its property test (it checks the rule, not the code), which is why
it lives under tests/ (it was p2p/vote_release.py until H144; RV12-A #8: a model of the live rule
in the production package had drifted once, H133).

Why
---
A version-4 vote hands its share of d to everyone, quorum or not; N - Q colluders plus 2Q - N
honest votes against d that decide nothing recombine d's chain while d plays on. In version 5 a
vote is first **open** (no share) and its voter **releases** it (re-signs it with its share) only
once it holds a quorum of votes against d at its current step: a share then leaves an honest seat
only when d's drop is decided. Three things come with it, each needed (the prototype and the
tests showed why):

* a released vote without a share carries the voter's pairwise key of its entry (COMPLAINT kind
  3's evidence, §C8.8), so "I hold no share" is proven, never claimed: a liar cannot choose the
  stand-in (``NO_SHARE``-like claims are what made a bare-first vote unsafe in version 4);
* a quorum, open or released, is the decision: the holder never applies the step with d's
  message (no certificate: a colluder that completed the quorum and then signed k+1 over d's
  message would otherwise free the releaser and let d play on) and forwards the quorum's votes
  (a peer that applied the step on a fooled certificate rolls back on them);
* an open vote and the same voter's released vote of one seat are one vote (an upgrade); two
  released votes that differ, or votes for two seats, are an equivocation.

Pure bookkeeping of one seat ``me`` at one (step, epoch): no I/O, no signatures, shares and keys
are opaque values (the caller checks them against the dealer's commitments). Property test:
tests/p2p/test_vote_release_model.py.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

__all__ = ["Ballot", "ReleaseBook", "released"]


class Ballot(NamedTuple):
    """One voter's DROP vote against ``seat`` at the book's (step, epoch): ``share`` None while
    open; once released, ``share`` (its share, checked) or ``key`` (its pairwise key proving its
    entry does not open)."""

    voter: int
    seat: int
    share: Any = None
    key: Any = None


def released(b: Ballot) -> bool:
    """True if ``b`` is a released vote (a share or a key)."""
    return b.share is not None or b.key is not None


class ReleaseBook:
    """The votes of one (step, epoch) at seat ``me``: ``n`` seats, quorum ``q`` (= t), ``active``
    seats, our ``share`` of each dealer (dealer -> share, or a key when ours did not open)."""

    def __init__(self, n: int, q: int, active: Sequence[bool], me: int, shares: dict[int, Ballot]) -> None:
        self.n, self.q, self.me = n, q, me
        self.active = list(active)
        self._mine = shares  # dealer -> Ballot(me, dealer, share, key): what we would release
        self.votes: dict[int, Ballot] = {}  # voter -> its vote (one per step and epoch)
        self.equivocators: set[int] = set()

    def add(self, b: Ballot) -> str:
        """Take a (verified) vote: "ignored" (voter or seat not active, a vote against oneself),
        "held" (new, or a copy, or an open copy of a released vote), "upgrade" (open -> released),
        "equivocation" (another seat, or another release: the voter is proven, its vote stays
        the first)."""
        if not (0 <= b.voter < self.n and 0 <= b.seat < self.n and self.active[b.voter] and self.active[b.seat]) \
                or b.voter == b.seat:
            return "ignored"
        old = self.votes.get(b.voter)
        if old is None:
            self.votes[b.voter] = b
            return "held"
        if old.seat != b.seat or (released(old) and released(b) and old != b):
            self.equivocators.add(b.voter)
            return "equivocation"
        if released(b) and not released(old):
            self.votes[b.voter] = b
            return "upgrade"
        return "held"

    def vote(self, seat: int) -> Ballot | None:
        """Our open vote against ``seat`` (None if we already voted in this step and epoch)."""
        if self.me in self.votes:
            return None
        b = Ballot(self.me, seat)
        self.votes[self.me] = b
        return b

    def quorum(self, seat: int) -> list[int]:
        """Voters of a vote against ``seat`` held (open or released), distinct, active, not
        ``seat``, proven equivocators left out."""
        return sorted(v for v, b in self.votes.items() if b.seat == seat and v not in self.equivocators)

    def decided(self) -> int | None:
        """The seat whose drop a quorum of votes decides (rule (c)), or None."""
        for seat in range(self.n):
            if len(self.quorum(seat)) >= self.q:
                return seat
        return None

    def release(self, current: bool) -> Ballot | None:
        """Rule (b): our released vote, once we hold a quorum against a seat d, only while this
        (step, epoch) is our current one (``current``; a stale quorum never releases); if we had
        not voted, we vote d released at once. None if nothing is to release."""
        d = self.decided()
        if d is None or not current or d == self.me:
            return None
        mine = self.votes.get(self.me)
        if mine is not None and (mine.seat != d or released(mine)):
            return None
        b = self._mine.get(d)
        if b is None:
            return None
        self.votes[self.me] = b
        return b

    def may_apply_with(self, seat: int) -> bool:
        """Rule (c): False once a quorum against ``seat`` is held (its drop is decided: no
        certificate lets us apply the step with its message)."""
        return self.decided() != seat

    def forward(self) -> list[Ballot]:
        """Rule (c): the quorum's votes we re-send with our own, or []."""
        d = self.decided()
        return [] if d is None else [self.votes[v] for v in self.quorum(d)]

    def outcome(self, confirmed: bool) -> str | None:
        """What the votes decide about d's reveals (rule (c), §C8.3 'Recombination'): "stand-in"
        for an unconfirmed escrow (the first t votes, no release needed); with a confirmed one,
        "chain" with t released shares (the caller recombines: shares of a bad escrow do not
        open the chain, and that too is the stand-in, the cheat named), "stand-in" with
        m − t + 1 released keys (m = n − 1 recipients: each key proves its entry bad, so fewer
        than t entries are good); None (wait). Which of the two comes does not depend on the
        votes held: t shares and m − t + 1 keys would need more than m voters (H127 review #1:
        "any released key" decided the stand-in where t shares of the same escrow gave the
        chain, a fork)."""
        d = self.decided()
        if d is None:
            return None
        if not confirmed:
            return "stand-in"
        held = [self.votes[v] for v in self.quorum(d)]
        if sum(1 for b in held if b.share is not None) >= self.q:
            return "chain"
        if sum(1 for b in held if b.key is not None) >= (self.n - 1) - self.q + 1:
            return "stand-in"
        return None
