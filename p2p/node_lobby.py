"""A peer's lobby phase: find or open the game, relay the lobby's messages, keep the host's advert.

``NodeLobby`` is owned by ``p2p.node.Node`` and owns the state of the phase before the game runs
(protocol.md §N3, §N4):

* ``discovery`` (``Discovery`` on ``cfg.interface`` only) and, for the host, ``ad_updates`` (the
  advert kept current: seats, players, ``st=running``, later the standings);
* ``lobby`` (``Lobby``): the host's, or the joiner's once it found its game — by ``game_id``, by
  a join code's address and tag, or the first open game of our protocol version that
  ``cfg.game_filter`` accepts;
* ``misbehaved``: lobby peers caught misbehaving (``LobbyPeerMisbehaved``);
* ``same_key``: the addresses a JOIN or PROBE signed with our own key came from (``SameKeyJoin``),
  each reported once (``SameKeyJoined``), at most ``SAME_KEY_REPORTS``.

``pump`` keys the channels the lobby knows, sends what it produced and handles its events; at
``GameStarted`` it pins every seat's channel (protocol.md §N2.2, §N2.6) and hands the event to
``Node.start_game``. ``leave`` sends a joiner's LEAVE as ``pump`` sends (the waiting room's
Leave, ``ui.net_game.NetGame.leave``). The node's socket and spectator service are the node's (``NodeHost``).
"""

from __future__ import annotations

from typing import Any, Protocol

from . import const as C
from .ad_record import LOBBY, RUNNING, GameAd
from .discovery import Discovery
from .errors import LocalProtocolError
from .game_ad import AdUpdates, ad_name
from .lobby import (JOINING, GameStarted, Lobby, LobbyAborted, LobbyPeerMisbehaved, LobbyStatus, PlayerJoined,
                    PlayerLeft, SetupProposed, SetupRestarted)
from .lobby_events import LEFT, SameKeyJoin
from .node_config import NodeError
from .node_reports import Hosting, SameKeyJoined

__all__ = ["SAME_KEY_REPORTS", "NodeHost", "NodeLobby", "introduce_while_joining", "pin_lobby", "pin_seats",
           "start_channels"]

#: Host: at most this many source addresses of a JOIN/PROBE signed with our own key are reported
#: (``SameKeyJoined``, once each): a player retrying from new ports never floods the host's screen.
SAME_KEY_REPORTS = 4
#: Seconds a joiner whose lobby aborted after it forwarded evidence (``relayed`` > 0: the host's
#: lie, protocol.md §C2.2 step 7) keeps its socket open so that the transport re-sends the
#: forwarded envelopes until the other joiners acknowledge them (a lost copy left one of them
#: holding one version of the host's SETUP_SIG, RV16-A F1); as ``LEAVE_DRAIN_S`` for a LEAVE.
ABORT_DRAIN_S = 1.0


class NodeHost(Protocol):
    """What ``NodeLobby`` uses of its node (``p2p.node.Node``)."""

    cfg: Any
    identity: Any
    loop: Any
    link: Any
    watch: Any

    def report(self, report: Any) -> None: ...
    def start_game(self, ev: GameStarted) -> None: ...
    def fail(self, err: NodeError) -> None: ...


def pin_lobby(endpoint: Any, lobby: Lobby) -> None:
    """Key the channel of every lobby peer whose X25519 key ``lobby`` knows (``Lobby.peer_keys``,
    protocol.md §N2.2) on ``endpoint``: trusted from now on, never evicted (§N2.6). Only the host
    a joiner joins is an address we chose; every other one (a PROPOSAL's seat endpoint, a JOIN's
    source) a peer named, maybe spoofed: its channel, if the pin opens it, is bounded until the
    address proves it receives (``Endpoint.pin``'s ``chosen``; §N2.6 "Lobby pins", H91); on a
    joiner, so is one the seat's own datagram opened before (``Endpoint.await_seat``)."""
    host = lobby.host_address
    host = None if host is None else (str(host[0]), int(host[1]))
    for addr, xk in lobby.peer_keys():
        addr = (str(addr[0]), int(addr[1]))
        endpoint.pin(addr, xk, addr == host)
        if host is not None and addr != host:  # a joiner's PROPOSAL seat (the host keeps H77's bound)
            endpoint.await_seat(addr)


def introduce_while_joining(endpoint: Any, lobby: Lobby) -> None:
    """A joiner still ``joining`` (no STATUS yet) introduces itself to the host in every datagram
    (``Channel.introducing``; called after ``pin_lobby``, before sending), not only until the host's
    first MACed one (§N2.1): its channel at the host is an unconfirmed, untrusted stranger for a
    round trip and more (§C2.2 step 2), which spoofed sources may evict there (no resume point
    kept); its next datagram, an introduction, opens a new one (§N2.6 "Strangers"; RV16-C F1:
    before, every later datagram was ``unknown_dropped`` and the join ended at JOIN_TIMEOUT).
    Nothing for a host, a plain channel, or once the STATUS came."""
    host = lobby.host_address  # None for a host
    if host is not None and lobby.phase == JOINING:
        ch = endpoint.channels.get((str(host[0]), int(host[1])))
        if ch is not None and ch.keys is not None and not ch.introducing:
            ch.introducing = True


def start_channels(endpoint: Any, started: Any) -> None:
    """What the endpoint becomes when the game starts (``started``: the lobby's ``GameStarted``):
    no more lobby confirmations, only the seats' endpoints may open channels (protocol.md §N2.6),
    and each seat's channel keyed with its setup key (``pin_seats``, §N2.2)."""
    endpoint.on_confirm = None
    endpoint.restrict(started.endpoints)
    pin_seats(endpoint, started.setup.players, started.endpoints, started.my_seat)


def pin_seats(endpoint: Any, players: Any, endpoints: Any, my_seat: int) -> None:
    """Key the channel to every other seat with its X25519 key from the signed setup
    (protocol.md §N2.2) on ``endpoint`` (the link's ``Endpoint``): from now on only that seat's
    MACed datagrams reach it. ``players``: the setup's, ``endpoints``: ``[(host, port)]`` in
    seat order. One address has one channel with one key: an address given for several seats
    (seat adverts never do that, ``rendezvous.SeatAddresses.taken``; a hostile PROPOSAL might)
    keeps its channel if that is keyed to one of them, else gets the lowest seat's key, so a
    later seat never replaces another seat's live channel (H88 review #3, protocol.md §N3.2)."""
    keys_at: dict[tuple[str, int], list[bytes]] = {}
    for i, (p, a) in enumerate(zip(players, endpoints)):
        if i != my_seat:
            keys_at.setdefault((str(a[0]), int(a[1])), []).append(p.x25519_key)
    for addr, keys in keys_at.items():
        have = endpoint.peer_key(addr) if len(keys) > 1 else None
        endpoint.pin(addr, have if have in keys else keys[0])
    endpoint.accept_plain = False


class NodeLobby:
    """The node's lobby phase (see the module docstring)."""

    def __init__(self, node: NodeHost) -> None:
        self.node = node
        self.discovery: Discovery | None = None
        #: The host's advert kept current: seats, players, st=running, standings (§N3).
        self.ad_updates: AdUpdates | None = None
        self.lobby: Lobby | None = None
        self.misbehaved = 0
        self.same_key: set[Any] = set()
        #: True while ``leave`` drains our LEAVE (the lobby's own "left the lobby" abort fails nothing)
        #: or an abort drains the evidence we forwarded (``_drain_then_fail``).
        self.leaving = False
        self._abort_drain: Any = None  # that drain's task (held: a bare task may be collected)

    async def open(self) -> None:
        """Open zeroconf; host: open and advertise the lobby; join: find the game and send
        Join. Needs the node's socket open. Raises NodeError("not_found") if no game shows up
        within ``cfg.discovery_timeout`` s."""
        node = self.node
        cfg, identity, link = node.cfg, node.identity, node.link
        self.discovery = Discovery([cfg.interface or cfg.bind])
        await self.discovery.start()
        self.ad_updates = AdUpdates(self.discovery)
        now = node.loop.time()
        name = cfg.name or f"bot-{identity.fingerprint[:4]}"
        if cfg.role == "host":
            self.lobby = Lobby.host(identity, edition=cfg.edition, seats=cfg.seats, name=name,
                                    endpoint=link.address, options=cfg.host_options(),
                                    bot=cfg.local_input is None,
                                    demo_seed=cfg.demo_seed, now=now, chain_length=cfg.chain_length)
            link.endpoint.on_confirm = self._confirmed  # a kept PROBE or JOIN handled at its RESPONSE
            self.lobby.channel_key = link.endpoint.peer_key  # over its own key only (§C2.2 step 2)
            await node.watch.open()
            ad = GameAd(version=C.PROTOCOL_VERSION, game_id=self.lobby.game_id, edition=cfg.edition,
                        seats_taken=1, seats_total=cfg.seats, state=LOBBY,
                        fingerprint=identity.fingerprint, address=link.address[0],
                        port=link.address[1], public_key=identity.public_key,
                        x25519_key=identity.x25519_public_key,
                        host_name=ad_name(name), players=(ad_name(name),),
                        watch_port=node.watch.port)
            await self.discovery.advertise(ad)
            node.report(Hosting(ad.game_id, ad.address, ad.port))
            return
        await node.watch.open()  # any seat serves spectators once the game runs (§N10)
        want = cfg.game_id
        if cfg.host_addr is not None:
            self.lobby = Lobby.join(identity, host_addr=(str(cfg.host_addr[0]), int(cfg.host_addr[1])),
                                    game_id=want, name=name, endpoint=link.address, bot=cfg.local_input is None,
                                    demo_seed=cfg.demo_seed, now=node.loop.time(),
                                    chain_length=cfg.chain_length, host_keys=cfg.host_keys,
                                    code_tag=cfg.host_code)
            # The host answers on the channel we open by sending to it (plain while we lack its
            # keys); no other address may open a plain one: a datagram forged from another seat's
            # address would open one with a forged epoch, keyed in place by the PROPOSAL's pin,
            # and the real seat's epoch would then need a proof that discards our SETUP_SIG (H86).
            link.endpoint.accept_plain = False
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
        self.lobby = Lobby.join(identity, host_addr=(ad.address, ad.port), game_id=ad.game_id,
                                name=name, endpoint=link.address, bot=cfg.local_input is None,
                                demo_seed=cfg.demo_seed, now=node.loop.time(),
                                chain_length=cfg.chain_length, host_keys=keys, host_fp=ad.fingerprint)
        # The host's key is known from the advert: every channel we accept is keyed from the
        # first datagram (protocol.md §N2.2); plain datagrams are strangers'.
        link.endpoint.accept_plain = keys is None

    def _confirmed(self, addr: Any, now: float) -> None:
        """Host: the channel to ``addr`` was just confirmed (``Endpoint.on_confirm``): the lobby
        answers the PROBE (protocol.md §N3.1), and seats or answers the new member's JOIN (§C2.2
        step 2), it kept from it, sent by a ``pump`` on the loop's next turn, out of the
        endpoint's ``receive_datagram``. A pump, not just a send: a PROBE
        signed with our key raised ``SameKeyJoin``, reported now (the joiner stops at our answer:
        no datagram may come to pump it, H104)."""
        if self.lobby is not None and self.lobby.admission.probe_confirmed(addr, now):
            self.node.loop.call_soon(self.pump)

    def pump(self) -> bool:
        """Send what the lobby produced and handle its events (see the module docstring).
        True while the lobby goes on (the node re-arms its timer); False once the game
        started or the lobby aborted (``NodeError("lobby")``)."""
        node, lobby = self.node, self.lobby
        link = node.link
        ep = link.endpoint
        # Key the channels of the peers whose X25519 key the lobby knows before anything is sent
        # to them (protocol.md §N2.2); then they are trusted, never evicted (§N2.6).
        pin_lobby(ep, lobby)
        introduce_while_joining(ep, lobby)
        self._send()
        ep.trust(lobby.peer_addresses())
        return self._events()

    def _send(self) -> None:
        """Send what the lobby queued (``Lobby.messages_to_send``) over the node's link."""
        link = self.node.link
        for addr, raw in self.lobby.messages_to_send():
            link.send((str(addr[0]), int(addr[1])), raw)

    async def leave(self, drain_s: float) -> bool:
        """Joiner in the lobby (before the host's PROPOSAL): send LEAVE (``Lobby.leave``, protocol.md
        §C2.2: the host frees the seat) as ``pump`` sends, then wait up to ``drain_s`` seconds for
        the host's ack (``Link.drain``: the transport re-sends it until then), ``leaving`` meanwhile:
        a pump during the drain (the lobby's timer armed before, a lobby payload) meets the lobby's
        ``LobbyAborted`` "left the lobby" and ends quietly, where it failed the node and ``run``
        closed the socket under the drain (RV13-C #5). After the drain the node fails with that
        abort (``NodeError("lobby")``, as any pump then would). False, nothing sent, if there is no
        lobby or link, or it is too late (we host, or the setup was proposed)."""
        if self.lobby is None or self.node.link is None:
            return False
        try:
            self.lobby.leave()
        except LocalProtocolError:
            return False
        self.leaving = True
        try:
            self._send()
            await self.node.link.drain(drain_s)
        finally:
            self.leaving = False
            self.node.fail(NodeError("lobby", LEFT))
        return True

    def _events(self) -> bool:
        """Handle the lobby's queued events (``pump``'s return value)."""
        node, lobby, ep = self.node, self.lobby, self.node.link.endpoint
        host = node.cfg.role == "host"
        observer = node.cfg.observer
        while (ev := lobby.next_event()) is not None:
            if observer is not None:
                observer(ev)
            if isinstance(ev, (PlayerJoined, PlayerLeft, LobbyStatus)):
                if host and isinstance(ev, LobbyStatus):
                    self.ad_updates.update(seats_taken=ev.taken, players=tuple(ad_name(n) for n in ev.names))
            elif isinstance(ev, SetupProposed):
                if host:
                    self.ad_updates.update(seats_taken=ev.setup.seats, state=RUNNING,
                                           players=tuple(ad_name(p.name) for p in ev.setup.players))
            elif isinstance(ev, SetupRestarted):
                if host:  # seats that did not confirm were removed: open again (§C2.2 step 7)
                    self.ad_updates.update(state=LOBBY)
            elif isinstance(ev, GameStarted):
                start_channels(ep, ev)  # only the seats' endpoints from now on (protocol.md §N2.6)
                node.start_game(ev)
                return False
            elif isinstance(ev, LobbyAborted):
                if self.leaving:  # our own LEAVE's abort: ``leave`` ends the node after its drain
                    return False
                if lobby.stats.get("relayed"):  # what we forwarded goes out first (ABORT_DRAIN_S)
                    self.leaving = True
                    self._abort_drain = node.loop.create_task(self._drain_then_fail(ev.reason))
                else:
                    node.fail(NodeError("lobby", ev.reason))
                return False
            elif isinstance(ev, LobbyPeerMisbehaved):
                self.misbehaved += 1
            elif isinstance(ev, SameKeyJoin):
                self._same_key(ev.addr)
        return True

    async def _drain_then_fail(self, reason: str) -> None:
        """The lobby aborted after we forwarded evidence: keep answering retransmissions up to
        ``ABORT_DRAIN_S`` (``Link.drain``), quiet meanwhile (``leaving``), then fail the node
        with the abort (``NodeError("lobby", reason)``)."""
        err = NodeError("lobby", reason)
        try:
            await self.node.link.drain(ABORT_DRAIN_S)
        except Exception as e:  # the socket closed or a handler failed: the abort is what we report,
            err.__cause__ = e  # with that failure kept as its cause (a handler's bug is not hidden)
        finally:
            self.leaving = False
            self.node.fail(err)

    def _same_key(self, addr: Any) -> None:
        """Report ``SameKeyJoined`` for ``addr`` the first time (``SAME_KEY_REPORTS`` addresses at most)."""
        addr = (str(addr[0]), int(addr[1]))
        if addr not in self.same_key and len(self.same_key) < SAME_KEY_REPORTS:
            self.same_key.add(addr)
            self.node.report(SameKeyJoined(*addr))

    def stop_updates(self) -> None:
        """Stop updating the host's advert (closing)."""
        if self.ad_updates is not None:
            self.ad_updates.cancel()

    async def close(self) -> None:
        """Withdraw the advert, close zeroconf."""
        if self.discovery is not None:
            d, self.discovery = self.discovery, None
            await d.close()
