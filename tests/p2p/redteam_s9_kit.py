"""Red team, session 9 (H85): what tests/p2p/test_redteam_s9_*.py share — a blind machine at a victim
address, a seat-holder's ghost seat at that address (protocol.md §N2.6 'Reflection', 'Game
started'), the hook by which the attacker's own seat feeds its ghost, a host with an honest joiner
by code (§N3.1) and a flood of bare datagrams from fresh spoofed sources (§N2.6 'Strangers'). The lobby peers are
``test_lobby_loss.LobbyPeer`` (a ``Lobby`` and its ``Endpoint`` pumped as ``NodeLobby.pump`` does).

Everything is sans-I/O on ``p2p.faults.SimNetwork``'s virtual clock: no socket, no timing.
"""

from __future__ import annotations

from typing import Any

from p2p import transport as T
from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.faults import FaultPlan, SimNetwork
from p2p.identity import Identity
from p2p.join_code import join_code_tag
from p2p.lobby import Lobby

from test_lobby_loss import LobbyPeer  # a Lobby and its Endpoint pumped as NodeLobby.pump does

HOST = ("10.9.0.1", 5000)
VICTIM = ("10.9.0.99", 7777)  # a machine that never asked for anything and never answers


def spy(lobby: Lobby, hear: Any) -> None:
    """Make ``hear(addr, payload, peer_key)`` see every lobby payload ``lobby`` receives, and every
    one it sends (``addr`` None): the attacker's own seat shares what it learns and signs with its
    ghost. Wraps the two calls on this one object (a test double's hook, nothing else changes)."""
    receive, drain = lobby.receive_message, lobby.messages_to_send

    def receive_message(data: bytes, addr: Any, now: float, peer_key: bytes | None = None, *rest: Any) -> None:
        receive(data, addr, now, peer_key, *rest)
        hear(addr, data, peer_key)

    def messages_to_send() -> list:
        out = drain()
        for _addr, raw in out:
            hear(None, raw, None)
        return out

    lobby.receive_message = receive_message
    lobby.messages_to_send = messages_to_send


class Blind:
    """The victim's machine at ``VICTIM`` as the network sees it: it counts every byte sent to it
    (``got``, by sender) and never answers; the attacker's spoofed datagrams leave from its
    address (``spoof``; ``spent``: their bytes)."""

    def __init__(self) -> None:
        self.got: dict[tuple, int] = {}
        self.spent = 0
        self.spent_to: dict[tuple, int] = {}
        self._out: list[tuple[bytes, tuple]] = []

    def spoof(self, data: bytes, dst: tuple) -> None:
        self._out.append((data, dst))
        self.spent += len(data)
        self.spent_to[dst] = self.spent_to.get(dst, 0) + len(data)

    def receive_datagram(self, data: bytes, src: tuple, now: float) -> list:
        self.got[src] = self.got.get(src, 0) + len(data)
        return []

    def datagrams_to_send(self, now: float) -> list:
        out, self._out = self._out, []
        return out

    def get_timer(self) -> float | None:
        return None

    def handle_timer(self, now: float) -> None:
        pass


class Ghost:
    """A seat-holder's second key ``identity`` seated at ``VICTIM`` (protocol.md §N2.6, 'a ghost
    seat at a spoofed address'): its own lobby, fed every lobby payload the attacker's real seat
    receives (the same bytes the host and seats send everyone), its messages sent by an endpoint
    keyed with its own keys and spoofed from ``VICTIM`` — each datagram once: the attacker
    retransmits nothing and never sees what reaches ``VICTIM``."""

    def __init__(self, identity: Identity, lobby: Lobby, blind: Blind, epoch: int = 4242) -> None:
        self.lobby = lobby
        self.ep = Endpoint(epoch=epoch, keys=KeyCache(identity), accept_plain=False)
        self.blind = blind
        self.sent: set[bytes] = set()

    def hear(self, addr: tuple | None, payload: bytes, peer_key: bytes | None, now: float, me: Any = None) -> None:
        """The attacker's real seat received ``payload`` from ``addr`` (or sent it: ``addr``
        None, ``me`` its (address, X25519 key)): its ghost learns it too."""
        if addr is None:
            addr, peer_key = me
        if self.lobby.phase not in ("started", "aborted"):
            self.lobby.receive_message(payload, addr, now, peer_key)
        self.flush(now)

    def flush(self, now: float) -> None:
        for addr, xk in self.lobby.peer_keys():
            self.ep.pin(addr, xk)
        for addr, raw in self.lobby.messages_to_send():
            self.ep.send(tuple(addr), raw)
        for data, dst in self.ep.datagrams_to_send(now):
            if data not in self.sent:  # first copies only
                self.sent.add(data)
                self.blind.spoof(data, dst)


def network(peers: dict[tuple, Any], seed: int = 0, loss: float = 0.0) -> SimNetwork:
    """A seeded ``SimNetwork`` with ``peers`` attached (address -> node-shaped object)."""
    net = SimNetwork(FaultPlan(seed=seed, loss=loss))
    for addr, peer in peers.items():
        net.attach(addr, peer)
    return net


JOINER = ("10.9.0.2", 5000)
HOST_ID = Identity.from_seed(b"h85-code-host")
JOINER_ID = Identity.from_seed(b"h85-code-joiner")
#: When the honest joiner by code starts (the attacker's traffic runs from 0).
T_JOIN = 1.0


def host_and_joiner(seats: int = 4) -> tuple[LobbyPeer, LobbyPeer]:
    """The host at HOST (``seats``) and an honest joiner by code at JOINER starting at T_JOIN (its
    endpoint accepts plain datagrams, as ``NodeLobby.open`` sets it without the host's keys).
    Peers: ``test_lobby_loss.LobbyPeer``."""
    host = Lobby.host(HOST_ID, edition="classico", seats=seats, name="h", endpoint=HOST, chain_length=8)
    joiner = Lobby.join(JOINER_ID, endpoint=JOINER, host_addr=HOST, game_id=None, name="j", chain_length=8, now=T_JOIN,
                        code_tag=join_code_tag(host.game_id, HOST_ID.public_key))
    hp, jp = LobbyPeer(HOST_ID, host, 1), LobbyPeer(JOINER_ID, joiner, 2)
    jp.ep.accept_plain = True  # as NodeLobby.open for a join without the host's keys
    return hp, jp


def spoofed_flood(net, rate: float, until: float, start: float = 0.0, data: bool = False) -> None:
    """Schedule ``rate`` plain datagrams a second on ``net`` for ``until`` s from ``start``, each
    from a fresh spoofed source address: each opens a stranger channel on the host, none ever
    answers anything. A bare header (22 B), or with ``data`` a first DATA chunk of one byte (the
    host's channel then holds a stream)."""
    junk = T.HEADER.pack(T.MAGIC, T.FLAG_DATA if data else 0, 5, 0, 0, 0, 0) + (b"x" if data else b"")
    for n in range(int(rate * until)):
        src = ("10.%d.%d.%d" % (20 + n // 65025, n // 255 % 255, n % 255), 9000)
        net.inject(src, HOST, junk, delay=start + n / rate)
