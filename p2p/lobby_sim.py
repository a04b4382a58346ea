"""Lobbies on the simulated network, for tests and benchmarks: ``LobbyPeer`` drives one ``Lobby``
and its ``Endpoint`` the way ``p2p.node_lobby.NodeLobby.pump`` does, shaped for
``p2p.faults.SimNetwork`` (a virtual clock, seeded faults); ``lobby_game`` runs a host and its
joiners until every seat started or stopped (protocol.md §C2.2, §N2.6, §N3.1).

Nothing here touches a socket or a clock; the node does not import it.
"""

from __future__ import annotations

from typing import Any

from .channel_auth import KeyCache
from .endpoint import Endpoint
from .faults import FaultPlan, SimNetwork
from .identity import Identity
from .join_code import join_code_tag
from .lobby import GameStarted, Lobby, LobbyAborted
from .node_lobby import introduce_while_joining, pin_lobby, start_channels

__all__ = ["HOST", "LobbyPeer", "lobby_game"]

HOST = ("10.0.0.1", 5000)
"""The host's address in ``lobby_game``; joiner ``i`` (1, 2, ...) is at ("10.0.0.<i+1>", 5000)."""


class LobbyPeer:
    """One peer (its lobby and endpoint, ``epoch`` fixed) shaped for ``SimNetwork``: keys, sends and
    trusts like ``NodeLobby.pump``; the host's endpoint answers a kept PROBE at its channel's
    confirmation (``Endpoint.on_confirm``, §N3.1); at ``GameStarted`` restricts and pins the seats
    (``started``), at ``LobbyAborted`` stops (``aborted``)."""

    def __init__(self, identity: Identity, lobby: Lobby, epoch: int) -> None:
        self.ep = Endpoint(epoch=epoch, keys=KeyCache(identity), accept_plain=lobby.role == "host")
        self.ep.on_confirm = self._confirmed  # like NodeLobby: a kept PROBE or JOIN handled (§N3.1, §C2.2)
        lobby.channel_key = self.ep.peer_key
        self.lobby = lobby
        self.started: GameStarted | None = None
        self.aborted: LobbyAborted | None = None

    @property
    def done(self) -> bool:
        """The lobby started or aborted: nothing more is pumped."""
        return self.started is not None or self.aborted is not None

    def pump(self) -> None:
        """What ``NodeLobby.pump`` does after every input: pins, sends, trusts, reads the events."""
        lob, ep = self.lobby, self.ep
        if self.done:
            return
        pin_lobby(ep, lob)
        introduce_while_joining(ep, lob)  # RV16-C F1 (§N2.6 "Strangers")
        for addr, raw in lob.messages_to_send():
            ep.send(addr, raw)
        ep.trust(lob.peer_addresses())
        while (ev := lob.next_event()) is not None:
            if isinstance(ev, GameStarted):
                start_channels(ep, ev)
                self.started = ev
            elif isinstance(ev, LobbyAborted):
                self.aborted = ev

    def _confirmed(self, addr: Any, now: float) -> None:
        if not self.done:
            self.lobby.admission.probe_confirmed(addr, now)  # sent by the pump that follows

    def receive_datagram(self, data: bytes, src: Any, now: float) -> list:
        """``SimNetwork``'s input: the endpoint's payloads go to the lobby; nothing is returned."""
        for addr, payload in self.ep.receive_datagram(data, src, now):
            if not self.done:
                self.lobby.receive_message(payload, addr, now, self.ep.peer_key(addr), self.ep.confirmed(addr))
        self.pump()
        return []

    def datagrams_to_send(self, now: float) -> list:
        """[(bytes, address), ...] due at ``now`` (s, the virtual clock)."""
        self.pump()
        return self.ep.datagrams_to_send(now)

    def get_timer(self) -> float | None:
        """The earliest of the endpoint's and the lobby's timers (s), or None."""
        times = [self.ep.get_timer(), None if self.done else self.lobby.get_timer()]
        times = [t for t in times if t is not None]
        return min(times) if times else None

    def handle_timer(self, now: float) -> None:
        """Run the endpoint's timers, and the lobby's when due."""
        self.ep.handle_timer(now)
        t = self.lobby.get_timer()
        if not self.done and t is not None and now >= t:
            self.lobby.handle_timer(now)
        self.pump()


def lobby_game(host_id: Identity, joiner_ids: list[Identity], plan: FaultPlan, *, until: float, demo_seed: bytes,
               by_code: bool = False, host_name: str = "host") -> tuple[dict[Any, LobbyPeer], SimNetwork]:
    """A classico lobby of ``1 + len(joiner_ids)`` seats (chain length 8, the host's ``demo_seed``)
    on ``SimNetwork(plan)``, run until every peer is ``done`` or the virtual clock passes ``until``
    (s). The host (epoch 100) is at ``HOST``; joiner ``i`` (epoch 100 + i, name "j<i>") joins with
    the host's keys from its advert, or ``by_code`` with the join code's tag (PROBE first, §N3.1).
    Returns ({address: LobbyPeer}, the network: ``net.now`` is when it stopped)."""
    seats = 1 + len(joiner_ids)
    host = Lobby.host(host_id, edition="classico", seats=seats, name=host_name, endpoint=HOST,
                      demo_seed=demo_seed, chain_length=8)
    peers = {HOST: LobbyPeer(host_id, host, 100)}
    tag = join_code_tag(host.game_id, host_id.public_key)
    for i, ident in enumerate(joiner_ids, 1):
        at = ("10.0.0.%d" % (i + 1), 5000)
        if by_code:
            lob = Lobby.join(ident, host_addr=HOST, game_id=None, name=f"j{i}", chain_length=8, now=0.0, endpoint=at,
                             code_tag=tag)
        else:
            lob = Lobby.join(ident, host_addr=HOST, game_id=host.game_id, name=f"j{i}", chain_length=8, endpoint=at,
                             host_keys=(host_id.public_key, host_id.x25519_public_key))
        peers[at] = LobbyPeer(ident, lob, 100 + i)
    net = SimNetwork(plan)
    for addr, peer in peers.items():
        net.attach(addr, peer)
    while net.now < until and not all(p.done for p in peers.values()) and net.step():
        pass
    return peers, net
