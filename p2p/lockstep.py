"""Sans-I/O lockstep session (DESIGN.md §2; protocol.md §C3, §5).

Theory of operation
-------------------
The game is a sequence of steps 0, 1, 2, ... At step k every seat sends one signed STEP
message ``[game_id, k, seat, prev_hash, prev_digest, input]`` where ``prev_hash`` is the engine
state hash after step k-1 (the initial state for k = 0) and ``prev_digest`` the digest of the
step k-1 message bodies in seat order (the setup hash for k = 0). ``input`` is an encoded engine
action or None at a decision step, and the seat's next hash-chain reveal at a chance step (the
session makes the reveal itself). When the session holds valid messages from all seats for step
k it applies them in seat order (``engine.apply_step`` or ``engine.apply_chance(beacon)``),
logs them, emits ``StepApplied`` and moves to step k+1.

A peer can be at most one step ahead of or behind another (nobody advances without everyone's
message), so messages for steps k+1 .. k+STEP_WINDOW-1 are buffered, older steps are answered
(we re-send our own message of that step: the sender is stuck and lacks it) and dropped.

Phases, role-agnostic (no seat has special rules)::

    running --all messages of the last step applied, engine terminal--> finished
    running --we or (no drop possible) another seat signed ABANDON--> abandoned
    running --Desync | Equivocation after applying | unprovable CheatDetected | BeaconExhausted--> halted

A provably bad signed message of another seat (equivocation, a bad reveal, a bad escrow) does
not halt: the evidence goes to every seat in a COMPLAINT and the culprit is voted out
(``complaints.py``, protocol.md §C8.8).

In ``finished`` the session still answers stragglers' old-step messages; in ``halted`` it
ignores all input. Bad bytes and bad signatures never change the phase: they are dropped and
counted (``stats``), bad signatures also reported as ``PeerMisbehaved``.

Parts (protocol.md §C3.6, §C8.6, §C9.5), each owning its state, as aioquic builds its
connection from recovery and stream objects: ``StepCollector`` (held messages, our own, the
digest; ``step_collect.py``), ``SeatLoss`` (active seats, escrows, votes, epochs;
``seat_loss.py``), ``CatchUp`` (history, peer ahead, rate limits; ``catchup.py``),
``Referee`` (complaints and digest disputes; ``referee.py``), ``EscrowGate`` (the
escrow glue; ``escrow_gate.py``), ``SessionVotes`` (drop votes: when, whom, cast, received,
decided; ``session_votes.py``), ``SessionSkips`` (``turn_skip.py``), ``SessionCatchUp``
(``catchup_session.py``), ``Abandons`` (``abandon.py``), ``Liveness`` (the step's resend, ALIVE,
stall and silence timers; ``liveness.py``) and, after a resume, ``resume.Restart``. The session
owns the step, the engine state and the phase, routes every message to its part and never
touches a part's private attributes (nor they the session's): the parts that act for it read
it through ``session_port.SessionView`` and act through ``session_port.Effects``.

Entry points follow aioquic: ``receive_message(data, now)``, ``submit_local_input(action)``,
``messages_to_send()``, ``next_event()``, ``get_timer()``, ``handle_timer(now)``.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Sequence

from . import const as C
from .beacon import HashChain
from .catchup import CatchUp
from .catchup_session import SessionCatchUp
from .complaints import EQUIVOCATION, Proof, same_history
from .drop_rules import default_bot
from .errors import LocalProtocolError, WireError
from .gamelog import KIND_ABANDON, KIND_DROP
from .hidden import HiddenLedger, hidden_secret, layout_of_state
from .identity import Identity
from .liveness import Liveness
from .private_view import PrivateView
from .sealed import COMMIT, OPEN, SealedDecisions, derive_salt
from .seat_loss import DropInfo, SeatLoss, drop_record
from .session_events import (BeaconExhausted, CaughtUp, CheaterProven, CheatDetected, Desync, Equivocation,
                             GameAbandoned, GameOver, PeerMisbehaved, PeerStalled, SeatDropped, SeatDropVoted,
                             SeatLost, SeatReturned, StepApplied, StepOverturned)
from .referee import Referee
from .own_step import OwnStep
from .record_ingest import RecordIngest
from .reseat import OffsetChain, Reseat
from .reseat_session import SessionReseat
from .session_port import Effects
from .session_timers import SessionTimers
from .step_advance import StepAdvance
from .step_collect import Held, StepCollector, step_digest
# Step resolution, shared with verify.py (step_resolve.py); re-exported here.
from .step_resolve import StepResult, hidden_bot, resolve_hidden, resolve_step
from .abandon import Abandons
from .session_votes import SessionVotes
from .escrow_gate import EscrowGate
from .turn_skip import SessionSkips, TurnSkip
from .wire import (MSG_ABANDON, MSG_ALIVE, MSG_CATCHUP_REQ, MSG_CATCHUP_RESP, MSG_COMPLAINT, MSG_DROP, MSG_ESCROW,
                   MSG_HINT, MSG_RESEAT, MSG_SKIP, MSG_STEP, Envelope, Setup, StepBody, decode_abandon, decode_alive,
                   decode_catchup_req, decode_catchup_resp, decode_complaint, decode_drop, decode_escrow, decode_hint,
                   decode_reseat, decode_skip, decode_step_body, engine_options, open_envelope,
                   setup_hash as compute_setup_hash)

__all__ = ["ABANDONED", "BeaconExhausted", "CaughtUp", "CheaterProven", "CheatDetected", "Desync", "DropInfo",
           "Equivocation", "FINISHED", "GameAbandoned", "GameOver", "HALTED", "Held", "LockstepSession", "PeerMisbehaved", "PeerStalled", "RUNNING",
           "SeatDropVoted", "SeatDropped", "SeatLost", "SeatReturned", "StepApplied", "StepOverturned", "StepResult",
           "hidden_bot", "resolve_hidden", "resolve_step", "step_digest"]

RUNNING = "running"
FINISHED = "finished"
HALTED = "halted"
ABANDONED = "abandoned"


# --- the session ----------------------------------------------------------------------------

class LockstepSession:
    """One peer's lockstep state machine. No I/O, no clock: time is passed in (seconds).

    ``setup``: the signed ``wire.Setup``; ``my_seat``: our index in ``setup.players``;
    ``identity``: must own ``setup.players[my_seat].public_key``; ``chain``: our ``HashChain``
    (its head must be our committed head); ``engine``: the engine module (ARCHITECTURE.md §1);
    ``game_seed``: 32 bytes from the seed reveals; ``state``: initial state (default
    ``engine.new_game(edition, seats, engine options)``); ``log``: optional
    ``gamelog.LogWriter``; ``own_log``: optional ``gamelog.OwnLog`` (write-ahead log of our own
    messages, for restarts); ``bot``: ``(state, seat) -> action | None`` that plays dropped
    seats (default ``engine.bots.choose(state, seat, "default")``); ``restart``: a
    ``resume.Restart`` after a resume (our messages of later steps, the recovery of a lost
    sealed opening), None in a fresh session.

    Seat loss (protocol.md §C8) is on when the setup has the ``p2p.on_drop`` option; catch-up and
    hints (§9) always work. Raises ``LocalProtocolError`` if identity or chain do not match the
    setup.
    """

    def __init__(self, setup: Setup, my_seat: int, identity: Identity, chain: HashChain, engine: Any,
                 game_seed: bytes, *, state: Any = None, log: Any = None, now: float = 0.0,
                 setup_bytes: bytes | None = None, own_log: Any = None, bot: Any = None,
                 hidden_commits: Sequence[bytes] | None = None, _resuming: bool = False,
                 restart: Any = None) -> None:
        if not 0 <= my_seat < setup.seats:
            raise LocalProtocolError("my_seat out of range")
        me = setup.players[my_seat]
        if me.public_key != identity.public_key:
            raise LocalProtocolError("identity does not own my_seat")
        if chain.head != me.chain_head or chain.length != setup.chain_length:
            raise LocalProtocolError("hash chain does not match the committed head/length")
        self.setup = setup
        self.game_id = setup.game_id
        self.my_seat = my_seat
        self.n = setup.seats
        self.identity = identity
        self.engine = engine
        self.game_seed = game_seed
        self.log = log
        self.own_log = own_log
        self.setup_hash = compute_setup_hash(setup_bytes if setup_bytes is not None else setup.encode())
        self._pubkeys = [p.public_key for p in setup.players]
        self.state = state if state is not None else engine.new_game(setup.edition, setup.seats, engine_options(setup))
        #: The parts (module docstring).
        self.steps = StepCollector(self.n, my_seat, self.setup_hash)
        self.seats = SeatLoss(setup, my_seat, identity, chain.value(0), engine)
        self.catchup = CatchUp(identity, self.game_id, my_seat)
        if getattr(log, "path", None) is not None:
            self.catchup.use_log(log.path)  # old records are served from the log (flat memory)
        #: Votes to let an idle seat's turn pass, and the turns skipped (protocol.md §C8.10).
        self.skips = TurnSkip(self.game_id, self._pubkeys, my_seat, identity)
        #: Sealed simultaneous decisions (protocol.md §C13): the phase of each step, our opening.
        self.sealed = SealedDecisions(self.game_id, my_seat, lambda k: derive_salt(identity, setup.game_id, k))
        #: The current step's timers (liveness.py): resend, ALIVE, stall, silence (§C8.3).
        self.live = Liveness(min(C.KEEPALIVE_INTERVAL, self.seats.drop_timeout / 3) if self.seats.on else None, now)
        #: Hidden information (protocol.md §C12): the public ledger and our private view, or None.
        self.hidden: HiddenLedger | None = None
        self.view: PrivateView | None = None
        layout = layout_of_state(self.state)
        if layout is not None:
            if hidden_commits is None or any(not c for c in hidden_commits):
                raise LocalProtocolError("a game with hidden information needs every seat's commitment")
            self.hidden = HiddenLedger(self.game_id, self.n, layout, hidden_commits, self.state)
            self.view = PrivateView(self.hidden, my_seat, hidden_secret(chain.value(0)), identity,
                                    [p.x25519_key for p in setup.players])
            self.view.refresh(self.state)
        #: Re-seating returning players (protocol.md §C8.9): requests we carry, our own.
        self.reseat = Reseat(setup, my_seat, hidden=self.hidden is not None)
        if bot is None:
            bot = hidden_bot(engine) if self.hidden is not None else default_bot(engine)
        #: Step we are collecting messages for.
        self.step = 0
        #: The attestation step (protocol.md §C3.5) once the engine is terminal, else None.
        self.final_step: int | None = None
        #: Chance steps applied so far (the next one reveals chain value n - chance_count - 1).
        self.chance_count = 0
        #: Engine state hash after step - 1 (32 bytes).
        self.state_hash: bytes = engine.state_hash(self.state)
        self.phase = RUNNING
        #: Why the session halted (an event), or None.
        self.halt_reason: Any = None
        #: True once our own seat was dropped: we follow the game, never send step messages.
        self.spectator = False
        self._replaying = _resuming  # resume.py replays our log: no sends, no log writes
        self._out: list[bytes] = []
        self._events: deque = deque()
        self._now = now
        #: Counters of dropped/answered messages, for the node's status line.
        self.stats: dict[str, int] = dict.fromkeys(
            ("received", "accepted", "duplicate", "malformed", "wrong_type", "wrong_game", "bad_seat",
             "bad_signature", "stale", "too_far", "answered", "resent", "escrow", "drop_votes",
             "catchup_requests", "catchup_served", "catchup_records", "hints", "forwarded", "forward_limited", "ignored",
             "alive", "alive_sent", "complaints", "abandons", "superseded", "skip_votes"), 0)
        #: The parts that act for the session through ``Effects`` (session_port.py): complaints
        #: and digest disputes (referee.py, whose ledgers the other parts read), the escrow glue.
        fx = Effects(send=self._send, emit=self._events.append, halt=self._halt, vote=self._vote_drop,
                     vote_cheaters=self._vote_cheaters, advance=self._try_advance,
                     push_records=self._answer_with_records, verified=self._verified,
                     end_abandoned=self._end_abandoned, prove=self._prove, history_proof=self._history_proof,
                     reveal=self._make_reveal, hint=self._hint, forward=self._forward,
                     request_catchup=self.request_catchup, apply_drop=self._apply_drop)
        self.referee = Referee(setup, identity, self, fx)
        self.complaints = self.referee.complaints
        self.disputes = self.referee.disputes
        #: Step, skip and past-drop records from our log or a catch-up (record_ingest.py).
        self.ingest = RecordIngest(setup, identity, self, fx)
        #: The step we enter and our message of it, our hash chain (own_step.py; after a resume
        #: it holds ``resume.Restart``: our messages signed before, a lost sealed opening).
        self.own = OwnStep(identity, chain, self, fx, restart)
        #: The session's side of re-seating (reseat_session.py; the requests are ``reseat``'s).
        self.reseating = SessionReseat(identity, self, fx)
        #: A complete step resolved and recorded (step_advance.py); it owns the bot that plays
        #: dropped and skipped seats and every seat's last reveal.
        self.advance = StepAdvance(setup, game_seed, bot, self, fx)
        self.escrows = EscrowGate(self, fx, self._pubkeys)
        self.abandons = Abandons(identity, self.game_id, self, fx)
        #: The session's side of turn skips (turn_skip.SessionSkips; the votes stay in ``skips``).
        self.skipping = SessionSkips(self, fx)
        #: The session's side of catch-up (catchup_session.py; its state is ``catchup``).
        self.catching = SessionCatchUp(self, fx, self, self.referee.settle_dispute,
                                       lambda: self._send_escrow(resend=True))
        #: The session's side of the drop votes (session_votes.py; the votes are ``seats``').
        self.votes = SessionVotes(self, fx, self.abandons.left)
        #: The step's deadlines and what each does when it comes (session_timers.py).
        self.timers = SessionTimers(identity, self, fx, self.abandons.left)
        #: Decoder and handler of each non-STEP session message type: the part that owns it.
        self._handlers = {
            MSG_ESCROW: (decode_escrow, self.escrows.receive), MSG_DROP: (decode_drop, self.votes.receive),
            MSG_CATCHUP_REQ: (decode_catchup_req, self.catching.on_request),
            MSG_CATCHUP_RESP: (decode_catchup_resp, self.catching.on_response),
            MSG_HINT: (decode_hint, self.catching.on_hint), MSG_ALIVE: (decode_alive, self.timers.on_alive),
            MSG_ABANDON: (decode_abandon, self.abandons.receive),
            MSG_COMPLAINT: (decode_complaint, self.referee.on_complaint),
            MSG_SKIP: (decode_skip, self.skipping.receive), MSG_RESEAT: (decode_reseat, self.reseating.receive)}
        self._send_escrow()
        self._begin_step()

    # -- queries --

    @property
    def pending(self) -> Any:
        """``engine.pending(state)`` for the current step."""
        return self.own.pending

    @property
    def chain(self) -> HashChain:
        """Our hash chain (a re-seat gives a new one, §C8.9)."""
        return self.own.chain

    @property
    def seat_loss(self) -> bool:
        """True if the setup turned seat loss on (``p2p.on_drop`` option)."""
        return self.seats.on

    @property
    def on_drop(self) -> str | None:
        """Seat-loss rule ("bot", "bankrupt") or None when seat loss is off."""
        return self.seats.rule

    @property
    def drop_timeout(self) -> float:
        """Seconds of silence before we vote a seat out (protocol.md §C8.3)."""
        return self.seats.drop_timeout

    @property
    def turn_time(self) -> float:
        """Seconds an alive seat may think at one step before we vote it out; 0.0 = unlimited."""
        return self.seats.turn_time

    @property
    def active(self) -> list[bool]:
        """active[i]: seat i still sends messages (not dropped). Read only."""
        return self.seats.active

    @property
    def dropped(self) -> dict[int, DropInfo]:
        """Dropped seats: seat -> DropInfo. Read only."""
        return self.seats.dropped

    @property
    def epoch(self) -> int:
        """Escrow/vote epoch: the number of seats dropped so far."""
        return self.seats.epoch

    @property
    def prev_digest(self) -> bytes:
        """Digest of the last applied step (the setup hash before step 0), 32 bytes."""
        return self.steps.prev_digest

    @property
    def step_started(self) -> float:
        """When the current step began (the caller's clock, seconds)."""
        return self.live.step_started

    @property
    def running(self) -> bool:
        """True while the game runs (phase ``running``)."""
        return self.phase == RUNNING

    @property
    def replaying(self) -> bool:
        """True while resume.py replays our log (no sends, no log writes)."""
        return self._replaying

    @property
    def now(self) -> float:
        """The caller's clock at the last input or timer (seconds)."""
        return self._now

    @property
    def inspection(self) -> Any:
        """The current step's inspection (hidden information, §C12), or None."""
        return self.own.inspection

    @property
    def escrow_round(self) -> bool:
        """True if the current step is an escrow round (§C8.2)."""
        return self.own.escrow_round

    @property
    def round_epoch(self) -> int:
        """The epoch in which the current step's escrow round was decided (§C8.2)."""
        return self.own.round_epoch

    @property
    def reveal_waiting(self) -> bool:
        """True while our reveal of this step waits for escrows (the reveal gate, §C8.2)."""
        return self.own.reveal_waiting

    @property
    def last_reveals(self) -> list:
        """Per seat, its last hash-chain reveal (its committed head before any). Read only."""
        return self.advance.last_reveals

    def _send(self, raw: bytes) -> None:
        self._out.append(raw)

    def needs_local_input(self) -> Any:
        """The engine's ``Pending`` if the local seat must submit an input (action or None) for
        the current decision step, else None (already submitted, chance step, finished,
        halted, or we are a spectator). At chance steps the session makes the reveal itself."""
        if self.phase != RUNNING or self.final_step is not None or self.own.pending.chance or self.spectator:
            return None
        if self.sealed.phase == OPEN or self.steps.has_own(self.step):
            return None
        return self.own.pending

    def waiting_for(self) -> tuple[int, ...]:
        """Active seats whose message for the current step we do not hold yet (may include
        ours). Dropped seats are never waited for, nor seats whose turn a quorum skipped."""
        if self.phase != RUNNING:
            return ()
        return self.steps.missing(self.step, self._awaited(self.step))

    def _awaited(self, k: int) -> list[bool]:
        """Per seat: its message of step ``k`` is needed (active, turn not skipped, §C8.10)."""
        skipped = self.skipping.skipped_seats(k)
        if not skipped:
            return self.seats.active  # the usual case: no copy
        return [a and i not in skipped for i, a in enumerate(self.seats.active)]

    def skippable(self) -> bool:
        """True if a seat's turn at the current step may be skipped by a quorum (protocol.md
        §C8.10; ``turn_skip.SessionSkips.skippable``)."""
        return self.skipping.skippable()

    def skip_tallies(self) -> list:
        """The votes held to skip a seat's turn at the current step: one ``turn_skip.Tally``
        (seat, votes, quorum, ours) per seat with at least one vote, for the status line."""
        return self.skipping.tallies()

    def drop_deadline(self) -> float | None:
        """When we will cast our vote of this step and epoch against a seat we still wait for
        (seconds, the caller's clock), or None (``session_votes.SessionVotes.drop_deadline``)."""
        return self.votes.drop_deadline()

    def vote_time(self, seat: int) -> float:
        """When we vote to drop ``seat`` at the current step if its message has not come
        (protocol.md §C8.3; ``session_votes.SessionVotes.vote_time``)."""
        return self.votes.vote_time(seat)

    def turn_deadline(self) -> float | None:
        """When the others vote our seat out if we still have not sent our input for this
        step (the turn time, protocol.md §C8.3), for a countdown; None if seat loss is off, the turn
        time unlimited or no local input is awaited."""
        if not self.seat_loss or not self.turn_time or self.needs_local_input() is None:
            return None
        return self.live.step_started + self.turn_time

    def paused(self) -> tuple[int, ...]:
        """Seats we wait for with no drop to come from us (protocol.md §C8.3): seat loss on,
        and either no drop is possible (two seats, or fewer than Q others active) or we
        already cast our vote of this step and epoch. The game goes on from this step when
        they come back (or when a quorum of votes arrives); () when we are not paused.
        Also paused: a voter that holds every message of the step but neither a certificate
        nor a quorum (the votes split, §C8.3 "Split votes"): it names the seats it voted
        against, which it may not apply without one, so that its node reports the stall and
        gives up after its stall limit like any paused peer instead of waiting for ever."""
        if not self.seat_loss or self.phase != RUNNING or self.spectator:
            return ()
        k = self.step
        if not self.waiting_for() and self.seats.voted_at(k) and not self.votes.certified(k):
            return tuple(i for i in range(self.n) if self.active[i] and self.seats.has_voted(k, i))
        if self.seats.drop_possible() and not self.seats.voted_this_epoch(k):
            return ()
        return tuple(i for i in self.waiting_for() if i != self.my_seat)

    def history(self) -> Any:
        """Every log record of the game after the header so far: a read-only sequence of
        (kind, payload, step) (``history.History``: old ones are read back from the log).
        What spectators are served (§N10)."""
        return self.catchup.records()

    # -- outputs --

    def messages_to_send(self) -> list[bytes]:
        """Envelopes to broadcast to every other seat (drains the queue)."""
        out, self._out = self._out, []
        return out

    def next_event(self) -> Any:
        """Next event (``StepApplied``, ``GameOver``, ``PeerMisbehaved``, ``Desync``,
        ``Equivocation``, ``CheatDetected``, ``BeaconExhausted``, ``PeerStalled``,
        ``SeatDropVoted``, ``SeatDropped``, ``SeatLost``, ``CaughtUp``) or None."""
        return self._events.popleft() if self._events else None

    def get_timer(self) -> float | None:
        """Earliest time ``handle_timer`` must be called, or None (``SessionTimers.next``)."""
        return self.timers.next()

    # -- inputs --

    def submit_local_input(self, action: Any, now: float | None = None) -> None:
        """Submit our input for the current decision step: an engine Action or None.

        Raises ``LocalProtocolError`` (nothing changed) if no input is needed now (see
        ``needs_local_input``). The action is sent as given: the engine refuses it at apply
        time if it is illegal then (ARCHITECTURE.md §1).
        """
        if self.needs_local_input() is None:
            raise LocalProtocolError(f"no local input expected at step {self.step} (phase {self.phase})")
        if now is not None:
            self._now = now
        inp = None if action is None else self.engine.encode_action(action)
        if self.sealed.phase == COMMIT:
            inp = self.sealed.seal(inp)  # §C13.2: the commitment now, the opening next step
        self.own.send_own(inp)
        self._try_advance()

    def vote_out(self, seat: int, now: float | None = None) -> bool:
        """Our player votes, now, to drop ``seat``, which the current step waits for (protocol.md
        §C13.6: a majority need not wait for the turn time to get rid of a seat that stalls).
        Signs and sends the same DROP(step, seat) an honest peer sends at the drop timeout or
        the turn time (§C8.3); the seat is dropped once the quorum voted, and played by the
        lobby's rule. Returns False (nothing sent) if seat loss is off or cannot drop now, the
        seat is ours, not active, not awaited, or we already voted on it at this step."""
        if now is not None:
            self._now = now
        if self.phase != RUNNING or self.spectator or self._replaying or not self.seats.drop_possible() \
                or not 0 <= seat < self.n or seat == self.my_seat or not self.active[seat] \
                or seat not in self.waiting_for() or self.seats.has_voted(self.step, seat):
            return False
        self._vote_drop(seat)
        return True

    def skip_turn(self, seat: int, now: float | None = None) -> bool:
        """Our player votes, now, to let ``seat``'s turn at the current step pass (protocol.md
        §C8.10): sign SKIP(step, seat, epoch), write it to the own-message log, send it. Once Q
        active seats other than ``seat`` voted, its input at this step is nil and it keeps its
        seat. Returns False (nothing sent) if the step cannot be skipped (``skippable``), the
        seat is ours, not active, not awaited, or we already voted on it in this epoch."""
        if now is not None:
            self._now = now
        if not self.skipping.may_skip(seat, self.waiting_for()):
            return False
        self.skipping.vote(seat)
        return True

    def receive_message(self, data: bytes, now: float) -> None:
        """Handle one session envelope from a peer (STEP, ESCROW, DROP, CATCHUP_REQ,
        CATCHUP_RESP, HINT: ``wire.SESSION_TYPES``). Never raises for bad input: it is dropped
        and counted in ``stats``; protocol violations become events. Every signature is
        verified on receipt, whatever channel brought the message (§C3.4)."""
        self._now = now
        st = self.stats
        st["received"] += 1
        if self.phase == HALTED:
            return
        try:
            env = open_envelope(data, C.MAX_CATCHUP_MSG)
            if env.mtype != MSG_STEP:
                handler = self._handlers.get(env.mtype)
                if handler is None:
                    st["wrong_type"] += 1
                    return
                msg = handler[0](env.body)
            else:
                if len(data) > C.MAX_STEP_MSG:
                    raise WireError("step message too long")
                b = decode_step_body(env.body)
        except WireError:
            st["malformed"] += 1
            return
        if env.mtype != MSG_STEP:
            if msg.game_id != self.game_id:
                st["wrong_game"] += 1
                return
            handler[1](env, msg, now)
            return
        if b.game_id != self.game_id:
            st["wrong_game"] += 1
            return
        self._on_step(b, env, now)

    def _on_step(self, b: StepBody, env: Envelope, now: float) -> None:
        st = self.stats
        seat, s = b.seat, b.step
        if seat >= self.n or seat == self.my_seat:
            # Nobody else may speak for our seat; a valid one would mean our key leaked.
            st["bad_seat"] += 1
            return
        k = self.step
        held = self.steps.held(s, seat)
        if held is not None:
            if held.env.body == env.body:
                st["duplicate"] += 1
                if s <= k:  # the sender re-sends: it is stuck at step s, maybe lacking ours
                    self._answer(seat, s, now)
                    if s == k - 1 and env.raw == held.env.raw:
                        # It is alive, one step behind, waiting for a message it lacks: not
                        # silent at our step (bounded, it may be a replay: Liveness.heard_behind).
                        self.live.heard_behind(seat, now)
                return
            if not env.verify(self._pubkeys[seat]):
                self._bad_signature(b, env)
                return
            if not same_history(held.body, b):
                self._other_history(held, Held(b, env), s)
                return
            # Two signed messages of one seat for one step over one history: proof (§C8.8).
            self._prove(seat, s, EQUIVOCATION, "signed two different messages for one step",
                        [held.env.raw, env.raw], halt=Equivocation(s, seat, held.env.raw, env.raw))
            return
        if s < k:
            st["stale"] += 1
            if s + 1 < k or self.steps.own(s) is None:
                self._hint(seat, now)  # more than one step behind: it needs a catch-up
            else:
                self._answer(seat, s, now)
            return
        if s >= k + C.STEP_WINDOW:
            st["too_far"] += 1
            self.catchup.note_ahead(seat, s)  # only a trigger to ask that seat; records are verified
            return
        if not self.active[seat] and self.dropped[seat].step <= s:
            st["ignored"] += 1  # a dropped seat's late messages change nothing
            return
        # Every STEP is verified on receipt, whatever channel brought it (§C3.4; §C3.7 says why
        # deferring this check was not taken).
        if not env.verify(self._pubkeys[seat]):
            self._bad_signature(b, env)
            return
        if self.phase != RUNNING:  # finished: nothing more to apply
            st["stale"] += 1
            return
        st["accepted"] += 1
        held = Held(b, env)
        self.steps.hold(s, seat, held)
        if s == k:
            if not self._check_prev(held):
                return
            if self.own.reveal_waiting and self.escrows.gate_open():
                self._make_reveal()  # its message stands in for its missing escrow (§C8.2)
            self._try_advance()
        else:
            self.catchup.note_ahead(seat, s)
            if s == k + 1 and (self.seats.voted_at(k) or self.skips.voted_against(k, self.epoch)):
                self._try_advance()  # it may complete our certificate (§C8.3)

    def handle_timer(self, now: float) -> None:
        """Re-send our current step message if the step is stuck (exponential back-off from
        RESEND_INTERVAL to RESEND_MAX_INTERVAL), report ``PeerStalled`` every STALL_TIMEOUT,
        vote to drop seats silent for the drop timeout, and ask a peer that is ahead for a
        catch-up (``SessionTimers.fire``)."""
        self._now = now
        self.timers.fire(now)

    def dump(self) -> dict:
        """A JSON-able report of the session for a bug report or evidence file: step, phase,
        hashes (hex), stats, halt reason, held messages (hex), dropped seats, and the encoded
        state if the engine offers ``encode_state``."""
        d = {
            "game_id": self.game_id.hex(),
            "my_seat": self.my_seat,
            "step": self.step,
            "phase": self.phase,
            "state_hash": self.state_hash.hex(),
            "prev_digest": self.prev_digest.hex(),
            "setup_hash": self.setup_hash.hex(),
            "stats": dict(self.stats),
            "halt_reason": None if self.halt_reason is None else _event_json(self.halt_reason),
            "held": self.steps.dump(),
            "dropped": {str(k): [v.step, v.rule, v.chain is not None] for k, v in sorted(self.dropped.items())},
        }
        enc = getattr(self.engine, "encode_state", None)
        if enc is not None:
            d["state"] = enc(self.state).hex()
        return d

    def restart_timers(self, now: float) -> None:
        """Restart the current step's timers at ``now`` (after a resume: the log's steps
        happened in another run, on another clock)."""
        self._now = now
        self.live.restart(now)
        self.catchup.restart()

    # -- resume (protocol.md §C10; resume.py drives these) --

    def end_replay(self, log: Any, own_log: Any, now: float) -> None:
        """The log replay is over (``resume.resume_session``): forget the replayed steps'
        events and queued sends, write to ``log``/``own_log`` from now on, restart the timers,
        and (if the game goes on) queue our own message of the current step, our escrow and a
        CATCHUP_REQ."""
        self._replaying = False
        self._events.clear()  # replayed steps were reported in the previous run
        self._out = []
        self.log = log
        if getattr(log, "path", None) is not None:
            self.catchup.use_log(log.path)
        if own_log is not None:
            self.own_log = own_log
        self.restart_timers(now)
        if self.phase != RUNNING:
            return
        self.own.after_replay()  # our message of this step, as signed or made now
        self._out.extend(self.seats.own_votes(self.step))  # our vote of this step, as signed
        self._out.extend(self.skips.own_votes(self.step, self.epoch))  # and our SKIP votes (§C8.10)
        self._send_escrow(resend=True)
        # From the step before ours: if the others dropped our seat (or another) at the last
        # step we applied, that DROP record is in the answer (SeatLost / StepOverturned, §C8.3).
        self.request_catchup(now, max(0, self.step - 1))

    # -- abandon (protocol.md §C8.7) --

    def abandon(self, now: float | None = None) -> None:
        """End the game here as abandoned: sign ABANDON [gid, our seat, step, state hash,
        digest], broadcast it, log it as the last record and emit ``GameAbandoned``. For a
        player who does not want to wait any longer for a seat that no quorum can drop.
        Raises ``LocalProtocolError`` unless running and seated (abandon.py)."""
        self.abandons.abandon()
        if now is not None:
            self._now = now

    def _end_abandoned(self, seat: int, raw: bytes) -> None:
        if self.log is not None and not self._replaying:
            self.log.append_abandon(raw)
        self.catchup.record(KIND_ABANDON, raw, self.step)
        self.phase = ABANDONED
        self.live.stop_resend()
        self._events.append(GameAbandoned(self.step, seat, self.state_hash))

    # -- complaints (protocol.md §C8.8) --

    def _prove(self, culprit: int, step: int, kind: int, reason: str, evidence: list, key: bytes | None = None,
               complaint: bytes | None = None, halt: Any = None) -> None:
        """``culprit`` is proven to cheat (``Referee.prove``): COMPLAINT, vote, or halt."""
        self.referee.prove(culprit, step, kind, reason, evidence, key, complaint, halt)

    def _vote_cheaters(self) -> None:
        self.votes.vote_cheaters()  # against a proven cheater or a seat that left (§C8.7, §C8.8)

    def ingest_record(self, kind: int, payload: bytes) -> str | None:
        """Apply a COMPLAINT or ABANDON log record (from our log or a catch-up) through the
        live checks (``Referee.ingest_record``). Returns None, or why it was refused (English)."""
        return self.referee.ingest_record(kind, payload)

    # -- catch-up (protocol.md §C9) --

    def request_catchup(self, now: float | None = None, from_step: int | None = None) -> None:
        """Ask every other active seat for the records from our step on (or ``from_step``):
        ``catchup_session.SessionCatchUp.request`` (§C9.1)."""
        if now is not None:
            self._now = now
        self.catching.request(from_step)

    def _answer_with_records(self, seat: int) -> None:
        self.catching.push_records(seat)  # our last records to a seat that needs them, unasked

    def _hint(self, seat: int, now: float) -> None:
        self.catching.hint(seat, now)  # HINT to a seat that is behind (§C9.3)

    def _verified(self, env: Envelope, seat: int, step: int) -> bool:
        """Check ``seat``'s signature on a non-STEP message; a bad one is counted and reported."""
        if env.verify(self._pubkeys[seat]):
            return True
        self.stats["bad_signature"] += 1
        self._events.append(PeerMisbehaved(seat, step, "bad signature", env.raw))
        return False

    # -- records from our log or a catch-up (record_ingest.py, §C3.4, §C8.3, §C8.10, §C9) --

    def ingest_step_record(self, step: int, raws: Any) -> str | None:
        """Apply the complete record of our current ``step`` (``RecordIngest.ingest_step_record``).
        Returns None, or why the record was refused (English)."""
        return self.ingest.ingest_step_record(step, raws)

    def check_past_drop(self, payload: bytes) -> bool:
        """A DROP record of a step we applied with that seat's message: halt, True
        (``RecordIngest.check_past_drop``)."""
        return self.ingest.check_past_drop(payload)

    def check_past_skip(self, payload: bytes) -> bool:
        """A kind-6 record of a step we applied with that seat's message: halt, True
        (``RecordIngest.check_past_skip``)."""
        return self.ingest.check_past_skip(payload)

    def ingest_skip_record(self, payload: bytes) -> str | None:
        """Take a kind-6 record of our current step (``RecordIngest.ingest_skip_record``).
        Returns None or why it was refused."""
        return self.ingest.ingest_skip_record(payload)

    def cross_check(self, step: int, raws: Any, sender: int | None = None) -> bool:
        """Compare a peer's record of an applied ``step`` with ours (``RecordIngest.cross_check``).
        Returns True if the session halted."""
        return self.ingest.cross_check(step, raws, sender)

    def adopt_equivocation(self, step: int, seat: int, chosen: bytes, other: bytes) -> bool:
        """Hold ``chosen`` after ``StepOverturned(step, seat, chosen, other)`` and a restart
        (``RecordIngest.adopt_equivocation``). Returns False (nothing done) if refused."""
        return self.ingest.adopt_equivocation(step, seat, chosen, other)

    # -- seat loss (protocol.md §C8) --

    def _send_escrow(self, resend: bool = False) -> None:
        self.escrows.send(resend)  # our escrow of the epoch when made, and on a re-send (§C8.2)

    def adopt_vote(self, raw: bytes) -> bool:
        """Take ``raw`` (our own DROP or SKIP vote of the current step, from our own-message log
        after a restart) as cast (``session_votes.SessionVotes.adopt``). False if it is not
        such a vote."""
        return self.votes.adopt(raw)

    def _vote_drop(self, seat: int) -> None:
        self.votes.vote(seat)  # our one DROP vote of this step and epoch (§C8.3)

    def _forward(self, voter: int, raw: bytes, now: float) -> None:
        self.votes.forward(voter, raw, now)  # within the voter's forwarding budget (§C8.3)

    def ingest_drop_record(self, payload: bytes) -> str | None:
        """Apply a DROP log record (from our log or a catch-up) for our current step
        (``session_votes.SessionVotes.ingest_record``). Returns None or why it was refused."""
        return self.votes.ingest_record(payload)

    # -- re-seating a returning player (protocol.md §C8.9; reseat_session.py) --

    def request_reseat(self, secret: bytes, now: float | None = None) -> bool:
        """Ask to play our dropped seat again with a new hash chain of ``secret`` (32 bytes,
        fresh; the caller keeps it first: a restart needs it, ``restore_reseat_secret``). Sent
        now and every ``RESEAT_RESEND`` s until the seat is back (``SeatReturned``). Returns
        False (nothing sent) unless we are a spectator of a running game whose bot plays our
        seat and re-seating is offered (``SessionReseat.request``)."""
        if now is not None:
            self._now = now
        return self.reseating.request(secret)

    def restore_reseat_secret(self, secret: bytes) -> None:
        """Before a log replay (``resume``): the secret of our last request, so a re-seat found
        in the log gives us our new chain back."""
        self.reseat.restore(secret)

    def _readmit(self, seat: int, chain_head: bytes) -> None:
        """``seat`` is played by its player again from the current step (§C8.9,
        ``SessionReseat.readmit``): its previous reveal is ``chain_head``; if it is ours, we
        play again with our new chain. Then our escrow of the new epoch."""
        chain = self.reseating.readmit(seat, chain_head)
        self.advance.new_head(seat, chain_head)
        if chain is not None:
            self.own.use_chain(chain)
            self.spectator = False
        self._events.append(SeatReturned(self.step, seat))
        self._send_escrow()

    def _apply_drop(self, k: int, seat: int, votes: list, esc_raw: bytes | None, chain: HashChain | None) -> None:
        if seat == self.my_seat:
            self.spectator = True
        base = self.reseat.bases.get(seat)
        if chain is not None and base is not None:
            chain = OffsetChain(chain, base)  # a re-seated seat's chain starts after b chance steps (§C8.9)
        resign = self.skips.voted_against(k, self.epoch)  # our SKIP votes: re-signed in the new epoch
        info = self.seats.apply(k, seat, chain)
        self.steps.clear(k, seat)
        payload = drop_record(k, seat, votes, esc_raw)
        if self.log is not None and not self._replaying:
            self.log.append_drop(payload)
        self.catchup.record(KIND_DROP, payload, k)
        if self.hidden is not None:
            self.hidden.drop(seat, None if chain is None else hidden_secret(chain.value(0)))
        if info.cheat is not None:
            # The quorum's shares prove its escrow bad; the DROP record is the evidence (§C8.3).
            self.complaints.prove(Proof(seat, k, info.cheat, payload))
            self._events.append(CheaterProven(k, seat, info.cheat, payload))
        self._events.append(SeatDropped(k, seat, info.rule, chain is not None))
        self._send_escrow()
        if self.own.reveal_waiting and self.escrows.gate_open():
            self._make_reveal()
        for d in resign:  # the player asked once; the votes of the old epoch no longer count (§C8.10)
            if self.step == k and self.phase == RUNNING and not self._replaying and self.skippable() \
                    and self.skips.may_vote(k, d, self.seats.active, self.epoch, self.waiting_for()):
                self.skipping.vote(d)
        self._try_advance()
        if self.step == k and self.phase == RUNNING:
            self._vote_cheaters()  # a new epoch at the same step: our next vote

    # -- hidden information (protocol.md §C12) --

    def private_view(self) -> dict:
        """What our player may know privately: {("bill", id) | ("card", index): fake} for
        every bill or Imprevisti whose shares we hold in full ({} without hidden information,
        or as a spectator), an ``engine.Knowledge`` carrying our bill-order
        secret (§C12.7). For our own bot/UI only: it never leaves this peer."""
        if self.view is None or self.spectator:
            return {}
        return self.view.bot_view()

    # -- internals --

    def _begin_step(self) -> None:
        """Enter step ``self.step``: the step's context and our message of it
        (``OwnStep.begin``), then check the messages and votes buffered for this step."""
        if not self.own.begin(self._now):
            return
        for i, h in enumerate(self.steps.slots(self.step)):
            # Every buffered message, not only up to the first that fails: one superseded
            # message must not leave a later seat's unchecked (§C8.3).
            if h is not None and i != self.my_seat and not self._check_prev(h) and self.phase != RUNNING:
                return
        k = self.step
        for seat in self.seats.vote_targets(k):
            self.votes.check(seat)  # votes that arrived before we reached this step
            if self.step != k or self.phase != RUNNING:
                return
        self._vote_cheaters()

    def records_coming(self, last: int | None) -> None:
        """Catch-up (``catchup.ingest_response``): the page being applied holds the step records
        up to step ``last`` (None: the page is applied); ``OwnStep.records_coming``."""
        self.own.records_coming(last)

    def _make_reveal(self) -> None:
        self.own.make_reveal()  # our reveal of this chance step, past the gate (§C8.2)

    def adopt_own(self, raw: bytes) -> bool:
        """Take ``raw`` (our own STEP of the current step, from our own-message log or a
        catch-up) as our message of this step (``OwnStep.adopt_own``). False if refused."""
        return self.own.adopt_own(raw)

    def _answer(self, seat: int, s: int, now: float) -> None:
        self.own.answer(seat, s, now)  # ours again, to a seat stuck at step s

    def _ours(self, b: StepBody) -> bool:
        """True if ``b`` (a current-step body) is signed over our history (prev hash, digest)."""
        return b.prev_hash == self.state_hash and b.prev_digest == self.steps.prev_digest

    def _other_history(self, held: Held, new: Held, s: int) -> None:
        self.referee.other_history(held, new, s)  # a second message over another history (§C8.3)

    def _bad_signature(self, b: StepBody, env: Envelope) -> None:
        self.referee.bad_signature(b, env)

    def _check_prev(self, h: Held) -> bool:
        """Check a current-step message's prev hash and digest against ours (§C3.4,
        ``Referee.check_prev``): False if it may not be applied now."""
        return self.referee.check_prev(h)

    def _halt(self, event: Any) -> None:
        self.phase = HALTED
        self.halt_reason = event
        self._events.append(event)

    def _try_advance(self) -> None:
        while self.phase == RUNNING:
            k = self.step
            skipped = self.skipping.skipped_seats(k)
            for d in skipped:
                if self.steps.held(k, d) is not None:
                    self.steps.clear(k, d)  # a quorum skipped its turn: its message is not applied (§C8.10)
                    self.stats["superseded"] += 1
            if not self.steps.complete(k, self._awaited(k)) or self.disputes.open is not None:
                return
            if self.seats.voted_at(k) and not self.votes.certified(k):
                return  # we voted to drop a seat at k: the votes or a certificate decide
            if not self.skipping.promise_kept(k, skipped):
                return  # we voted to skip a seat whose message we hold: a certificate decides (§C8.10)
            slots = self.steps.slots(k)
            if any(h is not None and i != self.my_seat and not self._ours(h.body) for i, h in enumerate(slots)):
                # Never apply a message signed over another history (§C3.4, §C8.3): judge it first.
                for i, h in enumerate(slots):
                    if h is not None and i != self.my_seat and not self._ours(h.body):
                        self._check_prev(h)
                        break
                return
            if k == self.final_step:
                self._finish(k, slots)
                return
            done = self.advance.resolve(k, slots, skipped)
            if done is None:
                return
            state = done.state
            self.escrows.apply_acks(k, slots)  # step k's escrow acknowledgements (§C8.2)
            if done.kind == "chance":
                self.chance_count += 1
            if self.hidden is not None:
                fields = [None if b is None else b.hidden for b in done.bodies]
                if self.view is not None and not self.spectator:
                    self.view.receive(k, fields)
                self.hidden.after_step(k, fields, state)
                if self.view is not None:
                    self.view.refresh(state)
            self.state = state
            self.state_hash = self.engine.state_hash(state)
            self.advance.record(k, slots, skipped)
            self._events.append(StepApplied(k, done.kind, done.events, self.state_hash))
            self.step = k + 1
            self.seats.forget_votes(k)
            self.skips.forget(k)
            # Seats whose players return from step k+1: decided by step k's bodies alone, so
            # every peer that applied k decides the same (§C8.9).
            terminal = self.engine.is_terminal(state)
            back = self.reseating.after_step(slots, done.kind == "sealed", terminal)
            for seat in sorted(back):
                self._readmit(seat, back[seat].chain_head)
            if terminal:
                self.final_step = k + 1  # one more round: every seat attests the end (§C3.5)
            self._begin_step()

    def _history_proof(self, k: int, seat: int, reason: str) -> None:
        self.referee.history_proof(k, seat, reason)  # proven by the applied STEPs (§C8.2)

    def _finish(self, k: int, slots: Sequence) -> None:
        """Every active seat's attestation (step ``k`` = ``final_step``, §C3.5) is held and
        checked (prev hash = the final state hash, prev digest = the last step's digest): log
        them as the last record, emit ``GameOver``. An attestation with acks, an input, a hidden
        field or a re-seat field names its signer (``verify`` says the same) and is not applied:
        nothing is applied after the terminal state, so it vetoes nothing (§C3.5)."""
        self.advance.attest(k, slots)
        self.advance.record(k, slots)
        self.step = k + 1
        self.phase = FINISHED
        self.live.stop_resend()
        self._events.append(GameOver(self.engine.winner(self.state), self.state_hash, k))


def _event_json(ev: Any) -> dict:
    d: dict = {"type": type(ev).__name__}
    for k, v in ev.__dict__.items():
        d[k] = v.hex() if isinstance(v, bytes) else v if isinstance(v, (int, str, type(None))) else repr(v)
    return d
