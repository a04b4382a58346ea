"""Sans-I/O lockstep session (DESIGN.md §2; docs/protocol/core.md §3, §5).

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
from .beacon import ChainExhausted, HashChain, beacon as make_beacon
from .errors import LocalProtocolError, WireError
from .identity import Identity
from .wire import (MSG_STEP, Envelope, Setup, StepBody, decode_step_body, open_envelope, pack,
                   setup_hash as compute_setup_hash)

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
    """Step ``step`` has waited ``waited`` seconds for ``seats``. Repeated every
    STALL_TIMEOUT; the node decides what to do (core.md §7)."""

    step: int
    seats: tuple
    waited: float


# --- step resolution (shared with verify.py) --------------------------------------------------

class Held(NamedTuple):
    """A verified step message: decoded body and its envelope."""

    body: StepBody
    env: Envelope


def step_digest(bodies: Sequence[bytes]) -> bytes:
    """Digest of one step: SHA-256(b"lanopoli/1/digest\\x00" || for each seat in order:
    len(body) as 4-byte BE || body). Bodies are the signed STEP bodies (core.md §3.2)."""
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
                 bodies: Sequence[StepBody], last_reveals: list[bytes]) -> StepResult:
    """Apply one step's inputs (in seat order) to ``state``: the deterministic rule every peer
    and the offline verifier share (core.md §3.3).

    Chance step: every input must be a 32-byte reveal with SHA-256(reveal) == the seat's
    previous reveal, else ``fatal``; on success ``last_reveals`` is updated in place and the
    state goes through ``engine.apply_chance(beacon)``. Decision step: None stays None, a list
    goes through ``engine.decode_action`` (ValueError -> None plus a problem), a reveal is
    replaced by None (problem); then ``engine.apply_step``.
    """
    if chance:
        reveals = []
        for seat, b in enumerate(bodies):
            r = b.input
            if type(r) is not bytes:
                return StepResult(state, (), [], (seat, "no reveal at a chance step"))
            if _sha256(r).digest() != last_reveals[seat]:
                return StepResult(state, (), [], (seat, "reveal does not hash to the previous reveal"))
            reveals.append(r)
        new_state, events = engine.apply_chance(state, make_beacon(seed, step, reveals))
        last_reveals[:] = reveals
        return StepResult(new_state, tuple(events), [], None)
    inputs: list = []
    problems = []
    for seat, b in enumerate(bodies):
        x = b.input
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


# --- the session ----------------------------------------------------------------------------

class LockstepSession:
    """One peer's lockstep state machine. No I/O, no clock: time is passed in (seconds).

    ``setup``: the signed ``wire.Setup``; ``my_seat``: our index in ``setup.players``;
    ``identity``: must own ``setup.players[my_seat].public_key``; ``chain``: our ``HashChain``
    (its head must be our committed head); ``engine``: the engine module (ARCHITECTURE.md §1);
    ``game_seed``: 32 bytes from the seed reveals; ``state``: initial state (default
    ``engine.new_game(edition, seats, options)``); ``log``: optional ``gamelog.LogWriter``.
    Raises ``LocalProtocolError`` if identity or chain do not match the setup.
    """

    def __init__(self, setup: Setup, my_seat: int, identity: Identity, chain: HashChain, engine: Any,
                 game_seed: bytes, *, state: Any = None, log: Any = None, now: float = 0.0,
                 setup_bytes: bytes | None = None) -> None:
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
        self.setup_hash = compute_setup_hash(setup_bytes if setup_bytes is not None else setup.encode())
        self._pubkeys = [p.public_key for p in setup.players]
        self._last_reveals = [p.chain_head for p in setup.players]
        self.state = state if state is not None else engine.new_game(setup.edition, setup.seats, setup.options_dict())
        #: Step we are collecting messages for.
        self.step = 0
        #: Engine state hash after step - 1 (32 bytes).
        self.state_hash: bytes = engine.state_hash(self.state)
        self._prev_digest = self.setup_hash
        self.phase = RUNNING
        #: Why the session halted (an event), or None.
        self.halt_reason: Any = None
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
             "bad_signature", "stale", "too_far", "answered", "resent"), 0)
        self._begin_step()

    # -- queries --

    @property
    def pending(self) -> Any:
        """``engine.pending(state)`` for the current step."""
        return self._pending

    def needs_local_input(self) -> Any:
        """The engine's ``Pending`` if the local seat must submit an input (action or None) for
        the current decision step, else None (already submitted, chance step, finished or
        halted). At chance steps the session makes the reveal itself."""
        if self.phase != RUNNING or self._pending.chance:
            return None
        slots = self._slots.get(self.step)
        if slots is not None and slots[self.my_seat] is not None:
            return None
        return self._pending

    def waiting_for(self) -> tuple[int, ...]:
        """Seats whose message for the current step we do not hold yet (may include ours)."""
        if self.phase != RUNNING:
            return ()
        slots = self._slots.get(self.step)
        if slots is None:
            return tuple(range(self.n))
        return tuple(i for i, h in enumerate(slots) if h is None)

    # -- outputs --

    def messages_to_send(self) -> list[bytes]:
        """Envelopes to broadcast to every other seat (drains the queue)."""
        out, self._out = self._out, []
        return out

    def next_event(self) -> Any:
        """Next event (``StepApplied``, ``GameOver``, ``PeerMisbehaved``, ``Desync``,
        ``Equivocation``, ``CheatDetected``, ``BeaconExhausted``, ``PeerStalled``) or None."""
        return self._events.popleft() if self._events else None

    def get_timer(self) -> float | None:
        """Earliest time ``handle_timer`` must be called, or None."""
        if self.phase != RUNNING:
            return None
        if self._resend_at is None:
            return self._stall_at
        return min(self._resend_at, self._stall_at)

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
        """Handle one STEP envelope from a peer. Never raises for bad input: it is dropped and
        counted in ``stats``; protocol violations become events."""
        self._now = now
        st = self.stats
        st["received"] += 1
        if self.phase == HALTED:
            return
        try:
            env = open_envelope(data, C.MAX_STEP_MSG)
            if env.mtype != MSG_STEP:
                st["wrong_type"] += 1
                return
            b = decode_step_body(env.body)
        except WireError:
            st["malformed"] += 1
            return
        if b.game_id != self.game_id:
            st["wrong_game"] += 1
            return
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
            self._answer(seat, s, now)
            return
        if s >= k + C.STEP_WINDOW:
            st["too_far"] += 1
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

    def handle_timer(self, now: float) -> None:
        """Re-send our current step message if the step is stuck (exponential back-off from
        RESEND_INTERVAL to RESEND_MAX_INTERVAL) and report ``PeerStalled`` every
        STALL_TIMEOUT."""
        self._now = now
        if self.phase != RUNNING:
            return
        if self._resend_at is not None and now >= self._resend_at:
            own = self._own.get(self.step)
            if own is not None:
                self._out.append(own)
                self.stats["resent"] += 1
            self._resend_interval = min(self._resend_interval * 2, C.RESEND_MAX_INTERVAL)
            self._resend_at = now + self._resend_interval
        if now >= self._stall_at:
            self._events.append(PeerStalled(self.step, self.waiting_for(), now - self._step_started))
            self._stall_at = now + C.STALL_TIMEOUT

    def dump(self) -> dict:
        """A JSON-able report of the session for a bug report or evidence file: step, phase,
        hashes (hex), stats, halt reason, held messages (hex) and the encoded state if the
        engine offers ``encode_state``."""
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
        }
        enc = getattr(self.engine, "encode_state", None)
        if enc is not None:
            d["state"] = enc(self.state).hex()
        return d

    # -- internals --

    def _begin_step(self) -> None:
        """Enter step ``self.step``: query the engine, make our reveal at a chance step, and
        check messages buffered for this step."""
        self._pending = self.engine.pending(self.state)
        self._step_started = self._now
        self._stall_at = self._now + C.STALL_TIMEOUT
        self._resend_at = None
        self._resend_interval = C.RESEND_INTERVAL
        if self._pending.chance:
            try:
                reveal = self.chain.next_reveal()
            except ChainExhausted:
                self._halt(BeaconExhausted(self.step))
                return
            self._send_own(reveal)
        slots = self._slots.get(self.step)
        if slots is not None:
            for i, h in enumerate(slots):
                if h is not None and i != self.my_seat and not self._check_prev(h):
                    return

    def _send_own(self, inp: Any) -> None:
        k = self.step
        body = pack([self.game_id, k, self.my_seat, self.state_hash, self._prev_digest, inp])
        sig = self.identity.sign(C.DOMAIN_STEP, body)
        raw = pack([MSG_STEP, body, sig])
        if len(raw) > C.MAX_STEP_MSG:
            raise LocalProtocolError(f"step message of {len(raw)} bytes over {C.MAX_STEP_MSG}")
        held = Held(StepBody(self.game_id, k, self.my_seat, self.state_hash, self._prev_digest, inp),
                    Envelope(MSG_STEP, body, sig, raw))
        slots = self._slots.get(k)
        if slots is None:
            slots = self._slots[k] = [None] * self.n
        slots[self.my_seat] = held
        self._own[k] = raw
        self._out.append(raw)
        self._resend_at = self._now + self._resend_interval

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
        self._halt(Desync(b.step, b.seat, fld, h.env.raw, self._own_evidence()))
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

    def _try_advance(self) -> None:
        while self.phase == RUNNING:
            k = self.step
            slots = self._slots.get(k)
            if slots is None or None in slots:
                return
            res = resolve_step(self.engine, self.state, self._pending.chance, self.game_seed, k,
                               [h.body for h in slots], self._last_reveals)
            if res.fatal is not None:
                seat, reason = res.fatal
                self._halt(CheatDetected(k, seat, reason, slots[seat].env.raw))
                return
            for seat, reason in res.problems:
                self._events.append(PeerMisbehaved(seat, k, reason, slots[seat].env.raw))
            self._prev_digest = step_digest([h.env.body for h in slots])
            self.state = res.state
            self.state_hash = self.engine.state_hash(res.state)
            if self.log is not None:
                self.log.append_step(k, [h.env.raw for h in slots])
            self._events.append(StepApplied(k, "chance" if self._pending.chance else "decision",
                                            res.events, self.state_hash))
            self.step = k + 1
            old = k + 1 - C.KEEP_STEPS
            self._slots.pop(old, None)
            self._own.pop(old, None)
            if self.engine.is_terminal(res.state):
                self.phase = FINISHED
                self._resend_at = None
                self._events.append(GameOver(self.engine.winner(res.state), self.state_hash, k + 1))
                return
            self._begin_step()


def _event_json(ev: Any) -> dict:
    d: dict = {"type": type(ev).__name__}
    for k, v in ev.__dict__.items():
        d[k] = v.hex() if isinstance(v, bytes) else v if isinstance(v, (int, str, type(None))) else repr(v)
    return d
