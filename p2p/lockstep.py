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
    running --Desync | Equivocation | CheatDetected | BeaconExhausted--> halted

In ``finished`` the session still answers stragglers' old-step messages; in ``halted`` it
ignores all input. Bad bytes and bad signatures never change the phase: they are dropped and
counted (``stats``), bad signatures also reported as ``PeerMisbehaved``.

Entry points follow aioquic: ``receive_message(data, now)``, ``submit_local_input(action)``,
``messages_to_send()``, ``next_event()``, ``get_timer()``, ``handle_timer(now)``.
"""

from __future__ import annotations

import hashlib
from collections import deque
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Sequence

from . import const as C
from .beacon import HashChain, beacon as make_beacon
from .catchup import build_response, ingest_response
from .errors import LocalProtocolError, WireError
from .gamelog import KIND_DROP, KIND_STEP
from .hidden import HiddenLedger, PrivateView, hidden_secret, layout_of_state
from .identity import Identity
from .seat_loss import (RULE_BANKRUPT, RULE_BOT, check_drop_payload, default_bot, drop_record, drop_rule,
                        dropped_input, dropped_reveal, make_escrow, open_share, recover_chain, turn_time)
from .wire import (MSG_ALIVE, MSG_CATCHUP_REQ, MSG_CATCHUP_RESP, MSG_DROP, MSG_ESCROW, MSG_HINT, MSG_STEP,
                   DropVote, Envelope, Escrow, Setup, StepBody, decode_alive, decode_catchup_req,
                   decode_catchup_resp, decode_drop, decode_escrow, decode_hint, decode_step_body, engine_options, open_envelope, pack, seal,
                   setup_hash as compute_setup_hash, unpack)

_sha256 = hashlib.sha256

RUNNING = "running"
FINISHED = "finished"
HALTED = "halted"


# --- events ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class StepApplied:
    """Step ``step`` was applied. ``kind``: "chance" or "decision"; ``engine_events``: what the
    engine returned; ``state_hash``: 32 bytes, the state after the step."""

    step: int
    kind: str
    engine_events: tuple
    state_hash: bytes


@dataclass(frozen=True)
class GameOver:
    """The engine reached a terminal state. ``winner``: seat or None; ``final_hash``: 32 bytes;
    ``steps``: number of steps applied."""

    winner: int | None
    final_hash: bytes
    steps: int


@dataclass(frozen=True)
class PeerMisbehaved:
    """A message claiming to come from ``seat`` was dropped (bad signature, input of the wrong
    kind, undecodable action). ``evidence``: the raw message bytes. Does not halt the game."""

    seat: int | None
    step: int
    reason: str
    evidence: bytes


@dataclass(frozen=True)
class Desync:
    """``seat`` signed a different state hash (``field`` = "state") or step digest
    (``field`` = "digest") than ours for step ``step``. Evidence: both signed messages.
    The session halts."""

    step: int
    seat: int
    field: str
    theirs: bytes
    ours: bytes


@dataclass(frozen=True)
class Equivocation:
    """``seat`` signed two different messages for ``step``: ``first`` and ``second`` (raw,
    both with valid signatures). The session halts."""

    step: int
    seat: int
    first: bytes
    second: bytes


@dataclass(frozen=True)
class CheatDetected:
    """``seat``'s signed message for ``step`` breaks the protocol in a way that cannot be
    ignored (a reveal that does not hash to its previous reveal, no reveal at a chance step).
    ``evidence``: the raw message. The session halts."""

    step: int
    seat: int
    reason: str
    evidence: bytes


@dataclass(frozen=True)
class BeaconExhausted:
    """Our hash chain has no reveal left for chance step ``step``. The session halts."""

    step: int


@dataclass(frozen=True)
class PeerStalled:
    """Step ``step`` has heard nothing from ``seats`` (other active seats whose message it
    lacks and that sent no ALIVE for STALL_TIMEOUT) for ``waited`` seconds (the shortest
    silence among them). Repeated every STALL_TIMEOUT while some seat is silent; a seat that
    is alive but thinking is not stalled (protocol.md §C8.3). The node decides what to do."""

    step: int
    seats: tuple
    waited: float


@dataclass(frozen=True)
class SeatDropVoted:
    """We signed a DROP vote: ``seat`` sent nothing for ``step`` within the drop timeout."""

    step: int
    seat: int


@dataclass(frozen=True)
class SeatDropped:
    """Every other active seat voted: ``seat`` is dropped from ``step`` on (protocol.md §C8).
    ``rule``: "bot" or "bankrupt" as applied; ``reconstructed``: its chance contribution comes
    from its recombined hash chain (True) or the public stand-in (False). If ``seat`` is ours
    the session becomes a spectator."""

    step: int
    seat: int
    rule: str
    reconstructed: bool


@dataclass(frozen=True)
class SeatLost:
    """We applied ``step`` with our own message but the other seats agreed to drop us at that
    step: our state forked from theirs. The session halts; restart it as a spectator from the
    other peers' records (``resume_session`` with ``truncate_at`` = ``step``)."""

    step: int


@dataclass(frozen=True)
class CaughtUp:
    """Catch-up from ``source`` applied steps ``from_step`` .. ``to_step`` - 1 (``to_step`` is
    our step now)."""

    source: int
    from_step: int
    to_step: int


# --- step resolution (shared with verify.py) --------------------------------------------------

class Held(NamedTuple):
    """A verified step message: decoded body and its envelope."""

    body: StepBody
    env: Envelope


def step_digest(bodies: Sequence[bytes]) -> bytes:
    """Digest of one step: SHA-256(b"lanopoli/1/digest\\x00" || for each seat in order:
    len(body) as 4-byte BE || body). Bodies are the signed STEP bodies (protocol.md §C3.2)."""
    h = _sha256(C.HASH_DIGEST)
    for b in bodies:
        h.update(len(b).to_bytes(4, "big"))
        h.update(b)
    return h.digest()


class StepResult(NamedTuple):
    """Outcome of ``resolve_step``: the new state and engine events, the non-fatal problems
    ``[(seat, reason)]``, and ``fatal`` = (seat, reason) or None."""

    state: Any
    events: tuple
    problems: list
    fatal: tuple | None


def resolve_step(engine: Any, state: Any, chance: bool, seed: bytes, step: int,
                 bodies: Sequence[StepBody | None], last_reveals: list[bytes],
                 fill: dict[int, Any] | None = None) -> StepResult:
    """Apply one step's inputs (in seat order) to ``state``: the deterministic rule every peer
    and the offline verifier share (protocol.md §C3.3).

    Chance step: every input must be a 32-byte reveal with SHA-256(reveal) == the seat's
    previous reveal, else ``fatal``; on success ``last_reveals`` is updated in place and the
    state goes through ``engine.apply_chance(beacon)``. Decision step: None stays None, a list
    goes through ``engine.decode_action`` (ValueError -> None plus a problem), a reveal is
    replaced by None (problem); then ``engine.apply_step``.

    ``fill``: inputs of dropped seats (protocol.md §C8.4), whose ``bodies`` entry is None: at a
    chance step their substitute reveal (not checked), at a decision step their bot's decoded
    action or None.
    """
    fill = fill or {}
    if chance:
        reveals = []
        for seat, b in enumerate(bodies):
            if seat in fill:
                reveals.append(fill[seat])
                continue
            r = None if b is None else b.input
            if type(r) is not bytes:
                return StepResult(state, (), [], (seat, "no reveal at a chance step"))
            if _sha256(r).digest() != last_reveals[seat]:
                return StepResult(state, (), [], (seat, "reveal does not hash to the previous reveal"))
            reveals.append(r)
        new_state, events = engine.apply_chance(state, make_beacon(seed, step, reveals))
        for seat, r in enumerate(reveals):
            if seat not in fill:
                last_reveals[seat] = r
        return StepResult(new_state, tuple(events), [], None)
    inputs: list = []
    problems = []
    for seat, b in enumerate(bodies):
        if seat in fill:
            inputs.append(fill[seat])
            continue
        x = None if b is None else b.input
        if x is None:
            inputs.append(None)
        elif type(x) is list:
            try:
                inputs.append(engine.decode_action(x))
            except (ValueError, TypeError, KeyError, IndexError):
                problems.append((seat, "undecodable action"))
                inputs.append(None)
        else:
            problems.append((seat, "reveal at a decision step"))
            inputs.append(None)
    new_state, events = engine.apply_step(state, inputs)
    return StepResult(new_state, tuple(events), problems, None)


def resolve_hidden(engine: Any, ledger: HiddenLedger, state: Any, chance: bool, inspection: list | None,
                   seed: bytes, step: int, bodies: Sequence[StepBody | None], last_reveals: list[bytes],
                   fill: dict[int, Any]) -> tuple[tuple | None, StepResult | None]:
    """One step of a game with hidden information (protocol.md §C12), shared with verify.py: check
    every active seat's hidden field (``HiddenLedger.check_step``); at an inspection step
    apply the outcomes of the opened shares with ``apply_reveal``, else ``resolve_step``.
    Returns ``((culprit, reason), None)`` on a fault, else ``(None, result)``; a hash-chain
    fault comes back as ``result.fatal``. The ledger is not advanced (``after_step``)."""
    fields = [None if b is None else b.hidden for b in bodies]
    bad = ledger.check_step(step, fields, inspection)
    if bad is not None:
        return bad, None
    if inspection is not None:
        from engine.rules.niente_flow import apply_reveal

        new_state, events = apply_reveal(state, ledger.outcomes(fields, inspection))
        return None, StepResult(new_state, tuple(events), [], None)
    return None, resolve_step(engine, state, chance, seed, step, bodies, last_reveals, fill)


def hidden_bot(engine: Any) -> Any:
    """The bot that plays a dropped seat in a game with hidden information: the niente bot
    with no private knowledge (protocol.md §C12.6), ``(state, seat) -> action | None``."""
    try:
        from engine.bots import _niente
    except ImportError:  # an engine without it: the edition's default bot
        return default_bot(engine)
    return lambda state, seat: _niente.choose(state, seat, "default", None)


# --- the session ----------------------------------------------------------------------------

class DropInfo(NamedTuple):
    """How a dropped seat is played: from ``step`` on, by ``rule``; ``chain``: its recombined
    ``HashChain`` (its real reveals) or None (the public stand-in reveals)."""

    step: int
    rule: str
    chain: HashChain | None


class LockstepSession:
    """One peer's lockstep state machine. No I/O, no clock: time is passed in (seconds).

    ``setup``: the signed ``wire.Setup``; ``my_seat``: our index in ``setup.players``;
    ``identity``: must own ``setup.players[my_seat].public_key``; ``chain``: our ``HashChain``
    (its head must be our committed head); ``engine``: the engine module (ARCHITECTURE.md §1);
    ``game_seed``: 32 bytes from the seed reveals; ``state``: initial state (default
    ``engine.new_game(edition, seats, engine options)``); ``log``: optional
    ``gamelog.LogWriter``; ``own_log``: optional ``gamelog.OwnLog`` (write-ahead log of our own
    messages, for restarts); ``bot``: ``(state, seat) -> action | None`` that plays dropped
    seats (default ``engine.bots.choose(state, seat, "default")``).

    Seat loss (protocol.md §C8) is on when the setup has the ``p2p.on_drop`` option; catch-up and
    hints (§9) always work. Raises ``LocalProtocolError`` if identity or chain do not match the
    setup.
    """

    def __init__(self, setup: Setup, my_seat: int, identity: Identity, chain: HashChain, engine: Any,
                 game_seed: bytes, *, state: Any = None, log: Any = None, now: float = 0.0,
                 setup_bytes: bytes | None = None, own_log: Any = None, bot: Any = None,
                 hidden_commits: Sequence[bytes] | None = None, _resuming: bool = False) -> None:
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
        self.chain = chain
        self.engine = engine
        self.game_seed = game_seed
        self.log = log
        self.own_log = own_log
        self.setup_hash = compute_setup_hash(setup_bytes if setup_bytes is not None else setup.encode())
        self._pubkeys = [p.public_key for p in setup.players]
        self._xkeys = [p.x25519_key for p in setup.players]
        self._last_reveals = [p.chain_head for p in setup.players]
        self.state = state if state is not None else engine.new_game(setup.edition, setup.seats, engine_options(setup))
        #: Seat-loss rule ("bot", "bankrupt") or None when seat loss is off; drop timeout (s).
        self.on_drop, self.drop_timeout = drop_rule(setup.options_dict())
        #: Seconds an alive seat may think at one step before we vote it out; 0.0 = unlimited.
        self.turn_time = turn_time(setup.options_dict())
        #: Current step: seat -> when its last valid ALIVE of this step arrived (protocol.md §C8.3).
        self._heard: dict[int, float] = {}
        #: When we send our next ALIVE while our message of this step is not sent; None: never.
        self._alive_at: float | None = None
        #: Hidden information (protocol.md §C12): the public ledger and our private view, or None.
        self.hidden: HiddenLedger | None = None
        self.view: PrivateView | None = None
        self._inspection: list | None = None
        layout = layout_of_state(self.state)
        if layout is not None:
            if hidden_commits is None or any(not c for c in hidden_commits):
                raise LocalProtocolError("a game with hidden information needs every seat's commitment")
            self.hidden = HiddenLedger(self.game_id, self.n, layout, hidden_commits, self.state)
            self.view = PrivateView(self.hidden, my_seat, hidden_secret(chain.value(0)), identity, self._xkeys)
            self.view.refresh(self.state)
        if bot is None:
            bot = hidden_bot(engine) if self.hidden is not None else default_bot(engine)
        self._bot = bot
        #: Step we are collecting messages for.
        self.step = 0
        #: The attestation step (protocol.md §C3.5) once the engine is terminal, else None.
        self.final_step: int | None = None
        #: Chance steps applied so far (the next one reveals chain value n - chance_count - 1).
        self.chance_count = 0
        #: Engine state hash after step - 1 (32 bytes).
        self.state_hash: bytes = engine.state_hash(self.state)
        self._prev_digest = self.setup_hash
        self.phase = RUNNING
        #: Why the session halted (an event), or None.
        self.halt_reason: Any = None
        #: active[i]: seat i still sends messages (not dropped).
        self.active = [True] * self.n
        #: Dropped seats: seat -> DropInfo.
        self.dropped: dict[int, DropInfo] = {}
        #: True once our own seat was dropped: we follow the game, never send step messages.
        self.spectator = False
        self.epoch = 0
        self._escrows: dict[int, tuple[Escrow, bytes]] = {}
        self._shares: dict[int, bytes] = {}
        self._votes: dict[tuple[int, int], dict[int, tuple[DropVote, bytes]]] = {}
        self._voted: set[tuple[int, int]] = set()
        self._reveal_waiting = False
        #: Every log record of the game after the header: (kind, payload, step) in log order.
        self._history: list[tuple[int, bytes, int]] = []
        self._hist_index: dict[int, int] = {}
        self._replaying = _resuming  # resume.py replays our log: no sends, no log writes
        self._ahead: tuple[int, int] | None = None  # (seat, step) of a peer known to be ahead
        self._last_request = -1e18
        self._dispute: tuple | None = None  # (seat, its message, deadline) of a digest dispute
        self._served: dict[int, float] = {}
        self._hinted: dict[int, float] = {}
        self._slots: dict[int, list[Held | None]] = {}
        self._own: dict[int, bytes] = {}
        self._out: list[bytes] = []
        self._events: deque = deque()
        self._answered: dict[int, float] = {}
        self._now = now
        self._resend_at: float | None = None
        self._resend_interval = C.RESEND_INTERVAL
        self._step_started = now
        self._stall_at = now + C.STALL_TIMEOUT
        #: Counters of dropped/answered messages, for the node's status line.
        self.stats: dict[str, int] = dict.fromkeys(
            ("received", "accepted", "duplicate", "malformed", "wrong_type", "wrong_game", "bad_seat",
             "bad_signature", "stale", "too_far", "answered", "resent", "escrow", "drop_votes",
             "catchup_requests", "catchup_served", "catchup_records", "hints", "forwarded", "ignored",
             "alive", "alive_sent"), 0)
        self._send_escrow()
        self._begin_step()

    # -- queries --

    @property
    def pending(self) -> Any:
        """``engine.pending(state)`` for the current step."""
        return self._pending

    @property
    def seat_loss(self) -> bool:
        """True if the setup turned seat loss on (``p2p.on_drop`` option)."""
        return self.on_drop is not None

    def needs_local_input(self) -> Any:
        """The engine's ``Pending`` if the local seat must submit an input (action or None) for
        the current decision step, else None (already submitted, chance step, finished,
        halted, or we are a spectator). At chance steps the session makes the reveal itself."""
        if self.phase != RUNNING or self.final_step is not None or self._pending.chance or self.spectator:
            return None
        slots = self._slots.get(self.step)
        if slots is not None and slots[self.my_seat] is not None:
            return None
        return self._pending

    def waiting_for(self) -> tuple[int, ...]:
        """Active seats whose message for the current step we do not hold yet (may include
        ours). Dropped seats are never waited for."""
        if self.phase != RUNNING:
            return ()
        slots = self._slots.get(self.step)
        return tuple(i for i in range(self.n) if self.active[i] and (slots is None or slots[i] is None))

    def drop_deadline(self) -> float | None:
        """When we will vote to drop a seat we still wait for and have not voted against yet
        (seconds, the caller's clock; ``vote_time``), or None if seat loss is off or no such
        seat is awaited."""
        if not self.seat_loss or self.phase != RUNNING or self.spectator:
            return None
        times = [self.vote_time(i) for i in self.waiting_for()
                 if i != self.my_seat and (self.step, i) not in self._voted]
        return min(times) if times else None

    def vote_time(self, seat: int) -> float:
        """When we vote to drop ``seat`` at the current step if its message has not come
        (protocol.md §C8.3): ``drop_timeout`` s after we last heard from it (the step's start or its
        last ALIVE), and at the latest ``turn_time`` s after the step's start (unless
        unlimited)."""
        t = max(self._step_started, self._heard.get(seat, self._step_started)) + self.drop_timeout
        if self.turn_time:
            t = min(t, self._step_started + self.turn_time)
        return t

    def turn_deadline(self) -> float | None:
        """When the others vote our seat out if we still have not sent our input for this
        step (the turn time, protocol.md §C8.3), for a countdown; None if seat loss is off, the turn
        time unlimited or no local input is awaited."""
        if not self.seat_loss or not self.turn_time or self.needs_local_input() is None:
            return None
        return self._step_started + self.turn_time

    def _keepalive_interval(self) -> float:
        return min(C.KEEPALIVE_INTERVAL, self.drop_timeout / 3)

    def _owes_alive(self) -> bool:
        """True while we must send ALIVE: seat loss on, running, our message of this step
        not sent yet (we wait for our player, or for escrows before a reveal)."""
        if not self.seat_loss or self.phase != RUNNING or self.spectator or self._replaying:
            return False
        slots = self._slots.get(self.step)
        return slots is None or slots[self.my_seat] is None

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
        """Earliest time ``handle_timer`` must be called, or None."""
        if self.phase != RUNNING:
            return None
        t = self._stall_at
        if self._resend_at is not None:
            t = min(t, self._resend_at)
        d = self.drop_deadline()
        if d is not None:
            t = min(t, d)
        if self._dispute is not None:
            t = min(t, self._dispute[2])
        if self._ahead is not None:
            t = min(t, max(self._step_started + C.CATCHUP_AFTER, self._last_request + C.CATCHUP_INTERVAL))
        if self._alive_at is not None and self._owes_alive():
            t = min(t, self._alive_at)
        return t

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
        self._send_own(None if action is None else self.engine.encode_action(action))
        self._try_advance()

    def receive_message(self, data: bytes, now: float) -> None:
        """Handle one session envelope from a peer (STEP, ESCROW, DROP, CATCHUP_REQ,
        CATCHUP_RESP, HINT: ``wire.SESSION_TYPES``). Never raises for bad input: it is dropped
        and counted in ``stats``; protocol violations become events."""
        self._now = now
        st = self.stats
        st["received"] += 1
        if self.phase == HALTED:
            return
        try:
            env = open_envelope(data, C.MAX_CATCHUP_MSG)
            if env.mtype != MSG_STEP:
                handler = _HANDLERS.get(env.mtype)
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
            handler[1](self, env, msg, now)
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
        slots = self._slots.get(s)
        if slots is not None and slots[seat] is not None:
            held = slots[seat]
            if held.env.body == env.body:
                st["duplicate"] += 1
                if s <= k:  # the sender re-sends: it is stuck at step s, maybe lacking ours
                    self._answer(seat, s, now)
                return
            if not env.verify(self._pubkeys[seat]):
                self._bad_signature(b, env)
                return
            self._halt(Equivocation(s, seat, held.env.raw, env.raw))
            return
        if s < k:
            st["stale"] += 1
            if s + 1 < k or s not in self._own:
                self._hint(seat, now)  # more than one step behind: it needs a catch-up
            else:
                self._answer(seat, s, now)
            return
        if s >= k + C.STEP_WINDOW:
            st["too_far"] += 1
            self._ahead = (seat, s)  # only a trigger to ask that seat; records are verified
            return
        if not self.active[seat] and self.dropped[seat].step <= s:
            st["ignored"] += 1  # a dropped seat's late messages change nothing
            return
        if not env.verify(self._pubkeys[seat]):
            self._bad_signature(b, env)
            return
        if self.phase != RUNNING:  # finished: nothing more to apply
            st["stale"] += 1
            return
        st["accepted"] += 1
        if slots is None:
            slots = self._slots[s] = [None] * self.n
        held = Held(b, env)
        slots[seat] = held
        if s == k:
            if not self._check_prev(held):
                return
            self._try_advance()
        else:
            self._ahead = (seat, s)

    def handle_timer(self, now: float) -> None:
        """Re-send our current step message if the step is stuck (exponential back-off from
        RESEND_INTERVAL to RESEND_MAX_INTERVAL), report ``PeerStalled`` every STALL_TIMEOUT,
        vote to drop seats silent for the drop timeout, and ask a peer that is ahead for a
        catch-up."""
        self._now = now
        if self.phase != RUNNING:
            return
        if self._resend_at is not None and now >= self._resend_at:
            own = self._own.get(self.step)
            if own is not None:
                self._out.append(own)
                self.stats["resent"] += 1
            if self.seat_loss and self._escrow_needed() and len(self._escrows) < self._active_count():
                self._send_escrow(resend=True)
            self._resend_interval = min(self._resend_interval * 2, C.RESEND_MAX_INTERVAL)
            self._resend_at = now + self._resend_interval
        if self._alive_at is not None and now >= self._alive_at:
            if self._owes_alive():
                self._out.append(seal(self.identity, MSG_ALIVE, [self.game_id, self.my_seat, self.step]))
                self.stats["alive_sent"] += 1
            self._alive_at = now + self._keepalive_interval()
        if now >= self._stall_at:
            last = {i: self._heard.get(i, self._step_started) for i in self.waiting_for() if i != self.my_seat}
            silent = tuple(i for i, t in last.items() if now - t >= C.STALL_TIMEOUT)
            if silent:
                self._events.append(PeerStalled(self.step, silent, now - max(last[i] for i in silent)))
            self._stall_at = now + C.STALL_TIMEOUT
        if self._dispute is not None and now >= self._dispute[2]:
            self._settle_dispute(None)
            return
        d = self.drop_deadline()
        if d is not None and now >= d:
            for seat in self.waiting_for():
                if seat != self.my_seat and (self.step, seat) not in self._voted and now >= self.vote_time(seat):
                    self._vote_drop(seat)
        if self._ahead is not None and now >= self._step_started + C.CATCHUP_AFTER \
                and now >= self._last_request + C.CATCHUP_INTERVAL and self.phase == RUNNING:
            seat, s = self._ahead
            if s > self.step:
                self._request_catchup(seat)
            else:
                self._ahead = None

    def dump(self) -> dict:
        """A JSON-able report of the session for a bug report or evidence file: step, phase,
        hashes (hex), stats, halt reason, held messages (hex), dropped seats, and the encoded
        state if the engine offers ``encode_state``."""
        held = {str(s): [None if h is None else h.env.raw.hex() for h in slots]
                for s, slots in sorted(self._slots.items())}
        d = {
            "game_id": self.game_id.hex(),
            "my_seat": self.my_seat,
            "step": self.step,
            "phase": self.phase,
            "state_hash": self.state_hash.hex(),
            "prev_digest": self._prev_digest.hex(),
            "setup_hash": self.setup_hash.hex(),
            "stats": dict(self.stats),
            "halt_reason": None if self.halt_reason is None else _event_json(self.halt_reason),
            "held": held,
            "dropped": {str(k): [v.step, v.rule, v.chain is not None] for k, v in sorted(self.dropped.items())},
        }
        enc = getattr(self.engine, "encode_state", None)
        if enc is not None:
            d["state"] = enc(self.state).hex()
        return d

    def restart_timers(self, now: float) -> None:
        """Restart the current step's timers at ``now`` (after a resume: the log's steps
        happened in another run, on another clock)."""
        self._now = self._step_started = now
        self._stall_at = now + C.STALL_TIMEOUT
        self._resend_interval = C.RESEND_INTERVAL
        self._resend_at = now + C.RESEND_INTERVAL
        self._last_request = -1e18
        self._heard = {}
        self._alive_at = now + self._keepalive_interval() if self.seat_loss else None

    # -- catch-up (protocol.md §C9) --

    def request_catchup(self, now: float | None = None) -> None:
        """Ask every other active seat for the records from our step on (after a restart).
        Queues one CATCHUP_REQ; answers arrive as CATCHUP_RESP."""
        if now is not None:
            self._now = now
        self._last_request = self._now
        self.stats["catchup_requests"] += 1
        self._out.append(seal(self.identity, MSG_CATCHUP_REQ,
                              [self.game_id, self.my_seat, self.step, self.step + C.CATCHUP_MAX_STEPS]))

    def _request_catchup(self, seat: int) -> None:
        # Broadcast (the node sends to all): whoever is ahead answers; cheap and robust when the
        # peer we heard from is gone again.
        self.request_catchup()

    def _hint(self, seat: int, now: float) -> None:
        if now - self._hinted.get(seat, -1e18) < C.CATCHUP_INTERVAL:
            return
        self._hinted[seat] = now
        self.stats["hints"] += 1
        self._out.append(seal(self.identity, MSG_HINT, [self.game_id, self.my_seat, self.step]))

    def _on_hint(self, env: Envelope, h: Any, now: float) -> None:
        if h.seat >= self.n or h.seat == self.my_seat or h.step <= self.step:
            self.stats["ignored"] += 1
            return
        if not env.verify(self._pubkeys[h.seat]):
            self.stats["bad_signature"] += 1
            self._events.append(PeerMisbehaved(h.seat, h.step, "bad signature", env.raw))
            return
        self._ahead = (h.seat, h.step)
        if now - self._last_request >= C.CATCHUP_INTERVAL:
            self._request_catchup(h.seat)

    def _on_alive(self, env: Envelope, a: Any, now: float) -> None:
        """ALIVE (protocol.md §C8.3): an active seat whose message of our current step we lack is
        still there; its silence clock restarts. Anything else is ignored (never verified:
        a flood costs one comparison per message)."""
        if a.seat >= self.n or a.seat == self.my_seat or a.step != self.step or self.phase != RUNNING \
                or not self.active[a.seat]:
            self.stats["ignored"] += 1
            return
        slots = self._slots.get(self.step)
        if slots is not None and slots[a.seat] is not None:
            self.stats["ignored"] += 1
            return
        if not env.verify(self._pubkeys[a.seat]):
            self.stats["bad_signature"] += 1
            self._events.append(PeerMisbehaved(a.seat, a.step, "bad signature", env.raw))
            return
        self.stats["alive"] += 1
        self._heard[a.seat] = now

    def _on_catchup_req(self, env: Envelope, r: Any, now: float) -> None:
        if r.seat >= self.n or r.seat == self.my_seat:
            self.stats["bad_seat"] += 1
            return
        if now - self._served.get(r.seat, -1e18) < C.CATCHUP_INTERVAL:
            self.stats["ignored"] += 1  # rate limit: answering costs us, asking costs nothing
            return
        if not env.verify(self._pubkeys[r.seat]):
            self.stats["bad_signature"] += 1
            self._events.append(PeerMisbehaved(r.seat, r.from_step, "bad signature", env.raw))
            return
        self._served[r.seat] = now
        self.stats["catchup_served"] += 1
        self._out.append(build_response(self, r.from_step, r.to_step))
        if self.seat_loss and self.active[self.my_seat]:
            self._send_escrow(resend=True)

    def _on_catchup_resp(self, env: Envelope, r: Any, now: float) -> None:
        if r.seat >= self.n or r.seat == self.my_seat:
            self.stats["bad_seat"] += 1
            return
        if not env.verify(self._pubkeys[r.seat]):
            self.stats["bad_signature"] += 1
            self._events.append(PeerMisbehaved(r.seat, r.from_step, "bad signature", env.raw))
            return
        first = self.step
        problem = ingest_response(self, r)
        if self.phase == RUNNING:
            self._settle_dispute(r.seat)
        if problem is not None:
            self._events.append(PeerMisbehaved(r.seat, self.step, f"bad catch-up record: {problem}", env.raw))
        if self.step > first:
            self._events.append(CaughtUp(r.seat, first, self.step))
        if self.phase == RUNNING and r.head_step > self.step:
            self._ahead = (r.seat, r.head_step)
            if self.step > first or problem is not None:
                self._request_catchup(r.seat)  # next page (or another peer)
        elif self._ahead is not None and self._ahead[1] <= self.step:
            self._ahead = None

    def ingest_step_record(self, step: int, raws: list) -> str | None:
        """Apply the complete record of ``step`` (our current step): one STEP envelope per
        active seat (None for seats dropped by then), verified exactly like live messages
        (signature, game, step, seat, prev hash and digest, reveals). A complete record is
        applied even if we voted to drop one of its seats (protocol.md §C8.3). Returns None, or
        why the record was refused (English); equivocation and desync halt as live."""
        if step != self.step or self.phase != RUNNING:
            return "not our current step"
        if type(raws) is not list or len(raws) != self.n:
            return "record without one entry per seat"
        held = []
        for i, raw in enumerate(raws):
            if raw is None:
                if self.active[i]:
                    return f"no message of active seat {i}"
                held.append(None)
                continue
            if not self.active[i] or type(raw) is not bytes:
                return f"message of dropped seat {i}"
            try:
                env = open_envelope(raw, C.MAX_STEP_MSG)
                b = decode_step_body(env.body)
            except WireError as e:
                return f"seat {i}: {e}"
            if env.mtype != MSG_STEP or b.game_id != self.game_id or b.step != step or b.seat != i:
                return f"seat {i}: message of another game, step or seat"
            if not env.verify(self._pubkeys[i]):
                return f"seat {i}: bad signature"
            held.append(Held(b, env))
        slots = self._slots.setdefault(step, [None] * self.n)
        for i, h in enumerate(held):
            if h is None:
                continue
            cur = slots[i]
            if cur is not None and cur.env.body != h.env.body:
                self._halt(Equivocation(step, i, cur.env.raw, h.env.raw))
                return None
            if cur is None:
                slots[i] = h
                if i == self.my_seat:
                    self._own[step] = h.env.raw
            if not self._check_prev(slots[i]):
                return None
        self._try_advance(force=True)
        return None

    # -- seat loss (protocol.md §C8) --

    def _active_count(self) -> int:
        return sum(self.active)

    def _escrow_needed(self) -> bool:
        # Two active seats: the "others" are one player, who must not learn our chain (§8.5).
        return self.seat_loss and self._active_count() >= 3

    def _send_escrow(self, resend: bool = False) -> None:
        if not self._escrow_needed() or self.spectator or not self.active[self.my_seat]:
            return
        mine = self._escrows.get(self.my_seat)
        if mine is None:
            recipients = [i for i in range(self.n) if self.active[i] and i != self.my_seat]
            raw = make_escrow(self.identity, self.chain.value(0), self.game_id, self.my_seat, self.epoch,
                              recipients, self._xkeys)
            self._escrows[self.my_seat] = (decode_escrow(open_envelope(raw, C.MAX_STEP_MSG).body), raw)
        elif not resend:
            return
        if not self._replaying:
            self._out.append(self._escrows[self.my_seat][1])

    def _on_escrow(self, env: Envelope, e: Escrow, now: float) -> None:
        self.stats["escrow"] += 1
        if not self.seat_loss or e.epoch != self.epoch or e.seat >= self.n or not self.active[e.seat]:
            self.stats["ignored"] += 1
            return
        if e.seat == self.my_seat:
            self.stats["bad_seat"] += 1
            return
        if e.seat in self._escrows:
            if self._escrows[e.seat][1] != env.raw and env.verify(self._pubkeys[e.seat]):
                self._halt(Equivocation(-1, e.seat, self._escrows[e.seat][1], env.raw))
            return
        if not env.verify(self._pubkeys[e.seat]):
            self.stats["bad_signature"] += 1
            self._events.append(PeerMisbehaved(e.seat, self.step, "bad signature", env.raw))
            return
        want = [i for i in range(self.n) if self.active[i] and i != e.seat]
        if [x.to for x in e.entries] != want:
            self._halt(CheatDetected(self.step, e.seat, "escrow not dealt to every other active seat", env.raw))
            return
        if not self.spectator:
            share = open_share(self.identity, e, self.my_seat, self._xkeys[e.seat])
            if share is None:
                # Signed by the dealer yet our share does not open: the dealer cheated (or, for
                # the others who cannot check our key, we lie): stop rather than reveal (§8.5).
                self._halt(CheatDetected(self.step, e.seat, "escrow share does not match its commitment", env.raw))
                return
            self._shares[e.seat] = share
        self._escrows[e.seat] = (e, env.raw)
        if self._reveal_waiting and len(self._escrows) == self._active_count():
            self._make_reveal()
            self._try_advance()

    def _vote_drop(self, seat: int) -> None:
        k = self.step
        self._voted.add((k, seat))
        share = self._shares.get(seat) if self._escrow_needed() else None
        raw = seal(self.identity, MSG_DROP, [self.game_id, self.my_seat, k, seat, self.epoch, share])
        vote = DropVote(self.game_id, self.my_seat, k, seat, self.epoch, share)
        self._votes.setdefault((k, seat), {})[self.my_seat] = (vote, raw)
        self._out.append(raw)
        self._events.append(SeatDropVoted(k, seat))
        self._check_drop(seat)

    def _on_drop(self, env: Envelope, v: DropVote, now: float) -> None:
        st = self.stats
        st["drop_votes"] += 1
        if not self.seat_loss or v.voter >= self.n or v.seat >= self.n:
            st["ignored"] += 1
            return
        if v.voter == self.my_seat:
            st["bad_seat"] += 1
            return
        k = self.step
        if v.step < k and v.seat == self.my_seat and env.verify(self._pubkeys[v.voter]):
            # We applied that step with our own message, but the others are dropping us at it:
            # once all of them voted, our state has forked from theirs (§8.3).
            votes = self._votes.setdefault((v.step, v.seat), {})
            votes[v.voter] = (v, env.raw)
            if all(i in votes for i in range(self.n) if self.active[i] and i != self.my_seat):
                self._halt(SeatLost(v.step))
            return
        if v.step < k:
            st["stale"] += 1
            self._hint(v.voter, now)  # the voter is behind: we completed that step
            return
        if v.step >= k + C.STEP_WINDOW:
            st["too_far"] += 1
            return
        if not env.verify(self._pubkeys[v.voter]):
            st["bad_signature"] += 1
            self._events.append(PeerMisbehaved(v.voter, v.step, "bad signature", env.raw))
            return
        votes = self._votes.setdefault((v.step, v.seat), {})
        old = votes.get(v.voter)
        if old is not None:
            if old[1] != env.raw:
                self._halt(Equivocation(v.step, v.voter, old[1], env.raw))
            return
        votes[v.voter] = (v, env.raw)
        if v.step == k:
            held = self._slots.get(k)
            if held is not None and held[v.seat] is not None and (k, v.seat) not in self._voted:
                # We hold the message the voter misses: pass it on (it is signed by its seat).
                self._out.append(held[v.seat].env.raw)
                st["forwarded"] += 1
            self._check_drop(v.seat)

    def _check_drop(self, seat: int) -> None:
        k = self.step
        if self.phase != RUNNING or not self.active[seat]:
            return
        votes = self._votes.get((k, seat), {})
        voters = [i for i in range(self.n) if self.active[i] and i != seat]
        if any(i not in votes for i in voters):
            return
        ordered = [votes[i] for i in voters]
        if any(v.epoch != self.epoch for v, _ in ordered):
            return
        esc = self._escrows.get(seat)
        chain, problem = recover_chain(self.setup, esc[0] if esc else None, [v for v, _ in ordered], self._escrow_needed())
        if problem is not None:
            culprit, why = problem
            self._halt(CheatDetected(k, culprit, why, esc[1] if culprit == seat else votes[culprit][1]))
            return
        self._apply_drop(k, seat, [raw for _, raw in ordered], esc[1] if esc else None, chain)

    def ingest_drop_record(self, payload: bytes) -> str | None:
        """Apply a DROP log record (from our log or a catch-up) for our current step: every
        vote verified (signature, game, step, seat, epoch, share vs. escrow commitment).
        Returns None or why it was refused."""
        try:
            step = self.step
            seat, votes, esc_raw, chain = check_drop_payload(
                self.setup, self.active, self.epoch, self.step, payload, self._escrow_needed())
        except ValueError as e:
            return str(e)
        self._apply_drop(step, seat, votes, esc_raw, chain)
        return None

    def _apply_drop(self, k: int, seat: int, votes: list, esc_raw: bytes | None, chain: HashChain | None) -> None:
        if seat == self.my_seat:
            self.spectator = True
        rule = self.on_drop or RULE_BOT
        if rule == RULE_BANKRUPT and getattr(self.engine, "retire_seat", None) is None:
            rule = RULE_BOT  # the engine cannot bankrupt a seat on demand (protocol.md §C8.4)
        self.active[seat] = False
        self.dropped[seat] = DropInfo(k, rule, chain)
        slots = self._slots.get(k)
        if slots is not None:
            slots[seat] = None
        payload = drop_record(k, seat, votes, esc_raw)
        if self.log is not None and not self._replaying:
            self.log.append_drop(payload)
        self._history.append((KIND_DROP, payload, k))
        self._hist_index.setdefault(k, len(self._history) - 1)
        self.epoch += 1
        self._escrows, self._shares = {}, {}
        if self.hidden is not None:
            self.hidden.drop(seat, None if chain is None else hidden_secret(chain.value(0)))
        self._events.append(SeatDropped(k, seat, rule, chain is not None))
        self._send_escrow()
        if self._reveal_waiting and (not self._escrow_needed() or len(self._escrows) == self._active_count()):
            self._make_reveal()
        self._try_advance()

    def _fill(self, k: int) -> dict[int, Any]:
        """Inputs of the dropped seats for step k (protocol.md §C8.4)."""
        fill: dict[int, Any] = {}
        j = self.chance_count + 1
        for seat, info in self.dropped.items():
            if self._inspection is not None:
                fill[seat] = None  # its shares come from the ledger (protocol.md §C12.6)
            elif self._pending.chance:
                fill[seat] = info.chain.reveal_at(j) if info.chain is not None else dropped_reveal(self.game_id, seat, j)
            elif info.rule == RULE_BOT:
                fill[seat] = dropped_input(self._bot, self.state, seat, self.dropped)
            else:
                fill[seat] = None
        return fill

    # -- hidden information (protocol.md §C12) --

    def private_view(self) -> dict:
        """What our player may know privately: {("bill", id) | ("card", index): fake} for
        every bill or Imprevisti whose shares we hold in full ({} without hidden information,
        or as a spectator). For our own bot/UI only: it never leaves this peer."""
        if self.view is None or self.spectator:
            return {}
        return self.view.status()

    def _resolve_hidden(self, k: int, slots: list, bodies: list, fill: dict) -> StepResult | None:
        """Check the step's hidden fields and apply it (an inspection through
        ``apply_reveal``). A fault halts with CheatDetected naming the culprit, after logging
        the step's messages as evidence; returns None then."""
        bad, res = resolve_hidden(self.engine, self.hidden, self.state, self._pending.chance, self._inspection,
                                  self.game_seed, k, bodies, self._last_reveals, fill)
        if bad is None:
            return res
        seat, reason = bad
        held = slots[seat]
        evidence = held.env.raw if held is not None else b""
        if "private delivery" in reason:
            prev = self._slots.get(k - 1)
            if prev is not None and prev[seat] is not None:
                # The sender's delivery (step k-1) and the holder's complaint (step k).
                complainer = next((h for h in slots if h is not None and h.body.hidden is not None
                                   and h.body.hidden[2] is not None and h.body.hidden[2][0] == seat), None)
                evidence = pack([prev[seat].env.raw, b"" if complainer is None else complainer.env.raw])
        if self.log is not None and not self._replaying and held is not None:
            self.log.append_step(k, [None if h is None else h.env.raw for h in slots])
        self._halt(CheatDetected(k, seat, reason, evidence))
        return None

    # -- internals --

    def _begin_step(self) -> None:
        """Enter step ``self.step``: query the engine, make our reveal at a chance step (once we
        hold every active seat's escrow), and check messages buffered for this step."""
        self._pending = self.engine.pending(self.state)
        self._step_started = self._now
        self._stall_at = self._now + C.STALL_TIMEOUT
        self._resend_at = None
        self._resend_interval = C.RESEND_INTERVAL
        self._reveal_waiting = False
        self._inspection = None
        self._heard = {}
        self._alive_at = self._now + self._keepalive_interval() if self.seat_loss else None
        if self.final_step == self.step:
            # The attestation round (§C3.5): input nil, no hidden field, nothing to decide.
            slots = self._slots.get(self.step)
            if not self.spectator and (slots is None or slots[self.my_seat] is None):
                self._send_own(None, final=True)
        elif self.hidden is not None and self._pending.kind == "inspection":
            # Not a chance step for the hash chains: every seat opens its shares (§12.5).
            from engine.rules.counterfeit import unknown_items

            self._inspection = unknown_items(self.state)
            slots = self._slots.get(self.step)
            if not self.spectator and (slots is None or slots[self.my_seat] is None):
                self._send_own(None)
        elif self._pending.chance and not self.spectator:
            if self._escrow_needed() and len(self._escrows) < self._active_count():
                self._reveal_waiting = True  # §8.2: no reveal before every escrow is held
                self._resend_at = self._now + self._resend_interval
            else:
                self._make_reveal()
                if self.phase != RUNNING:
                    return
        slots = self._slots.get(self.step)
        if slots is not None:
            for i, h in enumerate(slots):
                if h is not None and i != self.my_seat and not self._check_prev(h):
                    return
        k = self.step
        for seat in [seat for (s, seat) in self._votes if s == k]:
            self._check_drop(seat)  # votes that arrived before we reached this step
            if self.step != k or self.phase != RUNNING:
                return

    def _make_reveal(self) -> None:
        self._reveal_waiting = False
        slots = self._slots.get(self.step)
        if slots is not None and slots[self.my_seat] is not None:
            return  # already adopted from our log or a catch-up
        j = self.chance_count + 1
        if j > self.chain.length:
            self._halt(BeaconExhausted(self.step))
            return
        self.chain.used = max(self.chain.used, j)
        self._send_own(self.chain.reveal_at(j))

    def _send_own(self, inp: Any, final: bool = False) -> None:
        k = self.step
        fields = [self.game_id, k, self.my_seat, self.state_hash, self._prev_digest, inp]
        hidden = None
        if self.view is not None and not final:
            field = self.view.my_field(k, self._inspection)
            fields.append(field)
            hidden = tuple(field)
        body = pack(fields)
        sig = self.identity.sign(C.DOMAIN_STEP, body)
        raw = pack([MSG_STEP, body, sig])
        if len(raw) > C.MAX_STEP_MSG:
            raise LocalProtocolError(f"step message of {len(raw)} bytes over {C.MAX_STEP_MSG}")
        held = Held(StepBody(self.game_id, k, self.my_seat, self.state_hash, self._prev_digest, inp, hidden),
                    Envelope(MSG_STEP, body, sig, raw))
        slots = self._slots.get(k)
        if slots is None:
            slots = self._slots[k] = [None] * self.n
        slots[self.my_seat] = held
        self._own[k] = raw
        if self._replaying:
            return
        if self.own_log is not None:
            self.own_log.append_own(k, raw)  # write-ahead: a restart re-sends these bytes
        self._out.append(raw)
        self._resend_at = self._now + self._resend_interval

    def adopt_own(self, raw: bytes) -> bool:
        """Take ``raw`` (our own STEP envelope of the current step, from our own-message log or
        a catch-up) as our message of this step, so a restart never signs a second, different
        one. Returns False (nothing changed) if it is not a valid message of ours for this
        step or we already hold a different one."""
        try:
            env = open_envelope(raw, C.MAX_STEP_MSG)
            b = decode_step_body(env.body)
        except WireError:
            return False
        if env.mtype != MSG_STEP or b.game_id != self.game_id or b.step != self.step or b.seat != self.my_seat \
                or not env.verify(self.identity.public_key) or self.spectator:
            return False
        slots = self._slots.setdefault(self.step, [None] * self.n)
        if slots[self.my_seat] is not None:
            return slots[self.my_seat].env.raw == raw
        slots[self.my_seat] = Held(b, env)
        self._own[self.step] = raw
        self._reveal_waiting = False
        if not self._replaying:
            self._out.append(raw)
            self._resend_at = self._now + self._resend_interval
        return True

    def _answer(self, seat: int, s: int, now: float) -> None:
        own = self._own.get(s)
        if own is None:
            return
        if now - self._answered.get(seat, -1e9) < C.ANSWER_MIN_INTERVAL:
            return
        self._answered[seat] = now
        self._out.append(own)
        self.stats["answered"] += 1

    def _bad_signature(self, b: StepBody, env: Envelope) -> None:
        self.stats["bad_signature"] += 1
        self._events.append(PeerMisbehaved(b.seat, b.step, "bad signature", env.raw))

    def _check_prev(self, h: Held) -> bool:
        """Check a current-step message's prev hash and digest against ours; halt on Desync."""
        b = h.body
        if b.prev_hash == self.state_hash and b.prev_digest == self._prev_digest:
            return True
        fld = "state" if b.prev_hash != self.state_hash else "digest"
        if fld == "digest" and self._dispute is not None:
            return False  # one dispute at a time decides (its answer names the equivocator)
        if fld == "digest" and self.step - 1 in self._slots and not self._replaying:
            # Same state, different digest: either this seat lies, or a seat sent different
            # messages of the last step to different peers. Ask for its record of that step
            # to name the culprit (§3.4); decide at the latest after DISPUTE_TIMEOUT.
            self._dispute = (b.seat, h.env.raw, self._now + C.DISPUTE_TIMEOUT)
            self._last_request = self._now
            self._out.append(seal(self.identity, MSG_CATCHUP_REQ, [self.game_id, self.my_seat, self.step - 1, self.step]))
            return False
        self._halt(Desync(b.step, b.seat, fld, h.env.raw, self._own_evidence()))
        return False

    def _settle_dispute(self, from_seat: int | None) -> None:
        """End a digest dispute: no equivocation was found in ``from_seat``'s record (or time
        ran out), so the disputed seat signed a wrong digest: Desync."""
        if self._dispute is None or (from_seat is not None and from_seat != self._dispute[0]):
            return
        seat, raw, _ = self._dispute
        self._dispute = None
        if self.phase == RUNNING:
            self._halt(Desync(self.step, seat, "digest", raw, self._own_evidence()))

    def cross_check(self, step: int, raws: Any) -> bool:
        """Compare a peer's record of an applied ``step`` (still kept) with the messages we
        applied: a different, validly signed message of a seat is equivocation (halt). Returns
        True if an equivocation was found."""
        held = self._slots.get(step)
        if held is None or type(raws) is not list or len(raws) != self.n:
            return False
        for i, raw in enumerate(raws):
            h = held[i]
            if h is None or type(raw) is not bytes or raw == h.env.raw:
                continue
            try:
                env = open_envelope(raw, C.MAX_STEP_MSG)
                b = decode_step_body(env.body)
            except WireError:
                continue
            if env.body != h.env.body and b.step == step and b.seat == i and b.game_id == self.game_id \
                    and env.verify(self._pubkeys[i]):
                self._dispute = None
                self._halt(Equivocation(step, i, h.env.raw, raw))
                return True
        return False

    def _own_evidence(self) -> bytes:
        """Our signed message of the current step (made with input None if we had not sent
        one yet: it carries our prev hash and digest, which is what the evidence needs)."""
        own = self._own.get(self.step)
        if own is None:
            body = pack([self.game_id, self.step, self.my_seat, self.state_hash, self._prev_digest, None])
            own = pack([MSG_STEP, body, self.identity.sign(C.DOMAIN_STEP, body)])
        return own

    def _halt(self, event: Any) -> None:
        self.phase = HALTED
        self.halt_reason = event
        self._events.append(event)

    def _try_advance(self, force: bool = False) -> None:
        while self.phase == RUNNING:
            k = self.step
            slots = self._slots.get(k)
            active = self.active
            if slots is None or any(active[i] and slots[i] is None for i in range(self.n)):
                return
            if self._dispute is not None:
                return
            if not force and any((k, i) in self._voted for i in range(self.n) if active[i]):
                return  # we voted to drop a seat at k: only the votes or a full record decide
            force = False
            slots = slots or [None] * self.n
            if k == self.final_step:
                self._finish(k, slots)
                return
            fill = self._fill(k)
            bodies = [None if h is None else h.body for h in slots]
            if self.hidden is not None:
                res = self._resolve_hidden(k, slots, bodies, fill)
                if res is None:
                    return
            else:
                res = resolve_step(self.engine, self.state, self._pending.chance, self.game_seed, k,
                                   bodies, self._last_reveals, fill)
            if res.fatal is not None:
                seat, reason = res.fatal
                self._halt(CheatDetected(k, seat, reason, slots[seat].env.raw))
                return
            for seat, reason in res.problems:
                self._events.append(PeerMisbehaved(seat, k, reason, slots[seat].env.raw))
            state, events = res.state, res.events
            for seat, info in sorted(self.dropped.items()):
                if info.step == k and info.rule == RULE_BANKRUPT:
                    state, more = self.engine.retire_seat(state, seat)
                    events = events + tuple(more)
            if self._pending.chance and self._inspection is None:
                self.chance_count += 1
            self._prev_digest = step_digest([b"" if h is None else h.env.body for h in slots])
            if self.hidden is not None:
                fields = [None if b is None else b.hidden for b in bodies]
                if self.view is not None and not self.spectator:
                    self.view.receive(k, fields)
                self.hidden.after_step(k, fields, state)
                if self.view is not None:
                    self.view.refresh(state)
            self.state = state
            self.state_hash = self.engine.state_hash(state)
            raws = [None if h is None else h.env.raw for h in slots]
            if self.log is not None and not self._replaying:
                self.log.append_step(k, raws)
            self._history.append((KIND_STEP, pack([k, raws]), k))
            self._hist_index.setdefault(k, len(self._history) - 1)
            kind = "inspection" if self._inspection is not None else "chance" if self._pending.chance else "decision"
            self._events.append(StepApplied(k, kind, events, self.state_hash))
            self.step = k + 1
            old = k + 1 - C.KEEP_STEPS
            self._slots.pop(old, None)
            self._own.pop(old, None)
            for key in [key for key in self._votes if key[0] <= k and key[1] != self.my_seat]:
                del self._votes[key]
            if self.engine.is_terminal(state):
                self.final_step = k + 1  # one more round: every seat attests the end (§C3.5)
            self._begin_step()

    def _finish(self, k: int, slots: list) -> None:
        """Every active seat's attestation (step ``k`` = ``final_step``, §C3.5) is held and
        checked (prev hash = the final state hash, prev digest = the last step's digest): log
        them as the last record, emit ``GameOver``. An attestation with an input or a hidden
        field is CheatDetected (``verify`` says the same)."""
        for i, h in enumerate(slots):
            if h is not None and (h.body.input is not None or h.body.hidden is not None):
                self._halt(CheatDetected(k, i, "final attestation carries an input", h.env.raw))
                return
        raws = [None if h is None else h.env.raw for h in slots]
        if self.log is not None and not self._replaying:
            self.log.append_step(k, raws)
        self._history.append((KIND_STEP, pack([k, raws]), k))
        self._hist_index.setdefault(k, len(self._history) - 1)
        self._prev_digest = step_digest([b"" if h is None else h.env.body for h in slots])
        self.step = k + 1
        self.phase = FINISHED
        self._resend_at = None
        self._events.append(GameOver(self.engine.winner(self.state), self.state_hash, k))


#: Decoder and handler of each non-STEP session message type.
_HANDLERS = {
    MSG_ESCROW: (decode_escrow, LockstepSession._on_escrow),
    MSG_DROP: (decode_drop, LockstepSession._on_drop),
    MSG_CATCHUP_REQ: (decode_catchup_req, LockstepSession._on_catchup_req),
    MSG_CATCHUP_RESP: (decode_catchup_resp, LockstepSession._on_catchup_resp),
    MSG_HINT: (decode_hint, LockstepSession._on_hint),
    MSG_ALIVE: (decode_alive, LockstepSession._on_alive),
}


def _event_json(ev: Any) -> dict:
    d: dict = {"type": type(ev).__name__}
    for k, v in ev.__dict__.items():
        d[k] = v.hex() if isinstance(v, bytes) else v if isinstance(v, (int, str, type(None))) else repr(v)
    return d
