"""Red team, session 9 (H85): a ghost seat at a victim's address, seen from the honest JOINERS (protocol.md
§N2.6 'Reflection' and 'Game started'; §C2.2 step 7).

The host's channel to an address that sent it a JOIN is bounded (3x what came from there, H77). But
every other seat learns the ghost's address from the host's signed PROPOSAL and ``pin``s it: a
channel the owner opens itself was confirmed (it chose the address), so nothing bounded what an honest
joiner sent there. A blind attacker needs no seat for this: one spoofed JOIN with a fresh key from
the victim's address fills the last seat (fixed by H91: a lobby pin of an address a peer named is
bounded, §N2.6 "Lobby pins"). Shared tools: tests/p2p/redteam_s9_kit.py.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from p2p import const as C
from p2p import transport as T
from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.identity import Identity
from p2p.lobby import Lobby
from p2p.node_lobby import pin_seats
from p2p.rendezvous import ADVERT_HEARD_S, SeatAddresses
from p2p.return_route import PIN_ALLOWANCE, UNCONFIRMED_FACTOR

from redteam_lan_kit import TICK, bytes_to, forge_intro
from redteam_s9_kit import HOST, VICTIM, Blind, Ghost, network, spy
from test_lobby_loss import LobbyPeer  # a Lobby and its Endpoint pumped as NodeLobby.pump does

#: What a fix may still send the victim per honest seat beyond the 3x bound: one probe of its
#: address (a CHALLENGE datagram is far smaller).
PROBE_ALLOWANCE = 100

#: Setup time (§C2.2): what a joiner may send a seat address it never heard from before the
#: address proves itself, per setup round: its SETUP_SIG and SEED (a few hundred bytes each in
#: classico) or the knocks that wait for a RESPONSE first. Bytes, per honest joiner.
SETUP_ALLOWANCE = 2_000


def _lobby(seats: int, seed: bytes) -> tuple[dict, Blind, Ghost, dict]:
    """A lobby of ``seats``: the host, seats - 2 honest joiners, and a ghost key whose JOIN comes
    from ``VICTIM`` (its lobby not yet fed anything). The host is one without §C2.2 step 2's
    confirmed channel (H170: ours never seats the ghost, tests/p2p/test_join_gate.py): what the
    honest joiners' transport sends a ghost seat is bounded whoever seated it."""
    ids = {n: Identity.from_seed(seed + n) for n in [b"h", b"k"] + [b"j%d" % i for i in range(seats - 2)]}
    hk = (ids[b"h"].public_key, ids[b"h"].x25519_public_key)
    host = Lobby.host(ids[b"h"], edition="classico", seats=seats, name="h", endpoint=HOST, chain_length=8)
    host.admission.gate.admits = lambda *a: True  # seats a new member over any channel (before H170)

    def joiner(n: bytes, at: tuple) -> Lobby:
        return Lobby.join(ids[n], endpoint=at, host_addr=HOST, game_id=host.game_id, name=n.decode(), chain_length=8,
                          host_keys=hk)

    peers = {HOST: LobbyPeer(ids[b"h"], host, 1)}
    for i in range(seats - 2):
        at = ("10.9.0.%d" % (i + 2), 5000)
        peers[at] = LobbyPeer(ids[b"j%d" % i], joiner(b"j%d" % i, at), 2 + i)
    blind = Blind()
    return peers, blind, Ghost(ids[b"k"], joiner(b"k", VICTIM), blind), ids


def _over_bound(peers: dict, blind: Blind, before: dict | None = None, allowance: int = PROBE_ALLOWANCE) -> dict:
    """Each honest peer that sent ``VICTIM`` more than 3x what came from there (+ ``allowance``),
    counting what it sent since ``before`` (a copy of ``blind.got``) if given: address ->
    (bytes sent to the victim, bytes the attacker spoofed to that peer)."""
    before = before or {}
    sent = {a: blind.got.get(a, 0) - before.get(a, 0) for a in peers}
    return {a: (sent[a], blind.spent_to.get(a, 0)) for a in peers
            if sent[a] > UNCONFIRMED_FACTOR * blind.spent_to.get(a, 0) + allowance}


def _one_spoofed_join(seats: int) -> tuple[dict, Blind]:
    """A lobby one seat short whose last seat a blind attacker fills with ONE JOIN of a fresh key
    spoofed from VICTIM (after the honest JOINs: attach order); run through the stalled setup
    round and 90 s more. Returns the honest peers and the victim's machine."""
    peers, blind, ghost, _ids = _lobby(seats, b"h85-blind%d-" % seats)
    net = network(peers | {VICTIM: blind})
    ghost.flush(0.0)
    while net.now < C.SETUP_TIMEOUT + 90.0 and net.step():
        pass
    return peers, blind


@pytest.mark.parametrize("seats", [3, 4])
def test_one_spoofed_join_never_makes_an_honest_joiner_stream_the_setup_to_the_victim(seats):
    """§N2.6 'Reflection': 'spoofed datagrams make the channel send the spoofed address at most
    3x their size'. The attacker holds no seat: it spoofs one JOIN (a fresh key) from VICTIM into
    a lobby one seat short and never answers anything. The host's own channel keeps the bound;
    every honest seat must too, through the setup round the ghost stalls and the next 90 s: 3x
    what V sent it, plus what a joiner must send a seat it never heard from to start a game
    (SETUP_ALLOWANCE: its SETUP_SIG and SEED, or knocks); never a stream that grows with time.
    (H85: 47,336 B per joiner at 3 and 4 seats; H91's lobby pins: 1,940 B.)"""
    peers, blind = _one_spoofed_join(seats)
    assert _over_bound(peers, blind, allowance=SETUP_ALLOWANCE) == {}


@pytest.mark.parametrize("seats", [3, 4])
def test_one_spoofed_join_never_makes_the_host_reflect_more_than_three_times(seats):
    """§N2.6 'Reflection', §C2.2 step 7 (H77's change, attacked): the same blind JOIN; the host seats
    the ghost at VICTIM, proposes, gives the round up at SETUP_TIMEOUT, removes and bans the ghost
    (its REJECT), opens a new round and the honest joiners re-send their JOINs: through all of it
    and 90 s more the host sends VICTIM at most 3x the bytes spoofed from there."""
    peers, blind = _one_spoofed_join(seats)
    host = peers[HOST].lobby
    assert host.stats["removed"] == 1 and host.round == 1  # the ghost stalled one round, then went
    assert 0 < blind.got.get(HOST, 0) <= UNCONFIRMED_FACTOR * blind.spent


def _started_with_a_signing_ghost(seats: int) -> tuple[dict, Blind, object]:
    """A lobby of ``seats`` where the last honest joiner is the attacker's own seat M: its ghost
    key K, JOINed from VICTIM, learns every lobby message M receives or sends (the same bytes the
    table sends K) and signs and reveals from VICTIM, so the game starts with K seated at VICTIM."""
    peers, blind, ghost, ids = _lobby(seats, b"h85-seat%d-" % seats)
    net = network(peers | {VICTIM: blind})
    m_addr = list(peers)[-1]
    m_key = ids[b"j%d" % (seats - 3)].x25519_public_key
    spy(peers[m_addr].lobby, lambda a, p, k: ghost.hear(a, p, k, net.now, (m_addr, m_key)))
    ghost.flush(0.0)
    while net.now < C.SETUP_TIMEOUT and not all(p.started for p in peers.values()) and net.step():
        pass
    assert all(p.started for p in peers.values()) and ghost.lobby.phase == "started"
    return {a: p for a, p in peers.items() if a != m_addr}, blind, net


@pytest.mark.parametrize("seats", [3, 4])
def test_a_seat_holders_ghost_at_a_victims_address_gets_no_unbounded_game_traffic(seats):
    """§N2.6 'Game started' (fixed by H82's 0f6f459; was 330-350 KB to V in 30 s): a seat-holder M
    seats a second key K at VICTIM (JOIN, SETUP_SIG and SEED of K spoofed from VICTIM, each
    datagram once; it never answers anything sent there). Once the game runs every honest seat
    sends the ghost seat its step messages (150 B every 0.1 s for 30 s here, as the session would
    until K is voted out): from the start VICTIM gets at most 3x what was spoofed to each seat
    (+ one probe), however the seat opened its channel. The credit counts what came from VICTIM
    since the channel opened, not what went there before the start (§N2.6 'Game started' 1): the
    host's channel, bounded since the JOIN, may so send VICTIM up to 3x in the lobby and 3x again
    from the start (measured at 2ab8bd0: 1074 + 2140 B for 722 B); a joiner's lobby-time share is
    the first test's."""
    honest, blind, net = _started_with_a_signing_ghost(seats)
    t0, before = net.now, dict(blind.got)
    for step in range(300):
        for p in honest.values():
            p.ep.send(VICTIM, bytes(150))
        until = t0 + 0.1 * (step + 1)
        while net.now < until and net.step():
            pass
        net.now = max(net.now, until)  # quiet network: the clock still runs
    assert _over_bound(honest, blind, before) == {}


def test_a_seat_moved_by_an_advert_to_a_victims_address_gets_no_unbounded_traffic():
    """§N3.2: in a running game (rendezvous open: a step waited WAIT_NOTICE s, a seat was dropped,
    or we resumed) an advert with seat 1's setup keys says it listens at VICTIM; seat 1 was quiet
    at its address for ADVERT_HEARD_S, so the node moves it (``SeatAddresses.advert`` 'moved')
    and routes the seats as ``Node.route_seats`` does. VICTIM never sent anything: our step
    messages to seat 1 (150 B every 0.1 s for 30 s) must not stream there (one probe at most)."""
    ids = [Identity.from_seed(b"h85-move%d" % i) for i in range(3)]
    players = [SimpleNamespace(x25519_key=i.x25519_public_key) for i in ids]  # what pin_seats reads
    old = [("10.9.0.1", 5000), ("10.9.0.2", 5000), ("10.9.0.3", 5000)]
    ep = Endpoint(epoch=6, keys=KeyCache(ids[0]))
    seats = SeatAddresses()
    seats.set_endpoints(old, 0)
    ep.restrict(seats.peers())  # the game started (NodeLobby.pump at GameStarted)
    pin_seats(ep, players, seats.endpoints, 0)
    assert seats.advert(1, VICTIM, ep.last_heard(old[1]) or None, ADVERT_HEARD_S + 1.0) == "moved"
    ep.restrict(seats.peers() + list(seats.left_from))  # Node.route_seats
    pin_seats(ep, players, seats.endpoints, 0)
    sent = bytes_to(ep, VICTIM, 30.0, drive=lambda now: ep.send(VICTIM, bytes(150))
                    if round(now / TICK) % 2 == 0 else None)
    # H82: a pin after restrict may send its first flight (PIN_ALLOWANCE, 2,000 B): when every
    # seat resumed at a new address nobody else speaks first (tests/e2e/test_table_resume_e2e.py).
    assert sent <= PIN_ALLOWANCE, f"{sent} B to an address that never sent anything"


def test_a_second_restrict_gives_a_ghost_address_no_new_credit():
    """§N2.6 'Game started' 1 ('what it sends from the start totals at most 3x...'): a ghost seat's
    address V sent one 270-byte introduction; the game starts (restrict) and we send that seat a
    150-byte step message every 0.2 s; 10 s later another seat moves (§N3.2) and the node routes
    the seats again (restrict + pin_seats, as ``Node.route_seats``), and we go on for 10 s: V gets
    at most 3x what it sent, over both, plus one probe per restrict."""
    me, other = Identity.from_seed(b"h85-rr-me"), Identity.from_seed(b"h85-rr-other")
    ghost = Identity.from_seed(b"h85-rr-ghost")
    players = [SimpleNamespace(x25519_key=k.x25519_public_key) for k in (me, ghost, other)]
    seats = [("10.9.0.1", 5000), VICTIM, ("10.9.0.3", 5000)]
    ep = Endpoint(epoch=6, keys=KeyCache(me))
    spoofed = forge_intro(ghost, seats[0], me.x25519_public_key, bytes(200))
    for d in spoofed:
        ep.receive_datagram(d, VICTIM, 0.0)
    sent = 0
    for moved in (False, True):
        if moved:
            seats[2] = ("10.9.0.33", 5000)  # the other seat's advert moved it (SeatAddresses.advert)
        ep.restrict([a for i, a in enumerate(seats) if i])
        pin_seats(ep, players, seats, 0)
        sent += bytes_to(ep, VICTIM, 10.0, drive=lambda now: ep.send(VICTIM, bytes(150))
                         if round(now / TICK) % 4 == 0 else None)
    assert sent <= UNCONFIRMED_FACTOR * sum(len(d) for d in spoofed) + 2 * PROBE_ALLOWANCE


@pytest.mark.parametrize("spoofs", [1, 10])
def test_spoofed_plain_acks_from_a_seats_address_do_not_block_its_proof(spoofs):
    """§N2.2, §N2.6 'Game started' (H82's proof at the start, attacked): a seat-holder knows every
    seat's address from the setup and spoofs 22-byte plain pure acks with fresh epochs from honest
    seat S's address to peer P, one just before the start and more while the game runs. P's
    channel to S is keyed since the PROPOSAL: they are unauthenticated, change no epoch and take
    no CHALLENGE slot; S's RESPONSE proves its address and every step message is delivered."""
    ids = {a: Identity.from_seed(b"h85-proof-%d" % i) for i, a in enumerate((HOST, ("10.9.0.2", 5000)))}
    (p_addr, p_id), (s_addr, s_id) = ids.items()
    p = Endpoint(epoch=11, keys=KeyCache(p_id), accept_plain=False)
    s = Endpoint(epoch=22, keys=KeyCache(s_id), accept_plain=False)
    p.pin(s_addr, s_id.x25519_public_key)
    s.pin(p_addr, p_id.x25519_public_key)
    got: list = []

    def wire(now: float) -> None:
        for _ in range(4):
            for d, _dst in p.datagrams_to_send(now):
                s.receive_datagram(d, p_addr, now)
            for d, _dst in s.datagrams_to_send(now):
                got.extend(m for _src, m in p.receive_datagram(d, s_addr, now))

    def spoof(now: float, k: int) -> None:
        p.receive_datagram(T.HEADER.pack(T.MAGIC, 0, 9000 + k, 0, 0, 0, 0), s_addr, now)

    p.send(s_addr, b"setup-sig")
    s.send(p_addr, b"setup-sig")
    now = 0.0
    for _ in range(10):
        now += TICK
        wire(now)
    spoof(now, 0)
    p.restrict([s_addr])  # the game starts on both
    s.restrict([p_addr])
    for i in range(200):
        now += TICK
        if i % (200 // spoofs) == 0:
            spoof(now, i + 1)
        s.send(p_addr, b"step")
        p.send(s_addr, b"step")
        p.handle_timer(now)
        s.handle_timer(now)
        wire(now)
    ch = p.channels[s_addr]
    assert ch.confirmed and ch.stats["unauthenticated"] == spoofs + 1
    assert got == [b"setup-sig"] + [b"step"] * 200


def test_a_resumed_peer_sends_a_ghost_seats_address_nothing_unproven():
    """§C10 restart from the log, §N2.6 'Game started' (fixed by H82's 33f73c3; was 382 KB in 30 s):
    the setup has a ghost seat at VICTIM (a seat-holder seated it, the previous tests). An honest
    peer resumes (another day, or after a crash): ``Node.route_seats`` on a fresh endpoint, then
    its step messages to every seat (150 B every 0.1 s to the ghost's, for 30 s). VICTIM never
    sent this endpoint anything: at most one first flight (SETUP_ALLOWANCE; the resumed peer
    must speak first, §N2.6), then nothing."""
    ids = [Identity.from_seed(b"h85-resume%d" % i) for i in range(3)]
    players = [SimpleNamespace(x25519_key=i.x25519_public_key) for i in ids]  # what pin_seats reads
    seats = [("10.9.0.1", 5000), VICTIM, ("10.9.0.3", 5000)]
    ep = Endpoint(epoch=6, keys=KeyCache(ids[0]))
    ep.restrict([a for i, a in enumerate(seats) if i])  # Node.route_seats after the resume
    pin_seats(ep, players, seats, 0)
    sent = bytes_to(ep, VICTIM, 30.0, drive=lambda now: ep.send(VICTIM, bytes(150))
                    if round(now / TICK) % 2 == 0 else None)
    assert sent <= SETUP_ALLOWANCE, f"{sent} B to an address that never sent anything"


@pytest.mark.parametrize("ports", [False, True])
def test_forged_adverts_moving_a_ghost_seat_back_and_forth_do_not_renew_its_allowance(ports):
    """§N3.2, §N2.6 'Game started': a ghost seat that never spoke moves at the first advert (no
    ADVERT_HEARD_S wait: nobody heard it). The attacker's adverts move it 20 times, 1 s apart,
    between VICTIM and another address, or (``ports``) to a new port of VICTIM's machine each
    time; after each move the node routes the seats (restrict + pin_seats, as
    ``Node.route_seats``) and sends that seat a 150-byte step message every 0.1 s. VICTIM's
    machine never sent anything: whatever a pin may send an unheard address at first, it is not
    granted again at every move (one first flight, SETUP_ALLOWANCE, over the 20 moves)."""
    ids = [Identity.from_seed(b"h85-pingpong%d" % i) for i in range(3)]
    players = [SimpleNamespace(x25519_key=i.x25519_public_key) for i in ids]  # what pin_seats reads
    seats = [("10.9.0.1", 5000), ("10.9.0.2", 5000), ("10.9.0.3", 5000)]
    ep = Endpoint(epoch=6, keys=KeyCache(ids[0]))
    ep.restrict(seats[1:])  # the game runs
    pin_seats(ep, players, seats, 0)
    sent, now = 0, 0.0
    for move in range(20):
        if ports:
            seats[1] = (VICTIM[0], 20000 + move)
        else:
            seats[1] = VICTIM if move % 2 == 0 else ("10.9.0.98", 7777)
        ep.restrict(seats[1:])
        pin_seats(ep, players, seats, 0)
        for tick in range(round(1.0 / TICK)):
            if tick % 2 == 0:
                ep.send(seats[1], bytes(150))
            ep.handle_timer(now)
            sent += sum(len(d) for d, a in ep.datagrams_to_send(now) if a[0] == VICTIM[0])
            now += TICK
    assert sent <= SETUP_ALLOWANCE, f"{sent} B to a machine that never sent anything"
