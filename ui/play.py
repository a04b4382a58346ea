"""Game drivers: the seam between the Textual UI (ui/app.py) and a game being played.

The UI holds no game state (STYLE.md §9). It asks a *driver* for the engine state and hands it
the player's actions; the driver tells the UI when something changed. Two drivers share one
interface (:class:`GameDriver`):

* :class:`LocalGame` — an in-process game: our seat is the human, every other seat an
  ``engine.bots`` bot, chance steps from pinned beacons (``engine.bots.play.beacon``) or any
  function a test passes (e.g. ``engine.testing.forced_chance`` with scripted dice). Tests and
  snapshots use it; no network.
* :class:`NetGame` — a real peer (``p2p.node.Node``) whose local input is the human
  (``PeerConfig.local_input``) and whose events feed the UI (``PeerConfig.observer``).

Both take the human's decisions from a :class:`HumanSeat` (``ui/human_seat.py``), which
answers each decision step: an action queued by the UI, or — when the game waits for our seat
— waits for one; with *autoplay* on, the bot decides for the player. Rent is claimed
automatically.

The lobby side (the backends that list, create, join and watch games, and the remembered
settings) is ``ui/backends.py``.

Notifications: every driver calls ``listener(kind)`` with ``kind`` one of "lobby" (players in
the lobby changed), "step" (state changed; ``driver.new_events`` holds the engine events of
the steps since the last call), "fault" (``driver.fault`` set), "over" (game over). The UI
re-reads the driver's attributes; it never gets state any other way.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

import engine
from p2p.seat_answer import SeatAnswer
from ui.human_seat import HumanSeat, inspect_wanted  # noqa: F401  (inspect_wanted: re-exported)

#: Seconds a local game pauses between steps when a person watches (0 in tests).
LOCAL_STEP_DELAY_S = 0.05
#: Seconds a bot seat of ``lanopoli play`` thinks before a decision the game waits for: its
#: turns go by slowly enough to follow (a bot decides in microseconds).
BOT_PACE_S = 0.6
#: Seconds a step must wait before the UI names the peers it waits for.
WAIT_NOTICE_S = 2.0


@dataclass(frozen=True)
class Fault:
    """Why the game stopped before its end. ``code``: NodeError code ("desync",
    "equivocation", "cheat", "stalled", "lobby", "not_found", "timeout", "beacon",
    "local_input", "error"); ``message``: English detail; ``seat``: the seat blamed (or None);
    ``step``: lockstep step (or None); ``evidence``: file holding the signed evidence (or
    None)."""

    code: str
    message: str
    seat: int | None = None
    step: int | None = None
    evidence: Path | None = None


@dataclass(frozen=True)
class OwnInput:
    """A UI-only event, queued among the engine events: the action ``action`` our seat
    ``seat`` handed to the game for a decision step (a bid), just before that step's events.
    The engine tells every bid of a step itself (BidOffered for those that did not become the
    high bid, then BidPlaced or AuctionTied: engine.events), so the narrator shows nothing for
    it (ui/narrate.py); it stays for listeners that want our own inputs apart."""

    seat: int
    action: Any


@dataclass(frozen=True)
class SeatChanged:
    """A UI-only event, queued among the engine events: who plays seat ``seat`` changed at
    lockstep step ``step``. ``change``: "silent" (we voted to drop it: nothing heard for the
    drop timeout, protocol.md §C8), "bot" (the seats agreed: a bot plays it from now on),
    "bankrupt" (the seats agreed: it goes bankrupt), "lost" (our own seat: the others dropped
    it, we follow the game as a spectator), "back" (a seat we voted on as silent sends again,
    or our own seat after ``lanopoli play`` rejoined it from the log), "skipped" (a majority let
    its turn at that step pass, protocol.md §C8.10; it keeps its seat); "back" also when a
    dropped seat's player takes it back from the bot (``SeatReturned``, protocol.md §C8.9). From
    ``p2p.lockstep`` SeatDropVoted, SeatDropped, SeatLost, SeatReturned, StepApplied and the
    node's restart."""

    seat: int
    step: int
    change: str


@dataclass(frozen=True)
class MyGame:
    """An unfinished game of ours that ``lanopoli play`` can rejoin (its log and ``.resume``
    file are in the log directory, protocol.md §N5): ``game_id`` (16 bytes), ``edition``,
    ``names`` (seat order), ``seat`` (ours), ``log_path``."""

    game_id: bytes
    edition: str
    names: tuple
    seat: int
    log_path: Path


class GameDriver(Protocol):
    """What the UI needs from a game (module docstring). Attributes are read-only for the UI.

    ``phase``: "lobby" | "playing" | "over" | "failed"; ``state``: engine State or None before
    the game; ``seat``: our seat (-1 before it is known); ``names``: player names in seat order;
    ``seats_total``; ``seat_changes``: {seat: "bot" | "bankrupt" | "lost"} for seats no
    longer played by their person; ``lobby_names``: names of the players in the lobby so far; ``join_code``:
    "address:port/gameid" others can type to join by hand (host only, else ""); ``can_fill``:
    True if ``fill_with_bots`` may be called; ``human``: the HumanSeat; ``new_events``: engine
    events not yet shown; ``fault``; ``log_path``: our game log (None: not kept).
    """

    phase: str
    state: Any
    seat: int
    names: tuple
    seats_total: int
    seat_changes: dict
    lobby_names: tuple
    join_code: str
    can_fill: bool
    human: HumanSeat
    fault: Fault | None
    log_path: Path | None
    listener: Callable[[str], None] | None

    def private_view(self) -> dict:
        """What our seat may know privately (niente-e-come-sembra: {("bill", id) | ("card",
        index): fake}, protocol.md §C12.7); {} in an edition without hidden information."""
        ...

    async def run(self) -> None:
        """Play the game until it ends (``phase`` "over") or fails (``phase`` "failed",
        ``fault`` set: a network driver reports a peer failure there, it does not raise),
        notifying the listener as it goes."""
        ...

    def take_events(self) -> list:
        """The engine events (and seat-change / own-input records) since the last call, in
        order; the UI shows them once (drains ``new_events``)."""
        ...

    def waiting(self) -> tuple[tuple[int, ...], float] | None:
        """(the other seats the current step waits for, seconds it has waited) once it has
        waited ``WAIT_NOTICE_S``, else None (never in a local game)."""
        ...

    def turn_left(self) -> float | None:
        """Seconds left of our turn time while the game waits for our decision (protocol.md
        §C8.3), else None (no turn time, not our decision, local game)."""
        ...

    def vote_out(self) -> tuple[int, ...]:
        """Vote now to drop the other seats the step waits for (protocol.md §C13.6); the seats
        voted on ((): nothing to vote on)."""
        ...

    def skip_turn(self) -> tuple[int, ...]:
        """Vote now to let the turn of the other seats the step waits for pass (protocol.md
        §C8.10); the seats voted on."""
        ...

    def skip_tallies(self) -> list:
        """The votes held to skip a seat's turn at the current step (``p2p.turn_skip.Tally``)."""
        ...

    async def fill_with_bots(self) -> None:
        """Host in the lobby: seat a bot in every free seat (only while ``can_fill``)."""
        ...

    async def close(self) -> None:
        """Release what the driver started (bot peers, tasks); idempotent."""
        ...


class _DriverBase:
    """Shared attributes and notification plumbing of the drivers."""

    def __init__(self, human: HumanSeat | None) -> None:
        self.human = human or HumanSeat()
        self.phase = "lobby"
        self.state: Any = None
        self.seat = -1
        self.names: tuple = ()
        self.seats_total = 0
        self.lobby_names: tuple = ()
        self.join_code = ""
        self.can_fill = False
        self.fault: Fault | None = None
        self.log_path: Path | None = None
        self.listener: Callable[[str], None] | None = None
        self._new_events: list = []
        #: Seats no longer played by their person: seat -> "bot" | "bankrupt" | "lost"
        #: (SeatChanged.change); the players panel marks them.
        self.seat_changes: dict[int, str] = {}
        #: Chat lines shown so far (``p2p.chat.ChatLine``), the newest last (the waiting room
        #: lists them; the game's log gets them among the events).
        self.chat_lines: deque = deque(maxlen=100)
        self.human.view = self.private_view
        self.human.on_input = self._own_input

    def seat_returned(self, seat: int, step: int) -> None:
        """``seat``'s player plays it again from lockstep ``step`` (``p2p.lockstep.SeatReturned``:
        the seats carried its request, protocol.md §C8.9): its mark ("bot plays") goes from the
        players panel and a "back" line goes to everybody's log ("Bruno is back at the table";
        for our own seat "You are back at the table")."""
        self.seat_changes.pop(seat, None)
        self._new_events.append(SeatChanged(seat, step, "back"))
        self._notify("step")

    def _own_input(self, action: Any) -> None:
        # Only bids are queued (OwnInput's docstring); every input shows in the engine's events.
        if type(action).__name__ == "Bid":
            self._new_events.append(OwnInput(self.seat, action))

    def private_view(self) -> dict:
        """What our player knows privately: ``{("bill", id) | ("card", index): fake}`` for the
        items our seat holds or held (protocol.md §C12.7); {} when nothing is hidden."""
        return {}

    def _notify(self, kind: str) -> None:
        if self.listener is not None:
            self.listener(kind)

    def take_events(self) -> list:
        """The engine events since the last call (the UI narrates them once)."""
        out, self._new_events = self._new_events, []
        return out

    def submit(self, action: Any) -> None:
        """Queue the human's action (see HumanSeat.submit)."""
        self.human.submit(action)

    def turn_left(self) -> float | None:
        """Seconds left before the others vote our seat out if we do not decide (the turn
        time, protocol.md §C8.3), or None when no such limit runs (local games: none)."""
        return None

    def vote_out(self) -> tuple[int, ...]:
        """j: vote to drop the other seats the game waits for (protocol.md §C13.6); returns the
        seats voted on. Local games never wait for anyone."""
        return ()

    def skip_turn(self) -> tuple[int, ...]:
        """J: vote to let the turn of the other seats the game waits for pass at this step
        (protocol.md §C8.10); returns the seats voted on. Local games never wait for anyone."""
        return ()

    def skip_tallies(self) -> list:
        """Votes held to skip a seat's turn at this step (``p2p.turn_skip.Tally``: seat, votes,
        quorum, ours), for the bottom line; none in a local game."""
        return []

    def say(self, text: str) -> None:
        """Send a chat line (protocol.md §N9); it shows in our log like the others' lines.
        Raises ValueError (empty or too long) or ``p2p.chat.ChatLimited`` (too fast). A local
        game has nobody to send to: the line only shows."""
        from p2p.chat import PLAYER, ChatLine, clean_text

        text = clean_text(text)
        if not text:
            raise ValueError("empty chat line")
        name = self.names[self.seat] if 0 <= self.seat < len(self.names) else ""
        self._chat(ChatLine(b"", name, PLAYER, text[:200], 0, b""))

    def _chat(self, line: Any) -> None:
        self._new_events.append(line)
        self.chat_lines.append(line)
        self._notify("chat")


#: The shared base of the drivers, for drivers defined elsewhere (ui/watch.py).
DriverBase = _DriverBase


def pinned_chance(seed: int) -> Callable[[Any, int], tuple]:
    """Chance steps from pinned beacons: step k uses ``engine.bots.play.beacon(seed, k)``."""
    from engine.bots.play import beacon

    return lambda state, k: engine.apply_chance(state, beacon(seed, k))


class LocalGame(_DriverBase):
    """An in-process game: seat ``human_seat`` is the human, the others are ``bot`` bots.

    ``names``: one per seat; ``state``: the initial state (default ``engine.new_game(edition,
    len(names))``); ``chance(state, k) -> (state, events)`` answers the k-th chance step
    (default: pinned beacons of ``seed``); ``delay``: seconds between steps. Raises ValueError
    for a bad seat or seat count.

    niente-e-come-sembra: ``statuses`` pins fake/genuine statuses (``{("bill", id) |
    ("card", index): fake}``), the others derive from ``seed`` (``ui.hidden.LocalSecrets``);
    an "inspection" step is answered with them through ``apply_reveal`` (as the network does
    with the opened shares), and every seat — bots and us — knows the items it holds or held.
    """

    def __init__(self, names: tuple[str, ...] | list[str], human_seat: int = 0, *, seed: int = 1,
                 bot: str = "default", edition: str = "classico", state: Any = None,
                 chance: Callable[[Any, int], tuple] | None = None, delay: float = LOCAL_STEP_DELAY_S,
                 human: HumanSeat | None = None, statuses: dict | None = None) -> None:
        from ui.hidden import LocalSecrets

        super().__init__(human)
        if not 0 <= human_seat < len(names):
            raise ValueError("human_seat out of range")
        self.names = tuple(names)
        self.seats_total = len(names)
        self.lobby_names = self.names
        self.seat = human_seat
        self.bot = bot
        self.state = state if state is not None else engine.new_game(edition, len(names))
        self.chance = chance or pinned_chance(seed)
        self.delay = delay
        self.steps = 0
        self._step_t = 0.0
        self.secrets = LocalSecrets(seed, statuses)
        self.secrets.observe(self.state)

    def private_view(self) -> dict:
        """Our seat's view (``ui.hidden.LocalSecrets.view``)."""
        return self.secrets.view(self.state, self.seat)

    async def run(self) -> None:
        """Play until the game is over (or cancelled)."""
        loop = asyncio.get_running_loop()
        self.phase = "playing"
        self._notify("lobby")
        self._notify("step")
        k = 0
        while not engine.is_terminal(self.state):
            self._step_t = loop.time()
            p = engine.pending(self.state)
            if p.kind == "inspection":
                self.state, events = engine.apply_reveal(self.state, self.secrets.outcomes(self.state))
            elif p.chance:
                self.state, events = self.chance(self.state, k)
                k += 1
            else:
                inputs = []
                for seat in range(self.state.n):
                    if seat == self.seat:
                        a = self.human.decide(self.state, seat)
                        if asyncio.iscoroutine(a):
                            self._notify("step")
                            a = await a
                        inputs.append(a)
                    else:
                        inputs.append(self._bot(seat))
                self.state, events = engine.apply_step(self.state, inputs)
            self.secrets.observe(self.state)
            self.steps += 1
            self._new_events.extend(events)
            self._notify("step")
            await asyncio.sleep(0 if self.human.autoplay else self.delay)
        self.phase = "over"
        self._notify("over")

    def _bot(self, seat: int) -> Any:
        # The node's policy for a bot seat (p2p.seat_answer): the edition's bot with that
        # seat's private view (engine.bots.choose in classico).
        return SeatAnswer(self.bot).bot(self.state, seat, lambda: self.secrets.view(self.state, seat))

    def waiting(self) -> tuple[tuple[int, ...], float] | None:
        """Local bots never keep anyone waiting."""
        return None

    async def fill_with_bots(self) -> None:
        """Every other seat is already a bot."""

    async def close(self) -> None:
        """Nothing to release."""


class NetGame(_DriverBase):
    """A real peer of the game (``p2p.node.Node``) with the human at our seat.

    ``cfg``: keyword arguments for ``p2p.node.PeerConfig`` (role, bind, game_id, seats,
    log_dir, identity, name, host_addr...); ``local_input``/``observer`` are set here.
    The bot peers ``fill_with_bots`` starts get fresh keys each time (``bot_names``).
    """

    def __init__(self, cfg: dict, human: HumanSeat | None = None, bot_pace: float = 0.0) -> None:
        super().__init__(human)
        self.cfg = dict(cfg)
        self.bot_pace = bot_pace
        self.seats_total = int(self.cfg.get("seats", 0)) if self.cfg.get("role") == "host" else 0
        self.lobby_names = (self.cfg.get("name", ""),)
        self.node: Any = None
        self.can_fill = self.cfg.get("role") == "host"
        self._bot_tasks: list[asyncio.Task] = []
        self._step_t = 0.0
        self.edition = self.cfg.get("edition", "classico")

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
            if node.link is not None and self.cfg.get("role") == "host" and node.lobby is not None:
                from p2p.discovery import format_code, join_code_tag

                addr, port = node.link.address[:2]
                self.join_code = format_code(addr, port, join_code_tag(node.lobby.game_id, node.identity.public_key))
            self._notify("lobby")
            self._step_t = loop.time()
            await node.wait()
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
        return tuple(s for s in self.node.waiting_for if s != self.seat and self.node.vote_out(s))

    def skip_turn(self) -> tuple[int, ...]:
        """J: vote now to let the turn of every other seat this step waits for pass
        (``Node.skip_turn``, protocol.md §C8.10); once a majority voted, a "skipped" line shows.
        Returns the seats voted on."""
        if self.node is None or self.phase != "playing":
            return ()
        return tuple(s for s in self.node.waiting_for if s != self.seat and self.node.skip_turn(s))

    def skip_tallies(self) -> list:
        """The votes held to skip a seat's turn at the current step (``LockstepSession.skip_tallies``)."""
        session = None if self.node is None or self.phase != "playing" else self.node.session
        return [] if session is None else session.skip_tallies()

    def say(self, text: str) -> None:
        """Send a chat line to the others through the node (``Node.say``, protocol.md §N9)."""
        if self.node is None:
            raise ValueError("no game to chat in yet")
        self._chat(self.node.say(text))

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

    def private_view(self) -> dict:
        """Our seat's view from the lockstep session (``LockstepSession.private_view``)."""
        session = getattr(self.node, "session", None)
        return session.private_view() if session is not None else {}

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
        for ident, name in zip(identities, names):
            bot = NetGame(dict(role="join", bind=self.cfg.get("bind", "127.0.0.1"),
                               interface=self.cfg.get("interface"), game_id=self.node.lobby.game_id,
                               host_addr=(str(addr[0]), int(addr[1])), name=name, identity=ident,
                               host_keys=(self.node.identity.public_key, self.node.identity.x25519_public_key),
                               log_dir=None, linger=0.2), HumanSeat(pace=self.bot_pace))
            bot.human.set_autoplay(True)
            task = asyncio.ensure_future(bot.run())
            task.add_done_callback(_swallow)
            self._bot_tasks.append(task)

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


def _swallow(task: asyncio.Task) -> None:
    """A bot peer's failure shows up in our own node (it stops waiting for it); mark the
    exception retrieved so asyncio does not log it twice."""
    if not task.cancelled():
        task.exception()


__all__ = ["HumanSeat", "OwnInput", "SeatChanged", "MyGame", "GameDriver", "LocalGame", "NetGame", "Fault",
           "DriverBase", "pinned_chance", "inspect_wanted", "bot_names"]
