"""Where the lockstep session's step advances (protocol.md §C3.1, §C3.4, §C3.5, §C8.3, §C8.9,
§C8.10): ``StepGate``, the session's position in the game and the gate that moves it.

The gate owns the position: the step we collect messages for, the engine state and its hash
before that step, the chance steps applied, the attestation step once the engine is terminal,
the phase (``RUNNING``, ``FINISHED``, ``HALTED``, ``ABANDONED``; module docstring of
``lockstep.py``) with the reason of a halt, and whether our own seat was dropped (we then
follow the game as a spectator). Nothing else writes them; ``LockstepSession`` shows them as
read-only properties to the node, the UI and the tests.

* ``advance``: the gate. Step k is applied once every awaited message (active seats, turns not
  skipped, §C8.10) is held over our own history (prev hash and digest, §C3.4), no digest
  dispute is open, no quorum of DROP votes of k is held (version 5: that drop is decided, its
  releases awaited), our DROP and SKIP votes of k are settled by a certificate (§C8.3, §C8.10),
  no held message passes its seat's step bound per turn (``SessionVotes.turn_gate``, §C8.3 'Own
  decision across steps'); then ``step_advance.StepAdvance`` resolves and records it and the
  gate commits it: the state, its hash, the hidden-information ledger (§C12), ``StepApplied``,
  step k+1, the seats whose players return (§C8.9), and, once the engine is terminal, one
  attestation round (§C3.5) that ``finish`` closes with ``GameOver``.
* ``waiting_for``: the seats whose message of the current step we still lack.
* ``begin``: entering a step (our message of it, ``own_step.OwnStep.begin``; the messages and
  votes that arrived early).
* ``apply_drop`` / ``readmit``: a decided drop (§C8.3) or a re-seat (§C8.9) at the current step.
* ``halt`` / ``end_abandoned``: the other ends of the game (§C3.4, §C8.7).

It reads the session through ``session_port.SessionView`` and acts on the other parts through
their public methods (our reveal: ``own_step.OwnStep.make_reveal``; our next vote:
``session_votes.SessionVotes.vote_cheaters``); it reports through the session's ``emit``. The
session hands the parts its ``halt``, ``advance``, ``apply_drop`` and ``end_abandoned``
effects (``session_port.Effects``). Moved out of ``lockstep.py`` (issue 13).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from .complaints import Proof
from .gamelog import KIND_ABANDON, KIND_DROP
from .hidden import hidden_secret
from .reseat import OffsetChain
from .seat_loss import drop_record
from .session_events import CheaterProven, GameAbandoned, GameOver, SeatDropped, SeatReturned, StepApplied
from .session_port import SessionView

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine

__all__ = ["ABANDONED", "FINISHED", "HALTED", "RUNNING", "StepGate"]

RUNNING = "running"
FINISHED = "finished"
HALTED = "halted"
ABANDONED = "abandoned"


class StepGate:
    """The session's position in the game and the gate that advances it (module docstring).

    ``engine``: the engine module (ARCHITECTURE.md §1); ``state``: the initial engine state;
    ``session``: read only; ``emit``: reports an event (``session_events``)."""

    def __init__(self, engine: Engine, state: Any, session: SessionView, emit: Callable[[Any], None]) -> None:
        self._engine = engine
        self._s = session
        self._emit = emit
        #: Step we are collecting messages for.
        self.step = 0
        #: The attestation step (protocol.md §C3.5) once the engine is terminal, else None.
        self.final_step: int | None = None
        #: Chance steps applied so far (the next one reveals chain value n - chance_count - 1).
        self.chance_count = 0
        #: The engine state before ``step``.
        self.state = state
        #: Engine state hash after step - 1 (32 bytes).
        self.state_hash: bytes = engine.state_hash(state)
        self.phase = RUNNING
        #: Why the session halted (an event), or None.
        self.halt_reason: Any = None
        #: True once our own seat was dropped: we follow the game, never send step messages.
        self.spectator = False

    def _awaited(self, skipped: Sequence[int]) -> list[bool]:
        """Per seat: its message is needed (active, its turn not skipped by a quorum, §C8.10)."""
        active = self._s.seats.active
        if not skipped:
            return active  # the usual case: no copy
        return [a and i not in skipped for i, a in enumerate(active)]

    def waiting_for(self) -> tuple[int, ...]:
        """Active seats whose message for the current step we do not hold yet (may include
        ours). Dropped seats are never waited for, nor seats whose turn a quorum skipped."""
        if self.phase != RUNNING:
            return ()
        return self._s.steps.missing(self.step, self._awaited(self._s.skipping.skipped_seats(self.step)))

    def halt(self, event: Any) -> None:
        """Stop the session with ``event`` (phase halted; it ignores all input from now on)."""
        self.phase = HALTED
        self.halt_reason = event
        self._emit(event)

    def end_abandoned(self, seat: int, raw: bytes, reason: str = "") -> None:
        """End the game as abandoned by ``seat`` with its signed ABANDON ``raw`` (§C8.7): log it
        as the last record, emit ``GameAbandoned`` (``reason``: ours, for our player; "")."""
        s = self._s
        if s.log is not None and not s.replaying:
            s.log.append_abandon(raw)
        s.catchup.record(KIND_ABANDON, raw, self.step)
        self.phase = ABANDONED
        s.live.stop_resend()
        self._emit(GameAbandoned(self.step, seat, self.state_hash, reason))

    def begin(self) -> None:
        """Enter step ``step``: the step's context and our message of it (``OwnStep.begin``),
        then check the messages and votes buffered for this step."""
        s = self._s
        if not s.own.begin(s.now):
            return
        s.inbox.refuse_unforced()  # buffered messages of a plain chance step: its rule (§C3.8)
        for i, h in enumerate(s.steps.slots(self.step)):
            # Every buffered message, not only up to the first that fails: one superseded
            # message must not leave a later seat's unchecked (§C8.3).
            if h is not None and i != s.my_seat and not s.referee.check_prev(h) and self.phase != RUNNING:
                return
        k = self.step
        for seat in s.seats.vote_targets(k):
            s.votes.check(seat)  # votes that arrived before we reached this step
            if self.step != k or self.phase != RUNNING:
                return
        s.votes.vote_cheaters()

    def advance(self) -> None:
        """Apply the current step, and the next ones, while they are complete (module
        docstring); the step waits otherwise (nothing changes)."""
        s = self._s
        me, steps = s.my_seat, s.steps
        while self.phase == RUNNING:
            k = self.step
            skipped = s.skipping.skipped_seats(k)
            for d in skipped:
                if steps.held(k, d) is not None:
                    steps.clear(k, d)  # a quorum skipped its turn: its message is not applied (§C8.10)
                    s.stats["superseded"] += 1
            if not steps.complete(k, self._awaited(skipped)) or s.referee.disputes.open is not None:
                return
            if s.seats.decided_at(k) is not None:
                return  # a held quorum decided a drop at k (in this or an earlier epoch, §C8.3 rule (c))
            if s.seats.voted_at(k) and not s.votes.certified(k):
                return  # we voted to drop a seat at k: the votes or a certificate decide
            if not s.skipping.promise_kept(k, skipped):
                return  # we voted to skip a seat whose message we hold: a certificate decides (§C8.10)
            if not s.votes.turn_gate(k, skipped):
                return  # a seat past its step bound per turn: our DROP vote decides (§C8.3)
            slots = steps.slots(k)
            digest = steps.prev_digest
            for i, h in enumerate(slots):
                if h is not None and i != me and (h.body.prev_hash != self.state_hash
                                                  or h.body.prev_digest != digest):
                    # Never apply a message signed over another history (§C3.4, §C8.3): judge
                    # the first such message first.
                    s.referee.check_prev(h)
                    return
            if k == self.final_step:
                self.finish(k, slots)
                return
            done = s.advance.resolve(k, slots, skipped)
            if done is None:
                return
            self._commit(k, slots, skipped, done)

    def _commit(self, k: int, slots: Sequence, skipped: Sequence[int], done: Any) -> None:
        """Step ``k`` resolved (``done``: ``step_advance.Applied``): move the position to k+1."""
        s, engine = self._s, self._engine
        state = done.state
        s.escrows.apply_acks(k, slots)  # step k's escrow acknowledgements (§C8.2)
        if done.kind == "chance":
            self.chance_count += 1
        hidden = s.hidden
        if hidden is not None:
            fields = [None if b is None else b.hidden for b in done.bodies]
            view = s.view
            if view is not None and not self.spectator:
                view.receive(k, fields)
            hidden.after_step(k, fields, state)
            if view is not None:
                view.refresh(state)
        self.state = state
        self.state_hash = engine.state_hash(state)
        s.advance.record(k, slots, skipped)
        self._emit(StepApplied(k, done.kind, done.events, self.state_hash))
        self.step = k + 1
        s.seats.forget_votes(k)
        s.skips.forget(k)
        # Seats whose players return from step k+1: decided by step k's bodies alone, so
        # every peer that applied k decides the same (§C8.9).
        terminal = engine.is_terminal(state)
        back = s.reseating.after_step(slots, done.kind == "sealed", terminal)
        for seat in sorted(back):
            self.readmit(seat, back[seat].chain_head)
        if terminal:
            self.final_step = k + 1  # one more round: every seat attests the end (§C3.5)
        self.begin()

    def finish(self, k: int, slots: Sequence) -> None:
        """Every active seat's attestation (step ``k`` = ``final_step``, §C3.5) is held and
        checked (prev hash = the final state hash, prev digest = the last step's digest): log
        them as the last record, emit ``GameOver``. An attestation with acks, an input, a hidden
        field or a re-seat field names its signer (``verify`` says the same) and is not applied:
        nothing is applied after the terminal state, so it vetoes nothing (§C3.5)."""
        s = self._s
        s.advance.attest(k, slots)
        s.advance.record(k, slots)
        self.step = k + 1
        self.phase = FINISHED
        s.live.stop_resend()
        self._emit(GameOver(self._engine.winner(self.state), self.state_hash, k))

    def readmit(self, seat: int, chain_head: bytes) -> None:
        """``seat`` is played by its player again from the current step (§C8.9,
        ``SessionReseat.readmit``): its previous reveal is ``chain_head``; if it is ours, we
        play again with our new chain. Then our escrow of the new epoch."""
        s = self._s
        chain = s.reseating.readmit(seat, chain_head)
        s.advance.new_head(seat, chain_head)
        if chain is not None:
            s.own.use_chain(chain)
            self.spectator = False
        self._emit(SeatReturned(self.step, seat))
        s.escrows.send()

    def apply_drop(self, k: int, seat: int, votes: list, esc_raw: bytes | None, chain: Any) -> None:
        """Apply the drop of ``seat`` decided at step ``k`` (§C8.3): ``votes`` the quorum's DROP
        envelopes, ``esc_raw`` the dealer's escrow or None, ``chain`` its reconstructed
        ``HashChain`` or None. Logs the DROP record, proves a bad escrow (§C8.8), re-signs our
        SKIP votes in the new epoch (§C8.10), then tries the step again."""
        s = self._s
        if seat == s.my_seat:
            self.spectator = True
        base = s.reseat.bases.get(seat)
        if chain is not None and base is not None:
            chain = OffsetChain(chain, base)  # a re-seated seat's chain starts after b chance steps (§C8.9)
        resign = s.skips.voted_against(k, s.epoch)  # our SKIP votes: re-signed in the new epoch
        info = s.seats.apply(k, seat, chain)
        s.steps.clear(k, seat)
        payload = drop_record(k, seat, votes, esc_raw)
        if s.log is not None and not s.replaying:
            s.log.append_drop(payload)
        s.catchup.record(KIND_DROP, payload, k)
        cheat = info.cheat
        if s.hidden is not None:
            unmade = s.hidden.drop(seat, None if chain is None else hidden_secret(chain.value(0)))
            cheat = cheat or unmade  # its recombined secret does not make its leaves (§C12.6)
        if cheat is not None:
            # The quorum's shares prove its escrow bad, or the secret they recombine proves its
            # hidden leaves made of another; the DROP record is the evidence (§C8.3, §C12.6).
            s.complaints.prove(Proof(seat, k, cheat, payload))
            self._emit(CheaterProven(k, seat, cheat, payload))
        self._emit(SeatDropped(k, seat, info.rule, chain is not None))
        s.escrows.send()
        if s.own.reveal_waiting and s.escrows.gate_open():
            s.own.make_reveal()
        for d in resign:  # the player asked once; the votes of the old epoch no longer count (§C8.10)
            if self.step == k and self.phase == RUNNING and not s.replaying and s.skipping.skippable() \
                    and s.skips.may_vote(k, d, s.seats.active, s.epoch, s.waiting_for()):
                s.skipping.vote(d)
        self.advance()
        if self.step == k and self.phase == RUNNING:
            s.votes.vote_cheaters()  # a new epoch at the same step: our next vote
