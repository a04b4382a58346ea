"""One peer, end to end: transport + discovery + lobby + lockstep session + a bot for our seat.

``run_peer(cfg)`` is the asyncio glue around the sans-I/O cores (ARCHITECTURE.md section 2):

1. Bind the UDP ``Link`` (p2p/link.py) to ``cfg.bind``:``cfg.port`` and open zeroconf on
   ``cfg.interface`` only (p2p/discovery.py).
2. Host: open the ``Lobby``, advertise the game (TXT ``st=lobby``), re-announce the seat count
   as players join, ``st=running`` once the setup is proposed. Join: browse for ``cfg.game_id``
   (or the first game in the lobby with a free seat and our protocol version) and send Join.
3. When the lobby says ``GameStarted``, build the ``LockstepSession``; every delivered step
   message goes to it, every message it produces goes to every other seat; when it needs our
   input, ``bots.choose(state, seat, bot)`` decides. Each accepted step is written to the game
   log by the session (p2p/gamelog.py).
4. At ``GameOver``: keep the socket open until every channel is idle (our last messages
   acknowledged) or ``cfg.linger`` s passed, withdraw the ad, close, return a ``PeerResult``.

Progress goes to ``cfg.progress`` as dicts, the child-process contract of protocol.md part L:
``hosting`` (host), ``found``, ``progress`` (at most every ``PROGRESS_INTERVAL`` s plus the
first step), ``done``. Errors (lobby aborted, desync, detected cheat, stall, timeout) raise
``NodeError`` carrying the ``code`` and ``step`` for the ``error`` line.

Hot path (one step): the socket delivers a step message -> ``Endpoint.receive_datagram`` ->
``LockstepSession.receive_message`` (one signature check) -> maybe apply the step, ask the bot,
sign our next message -> ``Link.send`` to each peer -> one flush; acks ride on those datagrams.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import resource
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import const as C
from .chat import CHAT_TAG, ChatRelay, ChatRoom
from .discovery import LOBBY, RUNNING, Discovery, GameAd
from .game_ad import AdUpdates, ad_name
from .errors import LocalProtocolError
from .identity import Identity
from .lobby import (GameStarted, Lobby, LobbyAborted, LobbyPeerMisbehaved, LobbyStatus, PlayerJoined,
                    PlayerLeft, SetupProposed)
from .lockstep import (FINISHED, BeaconExhausted, CaughtUp, CheaterProven, CheatDetected, Desync, Equivocation,
                       GameAbandoned, GameOver, LockstepSession, PeerMisbehaved, PeerStalled, SeatDropped,
                       SeatDropVoted, SeatLost, SeatReturned, StepApplied, StepOverturned)
from .link import Link
from .rendezvous import Rendezvous, SeatAddresses
from .session_events import TurnSkipped
from .node_resume import GameFiles, write_evidence
from .resume import find_resumable
from .seat_answer import SeatAnswer
from .transport import Addr
from .watch_service import WatchService
from .wire import SESSION_TAGS

PROGRESS_INTERVAL = 0.2  # s between progress lines (at most 5 per second)
LINGER = 1.0  # s to keep answering after GameOver (ends early once every channel is idle)
DISCOVERY_TIMEOUT = 30.0  # s a joiner looks for a game
STALL_LIMIT = 60.0  # s a step may wait for a silent seat before the node gives up (> drop timeout)
WAIT_NOTICE = 1.0  # s a step waits for another seat before the node reports whom it waits for
WAIT_REPEAT = 1.0  # s between two ``waiting`` lines
_MAX_EARLY = 256  # session messages buffered before our own session starts


class NodeError(Exception):
    """The peer stopped without finishing the game. ``code``: "lobby" | "desync" |
    "equivocation" | "cheat" | "beacon" | "stalled" | "timeout" | "not_found" | "local_input" |
    "resume" | "internal" (our own handler failed) | "log" | "start" (opening the log or starting
    the game failed, ``Node._start_game``); ``step``: the lockstep step (or None); the
    message is English."""

    def __init__(self, code: str, message: str, step: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.step = step
        #: Desync/equivocation/cheat: the file the evidence was written to (None: not saved).
        self.evidence: Path | None = None
        #: The seat the fault is blamed on, when there is one.
        self.seat: int | None = None

    def as_json(self) -> dict:
        """The ``error`` progress line of protocol.md part L."""
        return {"type": "error", "code": self.code, "message": str(self), "step": self.step}


@dataclass
class PeerConfig:
    """Everything one peer needs. Seats/edition/options matter for the host only.

    ``bind``: IPv4 address of the UDP socket (never 0.0.0.0 in tests/demos); ``interface``: the
    address zeroconf may use (default: ``bind``); ``port``: 0 = any free port; ``identity``:
    our keys (default: from ``demo_seed`` if given, else fresh); ``bot``: name for
    ``engine.bots.choose``; ``demo_seed``: makes secrets (and the host's game id) deterministic
    — demos and tests only; ``game_id``: the game to join (None = first open game found);
    ``log_dir``: where ``game-<gid>-seat<k>.log`` goes (None: no log); ``progress``: callback
    receiving the dicts of protocol.md part L; ``engine``: the engine module (default
    ``engine``; tests may pass a stand-in); ``choose``: the bot function (default
    ``engine.bots.choose``); ``game_filter``: extra condition on the games a joiner without
    ``game_id`` may pick; ``timeout``: overall limit in s (None: none); ``host_keys``: with
    ``host_addr``, the host's (Ed25519, X25519) public keys if known (its lobby messages are then
    checked against them and the channel is keyed at once, protocol.md §N2.2, §C2.2);
    ``host_code``: with ``host_addr`` instead of ``game_id``, the 50-bit tag of a join code
    (``discovery.parse_code_tag``): the host's signed STATUS must match it (protocol.md §N3.1).

    Resilience (protocol.md §C7-§10, protocol.md §N5): ``on_drop`` (host only) is the
    rule for a seat silent for ``drop_timeout`` s: "bot" (default) or "bankrupt"; None turns
    seat loss off (the game then waits up to STALL_LIMIT). ``resume``: if ``log_dir`` holds an
    unfinished game of ours (``<log>.resume`` present, matching ``game_id`` if given), rejoin
    it from the log instead of opening or joining a lobby. ``faults``: a
    ``p2p.faults.FaultPlan`` applied to our datagrams (tests and demos only).
    """

    role: str
    bind: str = "127.0.0.1"
    interface: str | None = None
    port: int = 0
    edition: str = "classico"
    seats: int = 2
    options: Mapping[str, Any] | None = None
    identity: Identity | None = None
    name: str = ""
    bot: str = "default"
    demo_seed: bytes | None = None
    game_id: bytes | None = None
    log_dir: str | os.PathLike[str] | None = None
    progress: Callable[[dict], None] | None = None
    engine: Any = None
    choose: Callable[[Any, int, str], Any] | None = None
    game_filter: Callable[[GameAd], bool] | None = None
    timeout: float | None = None
    discovery_timeout: float = DISCOVERY_TIMEOUT
    linger: float = LINGER
    chain_length: int = C.CHAIN_LENGTH
    local_input: Callable[[Any, int], Any] | None = None
    observer: Callable[[Any], None] | None = None
    host_addr: tuple[str, int] | None = None
    host_keys: tuple[bytes, bytes] | None = None
    host_code: int | None = None
    on_drop: str | None = C.DEFAULT_ON_DROP
    drop_timeout: int = C.DEFAULT_DROP_TIMEOUT
    resume: bool = True
    faults: Any = None
    #: Headless players' patience (protocol.md §C8.10): vote to let the turn of every other seat
    #: the current step has waited this many seconds for pass (None: never; tests and bots).
    skip_idle_after: float | None = None

    def __post_init__(self) -> None:
        if self.role not in ("host", "join"):
            raise ValueError(f"role must be 'host' or 'join', not {self.role!r}")
        if self.host_addr is not None and (self.role != "join" or (self.game_id is None) == (self.host_code is None)):
            raise ValueError("host_addr is for a joiner that names its game_id or a join code's tag")
        if self.host_keys is not None and self.host_addr is None:
            raise ValueError("host_keys go with host_addr")
        if self.bind in ("0.0.0.0", "", "::"):
            raise ValueError("bind to the address you mean, not a wildcard")
        if self.on_drop is not None and self.on_drop not in ("bot", "bankrupt"):
            raise ValueError(f"on_drop must be 'bot', 'bankrupt' or None, not {self.on_drop!r}")
        if not C.MIN_DROP_TIMEOUT <= int(self.drop_timeout) <= C.MAX_DROP_TIMEOUT:
            raise ValueError(f"drop_timeout must be {C.MIN_DROP_TIMEOUT}..{C.MAX_DROP_TIMEOUT} s")

    def host_options(self) -> dict[str, Any]:
        """The setup options the host proposes: ``options`` plus the p2p seat-loss keys
        (protocol.md §C7.1), unless ``on_drop`` is None."""
        opts = dict(self.options or {})
        if self.on_drop is not None:
            opts[C.OPT_ON_DROP] = self.on_drop
            opts[C.OPT_DROP_TIMEOUT] = int(self.drop_timeout)
        return opts


@dataclass
class PeerResult:
    """Outcome of one finished game. ``final_state_hash``: 32 bytes; ``winner``: seat or None;
    ``steps``: lockstep steps applied; ``log_path``: the game log (None without log_dir);
    ``seat``: our seat; ``events_by_type``: engine event class name -> count;
    ``names``: player names in seat order; ``transport``: transport counters;
    ``session_stats``: the session's counters of received, accepted and rejected messages
    (``wrong_game``, ``stale``, ``duplicate``, ... see ``LockstepSession.stats``)."""

    final_state_hash: bytes
    winner: int | None
    steps: int
    log_path: Path | None
    seat: int
    events_by_type: dict[str, int]
    names: tuple[str, ...] = ()
    transport: dict[str, int] = field(default_factory=dict)
    session_stats: dict[str, int] = field(default_factory=dict)
    #: The game ended as abandoned (protocol.md §C8.7): {"seat": who signed ABANDON, "step"}.
    abandoned: dict | None = None

    @property
    def winner_name(self) -> str | None:
        """Name of the winning seat, or None."""
        return None if self.winner is None else self.names[self.winner]

    def done_json(self) -> dict:
        """The ``done`` progress line of protocol.md part L."""
        return {"type": "done", "final_state_hash": self.final_state_hash.hex(),
                "winner": self.winner, "winner_name": self.winner_name, "steps": self.steps,
                "log": None if self.log_path is None else str(self.log_path), "seat": self.seat,
                "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                "session_stats": dict(self.session_stats), "abandoned": self.abandoned}


def _resilience_json(ev: Any) -> dict:
    """Progress line (protocol.md part L) for SeatDropVoted, SeatDropped, CaughtUp and
    CheaterProven."""
    if isinstance(ev, CheaterProven):
        return {"type": "cheater", "step": ev.step, "seat": ev.seat, "reason": ev.reason}
    if isinstance(ev, SeatDropVoted):
        return {"type": "drop_vote", "step": ev.step, "seat": ev.seat}
    if isinstance(ev, SeatDropped):
        return {"type": "seat_dropped", "step": ev.step, "seat": ev.seat, "rule": ev.rule,
                "reconstructed": ev.reconstructed}
    if isinstance(ev, SeatReturned):
        return {"type": "seat_returned", "step": ev.step, "seat": ev.seat}
    if isinstance(ev, TurnSkipped):
        return {"type": "turn_skipped", "step": ev.step, "seat": ev.seat, "votes": ev.votes, "quorum": ev.quorum}
    return {"type": "caught_up", "source": ev.source, "from_step": ev.from_step, "to_step": ev.to_step}


def _read_resume(files: GameFiles | None) -> dict:
    """``GameFiles.read_resume``, its failure (or no files: a game without a log) as
    ``NodeError("resume")``."""
    if files is None:
        raise NodeError("resume", "no resume file: the game runs without a log")
    try:
        return files.read_resume()
    except LocalProtocolError as e:
        raise NodeError("resume", str(e)) from None


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
        #: Who answers for our seat: the timed-game vote, the local player, the bot (seat_answer.py).
        self.answer = SeatAnswer(cfg.bot, cfg.choose)
        self.identity = cfg.identity or (Identity.from_seed(cfg.demo_seed) if cfg.demo_seed
                                         else Identity.generate())
        self.loop = asyncio.get_running_loop()
        self.t0 = self.loop.time()
        self.phase = "lobby"
        self.link: Link | None = None
        self.discovery: Discovery | None = None
        #: The host's advert kept current: seats, players, st=running, standings (§N3).
        self.ad_updates: AdUpdates | None = None
        #: After a resume: our seat's DNS-SD advert and the other seats' new addresses (§N3.2).
        self.rendezvous: Rendezvous | None = None
        self._rendezvous_asked = False
        #: Where each seat is once the game runs, moved by the seats' adverts (§N3.2).
        self.seats = SeatAddresses()
        self.lobby: Lobby | None = None
        self.session: Any = None
        self.seat = -1
        self.peers: list[Addr] = []
        self.log_path: Path | None = None
        self._log: Any = None
        self._events: Counter[str] = Counter()
        self._early: list[bytes] = []
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: float | None = None
        self._next_progress = 0.0
        self._done: asyncio.Future = self.loop.create_future()
        self._tasks: set[asyncio.Task] = set()
        self.misbehaved = 0
        self.names: tuple[str, ...] = ()
        self.transport_totals: dict[str, int] = {}
        self._asked_step = -1  # step whose input local_input is deciding (human seat)
        #: Where the evidence of a detected fault was written, if any.
        self.evidence_path: Path | None = None
        #: After a restart from our log: what ``resume_session`` found (``ResumeReport``).
        self.resume_report: Any = None
        #: Our game log and its side files once the game runs with a log (node_resume.py).
        self.files: GameFiles | None = None
        self._wait_step = -1  # step whose waiting we last reported
        self._wait_next = 0.0  # loop time of the next ``waiting`` line
        self._ticker: asyncio.TimerHandle | None = None
        #: Chat of this game (protocol.md §N9): members, relaying; its room once our lobby or session exists.
        self.chat_relay = ChatRelay(self.identity, cfg.name or f"bot-{self.identity.fingerprint[:4]}",
                                    cfg.role == "host", self, self._send_chat, cfg.observer)
        #: Every seat: the socket and state serving spectators (protocol.md §N10), apart from
        #: the game's, and its DNS-SD advert (``_lanopoli-watch._udp``) once the game runs.
        self.watch = WatchService(self.identity, cfg.bind, [cfg.interface or cfg.bind],
                                  lambda: None if self.session is None else self.session.history(),
                                  self._on_watch_chat, self._emit, self._link_failed)

    # -- queries ------------------------------------------------------------------------

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
                await self._resume(found)
                return
        self.link = await Link.open(cfg.bind, cfg.port, self._on_message, faults=cfg.faults,
                                    on_error=self._link_failed, identity=self.identity)
        self.discovery = Discovery([cfg.interface or cfg.bind])
        await self.discovery.start()
        self.ad_updates = AdUpdates(self.discovery)
        now = self.loop.time()
        name = cfg.name or f"bot-{self.identity.fingerprint[:4]}"
        if cfg.role == "host":
            self.lobby = Lobby.host(self.identity, edition=cfg.edition, seats=cfg.seats, name=name,
                                    endpoint=self.link.address, options=cfg.host_options(),
                                    bot=cfg.local_input is None,
                                    demo_seed=cfg.demo_seed, now=now, chain_length=cfg.chain_length)
            await self.watch.open()
            ad = GameAd(version=C.PROTOCOL_VERSION, game_id=self.lobby.game_id, edition=cfg.edition,
                        seats_taken=1, seats_total=cfg.seats, state=LOBBY,
                        fingerprint=self.identity.fingerprint, address=self.link.address[0],
                        port=self.link.address[1], public_key=self.identity.public_key,
                        x25519_key=self.identity.x25519_public_key,
                        host_name=ad_name(name), players=(ad_name(name),),
                        watch_port=self.watch.port)
            await self.discovery.advertise(ad)
            self._emit({"type": "hosting", "game_id": ad.game_id.hex(), "address": ad.address,
                        "port": ad.port})
        else:
            await self.watch.open()  # any seat serves spectators once the game runs (§N10)
            want = cfg.game_id
            if cfg.host_addr is not None:
                self.lobby = Lobby.join(self.identity, host_addr=(str(cfg.host_addr[0]), int(cfg.host_addr[1])),
                                        game_id=want, name=name, bot=cfg.local_input is None,
                                        demo_seed=cfg.demo_seed, now=self.loop.time(),
                                        chain_length=cfg.chain_length, host_keys=cfg.host_keys,
                                        code_tag=cfg.host_code)
                self.link.endpoint.accept_plain = cfg.host_keys is None  # as below
                self._pump_lobby()
                return

            def fits(ad: GameAd) -> bool:
                if want is not None:
                    return ad.game_id == want
                return (ad.state == LOBBY and ad.free_seats > 0 and ad.version == C.PROTOCOL_VERSION
                        and (cfg.game_filter is None or cfg.game_filter(ad)))

            try:
                ad = await self.discovery.wait_for(fits, cfg.discovery_timeout)
            except TimeoutError:
                raise NodeError("not_found", "no lanopoli game found") from None
            keys = None if ad.public_key is None else (ad.public_key, ad.x25519_key)
            self.lobby = Lobby.join(self.identity, host_addr=(ad.address, ad.port), game_id=ad.game_id,
                                    name=name, bot=cfg.local_input is None, demo_seed=cfg.demo_seed,
                                    now=self.loop.time(),
                                    chain_length=cfg.chain_length, host_keys=keys, host_fp=ad.fingerprint)
            # The host's key is known from the advert: every channel we accept is keyed from the
            # first datagram (protocol.md §N2.2); plain datagrams are strangers'.
            self.link.endpoint.accept_plain = keys is None
        self._pump_lobby()

    # -- message dispatch (hot path) ----------------------------------------------------

    def _on_message(self, addr: Addr, payload: bytes) -> None:
        session = self.session
        if self.seats.left_from and addr in self.seats.left_from:  # a seat an advert moved speaks from here
            self._seat_spoke(addr)
        if payload[:2] in SESSION_TAGS:  # wire.is_session_message, inlined: the hot path
            if session is not None:
                session.receive_message(payload, self.loop.time())
                self._pump_session()
            elif len(self._early) < _MAX_EARLY:
                self._early.append(payload)  # a peer started before us: keep for the session
            return
        if payload[:2] == CHAT_TAG:
            self._on_chat(addr, payload)
            return
        if self.lobby is not None:
            self.lobby.receive_message(payload, addr, self.loop.time(), self.link.endpoint.peer_key(addr))
            self._pump_lobby()

    # -- chat (protocol.md §N9) -----------------------------------------------------------

    @property
    def chat(self) -> ChatRoom | None:
        """Our game's ``ChatRoom`` (None before any lobby or session): ``ChatRelay.room``."""
        return self.chat_relay.room

    def _on_chat(self, addr: Addr, payload: bytes) -> None:
        self.chat_relay.receive(addr, payload, self.loop.time())

    def _on_watch_chat(self, addr: Addr, payload: bytes) -> None:
        self.chat_relay.receive_spectator(addr, payload, self.loop.time())

    def _send_chat(self, addr: Addr, raw: bytes) -> None:
        self.link.send(addr, raw)

    def skip_turn(self, seat: int) -> bool:
        """Our player votes to let ``seat``'s turn at the current step pass: its input there
        counts as nil once a majority voted, and it keeps its seat (``LockstepSession.skip_turn``,
        protocol.md §C8.10). True if a vote went out."""
        if self.session is None or self.phase != "playing":
            return False
        voted = self.session.skip_turn(seat, self.loop.time())
        if voted:
            self._pump_session()
        return voted

    def _skip_idle(self) -> None:
        """``PeerConfig.skip_idle_after``: once the current step has waited that long, vote to
        let the turn of every other seat it still waits for pass (§C8.10)."""
        after, s = self.cfg.skip_idle_after, self.session
        if after is None or s is None or not s.skippable() or self.loop.time() - s.step_started < after:
            return
        for seat in [i for i in s.waiting_for() if i != self.seat]:
            if self.phase == "playing" and self.session is s:
                self.skip_turn(seat)

    def vote_out(self, seat: int) -> bool:
        """Our player votes to drop ``seat``, idle at the current step, without waiting for the
        turn time (``LockstepSession.vote_out``, protocol.md §C13.6). True if a vote went out."""
        if self.session is None or self.phase != "playing":
            return False
        voted = self.session.vote_out(seat, self.loop.time())
        if voted:
            self._pump_session()
        return voted

    def say(self, text: str) -> Any:
        """Send one chat line to the others (protocol.md §N9) and return it as a ChatLine.
        Raises ``ValueError`` (empty, too long, no lobby yet) or ``chat.ChatLimited``."""
        if self.link is None:
            raise ValueError("no game to chat in yet")
        return self.chat_relay.say(text, self.loop.time())

    # -- spectators (protocol.md §N10) -----------------------------------------------------

    def _serve_spectators(self, setup: Any, seat: int) -> None:
        """The game runs (or resumed): serve spectators from our watch socket and advertise it
        as our seat's (``WatchService.serve``, protocol.md §N10 "Any seat serves")."""
        self.watch.serve(setup, seat, self._watch_header)

    def _watch_header(self) -> bytes:
        """The game log's header record: the lobby's, or after a resume our log's record 0."""
        if self.lobby is not None and self.lobby.setup is not None:
            return self.lobby.log_header()
        from .gamelog import LogReader

        return next(iter(LogReader(self.log_path))).payload

    def _link_failed(self, exc: BaseException) -> None:
        """``Link`` ``on_error``: our own message handler raised (a bug, or a local failure
        such as a log that cannot be written). Fail the peer with it at once instead of
        hanging until the timeout: a ``NodeError`` as is, anything else as code "internal"."""
        if isinstance(exc, NodeError):
            self._fail(exc)
            return
        err = NodeError("internal", f"handling a message failed: {exc!r}", self.step)
        err.__cause__ = exc
        self._fail(err)

    def _send_all(self, raw: bytes) -> None:
        send = self.link.send
        for addr in self.peers:
            send(addr, raw)

    # -- lobby --------------------------------------------------------------------------

    def _pin_seats(self, players: Any, endpoints: Any, my_seat: int) -> None:
        """Key the channel to every other seat with its X25519 key from the signed setup
        (protocol.md §N2.2): from now on only that seat's MACed datagrams reach it."""
        ep = self.link.endpoint
        for i, (p, a) in enumerate(zip(players, endpoints)):
            if i != my_seat:
                ep.pin((str(a[0]), int(a[1])), p.x25519_key)
        ep.accept_plain = False

    def _pump_lobby(self) -> None:
        lobby = self.lobby
        ep = self.link.endpoint
        # Key the channels of the peers whose X25519 key the lobby knows before anything is sent
        # to them (protocol.md §N2.2); then they are trusted, never evicted (§N2.6).
        for addr, xk in lobby.peer_keys():
            ep.pin((str(addr[0]), int(addr[1])), xk)
        for addr, raw in lobby.messages_to_send():
            self.link.send((str(addr[0]), int(addr[1])), raw)
        ep.trust(lobby.peer_addresses())
        observer = self.cfg.observer
        while (ev := lobby.next_event()) is not None:
            if observer is not None:
                observer(ev)
            if isinstance(ev, (PlayerJoined, PlayerLeft, LobbyStatus)):
                if self.cfg.role == "host" and isinstance(ev, LobbyStatus):
                    self.ad_updates.update(seats_taken=ev.taken, players=tuple(ad_name(n) for n in ev.names))
            elif isinstance(ev, SetupProposed):
                if self.cfg.role == "host":
                    self.ad_updates.update(seats_taken=ev.setup.seats, state=RUNNING,
                                           players=tuple(ad_name(p.name) for p in ev.setup.players))
            elif isinstance(ev, GameStarted):
                # From now on only the seats' endpoints may open channels (protocol.md §N2.6).
                self.link.endpoint.restrict(ev.endpoints)
                self._pin_seats(ev.setup.players, ev.endpoints, ev.my_seat)
                self._start_game(ev)
                return
            elif isinstance(ev, LobbyAborted):
                self._fail(NodeError("lobby", ev.reason))
                return
            elif isinstance(ev, LobbyPeerMisbehaved):
                self.misbehaved += 1
        self._arm_timer()

    def _start_game(self, ev: GameStarted) -> None:
        """Open the log and start the session; a failure ends ``run_peer`` at once with a
        ``NodeError`` ("log": the game log or its side files cannot be created, e.g. a finished
        game's log already there; "start": anything else) instead of being lost in the
        transport's receive loop while every peer waits for the timeout."""
        try:
            self._begin_game(ev)
        except OSError as e:
            self.phase = "failed"
            self._fail(NodeError("log", f"cannot write the game log {self.log_path or self.cfg.log_dir}: {e}"))
        except Exception as e:  # a bug here must stop the peer visibly, not hang it
            self.phase = "failed"
            self._fail(NodeError("start", f"cannot start the game: {e!r}"))

    def _begin_game(self, ev: GameStarted) -> None:
        cfg = self.cfg
        self.seat = ev.my_seat
        eps = [(str(a[0]), int(a[1])) for a in ev.endpoints]
        self.seats.set_endpoints(eps, ev.my_seat)  # updated when a seat shows up elsewhere (§N3.2)
        self.peers = self.seats.peers()
        self.names = tuple(p.name for p in ev.setup.players)
        if cfg.log_dir is not None:
            files = GameFiles.new_game(cfg.log_dir, ev.setup.game_id, ev.my_seat)
            self.log_path = files.log_path
            self._log = files.create(self.lobby.log_header(), self.lobby.chain_secret, ev.my_seat, eps)
            self.files = files
        now = self.loop.time()
        lob = self.lobby
        own = None if self.files is None else self.files.own_log()
        self.session = LockstepSession(lob.setup, lob.my_seat, lob.identity, lob.chain, self.engine,
                                       lob.game_seed, log=self._log, own_log=own, now=now,
                                       setup_bytes=lob.setup_bytes, hidden_commits=lob.hidden_commits)
        self.answer.start_clock(lob.setup.options_dict(), now)
        self.phase = "playing"
        self._tick()
        self._emit({"type": "found", "peers": ev.setup.seats, "elapsed_s": round(now - self.t0, 3)})
        early, self._early = self._early, []
        for raw in early:
            self.session.receive_message(raw, now)
        self._serve_spectators(ev.setup, ev.my_seat)
        self._pump_session()

    # -- lockstep -----------------------------------------------------------------------

    def _pump_session(self) -> None:
        session = self.session
        answer = self.answer
        events = self._events
        observer = self.cfg.observer
        while True:
            while (ev := session.next_event()) is not None:
                if observer is not None:
                    observer(ev)
                if type(ev) is StepApplied:
                    for e in ev.engine_events:
                        events[type(e).__name__] += 1
                elif isinstance(ev, GameOver):
                    self._game_over(ev)
                elif isinstance(ev, PeerMisbehaved):
                    self.misbehaved += 1
                elif isinstance(ev, (SeatDropVoted, SeatDropped, CaughtUp, CheaterProven, TurnSkipped, SeatReturned)):
                    self._emit(_resilience_json(ev))
                    if isinstance(ev, SeatDropped) and ev.seat == self.seat:
                        self._ask_reseat()  # we are here: take our seat back from the bot (§C8.9)
                    elif isinstance(ev, SeatDropped):
                        self._want_rendezvous()  # its player may come back from elsewhere (§N3.2)
                elif isinstance(ev, GameAbandoned):
                    self._game_over(GameOver(None, ev.state_hash, ev.step), abandoned=ev)
                elif isinstance(ev, (SeatLost, StepOverturned)):
                    self._become_spectator(ev)
                    return
                else:
                    self._on_trouble(ev)
            if session.needs_local_input() is None:
                break
            # A human deciding this step keeps it (no timed vote then).
            vote = answer.timed_vote(self.engine, session.state, self.seat, self.loop.time(),
                                     self._asked_step == session.step)
            if vote is not None:
                session.submit_local_input(vote, self.loop.time())
                continue
            if self.cfg.local_input is not None:
                if not self._ask_local():
                    break
                continue
            # Hidden information (protocol.md §C12.7): our bot sees our own private view.
            action = answer.bot(session.state, self.seat, None if session.view is None else session.private_view)
            session.submit_local_input(action, self.loop.time())
        for raw in session.messages_to_send():
            self._send_all(raw)
        if self.cfg.progress is not None and self.phase == "playing":
            now = self.loop.time()
            if now >= self._next_progress:
                self._next_progress = now + PROGRESS_INTERVAL
                self._emit(self._progress())
        self._arm_timer()

    def _ask_local(self) -> bool:
        """Ask ``cfg.local_input`` for this step's input. True if it answered at once (the
        input is submitted); False if it is deciding (a task submits it later)."""
        session = self.session
        step = session.step
        if self._asked_step == step:
            return False
        self._asked_step = step
        answer = self.cfg.local_input(session.state, self.seat)
        if not inspect.isawaitable(answer):
            session.submit_local_input(answer, self.loop.time())
            return True
        task = asyncio.ensure_future(answer)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(lambda t: self._local_answered(t, step))
        return False

    def _local_answered(self, task: asyncio.Task, step: int) -> None:
        if task.cancelled() or self.session is None:
            return
        exc = task.exception()
        if exc is not None:
            self._fail(NodeError("local_input", f"the local player's input failed: {exc!r}", step))
            return
        if self.session.step == step and self.session.needs_local_input() is not None:
            self.session.submit_local_input(task.result(), self.loop.time())
            self._pump_session()

    def _progress(self) -> dict:
        state = self.session.state
        msg: dict[str, Any] = {"type": "progress", "step": self.session.step,
                               "turn": getattr(state, "turn", None),
                               "current": getattr(state, "current", None)}
        standings = getattr(self.engine, "standings", None)
        if standings is not None:
            msg["leader"] = standings(state)[0][0]
        cash = getattr(state, "cash", None)
        if cash is not None:
            msg["cash"] = list(cash)
        msg["waiting_for"] = list(self.session.waiting_for())
        return msg

    def _stall_limit(self) -> float:
        """Seconds a step may wait before we give up: STALL_LIMIT, and at least twice the drop
        timeout when seat loss is on, so that a drop (which needs every other seat's vote)
        always gets its chance first."""
        s = self.session
        if s is None or not s.seat_loss:
            return STALL_LIMIT
        return max(STALL_LIMIT, 2.0 * s.drop_timeout)

    def _on_trouble(self, ev: Any) -> None:
        if isinstance(ev, PeerStalled):
            self._report_waiting(force=True)
            if ev.waited >= self._stall_limit():
                if self.session.paused():
                    # No drop can come (two seats, or no majority on our side): end the game
                    # as abandoned, signed, rather than fail (protocol.md §C8.7, §N5).
                    self.session.abandon(self.loop.time())
                    return
                self._fail(NodeError("stalled", f"no message from seats {list(ev.seats)} for "
                                                f"{ev.waited:.0f} s", ev.step))
            return
        if isinstance(ev, Desync):
            err = NodeError("desync", f"seat {ev.seat} sent a different {ev.field} hash at step "
                                      f"{ev.step}", ev.step)
        elif isinstance(ev, Equivocation):
            err = NodeError("equivocation", f"seat {ev.seat} signed two messages for step {ev.step}",
                            ev.step)
        elif isinstance(ev, CheatDetected):
            err = NodeError("cheat", f"seat {ev.seat} at step {ev.step}: {ev.reason}", ev.step)
        elif isinstance(ev, BeaconExhausted):
            err = NodeError("beacon", f"hash chain exhausted at step {ev.step}", ev.step)
        else:
            return
        err.evidence = self._write_evidence()
        err.seat = getattr(ev, "seat", None)
        self._fail(err)

    def _write_evidence(self) -> Path | None:
        if self.cfg.log_dir is None or self.session is None:
            return None
        self.evidence_path = write_evidence(self.cfg.log_dir, self.seat, self.session.dump())
        return self.evidence_path

    # -- waiting, restart, spectator -------------------------------------------------------

    def _tick(self) -> None:
        """Every WAIT_NOTICE/2 s while playing: report whom we wait for (``_report_waiting``)."""
        self._ticker = None
        if self.phase != "playing" or self.session is None:
            return
        self._report_waiting()
        if self.ad_updates is not None:  # host: what ``lanopoli watch`` lists (§N3)
            self.ad_updates.standings(self.engine, self.session.state, self.loop.time())
        self._skip_idle()
        self.watch.flush()
        for seat, addr in list(self.seats.pending.items()):
            self._seat_moved(seat, addr)
        self._ticker = self.loop.call_later(WAIT_NOTICE / 2, self._tick)

    def _report_waiting(self, force: bool = False) -> None:
        """Emit a ``waiting`` line (protocol.md part L) when the current step has waited
        WAIT_NOTICE s or more for other seats, at most every WAIT_REPEAT s; ``force``: now."""
        s = self.session
        others = [i for i in s.waiting_for() if i != self.seat]
        now = self.loop.time()
        if not others:
            return
        stuck = now - s.step_started
        if not force and (stuck < WAIT_NOTICE or now < self._wait_next):
            return
        self._wait_next = now + WAIT_REPEAT
        self._want_rendezvous()  # the seats we wait for may be back from other addresses (§N3.2)
        deadline = s.drop_deadline()
        paused = s.paused()
        self._emit({"type": "waiting", "step": s.step, "seats": others,
                    "names": [self.names[i] for i in others if i < len(self.names)],
                    "waited_s": round(stuck, 1),
                    "deadline_s": None if deadline is None else round(max(0.0, deadline - now), 1),
                    # No majority can drop them (protocol.md §C8.3): we wait for them to come back.
                    "paused": bool(paused), "abandon_s": round(max(0.0, self._stall_limit() - stuck), 1)
                    if paused else None})

    async def _resume(self, path: Path) -> None:
        """Rejoin the game of ``path`` from our log (protocol.md §C10): same socket address as
        before (the others still send there; a new transport epoch tells them we restarted),
        replay and check the log, report damage, re-send our current message and ask for
        catch-up."""
        cfg = self.cfg
        files = GameFiles(path)
        info = _read_resume(files)
        eps = info["endpoints"]
        seat = info["seat"]
        mine = eps[seat]
        port = cfg.port or mine[1]
        try:
            self.link = await Link.open(cfg.bind, port, self._on_message, faults=cfg.faults,
                                        on_error=self._link_failed, identity=self.identity)
        except OSError:
            # Our old port is taken: the others cannot reach us until they hear from us.
            self.link = await Link.open(cfg.bind, 0, self._on_message, faults=cfg.faults,
                                        on_error=self._link_failed, identity=self.identity)
        now = self.loop.time()
        try:
            sess, rep = files.replay(self.identity, info["chain_secret"], self.engine, now)
        except (LocalProtocolError, OSError) as e:
            raise NodeError("resume", f"cannot resume from {path}: {e}") from None
        self._adopt_resumed(files, sess, eps)
        await self.watch.open()  # a resumed seat serves spectators too (§N10)
        self._serve_spectators(sess.setup, sess.my_seat)
        self.resume_report = rep
        if rep is not None and not rep.finished:
            await self._open_rendezvous()  # the others may be back from other addresses (§N3.2)
        dmg = rep.damage
        self._emit({"type": "resumed", "log": str(path), "step": rep.steps, "own_resent": rep.own_resent,
                    "damage": None if dmg is None else {"step": dmg.step, "offset": dmg.offset,
                                                         "reason": dmg.reason}})
        if rep.finished:
            self._game_over(GameOver(self._winner(sess.state), sess.state_hash, sess.step))
            return
        self._pump_session()

    async def _open_rendezvous(self) -> None:
        """Advertise our seat and find the other seats by their keys wherever they listen now
        (protocol.md §N3.2). Once per node: after a resume, or in a running game once a step has
        waited WAIT_NOTICE s or a seat was dropped (its player may come back from elsewhere)."""
        sess = self.session
        if self.rendezvous is not None or sess is None or self.link is None:
            return
        self.rendezvous = Rendezvous([self.cfg.interface or self.cfg.bind], sess.setup, sess.my_seat,
                                     self._seat_moved)
        try:
            await self.rendezvous.start(*self.link.address)
        except Exception as e:  # noqa: BLE001 - no DNS-SD here (no multicast, a name clash):
            self._emit({"type": "rendezvous_failed", "reason": str(e)})  # the endpoints we know only

    def _want_rendezvous(self) -> None:
        """Start ``_open_rendezvous`` in the background (from a synchronous handler)."""
        if self.rendezvous is None and not self._rendezvous_asked:
            self._rendezvous_asked = True
            task = asyncio.ensure_future(self._open_rendezvous())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _seat_moved(self, seat: int, addr: tuple[str, int]) -> None:
        """Rendezvous: ``seat`` of our game listens at ``addr`` now (its advert has that seat's
        setup keys, §N3.2): unless the seat was heard at its address lately
        (``SeatAddresses.advert``), send there, accept its channel from there (keyed with its
        X25519 key, so the address carries no trust) and remember it in the ``.resume`` file."""
        if self.session is None or not self.seats.endpoints or self.link is None:
            self.seats.pending.pop(seat, None)
            return
        heard = self.link.endpoint.last_heard(self.seats.endpoints[seat])
        verdict = self.seats.advert(seat, addr, heard, self.loop.time())
        if verdict == "ignored":
            self._emit({"type": "seat_advert_ignored", "seat": seat, "address": str(addr[0]),
                        "port": int(addr[1])})
        elif verdict == "moved":
            self._seat_found(seat)

    def _seat_spoke(self, addr: Addr) -> None:
        """A seat an advert had moved sent an authenticated datagram from ``addr``, an address
        we had heard it at (its channel is keyed with the seat's key): it is there."""
        self._seat_found(self.seats.spoke(addr))

    def _seat_found(self, seat: int) -> None:
        """``seat`` moved in ``self.seats``: send there, key its channel, rewrite ``.resume``."""
        sess, eps = self.session, self.seats.endpoints
        self.peers = self.seats.peers()
        self.link.endpoint.restrict(self.peers + list(self.seats.left_from))
        self._pin_seats(sess.setup.players, eps, sess.my_seat)
        if self.files is not None:
            self.files.remember_endpoints(sess.my_seat, eps)
        self._emit({"type": "seat_found", "seat": seat, "address": eps[seat][0], "port": eps[seat][1]})
        self._pump_session()

    def _adopt_resumed(self, files: GameFiles, sess: Any, eps: list) -> None:
        self.seats.set_endpoints(eps, sess.my_seat)
        eps = self.seats.endpoints
        self.session = sess
        self.seat = sess.my_seat
        self.peers = self.seats.peers()
        self.link.endpoint.restrict(self.peers)  # only the seats may talk to us (§N2.6)
        self._pin_seats(sess.setup.players, eps, sess.my_seat)
        self.names = tuple(p.name for p in sess.setup.players)
        self.log_path = files.log_path
        self._log = sess.log
        self.files = files
        self.phase = "playing" if sess.phase != FINISHED else "done"
        self._asked_step = -1
        self.answer.start_clock(sess.setup.options_dict(), self.loop.time())
        if self._ticker is None:
            self._tick()
        self._ask_reseat()  # our seat went to the bot while we were away (§C8.9)

    def _ask_reseat(self) -> None:
        """Our seat is played by the bot and we are here (restarted, or caught up after the
        drop): ask to play it again (protocol.md §C8.9) with a fresh chain secret, kept first in
        ``<log>.reseat`` (mode 0600; the same secret again after the same drop, so a restart
        never makes a second request). The session re-sends it until ``SeatReturned``."""
        sess = self.session
        info = sess.dropped.get(sess.my_seat) if sess is not None else None
        if info is None or not sess.spectator or self.files is None or not sess.reseat.offered:
            return  # not offered with hidden information (§C8.9): no secret to keep either
        secret = self.files.reseat_secret_for(info.step)
        if sess.request_reseat(secret, self.loop.time()):
            self._emit({"type": "reseat_asked", "step": sess.step, "dropped_at": info.step})

    def _become_spectator(self, ev: Any) -> None:
        """``SeatLost``: our seat was dropped at ``ev.step`` after we had applied that step
        ourselves; ``StepOverturned``: a quorum dropped another seat at a step we applied with
        its message. Either way our state forked at ``ev.step``: cut our log back to that step
        and resume; the catch-up brings the drop (we follow as a spectator if the seat was
        ours, else we play on). Protocol.md §C8.3, §C8.4."""
        if isinstance(ev, SeatLost):
            self._emit({"type": "seat_lost", "step": ev.step})
        else:
            self._emit({"type": "step_overturned", "step": ev.step, "seat": ev.seat})
        old = self.session
        for f in (old.log, old.own_log):
            if f is not None:
                f.close()
        info = _read_resume(self.files)
        try:
            sess, _ = self.files.replay(self.identity, info["chain_secret"], self.engine, self.loop.time(),
                                        truncate_at=ev.step)
        except (LocalProtocolError, OSError) as e:
            self._fail(NodeError("resume", f"cannot follow the game after losing our seat: {e}", ev.step))
            return
        self._adopt_resumed(self.files, sess, info["endpoints"])
        self._pump_session()

    def _winner(self, state: Any) -> int | None:
        w = getattr(self.engine, "winner", None)
        return None if w is None else w(state)

    def _game_over(self, ev: GameOver, abandoned: Any = None) -> None:
        if self._done.done():
            return
        self.phase = "done"
        self.watch.flush()  # the last records too (protocol.md §N10)
        if self.files is not None:
            self.files.finished()  # nothing left to resume: the chain secrets have no use left
        self._done.set_result(PeerResult(
            final_state_hash=ev.final_hash, winner=ev.winner, steps=ev.steps, log_path=self.log_path,
            seat=self.seat, events_by_type=dict(self._events), names=self.names,
            session_stats=self.session.stats,
            abandoned=None if abandoned is None else {"seat": abandoned.seat, "step": abandoned.step}))

    def _fail(self, err: NodeError) -> None:
        if not self._done.done():
            self._done.set_exception(err)

    # -- timers -------------------------------------------------------------------------

    def _arm_timer(self) -> None:
        core = self.session if self.session is not None else self.lobby
        when = core.get_timer() if core is not None else None
        if when is None:
            return
        if self._timer is not None:
            if self._timer_at is not None and self._timer_at <= when:
                return  # fires first and re-arms; saves a cancel per step on the hot path
            self._timer.cancel()
        self._timer_at = when
        self._timer = self.loop.call_at(when, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self._timer_at = None
        now = self.loop.time()
        try:
            if self.session is not None:
                self.session.handle_timer(now)
                self._pump_session()
            elif self.lobby is not None:
                self.lobby.handle_timer(now)
                self._pump_lobby()
        except Exception as exc:  # noqa: BLE001 - a timer callback's error would only be logged
            self._link_failed(exc)

    def _emit(self, msg: dict) -> None:
        if self.cfg.progress is not None:
            self.cfg.progress(msg)

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

    async def _close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        try:
            if self.link is not None and self.phase == "done":
                try:
                    await self.link.drain(self.cfg.linger)
                except Exception as exc:  # noqa: BLE001 - our handler failed while lingering
                    if isinstance(exc, NodeError):
                        raise
                    raise NodeError("internal", f"handling a message failed: {exc!r}", self.step) from exc
        finally:
            for t in list(self._tasks):
                t.cancel()
            if self.ad_updates is not None:
                self.ad_updates.cancel()
            try:
                if self.rendezvous is not None:
                    r, self.rendezvous = self.rendezvous, None
                    await r.close()
                if self.discovery is not None:
                    d, self.discovery = self.discovery, None
                    await d.close()
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
    node._emit(result.done_json())
    return result
