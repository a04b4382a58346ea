"""The session's side of the drop votes (protocol.md §C8.3, one vote per step and epoch; open
votes released on a held quorum, version 5): when we vote and against whom, casting and
receiving DROP votes, forwarding what a voter lacks, releasing our share, deciding a drop, and
the certificate that lets a voter apply its step anyway.

The votes, escrows, shares and quorum are ``seat_loss.SeatLoss``'s (``session.seats``); the
step's timers ``liveness.Liveness``'s (``session.live``). This part owns the forwarding
budget (a ``TokenBucket`` per voter) and decides:

* **when** (``drop_deadline``, ``vote_time``): a silent seat ``drop_timeout`` s after we last
  heard from it, at the latest ``turn_time`` s into the step; a seat that left (ABANDON) or is
  proven to cheat at once; when several seats fall due within one re-send period, one or two
  re-send periods later so that the honest voters' votes arrive first (§C8.3 "When an honest
  peer votes", "Split votes");
* **whom** (``vote_choice``): among our due seats, the most named by the others, then the
  earliest, then the lowest (one vote per step and epoch: any choice is safe, this one keeps
  the votes from splitting); ``vote_cheaters`` for proven cheaters and seats that left;
* **casting** (``vote``): signed, written ahead to our own-message log, sent, reported;
* **receiving** (``receive``): counted, checked, held; a second vote of one voter proven
  (kind 1); a voter that lacks a seat's message or ALIVE gets it forwarded within its budget
  (``forward``); a vote of a step we applied against our own seat halts us once a quorum voted
  (``SeatLost``);
* **releasing** (``check``, version 5): once we hold a quorum against a seat at our current
  step, our open vote is re-signed with our share (or key) and sent; without a vote of ours in
  this step and epoch we vote at once (§C8.3 rule (b)); a quorum of a step we applied with the
  seat's message overturns it (``StepOverturned``, rule (c));
* **deciding** (``check``): a quorum with usable released shares drops the seat (the session
  applies it: ``Effects.apply_drop``), an undecided one waits for the releases (asking for a
  catch-up), a lying share is proven (kind 5) and the rest decide; ``ingest_record`` applies a
  DROP log record;
* **certified** (``certified``): after our vote at step k, apply k with all its messages only
  if no quorum against the seat can exist, and never while we hold one (rule (c)).

It reads the session through ``session_port.SessionView`` and acts through
``session_port.Effects``; the seats that left are ``abandon.Abandons.left`` (read only).
H36's two-phase votes (``drop_vote.py``, version 4) are specified, not wired: they would
replace ``vote``/``receive``/``check`` here.
"""

from __future__ import annotations

from typing import Collection, Sequence

from . import const as C
from .complaints import BAD_DROP_SHARE, EQUIVOCATION
from .errors import WireError
from .ratelimit import TokenBucket
from .seat_loss import UNDECIDED
from .session_events import Equivocation, PeerMisbehaved, SeatDropVoted, SeatLost, StepOverturned
from .session_port import Effects, SessionView
from .session_turn_clock import TurnClock, held_reason
from .wire import MSG_DROP, MSG_SKIP, DropVote, Envelope, decode_drop, open_envelope

__all__ = ["SessionVotes"]


class SessionVotes:
    """The session's drop votes (module docstring). ``session``: read only; ``effects``: what
    we do to it; ``left``: the seats that signed ABANDON (``Abandons.left``, read only)."""

    def __init__(self, session: SessionView, effects: Effects, left: Collection[int]) -> None:
        self._s = session
        self._fx = effects
        self._left = left
        #: Per voter: how often one of its votes may make us forward a message it lacks (§C8.3
        #: "Forwarding"). An honest voter re-sends its vote at most every RESEND_INTERVAL; a
        #: replayed vote is a duplicate whose forward would multiply it by N-1 (amplification).
        self._forward_budget: dict[int, TokenBucket] = {}
        #: Per seat, its steps holding its turn at an own decision in this turn (§C8.3 'Own
        #: decision across steps'): the gate asks ``turn_gate``.
        self.clock = TurnClock(session)

    # -- when and whom --

    def drop_deadline(self) -> float | None:
        """When we will cast our vote of this step and epoch against a seat we still wait for
        (seconds, the caller's clock; ``vote_time``), or None if seat loss is off, a drop is
        impossible, we already voted in this step and epoch, or no seat is awaited. When the
        times of several seats come within one re-send period of the first, one re-send period
        after the first, so that the others' votes (re-sent within that period), which may name
        the seat they all miss, come first (§C8.3 "When an honest peer votes"; ``vote_choice``
        then names the seat most named: one spiteful vote is outweighed by two honest ones).
        Never earlier for a seat one voter named: that would let a lone spiteful vote choose."""
        s = self._s
        seats = s.seats
        if not s.running or s.spectator or not self.may_vote():
            return None
        times = [(self.vote_time(i), i) for i in s.waiting_for()
                 if i != s.my_seat and not seats.has_voted(s.step, i)]
        if not times:
            return None
        first = min(times)[0]
        grace = s.live.resend_period
        close = sum(1 for t, _ in times if t < first + grace)
        if close <= 1:
            return first
        # Due seats between which the others' votes do not settle it (the most named leads by
        # one vote at most: that one may be a spiteful seat's): the honest votes may still be
        # on their way (a seat silent to the other voters delays them), so one more re-send
        # period before today's rule names the most named, earliest, lowest (§C8.3).
        return first + (2 * grace if self._in_doubt(first + grace) else grace)

    def _in_doubt(self, at: float) -> bool:
        """True if two or more awaited seats have their vote time at ``at`` or earlier, one of
        them was named by another voter of this step and epoch, and the most named leads the
        next by one vote or none (``drop_deadline``; one hostile seat's vote is never what
        decides whom an honest voter names)."""
        s = self._s
        counts = self._named()
        due = sorted((counts.get(i, 0) for i in s.waiting_for()
                      if i != s.my_seat and self.vote_time(i) <= at), reverse=True)
        return len(due) > 1 and due[0] > 0 and due[0] - due[1] <= 1

    def _named(self) -> dict[int, int]:
        """Seat -> how many voters of this step and epoch named it."""
        counts: dict[int, int] = {}
        for target in self._s.seats.targets(self._s.step).values():
            counts[target] = counts.get(target, 0) + 1
        return counts

    def vote_time(self, seat: int) -> float:
        """When we vote to drop ``seat`` at the current step if its message has not come
        (protocol.md §C8.3): ``drop_timeout`` s after we last heard from it (the step's start or its
        last ALIVE), and at the latest ``turn_time`` s after the step's start (unless
        unlimited; per step: no wall time is carried across steps, §C8.3 'Own decision across
        steps')."""
        s = self._s
        if seat in self._left or s.complaints.proven(seat) is not None:
            return s.live.step_started  # it left, or cheated: no reason to wait (§C8.7, §C8.8)
        return s.live.vote_time(seat, s.seats.drop_timeout, s.seats.turn_time)

    def turn_gate(self, k: int, skipped: Sequence[int]) -> bool:
        """Before the complete step ``k`` (our current step) is applied (``StepGate.advance``):
        a seat whose held message would hold its turn at an own decision more than
        ``OWN_STEPS_PER_TURN`` times in this turn has its message treated as not held: our DROP
        vote against it, and False (the step waits, the voter's promise, §C8.3 'Own decision
        across steps'). Where no drop is possible, a seat past ``ABANDON_STEPS_PER_TURN`` ends
        the game: our signed ABANDON of step ``k`` (§C8.7, ``_end_held``), and False. True
        otherwise (``session_turn_clock.TurnClock.gate``)."""
        return self.clock.gate(k, skipped, self.vote, self.may_vote, self._end_held)

    def _end_held(self, seat: int, held: int) -> None:
        """No drop is possible and ``seat`` would hold its turn ``held`` steps (over
        ``ABANDON_STEPS_PER_TURN``): end the game as abandoned, our ABANDON signed at the current
        step (``abandon.Abandons.abandon``; every honest peer does so at the same step, §C8.3 'Own
        decision across steps', §C8.7)."""
        self._s.abandons.abandon(held_reason(seat, held))

    def vote_choice(self, now: float) -> int | None:
        """The seat we vote against now (protocol.md §C8.3 "When an honest peer votes"), or None
        if no awaited seat's vote time has come. Joining the others' target among our own due
        seats only changes which of them we name, never whether we vote: any choice is safe
        (one vote per step and epoch); this one keeps the votes from splitting."""
        s = self._s
        due = [(t, i) for i in s.waiting_for() if i != s.my_seat and now >= (t := self.vote_time(i))]
        if not due:
            return None
        counts = self._named()
        return min(due, key=lambda ti: (-counts.get(ti[1], 0), ti[0], ti[1]))[1]

    def vote_cheaters(self) -> None:
        """Cast our vote of the current step and epoch against the lowest active seat proven
        to cheat, else the lowest that left (if we have not voted in this step and epoch, and
        no message of ours of a later step promises we never vote here, ``vote``)."""
        s = self._s
        if not s.running or s.spectator or s.replaying or not self.may_vote():
            return
        for seat in s.complaints.cheaters() + sorted(self._left):
            if seat != s.my_seat and s.active[seat]:
                self.vote(seat)
                return

    def may_vote(self) -> bool:
        """True if a DROP vote of ours at the current step is possible and allowed: seat loss can
        drop someone, we have not voted in this step and epoch (one vote per step and epoch),
        and no message of ours of a later step, signed before a restart, promises we applied
        this step (``OwnStep.promised``; §C8.3 'One vote per step and epoch', 'A voter's
        promise', §C10 'No vote below our signed step'). What every vote trigger asks first."""
        s = self._s
        return s.seats.drop_possible() and not s.seats.voted_this_epoch(s.step) and not s.own.promised()

    # -- casting, receiving, forwarding --

    def vote(self, seat: int) -> None:
        """Sign our DROP vote of the current step and epoch against ``seat``, write it ahead to
        our own-message log (a restart never signs another), send it, report it, decide.
        Nothing while a message of ours of a later step, signed before a restart, says we had
        applied this step (``OwnStep.promised``; §C8.3 'A voter's promise', §C10 'No vote below
        our signed step')."""
        s = self._s
        if s.own.promised():
            return
        k = s.step
        raw = s.seats.vote(k, seat)
        if s.own_log is not None and not s.replaying:
            s.own_log.append_own(k, raw)  # write-ahead: a restart never signs another vote
        self._fx.send(raw)
        self._fx.emit(SeatDropVoted(k, seat))
        self.check(seat)

    def adopt(self, raw: bytes) -> bool:
        """Take ``raw`` (our own DROP vote of the current step, from our own-message log after
        a restart) as cast: it is re-sent and we never sign another vote of this step and
        epoch (one vote per step and epoch, §C8.3). Our SKIP votes likewise (the voter's
        promise, §C8.10). Another voter's DROP vote of the current step there is one of the
        quorum we released on (written ahead with our release, ``check``): held again, so the
        quorum still decides after the restart (no certificate, forwarded; version 5, §C8.3
        rule (c), red team s12 #8). False if it is none of these."""
        s = self._s
        try:
            env = open_envelope(raw, C.MAX_STEP_MSG)
            if env.mtype == MSG_SKIP:
                if not s.skips.adopt_vote(raw, s.step, s.epoch):
                    return False
                if not s.replaying:
                    self._fx.send(raw)
                return True
            v = decode_drop(env.body)
        except WireError:
            return False
        if env.mtype != MSG_DROP or v.game_id != s.game_id or v.step != s.step:
            return False
        if v.voter != s.my_seat:  # a vote of the quorum we released on (held, not re-sent as ours)
            return v.voter < s.n and v.seat < s.n and s.seats.verify_vote(env, v) and s.seats.add_vote(env, v) is None
        if not s.seats.adopt_vote(env, v):
            return False
        if not s.replaying:
            self._fx.send(raw)
        return True

    def receive(self, env: Envelope, v: DropVote, now: float) -> None:
        """A DROP vote of another seat (§C8.3): counted, checked, held, forwarded for, decided."""
        s, fx = self._s, self._fx
        st = s.stats
        st["drop_votes"] += 1
        if not s.seats.on or v.voter >= s.n or v.seat >= s.n:
            st["ignored"] += 1
            return
        k = s.step
        if v.step < k and v.seat != s.my_seat and s.active[v.seat] and s.steps.keeps(v.step) \
                and s.steps.held(v.step, v.seat) is not None and s.seats.verify_vote(env, v):
            # A quorum forwarded by a peer that holds it (version 5, §C8.3 rule (c); our own vote
            # may be in it): a step we keep, applied with that seat's message, is overturned as by
            # a DROP record.
            s.seats.add_vote(env, v)
            if s.seats.has_quorum(v.step, v.seat):
                s.referee.disputes.clear()
                fx.halt(StepOverturned(v.step, v.seat))
                return
        if v.voter == s.my_seat:  # (our own vote comes back in a forwarded quorum: counted above)
            st["bad_seat"] += 1
            return
        if v.step < k and v.seat == s.my_seat and s.active[s.my_seat] and s.seats.own_drop_counts(v.step, k) \
                and s.seats.verify_vote(env, v):
            # We applied that step with our own message, but the others are dropping us at it:
            # once a quorum voted, our state has forked from theirs (§C8.3). Not for a step no
            # peer can overturn any more (``SeatLoss.own_drop_counts``, §C8.3 'Stale votes').
            s.seats.add_vote(env, v)
            if s.seats.has_quorum(v.step, v.seat):
                fx.halt(SeatLost(v.step))
            return
        if v.step < k:
            st["stale"] += 1
            fx.hint(v.voter, now)  # the voter is behind: we completed that step
            return
        if v.step >= k + C.STEP_WINDOW:
            st["too_far"] += 1
            return
        if not s.seats.verify_vote(env, v):
            st["bad_signature"] += 1
            fx.emit(PeerMisbehaved(v.voter, v.step, "bad signature", env.raw))
            return
        other = s.seats.add_vote(env, v)
        if other is not None:
            fx.prove(v.voter, v.step, EQUIVOCATION, "signed two different drop votes", [other, env.raw],
                     halt=Equivocation(v.step, v.voter, other, env.raw))
            return
        if v.step == k:
            s.live.heard_behind(v.voter, now)  # a signed vote of this step: the voter is there
            held = s.steps.held(k, v.seat)
            if held is not None and not s.seats.has_voted(k, v.seat):
                # We hold the message the voter misses: pass it on (it is signed by its seat).
                self.forward(v.voter, held.env.raw, now)
            elif held is None and not s.seats.has_voted(k, v.seat):
                # The seat is still deciding: its latest ALIVE tells a voter that lost its
                # ALIVEs that it is there (signed by it; its counter makes a copy count once).
                alive = s.live.latest_alive(v.seat)
                if alive is not None:
                    self.forward(v.voter, alive, now)
            self.check(v.seat)
            if s.step == k and s.running and s.seats.voted_at(k):
                fx.advance()  # its vote against another seat may complete our certificate
        elif v.step == k + 1 and s.running and s.seats.voted_at(k):
            fx.advance()  # the voter applied k without a drop: it may complete our certificate

    def forward(self, voter: int, raw: bytes, now: float) -> None:
        """Pass on ``raw`` (a seat's signed message or ALIVE) because ``voter``'s DROP or SKIP
        vote shows it lacks it (§C8.3 "Forwarding"), at most FORWARD_BURST at once and one per
        RESEND_INTERVAL s per voter: the voter's own re-sends still get their forward, a replay of
        its vote does not multiply our sends (``stats['forward_limited']``)."""
        bucket = self._forward_budget.get(voter)
        if bucket is None:
            bucket = self._forward_budget[voter] = TokenBucket(C.FORWARD_BURST, 1 / C.RESEND_INTERVAL, now)
        if bucket.take(now):
            self._fx.send(raw)
            self._s.stats["forwarded"] += 1
        else:
            self._s.stats["forward_limited"] += 1

    # -- deciding --

    def check(self, seat: int) -> None:
        """Decide the drop of ``seat`` at the current step from the votes held (§C8.3)."""
        s = self._s
        k = s.step
        if not s.running:
            return
        if not s.spectator and not s.replaying:
            raw = s.seats.release(k, seat)  # rule (b): a quorum is held, our share goes out
            if raw is not None:
                if s.own_log is not None:
                    # Written ahead, as the vote, after the quorum's other votes: a restart holds
                    # the quorum again (no certificate, forwarded: rule (c), s12 #8).
                    for q in s.seats.own_votes(k):
                        if q != raw:
                            s.own_log.append_own(k, q)
                    s.own_log.append_own(k, raw)
                self._fx.send(raw)
            elif s.seats.quorum_at(k) == seat and seat != s.my_seat and self.may_vote():
                self.vote(seat)  # a held quorum and no vote of ours: we vote, then release
                return
        d = s.seats.decide(k, seat)
        if d is None:
            return
        if d == UNDECIDED:
            # A quorum whose shares we cannot use yet: the releases come with the voters' next
            # sends, the dealer's escrow with a catch-up answer (§C8.3).
            if s.catchup.may_request(s.now) and not s.replaying:
                self._fx.request_catchup()
            return
        if type(d) is tuple:
            # A voter's share that does not match the dealer's commitment: its vote no longer
            # counts; prove it to everyone and decide from the other votes (§C8.3, kind 5).
            liar, why, evidence = d
            self._fx.prove(liar, k, BAD_DROP_SHARE, why, evidence)
            self.check(seat)
            return
        self._fx.apply_drop(k, seat, d.votes, d.escrow, d.chain)

    def ingest_record(self, payload: bytes) -> str | None:
        """Apply a DROP log record (from our log or a catch-up) for our current step: every
        vote verified (signature, game, step, seat, epoch, share vs. escrow commitment).
        Returns None or why it was refused."""
        s = self._s
        try:
            step = s.step
            seat, votes, esc_raw, chain = s.seats.check_record(step, payload)
        except ValueError as e:
            return str(e)
        self._fx.apply_drop(step, seat, votes, esc_raw, chain)
        return None

    def certified(self, k: int) -> bool:
        """After we voted to drop a seat t at step ``k`` we apply ``k`` with all its messages
        only if no quorum against t can exist (protocol.md §C8.3): at least active - Q seats
        other than us and t are known never to vote against t at k in this epoch — they
        signed a step k+1 message whose prev digest covers exactly these messages (an honest
        seat that applied step k never votes at k; a voter signs one only after this check),
        or they cast their one vote of this step and epoch against another seat; or (H106) we
        hold their DROP vote of step k+1 in this epoch and their step-k message: they applied k
        without a drop and vote at k+1 only (a seat whose chance step k+1 waits on an escrow
        not confirmed, §C8.2, signs no k+1 message but votes the dealer out); this kind only where
        no turn can be skipped at k (the vote does not say whether k was applied with the seat's
        message or with its turn skipped, §C8.10; red team s12 #6). Never while we
        hold a quorum of k (``SeatLoss.quorum_at``): a colluder that completed it and then signed
        k+1 over the seat's message must not free the releasers (§C8.3 rule (c), item 3)."""
        s = self._s
        seats, active, n, me = s.seats, s.active, s.n, s.my_seat
        if seats.decided_at(k) is not None:
            return False  # a held quorum is the decision, never a certificate (version 5, rule (c))
        signed = set(s.steps.signers(k, s.skipping.skipped_seats(k)))
        # the voters of k+1 (targets(k + 1): voter -> the seat it voted against) whose k message we
        # hold; not at a step where a turn may be skipped: such a vote does not say whether its
        # voter applied k with the seat's message or skipped (§C8.10; red team s12 #6)
        if not s.skipping.skippable():
            signed.update(v for v in seats.targets(k + 1) if s.steps.held(k, v) is not None)
        targets = seats.targets(k)
        need = seats.active_count() - seats.quorum
        for t in range(n):
            if not (active[t] and seats.has_voted(k, t)):
                continue
            never = sum(1 for i in range(n) if i not in (me, t) and active[i]
                        and (i in signed or targets.get(i, t) != t))
            if never < need:
                return False
        return True
