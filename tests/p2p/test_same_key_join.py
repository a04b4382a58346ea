"""A host and a joiner with one key (protocol.md §C2.2, H96): on one computer, two programs with the
default key directory are the same player. The host refuses the JOIN (REJECT "other keys"), which
told a teacher trying a game on one laptop nothing; now the joiner stops as soon as a host
message is signed with its own key (nobody else holds it) with ``admission.SAME_KEY``, which ui
turns into a hint naming ``--config-dir`` (tests/ui/test_same_key_hint.py)."""

from __future__ import annotations

import pytest

from p2p.admission import SAME_KEY
from p2p.faults import FaultPlan, SimNetwork
from p2p.identity import Identity
from p2p.join_code import join_code_tag
from p2p.lobby import Lobby

from test_lobby_loss import HOST, LobbyPeer

ME = Identity.from_seed(b"h96-one-laptop")


@pytest.mark.parametrize("by_code", [True, False])
def test_a_joiner_whose_host_holds_its_own_key_stops_with_same_key(by_code):
    """By code (the host's STATUS answers the PROBE) or from the advert's keys (the host's REJECT
    answers the JOIN): the joiner aborts with SAME_KEY, no REJECT code, nothing seated."""
    host = Lobby.host(ME, edition="classico", seats=2, name="host", endpoint=HOST, chain_length=8)
    if by_code:
        join = Lobby.join(ME, endpoint=("10.0.0.2", 5000),
                          host_addr=HOST, game_id=None, name="j", chain_length=8, now=0.0,
                          code_tag=join_code_tag(host.game_id, ME.public_key))
    else:
        join = Lobby.join(ME, endpoint=("10.0.0.2", 5000),
                          host_addr=HOST, game_id=host.game_id, name="j", chain_length=8, now=0.0,
                          host_keys=(ME.public_key, ME.x25519_public_key))
    peers = {HOST: LobbyPeer(ME, host, 100), ("10.0.0.2", 5000): LobbyPeer(ME, join, 101)}
    net = SimNetwork(FaultPlan(seed=1))
    for addr, peer in peers.items():
        net.attach(addr, peer)
    joiner = peers[("10.0.0.2", 5000)]
    while net.now < 5 and not joiner.done and net.step():
        pass
    assert joiner.aborted is not None and joiner.aborted.reason == SAME_KEY
    assert joiner.aborted.reject_code is None and len(host.admission.joined) == 1
