"""How long a peer waits for the other seats, what it reports meanwhile, and the faults that stop it.

Policy of ``p2p.node.Node`` kept apart from its I/O (protocol.md §C8.3, §C8.7, §N5, part L):

* ``WaitReports.waiting``: whether the current step has waited long enough for other seats to
  report it (a ``Waiting`` record: after ``WAIT_NOTICE`` s, then at most every ``WAIT_REPEAT``
  s, or at once when forced by ``PeerStalled``);
* ``stall_limit``: how long a step may wait before the node gives up (ends the game as
  abandoned when no drop can come, else fails with ``NodeError("stalled")``);
* ``stall_verdict``: what a ``PeerStalled`` past that limit means (abandon, or fail);
* ``idle_seats``: whose turn a headless player's patience (``PeerConfig.skip_idle_after``)
  votes to let pass (§C8.10);
* ``fault_error``: the ``NodeError`` a session fault (desync, equivocation, detected cheat,
  exhausted beacon) stops the node with;
* ``NodeWatchdog``: the node's part that applies them (one per node; owns ``WaitReports`` and
  the evidence path), acting through ``WatchdogHost``'s calls.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from .const import STALL_TIMEOUT
from .lockstep import BeaconExhausted, CheatDetected, Desync, Equivocation, PeerStalled
from .node_config import NodeError
from .node_reports import Waiting
from .node_resume import write_evidence

__all__ = ["ABANDON", "NodeWatchdog", "STALL_LIMIT", "WAIT_NOTICE", "WAIT_REPEAT", "WaitReports", "WatchdogHost",
           "fault_error", "idle_seats", "stall_limit", "stall_verdict"]

STALL_LIMIT = 60.0  # s a step may wait for a silent seat before the node gives up (> drop timeout)
WAIT_NOTICE = 1.0  # s a step waits for another seat before the node reports whom it waits for
WAIT_REPEAT = 1.0  # s between two ``waiting`` lines
ABANDON = "abandon"  # ``stall_verdict``: end the game as abandoned, signed


def stall_limit(session: Any) -> float:
    """Seconds a step may wait before we give up: STALL_LIMIT, and at least twice the drop
    timeout when seat loss is on, so that a drop (which needs every other seat's vote)
    always gets its chance first. ``session``: a ``LockstepSession`` or None."""
    if session is None or not session.seat_loss:
        return STALL_LIMIT
    return max(STALL_LIMIT, 2.0 * session.drop_timeout)


def stall_verdict(session: Any, ev: Any) -> str | NodeError | None:
    """What the node does about ``ev`` (``PeerStalled``: ``step``, ``seats``, ``waited`` s):
    None while ``waited`` is under ``stall_limit``; past it ``ABANDON`` when no drop can come
    (two seats, or no majority on our side: protocol.md §C8.7, §N5), else
    ``NodeError("stalled")``."""
    if ev.waited < stall_limit(session):
        return None
    if session.paused():
        return ABANDON
    return NodeError("stalled", f"no message from seats {list(ev.seats)} for {ev.waited:.0f} s", ev.step)


def idle_seats(session: Any, my_seat: int, after: float | None, now: float) -> tuple[int, ...]:
    """The other seats whose turn our player's patience votes to let pass (protocol.md §C8.10):
    those the current step still waits for once it has waited ``after`` s (None: never) and a
    skip is possible there (``session.skippable()``); ``now``: the session's clock, s."""
    if after is None or session is None or not session.skippable() or now - session.step_started < after:
        return ()
    return tuple(i for i in session.waiting_for() if i != my_seat)


class WaitReports:
    """When to report whom the current step waits for (one per node; owns the repeat time)."""

    def __init__(self) -> None:
        self._next = 0.0  # loop time of the next ``waiting`` report

    def waiting(self, session: Any, my_seat: int, names: tuple[str, ...], now: float,
                force: bool = False) -> Waiting | None:
        """The ``Waiting`` report of ``session`` at loop time ``now`` (s) if one is due: other
        seats than ``my_seat`` owe their message and the step has waited WAIT_NOTICE s or more,
        at most every WAIT_REPEAT s; ``force``: due now. None otherwise."""
        others = tuple(i for i in session.waiting_for() if i != my_seat)
        if not others:
            return None
        stuck = now - session.step_started
        if not force and (stuck < WAIT_NOTICE or now < self._next):
            return None
        self._next = now + WAIT_REPEAT
        deadline = session.drop_deadline()
        # No majority can drop them (protocol.md §C8.3): we wait for them to come back.
        paused, abandon = bool(session.paused()), None
        if paused:
            # A seat that keeps sending ALIVE is thinking, not gone: the node abandons only after
            # stall_limit s of silence (PeerStalled, stall_verdict), so only seats silent for
            # STALL_TIMEOUT s are "awaited back", and the countdown runs from their last sign of life.
            silence = [now - session.live.last_heard(i) for i in others]
            silent = [t for t in silence if t >= STALL_TIMEOUT]
            paused = bool(silent)
            abandon = stall_limit(session) - min(silent) if silent else None
        return Waiting(session.step, others, tuple(names[i] for i in others if i < len(names)), stuck,
                       None if deadline is None else deadline - now, paused, abandon)


def fault_error(ev: Any) -> NodeError | None:
    """The ``NodeError`` (code "desync", "equivocation", "cheat" or "beacon", ``seat`` set when
    the event names one) a session fault event stops the node with; None for any other event."""
    if isinstance(ev, Desync):
        err = NodeError("desync", f"seat {ev.seat} sent a different {ev.field} hash at step "
                                  f"{ev.step}", ev.step)
    elif isinstance(ev, Equivocation):
        err = NodeError("equivocation", f"seat {ev.seat} signed two messages for step {ev.step}", ev.step)
    elif isinstance(ev, CheatDetected):
        err = NodeError("cheat", f"seat {ev.seat} at step {ev.step}: {ev.reason}", ev.step)
    elif isinstance(ev, BeaconExhausted):
        err = NodeError("beacon", f"hash chain exhausted at step {ev.step}", ev.step)
    else:
        return None
    err.seat = getattr(ev, "seat", None)
    return err


class WatchdogHost(Protocol):
    """What ``NodeWatchdog`` uses of its node (``p2p.node.Node``)."""

    cfg: Any
    loop: Any
    session: Any
    seat: int
    step: int
    names: tuple[str, ...]
    restart: Any

    def report(self, report: Any) -> None: ...
    def fail(self, err: NodeError) -> None: ...


class NodeWatchdog:
    """Whom the current step waits for, and what a stall or a session fault does to the node.
    ``evidence_path``: where the evidence of a detected fault was written, if any."""

    def __init__(self, node: WatchdogHost) -> None:
        self._node = node
        self._waits = WaitReports()
        self.evidence_path: Path | None = None

    def report_waiting(self, force: bool = False) -> None:
        """Report whom the current step waits for when it is due (``WaitReports.waiting``)."""
        node = self._node
        line = self._waits.waiting(node.session, node.seat, node.names, node.loop.time(), force)
        if line is not None:
            node.restart.want_rendezvous()  # the seats we wait for may be back from elsewhere (§N3.2)
            node.report(line)

    def on_trouble(self, ev: Any) -> None:
        """A stalled step (``PeerStalled``) or a session fault: give up (the game ends as
        abandoned, signed: §C8.7) or stop the peer, with the evidence written."""
        node = self._node
        if isinstance(ev, PeerStalled):
            self.report_waiting(force=True)
            verdict = stall_verdict(node.session, ev)
            if verdict == ABANDON:  # no drop can come: end the game as abandoned, signed (§C8.7)
                node.session.abandon(node.loop.time(), f"no message from seats {list(ev.seats)} for "
                                     f"{ev.waited:.0f} s where no drop is possible")
            elif verdict is not None:
                node.fail(verdict)
            return
        err = fault_error(ev)
        if err is not None:
            err.evidence = self._write_evidence()
            node.fail(err)

    def handler_failed(self, exc: BaseException) -> None:
        """``Link``/``WatchService`` ``on_error``, and the node's timer: our own handler raised (a
        bug, or a local failure such as a log that cannot be written). Fail the peer with it at
        once instead of hanging until the timeout: a ``NodeError`` as is, anything else as code
        "internal"."""
        node = self._node
        if isinstance(exc, NodeError):
            node.fail(exc)
            return
        err = NodeError("internal", f"handling a message failed: {exc!r}", node.step)
        err.__cause__ = exc
        node.fail(err)

    def _write_evidence(self) -> Path | None:
        node = self._node
        if node.cfg.log_dir is None or node.session is None:
            return None
        self.evidence_path = write_evidence(node.cfg.log_dir, node.seat, node.session.dump())
        return self.evidence_path
