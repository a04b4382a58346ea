"""protocol.md §N2.1 step 3 "Keyed in place" (H148; H146 s13b BREAK #6, the attack itself is
tests/p2p/test_redteam_s13b_tofu.py): a plain channel keyed in place (trust on first use: the host's
by the code joiner's introduction, the joiner's by its ``pin``) drops what it held out of order while
plain (anyone's chunks) and resends what its plain peer acknowledged only selectively, so an honest
peer's chunks around the keying still arrive, under its key, and a spoofer's never do. Sans-I/O, in
memory, virtual clock."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.identity import Identity
from p2p.transport import HEADER, MAX_CHUNK

HOST, JOINER = ("10.0.0.1", 5000), ("10.0.0.2", 5000)
HOST_ID, JOINER_ID = Identity.from_seed(b"h148-host"), Identity.from_seed(b"h148-joiner")


class _Wire:
    """Two endpoints, a virtual clock; ``drop(src, nth, seq, now)`` loses the nth data datagram (1-based)
    ``src`` (``"host"`` or ``"joiner"``) sends, of sequence ``seq``, at ``now`` (s); what arrives is
    [(payload, under the sender's key)] per side."""

    def __init__(self, drop=lambda src, nth, seq, now: False) -> None:
        self.host = Endpoint(epoch=1, keys=KeyCache(HOST_ID), accept_plain=True)
        self.joiner = Endpoint(epoch=2, keys=KeyCache(JOINER_ID), accept_plain=False)
        self.now = 0.0
        self.drop = drop
        self.sent = {"host": 0, "joiner": 0}
        self.got: dict[str, list[tuple[bytes, bool]]] = {"host": [], "joiner": []}

    def step(self, dt: float = 0.01) -> None:
        """One flush each way, then the clock moves ``dt`` s and timers run."""
        pairs = (("joiner", self.joiner, self.host, JOINER, "host", JOINER_ID),
                 ("host", self.host, self.joiner, HOST, "joiner", HOST_ID))
        for name, src, dst, src_addr, dst_name, src_id in pairs:
            for data, _a in src.datagrams_to_send(self.now):
                if data[1] & 0x01:  # FLAG_DATA
                    self.sent[name] += 1
                    if self.drop(name, self.sent[name], HEADER.unpack_from(data)[4], self.now):
                        continue
                for _x, payload in dst.receive_datagram(data, src_addr, self.now):
                    self.got[dst_name].append((payload, dst.peer_key(src_addr) == src_id.x25519_public_key))
        self.now += dt
        for ep in (self.host, self.joiner):
            ep.handle_timer(self.now)

    def run(self, seconds: float) -> None:
        end = self.now + seconds
        while self.now < end:
            self.step()


def _code_join(wire: _Wire, plain: tuple[bytes, ...], host_plain: tuple[bytes, ...], keyed: tuple[bytes, ...]) -> None:
    """A join by code: the joiner's PROBE and ``plain`` payloads over the plain channel, the host's
    ``host_plain`` answers over it, 1 s of traffic (CHALLENGE/RESPONSE: the joiner is heard), then the
    joiner pins the host's key and sends ``keyed`` (its first one an introduction: the host keys its
    plain channel in place), and 5 s more."""
    wire.joiner.send(HOST, b"PROBE")
    for p in plain:
        wire.joiner.send(HOST, p)
    wire.step()
    for p in host_plain:
        wire.host.send(JOINER, p)
    wire.run(1.0)
    assert wire.joiner.pin(HOST, HOST_ID.x25519_public_key)
    for p in keyed:
        wire.joiner.send(HOST, p)
    wire.run(5.0)


def test_n2_1_a_joiners_plain_chunks_held_out_of_order_at_the_keying_are_resent_keyed_and_arrive():
    """§N2.1 step 3 "Keyed in place" (liveness): the joiner's plain P1 is lost, P2 held out of order and
    acknowledged selectively by the host; the joiner's pin takes that ack back (P2 resent, MACed), the
    host's keying drops its plain copy. Every payload arrives once, in order; those after the keying
    under the joiner's key."""
    wire = _Wire(drop=lambda src, nth, seq, now: src == "joiner" and seq == 1 and now < 1.0)  # P1, plain
    _code_join(wire, (b"P1", b"P2"), (), (b"JOIN", b"SIG"))
    assert wire.got["host"] == [(b"PROBE", False), (b"P1", True), (b"P2", True), (b"JOIN", True), (b"SIG", True)]
    assert wire.host.channels[JOINER].stats["plain_dropped"] == 1


def test_n2_1_the_hosts_plain_chunks_held_out_of_order_at_the_joiners_pin_are_resent_keyed_and_arrive():
    """§N2.1 step 3 "Keyed in place" (liveness, the other way): the host's plain H1 is lost, H2 held out of
    order at the joiner and acknowledged selectively; the joiner's pin drops H2 (``plain_dropped``), the
    host's keying makes it due again: H1 and H2 arrive in order, under the host's key."""
    wire = _Wire(drop=lambda src, nth, seq, now: src == "host" and nth == 1)  # H1's first flight
    wire.joiner.send(HOST, b"PROBE")
    wire.step()
    wire.host.send(JOINER, b"H1")
    wire.host.send(JOINER, b"H2")
    wire.run(0.03)  # H2 reaches the joiner, its selective ack the host; H1's RTO (>= 0.2 s) not yet run out
    assert 1 in wire.joiner.channels[HOST].receiver.ooo
    assert wire.joiner.pin(HOST, HOST_ID.x25519_public_key)
    assert wire.joiner.channels[HOST].stats["plain_dropped"] == 1
    wire.joiner.send(HOST, b"JOIN")
    wire.run(5.0)
    assert wire.got["joiner"] == [(b"H1", True), (b"H2", True)]
    assert wire.got["host"] == [(b"PROBE", False), (b"JOIN", True)]


@settings(max_examples=40, deadline=None)
@given(st.sets(st.integers(min_value=1, max_value=12), max_size=4), st.sets(st.integers(min_value=1, max_value=8),
       max_size=3), st.sampled_from([(), (b"P1",), (b"P1", b"P2", b"P3")]))
def test_property_n2_1_honest_payloads_around_the_keying_arrive_in_order_and_once(lost_j, lost_h, plain):
    """§N2.1 step 3 "Keyed in place" (liveness, a property): whichever of the first 12 data datagrams
    (either way) are lost, every payload of both sides arrives exactly once, in order, and each sent
    after the keying arrives under its sender's key."""
    wire = _Wire(drop=lambda src, nth, seq, now: nth in (lost_j if src == "joiner" else lost_h))
    keyed = (b"JOIN", b"SIG", b"x" * (2 * MAX_CHUNK + 5))
    _code_join(wire, plain, (b"H1", b"H2"), keyed)
    got = wire.got["host"]
    assert [p for p, _k in got] == [b"PROBE", *plain, *keyed]
    assert all(k for _p, k in got[-3:])
    assert [p for p, _k in wire.got["joiner"]] == [b"H1", b"H2"]


def test_n2_1_a_spoofed_payload_half_reassembled_while_plain_is_never_completed_under_the_key():
    """§N2.1 step 3 "Keyed in place": a spoofer (the joiner's epoch, seen in its PROBE) wins the race to
    the joiner's next sequence number with the first chunk of a long payload, in order, while the channel
    is plain. At the keying the half payload is dropped and its rest skipped: the joiner's own chunks
    never complete it under its key. What it costs (stated): the joiner's chunks at those sequence
    numbers (its JOIN, and the one that ends the skip) are lost, acknowledged; later ones arrive."""
    wire = _Wire()
    wire.joiner.send(HOST, b"PROBE")
    wire.run(0.5)
    clone = Endpoint(epoch=2)
    clone.send(HOST, b"PROBE")
    clone.send(HOST, b"E" * (MAX_CHUNK + 10))
    spoof = [d for d, _a in clone.datagrams_to_send(wire.now)]
    assert wire.host.receive_datagram(spoof[1], JOINER, wire.now) == []  # held half reassembled
    assert wire.joiner.pin(HOST, HOST_ID.x25519_public_key)
    for p in (b"JOIN", b"REAL2", b"REAL3"):
        wire.joiner.send(HOST, p)
    wire.run(2.0)
    assert wire.got["host"] == [(b"PROBE", False), (b"REAL3", True)]
    assert wire.host.channels[JOINER].stats["plain_dropped"] == 1


def test_n2_1_spoofed_plain_chunks_in_order_before_the_keying_only_delay_the_joiner_as_plain_payloads():
    """§N2.1 step 3 "Keyed in place", **Left (accepted)**: a spoofer winning the race to the joiner's next
    10 sequence numbers IN ORDER while the channel is plain has them delivered as plain payloads (no key,
    as before the keying); the joiner's next 10 payloads are acknowledged and lost and the host's acks run
    ahead of it (``malformed`` at the joiner) until it has sent as many; from the 11th on its payloads
    arrive, under its key, and the host's reach it: a delay, not a stall, never an impersonation."""
    wire = _Wire()
    wire.joiner.send(HOST, b"PROBE")
    wire.run(0.5)
    clone = Endpoint(epoch=2)
    for i in range(11):
        clone.send(HOST, b"PROBE" if i == 0 else b"EVIL%d" % i)
    for data, _a in clone.datagrams_to_send(wire.now)[1:]:
        assert [p for _x, p in wire.host.receive_datagram(data, JOINER, wire.now)] != []
        assert wire.host.peer_key(JOINER) is None  # delivered as plain
    assert wire.joiner.pin(HOST, HOST_ID.x25519_public_key)
    for p in (b"JOIN", b"R2", b"R3"):
        wire.joiner.send(HOST, p)
    wire.host.send(JOINER, b"HELLO")
    wire.run(5.0)
    for i in range(12):
        wire.joiner.send(HOST, b"L%d" % i)
    wire.run(5.0)
    assert wire.got["host"] == [(b"PROBE", False)] + [(b"L%d" % i, True) for i in range(7, 12)]
    assert wire.got["joiner"] == [(b"HELLO", True)]
    assert wire.joiner.channels[HOST].stats["malformed"] > 0


def test_a_peer_restart_while_plain_forgets_the_old_instances_selective_acks():
    """§N2.1 step 3 'Keyed in place' (RV13-A #2): the host's chunks to a joiner's first instance, acked
    only selectively while plain, are not put back into the stream to its restarted instance at the
    keying (they were at the old instance's sequence numbers): the new instance gets exactly what
    was sent to it, in order, and nothing of the old one."""
    wire = _Wire(drop=lambda src, nth, seq, now: src == "host" and seq == 0 and now < 0.05)
    wire.joiner.send(HOST, b"PROBE")
    wire.step()
    for i in range(5):
        wire.host.send(JOINER, b"OLD%d" % i)
    wire.run(0.03)
    wire.joiner = Endpoint(epoch=3, keys=KeyCache(JOINER_ID), accept_plain=False)  # restarted, same address
    wire.got["joiner"] = []
    wire.joiner.send(HOST, b"PROBE2")
    wire.run(1.0)
    wire.host.send(JOINER, b"NEW0")
    wire.run(0.5)
    assert wire.joiner.pin(HOST, HOST_ID.x25519_public_key)
    wire.joiner.send(HOST, b"JOIN")
    wire.run(2.0)
    for i in range(1, 5):
        wire.host.send(JOINER, b"NEW%d" % i)
    wire.run(3.0)
    assert [p for p, _k in wire.got["joiner"]] == [b"NEW%d" % i for i in range(5)]
