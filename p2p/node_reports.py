"""What a running peer reports to ``PeerConfig.progress``: typed records, no format.

The node (p2p/node.py, p2p/node_restart.py) hands each report to the ``progress`` callback as
it happens; ``ui/progress.py`` (``progress_json``) turns it into one line of protocol.md part L
("Child progress lines"), so the line format lives in ui and p2p never imports ui. A report is

* one of the records below (``Hosting`` ... ``WatchAdFailed``), field names as in the line;
* a session event the node passes on unchanged (``SeatDropVoted``, ``SeatDropped``,
  ``SeatReturned``, ``TurnSkipped``, ``CaughtUp``, ``CheaterProven``, ``SeatLost``,
  ``StepOverturned``: p2p/session_events.py);
* the ``PeerResult`` at the end (the ``done`` line) or the ``NodeError`` a caller caught
  (the ``error`` line; p2p/node_config.py).

Times are seconds as measured (floats); ``ui/progress.py`` rounds them for the line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .table_code import table_code

if TYPE_CHECKING:  # annotations only: no engine import at run time
    from engine.api import Engine

__all__ = ["Found", "Hosting", "Progress", "RendezvousFailed", "ReseatAsked", "Resumed", "SameKeyJoined",
           "SeatAdvertIgnored", "SeatFound", "Waiting", "WatchAdFailed", "progress_of"]


@dataclass(frozen=True)
class Hosting:
    """The host advertises its lobby (``game_id``: 32 bytes; where its game socket listens)."""

    game_id: bytes
    address: str
    port: int


@dataclass(frozen=True)
class Found:
    """The game started: ``peers`` seats; ``elapsed``: s since the node started; ``table_code``:
    the code every seat of this game shows, to compare out loud (``p2p.table_code``, §C2.4)."""

    peers: int
    elapsed: float
    table_code: str = ""

    @classmethod
    def started(cls, session: Any, elapsed: float) -> Found:
        """The report of a game that started: ``session`` (``LockstepSession``: its seats, setup
        hash and game seed), ``elapsed`` s after the node started."""
        return cls(session.n, elapsed, table_code(session.setup_hash, session.game_seed))


@dataclass(frozen=True)
class Progress:
    """Where the game is (at most every ``node.PROGRESS_INTERVAL`` s). ``turn``/``current``:
    the engine state's, or None; ``leader``: ``engine.standings``' first seat and ``cash``: the
    state's cash per seat (euro), each None when the engine has none (the line then omits the
    key); ``waiting_for``: seats whose message for ``step`` we lack."""

    step: int
    turn: int | None
    current: int | None
    leader: int | None
    cash: tuple[int, ...] | None
    waiting_for: tuple[int, ...]


@dataclass(frozen=True)
class Waiting:
    """The current ``step`` has waited ``waited`` s for ``seats`` (their ``names``).
    ``deadline``: s until they may be voted out (None: no seat loss); ``paused``: no majority
    can drop them (protocol.md §C8.3); ``abandon``: when paused, s until the node ends the game
    as abandoned (else None)."""

    step: int
    seats: tuple[int, ...]
    names: tuple[str, ...]
    waited: float
    deadline: float | None
    paused: bool
    abandon: float | None


@dataclass(frozen=True)
class Resumed:
    """The node rejoined its game from the ``log`` (protocol.md §C10): ``step`` replayed,
    ``own_resent`` of our own messages kept to re-send; ``damage``: the log's first damaged
    record (``resume.LogDamage``: ``step``, ``offset``, ``reason``) or None."""

    log: str
    step: int
    own_resent: int
    damage: Any
    table_code: str = ""
    """The game's table code (``p2p.table_code``, §C2.4), shown again after a restart."""


@dataclass(frozen=True)
class RendezvousFailed:
    """Our seat's DNS-SD advert could not start (``reason``); the known endpoints only (§N3.2)."""

    reason: str


@dataclass(frozen=True)
class SeatAdvertIgnored:
    """An advert moved ``seat`` to ``address``:``port`` while it is heard where it was (§N3.2)."""

    seat: int
    address: str
    port: int


@dataclass(frozen=True)
class SeatFound:
    """``seat`` now listens at ``address``:``port``: we send there (§N3.2)."""

    seat: int
    address: str
    port: int


@dataclass(frozen=True)
class ReseatAsked:
    """We asked at ``step`` to play our seat again, dropped at ``dropped_at`` (§C8.9)."""

    step: int
    dropped_at: int


@dataclass(frozen=True)
class WatchAdFailed:
    """Our seat's ``_lanopoli-watch._udp`` advert could not start (``reason``): spectators find
    the watch socket through the host's TXT ``wp`` only (protocol.md §N10; ``WatchService``)."""

    reason: str


@dataclass(frozen=True)
class SameKeyJoined:
    """Host: a player at ``address``:``port`` tried to join with our own player key (a JOIN or
    PROBE signed with it, ``lobby_events.SameKeyJoin``): two players on one key directory. Once
    per address, at most ``node_lobby.SAME_KEY_REPORTS`` addresses per lobby."""

    address: str
    port: int


def progress_of(engine: Engine, session: Any) -> Progress:
    """The ``Progress`` report of ``session`` (a ``LockstepSession``) now; ``engine``: the
    node's engine module (its ``standings``, if it has one, names the leader)."""
    state = session.state
    standings = getattr(engine, "standings", None)
    cash = getattr(state, "cash", None)
    return Progress(session.step, getattr(state, "turn", None), getattr(state, "current", None),
                    None if standings is None else standings(state)[0][0],
                    None if cash is None else tuple(cash), tuple(session.waiting_for()))
