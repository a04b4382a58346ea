"""The edition's step flow strategy (``Edition.flow``, issue 13): what an edition adds to the
shared state machine of engine.game — phases, actions, and rules run at the end of a step.

engine.game calls the edition's flow object at fixed points and never asks which edition runs:

* ``pending(s)``: (chance, actors, kind) of a phase the shared machine does not know;
* ``handlers``: action code -> handler (engine.game's signature ``h(s, ev, seat, a,
  in_auction)``) of the actions only this edition has (engine.actions codes 40+);
* ``chance(s, ev, rng)``: a chance step of such a phase;
* ``after_step`` / ``after_chance``: run once every input of a decision step (or the outcome of
  a chance step) has been applied;
* ``reveal``: ``engine.apply_reveal``'s outcomes (editions with hidden information);
* ``extend_legal``: the edition's own legal actions, appended to ``engine.legal_actions``;
* ``apply_action``: ``engine.apply_action`` (one seat's action as a decision step);
* ``extends_legal``: True when ``extend_legal`` may add anything (the bots then ask
  ``legal_actions`` and every seat, engine.bots);
* ``step_rules``: True when ``after_step`` / ``after_chance`` run anything.

A flow with neither ``step_rules`` nor ``extends_legal`` adds nothing:
``Edition.tables.flow_rules`` (engine.board.Tables, a typed field) is then None, and engine.game
and the bots skip the hooks with one test per step.

:class:`PlainFlow` (:data:`PLAIN_FLOW`) adds nothing: every edition but niente-e-come-sembra,
whose ``engine.rules.niente_flow.NienteFlow`` adds the inspection windows, bill choices, face-up
cards and its ending. ``advance`` and ``step_inplace`` are passed in (engine.game imports the
rules, not the other way round).
"""
from __future__ import annotations

from ..state import PHASE_NAMES

__all__ = ["PlainFlow", "PLAIN_FLOW"]


class PlainFlow:
    """The flow of the editions that add nothing to the shared state machine. Stateless; one
    shared instance :data:`PLAIN_FLOW`."""

    __slots__ = ()
    name = "plain"
    """Short name, for messages and tests."""
    extends_legal = False
    """:meth:`extend_legal` adds nothing."""
    step_rules = False
    """:meth:`after_step` and :meth:`after_chance` do nothing."""
    handlers: dict = {}
    """No action of its own (engine.game refuses the others as "not_in_edition")."""

    def pending(self, s) -> tuple[bool, tuple[int, ...], str]:
        """No phase of its own: ``s`` is between steps (a bug of the caller)."""
        raise AssertionError(f"transient phase {PHASE_NAMES[s.phase]} between steps")

    def chance(self, s, ev, rng) -> None:
        """No chance step of its own: raises ValueError (engine.chance_inplace's error)."""
        raise ValueError(f"not a chance step: {PHASE_NAMES[s.phase]}")

    def after_step(self, s, ev, inputs, ph0: int, ev0: int, advance) -> None:
        """Nothing runs at the end of a decision step."""

    def after_chance(self, s, ev, advance) -> None:
        """Nothing runs at the end of a chance step."""

    def reveal(self, s, ev, fakes, advance) -> None:
        """Nothing is hidden: unreachable (engine.apply_reveal checks the phase first)."""
        raise ValueError("the state does not wait for inspection outcomes")

    def extend_legal(self, s, seat: int, out: list) -> None:
        """No action of its own to list."""

    def apply_action(self, state, seat: int, action, step_inplace) -> tuple:
        """``engine.apply_action``: the decision step in which only ``seat`` sends, on a copy,
        through ``step_inplace`` in its strict form (``seat``'s IllegalAction propagates)."""
        inputs: list = [None] * state.n
        inputs[seat] = action
        s = state.copy()
        ev: list = []
        step_inplace(s, inputs, ev, seat)
        return s, tuple(ev)


PLAIN_FLOW = PlainFlow()
"""The flow that adds nothing (``Edition.flow``'s default)."""

