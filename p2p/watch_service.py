"""A seat serving spectators on asyncio: the watch socket, its ``WatchServer`` and its DNS-SD
advert (protocol.md §N10 "Spectators", "Any seat serves").

``p2p/spectate.py`` is the sans-I/O side (who watches, what to send them next); this module is
its asyncio adapter, owned by ``p2p.node.Node``: a second UDP ``Link`` on the game's address (any
port, keyed channels only, from the spectators' introductions, so nothing a spectator sends
touches the game's channels), the ``WatchServer`` once the game runs, and the seat's
``_lanopoli-watch._udp`` advert (``p2p.rendezvous.WATCH_SERVICE``) so that a spectator whose
server went silent finds another seat. Every failure here only means fewer spectators: a bind
failure leaves ``link`` None, a DNS-SD failure is reported through ``emit`` as a
``watch_ad_failed`` line (the host's TXT ``wp`` still works), a full send buffer is counted in
``server.stats["send_failed"]``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from .chat import CHAT_TAG
from .identity import Identity
from .link import Link
from .node_reports import WatchAdFailed
from .rendezvous import WATCH_SERVICE, Rendezvous
from .spectate import WatchServer
from .transport import Addr

__all__ = ["WatchService", "channel_settled"]


def channel_settled(endpoint: Any, addr: Addr) -> bool:
    """Everything we sent ``addr`` was acknowledged, by a peer that proved it receives there:
    its channel exists, is ``confirmed`` (it echoed the nonce of a CHALLENGE sent to that
    address, §N2.6: acks alone prove nothing, their numbers are predictable) and is idle. A
    channel that is gone (evicted to make room) or that a datagram from ``addr`` re-opened since
    is NOT settled, so a spoofed subscription is never "reached" and gets no records
    (protocol.md §N10). It was: a missing channel counted as settled (one spoofed 230 B WATCH
    and 40 introductions from other spoofed sources made a seat send the victim 2 MB), then
    one forged ack did (H71: 3.9 KB spoofed -> 2.3 MB): tests/p2p/test_redteam_lan_watch.py."""
    ch = endpoint.channels.get(addr)
    return ch is not None and ch.confirmed and ch.idle


class WatchService:
    """Our seat's spectator serving. ``link``: the watch socket (None until ``open``, or if it
    could not be bound); ``server``: the ``WatchServer`` (None until ``serve``); ``ad``: the
    DNS-SD advert of the watch socket.

    ``records``: returns the game's records to serve — a lazy sequence like
    ``LockstepSession.history()`` — or None while there is no game; ``on_chat(addr, payload)``:
    a CHAT datagram from the watch socket (the node's chat relay judges it); ``emit``: a progress
    callback (protocol.md part L); ``on_error``: the ``Link`` handler-failure callback."""

    def __init__(self, identity: Identity, bind: str, interfaces: list[str],
                 records: Callable[[], Any], on_chat: Callable[[Addr, bytes], None],
                 emit: Callable[[Any], None], on_error: Callable[[BaseException], None]) -> None:
        self.identity = identity
        self.bind = bind
        self.interfaces = interfaces
        self._records = records
        self._on_chat = on_chat
        self._emit = emit
        self._on_error = on_error
        self.link: Link | None = None
        self.server: WatchServer | None = None
        self.ad: Rendezvous | None = None
        self._header: bytes | None = None
        self._header_of: Callable[[], bytes] | None = None
        self._advertising: asyncio.Task | None = None

    @property
    def port(self) -> int | None:
        """The watch socket's UDP port (the host's TXT ``wp``), None without one."""
        return None if self.link is None else self.link.address[1]

    async def open(self) -> None:
        """Bind the spectators' socket (same address as the game's, any port; keyed channels
        only). A failure only means no spectators."""
        try:
            self.link = await Link.open(self.bind, 0, self._on_datagram, identity=self.identity,
                                        on_error=self._on_error)
        except OSError:
            return
        self.link.endpoint.accept_plain = False

    def serve(self, setup: Any, seat: int, header: Callable[[], bytes]) -> None:
        """The game runs (or resumed): serve spectators and advertise our watch socket as seat
        ``seat``'s on DNS-SD (with the seat's setup keys). ``header``: returns the game log's
        header record (record 0), asked once, when a spectator first needs it."""
        if self.link is None or self.server is not None:
            return
        self.server = WatchServer(self.identity, setup.game_id)
        self._header_of = header
        self.ad = Rendezvous(self.interfaces, setup, seat, lambda *_: None, service=WATCH_SERVICE, browse=False)
        self._advertising = asyncio.ensure_future(self._advertise())

    async def _advertise(self) -> None:
        try:
            await self.ad.start(*self.link.address)
        except Exception as e:  # noqa: BLE001 - no DNS-SD here: only the host's wp serves
            self._emit(WatchAdFailed(str(e)))

    def subscriber(self, addr: Addr) -> Any:
        """The ``spectate.Subscription`` of the spectator at ``addr``, or None."""
        return None if self.server is None else self.server.subs.get(addr)

    def spectators(self) -> dict[bytes, str]:
        """Public key -> name of every subscribed spectator (they may chat, §N10)."""
        return {} if self.server is None else {sub.pk: sub.name for sub in self.server.subs.values()}

    def _on_datagram(self, addr: Addr, payload: bytes) -> None:
        if self.server is None or self._records() is None:
            return  # nothing to show before the game starts
        if payload[:2] == CHAT_TAG:
            self._on_chat(addr, payload)
            return
        ep = self.link.endpoint  # proven: its address answered our CHALLENGE (Endpoint.confirmed, §N10)
        self.server.receive(payload, addr, ep.peer_key(addr), asyncio.get_running_loop().time(),
                            proven=ep.confirmed(addr))
        self.flush()

    def flush(self) -> None:
        """Send each spectator the log records it lacks: the header, then the game's records
        (every record we logged), within its byte credit."""
        ws = self.server
        if ws is None or not ws.subs:
            return
        history = self._records()
        if history is None:
            return
        from .gamelog import KIND_HEADER

        if self._header is None:
            self._header = self._header_of()
        # A lazy view: old records are read back from the log only when a spectator lacks them.
        records = history.with_head(KIND_HEADER, self._header)
        for addr, raw in ws.outgoing(records, asyncio.get_running_loop().time(), self._settled):
            self._send(addr, raw)

    def owed(self) -> bool:
        """A spectator we reached still lacks records or acknowledgements (``WatchServer.owed``):
        the finished node keeps serving (§N4 "Draining")."""
        if self.server is None or self.link is None:
            return False
        history = self._records()
        n = 0 if history is None else len(history) + 1  # + the header, record 0
        return self.server.owed(n, asyncio.get_running_loop().time(), self._settled)

    def _settled(self, addr: Addr) -> bool:
        """``channel_settled`` on the watch socket (``spectate.UNSETTLED_BYTES``, ``reached``)."""
        return self.link is not None and channel_settled(self.link.endpoint, addr)

    def send_all(self, raw: bytes, exclude: Any = None) -> None:
        """Send ``raw`` (a chat line of the game) to every spectator but ``exclude``."""
        if self.server is None or self.link is None:
            return
        for a in list(self.server.subs):
            if a != exclude:
                self._send(a, raw)

    def _send(self, addr: Addr, raw: bytes) -> None:
        if addr not in self.link.endpoint.channels:
            # Never open a channel to a spectator: one we open is ours, confirmed and unbounded
            # (§N2.6), and its address was only ever claimed. Its next WATCH re-opens it keyed.
            self.server.stats["no_channel"] = self.server.stats.get("no_channel", 0) + 1
            return
        try:
            self.link.send(addr, raw)
        except Exception:  # noqa: BLE001 - a spectator's full buffer must not stop the game
            self.server.stats["send_failed"] = self.server.stats.get("send_failed", 0) + 1

    async def close(self) -> None:
        """Withdraw the advert and close the socket; the socket is closed even if withdrawing
        fails or is cancelled. Idempotent."""
        if self._advertising is not None:
            self._advertising.cancel()
            self._advertising = None
        try:
            if self.ad is not None:
                ad, self.ad = self.ad, None
                await ad.close()
        finally:
            if self.link is not None:
                link, self.link = self.link, None
                await link.close()
