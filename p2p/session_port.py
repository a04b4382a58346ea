"""The seam between ``LockstepSession`` and the parts that act for it (``referee.Referee``,
``escrow_gate.EscrowGate``, ``abandon.Abandons``, ``turn_skip.SessionSkips``,
``session_votes.SessionVotes``, ``catchup_session.SessionCatchUp``, ``record_ingest.RecordIngest``,
``own_step.OwnStep``, ``reseat_session.SessionReseat``, ``step_advance.StepAdvance``,
``session_timers.SessionTimers``, ``step_gate.StepGate``, ``session_inbox.SessionInbox``,
``local_seat.LocalSeat``).

Such a part owns its own state (the complaints ledger, the open dispute, the seats that
left...) and judges messages in the context of the session's current step. It reads that
context through ``SessionView`` (the session's public, read-only attributes; the session
itself satisfies it) and changes the session only through ``Effects``, the few callables the
session hands over when it builds the part. A part never writes a session attribute (it may
count in ``stats`` and call the public methods of the other parts it reads, e.g.
``steps.hold``), and the session never touches a part's private attributes: each side's
state stays with its owner, as aioquic's streams and recovery report to the connection
instead of writing into it (tests/p2p/test_session_parts.py checks the parts' side).

This module imports nothing of the session, so the parts need not import ``lockstep``
(no import circle).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Protocol

from .wire import Envelope

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine

__all__ = ["COUNTERS", "Effects", "SessionView"]

#: The session's counters (``SessionView.stats``, all from 0): what the inbox and the parts
#: dropped, answered or did, for the node's status line and ``LockstepSession.dump``.
COUNTERS = ("received", "accepted", "duplicate", "malformed", "wrong_type", "wrong_game", "bad_seat",
            "bad_signature", "stale", "too_far", "answered", "resent", "escrow", "drop_votes", "catchup_requests",
            "catchup_served", "catchup_records", "hints", "forwarded", "forward_limited", "ignored", "alive",
            "alive_sent", "complaints", "abandons", "superseded", "skip_votes", "forced", "not_forced",
            "unproven", "refused_again", "after_end")


class SessionView(Protocol):
    """What the parts read of the session (``lockstep.LockstepSession``), read only."""

    n: int
    my_seat: int
    game_id: bytes
    phase: str
    step: int
    state_hash: bytes
    final_step: int | None
    spectator: bool
    stats: dict       # the session's counters: a part counts here what it drops or does
    log: Any
    own_log: Any      # gamelog.OwnLog | None (write-ahead log of our own messages)
    steps: Any        # step_collect.StepCollector
    seats: Any        # seat_loss.SeatLoss
    skips: Any        # turn_skip.TurnSkip
    sealed: Any       # sealed.SealedDecisions
    catchup: Any      # catchup.CatchUp
    live: Any         # liveness.Liveness
    hidden: Any       # hidden.HiddenLedger | None
    complaints: Any   # complaints.Complaints (the referee's)
    referee: Any      # referee.Referee (its public methods: overturn, check_prev, disputes)
    escrows: Any      # escrow_gate.EscrowGate (gate_open)
    reseat: Any       # reseat.Reseat
    reseating: Any    # reseat_session.SessionReseat (carried_drops)
    own: Any          # own_step.OwnStep (the current step's pending, inspection, escrow round)
    advance: Any      # step_advance.StepAdvance (resolve, record, attest, new_head)
    votes: Any        # session_votes.SessionVotes (drop_deadline, vote_choice, may_vote)
    view: Any         # private_view.PrivateView | None (our seat's hidden knowledge)
    engine: Engine    # the engine module, or a stand-in
    state: Any        # the engine state before the current step
    chance_count: int  # chance steps applied so far
    skipping: Any     # turn_skip.SessionSkips
    catching: Any     # catchup_session.SessionCatchUp (the inbox routes CATCHUP_* and HINT to it)
    timers: Any       # session_timers.SessionTimers (the inbox routes ALIVE to it)
    abandons: Any     # abandon.Abandons (the inbox routes ABANDON to it)
    inbox: Any        # session_inbox.SessionInbox (refuse_unforced, when a step begins)

    def waiting_for(self) -> tuple[int, ...]: ...
    def paused(self) -> tuple[int, ...]: ...
    @property
    def running(self) -> bool: ...
    @property
    def replaying(self) -> bool: ...
    @property
    def now(self) -> float: ...
    @property
    def pending(self) -> Any: ...
    @property
    def inspection(self) -> Any: ...
    @property
    def escrow_round(self) -> bool: ...
    @property
    def round_epoch(self) -> int: ...
    @property
    def reveal_waiting(self) -> bool: ...
    @property
    def last_reveals(self) -> list: ...
    @property
    def active(self) -> list: ...
    @property
    def dropped(self) -> dict: ...
    @property
    def epoch(self) -> int: ...


class Effects(NamedTuple):
    """What a part may do to the session: each a callable of the session."""

    #: Queue an envelope (bytes) for every other seat.
    send: Callable[[bytes], None]
    #: Report an event (``session_events``).
    emit: Callable[[Any], None]
    #: Stop the session with this event (phase halted).
    halt: Callable[[Any], None]
    #: Sign and send our DROP vote of the current step and epoch against a seat.
    vote: Callable[[int], None]
    #: Vote against the lowest proven cheater (or seat that left), if we have not voted.
    vote_cheaters: Callable[[], None]
    #: Apply the current step if it is complete.
    advance: Callable[[], None]
    #: Send a seat our records of the last step and this one, unasked (rate-limited).
    push_records: Callable[[int], None]
    #: Check a seat's signature on a non-STEP envelope (a bad one is counted and reported).
    verified: Callable[[Envelope, int, int], bool]
    #: End the game as abandoned by ``seat`` with its signed ABANDON (and our reason, or "").
    end_abandoned: Callable[..., None]
    #: A seat proven to cheat: (culprit, step, kind, reason, evidence, key, complaint, halt) as
    #: ``referee.Referee.prove``.
    prove: Callable[..., None]
    #: A seat proven to cheat by the applied STEPs: (step, seat, reason).
    history_proof: Callable[[int, int, str], None]
    #: Make our reveal of the current chance step (or escrow-round message) now.
    reveal: Callable[[], None]
    #: Tell a seat that is behind where we are (a HINT, rate-limited): (seat, now).
    hint: Callable[[int, float], None]
    #: Forward a signed message to every other seat for a voter that lacks it, within that
    #: voter's forwarding budget: (voter, raw, now).
    forward: Callable[[int, bytes, float], None]
    #: Ask the other seats for the records from our step on (CATCHUP_REQ).
    request_catchup: Callable[[], None]
    #: Apply a decided drop: (step, seat, votes, the dealer's escrow or None, its chain or None).
    apply_drop: Callable[..., None]
