"""One peer, end to end: transport + discovery + lobby + lockstep session + a bot for our seat.

``run_peer(cfg)`` is the asyncio glue around the sans-I/O cores (ARCHITECTURE.md section 2);
the node relays, its parts decide:

1. Bind the UDP ``Link`` (p2p/link.py) to ``cfg.bind``:``cfg.port``; the lobby phase
   (``node_lobby.NodeLobby``) opens zeroconf on ``cfg.interface`` only. Host: open the
   ``Lobby``, advertise the game, keep the advert current. Join: find ``cfg.game_id`` (or a
   join code's host, or the first open game of our protocol version) and send Join.
2. When the lobby says ``GameStarted``, build the ``LockstepSession``; every delivered step
   message goes to it, every message it produces goes to every other seat; when it needs our
   input, ``node_input.NodeInput`` answers (``SeatAnswer``: timed vote, local player, bot).
   Each accepted step is written to the game log by the session (p2p/gamelog.py).
3. Seats found elsewhere, a restart from our log, a fork at a lost seat or an overturned step:
   ``node_restart.NodeRestart`` (with ``node_resume.GameFiles``). Waiting, stalls and faults:
   ``node_watchdog.NodeWatchdog``. Our player's chat and votes: ``node_player.NodePlayer``.
   What each session event means to us (counted, reported, the end, a restart):
   ``node_events.NodeEvents``. The session's or lobby's next deadline: ``loop_timer.LoopTimer``.
4. At ``GameOver``: stay while a seat or a spectator lacks what we sent (``cfg.linger``, then
   ``cfg.straggler_s``, then ``QUIET_S``: §N4 "Draining"); withdraw the ad, close, return a ``PeerResult``.

Reports go to ``cfg.progress`` as typed records (p2p/node_reports.py; ``ui/progress.py`` writes
them as the JSON lines of protocol.md part L): ``Hosting`` (host), ``Found``, ``Progress`` (at
most every ``PROGRESS_INTERVAL`` s plus the first step), ``Waiting``, the seat-loss events, the
``PeerResult``. Errors (lobby aborted, desync, detected cheat, stall, timeout) raise
``NodeError`` carrying the ``code`` and ``step`` for the ``error`` line. ``PeerConfig``,
``PeerResult`` and ``NodeError`` live in p2p/node_config.py and are re-exported here.

Hot path (one step): a step message -> ``Endpoint.receive_datagram`` -> ``LockstepSession.receive_message``
(one signature check) -> maybe apply the step, ask the bot, sign our next message, sent at once
(``OwnStep.on_sent``: ``Link.send`` to each peer, ``Link.flush_now``; acks ride on it), then the rest.
The session's timer and the progress report: once per read batch (``_after_batch``, issue 14).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from .chat import CHAT_TAG
from .early_buffer import EarlyBuffer
from .gamelog import LogReader
from .identity import Identity
from .lobby import GameStarted, Lobby
from .lockstep import FINISHED, GameOver
from .link import Link
from .loop_timer import LoopTimer
from .node_config import DISCOVERY_TIMEOUT, LINGER, QUIET_S, NodeError, PeerConfig, PeerResult
from .node_events import NodeEvents
from .node_input import NodeInput
from .node_lobby import NodeLobby, pin_seats
from .node_player import NodePlayer
from .node_reports import Found, progress_of
from .node_restart import NodeRestart
from .node_watchdog import STALL_LIMIT, WAIT_NOTICE, NodeWatchdog
from .resume import find_resumable
from .seat_answer import SeatAnswer
from .transport import Addr
from .watch_service import WatchService
from .wire import SESSION_TAGS

__all__ = ["DISCOVERY_TIMEOUT", "LINGER", "PROGRESS_INTERVAL", "STALL_LIMIT", "Node", "NodeError",
           "PeerConfig", "PeerResult", "run_peer"]

PROGRESS_INTERVAL = 0.2  # s between progress lines (at most 5 per second)


class Node:
    """The running peer; ``run_peer`` drives it. Readable while running: ``phase`` ("lobby",
    "playing", "done"), ``seat``, ``step``, ``waiting_for`` (seats whose message for the current
    step we lack), ``lobby``, ``session``."""

    def __init__(self, cfg: PeerConfig) -> None:
        self.cfg = cfg
        if cfg.engine is None:
            import engine as engine_module

            cfg.engine = engine_module
        self.engine = cfg.engine
        #: Our seat's input: the timed-game vote, the local player, the bot (node_input.py).
        self.input = NodeInput(self, SeatAnswer(cfg.bot, cfg.choose), cfg.local_input)
        self.identity = cfg.identity or (Identity.from_seed(cfg.demo_seed) if cfg.demo_seed
                                         else Identity.generate())
        self.loop = asyncio.get_running_loop()
        self.t0 = self.loop.time()
        self.phase = "lobby"
        self.link: Link | None = None
        #: The lobby phase: zeroconf, the host's advert, the ``Lobby`` (node_lobby.py).
        self.lobbying = NodeLobby(self)
        #: The restart and seat-address part: seat endpoints, rendezvous, game files (node_restart.py).
        self.restart = NodeRestart(self)
        #: Where each seat is once the game runs (``restart.seats``, read on the hot path).
        self.seats = self.restart.seats
        self.session: Any = None
        self.seat = -1
        self.peers: list[Addr] = []
        self.log_path: Path | None = None
        self._log: Any = None
        self.early = EarlyBuffer()  # a seat's session messages before our session starts
        #: The running core's next deadline (the session's, else the lobby's ``get_timer``).
        self._timer = LoopTimer(self.loop, self._on_timer)
        self._batch_due = False  # a pump ran during the link's read batch: _after_batch owes its tail
        self._next_progress = 0.0
        self._done: asyncio.Future = self.loop.create_future()
        self._tasks: set[asyncio.Task] = set()
        #: What each session event means to us: counted, reported, the end, a restart (node_events.py).
        self.events = NodeEvents(self)
        self.names: tuple[str, ...] = ()
        self.transport_totals: dict[str, int] = {}
        #: Waiting reports, stalls, faults and their evidence (node_watchdog.py).
        self.watchdog = NodeWatchdog(self)
        self._ticker: asyncio.TimerHandle | None = None
        #: Our player's chat and votes (node_player.py).
        self.player = NodePlayer(self)
        #: Every seat: the socket and state serving spectators (protocol.md §N10), apart from
        #: the game's, and its DNS-SD advert (``_lanopoli-watch._udp``) once the game runs.
        self.watch = WatchService(self.identity, cfg.bind, [cfg.interface or cfg.bind],
                                  lambda: None if self.session is None else self.session.history(),
                                  self.player.on_watch_chat, self.report, self.watchdog.handler_failed)

    # -- queries ------------------------------------------------------------------------

    @property
    def lobby(self) -> Lobby | None:
        """The game's ``Lobby`` (None before it is opened or joined): ``NodeLobby.lobby``."""
        return self.lobbying.lobby

    @property
    def discovery(self) -> Any:
        """Our zeroconf ``Discovery`` (None after a restart or once closed)."""
        return self.lobbying.discovery

    @property
    def misbehaved(self) -> int:
        """Peers caught misbehaving, in the lobby and in the session."""
        return self.lobbying.misbehaved + self.events.misbehaved

    @property
    def step(self) -> int:
        """Current lockstep step (0 before the game)."""
        return self.session.step if self.session is not None else 0

    @property
    def waiting_for(self) -> tuple[int, ...]:
        """Seats whose message for the current step has not arrived (ours included if unsent)."""
        return self.session.waiting_for() if self.session is not None else ()

    # -- set-up -------------------------------------------------------------------------

    async def start(self) -> None:
        """Bind the socket and zeroconf; host: open and advertise the lobby; join: find the
        game and send Join. Raises NodeError("not_found") if no game shows up in time."""
        cfg = self.cfg
        if cfg.resume and cfg.log_dir is not None:
            found = find_resumable(cfg.log_dir, self.identity, cfg.game_id)
            if found is not None:
                await self.restart.resume(found)
                return
        await self.open_link(cfg.port)
        if cfg.faults is not None:
            cfg.faults.hold()  # after open_link (its set_origin ends a hold): partitions wait for the game
        await self.lobbying.open()
        self._pump_lobby()

    # -- message dispatch (hot path) ----------------------------------------------------

    def _on_message(self, addr: Addr, payload: bytes) -> None:
        session = self.session
        if self.seats.left_from and addr in self.seats.left_from:  # a seat an advert moved speaks from here
            self.restart.seat_spoke(addr)
        if payload[:2] in SESSION_TAGS:  # wire.is_session_message, inlined: the hot path
            if session is not None:
                session.receive_message(payload, self.link.now, self.link.via)
                self._pump_session()
            else:  # a seat started before us: kept for our session, bounded (early_buffer.py)
                self.early.hold(payload, self.link.endpoint.peer_key(addr), self.lobby)
            return
        if payload[:2] == CHAT_TAG:
            self.player.on_chat(addr, payload)
            return
        if self.lobby is not None:
            ep = self.link.endpoint
            self.lobby.receive_message(payload, addr, self.link.now, ep.peer_key(addr), ep.confirmed(addr))
            self._pump_lobby()

    def serve_spectators(self, setup: Any, seat: int) -> None:
        """The game runs (or resumed): serve spectators from our watch socket and advertise it
        as our seat's (``WatchService.serve``, protocol.md §N10 "Any seat serves")."""
        self.watch.serve(setup, seat, self._watch_header)

    def _watch_header(self) -> bytes:
        """The game log's header record: the lobby's, or after a resume our log's record 0."""
        if self.lobby is not None and self.lobby.setup is not None:
            return self.lobby.log_header()
        return next(iter(LogReader(self.log_path))).payload

    def _send_all(self, raw: bytes) -> None:
        send = self.link.send
        for addr in self.peers:
            send(addr, raw)

    # -- lobby --------------------------------------------------------------------------

    def _pump_lobby(self) -> None:
        if self.lobbying.pump():
            self._arm_timer()

    def start_game(self, ev: GameStarted) -> None:
        """``GameStarted`` (``NodeLobby.pump``): open the log and start the session; a failure ends ``run_peer`` at once with a
        ``NodeError`` ("log": the game log or its side files cannot be created, e.g. a finished
        game's log already there; "start": anything else) instead of being lost in the
        transport's receive loop while every peer waits for the timeout."""
        try:
            self._begin_game(ev)
        except OSError as e:
            self.phase = "failed"
            files = self.restart.files
            where = self.cfg.log_dir if files is None else files.log_path
            self.fail(NodeError("log", f"cannot write the game log {where}: {e}"))
        except Exception as e:  # a bug here must stop the peer visibly, not hang it
            self.phase = "failed"
            self.fail(NodeError("start", f"cannot start the game: {e!r}"))

    def _begin_game(self, ev: GameStarted) -> None:
        cfg = self.cfg
        if cfg.faults is not None:  # simulated partitions count from the game's start (§N6)
            cfg.faults.set_origin(self.loop.time())
        self.seat = ev.my_seat
        eps = [(str(a[0]), int(a[1])) for a in ev.endpoints]
        lob = self.lobby
        # The seats' endpoints (moved when a seat shows up elsewhere, §N3.2) and our log.
        self._log = self.restart.new_game(eps, ev.my_seat, cfg.log_dir, ev.setup.game_id,
                                          lob.log_header(), lob.chain_secret)
        self.peers = self.seats.peers()
        files = self.restart.files
        now = self.loop.time()
        own = None if files is None else files.own_log()
        self._run(lob.start_session(self.engine, log=self._log, own_log=own, now=now),
                  None if files is None else files.log_path, now)
        self.report(Found.started(self.session, now - self.t0))
        for raw in self.early.take():
            self.session.receive_message(raw, now)
        self.serve_spectators(ev.setup, ev.my_seat)
        self._pump_session()

    # -- lockstep -----------------------------------------------------------------------

    def _pump_session(self) -> None:
        session = self.session
        give = self.input.give
        on_event = self.events.on
        observer = self.cfg.observer
        while True:
            while (ev := session.next_event()) is not None:
                if observer is not None:
                    observer(ev)
                if not on_event(ev):  # what it means to us: node_events.py
                    return  # our seat lost or a step overturned: the restart part took over
            # Our seat's input (node_input.py): the timed vote, the local player, the bot.
            if session.needs_local_input() is None or not give(session):
                break
        for raw in session.messages_to_send():
            self._send_all(raw)
        link = self.link
        if link is not None and link.receiving:
            # More datagrams of this wake-up may follow: the report and the timer once, after
            # the batch (``_after_batch``, called by the link before its flush), not per message.
            self._batch_due = True
            return
        self._pump_tail()

    def _send_now(self) -> None:
        """``OwnStep.on_sent``: our STEP is out now, the rest of the handling after it (issue 14)."""
        if self.link is not None:
            for raw in self.session.messages_to_send():
                self._send_all(raw)
            self.link.flush_now()

    def _pump_tail(self) -> None:
        """After the session's output was sent: the progress report (at most every
        ``PROGRESS_INTERVAL`` s) and the session's timer."""
        session = self.session
        if self.cfg.progress is not None and self.phase == "playing":
            now = self.loop.time()
            if now >= self._next_progress:
                self._next_progress = now + PROGRESS_INTERVAL
                self.report(progress_of(self.engine, session))
        self._arm_timer()

    def _after_batch(self) -> None:
        """The link handed over every datagram of one wake-up (``Link`` ``on_batch_end``): the
        tail of the pumps that ran meanwhile, once (timers fire at the same protocol times:
        ``get_timer``'s deadlines are absolute, armed before the loop sleeps again)."""
        if self._batch_due:  # set by ``_pump_session`` only: a session runs
            self._batch_due = False
            self._pump_tail()

    def _tick(self) -> None:
        """Every WAIT_NOTICE/2 s while playing: report whom we wait for (``NodeWatchdog``)."""
        self._ticker = None
        if self.phase != "playing" or self.session is None:
            return
        self.watchdog.report_waiting()
        updates = self.lobbying.ad_updates
        if updates is not None:  # host: what ``lanopoli watch`` lists (§N3)
            updates.standings(self.engine, self.session.state, self.loop.time())
        self.player.skip_idle()
        self.watch.flush()
        self.restart.tick()
        self._ticker = self.loop.call_later(WAIT_NOTICE / 2, self._tick)

    # -- the calls of the restart part (node_restart.NodeHost) --------------------------------

    async def open_link(self, port: int, fallback: bool = False) -> None:
        """Bind our game socket (``Link``) to ``cfg.bind``:``port``; ``fallback``: if that port
        is taken (``OSError``), any free port (a restart: the others cannot reach us until they
        hear from us)."""
        cfg = self.cfg
        opts = dict(faults=cfg.faults, on_error=self.watchdog.handler_failed, identity=self.identity,
                    on_batch_end=self._after_batch)
        try:
            self.link = await Link.open(cfg.bind, port, self._on_message, **opts)
        except OSError:
            if not fallback:
                raise
            self.link = await Link.open(cfg.bind, 0, self._on_message, **opts)

    def adopt(self, session: Any, log_path: Path) -> None:
        """Run ``session``, replayed from our log at ``log_path`` (a restart, or our state
        forked at a step), with the seats at ``restart.seats``."""
        self.session = session
        self.route_seats()  # before the first tick may send
        self._run(session, log_path, self.loop.time())

    def _run(self, session: Any, log_path: Path | None, now: float) -> None:
        """From now on the node relays for ``session`` (new, or replayed from our log at
        ``log_path``), its own log (``session.log``): our seat, the names, the phase, a fresh
        input and timed-game clock, the tick."""
        self.session = session
        session.own.on_sent = self._send_now  # our STEP goes out as soon as it is made
        self.seat = session.my_seat
        self.names = tuple(p.name for p in session.setup.players)
        self.log_path = log_path
        self._log = session.log
        self.phase = "playing" if session.phase != FINISHED else "done"
        self.input.restart(session.setup.options_dict(), now)
        if self._ticker is None:
            self._tick()

    def route_seats(self, extra: Any = ()) -> None:
        """Send to the seats where ``restart.seats`` has them, accept datagrams only from them
        and from the ``extra`` addresses (a moved seat's old ones, §N3.2; protocol.md §N2.6),
        each channel keyed with its seat's X25519 key."""
        sess = self.session
        self.peers = self.seats.peers()
        self.link.endpoint.restrict(self.peers + list(extra))
        pin_seats(self.link.endpoint, sess.setup.players, self.seats.endpoints, sess.my_seat)

    def pump(self) -> None:
        """Handle the session's events and send what it produced (after a restart or a move)."""
        self._pump_session()

    def spawn(self, coro: Any) -> asyncio.Task:
        """Run ``coro`` (or an awaitable) in a task of ours (cancelled by ``close``)."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def finish(self, ev: GameOver, abandoned: Any = None) -> None:
        """The game is over (``abandoned``: ``PeerResult.abandoned`` if it ended so):
        ``wait`` returns the ``PeerResult``."""
        if self._done.done():
            return
        self.phase = "done"
        self.watch.flush()  # the last records too (protocol.md §N10)
        self.restart.game_over()
        self._done.set_result(PeerResult(
            final_state_hash=ev.final_hash, winner=ev.winner, steps=ev.steps, log_path=self.log_path,
            seat=self.seat, events_by_type=dict(self.events.by_type), names=self.names,
            session_stats=self.session.stats,
            abandoned=abandoned))

    def fail(self, err: NodeError) -> None:
        """The peer stops: ``wait`` raises ``err``."""
        if not self._done.done():
            self._done.set_exception(err)

    def report(self, msg: Any) -> None:
        """Hand one report (p2p/node_reports.py) to ``cfg.progress``."""
        if self.cfg.progress is not None:
            self.cfg.progress(msg)

    # -- timers -------------------------------------------------------------------------

    def _arm_timer(self) -> None:
        core = self.session if self.session is not None else self.lobby
        if core is not None:
            self._timer.arm(core.get_timer())

    def _on_timer(self) -> None:
        now = self.loop.time()
        try:
            if self.session is not None:
                self.session.handle_timer(now)
                self._pump_session()
            elif self.lobby is not None:
                self.lobby.handle_timer(now)
                self._pump_lobby()
        except Exception as exc:  # noqa: BLE001 - a timer callback's error would only be logged
            self.watchdog.handler_failed(exc)

    # -- run / close ----------------------------------------------------------------------

    async def wait(self) -> PeerResult:
        """Until GameOver (the result) or a failure (raises NodeError)."""
        return await self._done

    async def close(self) -> None:
        """Linger for stragglers (see LINGER), withdraw the ad, close everything. Idempotent;
        the socket, zeroconf and log are closed even if this is cancelled midway or called
        from a cancelled task (a UI stopping our game, Ctrl-C)."""
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            # python-zeroconf's close re-raises a cancellation pending on the calling task
            # (0.154: "outer-task cancellation must propagate"), which stopped this close before
            # the game socket: the session played on from its datagrams, a peer whose program
            # had stopped (issue 11). Close in a task of its own, unaffected by that request.
            await asyncio.shield(asyncio.ensure_future(self._close()))
        else:
            await self._close()

    async def _serve_stragglers(self) -> None:
        """Past the linger, while an active seat or a spectator still lacks what we sent (§N4)."""
        active = [a for i, a in enumerate(self.seats.endpoints) if i != self.seat and self.session.active[i]]
        quiet = QUIET_S if self.link.saw_loss else 0.0  # TIME-WAIT only where an ack can have been lost
        await self.link.linger(active, self.cfg.straggler_s, self.watch.owed, self.watch.flush, quiet=quiet)

    async def _close(self) -> None:
        self._timer.cancel()
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        try:
            if self.link is not None and self.phase == "done":
                try:
                    await self.link.drain(self.cfg.linger)
                    await self._serve_stragglers()
                except Exception as exc:  # noqa: BLE001 - our handler failed while lingering
                    if isinstance(exc, NodeError):
                        raise
                    raise NodeError("internal", f"handling a message failed: {exc!r}", self.step) from exc
        finally:
            for t in list(self._tasks):
                t.cancel()
            self.lobbying.stop_updates()
            try:
                await self.restart.close()
                await self.lobbying.close()
            finally:
                try:
                    await self.watch.close()
                finally:  # the game socket and the logs, whatever zeroconf or spectators raised
                    if self.link is not None:
                        link, self.link = self.link, None
                        self.transport_totals = link.endpoint.totals()
                        await link.close()
                    if self._log is not None:
                        log, self._log = self._log, None
                        log.close()
                    own = getattr(self.session, "own_log", None)
                    if own is not None:
                        own.close()


async def run_peer(cfg: PeerConfig) -> PeerResult:
    """Play one game as one peer and return its result (see the module docstring).

    Emits ``done`` through ``cfg.progress`` before returning. Raises ``NodeError`` if the game
    cannot be found, the lobby aborts, the session halts (desync, equivocation, detected cheat),
    a seat stays silent for STALL_LIMIT s or ``cfg.timeout`` passes; sockets and zeroconf are
    closed in every case.
    """
    node = Node(cfg)
    started = time.monotonic()
    try:
        await node.start()
        left = None if cfg.timeout is None else cfg.timeout - (time.monotonic() - started)
        try:
            result = await asyncio.wait_for(node.wait(), left)
        except asyncio.TimeoutError:
            raise NodeError("timeout", f"the game did not finish within {cfg.timeout} s",
                            node.step) from None
    finally:
        await node.close()
    result.transport = node.transport_totals
    node.report(result)
    return result
