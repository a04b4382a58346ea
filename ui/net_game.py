"""``NetGame``: the game driver (ui/driver.py's ``GameDriver``) of a real peer.

It runs a ``p2p.node.Node`` whose local input is the human's ``HumanSeat``
(``PeerConfig.local_input``) and whose events feed the UI (``PeerConfig.observer``): lobby
status, applied steps, drop and skip votes, seats lost and returned, chat lines. The host can
fill the free seats with in-process bot peers (:meth:`NetGame.fill_with_bots`, named by
:func:`bot_names`).

The network stack (``p2p.node``, ``p2p.discovery``, ``p2p.identity``: zeroconf, cryptography,
~0.8 s to import) is imported when a game starts, not with this module: the app and a local
game start without it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ui.driver import DriverBase, Fault, SeatChanged
from ui.human_seat import HumanSeat

#: Seconds a bot seat of ``lanopoli play`` thinks before a decision the game waits for: its
#: turns go by slowly enough to follow (a bot decides in microseconds).
BOT_PACE_S = 0.6
#: Seconds a step must wait before the UI names the peers it waits for.
WAIT_NOTICE_S = 2.0
#: Seconds a joiner leaving the waiting room waits for the host's ack of its LEAVE.
LEAVE_DRAIN_S = 1.0


class NetGame(DriverBase):
    """A real peer of the game (``p2p.node.Node``) with the human at our seat.

    ``cfg``: keyword arguments for ``p2p.node.PeerConfig`` (role, bind, game_id, seats,
    log_dir, identity, name, host_addr...); ``local_input``/``observer`` are set here.
    The bot peers ``fill_with_bots`` starts get fresh keys (``bot_names``), kept with their logs
    under our log directory (``bot_dir_of``) so that a rejoin resumes them with us.
    """

    def __init__(self, cfg: dict, human: HumanSeat | None = None, bot_pace: float = 0.0) -> None:
        super().__init__(human)
        self.cfg = dict(cfg)
        self.bot_pace = bot_pace
        self.seats_total = int(self.cfg.get("seats", 0)) if self.cfg.get("role") == "host" else 0
        self.lobby_names = (self.cfg.get("name", ""),)
        #: Host: players removed for not confirming the setup (protocol.md §C2.2 step 7).
        self.lobby_removed: tuple = ()
        self.node: Any = None
        self.can_fill = self.cfg.get("role") == "host"
        self._bot_tasks: list[asyncio.Task] = []
        self._step_t = 0.0
        self.edition = self.cfg.get("edition", "classico")
        #: The game ended as abandoned (protocol.md §C8.7): {"seat": who signed ABANDON, "step"}
        #: (``PeerResult.abandoned``); the end screen says so. None otherwise.
        self.abandoned: dict | None = None
        #: Host: what the teacher should know while the room waits, translated, oldest first:
        #: a player who tried to join with our own player key (``same_key_notice``).
        self.notices: list[str] = []
        self._same_key: set[tuple[str, int]] = set()
        self._table_code: str | None = None
        #: Host: our key's fingerprint, which the games lists show under a contested game id
        #: (protocol.md §N3): the waiting room shows it so that the host can read it out.
        self.host_fingerprint = ""

    async def run(self) -> None:
        """Run the peer until the game ends or fails (``fault`` set; never raises NodeError)."""
        from p2p.node import Node, NodeError, PeerConfig

        loop = asyncio.get_running_loop()
        cfg = PeerConfig(**self.cfg, local_input=self.human.decide, observer=self.observe)
        node = self.node = Node(cfg)
        try:
            await node.start()
            if node.session is not None:  # rejoined our unfinished game from its log (§N5)
                self._resumed()
                self._resume_bots()
            if node.link is not None and self.cfg.get("role") == "host" and node.lobby is not None:
                from p2p.join_code import join_code

                addr, port = node.link.address[:2]
                self.join_code = join_code(addr, port, node.lobby.game_id, node.identity.public_key)
                self.host_fingerprint = node.identity.fingerprint  # the lists' "⚠" rows show it (§N3)
            self._notify("lobby")
            self._step_t = loop.time()
            result = await node.wait()
            self.abandoned = result.abandoned
            self.state = node.session.state
            self.log_path = node.log_path
            self.phase = "over"
            self._notify("over")
        except NodeError as e:
            self.log_path = node.log_path
            self.fault = Fault(e.code, str(e), getattr(e, "seat", None), e.step, getattr(e, "evidence", None))
            self.phase = "failed"
            self._notify("fault")
        except OSError as e:
            self.fault = Fault("error", str(e))
            self.phase = "failed"
            self._notify("fault")
        finally:
            await node.close()

    def _resumed(self) -> None:
        """The node rejoined our game from its log instead of a lobby (protocol.md §N5): take
        seat, names and state from it and tell our log we are back."""
        node = self.node
        self.seat = node.seat
        self.names = tuple(node.names)
        self.seats_total = len(self.names)
        self.lobby_names = self.names
        self.state = node.session.state
        self.edition = node.session.setup.edition
        self.can_fill = False
        self.phase = "playing"
        self._new_events.append(SeatChanged(self.seat, node.step, "back"))
        self._notify("lobby")
        self._notify("step")

    def vote_out(self) -> tuple[int, ...]:
        """j: vote now to drop every other seat this step waits for (``Node.vote_out``,
        protocol.md §C13.6); the usual SeatDropVoted line shows. Returns the seats voted on."""
        if self.node is None or self.phase != "playing":
            return ()
        return tuple(s for s in self.node.waiting_for if s != self.seat and self.node.player.vote_out(s))

    def skip_turn(self) -> tuple[int, ...]:
        """J: vote now to let the turn of every other seat this step waits for pass
        (``Node.skip_turn``, protocol.md §C8.10); once a majority voted, a "skipped" line shows.
        Returns the seats voted on."""
        if self.node is None or self.phase != "playing":
            return ()
        return tuple(s for s in self.node.waiting_for if s != self.seat and self.node.player.skip_turn(s))

    def skip_tallies(self) -> list:
        """The votes held to skip a seat's turn at the current step (``LockstepSession.skip_tallies``)."""
        session = None if self.node is None or self.phase != "playing" else self.node.session
        return [] if session is None else session.skip_tallies()

    def say(self, text: str) -> None:
        """Send a chat line to the others through the node (``Node.say``, protocol.md §N9)."""
        if self.node is None:
            raise ValueError("no game to chat in yet")
        self._chat(self.node.player.say(text))

    def observe(self, ev: Any) -> None:
        """``PeerConfig.observer``: the node's lobby and session events (p2p/lobby.py,
        p2p/lockstep.py), and the chat lines others send (``p2p.chat.ChatLine``). Lobby status, game start and applied steps update what the UI shows;
        a drop vote, a dropped seat and our own lost seat become SeatChanged lines in the log
        and marks in ``seat_changes``; a seat we voted on as silent that sends again (a step
        applies without it being dropped: every active seat's message was there) is "back"."""
        name = type(ev).__name__
        if name == "ChatLine":
            self._chat(ev)
            return
        if name == "SameKeyJoin":  # a second player on our key directory (p2p.lobby_events)
            self.same_key_notice(ev.addr)
            return
        if name == "TurnSkipped":  # a majority let this seat's turn pass; it keeps its seat (§C8.10)
            self._new_events.append(SeatChanged(ev.seat, ev.step, "skipped"))
            self._notify("step")
            return
        if name == "SeatReturned":
            self.seat_returned(ev.seat, ev.step)
            return
        if name in ("SeatDropVoted", "SeatDropped", "SeatLost"):
            seat = self.seat if name == "SeatLost" else ev.seat
            change = {"SeatDropVoted": "silent", "SeatLost": "lost"}.get(name) or \
                ("bankrupt" if ev.rule == "bankrupt" else "bot")
            if change != "silent" or self.seat_changes.get(seat) is None:
                self.seat_changes[seat] = change
            self._new_events.append(SeatChanged(seat, ev.step, change))
            self._notify("step")
            return
        if name == "StepApplied":
            for seat in [s for s, c in self.seat_changes.items() if c == "silent"]:
                del self.seat_changes[seat]
                self._new_events.append(SeatChanged(seat, ev.step, "back"))
        if name == "PlayerRemoved":
            self.lobby_removed = (*self.lobby_removed, ev.name)
        if name == "LobbyStatus":
            self.lobby_names = tuple(ev.names)
            self.seats_total = ev.seats
            self.edition = ev.edition
            self._notify("lobby")
        elif name == "GameStarted":
            self.seat = ev.my_seat
            self.names = tuple(p.name for p in ev.setup.players)
            self.seats_total = ev.setup.seats
            self.lobby_names = self.names
            self.phase = "playing"
            self.can_fill = False
            # The node builds the session (and the initial state, from the setup options it
            # understands) right after this event: read it then, never rebuild it here.
            asyncio.get_running_loop().call_soon(self._session_started)
        if name == "StepApplied":
            self.state = self.node.session.state
            self._step_t = asyncio.get_running_loop().time()
            self._new_events.extend(ev.engine_events)
            self._notify("step")

    def same_key_notice(self, addr: Any) -> None:
        """Host: a JOIN or PROBE from ``addr`` (address, port) was signed with our own player key
        (``p2p.lobby_events.SameKeyJoin``): add ``ui.display.fault_hint("same_key", ...)`` to
        ``notices`` (the waiting room shows it; ``lanopoli host`` prints the same line), once per
        address and for at most ``p2p.node_lobby.SAME_KEY_REPORTS`` addresses, as the node
        reports ``SameKeyJoined``: a joiner retrying from new ports never floods the room."""
        from p2p.node_lobby import SAME_KEY_REPORTS
        from ui.display import fault_hint

        key = (str(addr[0]), int(addr[1]))
        if key in self._same_key or len(self._same_key) >= SAME_KEY_REPORTS:
            return
        self._same_key.add(key)
        self.notices.append(fault_hint("same_key", f"{key[0]}:{key[1]}") or "")
        self._notify("lobby")

    def private_view(self) -> dict:
        """Our seat's view from the lockstep session (``LockstepSession.private_view``)."""
        session = getattr(self.node, "session", None)
        return session.private_view() if session is not None else {}

    @property
    def table_code(self) -> str:
        """The game's table code (``p2p.table_code``, protocol.md §C2.4: the same at every seat of
        this game, to compare out loud), or "" before the session starts."""
        session = getattr(self.node, "session", None)
        if session is None:
            return ""
        if self._table_code is None:
            from p2p.table_code import table_code

            self._table_code = table_code(session.setup_hash, session.game_seed)
        return self._table_code

    @property
    def host_key(self) -> bytes | None:
        """Joiner: the host's Ed25519 key (32 bytes) we joined: the advert's ``pk`` given in
        ``cfg["host_keys"]`` (a join from the list), else the key our lobby checks the host's
        STATUS against (``Admission.host_public_key``: a join by code, protocol.md §N3.1); None
        when neither is known."""
        keys = self.cfg.get("host_keys")
        if keys:
            return bytes(keys[0])
        lobby = None if self.node is None else self.node.lobby
        return None if lobby is None else (lobby.admission.host_public_key or None)

    def _session_started(self) -> None:
        if self.node is not None and self.node.session is not None and self.state is None:
            self.state = self.node.session.state
        self._notify("lobby")

    def turn_left(self) -> float | None:
        """Seconds left of our turn time while the game waits for our decision
        (``LockstepSession.turn_deadline``), else None."""
        session = None if self.node is None or self.phase != "playing" else self.node.session
        deadline = None if session is None else session.turn_deadline()
        if deadline is None:
            return None
        return max(0.0, deadline - asyncio.get_running_loop().time())

    def waiting(self) -> tuple[tuple[int, ...], float] | None:
        """(other seats whose message we lack, seconds the step has waited) once a step has
        waited WAIT_NOTICE_S, else None."""
        if self.node is None or self.phase != "playing":
            return None
        waited = asyncio.get_running_loop().time() - self._step_t
        seats = tuple(s for s in self.node.waiting_for if s != self.seat)
        if not seats or waited < WAIT_NOTICE_S:
            return None
        return seats, waited

    async def fill_with_bots(self) -> None:
        """Host: start one in-process bot peer per free seat; they join by address (no mDNS
        needed). The game starts when the last one is seated. Each bot is a NetGame on
        autoplay that thinks ``bot_pace`` seconds before each decision the game waits for, so
        that people can follow the bots' turns; it sees its own private view like a player's
        autoplay (protocol.md §C12.7)."""
        if not self.can_fill or self.node is None or self.node.lobby is None:
            return
        from p2p.identity import Identity

        self.can_fill = False
        free = self.seats_total - len(self.lobby_names)
        addr = self.node.link.address
        # Keys first: the setup seats players by public key (protocol.md §C2.3), so the names
        # can follow the seats the bots will get ("Bot 1" sits before "Bot 2", issue 11).
        identities = [Identity.generate() for _ in range(free)]
        names = bot_names([ident.public_key for ident in identities])
        game_id = self.node.lobby.game_id
        for ident, name in zip(identities, names):
            # With our log directory, each bot keeps its keys and its own game log there, so
            # that our rejoin after a crash resumes it too (``_resume_bots``): bots that cannot
            # come back are half the table in a 4-seat game with 2 bots, no majority to drop
            # them (§C8.3), and the game would end as abandoned.
            bot_dir = None if self.cfg.get("log_dir") is None else \
                bot_dir_of(self.cfg["log_dir"], game_id, ident.public_key)
            if bot_dir is not None:
                ident.save(bot_dir)
            self._start_bot(dict(game_id=game_id, host_addr=(str(addr[0]), int(addr[1])), name=name, identity=ident,
                                 host_keys=(self.node.identity.public_key, self.node.identity.x25519_public_key),
                                 log_dir=bot_dir))

    def _start_bot(self, cfg: dict) -> None:
        """Run one bot peer (a joining NetGame on autoplay, ``cfg``: its PeerConfig keywords
        beyond role/bind/interface/linger) in a task ``close`` cancels."""
        bot = NetGame(dict(role="join", bind=self.cfg.get("bind", "127.0.0.1"), interface=self.cfg.get("interface"),
                           linger=0.2, **cfg), HumanSeat(pace=self.bot_pace))
        bot.human.set_autoplay(True)
        task = asyncio.ensure_future(_run_bot(bot, cfg.get("log_dir")))
        task.add_done_callback(_swallow)
        self._bot_tasks.append(task)

    @property
    def bots_running(self) -> int:
        """How many of the bot peers this program runs (``fill_with_bots``, resumed ones too)
        are still playing: they stop when we leave (the game screen's q asks with that said)."""
        return sum(1 for t in self._bot_tasks if not t.done())

    def _resume_bots(self) -> None:
        """We rejoined our game (protocol.md §N5): resume the bots ``fill_with_bots`` seated
        in it, each a peer resuming from its own log with its own keys (§N5, §C10: it replays
        its log, catches up from the other seats and plays on). A bot directory without keys or
        without an unfinished log of this game (a finished game removed its ``.resume``) is
        left alone."""
        from p2p.identity import ED25519_FILE, Identity
        from p2p.resume import find_resumable

        log_dir, game_id = self.cfg.get("log_dir"), self.node.session.setup.game_id
        if log_dir is None:
            return
        for bot_dir in bot_dirs_of(log_dir, game_id):
            try:
                ident = Identity.load_or_create(bot_dir) if (bot_dir / ED25519_FILE).is_file() else None
            except (OSError, ValueError):
                continue
            if ident is None or find_resumable(bot_dir, ident, game_id) is None:
                continue
            name = next((p.name for p in self.node.session.setup.players if p.public_key == ident.public_key), "Bot")
            self._start_bot(dict(game_id=game_id, name=name, identity=ident, log_dir=bot_dir, resume=True))

    @property
    def advert_id(self) -> bytes | None:
        """Joiner: the id of the game we joined (the waiting room watches its advert); None for
        a host."""
        if self.cfg.get("role") == "host":
            return None
        lobby = None if self.node is None else self.node.lobby
        return lobby.game_id if lobby is not None and lobby.game_id else self.cfg.get("game_id")

    async def leave(self) -> None:
        """The player leaves the waiting room. A joiner still in the lobby (phase joining or
        waiting, before the host's PROPOSAL) sends LEAVE (``p2p.node_lobby.NodeLobby.leave``, protocol.md
        §C2.2: the host frees the seat, tells the others by its STATUS and its advert) and waits
        up to ``LEAVE_DRAIN_S`` for its ack; its lobby has aborted ("left the lobby"), which
        ``run`` would report as a fault: the app has stopped listening first and stops ``run``. A host, or a
        joiner past the PROPOSAL, sends nothing: the app stops ``run``, whose node withdraws
        our advert as when the program quits (a joiner that never signs is removed at §C2.2
        step 7)."""
        if self.node is None or self.cfg.get("role") == "host" or self.phase != "lobby":
            return
        await self.node.lobbying.leave(LEAVE_DRAIN_S)

    async def close(self) -> None:
        """Stop the bot peers we started (the node closes itself when ``run`` ends)."""
        for t in self._bot_tasks:
            t.cancel()
        if self._bot_tasks:
            await asyncio.gather(*self._bot_tasks, return_exceptions=True)


def bot_names(keys: list[bytes]) -> list[str]:
    """Names of bot peers with Ed25519 public ``keys`` (32 bytes each), in the order given:
    "Bot 1" for the smallest key, "Bot 2" for the next... The setup orders the seats by
    public key, ascending (protocol.md §C2.3), so the bots' numbers rise with their seats
    wherever the humans sit, as in a local game (ui/backends.py); numbered in start order they
    came out shuffled ("Bot 3" at seat 2, "Bot 1" at seat 4)."""
    order = sorted(keys)
    return [f"Bot {order.index(k) + 1}" for k in keys]


#: Sub-directory of the host's log directory holding its fill-in bots' keys and logs:
#: ``<log dir>/bots/<first 16 hex digits of the game id>/<first 16 hex digits of the bot's key>/``.
BOTS_DIR = "bots"


def bot_dir_of(log_dir: Any, game_id: bytes, public_key: bytes) -> Path:
    """Where the fill-in bot with Ed25519 ``public_key`` (32 bytes) of game ``game_id`` (16
    bytes) keeps its keys (``Identity.save``) and game log, under the host's ``log_dir``."""
    return Path(log_dir) / BOTS_DIR / game_id.hex()[:16] / public_key.hex()[:16]


def bot_dirs_of(log_dir: Any, game_id: bytes) -> list[Path]:
    """The bot directories (``bot_dir_of``) of game ``game_id`` under ``log_dir``, sorted."""
    d = Path(log_dir) / BOTS_DIR / game_id.hex()[:16]
    return sorted(p for p in d.iterdir() if p.is_dir()) if d.is_dir() else []


async def _run_bot(bot: NetGame, bot_dir: Path | None) -> None:
    """Run a bot peer; once its game is over (its log in ``bot_dir`` lost its ``.resume`` file,
    p2p/node_resume.py ``GameFiles.finished``) its keys have no use left (nothing to resume; the
    log verifies with the public keys of the setup): remove them. Checked on cancellation too:
    the host's ``close`` may cancel a bot lingering after the game."""
    from p2p.identity import ED25519_FILE, X25519_FILE
    from p2p.resume import RESUME_SUFFIX

    try:
        await bot.run()
    finally:
        logs = [] if bot_dir is None else list(Path(bot_dir).glob("game-*.log"))
        if logs and not any(Path(str(log) + RESUME_SUFFIX).exists() for log in logs):
            for name in (ED25519_FILE, X25519_FILE):
                (Path(bot_dir) / name).unlink(missing_ok=True)


def _swallow(task: asyncio.Task) -> None:
    """A bot peer's failure shows up in our own node (it stops waiting for it); mark the
    exception retrieved so asyncio does not log it twice."""
    if not task.cancelled():
        task.exception()


__all__ = ["NetGame", "bot_dir_of", "bot_dirs_of", "bot_names", "BOT_PACE_S", "WAIT_NOTICE_S"]
