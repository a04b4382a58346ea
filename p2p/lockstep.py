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

Parts (protocol.md §C3.6, §C8.6, §C9.5; ARCHITECTURE.md §2.2 says what each owns), as aioquic
builds its connection from recovery and stream objects: where the step advances and our
position in the game (``step_gate.StepGate``: step, engine state and hash, phase), the inbox
(``session_inbox.SessionInbox``), our player's side (``local_seat.LocalSeat``), our message of
each step (``own_step``), a complete step resolved and logged (``step_advance``), the messages
held (``step_collect``), seat loss (``seat_loss``, ``escrow_gate``, ``session_votes``), turn
skips (``turn_skip``), catch-up (``catchup``, ``catchup_session``), records from a log or a
catch-up (``record_ingest``), complaints and disputes (``referee``), abandons (``abandon``),
re-seating (``reseat``, ``reseat_session``), the timers (``session_timers``, ``liveness``),
sealed decisions (``sealed``), hidden information (``hidden``, ``private_view``) and, after a
resume, ``resume.Restart``. The session builds them, shows their state through read-only
properties and never touches a part's private attributes (nor they the session's): the parts
read it through ``session_port.SessionView`` and act through ``session_port.Effects``.

Entry points follow aioquic: ``receive_message(data, now)``, ``submit_local_input(action)``,
``messages_to_send()``, ``next_event()``, ``get_timer()``, ``handle_timer(now)``. A log replay
(``resume``) and a catch-up page (``catchup.ingest_response``) hand each record to the part that
owns it, a public attribute: ``ingest`` (step and skip records, past drops, cross-checks, two
versions), ``votes`` (DROP records, our votes), ``referee`` (COMPLAINT, ABANDON), ``own`` (our
message), ``reseat``; then ``end_replay``.
"""

from __future__ import annotations

from collections import deque
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Sequence

from . import const as C
from .abandon import Abandons
from .beacon import HashChain
from .catchup import CatchUp
from .catchup_session import SessionCatchUp
from .drop_rules import default_bot
from .errors import LocalProtocolError
from .escrow_gate import EscrowGate
from .hidden import HiddenLedger, hidden_secret, layout_of_state
from .identity import Identity
from .liveness import Liveness
from .local_seat import LocalSeat
from .own_step import OwnStep
from .private_view import PrivateView
from .record_ingest import RecordIngest
from .referee import Referee
from .reseat import Reseat
from .reseat_session import SessionReseat
from .sealed import SealedDecisions, derive_salt
from .seat_loss import DropInfo, SeatLoss
from .session_events import (BeaconExhausted, CaughtUp, CheaterProven, CheatDetected, Desync, Equivocation,
                             GameAbandoned, GameOver, PeerMisbehaved, PeerStalled, SeatDropped, SeatDropVoted,
                             SeatLost, SeatReturned, StepApplied, StepOverturned, event_json)
from .session_inbox import SessionInbox
from .session_port import COUNTERS, Effects
from .session_timers import SessionTimers
from .session_votes import SessionVotes
from .step_advance import StepAdvance
from .step_collect import Held, StepCollector, step_digest
from .step_gate import ABANDONED, FINISHED, HALTED, RUNNING, StepGate
# Step resolution, shared with verify.py (step_resolve.py); re-exported here.
from .step_resolve import StepResult, hidden_bot, resolve_hidden, resolve_step
from .turn_skip import SessionSkips, TurnSkip
from .wire import Envelope, Setup, engine_options, setup_hash as compute_setup_hash

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine

__all__ = ["ABANDONED", "BeaconExhausted", "CaughtUp", "CheaterProven", "CheatDetected", "Desync", "DropInfo",
           "Equivocation", "FINISHED", "GameAbandoned", "GameOver", "HALTED", "Held", "LockstepSession",
           "PeerMisbehaved", "PeerStalled", "RUNNING", "SeatDropVoted", "SeatDropped", "SeatLost", "SeatReturned",
           "StepApplied", "StepOverturned", "StepResult", "hidden_bot", "resolve_hidden", "resolve_step",
           "step_digest"]


def _read(path: str, doc: str) -> property:
    """A read-only session property that reads ``path`` (dotted, e.g. ``"gate.step"``) of the
    part that owns the value. ``attrgetter`` keeps it one C call: the parts read these on the
    per-step path."""
    return property(attrgetter(path), doc=doc)


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

    def __init__(self, setup: Setup, my_seat: int, identity: Identity, chain: HashChain, engine: Engine,
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
        self._replaying = _resuming  # resume.py replays our log: no sends, no log writes
        self._out: list[bytes] = []
        self._events: deque = deque()
        self._now = now
        #: Counters of dropped/answered messages, for the node's status line.
        self.stats: dict[str, int] = dict.fromkeys(COUNTERS, 0)
        if state is None:
            state = engine.new_game(setup.edition, setup.seats, engine_options(setup))
        #: Our position in the game (step, engine state and hash, phase, spectator) and the gate
        #: that advances it (step_gate.py); the session shows it through read-only properties.
        self.gate = StepGate(engine, state, self, self._events.append)
        #: What the parts may do to the session (session_port.py); each part is built with it.
        fx = Effects(send=self._send, emit=self._events.append, halt=self.gate.halt, vote=self._vote_drop,
                     vote_cheaters=self._vote_cheaters, advance=self.gate.advance,
                     push_records=self._answer_with_records, verified=self._verified,
                     end_abandoned=self.gate.end_abandoned, prove=self._prove, history_proof=self._history_proof,
                     reveal=self._make_reveal, hint=self._hint, forward=self._forward,
                     request_catchup=self.request_catchup, apply_drop=self.gate.apply_drop)
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
        layout = layout_of_state(state, engine)
        if layout is not None:
            if hidden_commits is None or any(not c for c in hidden_commits):
                raise LocalProtocolError("a game with hidden information needs every seat's commitment")
            self.hidden = HiddenLedger(self.game_id, self.n, layout, hidden_commits, state, engine)
            self.view = PrivateView(self.hidden, my_seat, hidden_secret(chain.value(0)), identity,
                                    [p.x25519_key for p in setup.players])
            self.view.refresh(state)
        #: Re-seating returning players (protocol.md §C8.9): requests we carry, our own.
        self.reseat = Reseat(setup, my_seat, hidden=self.hidden is not None)
        if bot is None:
            bot = hidden_bot(engine) if self.hidden is not None else default_bot(engine)
        #: The parts that act for the session through ``Effects`` (session_port.py): complaints
        #: and digest disputes (referee.py, whose ledgers the other parts read), the escrow glue.
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
        #: Our player's side of the step: its input, countdown and votes (local_seat.py).
        self.local = LocalSeat(self, fx)
        #: Every incoming envelope, routed by type to the part that owns it (the inbox builds
        #: its routing table from the parts above: last); STEPs admitted there (session_inbox.py).
        self.inbox = SessionInbox(self._pubkeys, self, fx, [p.x25519_key for p in self.setup.players])
        self._send_escrow()
        self.gate.begin()

    # -- queries (the position is the gate's; the rest, the parts') --

    step = _read("gate.step", "Step we are collecting messages for.")
    final_step = _read("gate.final_step", "The attestation step (protocol.md §C3.5) once the engine is terminal, "
                                          "else None.")
    chance_count = _read("gate.chance_count", "Chance steps applied so far (the next one reveals chain value "
                                              "n - chance_count - 1).")
    state = _read("gate.state", "The engine state before the current step.")
    state_hash = _read("gate.state_hash", "Engine state hash after step - 1 (32 bytes).")
    phase = _read("gate.phase", "``RUNNING``, ``FINISHED``, ``HALTED`` or ``ABANDONED`` (module docstring).")
    halt_reason = _read("gate.halt_reason", "Why the session halted (an event), or None.")
    spectator = _read("gate.spectator", "True once our own seat was dropped: we follow the game, never send "
                                        "step messages.")
    pending = _read("own.pending", "``engine.pending(state)`` for the current step.")
    chain = _read("own.chain", "Our hash chain (a re-seat gives a new one, §C8.9).")
    seat_loss = _read("seats.on", "True if the setup turned seat loss on (``p2p.on_drop`` option).")
    on_drop = _read("seats.rule", 'Seat-loss rule ("bot", "bankrupt") or None when seat loss is off.')
    drop_timeout = _read("seats.drop_timeout", "Seconds of silence before we vote a seat out (protocol.md §C8.3).")
    turn_time = _read("seats.turn_time", "Seconds an alive seat may think at one step before we vote it out; "
                                         "0.0 = unlimited.")
    active = _read("seats.active", "active[i]: seat i still sends messages (not dropped). Read only.")
    dropped = _read("seats.dropped", "Dropped seats: seat -> DropInfo. Read only.")
    epoch = _read("seats.epoch", "Escrow/vote epoch: the number of seats dropped so far.")
    prev_digest = _read("steps.prev_digest", "Digest of the last applied step (the setup hash before step 0), "
                                             "32 bytes.")
    step_started = _read("live.step_started", "When the current step began (the caller's clock, seconds).")
    replaying = _read("_replaying", "True while resume.py replays our log (no sends, no log writes).")
    now = _read("_now", "The caller's clock at the last input or timer (seconds).")
    inspection = _read("own.inspection", "The current step's inspection (hidden information, §C12), or None.")
    escrow_round = _read("own.escrow_round", "True if the current step is an escrow round (§C8.2).")
    round_epoch = _read("own.round_epoch", "The epoch in which the current step's escrow round was decided "
                                           "(§C8.2).")
    reveal_waiting = _read("own.reveal_waiting", "True while our reveal of this step waits for escrows (the "
                                                 "reveal gate, §C8.2).")
    last_reveals = _read("advance.last_reveals", "Per seat, its last hash-chain reveal (its committed head "
                                                 "before any). Read only.")

    @property
    def running(self) -> bool:
        """True while the game runs (phase ``running``)."""
        return self.gate.phase == RUNNING

    def needs_local_input(self) -> Any:
        """The engine's ``Pending`` if the local seat must submit an input (action or None) for
        the current decision step, else None (``local_seat.LocalSeat.needs_local_input``)."""
        return self.local.needs_local_input()

    def waiting_for(self) -> tuple[int, ...]:
        """Active seats whose message for the current step we do not hold yet (may include
        ours; ``step_gate.StepGate.waiting_for``)."""
        return self.gate.waiting_for()

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
        step, or None (``local_seat.LocalSeat.turn_deadline``)."""
        return self.local.turn_deadline()

    def paused(self) -> tuple[int, ...]:
        """Seats we wait for with no drop to come from us (protocol.md §C8.3), () when we are
        not paused (``local_seat.LocalSeat.paused``)."""
        return self.local.paused()

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
        """Submit our input for the current decision step: an engine Action or None. Raises
        ``LocalProtocolError`` (nothing changed) if no input is needed now (see
        ``needs_local_input``; ``local_seat.LocalSeat.submit``)."""
        if self.local.needs_local_input() is None:
            raise LocalProtocolError(f"no local input expected at step {self.step} (phase {self.phase})")
        if now is not None:
            self._now = now
        self.local.submit(action)

    def vote_out(self, seat: int, now: float | None = None) -> bool:
        """Our player votes, now, to drop ``seat``, which the current step waits for (protocol.md
        §C13.6, §C8.3; ``local_seat.LocalSeat.vote_out``). False if nothing was sent."""
        if now is not None:
            self._now = now
        return self.local.vote_out(seat)

    def skip_turn(self, seat: int, now: float | None = None) -> bool:
        """Our player votes, now, to let ``seat``'s turn at the current step pass (protocol.md
        §C8.10; ``local_seat.LocalSeat.skip_turn``). False if nothing was sent."""
        if now is not None:
            self._now = now
        return self.local.skip_turn(seat)

    def receive_message(self, data: bytes, now: float, via: bytes | None = None) -> None:
        """Handle one session envelope from a peer (STEP, ESCROW, DROP, CATCHUP_REQ, CATCHUP_RESP, HINT:
        ``wire.SESSION_TYPES``). Never raises for bad input: it is dropped and counted in ``stats``; protocol
        violations become events. Every signature is verified on receipt, whatever channel brought the message
        (§C3.4; ``session_inbox.SessionInbox``); ``via``: the X25519 key of that channel (None: not known), which
        only lets a seat's own later-step message count in a certificate (§C8.3 'A voter's promise')."""
        self._now = now
        self.inbox.receive(data, now, via)

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
        d = {"game_id": self.game_id.hex(), "my_seat": self.my_seat, "step": self.step, "phase": self.phase,
             "state_hash": self.state_hash.hex(), "prev_digest": self.prev_digest.hex(),
             "setup_hash": self.setup_hash.hex(), "stats": dict(self.stats),
             "halt_reason": None if self.halt_reason is None else event_json(self.halt_reason),
             "held": self.steps.dump(),
             "dropped": {str(k): [v.step, v.rule, v.chain is not None] for k, v in sorted(self.dropped.items())}}
        enc = getattr(self.engine, "encode_state", None)
        if enc is not None:
            d["state"] = enc(self.state).hex()
        return d

    # -- resume (protocol.md §C10; resume.py drives these) --

    def end_replay(self, log: Any, own_log: Any, now: float) -> None:
        """The log replay is over (``resume.resume_session``): forget the replayed steps'
        events and queued sends, write to ``log``/``own_log`` from now on, restart the timers,
        (the log's steps happened in another run, on another clock) and, if the game goes on,
        queue our own message of the current step, our votes, our escrow and a CATCHUP_REQ."""
        self._replaying = False
        self._events.clear()  # replayed steps were reported in the previous run
        self._out = []
        self.log = log
        if getattr(log, "path", None) is not None:
            self.catchup.use_log(log.path)
        if own_log is not None:
            self.own_log = own_log
        self._now = now
        self.live.restart(now)
        self.catchup.restart()
        if self.phase != RUNNING:
            return
        self.own.after_replay()  # our message of this step, as signed or made now
        self._out.extend(self.seats.own_votes(self.step))  # our vote of this step, as signed
        self._out.extend(self.skips.own_votes(self.step, self.epoch))  # and our SKIP votes (§C8.10)
        self._send_escrow(resend=True)
        # From the step before ours: if the others dropped our seat (or another) at the last
        # step we applied, that DROP record is in the answer (SeatLost / StepOverturned, §C8.3).
        self.request_catchup(now, max(0, self.step - 1))

    # -- our player's other calls (protocol.md §C8.7, §C9, §C8.9, §C12) --

    def abandon(self, now: float | None = None, reason: str = "") -> None:
        """End the game here as abandoned: sign ABANDON [gid, our seat, step, state hash,
        digest], broadcast it, log it as the last record and emit ``GameAbandoned``. For a
        player who does not want to wait any longer for a seat that no quorum can drop.
        ``reason``: why, for our player. Raises ``LocalProtocolError`` unless running and seated."""
        self.abandons.abandon(reason)
        if now is not None:
            self._now = now

    def request_catchup(self, now: float | None = None, from_step: int | None = None) -> None:
        """Ask every other active seat for the records from our step on (or ``from_step``):
        ``catchup_session.SessionCatchUp.request`` (§C9.1)."""
        if now is not None:
            self._now = now
        self.catching.request(from_step)

    def request_reseat(self, secret: bytes, now: float | None = None) -> bool:
        """Ask to play our dropped seat again with a new hash chain of ``secret`` (32 bytes,
        fresh; the caller keeps it first: a restart needs it, ``reseat.restore``). Sent
        now and every ``RESEAT_RESEND`` s until the seat is back (``SeatReturned``). Returns
        False (nothing sent) unless we are a spectator of a running game whose bot plays our
        seat and re-seating is offered (``SessionReseat.request``)."""
        if now is not None:
            self._now = now
        return self.reseating.request(secret)

    def private_view(self) -> dict:
        """What our player may know privately: {("bill", id) | ("card", index): fake} for
        every bill or Imprevisti whose shares we hold in full ({} without hidden information,
        or as a spectator), an ``engine.Knowledge`` carrying our bill-order
        secret (§C12.7). For our own bot/UI only: it never leaves this peer."""
        if self.view is None or self.spectator:
            return {}
        return self.view.bot_view()

    # -- the effects that reach a part (session_port.Effects): the parts are built after the
    # -- Effects they are handed, so these look the part up when called --

    def _send(self, raw: bytes) -> None:
        self._out.append(raw)

    def _prove(self, culprit: int, step: int, kind: int, reason: str, evidence: list, key: bytes | None = None,
               complaint: bytes | None = None, halt: Any = None) -> None:
        """``culprit`` is proven to cheat (``Referee.prove``): COMPLAINT, vote, or halt (§C8.8)."""
        self.referee.prove(culprit, step, kind, reason, evidence, key, complaint, halt)

    def _history_proof(self, k: int, seat: int, reason: str) -> None:
        self.referee.history_proof(k, seat, reason)  # proven by the applied STEPs (§C8.2)

    def _vote_cheaters(self) -> None:
        self.votes.vote_cheaters()  # against a proven cheater or a seat that left (§C8.7, §C8.8)

    def _vote_drop(self, seat: int) -> None:
        self.votes.vote(seat)  # our one DROP vote of this step and epoch (§C8.3)

    def _forward(self, voter: int, raw: bytes, now: float) -> None:
        self.votes.forward(voter, raw, now)  # within the voter's forwarding budget (§C8.3)

    def _answer_with_records(self, seat: int) -> None:
        self.catching.push_records(seat)  # our last records to a seat that needs them, unasked

    def _hint(self, seat: int, now: float) -> None:
        self.catching.hint(seat, now)  # HINT to a seat that is behind (§C9.3)

    def _verified(self, env: Envelope, seat: int, step: int) -> bool:
        return self.inbox.verified(env, seat, step)  # a bad signature is counted and reported

    def _send_escrow(self, resend: bool = False) -> None:
        self.escrows.send(resend)  # our escrow of the epoch when made, and on a re-send (§C8.2)

    def _make_reveal(self) -> None:
        self.own.make_reveal()  # our reveal of this chance step, past the gate (§C8.2)
