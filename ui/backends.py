"""Lobby backends and remembered settings of ``lanopoli play`` (moved out of ui/play.py).

A *lobby backend* lists the advertised games and creates, joins or watches one — the game
drivers of ui/play.py (``NetGame``, ``LocalGame``) or ui/watch.py (``WatchDriver``):

* :class:`NetLobby` — mDNS on the chosen address (``p2p.discovery``), our unfinished games in
  the log directory (``mine``/``rejoin``), join by code (:func:`parse_join_code`, protocol.md
  §N3.1), watch a running game;
* :class:`LocalLobby` — fixed ads and local games, for tests and snapshots.

:class:`CreateRequest` is what the player asks to create; :class:`Settings` what the UI
remembers between runs (a JSON file in the platformdirs config dir).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, NamedTuple

import engine
from ui.play import BOT_PACE_S, LocalGame, MyGame, NetGame

@dataclass(frozen=True)
class CreateRequest:
    """A game the player asks to create: ``edition``, ``seats`` (2..8), ``bots``: fill the
    empty seats with bots when the player presses Start.

    The lobby options, as ``lanopoli host`` sends them (``ui.peer.game_options``): ``options``
    holds the engine's house rules turned on (``free_parking_pot``, ``no_auctions``,
    ``double_go_salary``: True) and the timed game (``timed_minutes``, plus ``p2p.timed_ms``
    for a fraction of a minute: ``p2p.timed_clock.timed_options``); ``on_drop``: the rule for a
    player silent for ``drop_timeout`` seconds, "bot" (default), "bankrupt" or "off" (the game
    waits; protocol.md §C7.1). Both are part of the signed setup.
    """

    edition: str = "classico"
    seats: int = 4
    bots: bool = True
    options: dict = field(default_factory=dict)
    on_drop: str = "bot"
    drop_timeout: int = 30

    def peer_options(self) -> dict:
        """The ``PeerConfig`` keywords of the lobby options: ``options`` (None when empty, so a
        default game's setup is unchanged), ``on_drop`` (None for "off") and ``drop_timeout``."""
        return dict(options=dict(self.options) or None,
                    on_drop=None if self.on_drop == "off" else self.on_drop,
                    drop_timeout=int(self.drop_timeout))

    def engine_options(self) -> dict:
        """The options the engine reads (``engine.new_game``): ``options`` without ``p2p.*``."""
        return {k: v for k, v in self.options.items() if not k.startswith("p2p.")}


class JoinCode(NamedTuple):
    """A parsed join code: where the host listens and either the ``game_id`` (16 bytes, the
    long form) or the 50-bit ``tag`` of the short form (protocol.md §N3.1); the other is None."""

    address: str
    port: int
    game_id: bytes | None
    tag: int | None


def parse_join_code(code: str) -> JoinCode:
    """"ADDRESS:PORT/XXXXX-XXXXX" (the short code the host's waiting room shows: Crockford
    base32 of the tag binding the game id and the host's key, protocol.md §N3.1) or
    "ADDRESS:PORT/GAMEID" (32 hex digits; no check of the host's key) -> JoinCode.
    Raises ValueError with an English reason for anything else, a multicast, unspecified or
    broadcast (255.255.255.255) ADDRESS included."""
    import ipaddress

    from p2p.join_code import parse_code_tag

    try:
        where, rest = code.strip().split("/", 1)
        addr, port_s = where.rsplit(":", 1)
        ip = ipaddress.ip_address(addr)
        port = int(port_s)
    except ValueError:
        raise ValueError("expected ADDRESS:PORT/CODE, e.g. 192.168.1.20:40000/7KQ2M-XH3PA") from None
    if ip.is_multicast or ip.is_unspecified or addr == "255.255.255.255":
        # A published code naming a group would make every joiner probe it until JOIN_TIMEOUT.
        raise ValueError("the address must be the host's own, not a multicast or broadcast one")
    if not 0 < port < 65536:
        raise ValueError("bad port")
    rest = rest.strip()
    if len(rest) == 32:
        try:
            return JoinCode(addr, port, bytes.fromhex(rest), None)
        except ValueError:
            pass
    try:
        return JoinCode(addr, port, None, parse_code_tag(rest))
    except ValueError:
        raise ValueError("the code after the slash has 10 letters and digits (or a 32-digit game id)") from None


def contested(backend: Any, ad: Any) -> bool:
    """True if the lobby ``backend`` says ``ad`` is contested (its ``contested(ad)``; a backend
    without one: False). Source: protocol.md §N3 "Contested game ids"."""
    check = getattr(backend, "contested", None)
    return bool(check(ad)) if check is not None else False


def contest_cells(backend: Any, ad: Any, host: str) -> tuple[str, str, int]:
    """The Host and Where cells of a games-list row for the advert ``ad`` and the row's height, the
    one place both lists (ui/screens/lobby.py, ui/screens/watch.py) mark a contest: ``host`` (the
    escaped host cell) and ``"address:port"`` on one line; when ``backend`` says ``ad`` is contested,
    ``"⚠ " + host`` and under the address ``"⚠ <fp>"`` (all 16 digits: the key to choose by), two
    lines. The fingerprint goes under the address, not after the name, so the Where column keeps its
    width and the address stays on an 80-column screen (RV13-C #8). Source: protocol.md §N3
    "Contested game ids"."""
    where = f"{ad.address}:{ad.port}"
    if not contested(backend, ad):
        return host, where, 1
    return "⚠ " + host, f"{where}\n⚠ {ad.fingerprint[:16]}", 2  # an old advert's fp may be longer (RV14-D)


def joined_host_key(driver: Any) -> bytes | None:
    """Joiner: the Ed25519 key of the host whose advert the game ``driver`` (``ui.net_game.NetGame``)
    joined: the advert's ``pk`` it was given (``cfg["host_keys"]``, a join from the list), else the key
    its lobby checks the host's STATUS against (a join by code, protocol.md §N3.1); None if neither is
    known (an advert without ``pk``, or nothing heard yet)."""
    key = getattr(driver, "host_key", None)  # ``NetGame.host_key``; other drivers join no host
    return key if isinstance(key, bytes) else None


def row_identity(row: Any) -> tuple:
    """Which listing a games-list ``row`` shows, across refreshes: one of our unfinished games
    (``MyGame``) by its game id, an advert (``GameAd``) by its instance name and key (``pk``, else
    ``fp``): two adverts of one game id or name under two keys are two listings (protocol.md §N3
    "Contested game ids"), so the cursor follows the listing, never the row number (RV13-C #1)."""
    if not hasattr(row, "state"):
        return ("mine", row.game_id)
    return ("ad", row.instance_name, row.public_key or row.fingerprint, row.game_id)


def cursor_row(rows: list, chosen: Any, row: int) -> int:
    """The row of ``rows`` to put the cursor on after a refresh: the listing ``chosen`` (``row_identity``,
    or None) if it is still listed, else ``row`` clamped to the list (0 for an empty one)."""
    if chosen is not None:
        for i, r in enumerate(rows):
            if row_identity(r) == chosen:
                return i
    return max(0, min(row, len(rows) - 1))


class NetLobby:
    """Lobby backend on a real network: browse ``_lanopoli._udp`` on ``address`` (zeroconf
    restricted to it), create/join games as ``NetGame``s. ``log_dir``: where game logs go;
    ``identity``: our keys (``p2p.identity.Identity``; None: fresh keys); ``bot_pace``: seconds
    the bots of a created game think before each decision (0 in tests)."""

    def __init__(self, address: str, log_dir: Path | None = None, identity: Any = None,
                 bot_pace: float = BOT_PACE_S) -> None:
        self.address = address
        self.bot_pace = bot_pace
        self.log_dir = log_dir
        self.identity = identity
        self.listener: Callable[[], None] | None = None
        self._disco: Any = None

    async def start(self) -> None:
        """Start browsing; ``listener()`` is called whenever the list changes."""
        from p2p.discovery import Discovery

        self._disco = Discovery([self.address])
        await self._disco.start()
        self._disco.on_change = lambda name, ad: self.listener() if self.listener else None
        self._disco.browse()

    def games(self) -> list:
        """The advertised games (``p2p.ad_record.GameAd``), open lobbies first, by game id."""
        if self._disco is None:
            return []
        return sorted(self._disco.games.values(), key=lambda ad: (ad.state != "lobby", ad.game_id))

    def contested(self, ad: Any) -> bool:
        """True if ``ad``'s game id or instance name is claimed by two keys (``Discovery.contested``,
        protocol.md §N3 "Contested game ids"): the list marks it, with its fingerprint."""
        return self._disco is not None and self._disco.contested(ad)

    def _cfg(self, name: str, **kw: Any) -> dict:
        # A new game never picks up an old one's ``.resume`` file: only ``rejoin`` resumes.
        kw.setdefault("resume", False)
        return dict(bind=self.address, interface=self.address, identity=self.identity, name=name,
                    log_dir=self.log_dir, linger=1.0, **kw)

    def mine(self) -> list[MyGame]:
        """Our unfinished games in the log directory (``p2p.resume.list_resumable``), the most
        recent first; [] without a log directory or keys."""
        if self.log_dir is None or self.identity is None:
            return []
        from p2p.resume import list_resumable

        out = []
        for path, setup in list_resumable(self.log_dir, self.identity):
            seat = next(i for i, p in enumerate(setup.players) if p.public_key == self.identity.public_key)
            out.append(MyGame(setup.game_id, setup.edition, tuple(p.name for p in setup.players), seat, path))
        return out

    def rejoin(self, name: str, game: MyGame) -> NetGame:
        """A NetGame resuming ``game`` from its log: same seat, from the address we have now
        (the old port if free, else any: the seats find each other again by their keys on
        DNS-SD, protocol.md §N3.2), catch-up from the other seats (protocol.md §N5, §C10). The
        bots we seated in it, if we hosted it, are resumed with it at our bot pace
        (``NetGame._resume_bots``)."""
        return NetGame(self._cfg(name, role="join", game_id=game.game_id, resume=True), bot_pace=self.bot_pace)

    def create(self, name: str, req: CreateRequest) -> NetGame:
        """A NetGame hosting ``req`` (run it to open the lobby)."""
        return NetGame(self._cfg(name, role="host", edition=req.edition, seats=req.seats, **req.peer_options()),
                       bot_pace=self.bot_pace)

    def join(self, name: str, ad: Any) -> NetGame:
        """A NetGame joining the advertised game ``ad``."""
        keys = None if ad.public_key is None else (ad.public_key, ad.x25519_key)  # protocol.md §N3
        return NetGame(self._cfg(name, role="join", game_id=ad.game_id, host_addr=(ad.address, ad.port),
                                 host_keys=keys))

    def watch(self, name: str, ad: Any) -> Any:
        """A ``ui.watch.WatchDriver`` following the advertised game ``ad`` (protocol.md §N10)."""
        from ui.watch import WatchDriver

        return WatchDriver(ad, self.address, name=name)

    def join_code(self, name: str, code: str) -> NetGame:
        """A NetGame joining by hand (``parse_join_code``; ValueError if malformed): the short
        code's tag checks the host's signed STATUS (protocol.md §N3.1)."""
        jc = parse_join_code(code)
        return NetGame(self._cfg(name, role="join", game_id=jc.game_id, host_code=jc.tag,
                                 host_addr=(jc.address, jc.port)))

    async def rescan(self) -> None:
        """Browse afresh on a new zeroconf instance (the app calls it after we left a waiting
        room). The old instance listed the game we left as it was while we sat in it ("2/4
        Marco, Anna") although the host's advert said 1/4 again (H130's walk): python-zeroconf
        dropped the host's 1/4 announcement as a duplicate of one seen < 1 s before and kept
        the older TXT in its cache; ``p2p.discovery`` now handles both (H137), this only starts
        the list clean."""
        await self.close()
        await self.start()

    async def close(self) -> None:
        """Stop browsing and close zeroconf."""
        if self._disco is not None:
            d, self._disco = self._disco, None
            await d.close()


class LocalLobby:
    """Lobby backend without a network, for tests and snapshots: ``ads`` are shown as the
    advertised games; creating or joining starts a ``LocalGame`` against bots with pinned
    beacons (``seed``) and step ``delay``."""

    def __init__(self, ads: list | None = None, seed: int = 1, delay: float = 0.0,
                 my_games: list | None = None) -> None:
        self.ads = list(ads or [])
        self.my_games = list(my_games or [])
        self.seed = seed
        self.delay = delay
        self.listener: Callable[[], None] | None = None

    async def start(self) -> None:
        """Nothing to start."""

    def games(self) -> list:
        """The fixed ads."""
        return list(self.ads)

    def contested(self, ad: Any) -> bool:
        """True if another fixed ad names ``ad``'s game id with another key (``pk``, else ``fp``):
        ``p2p.ad_listings.claimed_by_another``, the game-id rule of ``Discovery.contested``
        (protocol.md §N3 "Contested game ids"; no instance names or goodbyes here)."""
        from p2p.ad_listings import claimed_by_another, keys_by_game

        return claimed_by_another(keys_by_game(self.ads), ad)

    def mine(self) -> list:
        """The fixed list ``my_games`` (``MyGame``), for tests."""
        return list(self.my_games)

    def rejoin(self, name: str, game: Any) -> LocalGame:
        """A local game standing in for the rejoined one: its names, us at its seat."""
        names = list(game.names)
        names[game.seat] = name
        return LocalGame(names, game.seat, seed=self.seed, edition=game.edition, delay=self.delay)

    def create(self, name: str, req: CreateRequest) -> LocalGame:
        """A local game of ``req.seats`` seats (with ``req``'s engine options): us at seat 0,
        bots elsewhere."""
        names = [name] + [f"Bot {i}" for i in range(1, req.seats)]
        state = engine.new_game(req.edition, req.seats, req.engine_options() or None)
        return LocalGame(names, 0, seed=self.seed, edition=req.edition, state=state, delay=self.delay)

    def join(self, name: str, ad: Any) -> LocalGame:
        """Join a fixed ad: a local game with its seat count, us at the last seat."""
        names = [f"Bot {i}" for i in range(1, ad.seats_total)] + [name]
        return LocalGame(names, ad.seats_total - 1, seed=self.seed, edition=ad.edition, delay=self.delay)

    def join_code(self, name: str, code: str) -> LocalGame:
        """Validate the code like NetLobby, then a 2-seat local game."""
        parse_join_code(code)
        return LocalGame(["Bot 1", name], 1, seed=self.seed, delay=self.delay)

    async def rescan(self) -> None:
        """Nothing to browse."""

    async def close(self) -> None:
        """Nothing to close."""


# --- remembered settings ----------------------------------------------------------------


@dataclass
class Settings:
    """What the UI remembers between runs: ``name`` (the player's name), ``bills`` (how our
    bills are chosen when we pay, ui.hidden.BILL_POLICIES). Stored as JSON in
    ``<config dir>/play.json`` (platformdirs user config dir of "lanopoli" by default)."""

    name: str = ""
    #: How our bills are chosen when we pay in niente-e-come-sembra (HumanSeat.bills).
    bills: str = "keep"
    path: Path | None = field(default=None, repr=False)

    @classmethod
    def load(cls, config_dir: str | os.PathLike[str] | None = None) -> "Settings":
        """Read the settings; a missing or unreadable file gives the defaults."""
        if config_dir is None:
            import platformdirs

            config_dir = platformdirs.user_config_dir("lanopoli")
        path = Path(config_dir) / "play.json"
        try:
            raw = json.loads(path.read_text("utf-8"))
            raw = raw if isinstance(raw, dict) else {}
        except (OSError, ValueError):
            raw = {}
        name, bills = raw.get("name", ""), raw.get("bills", "keep")
        from ui.hidden import BILL_POLICIES

        return cls(name=name if isinstance(name, str) else "",
                   bills=bills if bills in BILL_POLICIES else "keep", path=path)

    def save(self) -> None:
        """Write the settings (creating the directory); errors are ignored: forgetting a
        name is not worth stopping the game for."""
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps({"name": self.name, "bills": self.bills}), "utf-8")
        except OSError:
            pass


__all__ = ["NetLobby", "LocalLobby", "CreateRequest", "Settings", "JoinCode", "parse_join_code"]
