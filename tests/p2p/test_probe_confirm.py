"""Join by code over a confirmed address (protocol.md §N3.1, H83): the host answers a PROBE only over
a channel whose address answered the transport's CHALLENGE (§N2.2, §N2.6 "Reflection"), at most
PROBE_RATE per second per source host; the joiner re-sends its PROBE (0.1 s, then doubling up to
JOIN_RESEND_S) so the copy after its RESPONSE is answered. The flood that starved every join by
code is in tests/p2p/test_redteam_lan_lobby.py; here the rules one by one, the loss case and the
property."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from p2p import const as C
from p2p.endpoint import Endpoint
from p2p.faults import FaultPlan, SimNetwork
from p2p.identity import Identity
from p2p.join_code import join_code_tag
from p2p.join_resend import JOIN_RESEND_S, PROBE_RESEND_MAX_S, PROBE_RESEND_S
from p2p.lobby import Lobby
from p2p.wire import MSG_JOIN, MSG_STATUS, open_envelope

from test_lobby_loss import HOST, LobbyPeer

HOST_ID = Identity.from_seed(b"h83-host")


def _host(seats: int = 4) -> Lobby:
    lob = Lobby.host(HOST_ID, edition="classico", seats=seats, name="host", endpoint=HOST, demo_seed=b"h83",
                     chain_length=8)
    lob.messages_to_send()
    return lob


def _probe(seed: bytes) -> bytes:
    return Lobby.join(Identity.from_seed(seed), endpoint=("10.0.0.9", 5000),
                      host_addr=HOST, game_id=None, name="p", chain_length=8,
                      code_tag=1).messages_to_send()[0][1]


PROBES = [_probe(b"h83-p%d" % k) for k in range(4)]


def test_a_probe_from_an_unconfirmed_address_is_dropped_before_its_signature():
    """§N3.1 rule 1: not confirmed -> ``probe_unconfirmed``, nothing sent, no signature check (a
    PROBE with a broken signature is counted the same); confirmed -> the STATUS."""
    lob = _host()
    broken = bytearray(PROBES[0])
    broken[-1] ^= 1
    lob.receive_message(bytes(broken), ("10.0.0.9", 5000), 0.0, None, False)
    lob.receive_message(PROBES[0], ("10.0.0.9", 5000), 0.0, None, False)
    assert lob.stats["probe_unconfirmed"] == 2 and "bad_signature" not in lob.stats
    assert lob.messages_to_send() == []
    lob.receive_message(PROBES[0], ("10.0.0.9", 5000), 0.0, None, True)
    (addr, raw), = lob.messages_to_send()
    assert addr == ("10.0.0.9", 5000) and open_envelope(raw, C.MAX_LOBBY_MSG).mtype == MSG_STATUS


def test_the_probe_budget_is_per_source_host():
    """§N3.1 rule 3: PROBE_RATE answers a second per source host, whatever its port; another
    host keeps its own budget (a prober that proved its address spends only its own)."""
    lob = _host()
    probes = [_probe(b"h83-many%d" % k) for k in range(C.PROBE_RATE + 2)]
    for k, probe in enumerate(probes):  # one machine, many ports, fresh keys
        lob.receive_message(probe, ("10.0.0.66", 7000 + k), 0.0, None, True)
    assert len(lob.messages_to_send()) == C.PROBE_RATE and lob.stats["probe_limit"] == 2
    lob.receive_message(PROBES[1], ("10.0.0.7", 5000), 0.0, None, True)
    assert [a for a, _ in lob.messages_to_send()] == [("10.0.0.7", 5000)]


def test_a_probe_is_resent_sooner_then_like_a_join():
    """join_resend.py: a PROBE's first copy goes out PROBE_RESEND_S after it, each next one twice as
    late up to PROBE_RESEND_MAX_S; once the host's STATUS came, the real JOIN goes out at once and its
    copies every JOIN_RESEND_S (§C2.2 step 2)."""
    host = _host()
    j = Lobby.join(Identity.from_seed(b"h83-j"), endpoint=("10.0.0.2", 5000),
                   host_addr=HOST, game_id=None, name="j", chain_length=8,
                   code_tag=join_code_tag(host.game_id, HOST_ID.public_key))
    (_, probe), = j.messages_to_send()
    times, expected, gap = [], [PROBE_RESEND_S], PROBE_RESEND_S
    while expected[-1] + min(2 * gap, PROBE_RESEND_MAX_S) < 6.0:
        gap = min(2 * gap, PROBE_RESEND_MAX_S)
        expected.append(expected[-1] + gap)
    while (t := j.get_timer()) is not None and t < 6.0:
        j.handle_timer(t)
        times.append(t)
        assert j.messages_to_send() == [(HOST, probe)]
    assert times == pytest.approx(expected) and len(times) >= 5
    host.receive_message(probe, ("10.0.0.2", 5000), 6.0, None, True)
    (_, status), = host.messages_to_send()
    j.receive_message(status, HOST, 6.0)
    (_, join), = j.messages_to_send()
    assert j.game_id == host.game_id and open_envelope(join, C.MAX_LOBBY_MSG).mtype == MSG_JOIN and join != probe
    assert j.get_timer() == 6.0 + JOIN_RESEND_S


def _code_game(seed: int, seats: int, loss: float) -> dict:
    host_id = Identity.from_seed(b"h83-host-%d" % seed)
    host = Lobby.host(host_id, edition="classico", seats=seats, name="host", endpoint=HOST,
                      demo_seed=b"h83-%d" % seed, chain_length=8)
    tag = join_code_tag(host.game_id, host_id.public_key)
    peers = {HOST: LobbyPeer(host_id, host, 100)}
    for i in range(1, seats):
        ident = Identity.from_seed(b"h83-j%d-%d" % (i, seed))
        peers[("10.0.0.%d" % (i + 1), 5000)] = LobbyPeer(ident, Lobby.join(
            ident, endpoint=("10.0.0.%d" % (i + 1), 5000), host_addr=HOST, game_id=None, name=f"j{i}", chain_length=8,
            code_tag=tag), 100 + i)
    net = SimNetwork(FaultPlan(seed=seed, loss=loss, reorder=0.1))
    for addr, peer in peers.items():
        net.attach(addr, peer)
    while net.now < C.SETUP_TIMEOUT and not all(p.done for p in peers.values()) and net.step():
        pass
    return peers


@pytest.mark.parametrize("seats", [2, 4])
@pytest.mark.parametrize("seed", range(5))
def test_honest_joiners_by_code_at_20_percent_loss_start(seed, seats):
    """§N3.1 (H83): at 20% loss (seeded, in memory) joiners by code, whose PROBE is answered only
    once their address answered a CHALLENGE, all start the same game before SETUP_TIMEOUT."""
    peers = _code_game(seed, seats, 0.2)
    assert all(p.started is not None for p in peers.values()), [p.lobby.phase for p in peers.values()]
    assert len({p.started.game_seed for p in peers.values()}) == 1
    assert peers[HOST].lobby.stats["probes"] >= seats - 1


def _confirm(host: Endpoint, addr: tuple, epoch: int, now: float) -> None:
    """A peer at ``addr`` sends the host one datagram and answers its CHALLENGE."""
    peer = Endpoint(epoch=epoch)
    peer.send(HOST, b"probe")
    for d, _ in peer.datagrams_to_send(now):
        host.receive_datagram(d, addr, now)
    for d, a in host.datagrams_to_send(now):  # its CHALLENGE
        if a == addr:
            peer.receive_datagram(d, HOST, now)
    for d, _ in peer.datagrams_to_send(now):  # the RESPONSE
        host.receive_datagram(d, addr, now)


def test_a_confirmed_stranger_is_evicted_after_every_unconfirmed_one():
    """§N2.6 "Strangers": with ``max_peers`` channels, a datagram from a new source evicts an
    *unconfirmed* untrusted channel first (here every source host holds one), so spoofed sources
    cannot push out a joiner by code between its RESPONSE and its next PROBE."""
    host = Endpoint(epoch=5, max_peers=4)
    j_addr = ("10.0.0.2", 5000)
    _confirm(host, j_addr, 6, 0.0)
    assert host.confirmed(j_addr) and not host.confirmed(("10.0.0.3", 1))
    spoofer = Endpoint(epoch=7)
    for k in range(20):  # later than the joiner, each from a new source host
        spoofer.send(HOST, b"x")
        (d, _), = spoofer.datagrams_to_send(0.1 + k / 100)
        host.receive_datagram(d, ("10.9.0.%d" % k, 6000), 0.1 + k / 100)
    assert j_addr in host.channels and host.stats["evicted"] == 20 - 3


def test_the_host_with_the_most_strangers_gives_one_up_first():
    """§N2.6 "Strangers" (H85's attack): one machine on many ports, each answering its CHALLENGE
    and heard more recently than the joiner, evicts its own channels, not the joiner's."""
    host = Endpoint(epoch=5, max_peers=4)
    j_addr = ("10.0.0.2", 5000)
    _confirm(host, j_addr, 6, 0.0)
    for port in range(10):
        _confirm(host, ("10.9.9.9", 20000 + port), 100 + port, 0.1 + port / 100)
    assert j_addr in host.channels and host.confirmed(j_addr)
    assert sum(1 for a in host.channels if a[0] == "10.9.9.9") == 3


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.floats(0, 0.3)),
                max_size=60), st.sets(st.integers(0, 3)))
def test_answers_go_only_to_confirmed_sources_within_their_budget(events, confirmed):
    """Property (§N3.1): whatever PROBEs come (key k, source host h, port, time), the host answers
    only sources whose channel is confirmed, each source host at most PROBE_RATE in a burst
    plus PROBE_RATE a second, and each key at most once per PROBE_REPEAT_S at each source address
    (H96: per key and address, so a replay from elsewhere silences nobody)."""
    lob = _host()
    now, answers = 0.0, []
    for key, h, port, dt in events:
        now += dt
        addr = ("10.0.1.%d" % h, 5000 + port)
        lob.receive_message(PROBES[key], addr, now, None, h in confirmed)
        out = lob.messages_to_send()
        answers += [(now, h, (key, addr)) for _ in out]
        assert all(a == addr for a, _ in out)
    assert all(h in confirmed for _, h, _ in answers)
    for t0, h0, _ in answers:
        in_second = [t for t, h, _ in answers if h == h0 and t0 <= t < t0 + 1.0]
        assert len(in_second) <= 2 * C.PROBE_RATE
    for seen in {s for _, _, s in answers}:
        times = [t for t, _, s in answers if s == seen]
        assert all(b - a >= C.PROBE_REPEAT_S for a, b in zip(times, times[1:]))
