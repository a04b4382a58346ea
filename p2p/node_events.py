"""What each event of the running session means to the node (protocol.md §N4, §N5): ``NodeEvents``.

``node.Node`` drains ``LockstepSession.next_event()`` after every input and hands each event here
(after ``PeerConfig.observer``): an applied step's engine events are counted (the
``PeerResult.events_by_type``), ``GameOver`` and ``GameAbandoned`` end the game, a
``PeerMisbehaved`` is counted, the seat-loss events are reported (our seat dropped: ask for it
back, §C8.9; another seat dropped: look for it elsewhere, §N3.2), our seat lost or a step
overturned hand the node's game to its restart part (the session is replaced: stop pumping it),
and every other event (a stall, a fault) goes to the watchdog. The node relays; this decides.

It acts through the node's own calls (``NodeHost``), never its private state.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Protocol

from .session_events import (CaughtUp, CheaterProven, GameAbandoned, GameOver, PeerMisbehaved, SeatDropped,
                             SeatDropVoted, SeatLost, SeatReturned, StepApplied, StepOverturned, TurnSkipped)

__all__ = ["NodeEvents", "NodeHost"]

#: Events that are only reported (``node_reports``: ``cfg.progress``).
_REPORTED = (SeatDropVoted, SeatDropped, CaughtUp, CheaterProven, TurnSkipped, SeatReturned)


class NodeHost(Protocol):
    """What ``NodeEvents`` uses of its node (``p2p.node.Node``): our seat, its restart part
    (``ask_reseat``, ``want_rendezvous``, ``become_spectator``), its watchdog (``on_trouble``)
    and these calls."""

    seat: int
    restart: Any
    watchdog: Any

    def finish(self, ev: GameOver, abandoned: Any = None) -> None: ...
    def report(self, msg: Any) -> None: ...


class NodeEvents:
    """The node's reactions to its session's events (see the module docstring)."""

    def __init__(self, node: NodeHost) -> None:
        self._node = node
        #: Engine events of the applied steps, by type name (``PeerResult.events_by_type``).
        self.by_type: Counter[str] = Counter()
        #: Session peers caught misbehaving (``PeerMisbehaved``).
        self.misbehaved = 0

    def on(self, ev: Any) -> bool:
        """React to one session event. False: the session was replaced (our seat lost, a step
        overturned: ``NodeRestart.become_spectator``), stop pumping it; else True."""
        if type(ev) is StepApplied:  # the hot path: one per step
            by_type = self.by_type
            for e in ev.engine_events:
                by_type[type(e).__name__] += 1
            return True
        node = self._node
        if isinstance(ev, GameOver):
            node.finish(ev)
        elif isinstance(ev, PeerMisbehaved):
            self.misbehaved += 1
        elif isinstance(ev, _REPORTED):
            node.report(ev)
            if isinstance(ev, SeatDropped) and ev.seat == node.seat:
                node.restart.ask_reseat()  # we are here: take our seat back from the bot (§C8.9)
            elif isinstance(ev, SeatDropped):
                node.restart.want_rendezvous()  # its player may come back from elsewhere (§N3.2)
        elif isinstance(ev, GameAbandoned):
            node.finish(GameOver(None, ev.state_hash, ev.step), {"seat": ev.seat, "step": ev.step, "reason": ev.reason})
        elif isinstance(ev, (SeatLost, StepOverturned)):
            node.restart.become_spectator(ev)
            return False
        else:
            node.watchdog.on_trouble(ev)  # a stall or a fault (node_watchdog.py)
        return True
