"""Red team, the hostile laptop on the LAN (issue 10, H37): the lobby and admission (protocol.md §C2.2, §N2.6).

Ghost joiners that never sign or sign then vanish, a probe flood against a join by code, a join
flood past the seats, spoofed STATUS/PROPOSAL from the host's address, a replayed LEAVE, and the
early buffer (a SETUP_SIG pushed out by junk). Shared addresses, keys and tools:
tests/p2p/redteam_lan_kit.py.
"""

from __future__ import annotations

import os

import pytest

from p2p import const as C
from p2p.channel_auth import KeyCache
from p2p.datagram import FLAG_DATA, HEADER, MAGIC
from p2p.endpoint import Endpoint
from p2p.faults import SimNetwork
from p2p.identity import Identity
from p2p.join_code import join_code_tag
from p2p.join_resend import PROBE_RESEND_S
from p2p.lobby import ABORTED, WAITING, Lobby
from p2p.wire import MSG_PROPOSAL, MSG_SEED, MSG_SETUP_SIG, SetupSig, open_envelope, seal_message

from redteam_lan_kit import HOST, HOST_ID, MALLORY, TICK, VICTIM, bytes_to
from test_lobby_loss import LobbyPeer

MALLORY_AT = ("127.0.0.66", 6666)
HONEST_AT = ("127.0.0.7", 41007)


def _host(seats: int) -> Lobby:
    lob = Lobby.host(HOST_ID, edition="classico", seats=seats, name="host", endpoint=HOST, demo_seed=b"h37")
    lob.messages_to_send()
    return lob


def _join_raw(identity: Identity, lob: Lobby, at: tuple, **kw) -> bytes:
    j = Lobby.join(identity, endpoint=at,
                   host_addr=HOST, name="ghost", host_keys=(HOST_ID.public_key, HOST_ID.x25519_public_key),
                   **({"game_id": lob.game_id} | kw))
    return j.messages_to_send()[0][1]


@pytest.mark.parametrize("seats", [2, 4])
def test_ghost_joiners_that_never_sign_do_not_kill_the_lobby(seats):
    lob = _host(seats)
    ghosts = [Identity.from_seed(b"ghost%d" % i) for i in range(seats - 1)]
    for i, g in enumerate(ghosts):
        at = ("127.0.0.%d" % (30 + i), 5000)
        lob.receive_message(_join_raw(g, lob, at), at, 0.0, g.x25519_public_key)
    lob.handle_timer(C.SETUP_TIMEOUT + 1.0)
    assert lob.phase != ABORTED
    # Fixed (H46, §C2.2 step 7): the ghosts were removed and banned; the lobby waits again
    assert lob.phase == WAITING and [p.name for p, _ in lob.members()] == ["host"]
    assert lob.stats["removed"] == seats - 1
    lob.messages_to_send()
    at = ("127.0.0.99", 5000)
    lob.receive_message(_join_raw(ghosts[0], lob, at), at, 40.0, ghosts[0].x25519_public_key)
    assert lob.stats["banned"] == 1 and len(lob.members()) == 1


def test_a_joiner_that_signs_then_vanishes_does_not_kill_the_lobby():
    lob = _host(2)
    gid = Identity.from_seed(b"h37-signer")
    ghost = Lobby.join(gid, endpoint=("127.0.0.33", 5000), host_addr=HOST, game_id=lob.game_id, name="g",
                       host_keys=(HOST_ID.public_key, HOST_ID.x25519_public_key))
    gaddr = ("127.0.0.33", 5000)
    for _ in range(4):  # until quiet; the ghost's SEED never leaves
        for _addr, raw in ghost.messages_to_send():
            if open_envelope(raw, C.MAX_LOBBY_MSG).mtype != MSG_SEED:
                lob.receive_message(raw, gaddr, 0.0, gid.x25519_public_key)
        for _addr, raw in lob.messages_to_send():
            ghost.receive_message(raw, HOST, 0.0, HOST_ID.x25519_public_key)
    # since H153 the host reveals last (§C2.2 step 5): the ghost never sees the host's seed either
    assert lob.phase == "revealing" and not ghost.game_seed and not lob.game_seed
    lob.handle_timer(C.SETUP_TIMEOUT + 1.0)
    assert lob.phase != ABORTED
    # Fixed (H46, §C2.2 step 7): removed, and the next round draws fresh seeds (nobody's old reveal
    # is reused: what the ghost saw says nothing about the next game seed)
    assert lob.phase == WAITING and lob.stats["removed"] == 1 and lob.round == 1


class ProbeFlood:
    """The attacker on the virtual network: every TICK, ``per_tick`` PROBEs (5: 100/s) of ``keys``
    fresh keys in turn, each a plain datagram from the next of ``sources`` spoofed source addresses
    with that source's next sequence number (all a blind sender needs; it never sees an answer)."""

    def __init__(self, net: SimNetwork, keys: int, sources: int, per_tick: int) -> None:
        self.net, self.per_tick = net, per_tick
        self.probes = [Lobby.join(Identity.from_seed(b"h37-probe%d" % k), endpoint=("127.0.1.50", 6000),
                                  host_addr=HOST, game_id=None, name="m",
                                  code_tag=1).messages_to_send()[0][1] for k in range(keys)]
        self.sources = [("127.0.%d.%d" % (1 + i // 200, 50 + i % 200), 6000) for i in range(sources)]
        self.seq = dict.fromkeys(self.sources, 0)
        self.at, self.sent = 0.0, 0

    def handle_timer(self, now: float) -> None:
        if now < self.at:
            return
        for _ in range(self.per_tick):
            src = self.sources[self.sent % len(self.sources)]
            probe = self.probes[self.sent % len(self.probes)]
            self.net.inject(src, HOST, HEADER.pack(MAGIC, FLAG_DATA, 0x5EED, 0, self.seq[src], 0, 0) + probe)
            self.seq[src] += 1
            self.sent += 1
        self.at = now + TICK

    def get_timer(self) -> float:
        return self.at

    def receive_datagram(self, data: bytes, src: tuple, now: float) -> list:
        return []

    def datagrams_to_send(self, now: float) -> list:
        return []


@pytest.mark.parametrize("keys,sources,per_tick", [(1, 5, 5), (20, 5, 5), (20, 200, 25)])
def test_a_probe_flood_does_not_starve_a_join_by_code(keys, sources, per_tick):
    """Fixed (H37) for one replayed PROBE: PROBEs were answered at most PROBE_RATE per second
    for all sources together, so one PROBE replayed at 100/s from spoofed sources made every
    honest join by code end 'no answer from the host'; then one key was answered once per
    PROBE_REPEAT_S. Fixed (H83) for PROBEs of 20 fresh keys cycled at 100/s (the [20] strict
    xfail): they still took the whole budget. Now the host answers a PROBE only over a channel
    whose address answered the transport's CHALLENGE (§N3.1, §N2.6), which a spoofed source
    never does, and the budget is per source host; the honest joiner answers the CHALLENGE its
    first PROBE earned and re-sends its PROBE (join_resend.py). With 200 sources (more than the
    host's 32 channels) at 500/s, an untrusted channel lived 64 ms, less than the honest joiner's
    wait for its first copy: now a confirmed one is evicted after every unconfirmed one (§N2.6)."""
    lob = _host(4)
    net = SimNetwork()
    host = LobbyPeer(HOST_ID, lob, 100)
    flood = ProbeFlood(net, keys, sources, per_tick)
    net.attach(HOST, host)
    net.attach(MALLORY_AT, flood)
    while net.now < 1.0 and net.step():  # the flood runs 1 s before the honest joiner comes
        pass
    honest_id = Identity.from_seed(b"h37-honest")
    tag = join_code_tag(lob.game_id, HOST_ID.public_key)
    honest = LobbyPeer(honest_id, Lobby.join(honest_id, endpoint=HONEST_AT,
                                             host_addr=HOST, game_id=None, name="h", code_tag=tag,
                                             now=net.now), 7)
    net.attach(HONEST_AT, honest)
    while net.now < 1.0 + C.JOIN_TIMEOUT and honest.lobby.phase != WAITING and net.step():
        pass
    assert honest.lobby.phase == WAITING and honest.lobby.game_id == lob.game_id
    assert net.now < 1.0 + 3 * PROBE_RESEND_S  # its first copy (the second is at 3x) was answered
    assert lob.stats["probes"] == 1 and lob.stats["probe_unconfirmed"] >= 100
    assert host.ep.confirmed(HONEST_AT) and not any(host.ep.confirmed(a) for a in flood.sources)


def test_a_spoofed_probe_earns_less_than_its_own_size():
    """§N3.1 (H83): a PROBE from a spoofed source (an address with no confirmed channel) is
    dropped before its signature is checked (``probe_unconfirmed``): the victim at that address
    gets the transport's CHALLENGE only (22 B for a 252 B datagram), however long the host runs;
    before, it got the host's STATUS (~200 B) and its resends."""
    lob = _host(4)
    ep = Endpoint(epoch=6, keys=KeyCache(HOST_ID))
    probe = Lobby.join(MALLORY, endpoint=VICTIM,
                       host_addr=HOST, game_id=None, name="m", code_tag=1).messages_to_send()[0][1]
    datagram = HEADER.pack(MAGIC, FLAG_DATA, 0x5EED, 0, 0, 0, 0) + probe
    for addr, payload in ep.receive_datagram(datagram, VICTIM, 0.0):
        lob.receive_message(payload, addr, 0.0, ep.peer_key(addr), ep.confirmed(addr))

    def drive(now):
        for addr, raw in lob.messages_to_send():
            ep.send(addr, raw)

    assert bytes_to(ep, VICTIM, 30.0, drive) < len(datagram)
    assert lob.stats["probe_unconfirmed"] == 1 and "probes" not in lob.stats


def test_a_join_flood_past_the_seats_is_refused_and_seats_no_one_twice():
    """Holds: JOINs beyond the seats get REJECT full; a replayed JOIN of a seated player from
    another source does not move it (its channel is not keyed with the player's key)."""
    lob = _host(3)
    a, b = Identity.from_seed(b"ja"), Identity.from_seed(b"jb")
    ra = _join_raw(a, lob, ("127.0.0.31", 5000))
    lob.receive_message(ra, ("127.0.0.31", 5000), 0.0, a.x25519_public_key)
    lob.receive_message(ra, VICTIM, 0.0, None)  # replay from a spoofed source
    assert ("127.0.0.31", 5000) in lob.peer_addresses() and VICTIM not in lob.peer_addresses()
    lob.receive_message(_join_raw(b, lob, ("127.0.0.32", 5000)), ("127.0.0.32", 5000), 0.0, b.x25519_public_key)
    assert lob.phase != WAITING  # full: proposed
    lob.messages_to_send()
    for i in range(20):
        x = Identity.from_seed(b"late%d" % i)
        at = ("127.0.0.%d" % (60 + i), 5000)
        lob.receive_message(_join_raw(x, lob, at), at, 0.0, x.x25519_public_key)
    assert len(lob.messages_to_send()) == 20  # one REJECT each, nothing else
    assert len(lob.setup.players) == 3


def test_a_spoofed_status_or_proposal_from_the_host_address_is_not_believed():
    """Holds: a STATUS/PROPOSAL-shaped message signed by another key, even from the host's
    address and over a channel keyed with the signer's key, is dropped by a joiner that knows
    the host's keys from the advert."""
    real = _host(2)
    fake = Lobby.host(MALLORY, edition="classico", seats=2, name="host", endpoint=HOST, demo_seed=b"h37")
    joiner_id = Identity.from_seed(b"h37-j")
    j = Lobby.join(joiner_id, endpoint=("127.0.0.8", 41008), host_addr=HOST, game_id=real.game_id, name="j",
                   host_keys=(HOST_ID.public_key, HOST_ID.x25519_public_key))
    raw = j.messages_to_send()[0][1]
    fake.game_id = real.game_id  # the clone answers for the real game id
    fake.receive_message(raw, ("127.0.0.8", 41008), 0.0, joiner_id.x25519_public_key)
    for _addr, m in fake.messages_to_send():  # STATUS, then PROPOSAL (2 seats: full)
        j.receive_message(m, HOST, 0.0, MALLORY.x25519_public_key)
    assert j.phase not in (WAITING, "signing") and j.stats.get("not_host", 0) + j.stats.get("bad_signature", 0) >= 1


def test_a_replayed_leave_datagram_does_not_evict_a_player_who_joined_again():
    """Holds (§C2.2 LEAVE, §N2.3): a player joins, leaves and joins again from the same node;
    the attacker replays the LEAVE datagrams it captured, from the player's address: the
    transport drops them as duplicates (their sequence numbers were delivered) and the player
    keeps its seat."""
    pid = Identity.from_seed(b"h37-p")
    paddr = ("127.0.0.6", 41006)
    host_ep = Endpoint(epoch=6, keys=KeyCache(HOST_ID))
    p_ep = Endpoint(epoch=8, keys=KeyCache(pid), accept_plain=False)
    p_ep.pin(HOST, HOST_ID.x25519_public_key)
    lob = _host(4)
    wire: list[bytes] = []

    def send(lobby_msgs, now):
        for _addr, raw in lobby_msgs:
            p_ep.send(HOST, raw)
        for d, _ in p_ep.datagrams_to_send(now):
            wire.append(d)
            for addr, p in host_ep.receive_datagram(d, paddr, now):
                lob.receive_message(p, addr, now, host_ep.peer_key(addr))
        for addr, xk in lob.peer_keys():
            host_ep.pin(addr, xk)
        for addr, raw in lob.messages_to_send():
            host_ep.send(addr, raw)
        for d, a in host_ep.datagrams_to_send(now):
            if a == paddr:
                p_ep.receive_datagram(d, HOST, now)

    hk = (HOST_ID.public_key, HOST_ID.x25519_public_key)
    first = Lobby.join(pid, endpoint=paddr, host_addr=HOST, game_id=lob.game_id, name="p", host_keys=hk)
    send(first.messages_to_send(), 0.0)
    first.leave()
    mark = len(wire)
    send(first.messages_to_send(), 0.1)
    leave_datagrams = wire[mark:]
    assert leave_datagrams and paddr not in lob.peer_addresses()
    again = Lobby.join(pid, endpoint=paddr, host_addr=HOST, game_id=lob.game_id, name="p", host_keys=hk)
    send(again.messages_to_send(), 0.2)
    assert paddr in lob.peer_addresses()
    for d in leave_datagrams * 3:
        for addr, p in host_ep.receive_datagram(d, paddr, 0.3):
            lob.receive_message(p, addr, 0.3, host_ep.peer_key(addr))
    assert paddr in lob.peer_addresses()


def test_an_early_setup_sig_pushed_out_by_junk_does_not_kill_the_lobby():
    """Fixed (H37): a joiner that gets another seat's SETUP_SIG before the host's PROPOSAL keeps
    it in the early buffer (64 keyed sources, the oldest dropped first); EARLY_BUFFER junk
    SETUP_SIGs over channels keyed with fresh keys (an attacker's cached keys: no derivation
    limit) pushed it out, and lobby messages were never sent again: that seat's signature never
    came, every seat aborted at SETUP_TIMEOUT. Now every seat re-sends its SETUP_SIG (and its
    SEED once revealing) every SETUP_RESEND_S until the game starts."""
    ids = {i: Identity.from_seed(b"h37-early%d" % i) for i in range(3)}
    at = {i: ("127.0.0.%d" % (90 + i), 41090 + i) for i in range(3)}
    host = Lobby.host(ids[0], edition="classico", seats=3, name="h", endpoint=at[0], demo_seed=b"h37e")
    hk = (ids[0].public_key, ids[0].x25519_public_key)
    lobbies = {0: host} | {i: Lobby.join(ids[i], endpoint=at[i], host_addr=at[0], game_id=host.game_id, name=f"j{i}",
                                         demo_seed=b"h37e", host_keys=hk) for i in (1, 2)}
    by_addr = {a: i for i, a in at.items()}
    junk = seal_message(MALLORY, MSG_SETUP_SIG, SetupSig(host.game_id, 0, bytes(32), None))
    held_back: list = []  # the host's PROPOSAL to the victim, delivered late

    def deliver(now, victim_waits):
        moved = False
        for i, lob in lobbies.items():
            for dst, raw in lob.messages_to_send():
                j = by_addr[tuple(dst)]
                mtype = open_envelope(raw, C.MAX_LOBBY_MSG).mtype
                if victim_waits and i == 0 and j == 2 and mtype == MSG_PROPOSAL:
                    held_back.append(raw)
                    continue
                lobbies[j].receive_message(raw, at[i], now, ids[i].x25519_public_key)
                moved = True
        return moved

    now = 0.0
    while deliver(now, True):  # seat 1 signs and its SETUP_SIG reaches seat 2 early
        pass
    assert lobbies[2].phase == WAITING and held_back
    for k in range(C.EARLY_BUFFER):  # the junk flood, each over a channel with its own key
        lobbies[2].receive_message(junk, ("127.0.0.%d" % (200 + k % 50), 9000 + k), now, os.urandom(32))
    assert lobbies[2].stats["buffer_full"] == 2  # the host's and seat 1's SETUP_SIGs were pushed out
    lobbies[2].receive_message(held_back.pop(), at[0], now, ids[0].x25519_public_key)
    while now < C.SETUP_TIMEOUT and any(lob.phase != "started" for lob in lobbies.values()):
        while deliver(now, False):
            pass
        now += 0.5
        for lob in lobbies.values():
            if lob.get_timer() is not None and now >= lob.get_timer():
                lob.handle_timer(now)
    assert [lob.phase for lob in lobbies.values()] == ["started"] * 3
