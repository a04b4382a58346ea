"""Resolving and recording a complete step for the session (protocol.md §C3.1, §C3.5, §C8.2,
§C8.8, §C8.10, §C12, §C13.3): ``StepAdvance``.

Once the session holds every awaited message of its current step k over its own history (the
gate is ``step_gate.StepGate.advance``), this part:

* ``resolve``: fills the seats that send nothing (a dropped seat's bot or stand-in reveal, a
  skipped seat's nil or public default), opens sealed decisions (§C13.3), checks the reveals
  and hidden fields and applies the step through the engine (``step_resolve``); a signed bad
  message is proven (§C8.8: COMPLAINT, vote, or halt) and the step waits; the seats dropped at
  k by the bankrupt rule retire;
* ``record``: logs step k's messages (after a kind-6 record per skipped seat), keeps them for
  catch-up and takes the step's digest;
* ``attest``: at the attestation round (§C3.5) names a seat whose attestation carries a field,
  which vetoes nothing.

It owns the bot that plays dropped and skipped seats and every seat's last hash-chain reveal
(``last_reveals``, updated in place by ``step_resolve``). It reads the session through
``session_port.SessionView`` and acts through ``session_port.Effects``. Moved out of
``lockstep.py`` (issue 13).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

from .complaints import BAD_STEP
from .drop_rules import RULE_BANKRUPT
from .gamelog import KIND_SKIP, KIND_STEP, step_payload
from .schema import EVIDENCE_PAIR, EvidencePair
from .sealed import COMMIT
from .session_events import CheatDetected, PeerMisbehaved, TurnSkipped
from .session_port import Effects, SessionView
from .step_resolve import resolve_hidden, resolve_step
from .turn_skip import skip_input
from .wire import Setup

__all__ = ["Applied", "StepAdvance"]


class Applied(NamedTuple):
    """A resolved step: the engine state after it, its engine events, its kind for
    ``StepApplied`` ("inspection", "escrow", "chance", "sealed", "decision") and the bodies
    applied (sealed openings in place of commitments)."""

    state: Any
    events: tuple
    kind: str
    bodies: list


class StepAdvance:
    """Resolve and record the session's complete steps (module docstring).

    ``setup``: the signed setup (the seats' committed chain heads); ``game_seed``: 32 bytes;
    ``bot``: ``(state, seat) -> action | None`` for dropped and skipped seats; ``session``: read
    only; ``effects``: what we do to it."""

    def __init__(self, setup: Setup, game_seed: bytes, bot: Any, session: SessionView, effects: Effects) -> None:
        self._seed = game_seed
        self._bot = bot
        self._s = session
        self._fx = effects
        #: Per seat, its last hash-chain reveal (its committed head before any), 32 bytes.
        self.last_reveals = [p.chain_head for p in setup.players]

    def new_head(self, seat: int, chain_head: bytes) -> None:
        """``seat`` plays on with a new chain whose head is ``chain_head`` (re-seated, §C8.9)."""
        self.last_reveals[seat] = chain_head

    def resolve(self, k: int, slots: Sequence, skipped: Sequence[int]) -> Applied | None:
        """Apply step ``k`` (the session's current step; ``slots``: the held messages, complete
        and over our history; ``skipped``: seats whose turn a quorum skipped) to the session's
        state. Returns None if a message proves its seat cheated (proven, the step waits)."""
        s, fx = self._s, self._fx
        engine, state, own = s.engine, s.state, s.own
        pending, inspection, escrow = own.pending, own.inspection is not None, own.escrow_round
        fill = s.seats.fill(s.chance_count + 1, pending.chance, inspection, self._bot, state)
        # Dropped at this open step or its commit step: nil, no third option (§C13.4, version 6).
        if s.dropped:  # else no mapping to build, every step
            s.sealed.withdraw_drops(k, fill, {d: info.step for d, info in s.dropped.items()})
        for d in skipped:  # nil, or its public default at a decision of its own (§C8.10)
            fill[d] = skip_input(engine, self._bot, state, d)
        bodies = [None if h is None else h.body for h in slots]
        sealed = s.sealed.resolve(engine, k, bodies, [None if h is None else h.env.raw for h in slots])
        if sealed.fault is not None:
            seat, reason = sealed.fault
            # §C13.3: every peer sees it in the same messages; evidence: its commit and open STEPs.
            pair = EvidencePair(s.sealed.evidence(seat) or b"", slots[seat].env.raw)
            fx.prove(seat, k, BAD_STEP, reason, [slots[seat].env.raw],
                     halt=CheatDetected(k, seat, reason, EVIDENCE_PAIR.encode(pair)))
            return None
        bodies = sealed.bodies
        if s.hidden is not None:
            bad, res = resolve_hidden(sealed.engine, s.hidden, state, pending.chance, own.inspection, self._seed, k,
                                      bodies, self.last_reveals, fill, escrow)
            if bad is not None:
                # Proven like any signed bad message (§C8.8 kind 4, the witness's STEP is the
                # evidence): voted out, the step waits for its drop; without a possible drop the
                # session logs the step's messages and halts with CheatDetected.
                s.referee.hidden_fault(k, slots, bad)
                return None
        else:
            res = resolve_step(sealed.engine, state, pending.chance, self._seed, k, bodies, self.last_reveals, fill,
                               escrow)
        if res.fatal is not None:
            seat, reason = res.fatal
            # Its signed message proves it (§C8.8): tell everyone, vote it out, wait for the
            # drop (or for a record with another, valid message of it: equivocation).
            fx.prove(seat, k, BAD_STEP, reason, [slots[seat].env.raw],
                     halt=CheatDetected(k, seat, reason, slots[seat].env.raw))
            return None
        for seat, reason in sealed.problems + res.problems:
            fx.emit(PeerMisbehaved(seat, k, reason, slots[seat].env.raw))
        state, events = res.state, res.events
        for seat, info in sorted(s.dropped.items()):
            if info.step == k and info.rule == RULE_BANKRUPT:
                state, more = engine.retire_seat(state, seat)
                events = events + tuple(more)
        kind = "inspection" if inspection else "escrow" if escrow else "chance" if pending.chance else \
            "sealed" if s.sealed.phase == COMMIT else "decision"
        return Applied(state, events, kind, bodies)

    def record(self, k: int, slots: Sequence, skipped: Sequence[int] = ()) -> None:
        """Log step ``k``'s messages (after a kind-6 record per seat whose turn was skipped,
        §C8.10), keep the records for catch-up, and take its digest."""
        s = self._s
        log = None if s.replaying else s.log
        for d in skipped:
            cert = s.skips.certificate(k, d, s.seats.active, s.epoch) or []
            payload = s.skips.mark_skipped(k, d, cert)
            if log is not None:
                log.append_skip(payload)
            s.catchup.record(KIND_SKIP, payload, k)
            self._fx.emit(TurnSkipped(k, d, len(cert), s.skips.quorum))
        raws = [None if h is None else h.env.raw for h in slots]
        payload = step_payload(k, raws)  # encoded once, for the log and the history (§C6)
        if log is not None:
            log.append_step(k, raws, payload)
        s.catchup.record(KIND_STEP, payload, k)
        s.steps.applied(k, skipped)

    def attest(self, k: int, slots: Sequence) -> None:
        """Step ``k`` is the attestation round (§C3.5) and complete: an attestation with acks, an
        input, a hidden field or a re-seat field names its signer (``verify`` says the same) and
        is not applied: nothing is applied after the terminal state, so it vetoes nothing."""
        for i, h in enumerate(slots):
            if h is not None and h.body.acks:
                # Signed by it, seen by every peer and verify alike: named, but it vetoes nothing
                # (the acks of the attestation are not applied, §C3.5, §C8.2).
                self._fx.history_proof(k, i, "acknowledged escrows in its final attestation")
            if h is not None and (h.body.input is not None or h.body.hidden is not None or h.body.reseat):
                # Same: the signer is named, the field ignored (it was a halt: one loser's
                # datagram vetoed the result of a finished game, issue 10).
                self._fx.history_proof(k, i, "final attestation carries an input")
