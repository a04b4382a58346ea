"""The first-flight allowance of a pin after the game's start, per seat key (protocol.md §N2.6 "Game
started", its "What does not" paragraph; §N3.2 seat adverts; H91, H88 review #7).

A channel ``Endpoint.pin`` opens after ``restrict`` may send ``PIN_ALLOWANCE`` bytes before its peer
spoke. Keyed by address, forged adverts moving a never-heard seat to a new port of a victim's machine
renewed it at every move (20 moves: 39.6 KB for 0 B). Now a seat key gets one first flight for its
first pin after ``restrict`` (a resumed peer's, to the log's address) and ONE more shared by every
later pin of that key (the moves), charged only by channels that never heard their peer. Keyed by IP
it starved a whole table resumed on one machine (every seat on 127.0.0.1, nobody speaks first):
the liveness test below is that case in memory. Virtual clock, sans-I/O: no socket, no timing.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.identity import Identity
from p2p.return_route import PIN_ALLOWANCE

from redteam_lan_kit import TICK

A, B, C = (Identity.from_seed(b"h91-flight-%d" % i) for i in range(3))
HOST_IP = "127.0.0.1"  # a whole table resumed on one machine: only the ports differ
VICTIM_IP = "127.0.0.9"
STEP = b"t" * 300  # a STEP-sized game message (§C3)


def _run(eps: dict, now: float, until: float, got: dict) -> float:
    """Deliver every datagram between the endpoints of ``eps`` (address -> Endpoint) until
    ``until``; datagrams to an address nobody holds are lost. Payloads land in ``got[dst]``."""
    while now < until:
        for src, ep in eps.items():
            ep.handle_timer(now)
            for d, dst in ep.datagrams_to_send(now):
                if dst in eps:
                    got.setdefault(dst, []).extend(p for _, p in eps[dst].receive_datagram(d, src, now))
        now += TICK
    return now


def test_a_table_resumed_on_one_machine_at_new_ports_still_reaches_itself():
    """§N2.6 "Game started" (a resumed peer pins every seat and must speak first), §N3.2: two
    seats resume from their logs on fresh endpoints at new ports of one machine. Each first pins
    the other's OLD port (the log's: nobody there) and sends its catch-up request into the void
    for 10 s, spending its whole first flight; then each learns the other's new port from an
    advert and pins it: that second pin of the key has its own flight (the move allowance), so
    both requests arrive and both channels are proven. With one allowance per key (or per IP)
    both would wait for ever, each for the other to speak first."""
    old = {A: (HOST_IP, 40001), B: (HOST_IP, 40002)}
    new = {A: (HOST_IP, 41001), B: (HOST_IP, 41002)}
    eps = {new[A]: Endpoint(epoch=101, keys=KeyCache(A), accept_plain=False),
           new[B]: Endpoint(epoch=102, keys=KeyCache(B), accept_plain=False)}
    for me, other in ((A, B), (B, A)):  # Node.route_seats from the log
        ep = eps[new[me]]
        ep.restrict([old[other]])
        ep.pin(old[other], other.x25519_public_key)
        ep.send(old[other], b"CATCHUP_REQ " + me.fingerprint.encode())
    got: dict = {}
    now = _run(eps, 0.0, 10.0, got)
    assert got == {}
    for me, other in ((A, B), (B, A)):  # the other's advert moved it (SeatAddresses.advert 'moved')
        ep = eps[new[me]]
        ep.restrict([new[other]])
        ep.pin(new[other], other.x25519_public_key)
        ep.send(new[other], b"STEP " + me.fingerprint.encode())
    _run(eps, now, now + 3.0, got)
    assert got == {new[A]: [b"STEP " + B.fingerprint.encode()], new[B]: [b"STEP " + A.fingerprint.encode()]}
    assert all(ep.channels[a].route.proven for ep in eps.values() for a in ep.channels)


def _live(keys: list[Identity]) -> tuple[Endpoint, dict]:
    """A running game's endpoint (seat A): every other seat pinned in the lobby at its setup
    address, then ``restrict`` (the game's start). Returns it and seat key -> address."""
    ep = Endpoint(epoch=111, keys=KeyCache(A), accept_plain=False)
    where = {k: ("10.9.0.%d" % (i + 2), 5000) for i, k in enumerate(keys)}
    for k, addr in where.items():
        ep.pin(addr, k.x25519_public_key)
    ep.restrict(where.values())
    return ep, where


def _victim_bytes(ep: Endpoint, where: dict, now: float, seconds: float) -> tuple[int, float]:
    """Send every seat a STEP every 0.1 s for ``seconds``: (bytes that went to VICTIM_IP, now)."""
    sent, end = 0, now + seconds
    while now < end:
        if round(now / TICK) % 2 == 0:
            for addr in where.values():
                ep.send(addr, STEP)
        ep.handle_timer(now)
        sent += sum(len(d) for d, a in ep.datagrams_to_send(now) if a[0] == VICTIM_IP)
        now += TICK
    return sent, now


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 1]), st.integers(0, 7), st.sampled_from([0.3, 1.0, 4.0])),
                min_size=1, max_size=12))
def test_no_sequence_of_moves_gives_a_seat_key_more_than_one_first_flight(moves):
    """§N2.6 "Game started", "What does not" (H88 review #7, H91): forged adverts move seats B and
    C, which never speak, to ports of a victim's machine (one of 8 ports, or the same again) or
    back to another address, in any order, each move followed by ``Node.route_seats``' restrict +
    pin and our STEPs for a while. Whatever the sequence, the victim's machine gets at most one
    ``PIN_ALLOWANCE`` per seat key moved onto it over the endpoint's life (before: one per new
    port, 2,000 B a move)."""
    ep, where = _live([B, C])
    keys = [B, C]
    sent, now, moved = 0, 0.0, set()
    for k, port, seconds in moves:
        key = keys[k]
        where[key] = (VICTIM_IP, 20000 + port) if port < 6 else ("10.9.0.%d" % (50 + port + k), 5000)
        if where[key][0] == VICTIM_IP:
            moved.add(k)
        ep.restrict(where.values())
        ep.pin(where[key], key.x25519_public_key)
        got, now = _victim_bytes(ep, where, now, seconds)
        sent += got
    assert sent <= PIN_ALLOWANCE * len(moved)


def test_the_move_allowance_is_charged_only_by_channels_that_never_heard_their_peer():
    """§N2.6 "Game started" (H91): a seat that really moves speaks at its new address, so what we
    sent there is not charged: it may move again (a second restart) and get a full first flight
    there, while a forged move to an address that never spoke spends it for good."""
    ep, where = _live([B])
    new = ("10.9.0.77", 5000)
    ep.restrict([new])
    ep.pin(new, B.x25519_public_key)
    b = Endpoint(epoch=112, keys=KeyCache(B), accept_plain=False)  # B restarted at ``new``
    b.restrict([("10.9.0.1", 5000)])
    b.pin(("10.9.0.1", 5000), A.x25519_public_key)
    eps = {("10.9.0.1", 5000): ep, new: b}
    ep.send(new, STEP)
    b.send(("10.9.0.1", 5000), STEP)
    got: dict = {}
    now = _run(eps, 0.0, 2.0, got)
    assert got == {new: [STEP], ("10.9.0.1", 5000): [STEP]}
    victim = (VICTIM_IP, 20001)  # a forged advert moves the (now quiet) seat to V
    ep.restrict([victim, new])
    ep.pin(victim, B.x25519_public_key)
    first, now = _victim_bytes(ep, {B: victim}, now, 10.0)
    assert 0 < first <= PIN_ALLOWANCE
    victim2 = (VICTIM_IP, 20002)
    ep.restrict([victim2, new])
    ep.pin(victim2, B.x25519_public_key)
    again, now = _victim_bytes(ep, {B: victim2}, now, 10.0)
    assert first + again <= PIN_ALLOWANCE


def test_neither_a_proof_nor_a_new_epoch_of_the_seat_renews_its_move_allowance():
    """§N2.6 "Game started", "What does not" (H110: the move allowance is never reset): a forged
    advert moves quiet seat B to V (its move allowance spent there); B then really restarts at a new
    address (a new epoch) and, as any resumed peer, speaks first: its step and ours get through,
    the channel is proven, although our pin there had no allowance left. A second forged move to V
    gets nothing more: a renewal at the proof (or the new epoch) would give V a first flight per
    forged-advert/real-advert cycle, and serves no honest seat (a channel that heard its peer
    needs none, and charges none)."""
    ep, where = _live([B])
    me = ("10.9.0.1", 5000)
    victim = (VICTIM_IP, 20001)
    ep.restrict([victim])
    ep.pin(victim, B.x25519_public_key)
    first, now = _victim_bytes(ep, {B: victim}, 0.0, 10.0)
    assert PIN_ALLOWANCE - 300 < first <= PIN_ALLOWANCE  # the move allowance, spent
    new = ("10.9.0.77", 5000)
    ep.restrict([new])
    ep.pin(new, B.x25519_public_key)  # the real advert: no allowance left, B must speak first
    b = Endpoint(epoch=112, keys=KeyCache(B), accept_plain=False)  # B restarted at ``new``
    b.restrict([me])
    b.pin(me, A.x25519_public_key)
    b.send(me, STEP)
    ep.send(new, STEP)
    got: dict = {}
    now = _run({me: ep, new: b}, now, now + 3.0, got)
    assert got == {new: [STEP], me: [STEP]} and ep.channels[new].route.proven
    victim2 = (VICTIM_IP, 20002)
    ep.restrict([victim2])
    ep.pin(victim2, B.x25519_public_key)
    again, now = _victim_bytes(ep, {B: victim2}, now, 10.0)
    assert again == 0
