"""The lockstep session's inbox (protocol.md §C1, §C3.4, §C8.8, §C9.3): ``SessionInbox``.

Every envelope a peer sends the session comes through ``receive``: opened and decoded
(``wire.open_envelope`` and the type's schema), checked to be of this game, then handed to
the part that owns its type (the routing table, built from the session's parts when the
inbox is made, after them: ESCROW to ``escrow_gate``, DROP to ``session_votes``, CATCHUP_* and
HINT to ``catchup_session``, ALIVE to ``session_timers``, ABANDON to ``abandon``, COMPLAINT to
``referee``, SKIP to ``turn_skip``, RESEAT to ``reseat_session``). STEP messages are admitted here
(``_on_step``): the bytes of one refused after its verify are dropped first (``step_collect``,
§C3.4 'Refused messages'), a duplicate is answered with ours (the sender is stuck), a message of an old
step gets ours or a HINT, one too far ahead notes that seat ahead (a catch-up trigger), a
dropped seat's late one is ignored; every other one has its signature verified on receipt,
whatever channel brought it (§C3.4) — except a seat's forced body at our current plain chance
step, taken unchecked (§C3.8, ``forced``) —, is held (``step_collect``), checked against our
history (``referee.Referee.check_prev``) and may complete the step (``step_gate``). A signed
message of that step over our history with more than the forced body's fields is refused
(counted ``not_forced``). Two signed messages of one seat for one step over one history are proof of
equivocation (§C8.8); a held message is checked again before it serves as such evidence (it may
be a forced body taken unchecked). A message of the next step whose signature fails is dropped,
but if it came on its own seat's keyed channel (``via``) its prev digest is kept as an attestation
that counts in our certificate (§C8.3 'A voter's promise', F1: ``StepCollector.attest``).

Bad bytes and bad signatures never change anything (but an attestation, above): they are dropped and counted in the
session's ``stats`` (bad signatures also reported as ``PeerMisbehaved``). The inbox owns the
routing table and the seats' public keys; it reads the session through
``session_port.SessionView`` and acts through ``session_port.Effects``. Moved out of
``lockstep.py`` (issue 13).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from . import const as C
from .complaints import EQUIVOCATION, same_history
from .errors import WireError
from .forced import is_forced, other_fields
from .session_events import Equivocation, PeerMisbehaved
from .session_port import Effects, SessionView
from .step_collect import Held
from .step_gate import FINISHED, HALTED, RUNNING
from .wire import (MSG_ABANDON, MSG_ALIVE, MSG_CATCHUP_REQ, MSG_CATCHUP_RESP, MSG_COMPLAINT, MSG_DROP, MSG_ESCROW,
                   MSG_HINT, MSG_RESEAT, MSG_SKIP, MSG_STEP, Envelope, StepBody, decode_abandon, decode_alive,
                   decode_catchup_req, decode_catchup_resp, decode_complaint, decode_drop, decode_escrow, decode_hint,
                   decode_reseat, decode_skip, decode_step_body, open_envelope)

__all__ = ["SessionInbox"]

#: A non-STEP message type's (body decoder, handler(envelope, body, now)).
Route = tuple[Callable[[bytes], Any], Callable[[Envelope, Any, float], None]]


class SessionInbox:
    """Open, check and route the session's incoming envelopes; admit STEP messages (module
    docstring).

    ``pubkeys``: the seats' Ed25519 public keys (32 bytes each, seat order); ``session``: read
    only, with every part the routing table names already built; ``effects``: what we do to it;
    ``xkeys``: the seats' X25519 setup keys (32 bytes each, seat order; empty: no channel is a seat's)."""

    def __init__(self, pubkeys: Sequence[bytes], session: SessionView, effects: Effects,
                 xkeys: Sequence[bytes] = ()) -> None:
        self._pubkeys = list(pubkeys)
        self._s = session
        self._fx = effects
        xkeys = [bytes(x) for x in xkeys]
        #: X25519 key -> the other seat whose own channel it keys (§N2.2, F1); a key two seats share (a
        #: hostile setup's) names neither, and ours none.
        self._seat_of = {x: i for i, x in enumerate(xkeys) if i != session.my_seat and xkeys.count(x) == 1}
        s = self._s
        #: Per non-STEP session message type (``wire.SESSION_TYPES``), its ``Route``.
        self._routes: dict[int, Route] = {
            MSG_ESCROW: (decode_escrow, s.escrows.receive), MSG_DROP: (decode_drop, s.votes.receive),
            MSG_CATCHUP_REQ: (decode_catchup_req, s.catching.on_request),
            MSG_CATCHUP_RESP: (decode_catchup_resp, s.catching.on_response),
            MSG_HINT: (decode_hint, s.catching.on_hint), MSG_ALIVE: (decode_alive, s.timers.on_alive),
            MSG_ABANDON: (decode_abandon, s.abandons.receive),
            MSG_COMPLAINT: (decode_complaint, s.referee.on_complaint),
            MSG_SKIP: (decode_skip, s.skipping.receive), MSG_RESEAT: (decode_reseat, s.reseating.receive)}

    def channel_seat(self, via: bytes | None) -> int | None:
        """The other seat whose own keyed channel is the one keyed with the X25519 key ``via``
        (its setup key, §N2.2), or None: an unknown key, ours, or one two seats share."""
        return self._seat_of.get(via)

    def verified(self, env: Envelope, seat: int, step: int) -> bool:
        """Check ``seat``'s signature on a non-STEP message; a bad one is counted and reported."""
        if env.verify(self._pubkeys[seat]):
            return True
        self._s.stats["bad_signature"] += 1
        self._fx.emit(PeerMisbehaved(seat, step, "bad signature", env.raw))
        return False

    def receive(self, data: bytes, now: float, via: bytes | None = None) -> None:
        """Handle one session envelope from a peer (``wire.SESSION_TYPES``). Never raises for
        bad input: it is dropped and counted; protocol violations become events. ``via``: the
        X25519 key of the channel that authenticated it (``channel_auth.Delivered.via``), None if
        not known (a relayed, buffered or replayed message: then it attests nothing)."""
        s = self._s
        st = s.stats
        st["received"] += 1
        if s.phase == HALTED:
            return
        try:
            env = open_envelope(data, C.MAX_CATCHUP_MSG)
            if env.mtype != MSG_STEP:
                route = self._routes.get(env.mtype)
                if route is None:
                    st["wrong_type"] += 1
                    return
                msg = route[0](env.body)
            else:
                if len(data) > C.MAX_STEP_MSG:
                    raise WireError("step message too long")
                b = decode_step_body(env.body)
        except WireError:
            st["malformed"] += 1
            return
        if env.mtype != MSG_STEP:
            if msg.game_id != s.game_id:
                st["wrong_game"] += 1
                return
            route[1](env, msg, now)
            return
        if b.game_id != s.game_id:
            st["wrong_game"] += 1
            return
        self._on_step(b, env, now, via)

    def _on_step(self, b: StepBody, env: Envelope, now: float, via: bytes | None = None) -> None:
        s, fx = self._s, self._fx
        st = s.stats
        seat, step = b.seat, b.step
        if seat >= s.n or seat == s.my_seat:
            # Nobody else may speak for our seat; a valid one would mean our key leaked.
            st["bad_seat"] += 1
            return
        k = s.step
        if s.steps.refusals and s.steps.refused(step, s.epoch, env.raw):
            # The same signed bytes refused after their verify (a lone mismatch, not a forced
            # body, superseded): a replay, dropped before another verify (§C3.4 'Refused messages').
            st["refused_again"] += 1
            return
        held = s.steps.held(step, seat)
        if held is not None:
            if held.env.body == env.body:
                st["duplicate"] += 1
                same = env.raw == held.env.raw
                if not same and env.verify(self._pubkeys[seat]) and not held.env.verify(self._pubkeys[seat]):
                    # The held one is a forced body taken with a bad signature (§C3.8), maybe
                    # planted by a relayer: its signed copy takes its place (evidence, §C8.8).
                    s.steps.hold(step, seat, Held(held.body, env))
                    same = True
                if step <= k:  # the sender re-sends: it is stuck at that step, maybe lacking ours
                    s.own.answer(seat, step, now)
                    if s.phase == FINISHED and step == s.final_step:
                        # Its final attestation again: it may lack another seat's that we applied
                        # (one garbled to it alone, dropped on receipt: no later step shows it
                        # behind): our records of that step, rate-limited (§C3.5, H143 BREAK #1).
                        fx.push_records(seat)
                    if step == k - 1 and same:
                        # It is alive, one step behind, waiting for a message it lacks: not
                        # silent at our step (bounded, it may be a replay: Liveness.heard_behind).
                        s.live.heard_behind(seat, now)
                return
            if step == k and s.phase == RUNNING and s.own.plain_chance() \
                    and is_forced(env.body, b, s.state_hash, s.steps.prev_digest, s.last_reveals[seat]):
                self._forced_over(held, Held(b, env), k)
                return
            if not env.verify(self._pubkeys[seat]):
                s.referee.bad_signature(b, env)
                return
            if not same_history(held.body, b):
                s.referee.other_history(held, Held(b, env), step)  # another history (§C8.3)
                return
            if not held.env.verify(self._pubkeys[seat]):
                # The held one is a forced body taken unchecked (§C3.8): still the right body, so
                # it stays; but unsigned it is no evidence (§C8.8), and the signed one, another
                # message of a step that allows only that body, is judged alone: refused.
                st["bad_signature"] += 1
                self._not_forced(seat, step, env)
                return
            # Two signed messages of one seat for one step over one history: proof (§C8.8).
            fx.prove(seat, step, EQUIVOCATION, "signed two different messages for one step",
                     [held.env.raw, env.raw], halt=Equivocation(step, seat, held.env.raw, env.raw))
            return
        if step < k:
            st["stale"] += 1
            if step + 1 < k or s.steps.own(step) is None:
                fx.hint(seat, now)  # more than one step behind: it needs a catch-up
            else:
                s.own.answer(seat, step, now)
            return
        if step >= k + C.STEP_WINDOW:
            st["too_far"] += 1
            s.catchup.note_ahead(seat, step)  # only a trigger to ask that seat; records are verified
            return
        if not s.active[seat] and s.dropped[seat].step <= step:
            st["ignored"] += 1  # a dropped seat's late messages change nothing
            return
        # At our current plain chance step the seat's forced body is held without its signature
        # check (§C3.8: it is the only body the seat may send there, so its signature would say
        # nothing the reveal does not). Every other STEP is verified on receipt, whatever
        # channel brought it (§C3.4; §C3.7 says why deferring this check was not taken).
        plain = step == k and s.phase == RUNNING and s.own.plain_chance()
        if plain and is_forced(env.body, b, s.state_hash, s.steps.prev_digest, s.last_reveals[seat]):
            st["forced"] += 1
        else:
            if not env.verify(self._pubkeys[seat]):
                s.referee.bad_signature(b, env)
                if step == k + 1 and via is not None and self.channel_seat(via) == seat:
                    self._attest(b, k)
                return
            if s.phase != RUNNING:  # finished: nothing more to apply
                st["stale"] += 1
                return
            if plain and self._unforced(b, env):
                # Signed over our history with fields a plain chance step cannot carry (acks,
                # re-seat requests, a 7th field): not held, so the seat's forced body still can
                # be (§C3.8). A 6-field body with a wrong reveal is held: applying it proves it.
                self._not_forced(seat, step, env)
                return
        st["accepted"] += 1
        held = Held(b, env)
        s.steps.hold(step, seat, held)
        if step == k:
            if not s.referee.check_prev(held):
                return
            if s.own.reveal_waiting and s.escrows.gate_open():
                fx.reveal()  # its message stands in for its missing escrow (§C8.2)
            fx.advance()
        else:
            s.catchup.note_ahead(seat, step)
            if step == k + 1 and (s.seats.voted_at(k) or s.skips.voted_against(k, s.epoch)):
                fx.advance()  # it may complete our certificate (§C8.3)

    def _attest(self, b: StepBody, k: int) -> None:
        """``b``, a message of step ``k`` + 1 whose signature failed, came on its seat's own keyed
        channel: that seat's word, as good as its signature for a certificate, that it applied ``k``
        over ``b.prev_digest`` (§C8.3 'A voter's promise', F1). Kept as an attestation only (never
        held, applied, relayed or cited as evidence; one per seat and step); if we voted at ``k`` it
        may complete our certificate."""
        s = self._s
        if s.phase == RUNNING and s.steps.attest(k + 1, b.seat, b.prev_digest) \
                and (s.seats.voted_at(k) or s.skips.voted_against(k, s.epoch)):
            self._fx.advance()

    def _forced_over(self, held: Held, new: Held, k: int) -> None:
        """``new`` is its seat's forced body of our current plain chance step ``k`` and we hold
        another message of that seat (a wrong reveal, nil, over another history): the forced
        body is the only one a plain chance step can apply (§C3.8), so it takes the slot,
        whatever its signature. Two signed versions over one history still prove the seat
        (§C8.8); a held wrong reveal kept instead left us unable to apply k while the others
        went on: the table's votes split between k and k+1 and it stalled (H75)."""
        s = self._s
        seat = new.body.seat
        if not same_history(held.body, new.body):
            s.referee.other_history(held, new, k)  # ours is over our history: it is kept (§C8.3)
            return
        key = self._pubkeys[seat]
        if held.env.verify(key) and new.env.verify(key):
            self._fx.prove(seat, k, EQUIVOCATION, "signed two different messages for one step",
                           [held.env.raw, new.env.raw], halt=Equivocation(k, seat, held.env.raw, new.env.raw))
            if s.phase != RUNNING or s.step != k:
                return
        s.stats["forced"] += 1
        s.steps.hold(k, seat, new)
        self._fx.advance()

    def refuse_unforced(self) -> None:
        """Entering step k (``StepGate.begin``, after ``OwnStep.begin`` decided what k is): if k is
        a plain chance step, the messages of k held before we got there (verified on receipt,
        §C3.4 'step > ours') are judged by the rule a message of our current step meets on
        receipt (§C3.8): one over our history that is not its seat's forced body is refused now
        — its slot cleared, counted ``not_forced`` — before anything reads or applies it (H75:
        a seat sent a lagging peer its reveal with an ack a step early; applied, it forked that
        peer's digest from the table's)."""
        s = self._s
        if not s.own.plain_chance():
            return
        k = s.step
        for seat, h in enumerate(s.steps.slots(k)):
            if h is not None and seat != s.my_seat and self._unforced(h.body, h.env):
                s.steps.clear(k, seat)
                self._not_forced(seat, k, h.env)

    def _unforced(self, b: StepBody, env: Envelope) -> bool:
        """True if ``b`` (of ``env``, of our current plain chance step) is over our history with
        more than the forced body's 6 fields (``forced.other_fields``, §C3.8)."""
        s = self._s
        return other_fields(env.body, b, s.state_hash, s.steps.prev_digest)

    def _not_forced(self, seat: int, step: int, env: Envelope) -> None:
        """``seat`` signed a message of plain chance step ``step`` other than its forced body
        (§C3.8): counted ``not_forced`` and reported, nothing held or proven; its replays are
        dropped unverified (``StepCollector.refuse``, §C3.4 'Refused messages')."""
        self._s.steps.refuse(step, self._s.epoch, env.raw)
        self._s.stats["not_forced"] += 1
        self._fx.emit(PeerMisbehaved(seat, step, "a chance step's message must be its forced body", env.raw))
