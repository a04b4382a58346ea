"""Forged fresh epochs on a plain channel (protocol.md §N2.2 epochs, §N2.6 return routability,
§N3.1 join by code; H86).

H84 saw bench/bench_spoof.py's attacked game by join code never start ('no answer from the
host'); its 22-byte plain pure acks with a fresh src_epoch, spoofed from the joiner's address,
were enough. The cause: ``EpochProof`` held ONE challenge; a forged epoch's challenge replaced the
return-routability challenge of the joiner's own epoch (its RESPONSE then proved nothing), and the
channel did not challenge the joiner again while another epoch's was pending, so the host's
channel to the joiner was never confirmed and a PROBE is answered only over a confirmed channel
(§N3.1 rule 0). A forged *first* datagram also made the joiner's real epoch wait for a proof.
Now the return-routability challenge has a slot and a rate limit of its own, and a channel with
no stream state yet takes a new epoch as at first contact.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p import transport as T
from p2p.channel_auth import EpochProof
from p2p.endpoint import Endpoint
from p2p.identity import Identity
from p2p.join_code import join_code_tag
from p2p.lobby import ABORTED, WAITING, Lobby

from redteam_s9_kit import HOST, HOST_ID, JOINER, T_JOIN, host_and_joiner, network
from test_lobby_loss import LobbyPeer  # a Lobby and its Endpoint pumped as NodeLobby.pump does

H, J = ("10.9.0.1", 5000), ("10.9.0.2", 5000)
A_ADDR, B_ADDR = ("127.0.0.1", 1001), ("127.0.0.2", 1002)


def _forged(epoch: int) -> bytes:
    """A bare plain pure ack with src_epoch ``epoch`` (22 bytes: anyone can send it from any address)."""
    return T.HEADER.pack(T.MAGIC, 0, epoch, 0, 0, 0, 0)


def _pump(src: Endpoint, src_addr, dst: Endpoint, now: float, drop_challenges: bool = False) -> list:
    """Deliver everything ``src`` has due to ``dst``; the payloads ``dst`` completes."""
    got = []
    for d, _a in src.datagrams_to_send(now):
        if drop_challenges and d[1] & T.FLAG_CHALLENGE:
            continue
        got.extend(p for _s, p in dst.receive_datagram(d, src_addr, now))
    return got


def test_the_return_routability_challenge_has_its_own_slot():
    """EpochProof: challenging another epoch (``unproven``) keeps the current epoch's check and
    its nonce, and the other way round; each RESPONSE matches only its own slot."""
    proof = EpochProof()
    assert proof.check(5, now=0.0)
    check = proof.take_check()
    assert check is not None and check[0] == 5 and not proof.due
    assert proof.unproven(9, now=0.0)  # its own rate limit: not limited by the check just made
    challenge = proof.take()[1]
    assert challenge[0] == 9 and proof.pending_check == check
    assert proof.checks(5, check[1]) and not proof.proves(5, check[1])
    assert proof.proves(9, challenge[1]) and not proof.checks(9, challenge[1])
    proof.checked()
    assert proof.pending_check is None and proof.pending[0] == challenge
    proof.check(5, now=1.0)
    proof.proven()  # a new instance believed: the old one's check can no longer be answered
    assert proof.pending == (None, None) and proof.pending_check is None


def test_a_forged_epoch_does_not_keep_a_stranger_unconfirmed():
    """§N2.6: J opens a plain channel on H with data; a forged fresh-epoch ack from J's address
    lands before J's RESPONSE. J's RESPONSE still confirms H's channel (it failed before H86: the
    forged epoch's challenge had replaced J's), and the forged epoch reset nothing."""
    h, j = Endpoint(epoch=1), Endpoint(epoch=2)
    j.send(H, b"probe")
    assert _pump(j, J, h, 0.0) == [b"probe"]
    ch = h.channels[J]
    assert not ch.confirmed and ch.peer_epoch == 2
    h.receive_datagram(_forged(777), J, 0.001)  # the attacker, from J's address
    _pump(h, H, j, 0.002)  # H's CHALLENGEs (J's and the forged epoch's) reach J
    _pump(j, J, h, 0.003)  # J's RESPONSE (and its ack)
    assert ch.confirmed and ch.peer_epoch == 2 and h.channels[J] is ch
    j.send(H, b"again")
    assert _pump(j, J, h, 0.004) == [b"again"]


def test_a_forged_first_datagram_does_not_make_the_real_peer_wait_for_a_proof():
    """§N2.2 'first contact': a forged bare ack opens H's channel for J's address with a forged
    epoch; J's first datagram (data) is delivered at once: the channel had nothing to protect."""
    h, j = Endpoint(epoch=1), Endpoint(epoch=2)
    h.receive_datagram(_forged(777), J, 0.0)
    j.send(H, b"probe")
    assert _pump(j, J, h, 0.001) == [b"probe"]
    assert h.channels[J].peer_epoch == 2


def test_once_data_flowed_a_forged_epoch_still_needs_its_proof():
    """§N2.2: the first-contact rule stops at the first datagram accepted: later a forged fresh
    epoch is only challenged; the stream goes on untouched."""
    h, j = Endpoint(epoch=1), Endpoint(epoch=2)
    j.send(H, b"one")
    assert _pump(j, J, h, 0.0) == [b"one"]
    for e in range(700, 710):
        h.receive_datagram(_forged(e), J, 0.01 * (e - 699))
    ch = h.channels[J]
    assert ch.peer_epoch == 2 and ch.stats["peer_restarts"] == 0
    j.send(H, b"two")
    assert _pump(j, J, h, 0.2) == [b"two"]


def _join_under_forged_epochs(period: float, seed: int = 0) -> str:
    """The by-code host and joiner (redteam_s9_kit) on a seeded virtual network; from t=0 a
    forged fresh-epoch plain pure ack from the joiner's address reaches the host every
    ``period`` s (bench_spoof's 0xB1 datagrams). The joiner's lobby phase at the end."""
    hp, jp = host_and_joiner()
    net = network({HOST: hp}, seed=seed)
    for i in range(int((T_JOIN + C.JOIN_TIMEOUT) / period)):
        net.inject(JOINER, HOST, _forged(90_000 + i), delay=i * period)
    net.run(until=T_JOIN)
    net.attach(JOINER, jp)
    while net.now < T_JOIN + C.JOIN_TIMEOUT and jp.lobby.phase not in (WAITING, ABORTED) and net.step():
        pass
    return jp.lobby.phase


def test_a_joiner_by_code_gets_in_under_forged_epochs_from_its_address():
    """§N3.1 + §N2.6, H84's bench_spoof finding in memory: forged fresh-epoch acks from the
    joiner's address, 12.5/s (bench_spoof's rate per pair) and 2/s: the joiner by code is
    seated. Before H86 both ended 'aborted' (no answer from the host)."""
    assert _join_under_forged_epochs(0.08) == WAITING
    assert _join_under_forged_epochs(0.5) == WAITING


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 2**32 - 1), st.integers(0, 6)), max_size=6), st.booleans())
def test_forged_epochs_anywhere_never_stop_confirmation_nor_delivery(forged, first):
    """Property (§N2.2, §N2.6): whatever forged fresh-epoch acks from J's address reach H, at any
    point of J's exchange (before its first datagram too), J's next message is delivered in order
    and J's RESPONSE to H's latest CHALLENGE confirms H's channel."""
    h, j = Endpoint(epoch=1), Endpoint(epoch=2)
    now, sent, got = 0.0, [], []
    forged = sorted(forged, key=lambda f: f[1])
    if first:
        h.receive_datagram(_forged(3), J, now)
    for i in range(6):
        for epoch, at in forged:
            if at == i and epoch != 2:
                h.receive_datagram(_forged(epoch), J, now)
        now += 0.02
        if i % 2 == 0:
            sent.append(b"m%d" % i)
            j.send(H, sent[-1])
        got += _pump(j, J, h, now)
        now += 0.02
        _pump(h, H, j, now)
    for _ in range(3):  # settle: J's RESPONSEs and retransmissions, no more forgeries
        now += 0.3
        h.handle_timer(now)
        j.handle_timer(now)
        _pump(h, H, j, now)
        got += _pump(j, J, h, now)
    assert got == sent
    assert h.channels[J].confirmed and h.channels[J].peer_epoch == 2


def test_joiners_by_code_finish_the_setup_under_forged_acks():
    """§N2.2 'plain', §C2.2, H84's bench_spoof finding past the PROBE: a 3-seat lobby, two joiners
    by code; from t=0 a forged fresh-epoch plain pure ack every 10 ms between two random peers
    (from one's address to the other). Every peer starts the game. The joiners' endpoints accept
    no plain datagram from unknown addresses, as ``NodeLobby.open`` sets them since H86
    (``LobbyPeer`` does the same); with ``accept_plain`` on, each joiner kept a plain channel
    opened by a forgery at the other joiner's address, the PROPOSAL's pin keyed it in place with
    the forged epoch, and the restart the real epoch then proved discarded the SETUP_SIG queued
    for it: 'removed by the host: we did not confirm the setup in time'."""
    rng = random.Random(86)
    host = Lobby.host(HOST_ID, edition="classico", seats=3, name="h", endpoint=HOST, chain_length=8)
    peers = {HOST: LobbyPeer(HOST_ID, host, 1)}
    for i in range(2):
        ident = Identity.from_seed(b"h86-joiner-%d" % i)
        lobby = Lobby.join(ident, endpoint=("10.9.0.%d" % (2 + i), 5000),
                           host_addr=HOST, game_id=None, name="j%d" % i, chain_length=8, now=T_JOIN,
                           code_tag=join_code_tag(host.game_id, HOST_ID.public_key))
        peers[("10.9.0.%d" % (2 + i), 5000)] = LobbyPeer(ident, lobby, 10 + i)
    assert not any(p.ep.accept_plain for a, p in peers.items() if a != HOST)
    net = network({HOST: peers[HOST]})
    addrs = list(peers)
    for n in range(4000):
        src, dst = rng.sample(addrs, 2)
        net.inject(src, dst, T.HEADER.pack(T.MAGIC, 0, rng.randrange(1, 2**32), 0, 0, rng.randrange(4), 0),
                   delay=n * 0.01)
    net.run(until=T_JOIN)
    for addr, peer in peers.items():
        if addr != HOST:
            net.attach(addr, peer)
    while net.now < 40.0 and not all(p.done for p in peers.values()) and net.step():
        pass
    assert all(p.started is not None for p in peers.values())


def test_an_epoch_proven_after_a_forged_first_contact_is_kept_and_the_streams_go_on():
    """§N2.2: J opened its channel to H (join by code) and a forged ack from H's address came
    first (its epoch taken, as at first contact). H's real datagrams, which acknowledge J's
    PROBE, then prove H's epoch: the forged one was never the peer, so J's stream goes on (no
    restart: H holds it) and H's starts at 0. A later forged epoch only earns a CHALLENGE: the
    proven epoch is kept and every message is delivered (before H86: J restarted its stream
    alone, H dropped J's next chunks as duplicates; and the restarted, empty channel took the
    next forged epoch and proved H's again, restarting every time: 21 restarts and 'no answer
    from the host' in bench_spoof)."""
    h, j = Endpoint(epoch=1), Endpoint(epoch=2, accept_plain=False)
    j.send(H, b"probe")
    got_h, got_j = _pump(j, J, h, 0.0), []
    j.receive_datagram(_forged(777), H, 0.001)  # before any datagram of the real host
    h.send(J, b"status")
    for t in (0.01, 0.02, 0.03, 0.04):  # H's STATUS, J's CHALLENGE of epoch 1, H's RESPONSE...
        got_j += _pump(h, H, j, t)
        got_h += _pump(j, J, h, t)
    ch = j.channels[H]
    assert ch.peer_epoch == 1
    j.receive_datagram(_forged(778), H, 0.05)
    now = 0.05
    j.send(H, b"probe2")
    h.send(J, b"status2")
    for _ in range(20):
        now += 0.05
        h.handle_timer(now)
        j.handle_timer(now)
        got_j += _pump(h, H, j, now)
        got_h += _pump(j, J, h, now)
    assert ch.peer_epoch == 1 and ch.stats["peer_restarts"] == 0
    assert got_h == [b"probe", b"probe2"] and got_j == [b"status", b"status2"]


def test_a_real_restart_still_restarts_both_streams():
    """§N2.2: B restarts (a new epoch, which has acknowledged nothing of ours): A proves it and
    both streams restart from 0, as before (the exception above needs the new epoch to have
    acknowledged our stream)."""
    a, b = Endpoint(epoch=1), Endpoint(epoch=2)
    a.send(B_ADDR, b"one")
    got = []
    now = 0.0
    for _ in range(4):
        now += 0.05
        got += [p for d, _x in a.datagrams_to_send(now) for _s, p in b.receive_datagram(d, A_ADDR, now)]
        for d, _x in b.datagrams_to_send(now):
            a.receive_datagram(d, B_ADDR, now)
    assert got == [b"one"]
    b = Endpoint(epoch=3)  # B restarted
    b.send(A_ADDR, b"hello")
    got_a = []
    for _ in range(20):
        now += 0.05
        a.handle_timer(now)
        b.handle_timer(now)
        for d, _x in b.datagrams_to_send(now):
            got_a += [p for _s, p in a.receive_datagram(d, B_ADDR, now)]
        for d, _x in a.datagrams_to_send(now):
            b.receive_datagram(d, A_ADDR, now)
    assert a.channels[B_ADDR].peer_epoch == 3 and a.channels[B_ADDR].stats["peer_restarts"] == 1
    assert got_a == [b"hello"]
