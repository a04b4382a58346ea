"""RV16-C's findings on the confirmed-channel rule for a new lobby member (H170, 5773681), mended by H178
(protocol.md §N2.6 'Strangers', §C2.2 step 2 'Seated over a confirmed channel' and step 7).

F1: a joiner that knows the host's key is an unconfirmed, untrusted stranger at the host for its first
round trip (the host seats, then trusts, it only at its RESPONSE). Spoofed datagrams from 32 fresh sources
in that round trip evicted its channel there (no resume point: it never proved its address), and the
joiner, which stopped introducing itself at the host's MACed CHALLENGE, was never heard again: every
later datagram was ``unknown_dropped`` and the join ended "no answer from the host" at JOIN_TIMEOUT. Now
a joiner introduces itself in every datagram while ``joining`` (``node_lobby.introduce_while_joining``), so its
next copy opens a new channel at the host. F2: a stale member's fresh entry of a new round (step 7)
could name another endpoint, spoofed and never confirmed: the squatter through a member. F5: a kept JOIN
that expired is counted. ``p2p.faults.SimNetwork`` on a virtual clock and sans-I/O lobbies: no socket.
"""

from __future__ import annotations

from p2p import const as C
from p2p.datagram import FLAG_DATA, HEADER, MAGIC
from p2p.faults import FaultPlan, SimNetwork
from p2p.identity import Identity
from p2p.join_gate import JOIN_KEEP_S
from p2p.lobby import WAITING, Lobby
from p2p.lobby_sim import LobbyPeer
from p2p.wire import MSG_REJECT, decode_reject, open_envelope

HOST = ("10.0.0.1", 5000)
E = ("10.0.0.7", 41234)  # the joiner's socket
A = ("10.0.0.66", 6000)  # a hostile member's own socket
X_AT = ("10.0.0.5", 5000)  # a member removed at the round's end: a seat is free
HOST_ID = Identity.from_seed(b"h178-host")
KEYS = (HOST_ID.public_key, HOST_ID.x25519_public_key)
DELAY = FaultPlan().delay  # one way, s


class Flood:
    """Spoofed plain data datagrams (62 B) to the host, one every ``gap`` s from ``start`` to ``stop``,
    each from a fresh source address: strangers, which take the host's free channel slots."""

    def __init__(self, net: SimNetwork, start: float, stop: float, gap: float) -> None:
        self.net, self.t, self.stop, self.gap, self.k = net, start, stop, gap, 0

    def datagrams_to_send(self, now: float) -> list:
        return []

    def receive_datagram(self, data: bytes, src, now: float) -> list:
        return []

    def get_timer(self):
        return self.t if self.t < self.stop else None

    def handle_timer(self, now: float) -> None:
        while self.t <= now and self.t < self.stop:
            self.k += 1
            src = ("10.9.%d.%d" % divmod(self.k % 60000, 250), 6000 + self.k % 7)
            raw = HEADER.pack(MAGIC, FLAG_DATA, 0x5EED + self.k, 0, 0, 0, 0) + b"x" * 40
            self.net.inject(src, HOST, raw, 0.0)
            self.t += self.gap


def _host_and_joiner(seats: int = 2, seed: bytes = b"h178-joiner", keyed: bool = True):
    """A host (at HOST) and one joiner (at E, by key or, ``keyed`` False, knowing no host key) on a clean
    ``SimNetwork``: (net, host peer, joiner peer)."""
    net = SimNetwork(FaultPlan())
    host = LobbyPeer(HOST_ID, Lobby.host(HOST_ID, edition="classico", seats=seats, name="h", endpoint=HOST,
                                         demo_seed=b"h178", chain_length=8), 100)
    ident = Identity.from_seed(seed)
    v = LobbyPeer(ident, Lobby.join(ident, host_addr=HOST, game_id=host.lobby.game_id, name="v", endpoint=E,
                                    chain_length=8, now=0.0, host_keys=KEYS if keyed else None), 300)
    net.attach(HOST, host)
    net.attach(E, v)
    return net, host, v


def _flooded_join(start: float, stop: float, gap: float, until: float = 12.0):
    net, host, v = _host_and_joiner()
    flood = Flood(net, start, stop, gap)
    net.attach(("10.9.255.255", 1), flood)
    while net.now < until and not (v.done and host.done) and net.step():
        pass
    return v, host, flood, net.now


def test_n2_6_a_burst_in_a_keyed_joiners_first_round_trip_does_not_cut_it_off():
    """RV16-C F1 (§N2.6 'Strangers', §C2.2 step 2): 40 spoofed sources between the host's CHALLENGE (out
    at one delay) and the joiner's RESPONSE (in at three) evict its unconfirmed channel at the host; its
    next copy, an introduction, opens a new one there, and the game starts. Before: 'no answer from the
    host' at JOIN_TIMEOUT, every later datagram of the joiner ``unknown_dropped``."""
    v, host, flood, end = _flooded_join(1.2 * DELAY, 2.8 * DELAY, 1.6 * DELAY / 40)
    assert flood.k == 40 and host.ep.stats["evicted"] >= 1  # the eviction happened
    assert v.aborted is None and v.started is not None and host.started is not None
    assert end < 0.5  # a fast copy (PROBE_RESEND_S) after the eviction, not JOIN_TIMEOUT


def test_n2_6_a_flood_while_a_keyed_joiner_starts_costs_it_the_flood_not_the_join():
    """RV16-C F1: 50,000 spoofed sources a second (3 MB/s) for 0.1 s while the joiner starts (10,000 and
    25,000 a second are slower than its 3 ms join). Before, the join was lost although the flood stopped at
    0.1 s (aborted at JOIN_TIMEOUT); now it starts within a copy or two of the flood's end."""
    v, host, flood, end = _flooded_join(0.0, 0.1, 2e-5)
    assert flood.k >= 4_999 and host.ep.stats["evicted"] >= 1
    assert v.aborted is None and v.started is not None and host.started is not None
    assert end < 0.1 + 0.5  # the flood's end and a copy or two (0.2 s apart) later


def test_n2_6_a_joiner_stops_introducing_itself_once_the_host_answered_its_join():
    """The re-introduction is the joiner's, to the host, while ``joining`` only (its blast radius): once the
    STATUS came (phase ``waiting``) the next MACed datagram of the host ends the introductions as on any
    keyed channel (§N2.1), and the host then trusts the seated joiner's address (never evicted)."""
    net, host, v = _host_and_joiner(seats=3)
    v.pump()
    assert v.ep.channels[HOST].introducing  # joining: an introduction
    while net.now < 1.0 and net.step():
        pass
    assert v.lobby.phase == WAITING and E in host.ep.trusted
    assert not v.ep.channels[HOST].introducing


def test_n2_6_a_plain_channel_cannot_be_made_to_introduce():
    """``Channel.introducing = True`` asks a keyed channel to introduce itself again; a plain channel has no
    key to introduce (a joiner by code before the host's answer): it stays plain."""
    _net, _host, v = _host_and_joiner(seed=b"h178-plain", keyed=False)
    v.pump()
    ch = v.ep.channels[HOST]
    assert ch.keys is None and not ch.introducing
    ch.introducing = True
    assert not ch.introducing


# -- F2: a member's fresh entry may not move its seat ----------------------------------------------


def _joiner(seed: bytes, at, gid: bytes, **kw) -> Lobby:
    return Lobby.join(Identity.from_seed(seed), host_addr=HOST, game_id=gid, name=seed.decode()[-2:], endpoint=at,
                      chain_length=8, host_keys=KEYS, **kw)


def _new_round_with_m_stale():
    host = Lobby.host(HOST_ID, edition="classico", seats=3, name="h", endpoint=HOST, chain_length=8,
                      demo_seed=b"x")
    m, x = _joiner(b"h178-mm", A, host.game_id), _joiner(b"h178-xx", X_AT, host.game_id)
    for j, at in ((m, A), (x, X_AT)):
        host.receive_message(j.admission.join_msg(), at, 0.0, j.identity.x25519_public_key, True)
    assert len(host.members()) == 3
    host.restart_round([x.identity.public_key], 1.0)  # X did not sign: removed, a new round, M stale
    assert host.phase == WAITING and host.admission.stale == {m.identity.public_key}
    host.messages_to_send()
    return host, m


def _seats(host: Lobby) -> dict:
    return {p.public_key: tuple(p.endpoint) for p, _ in host.members()}


def test_c2_2_step_7_a_members_fresh_entry_spoofed_from_another_endpoint_does_not_move_its_seat():
    """RV16-C F2 (§C2.1 'Safe against a squatter', §C2.2 step 7 'same keys, name, chain head and
    endpoint'): a hostile member M sends its fresh entry of a new round naming the endpoint E of a player
    who wants the freed seat, spoofed from E over a channel keyed with M's own key (M can MAC from
    anywhere), never confirmed there. Before, M's seat moved to E and the player's confirmed JOIN was
    ``endpoint_taken``. Now it is gated as a new member's JOIN (kept unconfirmed, never confirmed: M does
    not receive at E): M stays at A, the player is seated at E."""
    host, m = _new_round_with_m_stale()
    moved = Lobby.join(m.identity, host_addr=HOST, game_id=host.game_id, name="mm", endpoint=E, chain_length=8,
                       host_keys=KEYS, demo_seed=b"other")
    host.receive_message(moved.admission.join_msg(), E, 1.5, m.identity.x25519_public_key, False)
    assert host.stats["join_unconfirmed"] == 1 and host.messages_to_send() == []
    assert _seats(host)[m.identity.public_key] == A and m.identity.public_key in host.admission.stale
    v = _joiner(b"h178-vv", E, host.game_id)
    host.receive_message(v.admission.join_msg(), E, 2.0, v.identity.x25519_public_key, True)
    assert host.stats.get("endpoint_taken", 0) == 0
    assert _seats(host)[v.identity.public_key] == E


def test_c2_2_step_7_a_members_join_from_another_endpoint_even_confirmed_is_refused_not_moved():
    """A member's socket does not move in a lobby: its JOIN naming another endpoint, once that endpoint is
    confirmed (only M receives there), is answered REJECT code 3 there (as any other JOIN of a seated key
    that differs, §C2.2 step 2), never a move; its fresh entry from its own endpoint is still taken."""
    host, m = _new_round_with_m_stale()
    moved = Lobby.join(m.identity, host_addr=HOST, game_id=host.game_id, name="mm", endpoint=E, chain_length=8,
                       host_keys=KEYS, demo_seed=b"other")
    host.receive_message(moved.admission.join_msg(), E, 1.5, m.identity.x25519_public_key, True)
    out = host.messages_to_send()
    assert [open_envelope(raw).mtype for _, raw in out] == [MSG_REJECT] and tuple(out[0][0]) == E
    assert decode_reject(open_envelope(out[0][1]).body).code == C.REJECT_OTHER_KEYS
    assert _seats(host)[m.identity.public_key] == A and m.identity.public_key in host.admission.stale
    fresh = Lobby.join(m.identity, host_addr=HOST, game_id=host.game_id, name="mm", endpoint=A, chain_length=8,
                       host_keys=KEYS, demo_seed=b"other")
    host.receive_message(fresh.admission.join_msg(), A, 1.6, m.identity.x25519_public_key, False)  # not held
    assert not host.admission.stale and _seats(host)[m.identity.public_key] == A


# -- F5: an expired kept JOIN is counted --------------------------------------------------------------


def test_c2_2_a_kept_join_confirmed_too_late_is_dropped_and_counted():
    """§C2.2 step 2: a JOIN kept unconfirmed is handled at its confirmation only within JOIN_KEEP_S;
    later it is dropped, counted ``join_expired`` (before: dropped uncounted), and nobody is seated."""
    host = Lobby.host(HOST_ID, edition="classico", seats=3, name="h", endpoint=HOST, chain_length=8,
                      demo_seed=b"x")
    host.channel_key = lambda addr: v.identity.x25519_public_key
    v = _joiner(b"h178-late", E, host.game_id)
    host.receive_message(v.admission.join_msg(), E, 0.0, v.identity.x25519_public_key, False)
    assert not host.admission.probe_confirmed(E, JOIN_KEEP_S + 0.1)
    assert host.stats["join_expired"] == 1 and len(host.members()) == 1


# -- F3: what a joiner sends an address that never answers -------------------------------------------


def _to_a_black_hole(by_code: bool) -> tuple[int, int]:
    """(datagrams, bytes) a joiner sends to a host address that never answers, until it gives up."""
    silent = ("10.0.0.99", 5000)
    ident = Identity.from_seed(b"h178-bh")
    kw = dict(code_tag=1, game_id=None) if by_code else dict(game_id=b"\x01" * 16, host_keys=KEYS)
    lob = Lobby.join(ident, host_addr=silent, name="j", endpoint=E, chain_length=8, now=0.0, **kw)
    p = LobbyPeer(ident, lob, 7)
    n = sent = 0
    now = 0.0
    while now < C.JOIN_TIMEOUT + 1.0 and not p.done:
        for data, dst in p.datagrams_to_send(now):
            assert dst == silent
            n, sent = n + 1, sent + len(data)
        t = p.get_timer()
        if t is None:
            break
        now = max(now + 1e-4, t)
        p.handle_timer(now)
    assert p.aborted is not None and now <= C.JOIN_TIMEOUT + 0.5
    return n, sent


def test_c2_2_a_keyed_joiner_sends_a_silent_host_what_a_joiner_by_code_does():
    """§C2.2 'Lobby re-sends' (RV16-C F3, the figure stated): the first JOIN's quicker copies (0.1 s, then
    every 0.2 s until a STATUS) cost, where nobody answers (a forged advert's address), 289 datagrams and
    90,457 B in JOIN_TIMEOUT; a joiner by code's PROBEs 76,585 B (H96); ~9 KB/s to one address for 10 s.
    The introduction kept while joining (F1) adds nothing there: nothing MACed ever came to end it."""
    keyed, code = _to_a_black_hole(False), _to_a_black_hole(True)
    assert keyed[0] <= 300 and keyed[1] <= 91_000
    assert code[1] <= 77_000 and keyed[1] <= 1.2 * code[1]


# -- F4: ``confirmed=None`` (no transport) is for sans-I/O tests only --------------------------------


def test_c2_2_every_driver_of_a_lobby_tells_it_whether_the_channel_is_confirmed():
    """RV16-C F4: ``Lobby.receive_message(..., confirmed=None)`` means "no transport" and seats a new member
    at once (the sans-I/O tests' network); a driver that forgot ``Endpoint.confirmed`` would reopen the
    squatter with no other test failing. So every call of a lobby's ``receive_message`` in the product
    (p2p/, ui/) passes ``confirmed`` (its fifth argument). The default stays: the sans-I/O tests' calls
    (a few hundred) rely on it."""
    import ast
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2]
    calls = []
    for path in sorted([*root.glob("p2p/*.py"), *root.glob("ui/**/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "receive_message" and "lob" in ast.unparse(node.func.value):
                calls.append((path.name, len(node.args) + len(node.keywords)))
    assert sorted(name for name, _ in calls) == ["lobby_sim.py", "node.py"]
    assert all(n == 5 for _, n in calls), calls
