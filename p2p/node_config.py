"""What a peer is given and what it gives back: ``PeerConfig``, ``PeerResult``, ``NodeError``.

``p2p/node.py`` (``run_peer``, ``Node``) takes a ``PeerConfig`` and returns a ``PeerResult`` or
raises ``NodeError``; ``ui/peer.py``, ``ui/play.py``, the e2e peers and the benchmarks build the
one and read the others. The ``done`` and ``error`` lines of protocol.md part L are written from
``PeerResult`` and ``NodeError`` by ``ui/progress.py``. ``p2p.node`` re-exports every name here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import const as C
from .ad_record import GameAd
from .identity import Identity

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine

__all__ = ["DISCOVERY_TIMEOUT", "LINGER", "QUIET_S", "STRAGGLER_WAIT_S", "NodeError", "PeerConfig", "PeerResult"]

LINGER = 1.0  # s to keep answering after GameOver (ends early once every channel is idle)
#: s more, after LINGER, while an active seat has not acknowledged what we sent it (our final
#: attestation: without it that seat cannot end the game) or a spectator we reached lacks
#: records (protocol.md §N4 "Draining"): a peer cut off for up to ~10 s at the end still ends
#: the game with it, and a spectator a few seconds behind still sees the end.
STRAGGLER_WAIT_S = 12.0
#: s a finished node stays once nothing is owed any more, on a link that lost a datagram
#: (``Link.saw_loss``), acknowledging at once: a seat whose
#: acknowledgement of our last message was lost re-sends it and hears our ack (else it waits
#: STRAGGLER_WAIT_S for us, gone), §N4 "Draining".
QUIET_S = 0.5
DISCOVERY_TIMEOUT = 30.0  # s a joiner looks for a game


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



@dataclass
class PeerConfig:
    """Everything one peer needs. Seats/edition/options matter for the host only.

    ``bind``: IPv4 address of the UDP socket (never 0.0.0.0 in tests/demos); ``interface``: the
    address zeroconf may use (default: ``bind``); ``port``: 0 = any free port; ``identity``:
    our keys (default: from ``demo_seed`` if given, else fresh); ``bot``: name for
    ``engine.bots.choose``; ``demo_seed``: makes secrets (and the host's game id) deterministic
    — demos and tests only; ``game_id``: the game to join (None = first open game found);
    ``log_dir``: where ``game-<gid>-seat<k>.log`` goes (None: no log); ``progress``: callback
    receiving the node's reports (``p2p.node_reports.Report``: a report record, a session
    event, the ``PeerResult``), which ``ui.progress.progress_json`` turns into the lines of
    protocol.md part L; ``engine``: the engine module (default
    ``engine``; tests may pass a stand-in); ``choose``: the bot function (default
    ``engine.bots.choose``); ``game_filter``: extra condition on the games a joiner without
    ``game_id`` may pick; ``timeout``: overall limit in s (None: none); ``host_keys``: with
    ``host_addr``, the host's (Ed25519, X25519) public keys if known (its lobby messages are then
    checked against them and the channel is keyed at once, protocol.md §N2.2, §C2.2);
    ``host_code``: with ``host_addr`` instead of ``game_id``, the 50-bit tag of a join code
    (``join_code.parse_code_tag``): the host's signed STATUS must match it (protocol.md §N3.1).

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
    progress: Callable[[Any], None] | None = None
    engine: Engine | None = None
    choose: Callable[[Any, int, str], Any] | None = None
    game_filter: Callable[[GameAd], bool] | None = None
    timeout: float | None = None
    discovery_timeout: float = DISCOVERY_TIMEOUT
    linger: float = LINGER
    straggler_s: float = STRAGGLER_WAIT_S
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
    #: The game ended as abandoned (protocol.md §C8.7): {"seat": who signed ABANDON, "step",
    #: "reason": why we signed it ("" when another seat's ABANDON ended it)}.
    abandoned: dict | None = None

    @property
    def winner_name(self) -> str | None:
        """Name of the winning seat, or None."""
        return None if self.winner is None else self.names[self.winner]
