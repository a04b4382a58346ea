"""Offline verification of a game log (DESIGN.md §5; protocol.md §C6).

``verify_log(path)`` replays the game from the log with the engine and re-checks everything a
live peer checks: the setup signatures of every seat, every seed reveal against its commitment,
every STEP signature (but a plain chance step's forced body, taken whatever its signature as a
live peer takes it, protocol.md §C3.8), game id, step number and seat, every ``prev_hash`` and
``prev_digest``, every hash-chain reveal, and the engine's application of every step. It reports the first step
where anything fails.

Here: the driver (``verify_log``, the replay of the records in log order with the state every
check needs: active and dropped seats, epochs, the hidden ledger, the escrow acknowledgements,
the sealed phases) and its ``Report``. The checks of one record each (header, a step's prev
hash and digest, ABANDON, COMPLAINT) are ``log_checks``; a step's resolution is
``step_resolve``, shared with the live session.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import const as C
from .bulk_verify import LogAhead
from .complaints import HiddenNow
from .drop_rules import RULE_BANKRUPT, RULE_BOT, default_bot, drop_rule, dropped_input
from .errors import WireError
from .escrow import check_drop_record, dropped_reveal, quorum
from .escrow_acks import AckLedger, escrow_round
from .gamelog import KIND_ABANDON, KIND_COMPLAINT, KIND_DROP, KIND_HEADER, KIND_STEP, STEP_RECORD, LogReader
from .hidden import HiddenLedger, hidden_secret, layout_of_state
from .identity import fingerprint_of
from .forced import plain_chance
from .log_checks import (BadLog, check_abandon, check_complaint, check_prev, hidden_commits_of_header, parse_header,
                         settle_complaints, step_message)
from .reseat import OffsetChain, counts_at, readmissions
from .sealed import COMMIT, SealedDecisions
from .step_collect import step_digest
from .step_resolve import hidden_bot, resolve_hidden, resolve_step
from .table_code import table_code
from .turn_skip import KIND_SKIP, SKIPPED_BODY, check_skip_payload, skip_input, skippable_step
from .wire import MSG_STEP, decode_step_body, engine_options, open_envelope

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine

__all__ = ["Report", "verify_log"]


@dataclass
class Report:
    """Result of ``verify_log``.

    ``ok``: every check passed for every record present; ``complete``: the game reached a
    terminal state and every active seat signed the final attestation (protocol.md §C3.5); ``first_bad_step``: step of the first failure (-1 = header), or None;
    ``error``: English reason or None; ``seats``: [(name, fingerprint)] in seat order;
    ``final_state_hash``: hex of the last verified state; ``events_by_type``: engine event
    class name -> count; ``messages``: STEP messages checked (signatures verified, forced bodies
    matched, §C3.8); ``seconds``: wall time.
    """

    ok: bool = False
    complete: bool = False
    edition: str = ""
    seats: list = field(default_factory=list)
    steps: int = 0
    winner: int | None = None
    final_state_hash: str = ""
    events_by_type: dict = field(default_factory=dict)
    first_bad_step: int | None = None
    error: str | None = None
    messages: int = 0
    seconds: float = 0.0
    hidden: dict | None = None
    """Games with hidden information (protocol.md §C12): ``inspections`` (bills and cards
    inspected), ``fakes_found`` (fake bills found), ``fake_cards_caught``, ``reveals`` (steps
    that opened shares, each opening checked against its commitment), ``deliveries`` and
    ``items_delivered`` (private deliveries, checked for receivers and counts); None otherwise."""
    abandoned: dict | None = None
    """The game ended as abandoned (protocol.md §C8.7): {"seat": who signed ABANDON, "step":
    where}; no winner. None otherwise."""
    table_code: str = ""
    """The game's table code (``p2p.table_code``, §C2.4) from the header's setup hash and seeds,
    "" when the header is bad: the code its players saw, to match a log to a table."""
    cheaters: list = field(default_factory=list)
    """Proven complaints in the log (protocol.md §C8.8), in log order: [{"seat": the cheater,
    "step", "reason", "complainer"}]; a DROP record whose shares prove the dropped seat's
    escrow bad (§C8.3) adds its seat with "complainer" null."""


def verify_log(path: str | os.PathLike[str], engine: Engine | None = None) -> Report:
    """Verify the log at ``path`` by replay with ``engine`` (default: the ``engine`` package).
    Never raises for a bad log: the report names the first bad step and why."""
    if engine is None:
        import engine as engine_mod

        engine = engine_mod
    rep = Report()
    t0 = time.perf_counter()
    reader = LogReader(path)
    it = iter(reader)
    try:
        _replay(engine, reader, it, rep)
        rep.ok = True
    except BadLog as b:
        rep.first_bad_step, rep.error = b.step, b.why
    rep.seconds = time.perf_counter() - t0
    return rep


def _replay(engine: Engine, reader: LogReader, it: Any, rep: Report) -> None:
    first = next(it, None)
    if first is None or first.kind != KIND_HEADER:
        raise BadLog(-1, reader.error or "log does not start with a header record")
    setup, sb, sh, seed = parse_header(first.payload)
    rep.table_code = table_code(sh, seed)
    rep.edition = setup.edition
    rep.seats = [(p.name, fingerprint_of(p.public_key)) for p in setup.players]
    pubkeys = [p.public_key for p in setup.players]
    last_reveals = [p.chain_head for p in setup.players]
    state = engine.new_game(setup.edition, setup.seats, engine_options(setup))
    on_drop, _ = drop_rule(setup.options_dict())
    bot = default_bot(engine)
    ledger = None
    layout = layout_of_state(state, engine)
    if layout is not None:
        commits = hidden_commits_of_header(first.payload)
        if commits is None or any(len(c) != 32 * layout.items for c in commits):
            raise BadLog(-1, "hidden-information commitments missing or of the wrong size")
        ledger = HiddenLedger(setup.game_id, setup.seats, layout, commits, state, engine)
        bot = hidden_bot(engine)
        rep.hidden = {"inspections": 0, "fakes_found": 0, "fake_cards_caught": 0, "reveals": 0,
                      "deliveries": 0, "items_delivered": 0}
    active = [True] * setup.seats
    dropped: dict = {}  # seat -> (rule, recombined chain or None)
    bad_escrow: set = set()  # seats whose drop record proved a bad escrow (§C8.3, §C8.9)
    bases: dict[int, int] = {}  # re-seated seat -> chance steps before its new chain (§C8.9)
    reseats: dict[int, int] = {}  # seat -> times re-seated so far: its budget (§C8.9 'Budget')
    epoch = 0
    chance_count = 0
    h = engine.state_hash(state)
    digest = sh
    counts: Counter = Counter()
    k = 0
    gid, n = setup.game_id, setup.seats
    rep.final_state_hash = h.hex()
    attested = False
    recent: dict[int, list] = {}  # the last steps' envelopes, for kind-2 complaints (§C8.8)
    pending_complaints: list = []  # kind-2 complaints about a step not read yet
    sealed = SealedDecisions(gid, -1)  # §C13: the phase of every step, the commitments
    skips: set[int] = set()  # seats whose turn at step k a quorum skipped (kind 6, §C8.10)
    acks = AckLedger(n)  # the escrow acknowledgements of the applied STEPs (§C8.2)
    acks.open_epoch(0, active)

    def next_round() -> tuple[bool, int]:
        """Is the next step an escrow round (§C8.2)? Decided after the previous step and its
        re-seats, before the next step's drops, as the session does; with its epoch."""
        pend = engine.pending(state)
        needed = on_drop is not None and sum(active) - 1 >= quorum(n)
        chance = pend.chance and not engine.is_terminal(state) and not (ledger is not None and pend.kind == "inspection")
        return escrow_round(acks, epoch, active, needed, chance), epoch

    er, round_epoch = next_round()
    ahead = LogAhead(reader.path, pubkeys, keep=True)  # STEP signatures in bulk, on every core (§C9.2)
    for rec in it:
        ahead.reach(rec.offset)
        if attested:
            raise BadLog(k, "records after the end of the game")
        if rec.kind == KIND_SKIP:
            pend = engine.pending(state)
            if not skippable_step(pend, final=engine.is_terminal(state), hidden=ledger is not None):
                raise BadLog(k, "skip record at a step that is not skippable")
            try:
                seat, _ = check_skip_payload(gid, pubkeys, active, epoch, k, rec.payload)
            except ValueError as e:
                raise BadLog(k, f"skip record: {e}") from None
            if seat in skips:
                raise BadLog(k, f"seat {seat}: two skip records for one step")
            skips.add(seat)
            continue
        if rec.kind == KIND_DROP:
            if skips:
                raise BadLog(k, "drop record after a skip record of the same step")  # drops come first
            if on_drop is None:
                raise BadLog(k, "seat dropped in a game without seat loss")
            try:
                seat, _, _, chain, cheat = check_drop_record(setup, active, epoch, k, rec.payload, acks)
            except ValueError as e:
                raise BadLog(k, f"drop record: {e}") from None
            if cheat is not None:  # the record's shares prove the dropped seat's escrow bad (§C8.3)
                rep.cheaters.append({"seat": seat, "step": k, "reason": cheat, "complainer": None})
                bad_escrow.add(seat)  # never re-seated (§C8.9)
            rule = on_drop
            if rule == RULE_BANKRUPT and getattr(engine, "retire_seat", None) is None:
                rule = RULE_BOT
            active[seat] = False
            if chain is not None and seat in bases:
                chain = OffsetChain(chain, bases[seat])  # its chain since its re-seat (§C8.9)
            dropped[seat] = (rule, chain, k)
            if ledger is not None:
                unmade = ledger.drop(seat, None if chain is None else hidden_secret(chain.value(0)))
                if unmade is not None:  # its leaves are not made from its recombined secret (§C12.6)
                    rep.cheaters.append({"seat": seat, "step": k, "reason": unmade, "complainer": None})
            epoch += 1
            acks.open_epoch(epoch, active)
            continue
        if rec.kind == KIND_ABANDON:
            rep.abandoned = check_abandon(setup, rec.payload, k, h, digest)
            attested = True  # nothing may follow
            continue
        if rec.kind == KIND_COMPLAINT:
            now = None
            if ledger is not None and not engine.is_terminal(state):
                insp = engine.hidden_items(state) if engine.pending(state).kind == "inspection" else None
                now = HiddenNow(k, h, digest, ledger, insp)
            check_complaint(setup, rec.payload, k, active, recent, last_reveals, pending_complaints, rep.cheaters,
                            now, acks.confirmed)
            continue
        if rec.kind != KIND_STEP:
            raise BadLog(k, f"unexpected record kind {rec.kind}")
        try:
            step, raws = STEP_RECORD.decode(rec.payload)
            if step != k or len(raws) != n:
                raise BadLog(k, f"step record {step!r} out of order or without one message per seat")
            envs = [None if r is None else open_envelope(r, C.MAX_STEP_MSG) for r in raws]
            bodies = [None if e is None else decode_step_body(e.body) for e in envs]
        except (WireError, TypeError, ValueError) as e:
            raise BadLog(k, f"malformed step record: {e}") from None
        pend = engine.pending(state)
        # A plain chance step (§C3.8): a seat's forced body is taken whatever its signature.
        plain = plain_chance(pend.chance, er, ledger is not None, engine.is_terminal(state))
        for i, (e, b) in enumerate(zip(envs, bodies)):
            if e is None:
                if active[i] and i not in skips:
                    raise BadLog(k, f"seat {i}: no message from an active seat")
                continue
            if i in skips:
                raise BadLog(k, f"seat {i}: message of a seat whose turn was skipped")
            if not active[i]:
                raise BadLog(k, f"seat {i}: message from a dropped seat")
            if e.mtype != MSG_STEP or b.game_id != gid or b.step != k or b.seat != i:
                raise BadLog(k, f"seat {i}: message of another game, step or seat")
            why = step_message(e, b, pubkeys[i], plain, h, digest, last_reveals[i])
            if why is not None:
                raise BadLog(k, f"seat {i}: {why}")
        check_prev(k, bodies, h, digest)
        sealed.begin(k, engine, state)
        rep.messages += sum(e is not None for e in envs)
        recent[k] = [None if e is None else e.raw for e in envs]
        recent.pop(k - C.KEEP_STEPS, None)
        settle_complaints(setup, k, bodies, recent, last_reveals, pending_complaints, rep.cheaters, sealed)
        if engine.is_terminal(state):
            # The attestation round (§C3.5): checked above against the final state hash and
            # the last step's digest; no input, nothing applied.
            for i, b in enumerate(bodies):
                if b is not None and b.acks:  # named, vetoes nothing (§C3.5, §C8.2)
                    rep.cheaters.append({"seat": i, "step": k, "complainer": None,
                                         "reason": "acknowledged escrows in its final attestation"})
                if b is not None and (b.input is not None or b.hidden is not None or b.reseat):
                    rep.cheaters.append({"seat": i, "step": k, "complainer": None,  # as step_gate.StepGate.finish
                                         "reason": "final attestation carries an input"})
            attested = True
            continue
        chance = pend.chance
        inspection = None
        if ledger is not None and pend.kind == "inspection":
            inspection = engine.hidden_items(state)  # engine.api.HiddenInformation
        fill = {}
        for seat, (rule, chain, _) in dropped.items():
            if inspection is not None:
                fill[seat] = None
            elif chance:
                j = chance_count + 1
                fill[seat] = chain.reveal_at(j) if chain is not None else dropped_reveal(gid, seat, j)
            else:
                fill[seat] = dropped_input(bot, state, seat, dropped) if rule == RULE_BOT else None
        if dropped:
            sealed.withdraw_drops(k, fill, {d: at for d, (_, _, at) in dropped.items()})  # §C13.4, version 6
        for seat in skips:  # nil, or its public default at a decision of its own (§C8.10)
            fill[seat] = skip_input(engine, bot, state, seat)
        carried = [None if b is None else b.reseat for b in bodies]  # as signed (§C8.9)
        signed = list(bodies)  # the acknowledgements as signed (§C8.2)
        opened = sealed.resolve(engine, k, bodies, [None if e is None else e.raw for e in envs])
        if opened.fault is not None:
            raise BadLog(k, f"seat {opened.fault[0]}: {opened.fault[1]}")
        eng, bodies = opened.engine, opened.bodies
        if ledger is not None:
            bad, res = resolve_hidden(eng, ledger, state, chance, inspection, seed, k, bodies, last_reveals, fill, er)
            if bad is not None:
                raise BadLog(k, f"seat {bad[0]}: {bad[1]}")
            ledger.after_step(k, [None if b is None else b.hidden for b in bodies], res.state)
        else:
            res = resolve_step(eng, state, chance, seed, k, bodies, last_reveals, fill, er)
        if res.fatal is not None:
            raise BadLog(k, f"seat {res.fatal[0]}: {res.fatal[1]}")
        events = res.events
        state = res.state
        for seat, (rule, _, at) in sorted(dropped.items()):
            if at == k and rule == RULE_BANKRUPT:
                state, more = engine.retire_seat(state, seat)
                events = events + tuple(more)
        for ev in events:
            counts[type(ev).__name__] += 1
        if rep.hidden is not None:
            _count_hidden(rep.hidden, events, inspection is not None)
        chance_count += chance and inspection is None and not er
        _apply_acks(acks, k, signed, active, epoch, er and epoch == round_epoch, rep)
        if counts_at(sealed.phase == COMMIT, engine.is_terminal(state), ledger is not None):
            # Returning players re-seated from step k+1 by the requests these bodies carry (§C8.9).
            back = readmissions(setup, active, {i: at for i, (rule, _, at) in dropped.items()
                                                if rule == RULE_BOT and i not in bad_escrow}, carried, epoch,
                                 reseats)
            for seat in sorted(back):
                del dropped[seat]
                active[seat] = True
                epoch += 1
                acks.open_epoch(epoch, active)
                last_reveals[seat] = back[seat].chain_head
                bases[seat] = chance_count
                reseats[seat] = reseats.get(seat, 0) + 1
                players = list(setup.players)
                players[seat] = players[seat]._replace(chain_head=back[seat].chain_head)
                setup = setup._replace(players=tuple(players))
        h = engine.state_hash(state)
        digest = step_digest([SKIPPED_BODY if i in skips else b"" if e is None else e.body
                              for i, e in enumerate(envs)])
        skips = set()
        k += 1
        rep.steps = k
        er, round_epoch = next_round()
        rep.final_state_hash = h.hex()
    rep.events_by_type = dict(sorted(counts.items()))
    if ledger is not None:
        rep.hidden["deliveries"] = ledger.stats["deliveries"]
        rep.hidden["items_delivered"] = ledger.stats["items_delivered"]
    if reader.error is not None:
        raise BadLog(k, f"{reader.error} at byte {reader.error_offset}")
    if pending_complaints and not attested and ledger is None and not er and engine.pending(state).chance \
            and all(b.step == k and b.prev_hash == h and b.prev_digest == digest for _, b in pending_complaints):
        # The log ends before step k, the chance step its last complaints are about: a peer
        # that proved a signed bad reveal and halted (no drop possible) logged the complaint but
        # not the step. Judged at that step, as a live peer at it judges (§C8.8 kind 2): the
        # reveal against the seat's previous one (a valid one: the complaint is bad, BadLog).
        recent[k] = [None] * n
        settle_complaints(setup, k, [None] * n, recent, last_reveals, pending_complaints, rep.cheaters)
    if pending_complaints:
        c = pending_complaints[0][0]
        raise BadLog(c.step, f"complaint of seat {c.seat} about a step the log does not reach")
    if rep.abandoned is not None:
        return  # no winner, not complete
    rep.complete = engine.is_terminal(state) and attested
    if engine.is_terminal(state):
        rep.winner = engine.winner(state)


def _apply_acks(acks: AckLedger, k: int, bodies: list, active: list, epoch: int, round_counts: bool,
                rep: Report) -> None:
    """Step ``k``'s escrow acknowledgements, in seat order (§C8.2), as ``escrow_gate.EscrowGate.apply_acks``:
    (``round_counts``: an escrow round of the epoch it began in) at a repeated round a seat
    acknowledging none it still owes is named a cheater."""
    owed = [len(acks.unacked(seat, epoch, active)) for seat in range(len(bodies))]
    for seat, b in enumerate(bodies):
        if b is not None and b.acks:
            acks.add(seat, b.acks)  # two hashes prove nothing against the dealer (§C8.2)
    if not round_counts:
        return
    if acks.rounds(epoch) > 0:
        for seat, b in enumerate(bodies):
            left = len(acks.unacked(seat, epoch, active))
            if b is not None and active[seat] and left and left == owed[seat]:
                rep.cheaters.append({"seat": seat, "step": k, "complainer": None,
                                     "reason": "acknowledged no escrow it owed at a repeated escrow round"})
    acks.end_round(epoch)


def _count_hidden(h: dict, events: Any, reveal: bool) -> None:
    """Add one step's inspections to ``Report.hidden``."""
    h["reveals"] += reveal
    for ev in events:
        name = type(ev).__name__
        if name == "BillInspected":
            h["inspections"] += 1
            h["fakes_found"] += bool(ev.fake)
        elif name == "CardInspected":
            h["inspections"] += 1
            h["fake_cards_caught"] += bool(ev.fake)
