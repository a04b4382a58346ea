"""Step resolution: the deterministic rule that turns one step's signed inputs into the next
state, shared by every live peer (``lockstep.LockstepSession``) and the offline verifier
(``verify.py``) so that both apply exactly the same checks (protocol.md §C3.3, §C8.4, §C12).

Pure functions of their arguments (the engine object, the state, the step's bodies, the
previous reveals); no session state, no I/O.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, NamedTuple, Sequence

from .beacon import beacon as make_beacon
from .hidden import HiddenLedger
from .drop_rules import default_bot
from .wire import StepBody

if TYPE_CHECKING:  # annotations only: importing the engine here would load its bots (test_verify_dropped_seat)
    from engine.api import Engine

__all__ = ["StepResult", "hidden_bot", "resolve_hidden", "resolve_step"]

_sha256 = hashlib.sha256


class StepResult(NamedTuple):
    """Outcome of ``resolve_step``: the new state and engine events, the non-fatal problems
    ``[(seat, reason)]``, and ``fatal`` = (seat, reason) or None."""

    state: Any
    events: tuple
    problems: list
    fatal: tuple | None


def resolve_step(engine: Engine, state: Any, chance: bool, seed: bytes, step: int,
                 bodies: Sequence[StepBody | None], last_reveals: list[bytes],
                 fill: dict[int, Any] | None = None, escrow_round: bool = False) -> StepResult:
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

    ``escrow_round``: the step is an escrow round (protocol.md §C8.2, ``escrow_acks.escrow_round``):
    no engine transition, the state comes back unchanged; an input other than nil is a problem
    and ignored (its acknowledgements are the step's content, applied by the caller).
    """
    fill = fill or {}
    if escrow_round:
        problems = [(seat, "input at an escrow round") for seat, b in enumerate(bodies)
                    if b is not None and seat not in fill and b.input is not None]
        return StepResult(state, (), problems, None)
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


def resolve_hidden(engine: Engine, ledger: HiddenLedger, state: Any, chance: bool, inspection: list | None,
                   seed: bytes, step: int, bodies: Sequence[StepBody | None], last_reveals: list[bytes],
                   fill: dict[int, Any], escrow_round: bool = False) -> tuple[tuple | None, StepResult | None]:
    """One step of a game with hidden information (protocol.md §C12), shared with verify.py: the
    hidden part (``HiddenLedger.resolve``: every active seat's field checked; at an inspection
    step the outcomes of the opened shares applied), else ``resolve_step``. Returns
    ``(hidden.Fault, None)`` on a fault, else ``(None, result)``; a hash-chain fault comes
    back as ``result.fatal``. The ledger is not advanced (``after_step``). ``engine`` is also
    an ``engine.api.HiddenInformation`` (the ledger applies the outcomes with it)."""
    bad, revealed = ledger.resolve(engine, state, [None if b is None else b.hidden for b in bodies], inspection)
    if bad is not None:
        return bad, None
    if revealed is not None:
        return None, StepResult(revealed[0], tuple(revealed[1]), [], None)
    return None, resolve_step(engine, state, chance, seed, step, bodies, last_reveals, fill, escrow_round)


def hidden_bot(engine: Engine) -> Any:
    """The bot that plays a dropped seat in a game with hidden information: the niente bot
    with no private knowledge (protocol.md §C12.6), ``(state, seat) -> action | None``:
    ``engine.choose`` with ``view=None`` (engine.api.HiddenInformation); an engine without it
    gets the edition's default bot."""
    choose = getattr(engine, "choose", None)
    if choose is None:
        return default_bot(engine)
    return lambda state, seat: choose(state, seat, "default", None)
