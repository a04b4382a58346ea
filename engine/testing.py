"""TEST-ONLY helpers: build states and force chance outcomes without a beacon.

Peers never use this module: real chance steps go through ``apply_chance(state, beacon)``.
``ScriptedRng`` stands in for ``BeaconRng`` so a test can pin the dice or the card drawn;
``forced_chance`` applies it on a copy, like ``apply_chance``.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from .actions import RollDice
from .game import advance, chance_inplace, new_game, step_inplace
from .observation import IMPREVISTI
from .rules.banknotes import NX_CARD, NX_FACEUP, NX_HAND, NX_LENS, NX_WIN
from .state import P_ROLL, State

__all__ = ["ScriptedRng", "forced_chance", "scenario", "roll", "step", "draw_index"]


class ScriptedRng:
    """Returns scripted outcomes: ``die()`` pops the next die value (1..6), ``below(n)`` pops
    the next value (must be < n). Raises AssertionError when the script is exhausted or a
    value does not fit, so a test cannot silently consume more randomness than it scripted."""

    def __init__(self, dice: Iterable[int] = (), picks: Iterable[int] = ()) -> None:
        self.dice = list(dice)
        self.picks = list(picks)

    def die(self) -> int:
        """The next scripted die (1..6), in place of ``BeaconRng.die`` (protocol.md §E3).
        AssertionError when the dice script is exhausted or the value is outside 1..6."""
        assert self.dice, "dice script exhausted"
        d = self.dice.pop(0)
        assert 1 <= d <= 6
        return d

    def below(self, n: int) -> int:
        """The next scripted pick, in place of ``BeaconRng.below(n)`` (protocol.md §E3: a card
        index among the ``n`` undrawn, a contract of the deal, ...). AssertionError when the
        pick script is exhausted or the value is not in ``0..n-1``."""
        assert self.picks, "pick script exhausted"
        v = self.picks.pop(0)
        assert 0 <= v < n
        return v


def forced_chance(state: State, dice: Iterable[int] = (), picks: Iterable[int] = ()):
    """Like ``apply_chance`` but with scripted outcomes: ``(new_state, events)``."""
    s = state.copy()
    ev: list = []
    chance_inplace(s, ScriptedRng(dice, picks), ev)
    return s, tuple(ev)


def scenario(seats: int = 2, *, current: int = 0, cash: Mapping[int, int] | None = None,
             owners: Mapping[int, int] | None = None, levels: Mapping[int, int] | None = None,
             mortgaged: Iterable[int] = (), pos: Mapping[int, int] | None = None,
             jail: Mapping[int, int] | None = None, edition: str = "classico",
             options: Mapping[str, object] | None = None, faceup: Sequence[int] | None = None,
             kept: Mapping[int, Iterable[int]] | None = None, magnifiers: Mapping[int, int] | None = None,
             window: Iterable[Sequence[int]] = (), card_in_use: Sequence[int] | None = None) -> State:
    """A state of ``edition`` (new_game ``options``) at the start of ``current``'s turn (phase
    "roll"), with no contracts dealt, with the given cash,
    owners {square: seat}, building levels {square: 0..5}, mortgaged squares, positions and
    jail tries. Money conservation is kept: cash set here is taken from / given to the bank;
    buildings are taken from the bank's stock.

    An edition with hidden information (niente-e-come-sembra) also takes, so that tests build
    its scenarios without knowing how the state stores them (``engine.observation`` reads them
    back): ``faceup``, the Imprevisti card indices of the face-up row in slot order (the slots
    left over stay empty);
    ``kept`` {seat: Imprevisti card indices} the seat keeps (a "get out of jail free" card is
    held as in classico, the others in its hand), both taken out of the Imprevisti deck;
    ``magnifiers`` {seat: green magnifier tokens}; ``window``, the payments open to inspection
    as ``(payer, payee, bill ids...)``, and ``card_in_use`` ``(seat, deck, card, target)``, the
    kept card being used (``observation.window_payments``, ``card_in_use``: only these are set,
    the phase stays "roll")."""
    s = new_game(edition, seats, options)
    s.phase = P_ROLL
    s.current = current
    s.turn = 1
    for seat, c in (cash or {}).items():
        s.bank -= c - s.cash[seat]
        s.cash[seat] = c
    for sq, o in (owners or {}).items():
        s.owner[sq] = o
    for sq, lv in (levels or {}).items():
        s.level[sq] = lv
        if lv == 5:
            s.hotels -= 1
        else:
            s.houses -= lv
    for sq in mortgaged:
        s.mort[sq] = 1
    for seat, p in (pos or {}).items():
        s.pos[seat] = p
    for seat, j in (jail or {}).items():
        s.jail[seat] = j
    window = [list(p) for p in window]
    if faceup is not None or kept or magnifiers or window or card_in_use is not None:
        _hidden_scenario(s, faceup, kept or {}, magnifiers or {}, window, card_in_use)
    advance(s, [])
    return s


def _hidden_scenario(s: State, faceup: Sequence[int] | None, kept: Mapping[int, Iterable[int]],
                     magnifiers: Mapping[int, int], window: list[list[int]],
                     card_in_use: Sequence[int] | None) -> None:
    """``scenario``'s niente parameters; ValueError for an edition without hidden information."""
    if not s.nx:
        raise ValueError(f"{s.ed.name}: no face-up cards, kept cards, magnifiers or windows")
    deck = s.decks[IMPREVISTI]
    if faceup is not None:
        slots = len(s.nx[NX_FACEUP])
        if len(faceup) > slots:
            raise ValueError(f"{len(faceup)} face-up cards for {slots} slots")
        for c in faceup:
            deck.remove(c)
            s.undrawn[IMPREVISTI] -= 1
        s.nx[NX_FACEUP] = list(faceup) + [-1] * (slots - len(faceup))
    for seat, cards in kept.items():
        for c in cards:
            deck.remove(c)
            s.undrawn[IMPREVISTI] -= 1
            jail_card = s.ed.decks[IMPREVISTI][c].kind == "get_out_of_jail_free"
            (s.held[seat] if jail_card else s.nx[NX_HAND][seat]).append(IMPREVISTI * 256 + c)
    for seat, n in magnifiers.items():
        s.nx[NX_LENS][seat] = n
    s.nx[NX_WIN] = window
    if card_in_use is not None:
        s.nx[NX_CARD] = list(card_in_use)


def step(state: State, **by_seat) -> tuple[State, tuple]:
    """Decision step with inputs given as ``seat0=..., seat1=...`` keywords (others None)."""
    inputs = [by_seat.get(f"seat{i}") for i in range(state.n)]
    s = state.copy()
    ev: list = []
    step_inplace(s, inputs, ev)
    return s, tuple(ev)


def roll(state: State, d1: int, d2: int) -> tuple[State, tuple]:
    """The current player sends RollDice, then the dice come out as (d1, d2)."""
    s, ev1 = step(state, **{f"seat{state.current}": RollDice()})
    s, ev2 = forced_chance(s, dice=(d1, d2))
    return s, ev1 + ev2


def draw_index(state: State, deck: int, card: int) -> int:
    """The ``below`` pick that makes the pending draw of ``deck`` give ``card`` (test-only)."""
    return state.decks[deck].index(card)
