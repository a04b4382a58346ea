"""Finding the seats of an unfinished game again, from new addresses (protocol.md §N3.2).

A table that stops and goes on another day comes back from other addresses (DHCP, another
room). The ``.resume`` file remembers the endpoints of the last run, which may all be wrong. So
a peer that resumes a game advertises its seat on DNS-SD — service type
``_lanopoli-seat._udp.local.``, apart from the games' ``_lanopoli._udp`` so that lobbies and
watch lists never show it — with the game id, its seat and its setup keys, and browses the same
type for the other seats of its game. An advert counts only if its keys are exactly that seat's
keys in the signed setup; the address it gives is then used for that seat, whose channel is keyed
with the seat's X25519 key (§N2.2): an address carries no trust, so a forged advert can point us
to a wrong address (a delay, like a lost datagram) but can never speak for the seat.

``SeatAd`` is the record; ``accept`` is the check; ``Rendezvous`` owns one zeroconf instance on
explicit interfaces (DESIGN.md §5) that advertises our seat and reports the others' endpoints.
"""

from __future__ import annotations

import asyncio
import ipaddress
import itertools
import re
from dataclasses import dataclass
from typing import Callable, Iterable

from zeroconf import IPVersion, ServiceStateChange
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from . import const as C
from .discovery import say_goodbye
from .identity import fingerprint_of
from .wire import Setup

SEAT_SERVICE = "_lanopoli-seat._udp.local."
#: Every seat's watch socket (protocol.md §N10 "Any seat serves"): same record, SRV = watch port.
WATCH_SERVICE = "_lanopoli-watch._udp.local."
RESOLVE_TIMEOUT_MS = 1500
_KEY = re.compile(r"^[0-9a-f]{64}$")
_GID = re.compile(r"^[0-9a-f]{32}$")


class SeatAdError(ValueError):
    """A malformed seat advert (dropped and counted by ``Rendezvous``)."""


def instance_name(game_id: bytes, seat: int, service: str) -> str:
    """The name a seat advertises itself under: ``lanopoli-<gid hex[:16]>-seat<k>.<service>``."""
    return f"lanopoli-{game_id.hex()[:16]}-seat{seat}.{service}"


#: Addresses kept per seat from accepted adverts under different instance names (protocol.md
#: §N10 'Any seat serves'): the seat's own name always, plus the newest others up to this many.
SEAT_ADDRS_KEPT = 4


@dataclass(frozen=True)
class SeatAd:
    """One seat of a running game and where its peer listens now. TXT keys: ``v`` protocol
    version, ``gid`` (32 hex), ``seat`` (0..7), ``pk`` and ``xk`` (the seat's Ed25519 and X25519
    setup keys, 64 hex each); the SRV/A records give ``address`` and ``port``."""

    version: int
    game_id: bytes
    seat: int
    public_key: bytes
    x25519_key: bytes
    address: str
    port: int
    #: The DNS-SD service type: the seat itself (here) or its watch socket (``WATCH_SERVICE``,
    #: advertised by ``node.Node._serve_spectators``, browsed by ``ui.watch``).
    service: str = SEAT_SERVICE

    def __post_init__(self) -> None:
        if len(self.game_id) != C.GAME_ID_LEN or not 0 <= self.seat < C.MAX_SEATS:
            raise SeatAdError("bad game id or seat")
        if len(self.public_key) != 32 or len(self.x25519_key) != 32:
            raise SeatAdError("keys must be 32 bytes")
        if not 0 < self.port < 65536:
            raise SeatAdError(f"bad port {self.port}")
        ipaddress.ip_address(self.address)

    @property
    def instance_name(self) -> str:
        """``lanopoli-<gid16>-seat<k>.<service>``: one name per game, seat and service."""
        return instance_name(self.game_id, self.seat, self.service)

    def txt(self) -> dict[str, str]:
        """The TXT record (keys in the class docstring)."""
        return {"v": str(self.version), "gid": self.game_id.hex(), "seat": str(self.seat),
                "pk": self.public_key.hex(), "xk": self.x25519_key.hex()}

    def to_info(self) -> AsyncServiceInfo:
        """The zeroconf service record of this advert."""
        tag = "s" if self.service == SEAT_SERVICE else "w"  # one host name per record: never a clash
        server = f"lanopoli-{self.game_id.hex()[:16]}-{tag}{self.seat}-{fingerprint_of(self.public_key)[:8]}.local."
        return AsyncServiceInfo(self.service, self.instance_name, port=self.port, properties=self.txt(),
                                server=server, parsed_addresses=[self.address])

    @classmethod
    def from_info(cls, info: AsyncServiceInfo, service: str = SEAT_SERVICE) -> "SeatAd":
        """Parse a resolved record of ``service``. Raises ``SeatAdError`` on any malformed field."""
        try:
            props = {k.decode("ascii"): v.decode("ascii") for k, v in (info.properties or {}).items()}
            v, gid, seat, pk, xk = props["v"], props["gid"], props["seat"], props["pk"], props["xk"]
            if not v.isdigit() or len(v) > 6 or not _GID.match(gid) or not seat.isdigit() or len(seat) > 1 \
                    or not _KEY.match(pk) or not _KEY.match(xk):
                raise SeatAdError("malformed TXT")
            addrs = list(info.parsed_addresses(IPVersion.V4Only)) or list(info.parsed_addresses())
            if not addrs or info.port is None:
                raise SeatAdError("no address or port")
            return cls(int(v), bytes.fromhex(gid), int(seat), bytes.fromhex(pk), bytes.fromhex(xk), addrs[0],
                       int(info.port), service)
        except (KeyError, AttributeError, UnicodeDecodeError, ValueError) as e:
            raise SeatAdError(str(e)) from None


def accept(ad: SeatAd, setup: Setup, my_seat: int) -> bool:
    """True if ``ad`` names another seat of ``setup``'s game with exactly that seat's setup keys
    and our protocol version (protocol.md §N3.2)."""
    if ad.version != C.PROTOCOL_VERSION or ad.game_id != setup.game_id or ad.seat == my_seat \
            or ad.seat >= setup.seats:
        return False
    p = setup.players[ad.seat]
    return ad.public_key == p.public_key and ad.x25519_key == p.x25519_key


class Rendezvous:
    """Advertise our seat of ``setup``'s game at ``address``:``port`` and report the others'
    (``on_found(seat, (address, port))``, called again when a seat's address changes), on
    zeroconf restricted to ``interfaces`` (IP literals). ``start``/``close`` are async;
    ``found``: seat -> (address, port) of the last accepted advert; ``addresses(seat)``: every
    address kept for the seat (a copied advert does not hide the real one: the keys are public,
    protocol.md §N10 'Any seat serves'), ``next_address(seat)`` the one to try next;
    ``malformed``/``refused``: counters of dropped adverts. ``service``: WATCH_SERVICE for the
    seats' watch sockets (a spectator browses with ``my_seat`` -1 and no address; a seat
    advertises with ``browse`` False)."""

    def __init__(self, interfaces: Iterable[str], setup: Setup, my_seat: int,
                 on_found: Callable[[int, tuple[str, int]], None], service: str = SEAT_SERVICE,
                 browse: bool = True) -> None:
        self.interfaces = list(interfaces)
        if not self.interfaces:
            raise ValueError("zeroconf must be given explicit interfaces (DESIGN.md section 5)")
        for a in self.interfaces:
            ipaddress.ip_address(a)
        self._setup = setup
        self._me = my_seat
        self._on_found = on_found
        self._service = service
        self._browse = browse
        self.found: dict[int, tuple[str, int]] = {}
        #: seat -> {instance name: address} of accepted adverts, least recently accepted first.
        self._ads: dict[int, dict[str, tuple[str, int]]] = {}
        #: (seat, address) -> when ``next_address`` last gave it (a serial number).
        self._given: dict[tuple[int, tuple[str, int]], int] = {}
        self._serial = itertools.count(1)  # the next of those serial numbers
        self.malformed = 0
        self.refused = 0
        self._azc: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._info: AsyncServiceInfo | None = None
        self._tasks: set[asyncio.Task] = set()

    async def start(self, address: str | None = None, port: int | None = None) -> None:
        """Advertise our seat at ``address``:``port`` (None: nothing) and browse for the others
        (if ``browse``)."""
        self._azc = AsyncZeroconf(interfaces=self.interfaces)
        if address is not None and port is not None:
            me = self._setup.players[self._me]
            ad = SeatAd(C.PROTOCOL_VERSION, self._setup.game_id, self._me, me.public_key, me.x25519_key, address,
                        port, self._service)
            self._info = ad.to_info()
            task = await self._azc.async_register_service(self._info, cooperating_responders=True)
            self._keep(task)
        if self._browse:
            self._browser = AsyncServiceBrowser(self._azc.zeroconf, self._service, handlers=[self._on_change])

    def _keep(self, aw: object) -> None:
        task = asyncio.ensure_future(aw)  # type: ignore[arg-type]
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _on_change(self, zeroconf: object, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if state_change is not ServiceStateChange.Removed and (self._info is None or name != self._info.name):
            self._keep(self._resolve(name))

    async def _resolve(self, name: str) -> None:
        azc = self._azc
        if azc is None:
            return
        info = AsyncServiceInfo(self._service, name)
        if not info.load_from_cache(azc.zeroconf) and not await info.async_request(azc.zeroconf, RESOLVE_TIMEOUT_MS):
            return
        try:
            ad = SeatAd.from_info(info, self._service)
        except SeatAdError:
            self.malformed += 1
            return
        if not accept(ad, self._setup, self._me):
            self.refused += 1  # another game's seat, or keys that are not that seat's
            return
        addr = (ad.address, ad.port)
        self.remember(ad.seat, name, addr)
        if self.found.get(ad.seat) != addr:
            self.found[ad.seat] = addr
            self._on_found(ad.seat, addr)

    def remember(self, seat: int, name: str, addr: tuple[str, int]) -> None:
        """Keep ``addr`` from an accepted advert of ``seat`` under instance ``name`` (protocol.md
        §N10 'Any seat serves'): one address per name, the latest; the seat's own name
        (``instance_name``) always kept, the other names' newest ``SEAT_ADDRS_KEPT``."""
        ads = self._ads.setdefault(seat, {})
        ads.pop(name, None)
        ads[name] = addr
        own = instance_name(self._setup.game_id, seat, self._service)
        others = [n for n in ads if n != own]
        for n in others[:max(0, len(others) - SEAT_ADDRS_KEPT)]:
            del ads[n]
        kept = set(ads.values())
        self._given = {k: v for k, v in self._given.items() if k[0] != seat or k[1] in kept}

    def addresses(self, seat: int) -> list[tuple[str, int]]:
        """Every address kept for ``seat``, newest first, each once."""
        return list(dict.fromkeys(reversed(self._ads.get(seat, {}).values())))

    def next_address(self, seat: int) -> tuple[str, int] | None:
        """The address of ``seat`` to try next (protocol.md §N10 'Failover'): among
        ``addresses(seat)``, the one given least recently (never given first, the newest of
        those); None if none is kept. A forged advert's dead address costs one silence, then the
        seat's next address is tried: none is skipped for ever."""
        addrs = self.addresses(seat)
        if not addrs:
            return None
        addr = min(addrs, key=lambda a: self._given.get((seat, a), -1))
        self._given[(seat, addr)] = next(self._serial)
        return addr

    async def close(self) -> None:
        """Withdraw our advert, stop browsing, close zeroconf. Idempotent."""
        azc, self._azc = self._azc, None
        if azc is None:
            return
        if self._browser is not None:
            await self._browser.async_cancel()
            self._browser = None
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._info is not None:
            try:
                await say_goodbye(azc, self._info)  # one goodbye, not 0.25 s of repeats (issue 14)
            except Exception:  # noqa: BLE001 - closing anyway; the goodbye is a courtesy
                pass
        await azc.async_close()


#: A seat heard at its address this recently is there: an advert elsewhere is ignored (protocol.md
#: §N3.2; anyone can copy an advert, the keys are public). Heard: ``Endpoint.last_heard`` (§N2.2
#: "Heard": a RESPONSE to our nonce from there, or a datagram that advanced its channel over a
#: route so proven; a replay or a duplicate never is, H122 s12 #1 #2 #7).
ADVERT_HEARD_S = C.KEEPALIVE_INTERVAL


class SeatAddresses:
    """Where each seat of our running game is (protocol.md §N3.2), and what an advert does to it
    (sans-I/O; ``p2p.node.Node`` does the sending, keying and the ``.resume`` file).

    ``endpoints``: seat -> (address, port), ours included; ``left_from``: addresses a seat was
    moved away from by an advert after it had been heard there (address -> seat): still
    allowed, and the seat moves back if it speaks from one; ``pending``: adverts ignored because
    the seat was heard at its address lately, or refused because another seat holds the address
    (seat -> address), looked at again every tick (``Node._tick``) and adopted once the seat has
    been quiet there ``ADVERT_HEARD_S`` and the address is free; ``refused``: adverts refused
    for a taken address (counted once per advert, not per look).
    Keys are public, so anyone can copy a seat's advert (tests/e2e/test_redteam_rendezvous_e2e.py):
    a seat heard at its address lately is there, whatever an advert says; and no advert puts a
    seat on another seat's address (tests/p2p/test_redteam_advert_onto_seat.py): one address,
    one channel, one key (§N2.2), so the second seat's pin would replace the first's channel.
    But a seat never heard at its address gives it up to another seat's advert after
    ``ADVERT_HEARD_S`` there, and goes back (§N3.2 "An unheard holder", ``_unheard_holder``):
    a copied advert of an absent seat cannot keep a returning seat out for good
    (tests/p2p/test_redteam_s11b_rendezvous.py)."""

    def __init__(self) -> None:
        self.endpoints: list[tuple[str, int]] = []
        self.my_seat = -1
        self.left_from: dict[tuple[str, int], int] = {}
        self.pending: dict[int, tuple[str, int]] = {}
        self.refused = 0
        #: seat -> (where it was, since when): seats an advert moved whose new address has not
        #: been heard yet (``unheard``); a seat of the lobby or ``.resume`` file gets its
        #: "since" at the first advert that finds its address taken.
        self._placed: dict[int, tuple[tuple[str, int] | None, float]] = {}
        #: (seat -> its lobby endpoint, loop time the game started): ``started`` (None: resumed).
        self._lobby: tuple[dict[int, tuple[str, int]], float] | None = None

    def set_endpoints(self, endpoints: Iterable, my_seat: int) -> None:
        """The seats' endpoints from the lobby or the ``.resume`` file (``left_from`` and
        ``pending`` are kept; who an advert placed where is forgotten)."""
        self.endpoints = [(str(a[0]), int(a[1])) for a in endpoints]
        self._placed = {}
        self.my_seat = my_seat

    def started(self, now: float) -> None:
        """The game starts from the lobby at loop time ``now`` (s) with the current endpoints:
        each seat counts as heard at its lobby endpoint at ``now`` (protocol.md §N3.2 "Heard at
        the start"). The lobby's signed setup came over those channels, but a channel we chose
        (a joiner's to the host, or to a seat the PROPOSAL named) is heard (§N2.2) only after a
        RESPONSE to the CHALLENGE the start sends, which a partition from the start loses: the
        seat was then 'never heard' there, an advert moved it at once and its lobby address was
        not kept (``left_from``), its channel forgotten; the two peers, each pinned afresh on
        a move allowance spent in the cut, never reached each other again
        (tests/e2e/test_demo_same_seed.py, H131)."""
        self._lobby = (dict(enumerate(self.endpoints)), now)

    def _heard(self, seat: int, heard: float | None) -> float | None:
        """``heard`` (loop time ``seat`` was last heard at its current endpoint, None/0: never),
        or the game's start if that is later and the endpoint is the seat's lobby one (``started``)."""
        if self._lobby is None or self._lobby[0].get(seat) != self.endpoints[seat]:
            return heard
        return max(heard or 0.0, self._lobby[1])

    def peers(self) -> list[tuple[str, int]]:
        """Every other seat's endpoint, in seat order."""
        return [a for i, a in enumerate(self.endpoints) if i != self.my_seat]

    def advert(self, seat: int, addr: tuple[str, int], heard: float | None, now: float,
               heard_at: Callable[[tuple[str, int]], float] | None = None) -> str:
        """An accepted advert says ``seat`` listens at ``addr``; ``heard``: loop time we last
        heard the seat at its current address (None/0: never); ``heard_at(address)``: loop time
        we last heard the seat at ``address`` (``Endpoint.last_heard``; None: unknown, an
        unheard holder then keeps its address). Returns "same" (nothing to do),
        "refused" (``addr`` is taken: ``taken``; kept in ``pending``, counted in ``refused``),
        "refused_again" (the same advert refused before), "ignored" (heard there lately: kept in
        ``pending``), "ignored_again" (the same advert ignored before: no new line) or "moved"
        (``endpoints[seat]`` is ``addr`` now; perhaps after taking it from an unheard holder,
        ``_unheard_holder``, which went back and waits in ``pending``)."""
        addr = (str(addr[0]), int(addr[1]))
        was = self.pending.pop(seat, None)
        if self.endpoints[seat] == addr:
            return "same"
        heard = self._heard(seat, heard)
        unheard = self._unheard_holder(seat, addr, heard, now, heard_at)
        if unheard is None and self.taken(seat, addr):
            # A forged advert (keys are public) naming a live seat's address: pinning it would
            # replace that seat's channel with one keyed to ``seat`` and cut the live seat off
            # (its datagrams fail the MAC). A seat really moved there is adopted once the
            # address is free (the other seat moved away): hence pending, not dropped.
            self.pending[seat] = addr
            if was == addr:
                return "refused_again"
            self.refused += 1
            return "refused"
        if heard and now - heard < ADVERT_HEARD_S:  # (then there is no unheard holder either)
            self.pending[seat] = addr  # a peer restarted elsewhere goes quiet here: asked again
            return "ignored" if was != addr else "ignored_again"
        if heard:  # heard there long ago: it may speak from there again (``left_from``)
            self.left_from[self.endpoints[seat]] = seat
        self._placed[seat] = (self.endpoints[seat], now)
        self.move(seat, addr)
        if unheard is not None:
            holder, back = unheard
            self.move(holder, back)
            self._placed[holder] = (None, now)  # unheard at ``back`` too, from now
            self.pending[holder] = addr  # its turn again once this seat has held it unheard as long
        return "moved"

    def _unheard_holder(self, seat: int, addr: tuple[str, int], heard: float | None, now: float,
                        heard_at: Callable[[tuple[str, int]], float] | None) -> tuple[int, tuple[str, int]] | None:
        """(holder, way back): the seat that holds ``addr`` (its endpoint) without ever having
        been heard there, for ``ADVERT_HEARD_S`` now, and may give it to ``seat``'s advert, and
        the address it goes back to (``_way_back``) (protocol.md §N3.2 "An unheard holder");
        None if there is none or ``addr`` stays refused: ``heard_at`` unknown,
        ``seat`` heard at its own address lately (the advert is ignored), ``addr`` ours or one a
        seat left (``left_from``), the holder heard there, or no way back for it (``_way_back``)."""
        if heard_at is None or (heard and now - heard < ADVERT_HEARD_S) or addr in self.left_from:
            return None
        holder = next((i for i, a in enumerate(self.endpoints) if a == addr and i != seat), None)
        if holder is None or holder == self.my_seat or heard_at(addr):
            return None
        since = self._placed.setdefault(holder, (None, now))[1]
        back = None if now - since < ADVERT_HEARD_S else self._way_back(holder, seat, addr, heard)
        return None if back is None else (holder, back)

    def _way_back(self, holder: int, seat: int, addr: tuple[str, int],
                  heard: float | None) -> tuple[str, int] | None:
        """Where ``holder`` goes when ``seat`` takes ``addr`` from it: the address it had before an
        advert moved it there, else ``seat``'s current one unless ``seat`` was ever ``heard`` there
        (it stays ``seat``'s, ``left_from``); None if neither is free once ``seat`` left its own
        (another seat's endpoint, or an address another seat left)."""
        before = self._placed.get(holder, (None, 0.0))[0]
        mine = self.endpoints[seat]
        for back in (before, mine):
            if back is None or back == addr or (heard and back == mine) \
                    or self.left_from.get(back, holder) != holder:
                continue
            if all(a != back for i, a in enumerate(self.endpoints) if i not in (holder, seat)):
                return back
        return None

    def taken(self, seat: int, addr: tuple[str, int]) -> bool:
        """Whether ``addr`` belongs to a seat other than ``seat``: its current endpoint (ours
        included) or an address it was moved away from after being heard there (``left_from``:
        it may speak from there again and move back)."""
        return any(a == addr for i, a in enumerate(self.endpoints) if i != seat) \
            or self.left_from.get(addr, seat) != seat

    def spoke(self, addr: tuple[str, int]) -> int | None:
        """An authenticated datagram came from ``addr``: if a seat was moved away from it, the
        seat is there again (moved back, its seat returned); else None."""
        seat = self.left_from.pop(addr, None)
        if seat is not None:
            self.move(seat, addr)
        return seat

    def move(self, seat: int, addr: tuple[str, int]) -> None:
        """``seat`` is at ``addr`` now; that address is no longer one it left."""
        self.endpoints[seat] = (str(addr[0]), int(addr[1]))
        self.left_from = {a: s for a, s in self.left_from.items() if a != self.endpoints[seat]}
