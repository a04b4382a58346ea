"""A tiny stand-in engine with the ARCHITECTURE.md §1 surface, for p2p tests that must not
depend on the rules engine: a dice race. A chance step picks the first player, then turns
alternate between a chance step (the roll) and a decision step where the seat on turn moves
``Advance(1)`` or ``Advance(roll)``; other seats may send nothing. First to reach
``options["target"]`` (default 30) wins. Deterministic, pure, integers only.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

import msgpack


@dataclass(frozen=True)
class Pending:
    """What the state waits for (same fields as engine.Pending)."""

    chance: bool
    actors: tuple
    kind: str
    terminal: bool


@dataclass(frozen=True)
class Advance:
    """Move the seat on turn forward by ``amount`` squares."""

    amount: int


@dataclass(frozen=True)
class ActionRefused:
    """An input illegal when applied: it changed nothing."""

    seat: int
    action_code: str
    reason: str


@dataclass(frozen=True)
class Moved:
    seat: int
    to: int


@dataclass(frozen=True)
class Rolled:
    value: int


@dataclass(frozen=True)
class State:
    seats: int
    target: int
    positions: tuple
    turn: int
    phase: str  # "first" | "roll" | "move" | "over"
    roll: int
    winner: int | None
    retired: tuple = ()


def new_game(edition: str, seats: int, options: Mapping[str, object] | None = None) -> State:
    if edition != "race":
        raise ValueError(f"unknown edition {edition!r}")
    target = int((options or {}).get("target", 30))
    return State(seats, target, (0,) * seats, 0, "first", 0, None)


def pending(s: State) -> Pending:
    if s.phase == "over":
        return Pending(False, (), "game_over", True)
    if s.phase in ("first", "roll"):
        return Pending(True, (), "first_player" if s.phase == "first" else "dice", False)
    return Pending(False, (s.turn,), "move", False)


def legal_actions(s: State, seat: int) -> list:
    if s.phase != "move" or seat != s.turn or seat in s.retired:
        return []
    return sorted({Advance(1), Advance(s.roll)}, key=lambda a: a.amount)


def apply_step(s: State, inputs: Sequence) -> tuple:
    assert len(inputs) == s.seats and pending(s).chance is False
    events = []
    for seat, a in enumerate(inputs):
        if a is None:
            continue
        if a not in legal_actions(s, seat):
            events.append(ActionRefused(seat, "advance", "not legal now"))
            continue
        pos = list(s.positions)
        pos[seat] += a.amount
        events.append(Moved(seat, pos[seat]))
        if pos[seat] >= s.target:
            s = replace(s, positions=tuple(pos), phase="over", winner=seat)
        else:
            s = replace(s, positions=tuple(pos), phase="roll", turn=_next(s, s.turn))
    return s, tuple(events)


def apply_chance(s: State, beacon: bytes) -> tuple:
    assert len(beacon) == 32 and pending(s).chance
    if s.phase == "first":
        t = beacon[0] % s.seats
        return replace(s, turn=t if t not in s.retired else _next(s, t), phase="roll"), ()
    v = beacon[1] % 6 + 1
    return replace(s, roll=v, phase="move"), (Rolled(v),)


def _next(s: State, seat: int) -> int:
    for d in range(1, s.seats + 1):
        if (seat + d) % s.seats not in s.retired:
            return (seat + d) % s.seats
    return seat


def retire_seat(s: State, seat: int) -> tuple:
    """The seat leaves the race (the "bankrupt" drop rule): it never moves again; if it was on
    turn the next seat rolls; the last seat left wins."""
    retired = tuple(sorted(set(s.retired) | {seat}))
    s = replace(s, retired=retired)
    left = [i for i in range(s.seats) if i not in retired]
    if len(left) == 1 and s.phase != "over":
        return replace(s, phase="over", winner=left[0]), (Retired(seat),)
    if s.turn == seat and s.phase in ("roll", "move"):
        s = replace(s, turn=_next(s, seat), phase="roll")
    return s, (Retired(seat),)


@dataclass(frozen=True)
class Retired:
    seat: int


class bots:
    """Deterministic bot (engine.bots surface): the largest legal advance, else nothing."""

    @staticmethod
    def choose(state: State, seat: int, bot: str = "default"):
        la = legal_actions(state, seat)
        return la[-1] if la else None


def is_terminal(s: State) -> bool:
    return s.phase == "over"


def winner(s: State) -> int | None:
    return s.winner


def encode_state(s: State) -> bytes:
    return msgpack.packb([s.seats, s.target, list(s.positions), s.turn, s.phase, s.roll, s.winner, list(s.retired)])


def state_hash(s: State) -> bytes:
    return hashlib.sha256(encode_state(s)).digest()


def encode_action(a: Advance) -> list:
    return ["adv", a.amount]


def decode_action(obj) -> Advance:
    if not (isinstance(obj, list) and len(obj) == 2 and obj[0] == "adv" and type(obj[1]) is int and 0 < obj[1] <= 6):
        raise ValueError("malformed action")
    return Advance(obj[1])
