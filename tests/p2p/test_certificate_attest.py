"""F1: a step-(k+1) message on its seat's own keyed channel counts in a certificate whatever its
signature (protocol.md §C8.3 'A voter's promise'; §C3.8 'not claimed'; docs/next/nil-inputs.md
section 3). The channel is the one that checked the datagram's MAC (``channel_auth.Delivered.via``
from ``Endpoint.receive_datagram``, ``Link.via`` while ``on_message`` runs, the node passes it to
``LockstepSession.receive_message``); the inbox keeps such a message, when its signature fails,
only as an attestation ``(k+1, seat) -> prev_digest`` (``StepCollector.attest``) that
``StepCollector.signers`` counts. The attacker's moves: a relayed copy (another seat's channel), a
channel whose key is unknown or shared, the target's own attestation, an attestation beside a
signed message over another digest, a restart. In memory (virtual clock) but one loopback test
of the link."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from unittest.mock import MagicMock

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p.endpoint import Endpoint
from p2p.channel_auth import Delivered, KeyCache
from p2p.faults import SimNetwork
from p2p.identity import Identity
from p2p.link import Link
from p2p.lockstep import SeatDropped
from p2p.session_inbox import SessionInbox
from p2p.step_collect import StepCollector, step_digest
from p2p.turn_skip import message_certified

from redteam_forced_kit import garble_forced, honest_logs_verify
from test_redteam_forced import ViaNet, r1_game
from test_resilience import crash_at_step, restart_from_log

V, T, G = 0, 1, 2


# -- StepCollector: the attestation's place in a certificate -----------------------------------

def _held(body: bytes, prev: bytes):
    """A held message stand-in: what ``signers`` reads (the envelope's body, the prev digest)."""
    return SimpleNamespace(env=SimpleNamespace(body=body, raw=body), body=SimpleNamespace(prev_digest=prev))


def _collector_at(k: int = 5):
    """3 seats, ours 0, every step-``k`` message held; returns (collector, digest of k)."""
    c = StepCollector(3, 0, b"\0" * 32)
    bodies = [b"a", b"b", b"c"]
    for i, b in enumerate(bodies):
        c.hold(k, i, _held(b, b"\1" * 32))
    return c, step_digest(bodies)


def test_an_attestation_over_our_digest_counts_like_a_signed_message():
    """§C8.3 'A voter's promise' (F1): seat 2's attested step-(k+1) digest makes it a signer."""
    c, d = _collector_at()
    assert c.signers(5) == []
    assert c.attest(6, 2, d)
    assert c.signers(5) == [2]
    c.hold(6, 1, _held(b"x", d))
    assert c.signers(5) == [1, 2]


def test_an_attestation_over_another_digest_counts_for_nothing():
    c, d = _collector_at()
    assert c.attest(6, 2, b"\7" * 32)
    assert c.signers(5) == []


def test_a_held_signed_message_decides_its_seat_whatever_its_attestation_says():
    """An attestation and a signed message of one seat with different digests: the signed
    (held, verified) message wins, both ways round; the same digest counts the seat once."""
    c, d = _collector_at()
    c.attest(6, 2, d)
    c.hold(6, 2, _held(b"x", b"\7" * 32))  # signed over another digest: the seat is no signer
    assert c.signers(5) == []
    c2, d2 = _collector_at()
    c2.attest(6, 2, b"\7" * 32)
    c2.hold(6, 2, _held(b"x", d2))  # signed over ours: a signer, whatever it attested
    assert c2.signers(5) == [2]
    c3, d3 = _collector_at()
    c3.attest(6, 2, d3)
    c3.hold(6, 2, _held(b"x", d3))
    assert c3.signers(5) == [2]


def test_one_attestation_per_seat_and_step_the_newer_kept_and_all_forgotten_when_k_is_applied():
    """A seat rolled back signs its next step again over another digest: its newer word replaces
    the older (as for held messages, ``Referee.other_history``); a repeat changes nothing."""
    c, d = _collector_at()
    assert c.attest(6, 2, b"\7" * 32)
    assert c.signers(5) == []
    assert c.attest(6, 2, d)  # the newer one, over our digest
    assert not c.attest(6, 2, d)  # a re-send: nothing new
    assert c.signers(5) == [2] and c.attested == {6: {2: d}}
    assert c.attest(6, 1, d)
    assert c.signers(5) == [1, 2]
    c.applied(5)
    assert c.attested == {}


def test_an_attestation_reads_skipped_seats_as_the_digest_does():
    """§C8.10: a skipped seat's slot is 0xC1 in the digest the attestation must match."""
    c, _ = _collector_at()
    d = step_digest([b"a", C.SKIPPED_BODY, b"c"])
    c.attest(6, 2, d)
    assert c.signers(5) == []
    assert c.signers(5, skipped=[1]) == [2]


@settings(max_examples=150, deadline=None)
@given(held=st.lists(st.sampled_from([None, "ours", "other"]), min_size=3, max_size=3),
       attested=st.lists(st.sampled_from([None, "ours", "other"]), min_size=3, max_size=3))
def test_signers_property_held_decides_attestation_fills_only_an_empty_slot(held, attested):
    """Any mix of held and attested step-(k+1) digests (ours or another): a seat is a signer iff
    its held message is over our digest, or it holds none and attested ours; each seat at most
    once."""
    c, d = _collector_at()
    other = b"\7" * 32
    for i in range(3):
        if attested[i] is not None:
            c.attest(6, i, d if attested[i] == "ours" else other)
        if held[i] is not None:
            c.hold(6, i, _held(b"m", d if held[i] == "ours" else other))
    want = [i for i in range(3) if held[i] == "ours" or held[i] is None and attested[i] == "ours"]
    got = c.signers(5)
    assert sorted(got) == want and len(set(got)) == len(got)


# -- which channel is a seat's own ---------------------------------------------------------------

def _inbox(my_seat, xkeys):
    return SessionInbox([b"\0" * 32] * len(xkeys), MagicMock(my_seat=my_seat), MagicMock(), xkeys)


def test_a_channel_names_a_seat_only_by_a_setup_key_no_other_seat_shares_and_never_ours():
    """§N2.2: the key that MACed the datagram is the seat's X25519 setup key. A hostile setup
    giving two seats one key makes that key name neither; our own key names nobody; an unknown
    key or none (a relayed, buffered or replayed message) names nobody."""
    a, b, c, d = (bytes([i]) * 32 for i in range(1, 5))
    inbox = _inbox(0, [a, b, c, c])
    assert inbox.channel_seat(b) == 1
    assert inbox.channel_seat(c) is None  # shared by seats 2 and 3
    assert inbox.channel_seat(a) is None  # ours
    assert inbox.channel_seat(d) is None and inbox.channel_seat(None) is None


# -- the channel that checked the MAC reaches the layer above ----------------------------------

A, B = ("127.0.0.1", 2001), ("127.0.0.1", 2002)
IA, IB = Identity.from_seed(b"attest-a"), Identity.from_seed(b"attest-b")


def test_delivered_payloads_carry_the_key_of_the_channel_that_checked_their_mac():
    """``Endpoint.receive_datagram`` returns a ``Delivered``: its ``via`` is the sender's X25519
    key on a keyed channel (what its MAC proved), None on a plain one."""
    got = []
    net = SimNetwork(on_deliver=lambda dst, out: got.append((dst, list(out), out.via)))
    eps = {A: Endpoint(epoch=100, keys=KeyCache(IA), accept_plain=False),
           B: Endpoint(epoch=200, keys=KeyCache(IB), accept_plain=False)}
    for addr, ep in eps.items():
        net.attach(addr, ep)
    eps[A].pin(B, IB.x25519_public_key)
    eps[A].send(B, b"hello")
    net.run()
    eps[B].send(A, b"back")
    net.run()
    seen = {(dst, p): via for dst, out, via in got for _, p in out}
    assert seen[(B, b"hello")] == IA.x25519_public_key
    assert seen[(A, b"back")] == IB.x25519_public_key
    plain = Delivered(A, None, [b"x"])
    assert plain == [(A, b"x")] and plain.via is None


def test_the_link_tells_on_message_which_keyed_channel_brought_the_payload():
    """``Link.via`` while ``on_message`` runs: the X25519 key of the channel that authenticated
    the datagram (loopback sockets); None once the handler returned."""

    async def run():
        seen = []
        done = asyncio.Event()
        links = {}

        def on_b(addr, payload):
            seen.append((payload, links["b"].via))
            done.set()

        a = await Link.open("127.0.0.1", 0, lambda addr, p: None, identity=IA)
        b = links["b"] = await Link.open("127.0.0.1", 0, on_b, identity=IB)
        try:
            a.endpoint.pin(b.address, IB.x25519_public_key)
            a.send(b.address, b"step")
            await asyncio.wait_for(done.wait(), 10)
            return seen, b.via
        finally:
            await a.close()
            await b.close()

    seen, after = asyncio.run(run())
    assert seen == [(b"step", IA.x25519_public_key)]
    assert after is None


# -- the R1 scene (test_redteam_forced.py A5) under the attacker's variations -------------------

class RelayedNet(ViaNet):
    """g's messages reach V on t's channel (t relays them: a forward), never on g's own."""

    def channel(self, src, dst):
        return T if (src, dst) == (G, V) else src


class UnknownChannelNet(ViaNet):
    """g's messages reach V with no channel the session knows (``via`` None: buffered early,
    relayed in a page, replayed from a log)."""

    def channel(self, src, dst):
        return None if (src, dst) == (G, V) else src


def _bounded(net, st, *_):
    """Every round: V's attestations are of its next step only, at most one per other seat."""
    s = net.s[V]
    if s is not None and s.steps.attested:
        assert set(s.steps.attested) == {s.step + 1}, s.steps.attested
        assert set(s.steps.attested[s.step + 1]) <= {T, G}
    return None


def test_r1_passes_with_attestations_bounded_to_the_next_step(tmp_path, monkeypatch):
    """R1 with F1 (the passing test in test_redteam_forced.py), its attestations checked every
    round: only for V's next step, one per other seat."""
    taken = _attested_at_v(monkeypatch)
    net, sessions, paths, k = r1_game(tmp_path, garble_forced(G), hook=_bounded)
    assert (k + 1, G) in [(step, seat) for step, seat, _ in taken], taken
    for i in range(3):
        assert not [e for e in net.events[i] if isinstance(e, SeatDropped)], (i, net.describe())
    honest_logs_verify(net, sessions, paths, range(2))


def _attested_at_v(monkeypatch):
    """Record every attestation V's collector takes: [(step, seat, digest)]."""
    taken = []
    real = StepCollector.attest

    def spy(self, step, seat, prev):
        if self.my_seat == V:
            taken.append((step, seat, prev))
        return real(self, step, seat, prev)

    monkeypatch.setattr(StepCollector, "attest", spy)
    return taken


def test_a_relayed_or_unknown_channel_copy_of_g_attests_nothing(tmp_path, monkeypatch):
    """§C8.3 (F1) counts a seat's own channel only: g's garbled k+1 messages reaching V on t's
    channel (a forward), or with no channel known, are dropped and attest nothing, so V has no
    certificate — the version-5 outcome (V voted out at k+1 by t and g), not a forged signer."""
    for net_class in (RelayedNet, UnknownChannelNet):
        taken = _attested_at_v(monkeypatch)
        sub = tmp_path / net_class.__name__
        sub.mkdir()
        net, sessions, paths, k = r1_game(sub, garble_forced(G), net_class=net_class)
        assert taken == [], net_class
        assert sessions[V].stats["bad_signature"] > 0
        dropped = {(e.step, e.seat) for i in (T, G) for e in net.events[i] if isinstance(e, SeatDropped)}
        assert (k + 1, V) in dropped, (net_class, dropped, net.describe())
        monkeypatch.undo()


def test_the_targets_own_attestation_never_counts_for_its_voter():
    """The target's step-(k+1) message on its own channel is an attestation like any other, and
    ``signers`` lists it; but a certificate counts only seats other than the voter and the target
    (§C8.10 ``turn_skip.message_certified``; §C8.3 ``SessionVotes.certified`` filters the same
    list the same way): 3 seats, Q = 2, we (0) voted against 1."""
    c, d = _collector_at()
    c.attest(6, 1, d)  # the target attests our digest
    assert c.signers(5) == [1]
    assert not message_certified(0, 1, [True] * 3, 3, c.signers(5))
    c.attest(6, 2, d)  # the third seat does too: that one counts
    assert message_certified(0, 1, [True] * 3, 3, c.signers(5))


def test_a_restarted_voter_learns_the_attestation_again_from_the_re_sends(tmp_path, monkeypatch):
    """Attestations live in memory only (never logged): V restarted at k after its vote (its
    promise kept by its own-message log, §C10) has none, and takes g's next re-sent garbled
    k+1 message on g's own channel as one again: nobody is dropped, one game, logs verify."""
    state = {"down": None, "report": None}
    taken = _attested_at_v(monkeypatch)

    def hook(net, st, sessions, paths, secrets):
        if st["voted"] and state["down"] is None and net.s[V] is not None and net.s[V].step == st["k"]:
            crash_at_step(net, V, st["k"])
            state["down"] = net.now
        if state["down"] is not None and state["report"] is None:
            if net.now < state["down"] + 1.0:
                return state["down"] + 1.0
            state["report"] = restart_from_log(net, sessions, paths, secrets, V)
            assert net.s[V].steps.attested == {}
            state["before"] = len(taken)
        return None

    net, sessions, paths, k = r1_game(tmp_path, garble_forced(G), hook=hook)
    assert state["report"] is not None, net.describe()
    assert (k + 1, G) in [(step, seat) for step, seat, _ in taken[state["before"]:]], taken
    for i in range(3):
        assert not [e for e in net.events[i] if isinstance(e, SeatDropped)], (i, net.describe())
    honest_logs_verify(net, sessions, paths, range(2))
