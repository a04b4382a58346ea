"""Sealed simultaneous decisions: commit, then open (protocol.md §C13).

In lockstep nothing orders the sends of one step, so at a step where several seats decide at
once (an auction round, a step where two seats could ask for the last houses) a seat that waits
for the others' messages before signing its own would bid knowing their bids: the lookahead
cheat of peer-to-peer lockstep games (Baughman & Levine 2001). Such a decision therefore takes
two lockstep steps:

* **commit step k**: every seat's STEP input is ``commitment`` (32 bytes) =
  SHA-256("lanopoli/1/sealed\\0" ‖ gid (16) ‖ k (8 B BE) ‖ seat (1 B) ‖ msgpack(input) ‖ salt (16)),
  where ``input`` is what it would have sent (nil or an encoded action) and ``salt`` 16 fresh
  random bytes; the engine does not move (the state after k is the state before k);
* **open step k+1**: every seat's STEP input is its opening ``[input, salt]`` (or nil: it
  withdraws, and counts as having passed). A seat cannot sign its step-(k+1) message before it
  holds every active seat's step-k message (prev_digest), so it opens only once it holds every
  commitment, and nobody sees another seat's input before committing its own. The opened
  inputs are applied as one ordinary decision step (``engine.apply_step``).

An opening that does not match its commitment is a cheat: the two signed STEP messages (commit
and open) are the evidence. Every other case is deterministic and needs no message: an action in
clear at a commit step counts as no commitment, an opening without a commitment as nil, a seat
dropped at either step gets nil at the open step (``withdraw_drops``: the inputs a present seat
could have; version 6), and the lobby's rule from the next step (protocol.md §C8.4).

Which step is which (``next_phase``), identically on every peer and in ``verify``::

    prev COMMIT and the state is still a decision step    -> OPEN
    else engine.pending(state) is a decision step with two or more actors,
         or engine.shortage_possible(state)               -> COMMIT
    else                                                  -> PLAIN  (one round, as before)

This module is sans-I/O and owns its state: the phase of the current step, the commitments of
the last commit step (with their envelopes, the evidence) and our own opening. It knows
nothing of the session; the session asks it what to send and hands it what it applied.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Sequence

from .errors import LocalProtocolError, WireError
from .wire import check_action, pack

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine

#: Hash domain of a commitment (protocol.md §C13.2).
HASH_SEALED = b"lanopoli/1/sealed\x00"
#: Signature domain and hash domain of the reference peer's salts (``derive_salt``).
DOMAIN_SALT = b"sealed-salt"
HASH_SALT = b"lanopoli/1/sealed-salt\x00"
#: Bytes of the salt of a commitment.
SALT_LEN = 16
#: Bytes of a commitment.
COMMIT_LEN = 32

PLAIN = "plain"
COMMIT = "commit"
OPEN = "open"


def commitment(game_id: bytes, step: int, seat: int, inp: Any, salt: bytes) -> bytes:
    """The 32-byte commitment of ``seat`` at commit step ``step`` to ``inp`` (nil or an encoded
    action, a list), with ``salt`` (16 bytes): SHA-256(HASH_SEALED ‖ game_id ‖ step (8 B BE) ‖
    seat (1 B) ‖ msgpack(inp) ‖ salt) (protocol.md §C13.2). Raises ValueError on a wrong salt
    length."""
    if len(salt) != SALT_LEN:
        raise ValueError("salt must be 16 bytes")
    h = hashlib.sha256(HASH_SEALED)
    h.update(game_id)
    h.update(step.to_bytes(8, "big"))
    h.update(bytes((seat,)))
    h.update(pack(inp))
    h.update(salt)
    return h.digest()


def derive_salt(identity: Any, game_id: bytes, step: int) -> bytes:
    """The reference peer's salt for its commitment at commit step ``step`` (protocol.md
    §C13.2): SHA-256(HASH_SALT ‖ Ed25519 signature of our key over ``"lanopoli/1/sealed-salt\0"
    ‖ game_id ‖ step (8 B BE)``)[0:16]. Ed25519 signatures are deterministic (RFC 8032) and
    only we can make them, so the salt is unpredictable to the others (nothing they hold, not
    even a recombined escrow, gives it), the same after a restart, and a demo game's log is
    reproducible byte for byte. ``identity``: a ``p2p.identity.Identity``."""
    sig = identity.sign(DOMAIN_SALT, game_id + step.to_bytes(8, "big"))
    return hashlib.sha256(HASH_SALT + sig).digest()[:SALT_LEN]


def simultaneous(engine: Engine, state: Any) -> bool:
    """True if the decision of ``state``'s next step is sealed (protocol.md §C13.1): a decision
    step (not chance, not over) whose ``engine.pending`` names two or more actors, or in which
    two seats' BuildHouse requests could make a building shortage
    (``engine.shortage_possible``; an engine without it has no shortages)."""
    p = engine.pending(state)
    if p.chance or p.terminal:
        return False
    if len(p.actors) >= 2:
        return True
    short = getattr(engine, "shortage_possible", None)
    return bool(short is not None and short(state))


def next_phase(prev: str, engine: Engine, state: Any) -> str:
    """Phase of a step given ``prev`` (the phase of the step before it, PLAIN before step 0) and
    ``state`` (the state before it): OPEN after a COMMIT while the state still waits for a
    decision, else COMMIT if ``simultaneous``, else PLAIN (protocol.md §C13.1)."""
    if prev == COMMIT:
        p = engine.pending(state)
        if not p.chance and not p.terminal:
            return OPEN
    return COMMIT if simultaneous(engine, state) else PLAIN


def commit_of(inp: Any) -> bytes | None:
    """The commitment carried by a commit step's input ``inp``, or None (nil, or anything that
    is not 32 bytes: it counts as no commitment)."""
    return inp if type(inp) is bytes and len(inp) == COMMIT_LEN else None


def candidates(engine: Engine, state: Any, seat: int) -> Iterator[Any]:
    """The encoded inputs ``seat`` may have committed to at a step with ``state``: nil, every
    action of ``engine.legal_actions`` and every Bid amount ``engine.bid_limits`` allows (the
    engine lists one Bid as the family's representative). What a restarted peer tries
    (``SealedDecisions.recover``); a trade offer or an illegal input is not among them."""
    yield None
    bid = None
    for a in engine.legal_actions(state, seat):
        yield engine.encode_action(a)
        if type(a).__name__ == "Bid":
            bid = type(a)
    limits = getattr(engine, "bid_limits", None)
    lim = None if limits is None or bid is None else limits(state, seat)
    if lim is not None:
        for amount in range(lim[0], lim[1] + 1):
            yield engine.encode_action(bid(amount))


class Opened(NamedTuple):
    """The result of an open step (``open_inputs``).

    ``inputs``: per seat, the input to apply (nil or an encoded action); None also for a seat
    without a message (dropped: the caller fills it). ``withdrawn``: seats that committed and
    sent nil. ``problems``: ``(seat, reason)`` of harmless misbehaviour (the input counts as
    nil). ``fault``: ``(seat, reason)`` of the first seat (ascending) whose opening does not
    match its commitment, or None."""

    inputs: tuple
    withdrawn: tuple
    problems: list
    fault: tuple | None


#: Why ``open_seat`` gives a present seat nil: no commitment and an input anyway (a harmless
#: problem), a commitment and nil (withdrawn), an opening that does not open it (a fault).
NO_COMMITMENT = "opening without a commitment"
WITHDRAWN = "withdrawn"
MISMATCH = "opening does not match its commitment"


def open_seat(game_id: bytes, commit_step: int, seat: int, c: bytes | None, x: Any) -> tuple[Any, str | None]:
    """One present seat's row of ``open_inputs`` (protocol.md §C13.3): ``(input, why)``, the input
    to apply for ``seat``'s open-step input ``x`` against its commitment ``c`` of commit step
    ``commit_step`` (None: none), and None, or nil and why (``NO_COMMITMENT``, ``WITHDRAWN``,
    ``MISMATCH``). The one per-seat rule ``open_inputs``, ``SealedDecisions.opened`` and
    ``SealedDecisions.judge`` apply."""
    if c is None:
        return None, (None if x is None else NO_COMMITMENT)
    if x is None:
        return None, WITHDRAWN
    if (type(x) is list and len(x) == 2 and type(x[1]) is bytes and len(x[1]) == SALT_LEN
            and (x[0] is None or type(x[0]) is list)
            and commitment(game_id, commit_step, seat, x[0], x[1]) == c):
        return x[0], None
    return None, MISMATCH


def open_inputs(game_id: bytes, commit_step: int, commits: Sequence[bytes | None],
                openings: Sequence[Any], present: Sequence[bool]) -> Opened:
    """Check the openings of an open step against the commitments of commit step
    ``commit_step`` (protocol.md §C13.3). ``commits[i]``: seat i's commitment (``commit_of``)
    or None; ``openings[i]``: seat i's open-step input; ``present[i]``: seat i's open-step
    message is held (False: dropped, its input is filled by the caller). The rule every peer
    and ``verify`` apply, per seat (``open_seat``):

    * no commitment: the input must be nil, else it counts as nil (problem);
    * a commitment and nil: withdrawn, counts as nil;
    * a commitment and ``[input, salt]`` with ``commitment(gid, commit_step, i, input, salt)``
      equal to it, ``input`` nil or a list: that input;
    * a commitment and anything else: fault "opening does not match its commitment"."""
    inputs: list = []
    withdrawn = []
    problems = []
    fault = None
    for seat, (c, x, here) in enumerate(zip(commits, openings, present)):
        if not here:
            inputs.append(None)
            continue
        x, why = open_seat(game_id, commit_step, seat, c, x)
        inputs.append(x)
        if why == WITHDRAWN:
            withdrawn.append(seat)
        elif why == NO_COMMITMENT:
            problems.append((seat, why))
        elif why == MISMATCH and fault is None:
            fault = (seat, why)
    return Opened(tuple(inputs), tuple(withdrawn), problems, fault)


class Resolved(NamedTuple):
    """What a session (or ``verify``) applies for one step (``SealedDecisions.resolve``):
    ``engine`` to call (the real one, or ``FrozenEngine`` at a commit step), ``bodies`` with
    the inputs to apply (commitments blanked, openings replaced by what they open),
    ``problems`` ``(seat, reason)`` and ``fault`` ``(seat, reason)`` or None."""

    engine: Engine | FrozenEngine
    bodies: list
    problems: list
    fault: tuple | None


class FrozenEngine:
    """The engine as a commit step sees it (§C13.2): ``apply_step`` changes nothing and reports
    no event; everything else is the wrapped engine's."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    @staticmethod
    def apply_step(state: Any, inputs: Sequence[Any]) -> tuple:
        """The state unchanged, no events: nothing is decided at a commit step."""
        return state, ()


class SealedDecisions:
    """The sealed-decision part of one session (module docstring).

    ``game_id``: 16 bytes; ``my_seat``: ours; ``salt``: ``commit step -> 16 bytes`` (the
    session passes ``derive_salt`` with its identity; default: fresh ``os.urandom`` bytes). Per step the session calls ``begin``
    (phase of the new step), at a commit step ``seal`` (our commitment to send), at an open
    step ``opening`` (our opening to send), and once the step is applied ``committed`` (commit
    step) or ``open`` (open step)."""

    def __init__(self, game_id: bytes, my_seat: int, salt: Callable[[int], bytes] | None = None) -> None:
        self.game_id = game_id
        self.my_seat = my_seat
        self._salt = salt if salt is not None else (lambda _step: os.urandom(SALT_LEN))
        self._phase = PLAIN
        self._step = -1
        #: Commit step whose commitments are kept, its commitments and envelopes (evidence).
        self._commit_step = -1
        self._commits: tuple = ()
        self._raws: tuple = ()
        #: Our own opening: (commit step, input, salt).
        self._own: tuple | None = None

    @property
    def phase(self) -> str:
        """PLAIN, COMMIT or OPEN: the phase of the current step."""
        return self._phase

    @property
    def step(self) -> int:
        """The current step (−1 before ``begin``)."""
        return self._step

    def begin(self, step: int, engine: Engine, state: Any) -> str:
        """Enter ``step`` (the next one after the last ``begin``, or the first) with ``state``
        the state before it; returns its phase. Raises LocalProtocolError if steps are
        skipped (the phase depends on the step before)."""
        if self._step >= 0 and step != self._step + 1:
            raise LocalProtocolError(f"sealed: step {step} after {self._step}")
        prev = self._phase if self._step >= 0 else PLAIN
        self._phase = next_phase(prev, engine, state)
        self._step = step
        if self._phase != OPEN:
            self._own = None  # an opening is good for the open step right after its commit only
        return self._phase

    def seal(self, inp: Any) -> bytes:
        """Our commitment (the STEP input to send) to ``inp`` (nil or an encoded action) at the
        current commit step; the opening is kept for the open step. Raises
        LocalProtocolError if the current step is not a commit step, we already sealed, or the
        opening ``[inp, salt]`` would not pass the STEP input checks (§C3.1: depth, size)."""
        if self._phase != COMMIT:
            raise LocalProtocolError("sealed: not a commit step")
        if self._own is not None and self._own[0] == self._step:
            raise LocalProtocolError("sealed: already committed at this step")
        salt = self._salt(self._step)
        if type(salt) is not bytes or len(salt) != SALT_LEN:
            raise LocalProtocolError("sealed: the salt source must give 16 bytes")
        try:
            check_action([inp, salt])  # the opening must pass §C3.1's input checks
        except WireError as e:
            raise LocalProtocolError(f"sealed: input too large to open: {e}") from None
        c = commitment(self.game_id, self._step, self.my_seat, inp, salt)
        self._own = (self._step, inp, salt)
        return c

    def opening(self) -> list | None:
        """Our STEP input at the current open step: ``[input, salt]`` of our commitment of the
        step before, or None (nil: withdraw) if we hold none (we committed nothing, or the
        opening was lost in a restart)."""
        if self._phase != OPEN or self._own is None or self._own[0] != self._step - 1:
            return None
        return [self._own[1], self._own[2]]

    def own(self) -> tuple | None:
        """(commit step, input, salt) of our last commitment, for the own-message log."""
        return self._own

    def restore(self, commit_step: int, inp: Any, salt: bytes) -> None:
        """Take back our opening of ``commit_step`` after a restart (from the own-message log)."""
        self._own = (commit_step, inp, salt)

    def recover(self, commit_step: int, commit: bytes, candidates: Iterable[Any]) -> bool:
        """After a restart between our commitment and our opening: derive the salt of
        ``commit_step`` again and look for our committed input among ``candidates`` (encoded
        inputs, e.g. ``candidates(engine, state, seat)``); if one opens ``commit`` it becomes our
        opening. Returns True if found (protocol.md §C13.4)."""
        salt = self._salt(commit_step)
        for x in candidates:
            if commitment(self.game_id, commit_step, self.my_seat, x, salt) == commit:
                self._own = (commit_step, x, salt)
                return True
        return False

    def committed(self, step: int, inputs: Sequence[Any], raws: Sequence[bytes | None]) -> list:
        """Commit step ``step`` was applied with ``inputs`` (per seat, the STEP input, None for a
        seat without a message) and ``raws`` (the STEP envelopes): keep the commitments for the
        open step. Returns the problems ``(seat, reason)``: an input that is neither nil nor a
        commitment (it counts as no commitment)."""
        commits = tuple(commit_of(x) for x in inputs)
        self._commit_step = step
        self._commits = commits
        self._raws = tuple(raws)
        return [(i, "input in clear at a sealed step") for i, (x, c) in enumerate(zip(inputs, commits))
                if x is not None and c is None]

    def open(self, step: int, openings: Sequence[Any], present: Sequence[bool]) -> Opened:
        """The open step ``step`` (= the kept commit step + 1) is complete: check ``openings``
        (``open_inputs``). Commitments of another step count as none."""
        commits = self._commits if self._commit_step == step - 1 else (None,) * len(openings)
        return open_inputs(self.game_id, step - 1, commits, openings, present)

    def opened(self, step: int, seat: int, x: Any) -> Any:
        """What ``seat``'s open-step input ``x`` at open ``step`` opens, by ``open_inputs``' rule for
        that seat alone: nil without a commitment of the kept commit step (``step`` - 1), when
        withdrawn, or when it does not match. For a reader that judges one seat's input before the
        step is applied (``session_turn_clock``: an opening without a commitment is nil there too)."""
        commits = self._commits if self._commit_step == step - 1 else ()
        if seat >= len(commits):
            return None
        return open_seat(self.game_id, step - 1, seat, commits[seat], x)[0]

    def withdraw_drops(self, step: int, fill: dict[int, Any], dropped_at: Mapping[int, int]) -> dict[int, Any]:
        """At the current open ``step`` (else nothing changes), every seat dropped at that step
        or at its commit step (``dropped_at``: seat -> the step it was dropped at) gets nil in
        ``fill`` (the dropped seats' inputs, protocol.md §C8.4), in place; returns ``fill``.

        Protocol.md §C13.4 (version 6): a seat that holds its opening back until it holds the
        others' and then goes silent must not get a third option beside keeping its commitment
        and withdrawing (§C13.5): its bot's input is public, so silence would let it pick that
        one after the openings. A seat dropped at the commit step has no commitment: nil, as
        §C13.3 gives a present seat without one (and a seat whose turn was skipped there); and
        that half closes a race (§C13.4, tests/p2p/test_sealed_commit_race.py): a liar showing its
        commitment to one seat reads that seat's opening and, dropped at the commit step by the
        others, would otherwise get its bot's input chosen after an opening. Its
        bot (or the ``bankrupt`` rule) plays it from the next step on, as any dropped seat.
        Every peer (``StepAdvance.resolve``) and ``verify`` apply it alike."""
        if self._phase == OPEN and step == self._step:
            for seat, at in dropped_at.items():
                if at == step or at == step - 1:
                    fill[seat] = None
        return fill

    def resolve(self, engine: Engine, step: int, bodies: Sequence[Any], raws: Sequence[bytes | None]) -> Resolved:
        """The current step ``step`` is complete with ``bodies`` (per seat a ``wire.StepBody`` or
        None for a seat without a message) and ``raws`` (their envelopes): what to apply. PLAIN:
        everything unchanged. COMMIT: the commitments are kept (``committed``), every input is
        blanked and the engine frozen (the state does not move). OPEN: the inputs are the
        openings' (``open``); a seat without a message stays None (the caller fills it)."""
        if step != self._step:
            raise LocalProtocolError(f"sealed: resolve step {step} at step {self._step}")
        if self._phase == PLAIN:
            return Resolved(engine, list(bodies), [], None)
        inputs = [None if b is None else b.input for b in bodies]
        if self._phase == COMMIT:
            problems = self.committed(step, inputs, raws)
            return Resolved(FrozenEngine(engine), [None if b is None else b._replace(input=None) for b in bodies],
                            problems, None)
        r = self.open(step, inputs, [b is not None for b in bodies])
        out = [None if b is None else b._replace(input=x) for b, x in zip(bodies, r.inputs)]
        return Resolved(engine, out, r.problems, r.fault)

    def judge(self, body: Any) -> tuple | None:
        """A complaint's open-step STEP ``body`` of the current step, judged with the kept
        commitments: ``(seat, reason)`` if its opening does not match, else None (not an
        open step, not this step, or a good opening)."""
        if self._phase != OPEN or body.step != self._step or self._commit_step != self._step - 1:
            return None
        if not 0 <= body.seat < len(self._commits):
            return None
        _, why = open_seat(self.game_id, self._commit_step, body.seat, self._commits[body.seat], body.input)
        return (body.seat, why) if why == MISMATCH else None

    def evidence(self, seat: int) -> bytes | None:
        """``seat``'s signed commit-step envelope of the kept commit step (with its open-step
        message: the evidence of a bad opening), or None."""
        return self._raws[seat] if 0 <= seat < len(self._raws) else None

    def dump(self) -> dict:
        """JSON-able state for ``session.dump``."""
        return {"phase": self._phase, "step": self._step, "commit_step": self._commit_step,
                "commits": [None if c is None else c.hex() for c in self._commits],
                "own": None if self._own is None else self._own[0]}
