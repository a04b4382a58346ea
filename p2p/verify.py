"""Offline verification of a game log (DESIGN.md §5; docs/protocol/core.md §6).

``verify_log(path)`` replays the game from the log with the engine and re-checks everything a
live peer checks: the setup signatures of every seat, every seed reveal against its commitment,
every STEP signature, game id, step number and seat, every ``prev_hash`` and ``prev_digest``,
every hash-chain reveal, and the engine's application of every step. It reports the first step
where anything fails.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from . import const as C
from .beacon import game_seed as compute_game_seed, seed_commitment
from .errors import WireError
from .gamelog import KIND_HEADER, KIND_STEP, LogReader
from .identity import fingerprint_of
from .lockstep import resolve_step, step_digest
from .wire import (MSG_SEED, MSG_SETUP_SIG, MSG_STEP, decode_seed, decode_setup, decode_setup_sig,
                   decode_step_body, open_envelope, setup_hash, unpack)


@dataclass
class Report:
    """Result of ``verify_log``.

    ``ok``: every check passed for every record present; ``complete``: the game reached a
    terminal state; ``first_bad_step``: step of the first failure (-1 = header), or None;
    ``error``: English reason or None; ``seats``: [(name, fingerprint)] in seat order;
    ``final_state_hash``: hex of the last verified state; ``events_by_type``: engine event
    class name -> count; ``messages``: STEP signatures verified; ``seconds``: wall time.
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


class _Bad(Exception):
    def __init__(self, step: int, why: str) -> None:
        super().__init__(why)
        self.step, self.why = step, why


def verify_log(path: str | os.PathLike[str], engine: Any = None) -> Report:
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
    except _Bad as b:
        rep.first_bad_step, rep.error = b.step, b.why
    rep.seconds = time.perf_counter() - t0
    return rep


def _header(payload: bytes) -> tuple:
    try:
        version, sb, sigs, seeds = unpack(payload)
        setup = decode_setup(sb)
    except (WireError, ValueError, TypeError) as e:
        raise _Bad(-1, f"malformed header: {e}") from None
    sh = setup_hash(sb)
    if len(sigs) != setup.seats or len(seeds) != setup.seats:
        raise _Bad(-1, "header must hold one setup signature and one seed reveal per seat")
    secrets = []
    for i, p in enumerate(setup.players):
        try:
            env = open_envelope(sigs[i])
            s = decode_setup_sig(env.body)
            env2 = open_envelope(seeds[i])
            r = decode_seed(env2.body)
        except (WireError, TypeError) as e:
            raise _Bad(-1, f"malformed setup signature or seed of seat {i}: {e}") from None
        if env.mtype != MSG_SETUP_SIG or s.seat != i or s.setup_hash != sh or s.game_id != setup.game_id \
                or not env.verify(p.public_key):
            raise _Bad(-1, f"bad setup signature of seat {i}")
        if env2.mtype != MSG_SEED or r.seat != i or r.setup_hash != sh or r.game_id != setup.game_id \
                or not env2.verify(p.public_key) or seed_commitment(r.secret) != p.seed_commit:
            raise _Bad(-1, f"bad seed reveal of seat {i}")
        secrets.append(r.secret)
    return setup, sb, sh, compute_game_seed(secrets)


def _replay(engine: Any, reader: LogReader, it: Any, rep: Report) -> None:
    first = next(it, None)
    if first is None or first.kind != KIND_HEADER:
        raise _Bad(-1, reader.error or "log does not start with a header record")
    setup, sb, sh, seed = _header(first.payload)
    rep.edition = setup.edition
    rep.seats = [(p.name, fingerprint_of(p.public_key)) for p in setup.players]
    pubkeys = [p.public_key for p in setup.players]
    last_reveals = [p.chain_head for p in setup.players]
    state = engine.new_game(setup.edition, setup.seats, setup.options_dict())
    h = engine.state_hash(state)
    digest = sh
    counts: Counter = Counter()
    k = 0
    gid, n = setup.game_id, setup.seats
    rep.final_state_hash = h.hex()
    for rec in it:
        if rec.kind != KIND_STEP:
            raise _Bad(k, f"unexpected record kind {rec.kind}")
        if engine.is_terminal(state):
            raise _Bad(k, "records after the end of the game")
        try:
            step, raws = unpack(rec.payload)
            if step != k or type(raws) is not list or len(raws) != n:
                raise _Bad(k, f"step record {step!r} out of order or without one message per seat")
            envs = [open_envelope(r, C.MAX_STEP_MSG) for r in raws]
            bodies = [decode_step_body(e.body) for e in envs]
        except (WireError, TypeError, ValueError) as e:
            raise _Bad(k, f"malformed step record: {e}") from None
        for i, (e, b) in enumerate(zip(envs, bodies)):
            if e.mtype != MSG_STEP or b.game_id != gid or b.step != k or b.seat != i:
                raise _Bad(k, f"seat {i}: message of another game, step or seat")
            if b.prev_hash != h:
                raise _Bad(k, f"seat {i}: prev state hash differs from the replayed state")
            if b.prev_digest != digest:
                raise _Bad(k, f"seat {i}: prev digest differs from the replayed step digest")
            if not e.verify(pubkeys[i]):
                raise _Bad(k, f"seat {i}: bad signature")
        rep.messages += n
        chance = engine.pending(state).chance
        res = resolve_step(engine, state, chance, seed, k, bodies, last_reveals)
        if res.fatal is not None:
            raise _Bad(k, f"seat {res.fatal[0]}: {res.fatal[1]}")
        for ev in res.events:
            counts[type(ev).__name__] += 1
        state = res.state
        h = engine.state_hash(state)
        digest = step_digest([e.body for e in envs])
        k += 1
        rep.steps = k
        rep.final_state_hash = h.hex()
    rep.events_by_type = dict(sorted(counts.items()))
    if reader.error is not None:
        raise _Bad(k, f"{reader.error} at byte {reader.error_offset}")
    rep.complete = engine.is_terminal(state)
    if rep.complete:
        rep.winner = engine.winner(state)
