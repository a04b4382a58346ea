"""The seam between the Textual UI (ui/app.py) and a game being played: what every driver shares.

The UI holds no game state (STYLE.md §9). It asks a *driver* for the engine state and hands it
the player's actions; the driver tells the UI when something changed. Every driver has the
interface :class:`GameDriver` and builds on :class:`DriverBase`:

* ``ui.local_game.LocalGame`` — an in-process game against ``engine.bots`` bots (tests,
  snapshots, no network);
* ``ui.net_game.NetGame`` — a real peer (``p2p.node.Node``) with the human at our seat;
* ``ui.watch.WatchDriver`` — a spectator's read-only driver.

The human's decisions come from a :class:`HumanSeat` (``ui/human_seat.py``), which answers each
decision step: an action queued by the UI, or — when the game waits for our seat — waits for
one; with *autoplay* on, the bot decides for the player. Rent is claimed automatically.

Besides the drivers' interface and base, this module holds the records a driver reports:
:class:`Fault` (why a game stopped), the UI-only events it queues among the engine's
(:class:`OwnInput`, :class:`SeatChanged`) and :class:`MyGame` (an unfinished game of ours).

Notifications: every driver calls ``listener(kind)`` with ``kind`` one of "lobby" (players in
the lobby changed), "step" (state changed; ``driver.new_events`` holds the engine events of
the steps since the last call), "fault" (``driver.fault`` set), "over" (game over), "chat" (a
chat line). The UI re-reads the driver's attributes; it never gets state any other way.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

from ui.human_seat import HumanSeat


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

    async def leave(self) -> None:
        """The player leaves the waiting room (protocol.md Part U "Screens"): a joiner tells the
        host (LEAVE, §C2.2), so that its seat is free again; then the app stops ``run``."""
        ...

    async def close(self) -> None:
        """Release what the driver started (bot peers, tasks); idempotent."""
        ...


class DriverBase:
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

    async def leave(self) -> None:
        """Nothing to tell anyone (a local game, a spectator; NetGame tells the host)."""

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

    def submit(self, action: Any, shown: Any = None) -> None:
        """Queue the human's action (see HumanSeat.submit; ``shown``: the state the player saw)."""
        self.human.submit(action, shown)

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
        # Here, not at the top: p2p.chat loads cryptography, which a local game and the app's
        # start do without (~0.2 s).
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


__all__ = ["Fault", "OwnInput", "SeatChanged", "MyGame", "GameDriver", "DriverBase", "HumanSeat"]
