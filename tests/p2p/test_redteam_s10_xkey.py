"""Red team, session 10 (H94): a joiner whose JOIN names a low-order X25519 key (protocol.md §C2.1
``player = [pk, xk, ...]``, §N2.2 channel keys, §C8.2 escrow keys, §C12.4 delivery keys).

Nobody can derive a shared secret with a low-order point (X25519 gives all zeros; libsodium,
and cryptography before it, refuse it): ``KeyCache`` counts it ``bad_key`` and ``Endpoint.pin``
leaves the channel as it is, so the joiner simply talks over plain channels, which a lobby
accepts (a joiner by code does too). Nothing in the lobby checks ``xk``: the JOIN is validly
signed by ``pk``, the seat is taken, the setup is signed and revealed by every seat, the game
starts. Then every honest peer needs X25519 with that key: the escrow it deals to every seat
(seat loss on, §C8.2) and, in niente-e-come-sembra, the private view of every seat's
deliveries (§C12.7). ``Identity.x25519_exchange`` raises ``ValueError``.

Sans-I/O: ``test_lobby_loss.LobbyPeer`` peers on ``p2p.faults.SimNetwork`` for the host and an
honest joiner, the attacker a ``Lobby`` over a plain ``Endpoint``; then the sessions.
"""

from __future__ import annotations

import pytest

import engine
from p2p import const as C
from p2p.endpoint import Endpoint
from p2p.faults import FaultPlan, SimNetwork
from p2p.identity import Identity
from p2p.lobby import Lobby

from test_lobby_loss import HOST, LobbyPeer

JOINER, ATTACKER = ("10.0.0.2", 5000), ("10.0.0.66", 5000)
LOW_ORDER = bytes(32)  # the X25519 point of order 1: every shared secret with it is zero


class PlainSeat:
    """The attacker: a ``Lobby`` whose JOIN names LOW_ORDER as its X25519 key, over a plain
    ``Endpoint`` (no channel keys: nobody could derive them), pumped as a node pumps its lobby."""

    def __init__(self, identity: Identity, lobby: Lobby) -> None:
        self.lobby = lobby
        self.ep = Endpoint(epoch=666, accept_plain=True)

    def _pump(self) -> None:
        for addr, raw in self.lobby.messages_to_send():
            self.ep.send(tuple(addr), raw)
        while self.lobby.next_event() is not None:
            pass

    def receive_datagram(self, data: bytes, src: tuple, now: float) -> list:
        for addr, payload in self.ep.receive_datagram(data, src, now):
            if self.lobby.phase not in ("started", "aborted"):
                self.lobby.receive_message(payload, addr, now, None, True)
        self._pump()
        return []

    def datagrams_to_send(self, now: float) -> list:
        self._pump()
        return self.ep.datagrams_to_send(now)

    def get_timer(self) -> float | None:
        timers = [t for t in (self.ep.get_timer(), self.lobby.get_timer()) if t is not None]
        return min(timers) if timers else None

    def handle_timer(self, now: float) -> None:
        self.ep.handle_timer(now)
        self.lobby.handle_timer(now)
        self._pump()


def _lobby(edition: str, options: dict) -> dict:
    """Host, honest joiner (the host's keys from its advert) and the attacker; run until every
    lobby started or aborted (or SETUP_TIMEOUT). Returns {address: lobby}."""
    host_id, joiner_id = Identity.from_seed(b"h94-x-host"), Identity.from_seed(b"h94-x-joiner")
    mallory = Identity.from_seed(b"h94-x-mallory")
    mallory.x25519_public_key = LOW_ORDER  # what its JOIN names (Lobby reads the attribute)
    host = Lobby.host(host_id, edition=edition, seats=3, name="host", endpoint=HOST, options=options,
                      demo_seed=b"h94-x", chain_length=8)
    keys = (host_id.public_key, host_id.x25519_public_key)
    peers = {HOST: LobbyPeer(host_id, host, 100),
             JOINER: LobbyPeer(joiner_id, Lobby.join(joiner_id, endpoint=JOINER,
                                                     host_addr=HOST, game_id=host.game_id, name="j",
                                                     chain_length=8, host_keys=keys), 101),
             ATTACKER: PlainSeat(mallory, Lobby.join(mallory, endpoint=ATTACKER,
                                                     host_addr=HOST, game_id=host.game_id, name="m",
                                                     chain_length=8))}
    net = SimNetwork(FaultPlan(seed=0))
    for addr, peer in peers.items():
        net.attach(addr, peer)
    while net.now < C.SETUP_TIMEOUT and not all(p.lobby.phase in ("started", "aborted") for p in peers.values()) \
            and net.step():
        pass
    return {addr: p.lobby for addr, p in peers.items()}


@pytest.mark.parametrize("edition, options", [("classico", {C.OPT_ON_DROP: "bot"}), ("niente-e-come-sembra", {})],
                         ids=["classico_seat_loss", "niente"])
def test_a_joiner_with_a_low_order_x25519_key_cannot_crash_the_honest_seats(edition, options):
    """The rule (§C2.2 'Checks': a failure is dropped and counted, nothing else; Part L: a bad
    input never crashes a peer): the attacker is refused, or the game starts and every honest
    seat's session is made. H94's break (strict xfail until H96): the attacker was seated, the game
    started and the honest host's start_session raised ValueError('X25519 with a low-order point');
    now the host drops its JOIN (``bad_key``, tests/p2p/test_lobby_xkey.py)."""
    lobbies = _lobby(edition, options)
    if lobbies[ATTACKER].phase != "started":
        assert lobbies[HOST].stats.get("bad_key", 0) >= 1  # refused for its key, not for anything else
        return  # refused at the lobby: the rule holds
    assert lobbies[HOST].phase == lobbies[JOINER].phase == "started"
    for addr in (HOST, JOINER):
        try:
            lobbies[addr].start_session(engine)
        except ValueError as e:
            raise AssertionError(f"{addr}'s session could not start: {e}") from e
