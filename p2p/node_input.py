"""Our seat's input at each decision step of a running peer: the asyncio side of ``SeatAnswer``.

``SeatAnswer`` (p2p/seat_answer.py, shared with ``ui/play.py``) is the policy: the timed-game
vote, else the local player, else the bot with our private view (protocol.md §N8 "TimeUp
contract", §C12.7). ``NodeInput`` applies it to the node's ``LockstepSession``: it submits the
vote or the bot's action at once, and asks ``PeerConfig.local_input`` once per step — an
answer given at once is submitted at once, an awaitable one is awaited in a task of the node
and submitted if the session still waits for it at that step (else dropped: the step moved on,
e.g. a timed vote or a skip took it). A local player's failure stops the node with
``NodeError("local_input")``.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import TYPE_CHECKING, Any, Protocol

from .node_config import NodeError
from .seat_answer import SeatAnswer

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine

__all__ = ["NodeHost", "NodeInput"]


class NodeHost(Protocol):
    """What ``NodeInput`` uses of its node (``p2p.node.Node``)."""

    engine: Engine
    loop: Any
    session: Any
    seat: int

    def spawn(self, coro: Any) -> asyncio.Task: ...
    def fail(self, err: NodeError) -> None: ...
    def pump(self) -> None: ...


class NodeInput:
    """Our seat's answers for one node. ``answer``: the ``SeatAnswer`` policy; ``local``: the
    local player (``PeerConfig.local_input``: ``(state, seat) -> action`` or an awaitable of
    it), or None for a bot peer."""

    def __init__(self, node: NodeHost, answer: SeatAnswer, local: Any) -> None:
        self.node = node
        self.answer = answer
        self.local = local
        self._asked_step = -1  # step whose input the local player is deciding
        #: (setup hash, loop time) of the first session this node ran: the timed clock's start.
        self._clock_start: tuple[Any, float] | None = None

    def restart(self, options: Any, now: float) -> None:
        """A session starts, or resumes (``Node._run``): nobody deciding yet, and the timed-game
        clock from the setup ``options`` (``SeatAnswer.start_clock``), counting from ``now`` (loop
        time, s) the first time this node runs the game (the lobby's end, or the restart of the
        process from its log: a new node) and from that same moment after an in-process roll
        back (``NodeRestart.become_spectator`` -> ``Node.adopt``: our seat lost, a step
        overturned), which is no restart: a seat that forces roll backs (two versions of a
        message, §C3.4) cannot push the end of a timed game back (protocol.md §N8). The game is
        told by ``node.session.setup_hash``; another game's session starts a new clock."""
        self._asked_step = -1
        game = getattr(self.node.session, "setup_hash", None)
        if self._clock_start is None or self._clock_start[0] != game:
            self._clock_start = (game, now)
        self.answer.start_clock(options, self._clock_start[1])

    def give(self, session: Any) -> bool:
        """``session`` needs our input for its current step: submit it if it is ready. True if
        an input was submitted (the session may need the next one), False if the local player
        is deciding (a task submits it later)."""
        node = self.node
        now = node.loop.time()
        # A human deciding this step keeps it (no timed vote then).
        vote = self.answer.timed_vote(node.engine, session.state, node.seat, now,
                                      self._asked_step == session.step)
        if vote is not None:
            session.submit_local_input(vote, now)
            return True
        if self.local is not None:
            return self._ask_local(session)
        # Hidden information (protocol.md §C12.7): our bot sees our own private view.
        action = self.answer.bot(session.state, node.seat, None if session.view is None else session.private_view)
        session.submit_local_input(action, node.loop.time())
        return True

    def _ask_local(self, session: Any) -> bool:
        """Ask the local player for this step's input (once per step)."""
        step = session.step
        if self._asked_step == step:
            return False
        self._asked_step = step
        answer = self.local(session.state, self.node.seat)
        if not inspect.isawaitable(answer):
            session.submit_local_input(answer, self.node.loop.time())
            return True
        task = self.node.spawn(answer)
        task.add_done_callback(lambda t: self._answered(t, step))
        return False

    def _answered(self, task: asyncio.Task, step: int) -> None:
        node = self.node
        if task.cancelled() or node.session is None:
            return
        exc = task.exception()
        if exc is not None:
            node.fail(NodeError("local_input", f"the local player's input failed: {exc!r}", step))
            return
        session = node.session
        if session.step == step and session.needs_local_input() is not None:
            session.submit_local_input(task.result(), node.loop.time())
            node.pump()
