"""The advertised game as a DNS-SD record (protocol.md §N3 "Discovery"): ``GameAd``, its TXT
keys, its instance and host names, and its codec to and from python-zeroconf's service record.


A peer that opens a lobby advertises one service instance of type ``_lanopoli._udp.local.``;
peers that want to join browse for that type. The SRV record carries the lobby's UDP port, the
A record its address, the TXT record the keys below (protocol.md part N, "Discovery"):

=====  ==========================================================
v      protocol version (decimal, ``p2p.const.PROTOCOL_VERSION``)
gid    game id, lowercase hex (16 bytes -> 32 characters)
ed     edition name (e.g. ``classico``)
seats  ``taken/total`` (decimal)
st     ``lobby`` (accepting joins) or ``running``
fp     fingerprint of the advertiser's signing key (lowercase hex)
pk     the advertiser's Ed25519 public key (64 lowercase hex digits; its fingerprint is ``fp``)
xk     the advertiser's X25519 public key (64 lowercase hex digits)
n      the host player's name (UTF-8, optional)
p0..   the seated players' names, in lobby order, then seat order once running (UTF-8, optional)
sd     live standings once running: ``turn:current:w0,w1,...`` (optional; see ``Standings``)
wp     the advertiser's watch port: UDP port serving spectators (optional, p2p/spectate.py)
=====  ==========================================================

Names are display hints (mDNS is not authenticated): each value is clipped to ``TXT_NAME_BYTES``
bytes of UTF-8 at a character boundary when published, and refused when longer than
``MAX_TXT_NAME_BYTES`` or not valid UTF-8 or holding control characters. The instance name is
readable in standard tools (``avahi-browse``, macOS Bonjour browsers): ``"<host name> —
<edition> (<gid8>)"`` clipped to 63 bytes, ``<gid8>`` the first 8 hex digits of the game id.

``pk`` and ``xk`` let a joiner check the host's lobby messages (signed STATUS, REJECT,
PROPOSAL) and key its transport channel to the host from its first datagram (protocol.md
§N2.2, §C2.2). Both or neither; an ad without them is still accepted (the joiner then trusts
the first signed STATUS whose key has the fingerprint ``fp``).

Nothing here talks to the network: ``discovery.Discovery`` publishes and browses these records.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from zeroconf import IPVersion
from zeroconf.asyncio import AsyncServiceInfo

from .identity import fingerprint_of

SERVICE_TYPE = "_lanopoli._udp.local."
LOBBY = "lobby"
RUNNING = "running"
_STATES = (LOBBY, RUNNING)
_HEX = re.compile(r"^[0-9a-f]{2,64}$")
_KEY_HEX = re.compile(r"^[0-9a-f]{64}$")
_EDITION = re.compile(r"^[a-z0-9_-]{1,32}$")  # edition ids such as "niente-e-come-sembra"
_SEATS = re.compile(r"^([0-9]{1,2})/([0-9]{1,2})$")
_STANDINGS = re.compile(r"^([0-9]{1,6}):([0-9]):((?:-|-?[0-9]{1,9})(?:,(?:-|-?[0-9]{1,9})){0,7})$")
#: Bytes of UTF-8 a name is clipped to in the TXT record (a display hint; the signed STATUS
#: and setup carry the whole name). 9 names of 32 bytes keep the record well under one frame.
TXT_NAME_BYTES = 32
#: Longest name value a reader accepts (32 characters of up to 4 bytes, protocol.md §C2.1).
MAX_TXT_NAME_BYTES = 128
#: A DNS label (the instance part of the service name) holds at most 63 bytes.
MAX_LABEL_BYTES = 63


def clip_utf8(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` bytes of UTF-8, never inside a character."""
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", "ignore")


def printable(text: str) -> str:
    """``text`` without control characters (C0, DEL, C1): what a name may show on a screen."""
    return "".join(ch for ch in text if ch.isprintable())


@dataclass(frozen=True)
class Standings:
    """Live standings of a running game (TXT ``sd``, protocol.md §N3): ``turn`` (engine turn
    number, 0..999999), ``current`` (seat whose turn it is, 0..7) and ``worth`` (one entry per
    seat in seat order: net worth in euro, or None for a seat that is out of the game)."""

    turn: int
    current: int
    worth: tuple

    def txt(self) -> str:
        """``turn:current:w0,w1,...`` with ``-`` for a seat that is out."""
        return f"{self.turn}:{self.current}:" + ",".join("-" if w is None else str(int(w)) for w in self.worth)

    @classmethod
    def parse(cls, value: str) -> "Standings":
        """Inverse of ``txt``; raises DiscoveryError when malformed."""
        m = _STANDINGS.match(value)
        if m is None:
            raise DiscoveryError(f"bad standings {value!r}")
        worth = tuple(None if w == "-" else int(w) for w in m.group(3).split(","))
        return cls(int(m.group(1)), int(m.group(2)), worth)


class DiscoveryError(ValueError):
    """A TXT record or an advertisement is malformed (the advertiser broke the format)."""


@dataclass(frozen=True)
class GameAd:
    """One advertised game, as published or as found on the network.

    ``game_id``: bytes (1..32, normally 16); ``fingerprint``: lowercase hex of the advertiser's
    key fingerprint; ``seats_taken``/``seats_total``: ints with 0 ≤ taken ≤ total ≤ 99;
    ``state``: "lobby" | "running"; ``address``/``port``: where its UDP endpoint listens;
    ``public_key``/``x25519_key``: the advertiser's raw Ed25519 and X25519 public keys (32
    bytes each, both or neither; ``fingerprint`` must be the fingerprint of ``public_key``);
    ``host_name``: the host player's name and ``players`` the seated players' names (display
    hints, "" / () when not advertised); ``standings``: live standings of a running game;
    ``watch_port``: the UDP port where the advertiser serves spectators (protocol.md §N10).
    """

    version: int
    game_id: bytes
    edition: str
    seats_taken: int
    seats_total: int
    state: str
    fingerprint: str
    address: str
    port: int
    public_key: bytes | None = None
    x25519_key: bytes | None = None
    host_name: str = ""
    players: tuple = ()
    standings: Standings | None = None
    watch_port: int | None = None

    def __post_init__(self) -> None:
        if self.watch_port is not None and not 0 < self.watch_port < 65536:
            raise DiscoveryError(f"bad watch port {self.watch_port}")
        if len(self.players) > self.seats_total:
            raise DiscoveryError("more player names than seats")
        for name in (self.host_name, *self.players):
            if len(name.encode("utf-8")) > MAX_TXT_NAME_BYTES or printable(name) != name:
                raise DiscoveryError("bad player name")
        if self.standings is not None and (len(self.standings.worth) != self.seats_total
                                           or self.standings.current >= self.seats_total):
            raise DiscoveryError("standings do not match the seats")
        if (self.public_key is None) != (self.x25519_key is None):
            raise DiscoveryError("pk and xk go together")
        if self.public_key is not None:
            if len(self.public_key) != 32 or len(self.x25519_key) != 32:
                raise DiscoveryError("keys must be 32 bytes")
            if fingerprint_of(self.public_key) != self.fingerprint:
                raise DiscoveryError("fp is not the fingerprint of pk")
        if not 0 < len(self.game_id) <= 32:
            raise DiscoveryError("game id must be 1..32 bytes")
        if not _EDITION.match(self.edition):
            raise DiscoveryError(f"bad edition {self.edition!r}")
        if not 0 <= self.seats_taken <= self.seats_total <= 99:
            raise DiscoveryError(f"bad seats {self.seats_taken}/{self.seats_total}")
        if self.state not in _STATES:
            raise DiscoveryError(f"bad state {self.state!r}")
        if not _HEX.match(self.fingerprint):
            raise DiscoveryError("fingerprint must be 2..64 lowercase hex digits")
        if not 0 < self.port < 65536:
            raise DiscoveryError(f"bad port {self.port}")
        ipaddress.ip_address(self.address)  # ValueError if not an IP literal

    @property
    def instance_name(self) -> str:
        """``<title>._lanopoli._udp.local.`` (``title``): readable in standard DNS-SD browsers
        and unique as far as a LAN needs (32 random bits of game id), which is what makes
        skipping the probe safe."""
        return f"{self.title}.{SERVICE_TYPE}"

    @property
    def title(self) -> str:
        """``"<host name> — <edition> (<gid8>)"`` (``lanopoli`` when the host has no name),
        the host name clipped so that the whole fits one 63-byte DNS label."""
        tail = f" — {self.edition} ({self.game_id.hex()[:8]})"
        room = MAX_LABEL_BYTES - len(tail.encode("utf-8"))
        return clip_utf8(self.host_name or "lanopoli", room).rstrip() + tail

    @property
    def label(self) -> str:
        """The DNS label of the advertiser's host name (``<label>.local.``), ASCII, ≤ 63 bytes:
        ``lanopoli-<gid[:8] hex>-<fp[:8] hex>``."""
        return f"lanopoli-{self.game_id.hex()[:16]}-{self.fingerprint[:16]}"

    @property
    def free_seats(self) -> int:
        """Seats still open (0 when full)."""
        return self.seats_total - self.seats_taken

    def txt(self) -> dict[str, str]:
        """The TXT record as a str -> str mapping (keys of the table above)."""
        return {
            "v": str(self.version),
            "gid": self.game_id.hex(),
            "ed": self.edition,
            "seats": f"{self.seats_taken}/{self.seats_total}",
            "st": self.state,
            "fp": self.fingerprint,
        } | ({} if self.public_key is None else {"pk": self.public_key.hex(), "xk": self.x25519_key.hex()}) \
          | ({"n": clip_utf8(self.host_name, TXT_NAME_BYTES)} if self.host_name else {}) \
          | {f"p{i}": clip_utf8(n, TXT_NAME_BYTES) for i, n in enumerate(self.players)} \
          | ({} if self.standings is None else {"sd": self.standings.txt()}) \
          | ({} if self.watch_port is None else {"wp": str(self.watch_port)})

    def to_info(self) -> AsyncServiceInfo:
        """The zeroconf service record for this advertisement."""
        return AsyncServiceInfo(
            SERVICE_TYPE,
            self.instance_name,
            port=self.port,
            properties=self.txt(),
            server=f"{self.label}.local.",
            parsed_addresses=[self.address],
        )

    @classmethod
    def from_info(cls, info: AsyncServiceInfo) -> GameAd:
        """Parse a resolved service record. Raises ``DiscoveryError`` on any malformed field."""
        props = {}
        for k, v in (info.properties or {}).items():
            if not isinstance(k, bytes) or not isinstance(v, bytes):
                raise DiscoveryError(f"TXT key {k!r} has no value")
            key = k.decode("ascii", "replace")
            try:  # names are UTF-8; every other value is ASCII
                props[key] = v.decode("utf-8") if _is_name_key(key) else v.decode("ascii", "replace")
            except UnicodeDecodeError:
                raise DiscoveryError(f"TXT {key} is not UTF-8") from None
        players = []
        while f"p{len(players)}" in props:
            players.append(props[f"p{len(players)}"])
        try:
            m = _SEATS.match(props["seats"])
            if m is None:
                raise DiscoveryError(f"bad seats {props['seats']!r}")
            v = props["v"]
            if not v.isdigit() or len(v) > 6:
                raise DiscoveryError(f"bad version {v!r}")
            gid = props["gid"]
            if not _HEX.match(gid) or len(gid) % 2:
                raise DiscoveryError(f"bad game id {gid!r}")
            addrs = [a for a in info.parsed_addresses(IPVersion.V4Only)] or info.parsed_addresses()
            if not addrs or info.port is None:
                raise DiscoveryError("no address or port")
            keys = [props.get("pk"), props.get("xk")]
            if any(k is not None and not _KEY_HEX.match(k) for k in keys):
                raise DiscoveryError("pk/xk must be 64 lowercase hex digits")
            return cls(version=int(v), game_id=bytes.fromhex(gid), edition=props["ed"],
                       seats_taken=int(m.group(1)), seats_total=int(m.group(2)),
                       state=props["st"], fingerprint=props["fp"], address=addrs[0],
                       port=int(info.port),
                       public_key=None if keys[0] is None else bytes.fromhex(keys[0]),
                       x25519_key=None if keys[1] is None else bytes.fromhex(keys[1]),
                       host_name=props.get("n", ""), players=tuple(players),
                       standings=None if "sd" not in props else Standings.parse(props["sd"]),
                       watch_port=None if "wp" not in props else _port(props["wp"]))
        except KeyError as e:
            raise DiscoveryError(f"TXT key {e.args[0]!r} missing") from None
        except ValueError as e:
            raise DiscoveryError(str(e)) from None


def _port(value: str) -> int:
    if not value.isdigit() or len(value) > 5:
        raise DiscoveryError(f"bad port {value!r}")
    return int(value)


def _is_name_key(key: str) -> bool:
    return key == "n" or (len(key) == 2 and key[0] == "p" and key[1].isdigit())
