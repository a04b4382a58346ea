"""The setup's seat-loss rule and how a dropped seat is played (protocol.md §C8.4, §C8.3).

What the signed setup says (``drop_rule``: the ``p2p.on_drop`` rule, ``bot`` or ``bankrupt``,
and the drop timeout; ``turn_time``: how long an alive seat may think) and the deterministic
input of a dropped seat at a decision step (``default_bot``, ``dropped_input``): the same on
every peer and in ``verify``, which replays a dropped seat exactly as the table played it.
The live state machine that drops seats (escrows, votes, quorum) is ``seat_loss.SeatLoss``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Callable, Collection

from . import const as C

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine

RULE_BOT = "bot"
RULE_BANKRUPT = "bankrupt"
RULES = (RULE_BOT, RULE_BANKRUPT)


def drop_rule(options: dict) -> tuple[str | None, float]:
    """(rule, timeout seconds) from setup options: rule None when seat loss is off (no
    ``p2p.on_drop`` option). Unknown rules and out-of-range timeouts fall back to the
    defaults (the lobby validates them; a setup is signed by all, so all peers agree)."""
    rule = options.get(C.OPT_ON_DROP)
    if rule is None:
        return None, float(C.DEFAULT_DROP_TIMEOUT)
    if rule not in RULES:
        rule = C.DEFAULT_ON_DROP
    t = options.get(C.OPT_DROP_TIMEOUT, C.DEFAULT_DROP_TIMEOUT)
    if type(t) is not int or not C.MIN_DROP_TIMEOUT <= t <= C.MAX_DROP_TIMEOUT:
        t = C.DEFAULT_DROP_TIMEOUT
    return rule, float(t)


def turn_time(options: dict) -> float:
    """Seconds an alive seat may take at one step before the others vote it out (protocol.md part C
    §8.3): ``p2p.turn_time`` (int, 0 = unlimited: returns 0.0), else ``DEFAULT_TURN_TIME``.
    An out-of-range value falls back to the default (the lobby refuses it; the setup is signed
    by all, so all peers agree)."""
    t = options.get(C.OPT_TURN_TIME, C.DEFAULT_TURN_TIME)
    if type(t) is not int or not 0 <= t <= C.MAX_TURN_TIME:
        t = C.DEFAULT_TURN_TIME
    return float(t)


def default_bot(engine: Engine) -> Callable[[Any, int], Any]:
    """The deterministic bot that plays a dropped seat: ``engine.bots.choose(state, seat,
    "default")`` (ARCHITECTURE.md §1); an engine without bots gets "always nothing".

    The bots are the subpackage ``<engine>.bots``, imported here: ``engine`` does not import
    it, so the attribute exists only once someone did, and a verifier that never had would
    replay a dropped seat as "always nothing" and call a good log bad. An engine that is a
    plain module or object (test stand-ins) is only looked at."""
    bots = getattr(engine, "bots", None)
    if bots is None and hasattr(engine, "__path__"):  # a package: the rules engine
        try:
            bots = importlib.import_module(engine.__name__ + ".bots")
        except ModuleNotFoundError as exc:
            if exc.name != engine.__name__ + ".bots":
                raise  # the bots exist but something they need is missing: say so
    choose = getattr(bots, "choose", None)
    if choose is None:
        return lambda state, seat: None
    return lambda state, seat: choose(state, seat, "default")


def dropped_input(bot: Callable[[Any, int], Any], state: Any, seat: int, dropped: Collection[int]) -> Any:
    """Decision-step input of dropped ``seat`` played by ``bot`` (protocol.md §C8.4), given the
    seats dropped so far: in a timed game, ``TimeUp`` once a strict majority of the seats
    neither bankrupt nor dropped have voted that the time is up
    (``engine.observation.absent_vote``, protocol.md part E "TimeUp contract"), so absent players never
    block the end of the time; otherwise the bot's action. Deterministic: every peer and the
    verifier fill the same input. States without ``time_up`` (test engines) get the bot's."""
    if getattr(state, "time_up", None) is not None:
        from engine.actions import TimeUp
        from engine.observation import absent_vote

        if absent_vote(state, seat, dropped):
            return TimeUp()
    return bot(state, seat)
