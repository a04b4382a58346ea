"""The lobby over the real transport under loss, with the reflection bound kept through trust (H77;
protocol.md §N2.6 "Reflection", §C2.2 step 2 "Lobby re-sends").

The host trusts a joiner's address once its valid JOIN arrived, but trust no longer lifts the
unconfirmed-channel bound (a spoofed JOIN is valid too): the host's channel sends at most 3x what
the address sent until the joiner answers a CHALLENGE. A joiner therefore re-sends its JOIN (the
same bytes) every ``JOIN_RESEND_S`` while it has no PROPOSAL, and at once (rate-limited) when
another seat's SETUP_SIG or SEED shows the host proposed. ``LobbyPeer`` (``p2p.lobby_sim``, re-exported
here for the tests that import it from this module) drives a ``Lobby`` and its ``Endpoint`` the way
``p2p.node_lobby.NodeLobby.pump`` does, on ``p2p.faults.SimNetwork``.
"""

from __future__ import annotations

import pytest

from p2p import const as C
from p2p.faults import FaultPlan, SimNetwork
from p2p.identity import Identity
from p2p.join_resend import JOIN_HINT_S, JOIN_RESEND_S, PROBE_RESEND_MAX_S, PROBE_RESEND_S
from p2p.lobby import ABORTED, WAITING, Lobby
from p2p.lobby_sim import HOST, LobbyPeer, lobby_game  # noqa: F401 (re-exported)
from p2p.wire import MSG_JOIN, MSG_SETUP_SIG, SetupSig, open_envelope, seal_message


def _lobby_game(seed: int, seats: int, loss: float) -> tuple[dict, SimNetwork]:
    """H77's seeded lobby (``loss``, 10% reordered): ``seats`` - 1 joiners with the advert's keys."""
    return lobby_game(Identity.from_seed(b"h77-host-%d" % seed),
                      [Identity.from_seed(b"h77-j%d-%d" % (i, seed)) for i in range(1, seats)],
                      FaultPlan(seed=seed, loss=loss, reorder=0.1), until=C.SETUP_TIMEOUT, demo_seed=b"h77-%d" % seed)


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("seed", range(6))
def test_honest_joiners_at_20_percent_loss_still_start_under_the_bound(seed, seats):
    """§N2.6, §C2.2 step 2 (H77): at 20% loss (seeded, in memory) every seat starts the same
    game before SETUP_TIMEOUT although the host's channels stay bounded until each joiner
    answered a CHALLENGE (H48: without the JOIN re-sends 3 of 5 3-peer demos stalled). Once the
    game started every seat's channel is confirmed, or bounded as a seat's with its CHALLENGE out
    until the RESPONSE (``restrict``, §N2.6 "Game started", H82; no game traffic here)."""
    peers, _net = _lobby_game(seed, seats, 0.2)
    assert all(p.started is not None for p in peers.values()), [p.lobby.phase for p in peers.values()]
    assert len({p.started.game_seed for p in peers.values()}) == 1
    host_channels = peers[HOST].ep.channels
    assert set(host_channels) == set(peers) - {HOST}
    assert all(ch.confirmed or ch.route.seat for ch in host_channels.values())


def test_the_host_trusts_a_joiners_address_only_once_it_answers():
    """§N2.6 (H77), §C2.2 step 2 (H170): the channel a JOIN opened stays unconfirmed; the host sends
    it only the CHALLENGE, seats and trusts nobody; the RESPONSE confirms it, the kept JOIN is
    seated then (the address trusted) and the STATUS follows."""
    host_id, joiner_id = Identity.from_seed(b"h77-h"), Identity.from_seed(b"h77-j")
    host = Lobby.host(host_id, edition="classico", seats=4, name="host", endpoint=HOST, chain_length=8)
    hp = LobbyPeer(host_id, host, 6)
    jp = LobbyPeer(joiner_id, Lobby.join(joiner_id, endpoint=("10.0.0.2", 5000),
                                         host_addr=HOST, game_id=host.game_id, name="j",
                                         chain_length=8, host_keys=(host_id.public_key, host_id.x25519_public_key)), 7)
    j_addr = ("10.0.0.2", 5000)
    for data, _dst in jp.datagrams_to_send(0.0):
        hp.receive_datagram(data, j_addr, 0.0)
    ch = hp.ep.channels[j_addr]
    assert j_addr not in hp.ep.trusted and j_addr not in host.peer_addresses()
    assert not ch.confirmed
    for data, _dst in hp.datagrams_to_send(0.0):  # the CHALLENGE
        jp.receive_datagram(data, HOST, 0.001)
    for data, _dst in jp.datagrams_to_send(0.001):  # the RESPONSE
        hp.receive_datagram(data, j_addr, 0.002)
    assert ch.confirmed and j_addr in hp.ep.trusted and j_addr in host.peer_addresses()
    for data, _dst in hp.datagrams_to_send(0.002):  # the STATUS
        jp.receive_datagram(data, HOST, 0.003)
    assert jp.lobby.phase == WAITING


def test_a_joiner_resends_the_same_join_until_its_deadline():
    """§C2.2 step 2 (H77; H170: as a PROBE until the host's STATUS): without an answer the joiner
    sends the same JOIN bytes PROBE_RESEND_S after it, then every PROBE_RESEND_MAX_S, and aborts at
    JOIN_TIMEOUT ("no answer from the host")."""
    lob = Lobby.join(Identity.from_seed(b"j"), endpoint=("10.0.0.2", 5000),
                     host_addr=HOST, game_id=b"\x01" * 16, name="j", chain_length=8)
    (first,) = lob.messages_to_send()
    copies = []
    while (t := lob.get_timer()) is not None:
        lob.handle_timer(t)
        copies += lob.messages_to_send()
    assert lob.phase == ABORTED
    assert copies == [first] * (1 + round((C.JOIN_TIMEOUT - 2 * PROBE_RESEND_S) / PROBE_RESEND_MAX_S))


def _joiner_and_host() -> tuple[Lobby, Lobby]:
    host_id = Identity.from_seed(b"h77-h")
    host = Lobby.host(host_id, edition="classico", seats=3, name="host", endpoint=HOST, chain_length=8)
    joiner = Lobby.join(Identity.from_seed(b"h77-j"), endpoint=("10.0.0.2", 5000),
                        host_addr=HOST, game_id=host.game_id, name="j",
                        chain_length=8, host_keys=(host_id.public_key, host_id.x25519_public_key))
    return host, joiner


def test_a_waiting_joiner_resends_its_join_and_the_host_answers_status_again():
    """§C2.2 step 2 (H77): seated, with no PROPOSAL yet, the joiner still sends its JOIN (the same
    bytes) every JOIN_RESEND_S; the host answers STATUS (the idempotent repeated join), seats
    nobody new."""
    host, joiner = _joiner_and_host()
    (_, join), = joiner.messages_to_send()
    host.receive_message(join, ("10.0.0.2", 5000), 0.0)
    (_, status), = host.messages_to_send()
    joiner.receive_message(status, HOST, 0.0)
    assert joiner.phase == WAITING and joiner.get_timer() == JOIN_RESEND_S  # from the STATUS on
    joiner.handle_timer(JOIN_RESEND_S)
    assert joiner.messages_to_send() == [(HOST, join)]
    assert joiner.get_timer() == 2 * JOIN_RESEND_S
    host.receive_message(join, ("10.0.0.2", 5000), JOIN_RESEND_S)
    assert host.messages_to_send() == [(("10.0.0.2", 5000), status)] and len(host.members()) == 2


def test_a_setup_sig_before_the_proposal_calls_for_an_early_join_rate_limited():
    """§C2.2 step 2 (H77): a SETUP_SIG (or SEED) of our game reaching a waiting joiner means the
    host proposed and its PROPOSAL may wait under the bound: the JOIN goes out at once, at most
    once per JOIN_HINT_S however many such messages (unchecked: anyone can send them) arrive."""
    host, joiner = _joiner_and_host()
    (_, join), = joiner.messages_to_send()
    host.receive_message(join, ("10.0.0.2", 5000), 0.0)
    (_, status), = host.messages_to_send()
    joiner.receive_message(status, HOST, 0.0)
    other = Identity.from_seed(b"h77-other")
    sig = seal_message(other, MSG_SETUP_SIG, SetupSig(host.game_id, 1, bytes(32), None))
    sent = []
    now = 0.5
    while now < 0.5 + 4 * JOIN_HINT_S - 1e-9:
        joiner.receive_message(sig, ("10.0.0.3", 5000), now)
        if (t := joiner.get_timer()) is not None and t <= now:
            joiner.handle_timer(now)
        sent += [raw for _, raw in joiner.messages_to_send()]
        now += JOIN_HINT_S / 5
    assert sent == [join] * 4
    assert open_envelope(join, C.MAX_LOBBY_MSG).mtype == MSG_JOIN
