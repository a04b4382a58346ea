"""The session's record ingest (protocol.md §C3.4, §C8.3, §C8.10, §C9): step, skip and past-drop
records that come from our own log (``resume``) or from a catch-up page (``catchup.ingest_response``),
checked exactly like live messages before they touch the session.

* ``ingest_step_record``: the complete record of our current step, one STEP envelope per seat,
  verified (signature, game, step, seat, prev hash and digest; at a plain chance step a seat's
  forced body is taken whatever its signature and a signed body with other fields refused,
  §C3.8, ``log_checks.step_message``) and held; a second version of a seat's message is proven
  as equivocation (both signatures verified: a forced body taken unchecked is no evidence,
  §C8.8), and the version the table keeps is held (``step_collect.kept_version``); then the
  session advances.
* ``ingest_skip_record``: a kind-6 record of our current step (its votes checked and held).
* ``check_past_drop`` / ``check_past_skip``: a DROP or kind-6 record of a step we already
  applied with that seat's message: our state differs from the table's from that step on, halt
  (``SeatLost`` or ``StepOverturned``, a restart from the log cut there).
* ``cross_check``: a peer's record of a step we applied and still keep, compared with ours
  (§C3.4 'Second version in a record', 'Two versions applied'); ``adopt_equivocation`` after the
  restart such a record caused.

The part owns one small map of its own (``word``: which steps were applied from a seat's own
catch-up page with nothing applied since signed over them by another seat, §C3.4 'Two versions
applied'); what else it learns goes to
the parts that own it: the held messages to ``StepCollector``, the versions not kept to
``Referee.overturn``, the skip votes to ``TurnSkip``. It reads the session through
``session_port.SessionView`` and acts through ``session_port.Effects``. Moved out of
``lockstep.py`` (issue 13); ``catchup``, ``resume`` and ``node_restart`` call it as the session's
public ``ingest`` part (``session.ingest.cross_check``...).
"""

from __future__ import annotations

from typing import Any

from . import const as C
from .complaints import EQUIVOCATION, make_complaint, same_history
from .errors import WireError
from .forced import is_forced
from .identity import Identity
from .log_checks import step_message
from .session_events import Equivocation, SeatLost, StepOverturned
from .session_port import Effects, SessionView
from .step_collect import Held, kept_version
from .turn_skip import past_skip
from .wire import MSG_STEP, Envelope, Setup, StepBody, decode_step_body, open_envelope

__all__ = ["RecordIngest"]

_TWO = "signed two different messages for one step"


class RecordIngest:
    """Step, skip and past-drop records into one session (module docstring).

    ``setup``: the signed setup (signatures are checked against its keys); ``identity``: ours
    (signs the complaints we send); ``session``: read only (``SessionView``); ``effects``: what we
    do to it (``Effects``)."""

    def __init__(self, setup: Setup, identity: Identity, session: SessionView, effects: Effects) -> None:
        self._identity = identity
        self._s = session
        self._fx = effects
        self._pubkeys = [p.public_key for p in setup.players]
        #: Step -> the seat whose own catch-up page held that step's record, applied by us
        #: (``ingest_step_record(..., word_of=)``), until we apply a record of the next step
        #: holding a message of another seat signed over our history: till then that seat's
        #: message there rests on its word alone (§C3.4 'Two versions applied', H179; H182:
        #: the last record APPLIED, not the last one sent). Steps we no longer keep are forgotten
        #: (at most ``KEEP_STEPS`` + 1 entries).
        self.word: dict[int, int] = {}

    def _both_signed(self, seat: int, a: Held, b: Held) -> bool:
        """True if ``a`` and ``b`` (two STEP messages of ``seat``) both carry ``seat``'s valid
        signature: either may be a forced body taken unchecked (§C3.8), which is never evidence
        (§C8.8). Only on the rare two-version paths; a checked one is remembered by ``identity``."""
        key = self._pubkeys[seat]
        return a.env.verify(key) and b.env.verify(key)

    def _keeps_record(self, plain: bool, cur: Held, h: Held) -> bool:
        """Of two signed versions over one history of a seat's message of our current step,
        ours ``cur`` and the record's ``h``: True if the table keeps ``h``. At a plain chance
        step the forced body, the only one a peer can apply (§C3.8); else ``kept_version``
        (§C3.4 'Two versions applied')."""
        s = self._s
        if plain:
            last = s.last_reveals[h.body.seat]
            if is_forced(h.env.body, h.body, s.state_hash, s.steps.prev_digest, last):
                return True
            if is_forced(cur.env.body, cur.body, s.state_hash, s.steps.prev_digest, last):
                return False
        return kept_version(cur.env.body, h.env.body) == h.env.body

    def _ours(self, b: StepBody) -> bool:
        """True if ``b`` (a current-step body) is signed over our history (prev hash, digest)."""
        s = self._s
        return b.prev_hash == s.state_hash and b.prev_digest == s.steps.prev_digest

    def _opened(self, raw: Any, step: int, seat: int) -> Held | None:
        """``raw`` as ``seat``'s validly signed STEP envelope of ``step`` in this game, or None."""
        try:
            env = open_envelope(raw, C.MAX_STEP_MSG)
            b = decode_step_body(env.body)
        except (WireError, TypeError):
            return None
        if env.mtype != MSG_STEP or b.game_id != self._s.game_id or b.step != step or b.seat != seat \
                or not env.verify(self._pubkeys[seat]):
            return None
        return Held(b, env)

    def ingest_step_record(self, step: int, raws: Any, word_of: int | None = None) -> str | None:
        """Apply the complete record of ``step`` (our current step): one STEP envelope per
        active seat (None for seats dropped by then), verified exactly like live messages
        (signature, game, step, seat, prev hash and digest, reveals). If we voted to drop one
        of its seats, it is applied only with a certificate (``SessionVotes.certified``,
        protocol.md §C8.3). ``word_of``: the responder, when this record comes from its catch-up
        page (noted in ``word`` once applied, §C3.4 'Two versions applied'); a responder's own
        message there never replaces a version of it we hold.
        Returns None, or why the record was refused (English); equivocation and desync halt as
        live."""
        s, fx = self._s, self._fx
        if step != s.step or not s.running:
            return "not our current step"
        if type(raws) is not list or len(raws) != s.n:
            return "record without one entry per seat"
        # A plain chance step (§C3.8): a seat's forced body is taken whatever its signature, as
        # live (``session_inbox``); the same predicate (``OwnStep.plain_chance``; step is ours).
        plain = s.own.plain_chance()
        held = []
        for i, raw in enumerate(raws):
            if raw is None:
                if s.active[i] and i not in s.skipping.skipped_seats(step):
                    return f"no message of active seat {i}"
                held.append(None)
                continue
            if not s.active[i] or type(raw) is not bytes:
                return f"message of dropped seat {i}"
            try:
                env = open_envelope(raw, C.MAX_STEP_MSG)
                b = decode_step_body(env.body)
            except WireError as e:
                return f"seat {i}: {e}"
            if env.mtype != MSG_STEP or b.game_id != s.game_id or b.step != step or b.seat != i:
                return f"seat {i}: message of another game, step or seat"
            why = step_message(env, b, self._pubkeys[i], plain, s.state_hash, s.steps.prev_digest,
                               s.last_reveals[i])
            if why is not None:
                return f"seat {i}: {why}"
            held.append(Held(b, env))
        for i, h in enumerate(held):
            if h is None:
                continue
            cur = s.steps.held(step, i)
            if cur is not None and not same_history(cur.body, h.body):
                # Signed over another history (§C8.3): no equivocation; we keep the one over ours.
                s.stats["superseded"] += 1
                if self._ours(h.body) and not self._ours(cur.body):
                    s.steps.hold(step, i, h)
                    cur = h
            elif cur is not None and cur.env.body != h.env.body and i != s.my_seat \
                    and not self._both_signed(i, cur, h):
                # One of the two was taken unchecked as a forced body (§C3.8) and its signature
                # fails: it is the right body (the only one taken unchecked), the other proves
                # nothing against i with it (§C8.8: a proof rests on verified signatures only).
                s.stats["unproven"] += 1
                if cur.env.verify(self._pubkeys[i]):
                    s.steps.hold(step, i, h)
                    cur = h
            elif cur is not None and cur.env.body != h.env.body and i != s.my_seat:
                # The record holds another message of seat i than ours: i equivocated (§C8.8).
                # The record's is the one its holder applied; we hold the one the table keeps
                # (§C3.4 "Two versions applied": its holder rolls back if it is not that one)
                # and apply it only with a certificate (we vote i out now, ``certified``).
                fx.prove(i, step, EQUIVOCATION, _TWO, [cur.env.raw, h.env.raw],
                         halt=Equivocation(step, i, cur.env.raw, h.env.raw))
                if not s.running:
                    return None
                if word_of != i and self._keeps_record(plain, cur, h):
                    s.referee.overturn(step, i, cur.env.body)
                    s.steps.hold(step, i, h)
                    cur = h
                else:
                    s.referee.overturn(step, i, h.env.body)
            elif cur is not None and cur.env.body != h.env.body and s.replaying:
                # Our own logged message, replayed (resume.py): that is what we sent; the one we
                # rebuilt lacks what the live step had (escrow acks, carried requests, §C8.2).
                s.steps.hold(step, i, h)
                cur = h
            elif cur is not None and cur.env.body != h.env.body:
                fx.halt(Equivocation(step, i, cur.env.raw, h.env.raw))
                return None
            if cur is None:
                s.steps.hold(step, i, h)
                cur = h
            if not s.referee.check_prev(cur):
                return None
        # Another seat's message of this step, signed over our history (prev digest of step - 1):
        # step - 1 no longer rests on anyone's word alone (RV16-G F2: applied, not sent).
        seen = any(h is not None and i != word_of and self._ours(h.body) for i, h in enumerate(held))
        if seen or word_of is not None:
            self.word = {k: v for k, v in self.word.items() if s.steps.keeps(k) and not (seen and k == step - 1)}
        if word_of is not None:
            self.word[step] = word_of
        fx.advance()
        return None

    def check_past_drop(self, payload: bytes) -> bool:
        """A DROP record (catch-up) of a step we already applied with the dropped seat's
        message, carrying a quorum of votes: our state differs from the others' from that step
        on (§C8.3). Our own seat: halt with ``SeatLost``; another seat whose message we still
        hold for that step: halt with ``StepOverturned`` (restart from the log at that step).
        Returns True if so."""
        s = self._s
        found = s.seats.past_drop(payload, s.step)
        if found is None or not s.running:
            return False
        k, seat = found
        if seat == s.my_seat and s.active[seat]:
            if not s.seats.own_drop_counts(k, s.step):
                return False  # no peer can overturn that step any more: it decided nothing (§C8.3 'Stale votes')
            event: Any = SeatLost(k)
        elif s.steps.keeps(k) and (s.steps.held(k, seat) is not None or seat in s.skips.skipped(k)):
            event = StepOverturned(k, seat)  # drop > skip > message (§C8.10)
        else:
            return False
        s.referee.disputes.clear()
        self._fx.halt(event)
        return True

    def check_past_skip(self, payload: bytes) -> bool:
        """A kind-6 record (catch-up) that skips a seat, with Q valid votes, at a step we applied
        with that seat's message (ours included): our state differs from the others' from that
        step on; halt with ``StepOverturned`` and restart from the log at that step (§C8.10).
        Returns True if so."""
        s = self._s
        found = past_skip(s.game_id, self._pubkeys, payload, s.step)
        if found is None or not s.running:
            return False
        k, seat = found
        if seat in s.skips.skipped(k) or not s.steps.keeps(k) or s.steps.held(k, seat) is None:
            return False
        s.referee.disputes.clear()
        self._fx.halt(StepOverturned(k, seat))
        return True

    def ingest_skip_record(self, payload: bytes) -> str | None:
        """Take a kind-6 record of our current step (from our log or a catch-up): its votes
        are checked and held, so the step record that follows may have nil for that seat
        (§C8.10). Returns None or why it was refused."""
        s = self._s
        if not s.skipping.skippable():
            return "skip record at a step that cannot be skipped"
        try:
            s.skips.ingest_record(s.step, payload, s.seats.active, s.epoch)
        except ValueError as e:
            return str(e)
        self._fx.advance()
        return None

    def cross_check(self, step: int, raws: Any, sender: int | None = None) -> bool:
        """Compare a peer's record of an applied ``step`` (still kept) with the messages we
        applied: a different, validly signed message of a seat over the same history is
        equivocation. ``sender``: the seat whose CATCHUP_RESP holds the record (None: unknown).
        If the second version is the sender's own message and no fork is in sight
        (``_fork_in_sight``), it is that seat's word only, as if it had sent it live: proven
        and voted out (§C3.4 'Second version in a record', §C8.8), we go on with ours.
        Otherwise the record is what another seat applied: our states may have forked, halt.
        Returns True if the session halted."""
        s, fx = self._s, self._fx
        if not s.steps.keeps(step) or type(raws) is not list or len(raws) != s.n:
            return False
        held = s.steps.slots(step)
        for i, raw in enumerate(raws):
            h = held[i]
            if h is None or type(raw) is not bytes or raw == h.env.raw:
                continue
            try:
                env = open_envelope(raw, C.MAX_STEP_MSG)
                b = decode_step_body(env.body)
            except WireError:
                continue
            if env.body != h.env.body and b.step == step and b.seat == i and b.game_id == s.game_id \
                    and same_history(b, h.body) and env.verify(self._pubkeys[i]):
                if not h.env.verify(self._pubkeys[i]):
                    # Ours was a forced body taken unchecked (§C3.8): the right body, applied; a
                    # signed other version over its history is no evidence with it (§C8.8), and
                    # no honest peer applied it (refused there, ``step_message``).
                    s.stats["unproven"] += 1
                    continue
                if i != s.my_seat and s.own.plain_chance_at(step):
                    # At a plain chance step the one body a peer can apply is the forced one
                    # (§C3.8: other fields are refused, a wrong reveal is fatal), so ours, applied,
                    # is it: the record's other version (a colluder's page) was applied by no
                    # honest peer and never overturns ours; both signed, i is proven (§C8.8).
                    fx.prove(i, step, EQUIVOCATION, _TWO, [h.env.raw, raw],
                             halt=Equivocation(step, i, h.env.raw, raw))
                    if not s.running:
                        return True
                    continue
                if i == sender and i != s.my_seat and not self._fork_in_sight(step, i):
                    # Its own slot in its own record: nobody but it vouches that it applied that
                    # version. Same as a live second message (§C3.4): complaint, vote, ours kept;
                    # a halt only when no quorum can drop it (``prove``). Was a one-datagram veto.
                    fx.prove(i, step, EQUIVOCATION, _TWO, [h.env.raw, raw],
                             halt=Equivocation(step, i, h.env.raw, raw))
                    if not s.running:
                        return True
                    continue
                # We applied one version, others (maybe) another: our states may have forked
                # (§C3.4 "Two versions applied"). Both are i's own signed choices: the table
                # converges on the one ``kept_version`` picks, i is voted out.
                if i != s.my_seat and not s.replaying and (s.seats.drop_possible() or not s.active[i]):
                    if self._two_versions(step, i, h, env, self.word.get(step) == i and sender not in (None, i)):
                        return True
                    continue
                # Without a drop (seat loss off, two seats) a proven cheater ends the game anyway
                # (i still active: once dropped, it no longer needs one).
                s.referee.disputes.clear()
                if not s.replaying and i != s.my_seat:  # never a complaint about ourselves
                    fx.send(make_complaint(self._identity, s.game_id, s.my_seat, s.step, i,
                                           EQUIVOCATION, [h.env.raw, raw]))
                fx.halt(Equivocation(step, i, h.env.raw, raw))
                return True
        return False

    def _two_versions(self, step: int, seat: int, ours: Held, env: Envelope, its_word: bool = False) -> bool:
        """``seat`` signed ``ours`` (applied by us at ``step``) and ``env`` (found in a record)
        over one history (§C3.4 "Two versions applied"). ``its_word``: ours came from the last
        record we *applied* of ``seat``'s own catch-up page (``word``, H182) and ``env`` from
        another seat's record: ours
        rests on ``seat``'s word alone (the table, maybe past ``step`` by more than it can roll
        back, applied ``env``), so we roll back to ``env`` whatever ``kept_version`` says
        (H179). Else, if ``kept_version`` keeps ours: prove
        ``seat`` (COMPLAINT kind 1, vote) and forget the current-step messages signed over the
        other version's digest (their senders roll back and sign again over ours), ending a
        digest dispute they opened. Else: send the complaint and halt with
        ``StepOverturned(step, seat, chosen, ours)``; the node restarts us from our log cut at
        ``step`` and hands both to ``adopt_equivocation``. Returns True if we halted."""
        s, fx = self._s, self._fx
        evidence = [ours.env.raw, env.raw]
        if its_word or kept_version(ours.env.body, env.body) == env.body:
            s.referee.disputes.clear()
            fx.send(make_complaint(self._identity, s.game_id, s.my_seat, s.step, seat, EQUIVOCATION, evidence))
            fx.halt(StepOverturned(step, seat, env.raw, ours.env.raw))
            return True
        fx.prove(seat, step, EQUIVOCATION, _TWO, evidence, halt=Equivocation(step, seat, ours.env.raw, env.raw))
        if not s.running:
            return True
        s.referee.overturn(step, seat, env.body)  # messages over the other version: superseded
        return False

    def adopt_equivocation(self, step: int, seat: int, chosen: bytes, other: bytes) -> bool:
        """After ``StepOverturned(step, seat, chosen, other)`` and a restart from our log cut at
        ``step`` (our current step now): hold ``chosen`` as ``seat``'s message of ``step`` and
        prove ``seat`` with both (COMPLAINT kind 1, vote), so that a re-sent ``other`` is no
        longer applied (§C3.4 "Two versions applied"). Both must be ``seat``'s validly signed
        STEP envelopes of ``step`` over one history, different (``chosen`` the one
        ``kept_version`` keeps, or the other seat's record's when ours rested on ``seat``'s word,
        ``_two_versions``: the halt says which). Returns False (nothing done) otherwise."""
        s = self._s
        if step != s.step or not s.running or not 0 <= seat < s.n or seat == s.my_seat:
            return False
        a = self._opened(chosen, step, seat)
        o = self._opened(other, step, seat)
        if a is None or o is None or a.env.body == o.env.body or not same_history(a.body, o.body):
            return False
        if s.own.plain_chance_at(step) and not is_forced(a.env.body, a.body, s.state_hash, s.steps.prev_digest,
                                                         s.last_reveals[seat]):
            return False  # at a plain chance step only the forced body is kept (§C3.8, ``cross_check``)
        s.steps.hold(step, seat, a)
        s.referee.overturn(step, seat, o.env.body)
        self._fx.prove(seat, step, EQUIVOCATION, _TWO, [a.env.raw, o.env.raw],
                       halt=Equivocation(step, seat, a.env.raw, o.env.raw))
        return True

    def _fork_in_sight(self, step: int, seat: int) -> bool:
        """True if some seat other than ``seat`` may have applied another version of ``step``
        (applied by us, §C3.4 'Second version in a record'): a digest dispute is open, or
        ``step`` is our last applied step and a message of our current step from a seat other
        than ``seat`` carries another prev digest than ours. (Once we applied step + 1, every
        message of it was checked against our digest of ``step``, §C3.4.)"""
        s = self._s
        if s.referee.disputes.open is not None:
            return True
        if step + 1 != s.step:
            return False
        return any(h is not None and j != seat and h.body.prev_digest != s.steps.prev_digest
                   for j, h in enumerate(s.steps.slots(s.step)))
