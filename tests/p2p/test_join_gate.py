"""A new lobby member is seated only over a confirmed channel (protocol.md §C2.2 step 2 'Seated over a
confirmed channel', §C2.1 'What signed endpoints hold against'; H170, closing RV15-L F3 / H167's squatter).

Before, a JOIN needed no confirmed source: one JOIN of a fresh key spoofed from the endpoint E of a
player who had not joined yet seated a ghost at E, and that player's own JOINs were ``endpoint_taken``
until the seats filled. Now the host keeps a new member's JOIN unchecked and unanswered until its
channel echoes the transport's CHALLENGE (§N2.6), and handles it at that RESPONSE if the channel
confirmed is keyed with the key the JOIN came over (``p2p/join_gate.py``): one round trip more per
joiner; a spoofed JOIN earns the victim's address what a spoofed PROBE does (§N3.1 rule 0).
Sans-I/O lobbies and ``p2p.faults.SimNetwork`` on a virtual clock: no socket, no sleep.
"""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from p2p import const as C
from p2p.datagram import FLAG_DATA, HEADER, MAGIC
from p2p.faults import FaultPlan, SimNetwork
from p2p.identity import Identity
from p2p.join_gate import JOIN_KEEP_S, JOIN_KEPT, JOIN_KEPT_BYTES
from p2p.join_resend import JOIN_RESEND_S, PROBE_RESEND_S
from p2p.lobby import WAITING, Lobby
from p2p.lobby_sim import LobbyPeer
from p2p.wire import MSG_STATUS, open_envelope

from redteam_lan_kit import VICTIM, bytes_to, forge_intro

HOST = ("10.0.0.1", 5000)
E = ("10.0.0.7", 41234)  # the victim's game socket, known to the attacker before the victim joins
ATTACKER = ("10.0.0.66", 6000)
HOST_ID = Identity.from_seed(b"h170-host")
KEYS = (HOST_ID.public_key, HOST_ID.x25519_public_key)
DELAY = FaultPlan().delay  # one way, s


def _host(seats: int = 2) -> Lobby:
    return Lobby.host(HOST_ID, edition="classico", seats=seats, name="h", endpoint=HOST, demo_seed=b"h170",
                      chain_length=8)


def _joiner(seed: bytes, at, gid: bytes, now: float = 0.0, keyed: bool = True) -> Lobby:
    return Lobby.join(Identity.from_seed(seed), host_addr=HOST, game_id=gid, name=seed.decode()[-2:], endpoint=at,
                      chain_length=8, now=now, host_keys=KEYS if keyed else None)


def _member_keys(host: Lobby) -> set:
    return {p.public_key for p, _ in host.members()}


class Spoofer:
    """The attacker's machine on ``SimNetwork``: runs a ghost's lobby and endpoint (``peer``) and sends
    every datagram of it as from ``src`` (spoofed, arriving ``delay`` s later); it hears nothing."""

    def __init__(self, net: SimNetwork, peer: LobbyPeer, src, delay: float = DELAY) -> None:
        self.net, self.peer, self.src, self.delay = net, peer, src, delay

    def datagrams_to_send(self, now: float) -> list:
        for data, dst in self.peer.datagrams_to_send(now):
            self.net.inject(self.src, dst, data, self.delay)
        return []

    def receive_datagram(self, data: bytes, src, now: float) -> list:
        return []

    def get_timer(self):
        return self.peer.get_timer()

    def handle_timer(self, now: float) -> None:
        self.peer.handle_timer(now)


def _run(net: SimNetwork, peers: list, until: float) -> None:
    while net.now < until and not all(p.done for p in peers) and net.step():
        pass


# -- the squatter (RV15-L F3) ---------------------------------------------------------------------


def _squat(keyed_ghost: bool) -> tuple:
    net = SimNetwork(FaultPlan())
    host = LobbyPeer(HOST_ID, _host(), 100)
    net.attach(HOST, host)
    ghost = LobbyPeer(Identity.from_seed(b"h170-ghost"), _joiner(b"h170-ghost", E, host.lobby.game_id,
                                                                 keyed=keyed_ghost), 200)
    net.attach(ATTACKER, Spoofer(net, ghost, E))
    _run(net, [host], 1.0)  # nobody at E yet: the ghost's CHALLENGEs go nowhere
    assert _member_keys(host.lobby) == {HOST_ID.public_key}
    v = LobbyPeer(Identity.from_seed(b"h170-victim"), _joiner(b"h170-victim", E, host.lobby.game_id, now=net.now), 300)
    net.attach(E, v)
    _run(net, [host, v], 40.0)
    return host, v, ghost


def test_c2_2_a_ghost_spoofed_from_a_later_joiners_endpoint_is_never_seated_and_the_player_is():
    """§C2.2 step 2 (H167's squatter, keyed): a JOIN of a fresh key spoofed from E before the player
    at E joins, and its copies every 0.1-0.2 s while the player joins, seat nobody (the host keeps
    each, unchecked, until a CHALLENGE sent to E is echoed under that key, which never happens); the
    player at E is seated and the game starts with it. Failed before: the ghost was seated at once
    and the player stopped with 'no answer from the host' (JOIN_TIMEOUT)."""
    host, v, ghost = _squat(keyed_ghost=True)
    assert v.started is not None and host.started is not None
    keys = {p.public_key for p in host.started.setup.players}
    assert keys == {HOST_ID.public_key, v.lobby.identity.public_key}
    assert ghost.lobby.identity.public_key not in keys and host.lobby.stats["join_unconfirmed"] >= 3
    assert "endpoint_taken" not in host.lobby.stats


def test_c2_2_a_plain_ghost_spoofed_from_a_later_joiners_endpoint_is_never_seated_either():
    """The same ghost with a plain JOIN (a joiner that knows no host key): never kept (no key to
    hold its channel to), never seated; the player at E is."""
    host, v, ghost = _squat(keyed_ghost=False)
    assert v.started is not None
    assert ghost.lobby.identity.public_key not in {p.public_key for p in host.started.setup.players}


def test_c2_2_a_ghost_in_the_players_first_round_trip_is_not_seated_by_the_players_response():
    """The race the key check closes: the ghost's introduction from E lands after the player's JOIN
    and before its RESPONSE; it displaces the player's channel for a moment (§N2.1 step 3) and its
    JOIN is the last one kept from E. The player's RESPONSE confirms the player's own channel, keyed
    with another key than the kept JOIN came over: nothing is seated then (``join_other_key``); the
    player's next copy, over its confirmed channel, is."""
    net = SimNetwork(FaultPlan())
    host = LobbyPeer(HOST_ID, _host(), 100)
    net.attach(HOST, host)
    v = LobbyPeer(Identity.from_seed(b"h170-victim"), _joiner(b"h170-victim", E, host.lobby.game_id), 300)
    net.attach(E, v)
    ghost = LobbyPeer(Identity.from_seed(b"h170-ghost"), _joiner(b"h170-ghost", E, host.lobby.game_id), 200)
    net.attach(ATTACKER, Spoofer(net, ghost, E, delay=2 * DELAY))  # between the JOIN and the RESPONSE
    _run(net, [host, v], 40.0)
    assert host.lobby.stats["join_other_key"] == 1 and "join_kept" not in host.lobby.stats
    assert v.started is not None
    assert {p.public_key for p in host.started.setup.players} == {HOST_ID.public_key, v.lobby.identity.public_key}


# -- what it costs, what a spoofed JOIN earns ----------------------------------------------------


def test_c2_2_seating_over_a_confirmed_channel_costs_one_round_trip_per_joiner():
    """The cost, measured on the virtual clock: the host seats a joiner at its JOIN's arrival plus
    one round trip (the CHALLENGE, the RESPONSE: 3 one-way delays after the JOIN went out, 1 before),
    from the kept JOIN (``join_kept``), before any copy; the joiner hears its STATUS one delay later."""
    net = SimNetwork(FaultPlan())
    host = LobbyPeer(HOST_ID, _host(3), 100)
    net.attach(HOST, host)
    v = LobbyPeer(Identity.from_seed(b"h170-victim"), _joiner(b"h170-victim", E, host.lobby.game_id), 300)
    net.attach(E, v)
    seated = heard = None
    while net.now < 1.0 and net.step():
        if seated is None and len(host.lobby.members()) == 2:
            seated = net.now
        if heard is None and v.lobby.phase == WAITING:
            heard = net.now
    assert abs(seated - 3 * DELAY) < 1e-9 and abs(heard - 4 * DELAY) < 1e-9
    assert host.lobby.stats["join_kept"] == 1 and host.lobby.stats["join_unconfirmed"] == 1


def test_c2_2_a_joiner_over_a_plain_channel_is_seated_at_its_first_copy_after_the_response():
    """A joiner that knows no host key (join by address, trust on first use) sends a plain JOIN: not
    kept (nothing binds it to the channel confirmed), so the copy after the RESPONSE, PROBE_RESEND_S
    after the JOIN (*Lobby re-sends*), is seated over the confirmed channel; the game starts."""
    net = SimNetwork(FaultPlan())
    host = LobbyPeer(HOST_ID, _host(), 100)
    net.attach(HOST, host)
    v = LobbyPeer(Identity.from_seed(b"h170-plain"), _joiner(b"h170-plain", E, host.lobby.game_id, keyed=False), 300)
    net.attach(E, v)
    _run(net, [host, v], 5.0)
    assert v.started is not None and host.started is not None
    assert "join_kept" not in host.lobby.stats and host.lobby.stats["join_unconfirmed"] == 1
    assert PROBE_RESEND_S < net.now < PROBE_RESEND_S + 0.01


def _spoofed_earns(payload: bytes, keyed: bool) -> int:
    host = LobbyPeer(HOST_ID, _host(), 6)
    if keyed:
        datagrams = forge_intro(Identity.from_seed(b"h170-ghost"), HOST, HOST_ID.x25519_public_key, payload)
    else:
        datagrams = [HEADER.pack(MAGIC, FLAG_DATA, 0x5EED, 0, 0, 0, 0) + payload]
    for d in datagrams:
        host.receive_datagram(d, VICTIM, 0.0)
    return bytes_to(host.ep, VICTIM, 30.0, lambda now: host.pump())


def test_c2_2_a_spoofed_join_earns_the_victim_what_a_spoofed_probe_does():
    """§N2.6 'Reflection', §N3.1 rule 0: one JOIN of a fresh key spoofed from a victim's address, plain
    or as a keyed introduction, earns that address exactly what the same PROBE does: the transport's
    CHALLENGE and the owed pure ack (44 B plain, 76 B as an introduction, for a 245 B JOIN), no lobby
    answer (before: a STATUS, re-sent up to the 3x bound)."""
    join = _joiner(b"h170-ghost", VICTIM, _host().game_id, keyed=False).admission.join_msg()
    probe = Lobby.join(Identity.from_seed(b"h170-ghost"), host_addr=HOST, game_id=None, name="st", endpoint=VICTIM,
                       chain_length=8, code_tag=1).admission.join_msg()
    for keyed, expected in ((False, 44), (True, 76)):
        earned = _spoofed_earns(join, keyed)
        assert earned == _spoofed_earns(probe, keyed) == expected < len(join), keyed


# -- the gate, sans-I/O ---------------------------------------------------------------------------


def _join_of(seed: bytes, at, gid: bytes) -> tuple:
    j = _joiner(seed, at, gid)
    return j.admission.join_msg(), j.identity


def test_c2_2_an_unconfirmed_join_is_kept_unchecked_and_handled_at_its_confirmation():
    """§C2.2 step 2: unconfirmed, a new member's JOIN is neither checked (a broken signature is not
    even seen), answered nor seated, only counted (``join_unconfirmed``) and kept; at its channel's
    confirmation under its own key it is handled as if it came then: seated, STATUS to it."""
    host = _host(3)
    raw, ident = _join_of(b"h170-a", E, host.game_id)
    broken = raw[:-1] + bytes([raw[-1] ^ 1])
    host.receive_message(broken, E, 0.0, ident.x25519_public_key, False)
    assert host.stats["join_unconfirmed"] == 1 and "bad_signature" not in host.stats
    host.receive_message(raw, E, 0.0, ident.x25519_public_key, False)
    assert host.messages_to_send() == [] and _member_keys(host) == {HOST_ID.public_key}
    host.channel_key = lambda addr: ident.x25519_public_key if addr == E else None
    assert host.admission.probe_confirmed(E, 0.001)
    assert _member_keys(host) == {HOST_ID.public_key, ident.public_key} and host.stats["join_kept"] == 1
    assert [(a, open_envelope(r).mtype) for a, r in host.messages_to_send()] == [(E, MSG_STATUS)]
    assert not host.admission.probe_confirmed(E, 0.002)  # handled once


def test_c2_2_a_kept_join_is_not_seated_over_another_keys_channel_late_or_plain():
    """At the confirmation, a kept JOIN is seated only if the channel confirmed is keyed with the key
    it came over (``join_other_key``), and within JOIN_KEEP_S; a JOIN over a plain channel is not kept
    (its copy over the confirmed channel is taken)."""
    host = _host(3)
    raw, ident = _join_of(b"h170-a", E, host.game_id)
    other = Identity.from_seed(b"h170-other").x25519_public_key
    host.channel_key = lambda addr: other
    host.receive_message(raw, E, 0.0, ident.x25519_public_key, False)
    assert not host.admission.probe_confirmed(E, 0.001) and host.stats["join_other_key"] == 1
    host.channel_key = lambda addr: ident.x25519_public_key
    host.receive_message(raw, E, 1.0, ident.x25519_public_key, False)
    assert not host.admission.probe_confirmed(E, 1.0 + JOIN_KEEP_S + 0.001)
    host.receive_message(raw, E, 5.0, None, False)  # plain
    assert not host.admission.probe_confirmed(E, 5.001)
    assert _member_keys(host) == {HOST_ID.public_key} and host.messages_to_send() == []
    host.receive_message(raw, E, 6.0, None, True)  # its copy over the confirmed channel
    assert _member_keys(host) == {HOST_ID.public_key, ident.public_key}


def test_c2_2_kept_joins_are_bounded_oldest_forgotten_and_counted():
    """Memory: at most JOIN_KEPT addresses' JOINs are kept, the oldest forgotten (``join_forgotten``),
    none over JOIN_KEPT_BYTES; an honest JOIN (a 32-character name of 4-byte characters, the longest
    IPv6 endpoint) fits."""
    host = _host(C.MAX_SEATS)
    addrs = [("10.1.%d.%d" % divmod(k, 250), 5000) for k in range(JOIN_KEPT + 8)]
    idents = []
    for k, at in enumerate(addrs):
        raw, ident = _join_of(b"h170-many%d" % k, at, host.game_id)
        host.receive_message(raw, at, 0.0, ident.x25519_public_key, False)
        idents.append(ident)
    assert host.stats["join_forgotten"] == 8
    keys = {a: i.x25519_public_key for a, i in zip(addrs, idents)}
    host.channel_key = keys.get
    assert not any(host.admission.probe_confirmed(a, 0.1) for a in addrs[:8])
    assert all(host.admission.probe_confirmed(a, 0.1) for a in addrs[8:])
    widest = ("fd00:1234:5678:9abc:def0:1234:5678:9abc", 65535)
    longest = Lobby.join(Identity.from_seed(b"h170-long"), host_addr=HOST, game_id=host.game_id,
                         name="\U0001F3B2" * C.MAX_NAME_LEN, endpoint=widest, chain_length=C.CHAIN_LENGTH,
                         host_keys=KEYS)
    assert len(longest.admission.join_msg()) == 404 <= JOIN_KEPT_BYTES


def test_c2_2_a_members_join_is_not_gated_and_a_sans_io_network_seats_at_once():
    """Only a new member waits for a confirmed channel: a member's repeated JOIN is answered as
    before, whatever its channel; ``confirmed`` None (a caller with no transport) seats at once."""
    host = _host(3)
    raw, ident = _join_of(b"h170-a", E, host.game_id)
    host.receive_message(raw, E, 0.0, ident.x25519_public_key)
    assert _member_keys(host) == {HOST_ID.public_key, ident.public_key}
    host.messages_to_send()
    host.receive_message(raw, E, 1.0, ident.x25519_public_key, False)
    assert [open_envelope(r).mtype for _, r in host.messages_to_send()] == [MSG_STATUS]
    assert "join_unconfirmed" not in host.stats


def test_c2_2_a_joiner_copies_its_join_quickly_until_the_hosts_status():
    """§C2.2 'Lobby re-sends': the host answers only once its CHALLENGE is echoed, which only a
    datagram of the joiner's retries, so the first JOIN's copies go PROBE_RESEND_S after it, then
    twice as late up to PROBE_RESEND_MAX_S, until the STATUS; then every JOIN_RESEND_S."""
    host = _host(3)
    j = _joiner(b"h170-a", E, host.game_id)
    j.messages_to_send()
    assert j.get_timer() == PROBE_RESEND_S
    j.handle_timer(PROBE_RESEND_S)
    assert len(j.messages_to_send()) == 1 and abs(j.get_timer() - 3 * PROBE_RESEND_S) < 1e-9
    host.receive_message(j.admission.join_msg(), E, 0.25, j.identity.x25519_public_key)
    ((_, status),) = host.messages_to_send()
    j.receive_message(status, HOST, 0.25, HOST_ID.x25519_public_key)
    assert j.phase == WAITING and j.get_timer() == 0.25 + JOIN_RESEND_S


# -- property: whatever a spoofer interleaves, only an address's owner is seated there --------------

ADDRS = [("10.2.0.%d" % k, 5000) for k in range(1, 4)]
OWNERS = {a: Identity.from_seed(b"h170-own%d" % k) for k, a in enumerate(ADDRS)}
GHOSTS = [Identity.from_seed(b"h170-gh%d" % k) for k in range(3)]
_GID = _host().game_id
RAWS = {(a, i.public_key): Lobby.join(i, host_addr=HOST, game_id=_GID, name="x", endpoint=a, chain_length=8,
                                      host_keys=KEYS).admission.join_msg()
        for a in ADDRS for i in [OWNERS[a], *GHOSTS]}

EVENTS = st.lists(st.tuples(st.sampled_from(["ghost", "owner", "confirm", "copy", "wait"]),
                            st.integers(0, len(ADDRS) - 1), st.integers(0, len(GHOSTS) - 1)), max_size=30)


@settings(max_examples=60, deadline=None)
@given(EVENTS)
def test_c2_2_property_only_the_owner_of_an_address_is_ever_seated_there(events):
    """§C2.2 step 2, any interleaving: ghosts' JOINs spoofed from an address (over channels keyed with
    their own keys, unconfirmed), the owner's JOINs there (unconfirmed, or a copy over its confirmed
    channel), confirmations (only the owner echoes a CHALLENGE there: its channel's key), time
    passing. Every member seated at an address is its owner."""
    host = _host(C.MAX_SEATS)
    host.channel_key = lambda addr: OWNERS[addr].x25519_public_key
    now = 0.0
    for kind, a, g in events:
        at = ADDRS[a]
        owner = OWNERS[at]
        if kind == "ghost":
            host.receive_message(RAWS[(at, GHOSTS[g].public_key)], at, now, GHOSTS[g].x25519_public_key, False)
        elif kind == "owner":
            host.receive_message(RAWS[(at, owner.public_key)], at, now, owner.x25519_public_key, False)
        elif kind == "confirm":
            host.admission.probe_confirmed(at, now)
        elif kind == "copy":
            host.receive_message(RAWS[(at, owner.public_key)], at, now, owner.x25519_public_key, True)
        else:
            now += 0.7
        for p, addr in host.members():
            if p.public_key != HOST_ID.public_key:
                assert p.public_key == OWNERS[tuple(addr)].public_key
    assert not {g.public_key for g in GHOSTS} & _member_keys(host)
