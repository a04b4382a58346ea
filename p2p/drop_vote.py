"""Two-phase drop votes of one step and epoch: rounds, prevotes, precommits, locks, the
decision and the voter's certificate (protocol.md §C8.3 "Two-phase votes", §C8.5).

Why two phases
--------------
With one vote per step and epoch (version 3), votes that split between two seats (a partition,
loss, a spiteful seat silent to some voters) are final: no seat reaches the quorum Q, nobody may
vote again, and the table pauses until the missing seat returns or abandons with no winner. No
rule that lets a seat simply vote again is safe: its first vote may already have completed a
quorum at a peer it cannot hear. Tendermint's answer (Buchman, Kwon, Milosevic 2018, "The
latest gossip on BFT consensus", Algorithm 1) is used here without a proposer:

* a vote is ``(round r, phase, target)``; ``target`` is a seat to drop or ``KEEP`` (apply the
  step with every seat's message);
* **prevote** by one's view (or one's lock, or the latest POL, below); a **POL** ("proof of
  lock") for (v, r) is Q prevotes for v in round r;
* **precommit** v in round r on holding POL(v, r): the seat is then **locked** on (v, r);
* **decided**: Q precommits for v in one round r (the drop record carries them);
* a round with no decision ends ``round_timeout(r)`` s after our prevote in it: we precommit
  **NIL** if we have not precommitted in it, and prevote again in r + 1: for the value of the
  latest POL we hold of a round at or after our lock's whose decision is still possible
  (Tendermint's "valid value"), else for our lock, else by our current view;
* added to Tendermint: a lock binds only while its round can still decide (``possible``: NIL
  and other precommits of that round leave fewer than Q possible precommitters otherwise).
  Without it, the up seats of a small table could stay locked for ever on a value that only a
  crashed seat's missing precommit could have decided, when the crashed seat never sent it.

Safety (crashes, partitions, loss; the argument is protocol.md §C8.3): two POLs of one round for
different values need a seat that prevoted twice in that round; a decision for v in round r
locks Q seats on v for ever (that round stays possible), and any POL of a later round needs Q
prevotes, so one of them, which prevotes only v until it holds a POL of a later round for
another value, and there is none. With the quorum Q = floor(N/2) + 1 of *all* the setup's seats
every two quorums share a seat. Safety against a seat that signs two votes in one slot needs two
quorums to share an honest seat (N even); otherwise it is detected (COMPLAINT kind 1), not
prevented (§C8.3).

Pure bookkeeping: no I/O, no signatures (the session checks them before ``add``), no clock of
its own (times are passed in, in the caller's seconds).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

__all__ = ["KEEP", "NIL", "PRECOMMIT", "PREVOTE", "Decision", "DropRound", "Vote", "View", "round_timeout"]

PREVOTE = 0
PRECOMMIT = 1
#: The target "drop nobody: apply the step with every seat's message".
KEEP = -1
#: A precommit's target "nothing in this round" (signed when a round times out without a POL).
NIL = -2


def round_timeout(r: int, period: float) -> float:
    """How long round ``r`` lasts after our prevote in it, without a decision, before we move
    to r + 1 (seconds): (2 + r) re-send periods. Every vote is re-sent once per ``period`` (the
    capped re-send back-off, protocol.md §C5), so within two periods a vote lost once still
    arrives; growing by one period per round makes the rounds outlast any bounded delay once
    the network is stable again (partial synchrony: Dwork, Lynch, Stockmeyer 1988; Tendermint's
    timeoutPrevote + r * delta)."""
    return (2 + r) * period


class Vote(NamedTuple):
    """One voter's signed vote, as the session decoded and verified it: ``raw`` is its envelope
    (opaque here), ``share`` the voter's escrow share of ``target`` (precommits only, else None)."""

    voter: int
    round: int
    phase: int
    target: int
    share: bytes | None
    raw: Any


class View(NamedTuple):
    """What our peer knows at the step, for an unlocked prevote: ``complete`` (we hold every
    awaited seat's message: our prevote is ``KEEP``), ``due`` (seats whose vote time came, in
    the session's order: first whose time came first, then lowest) and ``present`` (seats whose
    step message we hold: never named by a prevote of our own view)."""

    complete: bool
    due: tuple[int, ...]
    present: frozenset[int] = frozenset()


class Decision(NamedTuple):
    """Q or more precommits for ``target`` in round ``round`` (voter order): the step's outcome."""

    round: int
    target: int
    votes: tuple[Vote, ...]


class DropRound:
    """The votes of one (step, epoch) held by our peer: ``n`` setup seats, ``quorum`` Q,
    ``active[i]`` (seat i not dropped), ``me`` (our seat), ``period`` (s, ``round_timeout``).

    The session calls ``add`` for each verified vote (ours via ``cast``), ``prevote`` /
    ``precommit`` to learn what to sign next, ``tick`` with its clock, ``decision`` to apply a
    drop and ``may_apply`` for the voter's certificate. One instance per step and epoch; a new
    epoch (after a drop) starts a fresh one (``reset``)."""

    def __init__(self, n: int, quorum: int, active: Sequence[bool], me: int, period: float) -> None:
        self.n, self.quorum, self.me, self.period = n, quorum, me, period
        self.active = list(active)
        #: Our current round; a round we moved past is never voted in again.
        self.round = 0
        #: (target, round) of our latest precommit of a value, or None (what binds: ``locked``).
        self.lock: tuple[int, int] | None = None
        self._votes: dict[tuple[int, int], dict[int, Vote]] = {}  # (round, phase) -> voter -> vote
        self._prevoted_at: float | None = None  # when we prevoted in ``round``
        #: Targets other than KEEP we prevoted or precommitted (the voter's promise, ``may_apply``).
        self.named: set[int] = set()
        self.stats = {"equivocations": 0, "ignored": 0, "jumps": 0}

    def reset(self, active: Sequence[bool]) -> None:
        """A new epoch at the same step (a seat was dropped): forget every vote and lock."""
        self.__init__(self.n, self.quorum, active, self.me, self.period)  # type: ignore[misc]

    # -- votes held --

    def add(self, v: Vote) -> Any | None:
        """Keep a verified vote. Returns the raw of the voter's other vote of the same round and
        phase if it differs (equivocation: COMPLAINT kind 1 with both envelopes), else None.
        Ignored (counted): a voter or target not active, a vote against oneself. A vote of a
        later round from N - Q + 1 distinct voters (at least one honest if the liars are at most
        N - Q) moves us to that round at once (the rounds of the peers align)."""
        if not (0 <= v.voter < self.n and self.active[v.voter]) or v.round < 0 or v.phase not in (PREVOTE, PRECOMMIT) \
                or (v.target not in (KEEP, NIL) and not (0 <= v.target < self.n and self.active[v.target])) \
                or (v.target == NIL and v.phase != PRECOMMIT) \
                or v.target == v.voter:
            self.stats["ignored"] += 1
            return None
        slot = self._votes.setdefault((v.round, v.phase), {})
        old = slot.get(v.voter)
        if old is not None:
            if old.target != v.target or old.share != v.share:
                self.stats["equivocations"] += 1
                return old.raw
            return None
        slot[v.voter] = v
        if v.voter == self.me and v.target >= 0:
            self.named.add(v.target)
        if v.round > self.round:
            # The highest round r such that N - Q + 1 voters voted in r or later.
            top: dict[int, int] = {}
            for (r, _), held in self._votes.items():
                for u in held:
                    top[u] = max(top.get(u, -1), r)
            ranks = sorted(top.values(), reverse=True)
            k = self.n - self.quorum + 1
            if len(ranks) >= k and ranks[k - 1] > self.round:
                self._enter(ranks[k - 1])
                self.stats["jumps"] += 1
        return None

    def votes(self, r: int, phase: int) -> dict[int, Vote]:
        """voter -> vote held for round ``r`` and ``phase`` (a copy)."""
        return dict(self._votes.get((r, phase), {}))

    def own(self, r: int, phase: int) -> Vote | None:
        """Our vote of round ``r`` and ``phase``, or None."""
        return self._votes.get((r, phase), {}).get(self.me)

    def _tally(self, r: int, phase: int, target: int) -> list[Vote]:
        return sorted((v for v in self._votes.get((r, phase), {}).values() if v.target == target),
                      key=lambda v: v.voter)

    def _tally_voters(self, r: int, target: int) -> list[int]:
        """Voters of a precommit for ``target`` in round ``r`` (seats that may be locked on it)."""
        return [v.voter for v in self._tally(r, PRECOMMIT, target)]

    def pol(self, r: int) -> int | None:
        """The value with Q prevotes in round ``r`` (a POL), or None."""
        counts: dict[int, int] = {}
        for v in self._votes.get((r, PREVOTE), {}).values():
            counts[v.target] = counts.get(v.target, 0) + 1
        for target, c in sorted(counts.items()):
            if c >= self.quorum:
                return target
        return None

    def pol_votes(self, r: int) -> list[Any]:
        """The raws of the prevotes of round ``r``'s POL (forwarded with our re-sends so that every
        peer learns the latest POL, which it follows), or []."""
        t = self.pol(r)
        return [] if t is None else [v.raw for v in self._tally(r, PREVOTE, t)]

    def latest_pol(self, before: int | None = None) -> tuple[int, int] | None:
        """(round, value) of the latest POL we hold of a round below ``before`` (all if None)."""
        rounds = sorted({r for (r, ph) in self._votes if ph == PREVOTE and (before is None or r < before)},
                        reverse=True)
        for r in rounds:
            t = self.pol(r)
            if t is not None:
                return r, t
        return None

    def decision(self) -> Decision | None:
        """Q precommits for one target in one round (the lowest such round): the outcome of the
        step and epoch. Two rounds never decide different targets (locks, module docstring)."""
        for r, ph in sorted(self._votes):
            if ph != PRECOMMIT:
                continue
            counts: dict[int, int] = {}
            for v in self._votes[(r, ph)].values():
                counts[v.target] = counts.get(v.target, 0) + 1
            for target, c in sorted(counts.items()):
                if c >= self.quorum and target != NIL:
                    return Decision(r, target, tuple(self._tally(r, PRECOMMIT, target)))
        return None

    # -- what we sign next --

    def possible(self, target: int, r: int) -> bool:
        """False once a decision for ``target`` in round ``r`` is impossible: fewer than Q active
        seats other than ``target`` have not precommitted another value (or NIL) in ``r``. Final:
        a signed precommit of a round is never taken back (a second one is an equivocation)."""
        other = {u for u, v in self._votes.get((r, PRECOMMIT), {}).items() if v.target != target}
        return sum(1 for i in range(self.n) if self.active[i] and i != target and i not in other) >= self.quorum

    def locked(self) -> tuple[int, int] | None:
        """The lock (target, round) that binds us: our precommit of a value (not NIL) of the
        latest round whose decision is still possible (``possible``), or None. A later lock
        whose round can no longer decide falls back to the earlier one, not to none: the earlier
        round may have decided (protocol.md §C8.3, safety)."""
        for (r, ph) in sorted(self._votes, reverse=True):
            v = self._votes[(r, ph)].get(self.me) if ph == PRECOMMIT else None
            if v is not None and v.target != NIL and self.possible(v.target, r):
                return v.target, r
        return None

    def prevote(self, view: View | None) -> int | None:
        """Our prevote of the current round if we have not cast it, else None: the value of the
        latest POL of an earlier round whose decision is still possible and whose round is at or
        after our lock's (unless it is our own seat: Tendermint's "valid value", so that the
        unlocked join the locked), else our lock's value while it binds, else by ``view``
        (``KEEP`` if complete; else the due seat most prevoted by the others in the latest round
        we hold prevotes of, then ``view.due``'s order; never a seat in ``view.present``); None
        if ``view`` names nothing yet (we wait)."""
        if self.own(self.round, PREVOTE) is not None or self.decision() is not None:
            return None
        lock = self.locked()
        for r in sorted({r for (r, ph) in self._votes if ph == PREVOTE and r < self.round}, reverse=True):
            if lock is not None and r < lock[1]:
                break
            t = self.pol(r)
            if t is not None and t != self.me and self.possible(t, r):
                return t
        if lock is not None:
            return lock[0]
        if view is None:
            return None
        if view.complete:
            return KEEP
        due = [d for d in view.due if d not in view.present and d != self.me and self.active[d]]
        if not due:
            return None
        counts = self._latest_counts()
        order = {d: i for i, d in enumerate(due)}
        return min(due, key=lambda d: (-counts.get(d, 0), order[d]))

    def _latest_counts(self) -> dict[int, int]:
        """target -> the others' prevotes for it in the latest round we hold prevotes of."""
        rounds = [r for (r, ph) in self._votes if ph == PREVOTE]
        counts: dict[int, int] = {}
        if rounds:
            for v in self._votes[(max(rounds), PREVOTE)].values():
                if v.voter != self.me:
                    counts[v.target] = counts.get(v.target, 0) + 1
        return counts

    def precommit(self, now: float | None = None) -> int | None:
        """Our precommit if due: v once we hold POL(v, round) and have not precommitted in our
        round (v not our seat); ``NIL`` once the round timed out at ``now`` without one (so that
        everyone learns which decisions of the round are impossible, ``possible``); and once a
        round is decided, its target in that round if we have not precommitted in it (our share
        then helps recombine, §C8.3). None otherwise."""
        d = self.decision()
        if d is not None:
            return d.target if self.own(d.round, PRECOMMIT) is None and d.target != self.me else None
        if self.own(self.round, PRECOMMIT) is not None:
            return None
        t = self.pol(self.round)
        if t is not None and t != self.me:
            return t
        dl = self.deadline()
        return NIL if dl is not None and now is not None and now >= dl else None

    def cast(self, v: Vote, now: float) -> None:
        """Record our own vote ``v`` (signed by the session): a prevote starts the round's timer,
        a precommit locks us on its target."""
        self.add(v)
        if v.phase == PREVOTE and v.round == self.round:
            self._prevoted_at = now
        elif v.phase == PRECOMMIT and v.target != NIL:
            if self.lock is None or v.round >= self.lock[1]:
                self.lock = (v.target, v.round)

    def own_votes(self) -> list[Any]:
        """Raws to re-send with each re-send of the step (§C8.3): our prevote of the current
        round, our precommit of every round (NIL ones included: they tell the others which
        decisions are impossible, ``possible``; one per round), and the prevotes of every POL
        we hold whose decision is still possible (signed by their voters: the others follow the
        latest, ``prevote``)."""
        out = [v.raw for (r, ph), held in sorted(self._votes.items()) for u, v in held.items()
               if u == self.me and (ph == PRECOMMIT or r == self.round)]
        return out + [raw for raw in self.pol_raws() if raw not in out]

    def pol_raws(self) -> list[Any]:
        """The prevotes of every POL held whose round's decision is still possible (any voter)."""
        out = []
        for r in sorted({r for (r, ph) in self._votes if ph == PREVOTE}):
            t = self.pol(r)
            if t is not None and self.possible(t, r):
                out += [v.raw for v in self._tally(r, PREVOTE, t)]
        return out

    # -- time --

    def deadline(self) -> float | None:
        """When the current round ends without a decision (caller's seconds), or None if we have
        not prevoted in it yet or the step and epoch are decided."""
        if self._prevoted_at is None or self.decision() is not None:
            return None
        return self._prevoted_at + round_timeout(self.round, self.period)

    def tick(self, now: float) -> bool:
        """Move to the next round if the current one timed out and we precommitted in it (NIL
        at least, ``precommit``); True if we moved."""
        d = self.deadline()
        if d is None or now < d or self.own(self.round, PRECOMMIT) is None:
            return False
        self._enter(self.round + 1)
        return True

    def _enter(self, r: int) -> None:
        self.round = r
        self._prevoted_at = None

    # -- the voter's promise --

    def may_apply(self, signers: Sequence[int]) -> bool:
        """True if we may apply the step with every seat's message (protocol.md §C8.3 "A voter's
        promise"): KEEP is decided, or for every active seat t we named (prevote or precommit
        of a seat) at least (active - Q) active seats other than t will never precommit t, so
        that fewer than Q can: the seats other than us and t in ``signers`` (they signed a
        next-step message covering exactly the messages we hold: past this step they never vote
        at it, and if they ever named t they applied under this very rule, so no decision
        against t can exist), and we ourselves unless we precommitted t in a round whose decision
        is still possible (we apply, leave the step and never vote at it again; a prevote
        decides nothing). False while a drop is decided. A seat that never named anyone applies
        at once, as a non-voter (§C8.3)."""
        d = self.decision()
        if d is not None:
            return d.target == KEEP
        need = sum(self.active) - self.quorum
        signed = set(signers)
        for t in self.named:
            if not self.active[t]:
                continue
            bound = any(held.get(self.me) is not None and held[self.me].target == t and self.possible(t, r)
                        for (r, ph), held in self._votes.items() if ph == PRECOMMIT)
            never = sum(1 for i in signed if i not in (self.me, t) and self.active[i]) + (not bound)
            if never < need:
                return False
        return True
