"""The host's side of one key directory for two players (H104, protocol.md part L ``same_key``):
a JOIN or PROBE carrying a valid signature by the host's own key is counted (``same_key``) and
raised as ``SameKeyJoin`` (answered as before: the joiner still stops with ``SAME_KEY``);
``NodeLobby`` reports it as ``SameKeyJoined`` once per address, for at most ``SAME_KEY_REPORTS``
addresses. Before, the host printed nothing and waited for players for ever (H101)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from p2p.admission import SAME_KEY
from p2p.faults import FaultPlan, SimNetwork
from p2p.identity import Identity
from p2p.join_code import join_code_tag
from p2p.lobby import Lobby
from p2p.lobby_events import SameKeyJoin
from p2p.node_lobby import SAME_KEY_REPORTS, NodeLobby
from p2p.node_reports import SameKeyJoined

from test_lobby_loss import HOST, LobbyPeer

ME = Identity.from_seed(b"h104-one-laptop")
OTHER = Identity.from_seed(b"h104-another-laptop")
JOINER = ("10.0.0.2", 5000)


def _run(joiner_identity: Identity, by_code: bool) -> tuple[list, LobbyPeer, Lobby]:
    """A 3-seat host of ``ME`` and one joiner (by code or from the advert's keys) over a lossless
    SimNetwork for 5 s: the host's events, the joiner's peer, the host's lobby."""
    host = Lobby.host(ME, edition="classico", seats=3, name="host", endpoint=HOST, chain_length=8)
    events: list = []
    emit = host.emit
    host.emit = lambda ev: (events.append(ev), emit(ev))  # the lobby's events, as they are raised
    if by_code:
        join = Lobby.join(joiner_identity, endpoint=JOINER,
                          host_addr=HOST, game_id=None, name="j", chain_length=8, now=0.0,
                          code_tag=join_code_tag(host.game_id, ME.public_key))
    else:
        join = Lobby.join(joiner_identity, endpoint=JOINER,
                          host_addr=HOST, game_id=host.game_id, name="j", chain_length=8,
                          now=0.0, host_keys=(ME.public_key, ME.x25519_public_key))
    peers = {HOST: LobbyPeer(ME, host, 100), JOINER: LobbyPeer(joiner_identity, join, 101)}
    net = SimNetwork(FaultPlan(seed=1))
    for addr, peer in peers.items():
        net.attach(addr, peer)
    while net.now < 5 and not peers[JOINER].done and net.step():
        pass
    return events, peers[JOINER], host


@pytest.mark.parametrize("by_code", [True, False])
def test_a_join_signed_with_the_hosts_own_key_is_counted_and_raised(by_code):
    """By code (a PROBE) or from the advert (a JOIN): the host raises SameKeyJoin naming the
    joiner's address, counts it, seats nobody; the joiner still stops with SAME_KEY."""
    events, joiner, host = _run(ME, by_code)
    same = [ev for ev in events if isinstance(ev, SameKeyJoin)]
    assert same and all(tuple(ev.addr) == JOINER for ev in same)
    assert host.stats["same_key"] == len(same)
    assert joiner.aborted is not None and joiner.aborted.reason == SAME_KEY
    assert len(host.admission.joined) == 1


@pytest.mark.parametrize("by_code", [True, False])
def test_a_joiner_with_its_own_key_raises_no_same_key_event(by_code):
    events, joiner, host = _run(OTHER, by_code)
    assert not any(isinstance(ev, SameKeyJoin) for ev in events)
    assert "same_key" not in host.stats and len(host.admission.joined) == 2 and joiner.aborted is None


class _FakeLobby:
    """What ``NodeLobby.pump`` reads of a lobby, with the events given."""

    host_address = None

    def __init__(self, events: list) -> None:
        self._events = list(events)

    def peer_keys(self) -> list:
        return []

    def messages_to_send(self) -> list:
        return []

    def peer_addresses(self) -> list:
        return []

    def next_event(self):
        return self._events.pop(0) if self._events else None


def _node(reports: list) -> SimpleNamespace:
    """What NodeLobby uses of a host node: reports go to ``reports``; call_soon runs at once."""
    return SimpleNamespace(cfg=SimpleNamespace(role="host", observer=None), report=reports.append,
                           loop=SimpleNamespace(call_soon=lambda fn: fn()),
                           link=SimpleNamespace(endpoint=SimpleNamespace(trust=lambda addrs: None),
                                                send=lambda addr, raw: None))


def test_node_lobby_reports_each_address_once_and_few_addresses():
    """Repeated JOINs from one address give one report; new ports stop being reported after
    SAME_KEY_REPORTS addresses (a retrying player never floods the host's screen)."""
    reports: list = []
    nl = NodeLobby(_node(reports))
    addrs = [("127.0.0.1", 40000 + i) for i in range(SAME_KEY_REPORTS + 3)]
    nl.lobby = _FakeLobby([SameKeyJoin(a) for a in addrs for _ in range(3)])
    assert nl.pump() is True
    assert reports == [SameKeyJoined(a, p) for a, p in addrs[:SAME_KEY_REPORTS]]
    nl.lobby = _FakeLobby([SameKeyJoin(addrs[0])])
    nl.pump()
    assert len(reports) == SAME_KEY_REPORTS


def test_a_kept_probe_answered_at_confirmation_is_reported_at_once():
    """A PROBE kept until its channel confirms (protocol.md §N3.1) is answered from the endpoint's
    on_confirm, where no pump follows; the joiner stops at that answer, so no datagram would ever
    pump its SameKeyJoin (seen on loopback, H104): the answer's send reports it too."""
    reports: list = []
    nl = NodeLobby(_node(reports))
    nl.lobby = _FakeLobby([SameKeyJoin(JOINER)])
    nl.lobby.admission = SimpleNamespace(probe_confirmed=lambda addr, now: True)
    nl._confirmed(JOINER, 1.0)  # noqa: SLF001 (what Endpoint.on_confirm calls)
    assert reports == [SameKeyJoined(*JOINER)]
