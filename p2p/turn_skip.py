"""Turn skip: a strict majority lets an idle seat's turn pass without dropping it
(issue 10 "no stalling"; protocol.md §C8.10).

Why
---
A seat whose peer keeps sending ALIVE (§C8.3) but never sends its step message holds every
step until the turn time (300 s by default); the only remedy used to be dropping it. A milder
one: the players of a strict majority of the seats vote (signed SKIP, type 26) that the seat's
input at this one step counts as nil (silence) — or, at a decision of its own where silence
would leave the engine waiting on it again (its roll, ...), as the public default of
``OWN_DEFAULTS`` (``skip_input``), so its turn moves on. The seat keeps its seat and plays at
the next step.

Agreement (mirrors the drop rule of §C8.3, whose proofs carry over)
------------------------------------------------------------------
* **Certificate**: valid SKIP(k, d, epoch) votes of Q = floor(N/2) + 1 (N = the setup's seats,
  ``seat_loss.quorum``) distinct active seats other than d, of the current epoch. With it, d's
  slot at step k is *skipped*: input nil (or ``skip_input``), its STEP message (if held) not applied, and its body
  in the step digest is ``SKIPPED_BODY`` (one byte 0xC1, which no STEP body can be: msgpack
  never uses 0xC1), so a peer that applied another outcome sees another digest at step k+1
  (a dispute and a roll back, never a silent fork or a Desync on the state).
* **A voter's promise**: having voted SKIP(k, d), a peer applies step k with d's message only
  with a certificate that no quorum of SKIP(k, d) can exist: at least (active - Q) active
  seats other than itself and d signed a step-(k+1) message whose prev digest covers exactly
  the step-k messages it holds, d's included (``message_certified``). An honest seat that
  applied step k never votes at k (votes are for one's current step), so the first such
  certificate leaves at most Q - 1 possible voters.
* **Precedence**: drop (kind 2) > skip (kind 6) > d's message. A peer that applied a weaker
  outcome and sees the record of a stronger one with a quorum of valid votes rolls back
  (``StepOverturned``, as in §C8.3's asymmetric race).
* Only decision steps are skippable (``skippable_step``): a chance step needs every seat's
  hash-chain reveal (the remedy there stays the drop, whose escrow rebuilds the real reveal),
  the final attestation is no decision, and in a game with hidden information a seat's STEP
  carries deliveries and openings that a nil cannot replace (§C12.4), so no skips there.

This module owns the votes held and cast and the certificates applied; it never applies a
step. The session asks it, routes SKIP envelopes to ``TurnSkip.receive`` and logs
``skip_record`` payloads (log kind ``KIND_SKIP`` = 6); ``verify`` uses ``check_skip_payload``.
``SessionSkips`` is the session's side of it (skippable step, certified seats, our votes
written ahead and sent, votes received and forwarded, the voter's promise): it reads the
session through ``session_port.SessionView`` and acts through ``session_port.Effects``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, Sequence

from . import const as C
from .errors import WireError
from .gamelog import KIND_SKIP  # noqa: F401  (log kind 6, re-exported)
from .gamelog import SKIP_RECORD, SkipRecord
from .identity import Identity
from .seat_loss import quorum
from .session_events import PeerMisbehaved
from .wire import MSG_SKIP, SkipVote, decode_skip, open_envelope, seal_message

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine

#: What a skipped seat's slot contributes to the step digest (protocol.md §C3.2): the single
#: byte 0xC1, never the first byte of msgpack, so never a STEP body (a dropped seat's is b"").
SKIPPED_BODY = C.SKIPPED_BODY


def skip_possible(seats: int, active_count: int) -> bool:
    """True if Q = ``quorum(seats)`` active seats other than one can vote: ``active_count`` - 1
    >= Q (never with two seats, nor in a 3-seat game that lost a seat). §C8.10."""
    return active_count - 1 >= quorum(seats)


def skippable_step(pending: Any, *, final: bool, hidden: bool) -> bool:
    """True if a step may have a seat's turn skipped (§C8.10): a decision step of the engine
    (``pending`` not chance, not terminal, not a niente inspection step), not the final
    attestation (``final``), in a game without hidden information (``hidden`` False)."""
    return not final and not hidden and not pending.chance and not pending.terminal \
        and pending.kind != "inspection"


#: Decisions of the seat that the engine waits for again after its silence (engine.game:
#: nil changes nothing there), and what a skipped seat plays instead (§C8.10 "Own decisions"):
#: (the name of an ``engine.actions`` class, its arguments), or "bot" (the drop rule's default
#: bot, ``drop_rules.default_bot``). At every other decision nil stays nil.
OWN_DEFAULTS: dict[str, Any] = {
    "roll": ("RollDice", ()),  # the roll itself: there is no choice in it
    "jail": ("RollDice", ()),  # try for doubles: spends nothing; the third miss pays the fine by rule
    "buy_or_auction": ("DeclineProperty", ()),  # does not buy: the bank auctions it, where silence passes
    "mortgage_choice": ("SettleMortgages", ((),)),  # lifts nothing, pays only the compulsory 10 %
    "raise_money": "bot",  # a debt must be paid and no option spends nothing: the bot chooses
}


def skip_input(engine: Engine, bot: Any, state: Any, seat: int) -> Any:
    """The input of ``seat`` at a step where a quorum skipped its turn (§C8.10): None (silence),
    except at a decision of its own that silence would leave waiting on it (the kinds of
    ``OWN_DEFAULTS``, ``seat`` among ``engine.pending(state).actors``): there the public default
    of that table, which every peer and ``verify`` compute from the state alone, so the game
    moves past the idle seat's turn and the seat plays again afterwards.

    ``engine``: the rules engine (an engine without an ``actions`` module, e.g. a test
    stand-in, gets None); ``bot``: ``(state, seat) -> action | None``, the session's drop-rule
    bot; ``state``: the state the step applies to. Returns an action object or None."""
    pend = engine.pending(state)
    rule = OWN_DEFAULTS.get(pend.kind) if seat in pend.actors else None
    if rule is None:
        return None
    if rule == "bot":
        return bot(state, seat)
    name, args = rule
    cls = getattr(getattr(engine, "actions", None), name, None)
    return None if cls is None else cls(*args)


def skip_record(step: int, seat: int, votes: Sequence[bytes]) -> bytes:
    """Payload of a kind-6 log record (§C6): msgpack [step, seat, [SKIP envelopes]] with the
    votes in ascending voter order (the caller passes ``TurnSkip.certificate``); the table
    ``gamelog.SKIP_RECORD``."""
    return SKIP_RECORD.encode(SkipRecord(step, seat, list(votes)))


def _decode(raw: Any) -> tuple[Any, SkipVote]:
    if type(raw) is not bytes:
        raise WireError("vote must be bin")
    env = open_envelope(raw, C.MAX_STEP_MSG)
    if env.mtype != MSG_SKIP:
        raise WireError("not a SKIP envelope")
    return env, decode_skip(env.body)


def check_skip_payload(gid: bytes, keys: Sequence[bytes], active: Sequence[bool], epoch: int, step: int,
                       payload: bytes) -> tuple[int, list[bytes]]:
    """Verify a kind-6 record for ``step`` (§C6, §C8.10): votes SKIP(step, seat, ``epoch``) of
    at least Q = ``quorum(len(keys))`` distinct active seats other than ``seat``, strictly
    ascending voters, every signature valid (``keys``: the setup's Ed25519 public keys).
    Returns (seat, vote envelopes); raises ``ValueError`` with the reason. Whether the step is
    skippable is the caller's check (it knows the state)."""
    try:
        rstep, seat, votes = SKIP_RECORD.decode(payload)  # types and shape (WireError)
        votes = list(votes)
        if rstep != step or not 0 <= seat < len(keys) or not active[seat]:
            raise ValueError("skip record not for this step or an active seat")
        if len(votes) < quorum(len(keys)):
            raise ValueError("skip record without a quorum of votes")
        last = -1
        for raw in votes:
            env, v = _decode(raw)
            if v.game_id != gid or v.voter <= last or v.voter >= len(keys) or v.voter == seat \
                    or not active[v.voter] or v.step != step or v.seat != seat or v.epoch != epoch \
                    or not env.verify(keys[v.voter]):
                raise ValueError(f"bad skip vote of seat {v.voter}")
            last = v.voter
    except (WireError, TypeError) as e:
        raise ValueError(f"malformed skip record: {e}") from None
    return seat, votes


def past_skip(gid: bytes, keys: Sequence[bytes], payload: bytes, applied: int) -> tuple[int, int] | None:
    """If ``payload`` (a kind-6 record from a catch-up) skips a seat at a step before
    ``applied`` (our current step) with valid signed votes of Q distinct other seats of one
    epoch:
    (step, seat); else None. The caller knows whether it applied that step with that seat's
    message (then ``StepOverturned``, §C8.10)."""
    try:
        step, seat, votes = SKIP_RECORD.decode(payload)  # types and shape (WireError)
        if not 0 <= seat < len(keys) or not 0 <= step < applied:
            return None
        voters: dict[int, set[int]] = {}  # epoch -> voters: a certificate is of one epoch
        for raw in votes:
            env, v = _decode(raw)
            if v.game_id == gid and v.step == step and v.seat == seat and v.voter < len(keys) \
                    and env.verify(keys[v.voter]):
                voters.setdefault(v.epoch, set()).add(v.voter)
    except (WireError, TypeError, ValueError):
        return None
    # Votes of different epochs never make a quorum (check_skip_payload wants one epoch): mixed,
    # they made a record no peer could apply halt a peer again and again (test_redteam_skip.py).
    q = quorum(len(keys))
    return (step, seat) if any(len(v) >= q for v in voters.values()) else None


def message_certified(me: int, seat: int, active: Sequence[bool], seats: int, signers: Sequence[int]) -> bool:
    """The voter's promise (§C8.10): after we (``me``) voted SKIP(k, ``seat``), we may apply step
    k with ``seat``'s message only if at least (active - Q) active seats other than us and
    ``seat`` are in ``signers`` (they signed a step-(k+1) message whose prev digest covers
    exactly the step-k messages we hold, ``seat``'s included): then no quorum of SKIP(k, seat)
    can exist."""
    need = sum(active) - quorum(seats)
    never = sum(1 for i in set(signers) if i not in (me, seat) and 0 <= i < len(active) and active[i])
    return never >= need


class Tally(NamedTuple):
    """Votes held to skip ``seat``'s turn at ``step`` (current epoch, active voters) out of
    the ``quorum`` needed; ``ours``: we voted. For the UI: "2/3 per saltare il turno di ..."."""

    step: int
    seat: int
    votes: int
    quorum: int
    ours: bool


class TurnSkip:
    """The turn-skip part of one session (§C8.10; state machine in §C8.10's table): the SKIP
    votes held per (step, seat) and voter, the votes we cast, and the seats skipped at each
    step still kept.

    ``gid``: the game id; ``keys``: the setup's Ed25519 public keys (seat order); ``my_seat``;
    ``identity``: ours (signs our votes). Every public method takes the session's current
    ``active`` seats and ``epoch`` (owned by ``seat_loss.SeatLoss``) where it matters."""

    def __init__(self, gid: bytes, keys: Sequence[bytes], my_seat: int, identity: Identity) -> None:
        self.gid = gid
        self.keys = list(keys)
        self.n = len(self.keys)
        self.my_seat = my_seat
        self.quorum = quorum(self.n)
        self._identity = identity
        #: (step, seat) -> voter -> (vote, envelope); one vote per voter, the latest epoch.
        self._votes: dict[tuple[int, int], dict[int, tuple[SkipVote, bytes]]] = {}
        #: step -> seat -> the certificate (vote envelopes) it was skipped with.
        self._skipped: dict[int, dict[int, list[bytes]]] = {}

    # -- our votes --

    def has_voted(self, step: int, seat: int, epoch: int) -> bool:
        """True if we signed SKIP(step, seat) in ``epoch``."""
        held = self._votes.get((step, seat), {}).get(self.my_seat)
        return held is not None and held[0].epoch == epoch

    def voted_against(self, step: int, epoch: int) -> list[int]:
        """Seats we voted to skip at ``step`` in ``epoch`` (ascending): the voter's promise
        holds for each (``message_certified``)."""
        if not self._votes:
            return []
        return sorted(t for (s, t), held in self._votes.items()
                      if s == step and self.my_seat in held and held[self.my_seat][0].epoch == epoch)

    def vote(self, step: int, seat: int, epoch: int) -> bytes:
        """Sign our SKIP(step, seat, epoch), keep it and return the envelope. The caller checks
        that it may (``TurnSkip.may_vote``) and writes it to its own-message log before sending.
        Raises ``ValueError`` for our own seat."""
        if seat == self.my_seat or not 0 <= seat < self.n:
            raise ValueError("cannot vote to skip our own seat or a seat out of range")
        v = SkipVote(self.gid, self.my_seat, step, seat, epoch)
        raw = seal_message(self._identity, MSG_SKIP, v)
        self._votes.setdefault((step, seat), {})[self.my_seat] = (v, raw)
        return raw

    def may_vote(self, step: int, seat: int, active: Sequence[bool], epoch: int, awaited: Sequence[int]) -> bool:
        """True if our player may vote to skip ``seat`` now (§C8.10): a skip is possible, the
        seat is active, not ours, its step-``step`` message not held (it is in ``awaited``), and
        we did not vote on it in this epoch. Whether the step is skippable is the caller's."""
        return skip_possible(self.n, sum(active)) and 0 <= seat < self.n and seat != self.my_seat \
            and active[seat] and seat in awaited and not self.has_voted(step, seat, epoch)

    def adopt_vote(self, raw: bytes, step: int, epoch: int) -> bool:
        """Take back our own vote ``raw`` from the own-message log after a restart (same step and
        epoch, valid signature): it counts as cast, and is re-sent by the caller. False if not."""
        try:
            env, v = _decode(raw)
        except WireError:
            return False
        if v.game_id != self.gid or v.voter != self.my_seat or v.step != step or v.epoch != epoch \
                or not env.verify(self.keys[self.my_seat]):
            return False
        self._votes.setdefault((step, v.seat), {})[self.my_seat] = (v, raw)
        return True

    def own_votes(self, step: int, epoch: int) -> list[bytes]:
        """Our SKIP envelopes of ``step`` in ``epoch`` (to re-send with the step re-sends)."""
        return [held[self.my_seat][1] for (s, t), held in sorted(self._votes.items())
                if s == step and self.my_seat in held and held[self.my_seat][0].epoch == epoch]

    # -- votes of others --

    def receive(self, raw: bytes, step: int, active: Sequence[bool], epoch: int) -> tuple[str, SkipVote | None]:
        """Handle a SKIP envelope while we collect ``step``. Returns (outcome, vote): "held"
        (kept), or the ``stats`` counter it is dropped under — "malformed", "wrong_game",
        "bad_seat" (voter or seat out of range, or our own seat voting), "stale" (an earlier
        step: the caller hints the voter), "too_far", "ignored" (an inactive voter or seat,
        an older epoch, a repeat), "bad_signature" (checked last, §C3.4's order)."""
        try:
            env, v = _decode(raw)
        except WireError:
            return "malformed", None
        if v.game_id != self.gid:
            return "wrong_game", v
        if v.voter >= self.n or v.seat >= self.n or v.voter == self.my_seat:
            return "bad_seat", v
        if v.step < step:
            return "stale", v
        if v.step >= step + C.STEP_WINDOW:
            return "too_far", v
        old = self._votes.get((v.step, v.seat), {}).get(v.voter)
        if not active[v.voter] or not active[v.seat] or v.epoch < epoch or (old is not None and old[0].epoch >= v.epoch):
            return "ignored", v  # one vote per (step, seat, epoch): its bytes are fixed by those
        if not env.verify(self.keys[v.voter]):
            return "bad_signature", v
        self._votes.setdefault((v.step, v.seat), {})[v.voter] = (v, raw)
        return "held", v

    def tally(self, step: int, seat: int, active: Sequence[bool], epoch: int) -> Tally:
        """Votes held to skip ``seat`` at ``step`` (current ``epoch``, active voters other than
        the seat) against the quorum."""
        held = self._votes.get((step, seat), {})
        n = sum(1 for i, (v, _) in held.items() if v.epoch == epoch and active[i] and i != seat)
        return Tally(step, seat, n, self.quorum, self.has_voted(step, seat, epoch))

    def tallies(self, step: int, active: Sequence[bool], epoch: int) -> list[Tally]:
        """Every seat with at least one vote to skip it at ``step`` (ascending seats)."""
        seats = sorted({t for (s, t) in self._votes if s == step})
        return [t for t in (self.tally(step, s, active, epoch) for s in seats) if t.votes and active[t.seat]]

    def certificate(self, step: int, seat: int, active: Sequence[bool], epoch: int) -> list[bytes] | None:
        """The vote envelopes of the Q lowest active voters other than ``seat`` of ``epoch`` if we
        hold a quorum of SKIP(step, seat) (the kind-6 record's votes), else None."""
        held = self._votes.get((step, seat), {})
        voters = sorted(i for i, (v, _) in held.items() if v.epoch == epoch and active[i] and i != seat)
        if not active[seat] or len(voters) < self.quorum:
            return None
        return [held[i][1] for i in voters[:self.quorum]]

    def certified_seats(self, step: int, active: Sequence[bool], epoch: int) -> list[int]:
        """Seats whose turn at ``step`` we hold a certificate to skip (ascending). Asked several
        times per step by the session: with no vote held (the usual case) it costs one test."""
        if not self._votes:
            return []
        return sorted(t for (s, t) in self._votes if s == step and self.certificate(step, t, active, epoch))

    def ingest_record(self, step: int, payload: bytes, active: Sequence[bool], epoch: int) -> int:
        """Take a kind-6 record of ``step`` (from our log on resume, or a catch-up): every vote
        checked (``check_skip_payload``) and held. Returns the skipped seat; raises
        ``ValueError`` with the reason."""
        seat, votes = check_skip_payload(self.gid, self.keys, active, epoch, step, payload)
        for raw in votes:
            env, v = _decode(raw)
            self._votes.setdefault((step, seat), {})[v.voter] = (v, raw)
        return seat

    # -- applied skips --

    def mark_skipped(self, step: int, seat: int, votes: list[bytes]) -> bytes:
        """Record that ``seat``'s turn at ``step`` was skipped with ``votes``; returns the kind-6
        payload to log before the step's record."""
        self._skipped.setdefault(step, {})[seat] = list(votes)
        return skip_record(step, seat, votes)

    def skipped(self, step: int) -> dict[int, list[bytes]]:
        """Seats skipped at ``step`` (an applied step still kept) -> their certificates."""
        return dict(self._skipped.get(step, {}))

    def forget(self, upto: int) -> None:
        """Forget votes of steps <= ``upto`` (applied) and skips older than ``KEEP_STEPS``."""
        if not self._votes and not self._skipped:
            return
        for key in [key for key in self._votes if key[0] <= upto]:
            del self._votes[key]
        for s in [s for s in self._skipped if s <= upto - C.KEEP_STEPS]:
            del self._skipped[s]


class SessionSkips:
    """The session's side of turn skips (§C8.10): whether the current step is skippable, the
    seats a certificate skips, our SKIP votes (signed by ``TurnSkip``, written ahead to our
    own-message log, sent), SKIP envelopes received (held, forwarded, counted) and the voter's
    promise. The votes themselves stay in the session's ``TurnSkip`` (``session.skips``).

    ``session``: the session, read only (``session_port.SessionView``); ``effects``: what we do
    to it (``session_port.Effects``: send, emit, advance, hint, forward)."""

    def __init__(self, session: Any, effects: Any) -> None:
        self._s = session
        self._fx = effects

    def skippable(self) -> bool:
        """True if a seat's turn at the current step may be skipped by a quorum: a decision
        step (not chance, not an inspection, not the final attestation) of a game without
        hidden information, while Q other active seats exist."""
        s = self._s
        return s.running and skip_possible(s.n, s.seats.active_count()) \
            and skippable_step(s.pending, final=s.final_step == s.step, hidden=s.hidden is not None)

    def skipped_seats(self, k: int) -> list[int]:
        """Seats whose turn at step ``k`` (our current step) we hold a certificate to skip."""
        s = self._s
        if k != s.step:
            return []
        # Certificates first: almost always none (a cheap look), and then ``skippable`` (the
        # costlier test, ~12 calls per step) is not needed (issue 14 profile).
        seats = s.skips.certified_seats(k, s.seats.active, s.epoch)
        return seats if seats and self.skippable() else []

    def tallies(self) -> list[Tally]:
        """The votes held to skip a seat's turn at the current step: one ``Tally`` per seat
        with at least one vote, for the status line; [] unless running."""
        s = self._s
        if not s.running:
            return []
        return s.skips.tallies(s.step, s.seats.active, s.epoch)

    def may_skip(self, seat: int, awaited: Sequence[int]) -> bool:
        """True if we may vote now to skip ``seat``'s turn (``LockstepSession.skip_turn``):
        seated, not replaying, the step skippable, ``seat`` another active seat among
        ``awaited`` that we have not voted on in this epoch, and no message of ours of a later
        step, signed before a restart, promises we never vote here (``OwnStep.promised``, §C10)."""
        s = self._s
        return not s.spectator and not s.replaying and self.skippable() and not s.own.promised() \
            and s.skips.may_vote(s.step, seat, s.seats.active, s.epoch, awaited)

    def vote(self, seat: int) -> None:
        """Sign SKIP(step, ``seat``, epoch), write it ahead to our own-message log (the voter's
        promise survives a restart), send it, and try to apply the step. Nothing while a message
        of ours of a later step, signed before a restart, promises we never vote here (``may_skip``)."""
        s = self._s
        if s.own.promised():
            return
        k = s.step
        raw = s.skips.vote(k, seat, s.epoch)
        if s.own_log is not None and not s.replaying:
            s.own_log.append_own(k, raw)  # write-ahead: the voter's promise survives a restart
        self._fx.send(raw)
        self._fx.advance()

    def receive(self, env: Any, v: SkipVote, now: float) -> None:
        """A SKIP vote: held, or dropped and counted; a vote of a step we passed hints the
        voter; if we hold the seat's message and did not vote, we forward it (the voter may
        still get its certificate)."""
        s, fx = self._s, self._fx
        st = s.stats
        st["skip_votes"] += 1
        outcome, _ = s.skips.receive(env.raw, s.step, s.seats.active, s.epoch)
        if outcome != "held":
            st[outcome] += 1
            if outcome == "stale":
                fx.hint(v.voter, now)
            elif outcome == "bad_signature":
                fx.emit(PeerMisbehaved(v.voter, v.step, "bad signature", env.raw))
            return
        if v.step == s.step and s.running:
            s.live.heard_behind(v.voter, now)  # a signed vote of this step: the voter is there
            held = s.steps.held(v.step, v.seat)
            if held is not None and not s.skips.has_voted(v.step, v.seat, s.epoch):
                fx.forward(v.voter, held.env.raw, now)
            fx.advance()

    def promise_kept(self, k: int, skipped: Sequence[int]) -> bool:
        """The voter's promise: for every seat d we voted to skip at ``k`` and whose turn is
        not skipped, apply k with d's message only if ``message_certified`` (False: a
        certificate decides, the step waits)."""
        s = self._s
        active = s.active
        mine = [d for d in s.skips.voted_against(k, s.epoch) if d not in skipped and active[d]]
        if not mine:
            return True
        signers = s.steps.signers(k, skipped)
        return all(message_certified(s.my_seat, d, active, s.n, signers) for d in mine)
