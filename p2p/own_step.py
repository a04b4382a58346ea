"""The step the session enters and our own message of it (protocol.md §C3.1, §C3.5, §C8.2, §C9.2,
§C12.5, §C13.3).

Entering step k (``begin``) the session asks the engine what the step is (``pending``), whether
it opens hidden items (``inspection``, §C12.5) and whether it is an escrow round (§C8.2, decided
from the agreed history before any drop at k), and makes our message of it as the step asks:

* the attestation round (§C3.5): input nil;
* an inspection: input nil, our shares in the hidden field;
* a sealed open step (§C13.3): our opening (recovered after a restart, ``resume.Restart``);
* a chance step: our next hash-chain reveal, once every active seat's escrow is held (the reveal
  gate, ``reveal_waiting``), alone in the body at a plain chance step (the forced body, §C3.8:
  re-seat requests and acks wait for our next step that is not one); at an escrow round input
  nil with our acknowledgements, every escrow we hold sent along;
* a decision step: nothing now, the player submits (``send_own`` from ``submit_local_input``).

Our message is held, written ahead to the own-message log and sent (``send_own``); after a
restart or a catch-up we take the one we signed before instead of signing another
(``adopt_own``), and while a catch-up page brings the step's record (``records_coming``) we
sign nothing. The part owns that step context, the reveal gate and our hash chain (a re-seat
gives a new one, ``use_chain``); it reads the session through ``session_port.SessionView``
and acts through ``session_port.Effects``. Moved out of ``lockstep.py`` (issue 13).
"""

from __future__ import annotations

from typing import Any, Callable

from . import const as C
from .beacon import HashChain
from .errors import LocalProtocolError, WireError
from .escrow_acks import escrow_round
from .forced import plain_chance
from .identity import Identity
from .sealed import OPEN
from .session_events import BeaconExhausted
from .session_port import Effects, SessionView
from .step_collect import Held
from .wire import MSG_STEP, StepBody, decode_step_body, open_envelope, seal_envelope

__all__ = ["OwnStep"]


class OwnStep:
    """The current step's context and our message of it (module docstring).

    ``identity``: ours (signs our STEPs); ``chain``: our ``HashChain``; ``session``: read only
    (``SessionView``); ``effects``: what we do to it; ``restart``: a ``resume.Restart`` after a
    resume (our messages of later steps, a lost sealed opening), None in a fresh session."""

    def __init__(self, identity: Identity, chain: HashChain, session: SessionView, effects: Effects,
                 restart: Any = None) -> None:
        self._identity = identity
        self._s = session
        self._fx = effects
        self._restart = restart
        #: Our hash chain (its next reveal is value ``chance_count + 1``); a re-seat gives a new one.
        self.chain = chain
        #: ``engine.pending(state)`` of the current step.
        self.pending: Any = None
        #: The current step's inspection (hidden information, §C12.5), or None.
        self.inspection: list | None = None
        #: The current step is an escrow round (§C8.2), decided when it began, in that epoch.
        self.escrow_round = False
        self.round_epoch = 0
        #: Our reveal of this step waits for escrows (the reveal gate, §C8.2).
        self.reveal_waiting = False
        #: A catch-up page being applied holds the step records up to this step, each with our
        #: own message (``records_coming``); and the step we entered without making ours for it.
        self._records_until = -1
        self._own_deferred = -1
        #: The steps begun as plain chance steps, the last ``KEEP_STEPS`` (``plain_chance_at``).
        self._plain: set[int] = set()
        #: The current step if it began as a plain chance step, else -1 (``plain_chance``).
        self._plain_step = -1
        #: Called (no argument) right after our STEP of a step is made and queued (``send_own``),
        #: before the session goes on: the node sends it at once (issue 14: every other peer
        #: waits for it; what the session still does after it, the step's bookkeeping and the
        #: handler's return, is off their critical path). None: the caller drains the queue
        #: after each input, as every sans-I/O caller does.
        self.on_sent: Callable[[], None] | None = None

    def use_chain(self, chain: HashChain) -> None:
        """Play on with ``chain`` (our seat re-seated with a new chain, §C8.9)."""
        self.chain = chain

    def begin(self, now: float) -> bool:
        """Enter the session's current step at ``now``: query the engine, open the sealed and
        liveness parts' step, decide the escrow round, and make our message as the step asks
        (not if the catch-up page being applied brings it, ``records_coming``). False if we
        halted making it."""
        s = self._s
        engine, state, k = s.engine, s.state, s.step
        pending = self.pending = engine.pending(state)
        s.sealed.begin(k, engine, state)
        s.live.begin(now)
        self.reveal_waiting = False
        self.inspection = None
        inspecting = s.hidden is not None and pending.kind == "inspection"
        # An escrow round (§C8.2): a chance step whose escrows the agreed history has not all
        # confirmed; decided now, from steps < k, before any drop at k (``verify`` does the same).
        self.escrow_round = s.final_step != k and escrow_round(
            s.seats.acks, s.epoch, s.active, s.seats.escrow_needed(), pending.chance and not inspecting)
        self.round_epoch = s.epoch
        self._plain = {j for j in self._plain if j > k - C.KEEP_STEPS}
        self._plain_step = -1
        if plain_chance(pending.chance, self.escrow_round, s.hidden is not None, s.final_step == k):
            self._plain.add(k)
            self._plain_step = k
        if self._restart is not None:
            self._restart.reached(s)  # a step we played before a restart: its bytes, nothing new
        if s.final_step != k and inspecting:
            self.inspection = engine.hidden_items(state)  # what the step opens (§C12.5)
        self._own_deferred = -1
        if k <= self._records_until:
            self._own_deferred = k  # the page's record of this step brings ours (§C9)
            return True
        return self._own_message()

    def plain_chance(self) -> bool:
        """True if the current step is a plain chance step (protocol.md §C3.8,
        ``forced.plain_chance``): a chance step, not an escrow round, in a game without hidden
        information, not the attestation round. Every peer decides it alike from the agreed
        history when the step begins: there a seat's only message is its forced body, sent
        (``send_own``) and held (``session_inbox``) as such. Decided once, in ``begin`` (what it
        reads changes only there): asked ~6 times per step (issue 14)."""
        return self._plain_step == self._s.step

    def promised(self) -> bool:
        """True if we may cast no DROP or SKIP vote at the current step (§C8.3 'A voter's
        promise', §C10 'No vote below our signed step'): a restart left us below a step of
        which we signed a message before it, over a history in which we had applied this step
        (``resume.Restart.promised``)."""
        r = self._restart
        return r is not None and r.promised(self._s.step)

    def plain_chance_at(self, step: int) -> bool:
        """True if ``step`` was begun as a plain chance step (``plain_chance``), for the current
        step and the ``KEEP_STEPS`` before it (older ones: False). What a second version of a
        past step is judged by (§C3.8: a version with other fields is never kept there)."""
        return step in self._plain

    def records_coming(self, last: int | None) -> None:
        """Catch-up (``catchup.ingest_response``): the page being applied holds the step
        records up to step ``last``. Every step we enter up to it has a record with our own
        message in it (the others applied those steps: they held our message, signed before a
        restart, or nil for a seat dropped or skipped), so entering such a step we sign and send
        nothing: the record brings it (H42: a peer catching up signed and broadcast a reveal at
        every chance step it passed, 84 per 500 steps, stale for every other seat). ``None``:
        the page is applied; if it stopped at a step we entered without our message (a record
        refused), we make it now, as entering the step would have."""
        if last is not None:
            self._records_until = last
            return
        self._records_until = -1
        s = self._s
        if self._own_deferred == s.step and s.running:
            self._own_deferred = -1
            self._own_message()

    def _own_message(self) -> bool:
        """Our message of the step we enter, as the step asks (``begin``); False if we halted
        making it."""
        s = self._s
        mine = s.steps.has_own(s.step)
        if s.final_step == s.step:
            # The attestation round (§C3.5): input nil, no hidden field, nothing to decide.
            if not s.spectator and not mine:
                self.send_own(None, final=True)
        elif s.hidden is not None and self.pending.kind == "inspection":
            # Not a chance step for the hash chains: every seat opens its shares (§12.5).
            if not s.spectator and not mine:
                self.send_own(None)
        elif s.sealed.phase == OPEN:  # the phase ``sealed.begin`` gave this step
            # §C13.3: we hold every commitment (we applied the commit step): open ours at once.
            # Not while replaying our log: the record holds the opening we sent.
            if not s.spectator and not mine and not s.replaying:
                self._open()
        elif self.pending.chance and not s.spectator:
            if not s.escrows.gate_open():
                self.reveal_waiting = True  # §8.2: no reveal before every escrow is held
                s.live.arm_resend(s.now)
            else:
                self.make_reveal()
        return s.running

    def _open(self) -> None:
        """Send our input at a sealed open step (§C13.3): our opening (recovered first after a
        restart), or nil when a quorum skipped our turn at the commit step (we have no
        commitment there, §C8.10)."""
        s = self._s
        if self._restart is not None:
            self._restart.recover_opening(s)  # reached again (log replay or catch-up) after a restart
        self.send_own(None if s.my_seat in s.skips.skipped(s.step - 1) else s.sealed.opening())

    def make_reveal(self) -> None:
        """Our reveal of the current chance step now (the gate is open), or at an escrow round
        input nil with our acknowledgements (§C8.2); nothing if we hold ours already or our seat
        was dropped. Halts with ``BeaconExhausted`` past the chain's end."""
        s = self._s
        self.reveal_waiting = False
        if s.steps.has_own(s.step) or s.spectator:
            return  # already adopted from our log or a catch-up; or our seat was dropped
        if self.escrow_round:
            # Input nil, our acknowledgements; every escrow we hold goes along, so a seat that
            # lacks one (lost, or never dealt to it) gets it from us (§C8.2). Not while replaying
            # our log: the record holds the message we sent (with the acks we held then).
            if not s.replaying:
                for raw in s.seats.escrow_raws():
                    self._fx.send(raw)
                self.send_own(None)
            return
        j = s.chance_count + 1
        chain = self.chain
        if j > chain.length:
            self._fx.halt(BeaconExhausted(s.step))
            return
        chain.used = max(chain.used, j)
        self.send_own(chain.reveal_at(j))

    def after_replay(self) -> None:
        """The log replay is over (``LockstepSession.end_replay``) and the game goes on: queue
        our message of the current step, as signed before, or make it now (the opening of a
        sealed step, the reveal of an escrow round past its gate)."""
        s = self._s
        own = s.steps.own(s.step)
        if own is not None:
            self._fx.send(own)
        elif s.sealed.phase == OPEN and not s.spectator and s.final_step is None:
            self._open()
        elif self.escrow_round and not s.spectator:
            self.reveal_waiting = True  # not made while replaying (§C8.2): made now, past the gate
            if s.escrows.gate_open():
                self.make_reveal()

    def send_own(self, inp: Any, final: bool = False) -> None:
        """Sign our STEP of the current step with input ``inp`` (the attestation when
        ``final``), hold it, write it ahead to the own-message log and send it (not while
        replaying our log). The 8th field carries the re-seat requests we carry (§C8.9), the
        9th the escrows we have not acknowledged yet (§C8.2), the last of them left for our
        next STEP if the message would be oversize; at a plain chance step neither: the body is
        the forced one, 6 fields (``plain_chance``, §C3.8), and both wait for our next STEP."""
        s = self._s
        k = s.step
        hidden = None
        if s.view is not None and not final:
            hidden = tuple(s.view.my_field(k, self.inspection))
        # At a plain chance step our body is the forced one (§C3.8): no re-seat request, no ack.
        # Both are read afresh for each body we sign (``Reseat.field``, ``SeatLoss.owed_acks``
        # keep them), so they ride our next STEP that is not a plain chance step.
        bare = final or s.replaying or self.plain_chance()
        # Requests of returning players we carry (§C8.9): the 8th field, never in the attestation.
        carried = () if bare else tuple(s.reseat.field(s.now, s.reseating.carried_drops(), k))
        # The escrows we hold and have not acknowledged in an applied STEP (§C8.2): the 9th field.
        acks = () if bare else s.seats.owed_acks()
        while True:
            body = StepBody(s.game_id, k, s.my_seat, s.state_hash, s.steps.prev_digest, inp, hidden, carried, acks)
            try:
                env = seal_envelope(self._identity, MSG_STEP, body)  # the STEP table's encoder
                break
            except LocalProtocolError:  # oversize: the last acks wait for our next STEP (§C8.2)
                if not acks:
                    raise
                acks = acks[:-1]
        raw = env.raw
        s.steps.hold(k, s.my_seat, Held(body, env))
        if s.replaying:
            return
        if s.own_log is not None:
            s.own_log.append_own(k, raw)  # write-ahead: a restart re-sends these bytes
        self._fx.send(raw)
        s.live.arm_resend(s.now)
        if self.on_sent is not None:
            self.on_sent()

    def adopt_own(self, raw: bytes) -> bool:
        """Take ``raw`` (our own STEP envelope of the current step, from our own-message log or
        a catch-up) as our message of this step, so a restart never signs a second, different
        one. Returns False (nothing changed) if it is not a valid message of ours for this
        step or we already hold a different one."""
        s = self._s
        try:
            env = open_envelope(raw, C.MAX_STEP_MSG)
            b = decode_step_body(env.body)
        except WireError:
            return False
        if env.mtype != MSG_STEP or b.game_id != s.game_id or b.step != s.step or b.seat != s.my_seat \
                or not env.verify(self._identity.public_key) or s.spectator:
            return False
        if b.prev_hash != s.state_hash or b.prev_digest != s.steps.prev_digest:
            return False  # signed over another history (superseded by a drop, §C8.3)
        cur = s.steps.held(s.step, s.my_seat)
        if cur is not None:
            return cur.env.raw == raw
        s.steps.hold(s.step, s.my_seat, Held(b, env))
        self.reveal_waiting = False
        if not s.replaying:
            self._fx.send(raw)
            s.live.arm_resend(s.now)
        return True

    def answer(self, seat: int, step: int, now: float) -> None:
        """``seat`` re-sent its message of ``step`` (<= ours): if it may be stuck there
        lacking ours, send ours again (``StepCollector.answer`` rate-limits; §C3.4).

        Not answered (counted ``answer_needless``): a message of our own step (we wait there
        too and our resend timer re-sends ours, §C3.2), nor one of a seat whose message of
        ``step + 1`` we hold (it applied ``step``, so it holds ours). Our answer goes to every
        seat, so each one is a duplicate at all the others: answering those made every answer
        beget N-2 more, a storm that fed itself whenever a wave took longer than
        ``ANSWER_MIN_INTERVAL`` (a loaded machine) and crawled at ~1 step/s (issue 14)."""
        s = self._s
        if step >= s.step or s.steps.held(step + 1, seat) is not None:
            s.stats["answer_needless"] = s.stats.get("answer_needless", 0) + 1  # not in every session's keys
            return
        own = s.steps.answer(seat, step, now)
        if own is not None:
            self._fx.send(own)
            s.stats["answered"] += 1
