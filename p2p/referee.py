"""The session's referee: complaints and digest disputes (protocol.md §C3.4, §C8.8).

A lockstep session meets two kinds of wrong messages that it must not simply drop:

* **a signed message that proves its seat cheated** (two messages for one step over one
  history, a bad reveal, a bad escrow, a false drop-vote share, a bad hidden field): the
  evidence goes to every seat in a COMPLAINT, every seat judges it itself
  (``complaints.judge``) and the culprit is voted out; with no drop possible the session halts
  (``prove``, ``on_complaint``, ``ingest_record``, ``hidden_fault`` for a step's hidden fields);
* **a current-step message over another prev digest** (§C3.4): its seat lies, or some seat
  sent different messages of the last step to different peers, or a quorum dropped a seat
  whose message we applied. The referee opens a digest dispute (``disputes.Disputes``, one at
  a time), asks for the records of the last step and settles it from the answer or at its
  deadline (``check_prev``, ``settle_dispute``, ``other_history``). What no dispute explains
  (our digest with another state hash, the disputed seat's own answer) is one seat's word
  while seat loss can act: refused, not a halt (``_lone``, §C3.4 'One seat's word').

It owns the ``Complaints`` ledger and the open ``Disputes`` (the session reads them). What it
judges is the session's current step (its state hash, digest, held messages, the engine's
pending decision): it reads those through the session's public attributes, listed in
``session_port.SessionView``; what it does to the session goes through
``session_port.Effects``, a handful of callables the session hands over (send, report, halt,
vote...). It never writes a session attribute.

Why a view of the session and not only arguments: a complaint may arrive at any moment and
its judges need most of the current step's context (``StepNow``, ``HiddenNow``); building that
context on every message would cost the hot path what only a complaint needs. The view is
read only and ``session_port.SessionView`` names every attribute read, so the seam stays
visible.
"""

from __future__ import annotations

from typing import Any, Sequence

from . import const as C
from .complaints import (BAD_HIDDEN, Complaints, HiddenNow, Proof, StepNow, check_bad_step, check_hidden, judge,
                         make_complaint, signed_step)
from .disputes import Disputes
from .errors import WireError
from .gamelog import KIND_ABANDON, KIND_COMPLAINT
from .identity import Identity
from .schema import EVIDENCE_PAIR, EvidencePair
from .sealed import OPEN
from .session_port import Effects, SessionView
from .session_events import CheaterProven, CheatDetected, Desync, PeerMisbehaved
from .step_collect import Held, step_digest
from .step_gate import FINISHED
from .wire import (MSG_ABANDON, MSG_COMPLAINT, MSG_STEP, ComplaintMsg, Envelope, Setup, StepBody, decode_abandon,
                   decode_complaint, open_envelope, seal_message)

__all__ = ["Referee"]


class Referee:
    """Complaints and digest disputes of one session (module docstring).

    ``setup``: the signed setup (the judges check signatures against its keys); ``identity``:
    ours (our complaints are signed with it); ``session``: the session, read only
    (``SessionView``); ``effects``: what we do to it (``Effects``)."""

    def __init__(self, setup: Setup, identity: Identity, session: SessionView, effects: Effects) -> None:
        self.setup = setup
        self._identity = identity
        self._s = session
        self._fx = effects
        self._pubkeys = [p.public_key for p in setup.players]
        #: Seats proven to cheat and the complaints seen (complaints.py).
        self.complaints = Complaints()
        #: The open digest dispute, if any (disputes.py).
        self.disputes = Disputes()
        #: Step -> (seat, STEP body) versions of that step the table did not keep (§C3.4 "Two
        #: versions applied"): messages of the next step signed over them are superseded.
        self._overturned: dict[int, list[tuple[int, bytes]]] = {}
        #: (step, seats): the seats that signed a message of that step over another history than
        #: ours (``_lone``: one seat's word does not halt us, reported once per seat and step;
        #: §C3.4, §C8.8).
        self._others: tuple[int, set[int]] = (-1, set())

    # -- complaints (§C8.8) --

    def prove(self, culprit: int, step: int, kind: int, reason: str, evidence: list, key: bytes | None = None,
              complaint: bytes | None = None, halt: Any = None) -> None:
        """``culprit`` is proven to cheat: send the COMPLAINT (ours, unless we checked
        ``complaint`` from another seat), log it, report ``CheaterProven`` and vote it out. If
        no quorum can drop it (seat loss off, two seats), the game cannot go on with a cheater:
        halt with ``halt`` (the event a local check names, e.g. Equivocation), else
        CheatDetected with the complaint as evidence. Our own proof (``complaint`` None) is
        not made, and counted ``unproven``, if a STEP of ``evidence`` is not validly signed
        (``_signed_evidence``, §C3.8, §C8.8); once the game is over nothing is proven, counted
        ``after_end`` (§C3.5), and nor at the attestation step itself."""
        s = self._s
        if s.phase == FINISHED or step == s.final_step:
            # The attestation is our log's last record (Part L: nothing may follow it) and no seat is
            # left to drop: a proof after the end is counted, never made nor logged (RV13-B #1, §C3.5);
            # nor at the attestation step itself, where it kept a straggler from ever finishing (RV14R-T).
            s.stats["after_end"] += 1
            return
        if complaint is None and culprit == s.my_seat:
            return  # our own check names us: a seat cannot complain about itself (§C8.8)
        if complaint is None and not self._signed_evidence(evidence):
            # A STEP of the evidence does not verify: a forced body taken unchecked (§C3.8). It
            # proves nothing (§C8.8): no complaint, no halt, counted.
            s.stats["unproven"] += 1
            return
        if complaint is None:
            complaint = make_complaint(self._identity, self.setup.game_id, s.my_seat, step, culprit, kind, evidence,
                                       key)
            if not s.replaying:
                self._fx.send(complaint)
        if not self.complaints.prove(Proof(culprit, step, reason, complaint)):
            return
        s.stats["complaints"] += 1
        if s.log is not None and not s.replaying:
            s.log.append_complaint(complaint)
        s.catchup.record(KIND_COMPLAINT, complaint, s.step)
        self._fx.emit(CheaterProven(step, culprit, reason, complaint))
        if culprit == s.my_seat:
            return  # a false complaint of ours was refuted: nothing we can do but go on
        active = s.active
        if not s.seats.drop_possible() or not active[culprit]:
            if active[culprit]:
                self._fx.halt(halt if halt is not None else CheatDetected(step, culprit, reason, complaint))
            return
        self._fx.vote_cheaters()

    def _signed_evidence(self, evidence: list) -> bool:
        """True unless an item of ``evidence`` is a STEP envelope that is not validly signed by
        the seat it names (``complaints.signed_step``). Since version 4 a peer holds and applies
        a plain chance step's forced body without checking its signature (§C3.8), so a held
        STEP may carry a bad one; our own proofs check theirs here, in one place (§C8.8: a
        proof never rests on a signature not verified). A STEP checked on receipt is answered
        from ``identity``'s memory of good signatures."""
        for raw in evidence:
            try:
                step = open_envelope(raw, C.MAX_STEP_MSG).mtype == MSG_STEP
            except (WireError, TypeError):
                continue  # not an envelope we can read: the judges of the complaint decide
            if step and signed_step(self.setup, raw) is None:
                return False
        return True

    def history_proof(self, k: int, seat: int, reason: str) -> None:
        """``seat`` is proven to cheat by the applied STEPs (§C8.2): every peer sees the same, so
        no COMPLAINT is sent; we vote it out from the next step on (``Effects.vote_cheaters``)."""
        if seat != self._s.my_seat and self.complaints.prove(Proof(seat, k, reason, b"")):
            self._fx.emit(CheaterProven(k, seat, reason, b""))

    def on_complaint(self, env: Envelope, c: ComplaintMsg, now: float) -> None:
        """A COMPLAINT: check its signature, then its evidence ourselves (``complaints.judge``);
        act against whoever it proves guilty: the culprit, or the complainer if it lied. One
        judged before is a ``duplicate``; one naming a culprit already proven here, or of a seat
        whose complaints proved nothing (or itself, or a proven seat they did not name)
        ``COMPLAINT_BUDGET`` times, is ``ignored`` unchecked (§C8.8 'What a peer keeps')."""
        s = self._s
        st = s.stats
        if c.seat >= s.n or c.seat == s.my_seat or c.culprit >= s.n or not s.running:
            st["ignored"] += 1
            return
        if self.complaints.seen(env.raw):
            st["duplicate"] += 1
            return
        if self.complaints.proven(c.culprit) is not None:
            # Judged, it could prove that seat again (nothing new) or its complainer a liar
            # about it (a lie that changes nothing): dropped before its signature check, so a
            # proven seat and a colluding complainer cannot make every peer judge complaints
            # without end (§C8.8 'What a peer keeps').
            st["ignored"] += 1
            return
        if self.complaints.spent(c.seat):
            st["ignored"] += 1
            return
        if not self._fx.verified(env, c.seat, c.step):
            return  # counted; not remembered: its seat field may name anyone
        if s.active[c.seat]:
            s.live.heard(c.seat, now)  # it spoke: not silent, whatever it waits for (§C8.8)
        if not self._judged(c, env.raw, named=True):
            st["ignored"] += 1

    def _judged(self, c: ComplaintMsg, raw: bytes, named: bool = False) -> bool:
        """Judge the validly signed COMPLAINT ``c`` (envelope ``raw``), remember its digest
        (``Complaints.judged``) and act on its verdict (``prove``). False if it proves nothing.
        ``named`` (a live complaint): one that proves a seat already proven other than its
        culprit and its complainer counts as proving nothing (charged: §C8.8 'What a peer
        keeps'; an honest complaint names the seat its evidence proves)."""
        verdict = judge(self.setup, c, self._s.active, lambda ev: self._judge_step(ev, c.seat), self._judge_hidden,
                        self._s.seats.acks.confirmed)
        if named and verdict is not None and verdict[0] not in (c.culprit, c.seat) \
                and self.complaints.proven(verdict[0]) is not None:
            verdict = None
        self.complaints.judged(raw, c.seat, None if verdict is None else verdict[0])
        if verdict is None:
            return False
        self.prove(verdict[0], c.step, c.kind, verdict[1], list(c.evidence), c.key, complaint=raw)
        return True

    def ingest_record(self, kind: int, payload: bytes) -> str | None:
        """Apply a COMPLAINT or ABANDON log record (from our log or a catch-up) through the
        live checks (ours included). Returns None, or why it was refused (English)."""
        s = self._s
        try:
            env = open_envelope(payload, C.MAX_COMPLAINT_MSG)
            if kind == KIND_COMPLAINT and env.mtype == MSG_COMPLAINT:
                msg = decode_complaint(env.body)
            elif kind == KIND_ABANDON and env.mtype == MSG_ABANDON:
                msg = decode_abandon(env.body)
            else:
                return f"record kind {kind} does not hold its message type"
        except WireError as e:
            return f"malformed record: {e}"
        if msg.game_id != self.setup.game_id:
            return "record of another game"
        if kind == KIND_COMPLAINT:
            if self.complaints.seen(payload):
                return None
            if self.complaints.spent(msg.seat):
                return "complaint beyond its seat's budget"
            if not env.verify(self._pubkeys[msg.seat]):
                return "complaint with a bad signature"
            return None if self._judged(msg, payload) else "complaint that proves nothing"
        if not env.verify(self._pubkeys[msg.seat]) or not s.step - 1 <= msg.step <= s.step + 1:
            return "abandon record that does not fit"
        if s.running:
            self._fx.end_abandoned(msg.seat, payload)
        return None

    def _judge_hidden(self, raw: bytes) -> tuple | None:
        """Judge a kind-4 complaint's STEP (§C8.8) with our hidden ledger at our current step
        (``complaints.check_hidden``), or against the message we hold for its step and seat."""
        s = self._s
        b = signed_step(self.setup, raw)
        if b is None or s.hidden is None:
            return None
        held = s.steps.held(b.step, b.seat) if s.steps.keeps(b.step) else None
        now = HiddenNow(s.step, s.state_hash, s.steps.prev_digest, s.hidden, s.inspection) \
            if s.running and s.step != s.final_step else None
        return check_hidden(self.setup, raw, None if held is None else held.env.body, now)

    def _judge_step(self, raw: bytes, complainer: int) -> tuple | None:
        """Judge a kind-2 complaint's STEP (protocol.md §C8.8) with our state
        (``complaints.check_bad_step``): at its step, a sealed opening or whether it is a valid
        chance-step reveal; past it, against the message we applied (a different one:
        equivocation; the same: the ``complainer`` lied)."""
        s = self._s
        b = signed_step(self.setup, raw)
        if b is None:
            return None
        held = s.steps.held(b.step, b.seat) if s.steps.keeps(b.step) else None
        chance = s.pending.chance and s.final_step != s.step and s.inspection is None \
            and not s.escrow_round  # nil is the input of an escrow round (§C8.2)
        now = StepNow(s.step, s.state_hash, s.steps.prev_digest,
                      s.sealed.judge if s.sealed.phase == OPEN else None,
                      s.last_reveals if chance else None)
        return check_bad_step(self.setup, raw, complainer, None if held is None else held.env.body, now)

    def hidden_fault(self, k: int, slots: Sequence, bad: tuple) -> None:
        """Step ``k``'s hidden fields hold a fault (``step_resolve.resolve_hidden``: culprit,
        reason, witness seat): proven like any signed bad message (§C8.8 kind 4, the witness's
        STEP is the evidence), the culprit voted out and the step waits for its drop; without a
        possible drop the step's messages (``slots``) are logged and the session halts with
        CheatDetected, whose evidence is the witness's STEP, or the sender's delivery (step
        k-1) and the holder's STEP (step k) when the witness is another seat (§C12)."""
        s = self._s
        seat, reason, witness = bad
        raw = slots[witness].env.raw
        evidence = raw
        if witness != seat:
            prev = s.steps.held(k - 1, seat) if s.steps.keeps(k - 1) else None
            # The sender's delivery (step k-1) and the holder's complaint (step k).
            evidence = EVIDENCE_PAIR.encode(EvidencePair(b"" if prev is None else prev.env.raw, raw))
        if not s.seats.drop_possible() and s.log is not None and not s.replaying:
            s.log.append_step(k, [None if h is None else h.env.raw for h in slots])
        self.prove(seat, k, BAD_HIDDEN, reason, [raw], halt=CheatDetected(k, seat, reason, evidence))

    # -- digest disputes (§C3.4) --

    def bad_signature(self, b: StepBody, env: Envelope) -> None:
        """A STEP whose signature does not verify: counted and reported, nothing else."""
        self._s.stats["bad_signature"] += 1
        self._fx.emit(PeerMisbehaved(b.seat, b.step, "bad signature", env.raw))

    def other_history(self, held: Held, new: Held, step: int) -> None:
        """A second message of a seat for step ``step`` signed over another history than the one
        we hold: no equivocation (§C8.3 "asymmetric race": a quorum drop overturned one of the
        two histories and the seat re-signed over the new one, §C8.8). At our current step we
        keep the one over our history (the other is superseded); before it we keep the newer
        (the session checks it when it gets there); past it we applied one already. One refused
        for good (past our step, or at it against one over our history) is remembered: its
        replays are dropped unverified (§C3.4 'Refused messages')."""
        s = self._s
        s.stats["superseded"] += 1
        if step == s.step and self._ours(new.body) and not self._ours(held.body):
            s.steps.hold(step, new.body.seat, new)
            d = self.disputes.open
            if d is not None and d.seat == new.body.seat and d.step == step:
                # It signs over our history now: its first message was over an overturned one,
                # not a lie (a fork elsewhere shows in the digests of those who applied it).
                self.disputes.clear()
            self._fx.advance()
        elif step > s.step:
            s.steps.hold(step, new.body.seat, new)
        elif step < s.step or self._ours(held.body):
            s.steps.refuse(step, s.epoch, new.env.raw)

    def overturn(self, step: int, seat: int, body: bytes) -> None:
        """``body`` is ``seat``'s version of its step-``step`` message that the table does not
        keep (§C3.4 "Two versions applied"); we applied, or will apply, the kept one. A message
        of step ``step`` + 1 signed over the digest step ``step`` has with ``body`` is
        superseded, like one over a step a drop overturned (§C8.3): its sender rolls back and
        signs again over ours. The ones held are forgotten and a digest dispute one of them
        opened ends."""
        s = self._s
        self._overturned = {k: v for k, v in self._overturned.items() if k >= s.step - C.KEEP_STEPS}
        self._overturned.setdefault(step, []).append((seat, body))
        if step + 1 != s.step:
            return
        s.steps.forget_refused()  # a message refused as a lone mismatch may now be superseded
        for j, h in enumerate(s.steps.slots(s.step)):
            if h is not None and j != s.my_seat and self._superseded(h.body):
                s.steps.clear(s.step, j)
                s.stats["superseded"] += 1
        d = self.disputes.open
        if d is not None and d.step == s.step and s.steps.held(s.step, d.seat) is None:
            self.disputes.clear()  # it was one of them

    def _superseded(self, b: StepBody) -> bool:
        """True if ``b`` (a message of our current step) is signed over a digest of the last
        step with a version the table did not keep (``overturn``)."""
        s = self._s
        k = s.step - 1
        for seat, body in self._overturned.get(k, ()):
            skipped = s.skips.skipped(k)
            if b.prev_digest == step_digest([C.SKIPPED_BODY if j in skipped else body if j == seat else b"" if h is None
                                             else h.env.body for j, h in enumerate(s.steps.slots(k))]):
                return True
        return False

    def _ours(self, b: StepBody) -> bool:
        s = self._s
        return b.prev_hash == s.state_hash and b.prev_digest == s.steps.prev_digest

    def check_prev(self, h: Held) -> bool:
        """Check a current-step message's prev hash and digest against ours (§C3.4). Another
        digest opens a digest dispute (or, right after we dropped a seat, marks the message
        superseded); the same digest with another state hash is refused as one seat's word
        while seat loss can act (``_lone``), else Desync (halt). False if ``h`` is not over our
        history (held for a dispute, or refused)."""
        s = self._s
        b = h.body
        prev_digest = s.steps.prev_digest
        if b.prev_hash == s.state_hash and b.prev_digest == prev_digest:
            return True
        if (any(info.step == s.step - 1 for info in s.dropped.values()) or s.skips.skipped(s.step - 1)) \
                and not s.replaying:
            # (Or we skipped a seat's turn at the last step, §C8.10: the same race, one rung lower.)
            # We dropped a seat at the last step; this seat applied it with the dropped seat's
            # message (it got it, we did not): its message is superseded, not a lie. It learns
            # of the drop from our records and rolls back (StepOverturned, §C8.3).
            s.steps.clear(s.step, b.seat)
            s.stats["superseded"] += 1
            self._fx.push_records(b.seat)
            return False
        if s.step - 1 in self._overturned and self._superseded(b):
            # Over a version of the last step the table did not keep (§C3.4 "Two versions
            # applied"): superseded; our records tell its sender which one we kept.
            s.steps.clear(s.step, b.seat)
            s.stats["superseded"] += 1
            self._fx.push_records(b.seat)
            return False
        if b.prev_digest != prev_digest:
            if self.disputes.open is not None:
                return False  # one dispute at a time decides (its answer names the equivocator)
            if s.steps.keeps(s.step - 1) and not s.replaying:
                # Other messages of the last step: this seat lies, or a seat sent different
                # messages of the last step to different peers, or a quorum dropped a seat
                # whose message we applied. Ask for the records of that step to find out
                # (§C3.4, §C8.3); decide at the latest after DISPUTE_TIMEOUT.
                # Not in ``_others`` yet: an equivocation (a fork we converge from) may
                # explain it; counted only if its own answer does not (``settle_dispute``).
                self.disputes.start(b.seat, h.env.raw, s.now, s.step)
                self._fx.send(s.catchup.request(s.step - 1, s.now, s.step))
                return False
            if not self._lone(b.seat, h.env.raw, "digest"):
                self._fx.halt(Desync(b.step, b.seat, "digest", h.env.raw, self.own_evidence()))
            return False
        if not self._lone(b.seat, h.env.raw, "state"):
            self._fx.halt(Desync(b.step, b.seat, "state", h.env.raw, self.own_evidence()))
        return False

    def _lone(self, seat: int, raw: bytes, field: str) -> bool:
        """``seat`` signed ``raw``, its message of our current step, over another history than
        ours and no dispute explains it (§C3.4 'One seat's word'). True if it is refused as a
        lone mismatch: seat loss can act and at most ``active - Q`` seats signed current-step
        messages over other histories (``_others``: not counting a seat whose message still
        awaits its dispute, which an equivocation may explain), so the seats that may share
        ours can still form a quorum to vote them out (it may be one seat's lie: the digest
        fixes the history and the state hash follows, §C3.3). The message is not held (its
        seat's real one still can be), counted ``superseded``, reported once per seat and step
        (``PeerMisbehaved``) with a CATCHUP_REQ for our current step, whose records carry the
        seat's message a peer applied; if it never comes the seat is voted out as silent
        (§C8.3). False (the caller halts with Desync, as before): no drop possible (seat loss
        off, two seats), or more than ``active - Q`` seats signed over other histories: no
        quorum could drop them (we may be the odd one, a genuine divergence; else colluders
        who could block any drop anyway)."""
        s = self._s
        step, others = self._others
        if step != s.step:
            others = set()
            self._others = (s.step, others)
        first = seat not in others  # (one noted before was refused and reported, or we halted)
        others.add(seat)
        if s.replaying or not s.seats.drop_possible() or len(others) > s.seats.active_count() - s.seats.quorum:
            return False
        cur = s.steps.held(s.step, seat)
        if cur is not None and cur.env.raw == raw:
            s.steps.clear(s.step, seat)
        s.steps.refuse(s.step, s.epoch, raw)  # its replays: dropped before the verify (§C3.4)
        s.stats["superseded"] += 1
        if first:
            self._fx.emit(PeerMisbehaved(seat, s.step, f"signed over another history ({field})", raw))
            if not s.spectator:
                self._fx.send(s.catchup.request(s.step, s.now, s.step + 1))
        return True

    def settle_dispute(self, from_seat: int | None, head_step: int = 0, from_step: int = 0) -> None:
        """End a digest dispute: no equivocation was found in ``from_seat``'s record made at
        ``head_step``, so the disputed seat signed a wrong digest: Desync. When time ran out
        (``from_seat`` None) with seat loss able to drop it, we vote it out instead of halting:
        its answer may be held up by a partition, and if we are the ones who forked, our lone
        vote drops nobody while the others' records reach us (§C8.3)."""
        s = self._s
        d = self.disputes.settle(from_seat, head_step, from_step)
        if d is None or not s.running:
            return
        if from_seat is None and s.seats.drop_possible() and not s.spectator and s.active[d.seat]:
            if not s.seats.voted_this_epoch(s.step):
                self._fx.vote(d.seat)
            return
        if d.step == s.step and self._lone(d.seat, d.raw, "digest"):
            return  # its own answer proves nothing about the others: one seat's word (§C3.4)
        self._fx.halt(Desync(s.step, d.seat, "digest", d.raw, self.own_evidence()))

    def own_evidence(self) -> bytes:
        """Our signed message of the current step (made with input None if we had not sent
        one yet: it carries our prev hash and digest, which is what the evidence needs)."""
        s = self._s
        own = s.steps.own(s.step)
        if own is None:
            own = seal_message(self._identity, MSG_STEP, StepBody(self.setup.game_id, s.step, s.my_seat, s.state_hash,
                                                                  s.steps.prev_digest, None))
        return own

