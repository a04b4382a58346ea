"""Seat loss: drop votes, the session's escrows and what a dropped seat contributes
(DESIGN.md §3 "a seat that withholds its reveal has left the game"; protocol.md §C8).

*Escrow*: the last seat to reveal at a chance step could withhold a reveal it dislikes, so a
withheld reveal is replaced by the very reveal the seat would have sent: every seat deals its
chain secret in Shamir shares (t = Q) to the other active seats (ESCROW, one per seat and epoch;
crypto in ``escrow.py``) and reveals only once it holds an escrow from every other active seat.
*Quorum*: a drop needs signed DROP votes of a strict majority of all the setup's seats, Q =
floor(N/2) + 1 (``quorum``): two majorities of one fixed set share a seat, so two sides of a
partition never both drop someone; a side without Q seats pauses.
*Open votes* (version 5, §C8.3 'Shares in votes that decide nothing'): a vote is open until its voter holds Q votes
against the seat at its current step (``release``: re-signed with its share, or the pairwise key of an entry that does
not open). A held quorum of this or an earlier epoch of the step is the decision (``decided_at``): no certificate, the
step waits, it goes with our re-sends. t released shares recombine s (SHA-256^n(s) = the chain head, every commitment
re-created): the dropped seat's real reveals; an escrow never confirmed gives the public stand-in ``dropped_reveal``, a
bad one the stand-in and a named cheat. The setup's rule and how a dropped seat is played (§C8.4) are ``drop_rules``;
here is the live state machine (§C8.6). Limits (§C8.5): any Q other seats can recombine a seat's chain (they could
already vote it out); with two seats nobody is dropped, no escrow while active - 1 < Q.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import const as C
from .beacon import HashChain
from .drop_info import Decision, DropInfo
from .drop_rules import RULE_BANKRUPT, RULE_BOT, drop_rule, dropped_input, turn_time
from .escrow_acks import AckLedger, EscrowAck, escrow_hash
# The DROP record is built and checked in escrow.py; lockstep and verify import it from here too.
from .escrow import (BAD_ENTRY, BAD_VOTE_SHARE, UNDECIDED, check_drop_record, drop_record, dropped_reveal,  # noqa: F401
                     key_proves_bad, make_escrow, open_share, pair_key, past_drop, quorum, recover_chain,
                     released)
from .identity import Identity
from .session_events import CheatDetected, Equivocation, PeerMisbehaved
from .vote_slots import SlotVotes
from .wire import MSG_DROP, DropVote, Escrow, Setup, decode_escrow, open_envelope, seal_message

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine


class SeatLoss:
    """Seat loss of one session (protocol.md §C8, state machine in §C8.6): which seats are
    active, the escrows and shares of the current epoch, the drop votes held and cast.

    ``setup``: the signed setup; ``my_seat``; ``identity``: ours; ``secret``: our chain secret
    h_0 (what we escrow); ``engine``: to know whether the ``bankrupt`` rule can be applied.
    Signatures of ESCROW and DROP messages are checked here; the session routes messages by
    step and turns the returned events into its phase.
    """

    def __init__(self, setup: Setup, my_seat: int, identity: Identity, secret: bytes, engine: Engine) -> None:
        self.setup = setup
        self.n = setup.seats
        self.my_seat = my_seat
        self._identity = identity
        self._secret = secret
        self._keys = [p.public_key for p in setup.players]
        self._xkeys = [p.x25519_key for p in setup.players]
        opts = setup.options_dict()
        #: Rule ("bot", "bankrupt") or None when seat loss is off; drop timeout (s).
        self.rule, self.drop_timeout = drop_rule(opts)
        #: Seconds an alive seat may think at one step before we vote it out; 0.0 = unlimited.
        self.turn_time = turn_time(opts)
        self._can_retire = getattr(engine, "retire_seat", None) is not None
        #: active[i]: seat i still sends messages (not dropped).
        self.active = [True] * self.n
        #: Dropped seats: seat -> DropInfo.
        self.dropped: dict[int, DropInfo] = {}
        #: Number of drops so far: the epoch of escrows and votes.
        self.epoch = 0
        self._escrows: dict[int, tuple[Escrow, bytes]] = {}
        self._shares: dict[int, bytes] = {}
        #: Dealer -> our pairwise key of its entry that does not open (what we release instead
        #: of a share, version 5, §C8.3 rule (a)).
        self._bad_keys: dict[int, bytes] = {}
        self._votes: dict[tuple[int, int], dict[int, tuple[DropVote, bytes]]] = {}
        self._voted: set[tuple[int, int]] = set()
        #: (step, epoch, voter) whose false share ``decide`` reported.
        self._liars: set[tuple[int, int, int]] = set()
        #: (step, seat) -> why the votes or record deciding that drop prove its escrow bad.
        self._cheats: dict[tuple[int, int], str] = {}
        #: The escrow acknowledgements of the applied STEPs (§C8.2): which escrow is CONFIRMED.
        self.acks = AckLedger(self.n)
        self.acks.open_epoch(0, self.active)
        # Q depends on the setup's seat count alone: computed once, not at every query (the
        # escrow and vote gates ask several times per step and message, issue 14).
        self._quorum = quorum(self.n)
        #: Every verified vote by slot, across the epochs of a step (``bound_at``, s12b #2).
        self.slots = SlotVotes(self.n, self._quorum)

    # -- queries --

    @property
    def on(self) -> bool:
        """True if the setup turned seat loss on (``p2p.on_drop`` option)."""
        return self.rule is not None

    def active_count(self) -> int:
        """Seats not dropped."""
        return sum(self.active)

    @property
    def quorum(self) -> int:
        """Votes that drop a seat: a strict majority of all the setup's seats (§C8.3)."""
        return self._quorum

    def escrow_needed(self) -> bool:
        """True if the active seats deal escrows: seat loss on and a drop still possible (at
        least Q other active seats can vote; with two seats never, §C8.5)."""
        return self.rule is not None and sum(self.active) - 1 >= self._quorum

    def escrows_complete(self, revealed: Collection[int] = ()) -> bool:
        """True if no escrow is needed or we hold the current epoch's escrow of every active
        seat (ours included), except of the seats in ``revealed`` (whose message of this step
        we hold: they withhold nothing at this step): the gate before a reveal (§C8.2)."""
        if not self.escrow_needed():
            return True
        return all(i in self._escrows or i in revealed for i in range(self.n) if self.active[i])

    def escrow_of(self, dealer: int) -> bytes | None:
        """``dealer``'s ESCROW envelope of the current epoch that we hold, or None."""
        held = self._escrows.get(dealer)
        return None if held is None else held[1]

    def owed_acks(self) -> tuple:
        """Our STEP's 9th field (§C8.2): an ``EscrowAck`` for each escrow of the current epoch we
        hold and have not acknowledged in an applied STEP yet, ascending by dealer."""
        out = []
        for d in self.acks.unacked(self.my_seat, self.epoch, self.active):
            raw = self.escrow_of(d)
            if raw is not None:
                out.append(EscrowAck(d, self.epoch, escrow_hash(raw)))
        return tuple(out)

    def escrow_raws(self) -> list[bytes]:
        """The current epoch's ESCROW envelopes we hold (for a catch-up answer)."""
        return [raw for _, raw in self._escrows.values()]

    def has_voted(self, step: int, seat: int) -> bool:
        """True if we signed DROP(step, seat)."""
        return (step, seat) in self._voted

    def voted_this_epoch(self, step: int) -> bool:
        """True if we already cast our one vote of ``step`` in the current epoch (§C8.3: one
        vote per step and epoch, so two quorums of one epoch can never drop different seats)."""
        voted = self._voted
        return bool(voted) and any(s == step for (s, _) in voted)  # usually none: no scan

    def voted_at(self, step: int) -> bool:
        """True if we voted to drop some active seat at ``step`` (then only the votes or a
        complete record decide that step, §C8.3)."""
        voted = self._voted
        return bool(voted) and any((step, i) in voted for i, a in enumerate(self.active) if a)

    def vote_targets(self, step: int) -> list[int]:
        """Seats for which we hold a vote at ``step`` (in arrival order)."""
        votes = self._votes
        return [seat for (s, seat) in votes if s == step] if votes else []

    # -- escrow --

    def own_escrow(self, spectator: bool) -> tuple[bytes | None, bool]:
        """Our ESCROW envelope of the current epoch, or None if none is dealt (not needed, or
        we are dropped/a spectator); second item True if it was made by this call (made once
        per epoch, deterministic)."""
        if not self.escrow_needed() or spectator or not self.active[self.my_seat]:
            return None, False
        mine = self._escrows.get(self.my_seat)
        if mine is not None:
            return mine[1], False
        recipients = [i for i in range(self.n) if self.active[i] and i != self.my_seat]
        raw = make_escrow(self._identity, self._secret, self.setup.game_id, self.my_seat, self.epoch,
                          recipients, self._xkeys, self.quorum)
        self._escrows[self.my_seat] = (decode_escrow(open_envelope(raw, C.MAX_STEP_MSG).body), raw)
        return raw, True

    def receive_escrow(self, env: Any, e: Escrow, step: int, spectator: bool) -> tuple[str, Any]:
        """Take another seat's ESCROW (§C8.2). Returns (outcome, event): "ignored",
        "bad_seat", "bad_signature" (event ``PeerMisbehaved``), "known" (a duplicate),
        "halt" (event ``Equivocation`` or ``CheatDetected``: provable from the signed escrows
        alone), "bad_share" (held, but our share does not open: ``CheatDetected``), or "held"
        (event None)."""
        if not self.on or e.epoch != self.epoch or e.seat >= self.n or not self.active[e.seat]:
            return "ignored", None
        if e.seat == self.my_seat:
            return "bad_seat", None
        old = self._escrows.get(e.seat)
        if old is not None:
            if old[1] != env.raw and env.verify(self._keys[e.seat]):
                return "halt", Equivocation(-1, e.seat, old[1], env.raw)
            return "known", None
        if not env.verify(self._keys[e.seat]):
            return "bad_signature", PeerMisbehaved(e.seat, step, "bad signature", env.raw)
        want = [i for i in range(self.n) if self.active[i] and i != e.seat]
        if [x.to for x in e.entries] != want:
            return "halt", CheatDetected(step, e.seat, "escrow not dealt to every other active seat", env.raw)
        bad = None
        if not spectator:
            share = open_share(self._identity, e, self.my_seat, self._xkeys[e.seat])
            if share is None:
                # Signed by the dealer yet our share does not open: the dealer cheated. The
                # escrow is still held (the gate must not wait forever for a cheater's); the
                # session proves it with our pairwise key (COMPLAINT, §C8.8) only if that key
                # decrypts the entry (key_proves_bad): sealed under another key it proves nothing.
                bad = CheatDetected(step, e.seat, BAD_ENTRY, env.raw)
                key = self.share_key(e.seat)
                if key_proves_bad(e, self.my_seat, key):
                    self._bad_keys[e.seat] = key  # released instead of a share (§C8.3 rule (a))
            else:
                self._shares[e.seat] = share
        self._escrows[e.seat] = (e, env.raw)
        return ("bad_share", bad) if bad is not None else ("held", None)

    def share_key(self, dealer: int) -> bytes:
        """Our pairwise key of ``dealer``'s share to us in the current epoch (``pair_key``),
        published in a bad-escrow complaint (it opens that one share only)."""
        return pair_key(self._identity, self._xkeys[dealer], self.setup.game_id, dealer, self.my_seat, self.epoch)

    def bad_key(self, dealer: int) -> bytes | None:
        """Our pairwise key (32 bytes) of ``dealer``'s entry of the current epoch if it proves that
        entry bad (``receive_escrow`` decided it once, ``key_proves_bad``): what a COMPLAINT kind 3
        and our released vote carry (§C8.3 rule (a), §C8.8); None if we hold no such key."""
        return self._bad_keys.get(dealer)

    def drop_possible(self) -> bool:
        """True if seat loss is on and Q other active seats could still vote a seat out."""
        return self.escrow_needed()

    # -- votes --

    def vote(self, step: int, seat: int) -> bytes:
        """Sign our open DROP(step, seat) vote (no share, version 5: ``release`` adds it once a
        quorum is held, §C8.3 rule (b)), keep it and return the envelope to broadcast."""
        self._voted.add((step, seat))
        v = DropVote(self.setup.game_id, self.my_seat, step, seat, self.epoch, None)
        raw = seal_message(self._identity, MSG_DROP, v)
        self._votes.setdefault((step, seat), {})[self.my_seat] = (v, raw)
        self.slots.add(v, raw)
        return raw

    def release(self, step: int, seat: int) -> bytes | None:
        """Our vote of (``step``, ``seat``) re-signed released (§C8.3 rule (b)): with our share of
        ``seat`` (or our key of its entry that does not open, rule (a)), once we hold votes of
        (step, seat, epoch), open or released, from Q distinct active seats other than ``seat``,
        ours included (``quorum_at``). The caller asks only at its current step (a stale quorum
        never releases). None if not due: no open vote of ours there, no quorum, nothing to
        release (no escrow dealt, or an entry no key of ours shows bad: the vote stays open)."""
        mine = self._votes.get((step, seat), {}).get(self.my_seat)
        if mine is None or released(mine[0]) or mine[0].epoch != self.epoch or self.quorum_at(step) != seat:
            return None
        share = self._shares.get(seat, self._bad_keys.get(seat)) if self.escrow_needed() else None
        if share is None:
            return None
        v = mine[0]._replace(share=share)
        raw = seal_message(self._identity, MSG_DROP, v)
        self._votes[(step, seat)][self.my_seat] = (v, raw)
        self.slots.add(v, raw)
        return raw

    def quorum_at(self, step: int) -> int | None:
        """The active seat against which we hold DROP votes of ``step`` in the current epoch,
        open or released, from Q distinct active seats other than it (version 5: the drop is
        decided, §C8.3 rule (c): no certificate, wait for the releases), or None."""
        for (s, t), held in self._votes.items():
            if s == step and self.active[t] and len(held) >= self._quorum \
                    and sum(self.active[i] and v.epoch == self.epoch for i, (v, _) in held.items()) >= self._quorum:
                return t
        return None

    def adopt_vote(self, env: Any, v: DropVote) -> bool:
        """Take back our own vote ``v`` (from the own-message log after a restart) if it is of
        the current epoch: we then never sign another vote of that step and epoch (§C8.3)."""
        if v.voter != self.my_seat or not env.verify(self._keys[self.my_seat]):
            return False
        self.slots.add(v, env.raw)  # of an earlier epoch of this step too: it may bind (``bound_at``)
        if v.epoch != self.epoch or not self.active[v.seat]:
            return False
        self._voted.add((v.step, v.seat))
        held = self._votes.setdefault((v.step, v.seat), {})
        if not (v.share is None and self.my_seat in held and released(held[self.my_seat][0])):
            held[self.my_seat] = (v, env.raw)  # our released vote replaces our open one, never back
        return True

    def verify_vote(self, env: Any, v: DropVote) -> bool:
        """True if the voter's signature on ``env`` verifies."""
        return env.verify(self._keys[v.voter])

    def add_vote(self, env: Any, v: DropVote) -> bytes | None:
        """Keep a verified vote (a vote of a later epoch replaces the voter's older one: after
        a drop at this step everyone votes again, §C8.3). Returns the voter's other vote of the
        same step and epoch if it differs (equivocation: another target, or two released
        versions that differ), else None. An open vote and the same voter's released vote of one
        seat are one vote (version 5, §C8.3 rule (a)): the released one is kept. Every verified
        vote also goes to ``slots`` (an equivocator's second one included: ``bound_at``)."""
        self.slots.add(v, env.raw)
        for (s, t), held in self._votes.items():
            other = held.get(v.voter)
            if s == v.step and t != v.seat and other is not None and other[0].epoch == v.epoch:
                return other[1]  # one vote per step and epoch: a second target is equivocation
        votes = self._votes.setdefault((v.step, v.seat), {})
        old = votes.get(v.voter)
        if old is not None and old[0].epoch == v.epoch and released(old[0]) != released(v):
            if released(v):
                votes[v.voter] = (v, env.raw)  # the release of an open vote
            return None
        if old is not None and old[0].epoch >= v.epoch:
            return old[1] if old[1] != env.raw and old[0].epoch == v.epoch else None
        votes[v.voter] = (v, env.raw)
        return None

    def own_votes(self, step: int) -> list[bytes]:
        """Our DROP envelopes of ``step`` in the current epoch (re-sent with our step message,
        and after a restart), then, once we hold a quorum (``quorum_at``), its other votes: a
        peer that applied the step on a fooled certificate rolls back on them (§C8.3 rule (c))."""
        out = [held[self.my_seat][1] for (s, _), held in self._votes.items()
               if s == step and self.my_seat in held and held[self.my_seat][0].epoch == self.epoch]
        t = self.quorum_at(step)
        if t is not None:
            out += [raw for i, (v, raw) in sorted(self._votes[(step, t)].items())
                    if i != self.my_seat and v.epoch == self.epoch]
        return out + self.slots.bound_votes(step, self.epoch, self.active, out)  # s12b #2

    def bound_at(self, step: int) -> int | None:
        """The seat whose drop a quorum of an EARLIER epoch of ``step`` decided (``SlotVotes.bound``)."""
        return self.slots.bound(step, self.epoch, self.active)

    def decided_at(self, step: int) -> int | None:
        """The seat a held quorum of ``step`` decided to drop, this epoch's or an earlier's, or None (§C8.3 (c))."""
        seat = self.quorum_at(step)
        return self.bound_at(step) if seat is None else seat

    def targets(self, step: int) -> dict[int, int]:
        """voter -> the seat it voted against at ``step`` in the current epoch (votes held)."""
        out: dict[int, int] = {}
        for (s, t), held in self._votes.items():
            if s == step:
                for voter, (v, _) in held.items():
                    if v.epoch == self.epoch:
                        out[voter] = t
        return out

    @staticmethod
    def own_drop_counts(k: int, step: int) -> bool:
        """True if a quorum of DROP(``k``, our seat) found at our current ``step`` (> ``k``: we
        applied ``k`` with our own message) still makes us halt ``SeatLost(k)``: ``k`` >= ``step``
        - ``KEEP_STEPS``. Older, no active peer keeps ``k`` any more (a peer at step s keeps
        s - ``KEEP_STEPS`` + 1 on, and every active peer is at ``step`` - 1 or later), so none can
        overturn it and the quorum (stale honest votes plus later ones, H94) decided nothing
        (protocol.md §C8.3 'Stale votes'). The one rule of the live votes
        (``SessionVotes.receive``) and of a DROP record (``RecordIngest.check_past_drop``)."""
        return k >= step - C.KEEP_STEPS

    def has_quorum(self, step: int, seat: int) -> bool:
        """True if we hold votes DROP(step, seat) of at least Q seats (§C8.3)."""
        return len(self._votes.get((step, seat), {})) >= self.quorum

    def decide(self, step: int, seat: int) -> Decision | tuple | str | None:
        """The drop of ``seat`` at ``step`` if the votes suffice (§C8.3): a ``Decision`` (votes:
        the Q deciding voters', ``recover_chain``; chain None and ``cheat`` set when the shares or
        m - t + 1 released keys prove the seat's escrow bad: dropped all the same, stand-in reveals);
        (voter, reason, [its DROP envelope, the ESCROW envelope]) once for each voter whose
        share does not match the commitment (its vote no longer counts; the caller proves it
        with a kind-5 complaint, §C8.8);
        ``UNDECIDED`` when a quorum is held but its shares decide nothing yet; None while
        fewer than Q votes of this epoch count."""
        if not self.active[seat]:
            return None
        votes = self._votes.get((step, seat), {})
        voters = sorted(i for i, (v, _) in votes.items() if self.active[i] and i != seat and v.epoch == self.epoch)
        if len(voters) < self.quorum:
            return None
        # Only the CONFIRMED escrow counts (§C8.2): another copy (an equivocating dealer's) or
        # none at all is never used to judge a voter's share.
        status = self.acks.status(seat, self.epoch)
        confirmed = isinstance(status, bytes)
        esc = self._escrows.get(seat)
        if esc is not None and (not confirmed or escrow_hash(esc[1]) != status):
            esc = None
        r = recover_chain(self.setup, esc[0] if esc else None, [votes[i][0] for i in voters],
                          self.active_count() - 1, confirmed)
        for liar in r.liars:
            if (step, self.epoch, liar) not in self._liars:
                self._liars.add((step, self.epoch, liar))
                return liar, BAD_VOTE_SHARE, [votes[liar][1], esc[1]]
        if r.chain is UNDECIDED:
            return None if len(voters) - len(r.liars) < self.quorum else UNDECIDED
        if r.cheat is not None:
            self._cheats[(step, seat)] = r.cheat  # for apply(): this drop proves a bad escrow
        return Decision([votes[i][1] for i in r.used], esc[1] if esc else None, r.chain, r.cheat)

    def past_drop(self, payload: bytes, applied: int) -> tuple[int, int] | None:
        """If ``payload`` (a DROP log record from a catch-up) drops a seat at a step before
        ``applied`` (our current step) with Q valid signed votes of distinct other seats:
        (step, seat); else None (``escrow.past_drop``). The caller knows whether it applied that
        step with that seat's message (§C8.3: ``SeatLost``, ``StepOverturned``)."""
        return past_drop(self.setup, payload, applied)

    def check_record(self, step: int, payload: bytes) -> tuple:
        """Verify a DROP log record for ``step`` (``check_drop_record``): (seat, votes, escrow
        raw, chain or None); raises ValueError."""
        rec = check_drop_record(self.setup, self.active, self.epoch, step, payload, self.acks)
        if rec.cheat is not None:
            self._cheats[(step, rec.seat)] = rec.cheat  # for apply(): this drop proves a bad escrow
        return rec.seat, rec.votes, rec.escrow, rec.chain

    def forget_votes(self, upto: int) -> None:
        """Forget the votes of steps <= ``upto`` (applied), except those against our own seat
        (they tell us when our seat was dropped at a step we applied, ``SeatLost``)."""
        for key in [key for key in self._votes if key[0] <= upto and key[1] != self.my_seat]:
            del self._votes[key]
        self.slots.forget(upto)

    def clear_votes(self) -> None:
        """Forget every vote held and cast (fuzzing: a fresh start of the vote bookkeeping)."""
        self._votes.clear()
        self._voted.clear()
        self.slots.clear()

    # -- drop --

    def returnable(self) -> dict[int, int]:
        """Dropped seats that may be re-seated (protocol.md §C8.9) -> the step of their drop:
        those played by the ``bot`` rule whose drop did not prove a bad escrow (§C8.5: the seat
        paid for its one bit of choice with its seat for good). Deterministic: every peer and
        ``verify`` hold the same drop records."""
        dropped = self.dropped
        if not dropped:
            return {}  # the usual case (asked at every step): a new empty dict, as below
        return {seat: info.step for seat, info in dropped.items()
                if info.rule != RULE_BANKRUPT and info.cheat is None}

    def apply(self, step: int, seat: int, chain: HashChain | None) -> DropInfo:
        """``seat`` is dropped from ``step`` on: it becomes inactive, the epoch increases and
        the escrows and shares of the old epoch are forgotten. Returns its DropInfo (the
        ``bankrupt`` rule falls back to ``bot`` when the engine cannot retire a seat, §C8.4)."""
        rule = self.rule or RULE_BOT
        if rule == RULE_BANKRUPT and not self._can_retire:
            rule = RULE_BOT
        info = self.dropped[seat] = DropInfo(step, rule, chain, self._cheats.pop((step, seat), None))
        self.active[seat] = False
        self.epoch += 1
        self.acks.open_epoch(self.epoch, self.active)
        self.slots.epoch_began(self.epoch, self.active)
        self._escrows, self._shares, self._bad_keys = {}, {}, {}
        # Our votes of this step were of the old epoch and no longer count: we vote again (at
        # once) for seats still missing, so two seats lost at one step are both dropped (§C8.3).
        self._voted = {(s, t) for (s, t) in self._voted if s != step}
        return info

    def readmit(self, seat: int, chain_head: bytes, secret: bytes | None = None) -> None:
        """``seat`` plays again from the next step (re-seated, protocol.md §C8.9): active, no
        longer dropped, a new epoch (the old epoch's escrows and shares no longer count; every
        active seat deals again), and ``chain_head`` is its chain head from now on (what a later
        recombination of its new chain is checked against). ``secret``: our new chain secret
        when the seat is ours (our next escrows deal it). The caller offsets the new chain's
        reveals (``reseat.OffsetChain``)."""
        del self.dropped[seat]
        self.active[seat] = True
        self.epoch += 1
        self.acks.open_epoch(self.epoch, self.active)
        self.slots.epoch_began(self.epoch, self.active)
        self._escrows, self._shares, self._bad_keys = {}, {}, {}
        players = list(self.setup.players)
        players[seat] = players[seat]._replace(chain_head=chain_head)
        self.setup = self.setup._replace(players=tuple(players))
        if seat == self.my_seat and secret is not None:
            self._secret = secret

    def fill(self, chance_index: int, chance: bool, inspection: bool, bot: Any, state: Any) -> dict[int, Any]:
        """Inputs of the dropped seats for a step (protocol.md §C8.4): ``chance_index`` j of
        the next chance step, ``chance``/``inspection``: the step's kind."""
        fill: dict[int, Any] = {}
        for seat, info in self.dropped.items():
            if inspection:
                fill[seat] = None  # its shares come from the ledger (protocol.md §C12.6)
            elif chance:
                fill[seat] = info.chain.reveal_at(chance_index) if info.chain is not None \
                    else dropped_reveal(self.setup.game_id, seat, chance_index)
            elif info.rule == RULE_BOT:
                fill[seat] = dropped_input(bot, state, seat, self.dropped)
            else:
                fill[seat] = None
        return fill
