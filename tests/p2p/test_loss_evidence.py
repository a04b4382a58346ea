"""What counts as evidence of loss: the lobby must not start the lossy regime on a clean network
(protocol.md §N2.4 "Lossy regime", §N2.5 "Retransmission", §N2.6 "Reflection"; H80).

The regression (issue 14, 8-seat datagrams per step 1.02 -> 1.05-1.14 once demo joiners joined
by code): the host's channel to a joiner entered the lossy regime in the lobby and was still in
it when the game started; on a loaded machine the regime's own tail-loss probes then kept it on
for the whole game (a copy and a prompt ack per datagram). Three rules the lobby broke, each
tested here on ``SimNetwork`` or by hand (virtual clock, no timing): a CHALLENGE or RESPONSE
cleared the ack it cannot carry, so the datagram it answered timed out; a peer silent for two
RTOs (a joiner by code rebuilding its 65,536-hash demo chain before its first ack) counted as two
losses; and datagrams the return-route bound withheld, or resent at the CHALLENGE's answer,
counted as lost.
"""

from __future__ import annotations

import pytest

from p2p import const as C
from p2p.endpoint import Endpoint
from p2p.faults import FaultPlan, SimNetwork
from p2p.identity import Identity
from p2p.join_code import join_code_tag
from p2p.lobby import Lobby
from p2p.recv_stream import MAX_ACK_DELAY
from p2p.transport import FLAG_CHALLENGE, HEADER
from test_lobby_loss import HOST, LobbyPeer


class Busy:
    """A ``LobbyPeer`` (a joiner by code) whose process is busy for ``stall`` s once the host's
    STATUS named the game id (with a demo seed it rebuilds its hash chain for that id,
    ``Lobby.adopt_game_id``): datagrams wait in the socket, nothing is sent, no timer runs."""

    def __init__(self, peer: LobbyPeer, stall: float) -> None:
        self.peer = peer
        self.stall = stall
        self.until: float | None = None
        self.held: list = []

    def __getattr__(self, name: str):
        return getattr(self.peer, name)

    def _busy(self, now: float) -> bool:
        return self.until is not None and now < self.until

    def receive_datagram(self, data: bytes, src: tuple, now: float) -> list:
        if self._busy(now):
            self.held.append((data, src))
            return []
        self._wake(now)
        out = self.peer.receive_datagram(data, src, now)
        if self.until is None and self.peer.lobby.game_id != C.PROBE_GAME_ID:
            self.until = now + self.stall  # the STATUS named the game: the rebuild starts
        return out

    def _wake(self, now: float) -> None:
        held, self.held = self.held, []
        for data, src in held:
            self.peer.receive_datagram(data, src, now)

    def datagrams_to_send(self, now: float) -> list:
        if self._busy(now):
            return []
        self._wake(now)
        return self.peer.datagrams_to_send(now)

    def get_timer(self) -> float | None:
        t = self.peer.get_timer()
        if self.until is None:
            return t
        if self.held or (t is not None and t < self.until):
            return self.until  # the datagrams held, and the timers due meanwhile, wait for it
        return t

    def handle_timer(self, now: float) -> None:
        if not self._busy(now):
            self._wake(now)
            self.peer.handle_timer(now)


def lobby_game(seats: int, by_code: bool, delay: float, stall: float = 0.0, seed: int = 0) -> dict:
    """``seats`` peers on a clean network (one-way ``delay`` s, no loss, no reordering) until
    every one started the game; joiners join by code (PROBE first, plain channel keyed later,
    §N3.1) or from the advert (the host's keys known, §N3). Joiner 1 stalls ``stall`` s after
    the host's first datagram."""
    host_id = Identity.from_seed(b"h80-host-%d" % seed)
    host = Lobby.host(host_id, edition="classico", seats=seats, name="host", endpoint=HOST,
                      demo_seed=b"h80-%d" % seed, chain_length=8)
    peers: dict = {HOST: LobbyPeer(host_id, host, 100)}
    for i in range(1, seats):
        ident = Identity.from_seed(b"h80-j%d-%d" % (i, seed))
        if by_code:
            lob = Lobby.join(ident, endpoint=("10.0.0.%d" % (i + 1), 5000),
                             host_addr=HOST, game_id=None, name=f"j{i}", chain_length=8,
                             code_tag=join_code_tag(host.game_id, host_id.public_key))
        else:
            lob = Lobby.join(ident, endpoint=("10.0.0.%d" % (i + 1), 5000),
                             host_addr=HOST, game_id=host.game_id, name=f"j{i}", chain_length=8,
                             host_keys=(host_id.public_key, host_id.x25519_public_key))
        peer = LobbyPeer(ident, lob, 100 + i)
        peer.ep.accept_plain = by_code  # as p2p.node_lobby: host_keys is None
        peers[("10.0.0.%d" % (i + 1), 5000)] = Busy(peer, stall) if i == 1 and stall else peer
    net = SimNetwork(FaultPlan(seed=seed, delay=delay))
    for addr, peer in peers.items():
        net.attach(addr, peer)
    while net.now < C.SETUP_TIMEOUT and not all(p.done for p in peers.values()) and net.step():
        pass
    assert all(p.started is not None for p in peers.values())
    return {"peers": peers, "now": net.now, "net": net}


def channel_states(game: dict) -> dict:
    """(peer index, other peer index) -> what a game starts from: keyed, introducing, lossy,
    backed off. (Confirmed or not at that instant depends on which CHALLENGEs were answered:
    ``drained_confirmed``.)"""
    peers, now = game["peers"], game["now"]
    index = {a: i for i, a in enumerate(peers)}
    return {(index[a], index[b]): (ch.keys is not None, ch.introducing, ch.sender.recovery.lossy(now),
                                    ch.sender.recovery.backed_off)
            for a, p in peers.items() for b, ch in p.ep.channels.items()}


def drained_confirmed(game: dict) -> bool:
    """Whether, once what was on its way at the start arrived, every channel is confirmed."""
    net = game["net"]
    net.run(until=net.now + 0.5)
    return all(ch.confirmed for p in game["peers"].values() for ch in p.ep.channels.values())


def loss_counters(game: dict) -> dict:
    out: dict = {}
    for p in game["peers"].values():
        for ch in p.ep.channels.values():
            for k in ("timeouts", "fast_retransmits", "retransmits", "unconfirmed_withheld", "copies_sent"):
                out[k] = out.get(k, 0) + ch.stats[k]
    return out


@pytest.mark.parametrize("seats", [3, 8])
@pytest.mark.parametrize("delay", [0.0005, 0.02])
def test_a_clean_lobby_starts_the_game_outside_the_lossy_regime_whichever_way_peers_joined(seats, delay):
    """§N2.4, §N2.6 (H80): no loss, no reordering: when the game starts no channel of any peer
    is in the lossy regime or backed off, no selective ack showed a hole and nothing was sent
    twice (a chunk the return-route bound withheld never left: a selective ack without it is no
    hole, and the RESPONSE resends only it). A game joined by code starts from the same channel states as one
    joined from the advert. Before H80 the advert lobby at 8 seats left the host with 10 fast
    retransmits and 5 channels in the regime (withheld datagrams read as holes, and the RESPONSE
    resent the whole window: acks already on the way then showed holes)."""
    games = {code: lobby_game(seats, code, delay) for code in (False, True)}
    for game in games.values():
        n = loss_counters(game)
        # (A lone timeout may happen: before its first sample the RTO, 50 ms, equals the peer's
        # ack delay; it starts no regime.)
        assert n["fast_retransmits"] == n["copies_sent"] == 0, n
        assert not any(lossy or backed for _k, _i, lossy, backed in channel_states(game).values())
    assert channel_states(games[True]) == channel_states(games[False])
    assert all(keyed and not intro for keyed, intro, _l, _b in channel_states(games[True]).values())
    assert drained_confirmed(games[True]) and drained_confirmed(games[False])


def test_a_joiner_by_code_busy_before_its_first_ack_does_not_start_the_hosts_lossy_regime():
    """§N2.4 (H80, the root of the regression): joiner 1 is busy 300 ms after the host's STATUS
    (a demo joiner by code rebuilds its hash chain for the game id the STATUS named). The host
    resends its STATUS at each RTO, nothing acknowledged in between: silence, not loss. The game
    starts with every channel as in a lobby without the stall; before H80 the host's channel
    to joiner 1 was in the lossy regime (two resends within LOSS_HOLD)."""
    stalled = lobby_game(4, True, 0.0005, stall=0.3)
    host = stalled["peers"][HOST]
    j1 = host.ep.channels[("10.0.0.2", 5000)]
    assert j1.stats["timeouts"] >= 2  # the stall did cost the host resends
    assert not j1.sender.recovery.lossy(stalled["now"])
    assert channel_states(stalled) == channel_states(lobby_game(4, True, 0.0005))


def test_a_challenge_does_not_swallow_the_ack_it_cannot_carry():
    """§N2.4 (H80): a CHALLENGE (like a RESPONSE) carries ack 0 and no bits, so the ack owed for
    the datagram it answers must still go out, after MAX_ACK_DELAY as a pure ack. Before H80
    sending the probe cleared the owed ack: a joiner that answered the host's STATUS + CHALLENGE
    with its RESPONSE never acknowledged the STATUS, which timed out at the host (and with the
    RTO of the next one, a second resend started the lossy regime in the lobby)."""
    a, b = ("10.0.0.1", 1), ("10.0.0.2", 1)
    ep_a, ep_b = Endpoint(epoch=1), Endpoint(epoch=2)
    ep_a.send(b, b"first")
    for data, _dst in ep_a.datagrams_to_send(0.0):
        ep_b.receive_datagram(data, a, 0.001)
    out = ep_b.datagrams_to_send(0.001)  # b's channel was opened by a's datagram: it challenges
    assert [HEADER.unpack_from(d)[1] for d, _ in out] == [FLAG_CHALLENGE]
    assert ep_b.get_timer() == pytest.approx(0.001 + MAX_ACK_DELAY)  # the ack is still owed
    acks = [HEADER.unpack_from(d) for d, _ in ep_b.datagrams_to_send(0.001 + MAX_ACK_DELAY)]
    assert [(flags, ack) for _m, flags, _e, _d, _s, ack, _b in acks] == [(0, 1)]  # a pure ack of seq 0
