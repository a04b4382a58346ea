"""Red team of the seat rendezvous (protocol.md §N3.2, p2p/rendezvous.py): a forged seat advert
that names ANOTHER live seat's address (H88 review #3).

Seat keys are public (every advert and the setup carry them), so anyone on the LAN can advertise
a quiet seat S (a dropped seat is quiet for good) "at" the current address of an honest, live
seat T. Before the fix ``SeatAddresses.advert`` moved S there; ``Node.route_seats`` then pinned
T's address twice, with T's key and then S's (seat order): with S after T the channel to T was
replaced by an S-keyed one, T's datagrams failed the MAC (``bad_mac``), T never 'spoke' and was
voted out as silent. Now an address another seat holds (its endpoint, ours, or one it may move
back to: ``left_from``) is refused, counted, and kept pending until it is free."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.identity import Identity
from p2p.node_lobby import pin_seats
from p2p.rendezvous import ADVERT_HEARD_S, SeatAddresses

ME, T, S = ("10.0.0.1", 5000), ("10.0.0.2", 5000), ("10.0.0.3", 5000)


def _route(ep: Endpoint, seats: SeatAddresses, players) -> None:
    """What ``Node.route_seats`` does after a move."""
    ep.restrict(seats.peers() + list(seats.left_from))
    pin_seats(ep, players, seats.endpoints, seats.my_seat)


def _exchange(me: Endpoint, t: Endpoint, now: float, rounds: int = 20) -> tuple[list[bytes], float]:
    """Run T -> me (and me -> T) for ``rounds`` x 50 ms; the payloads ``me`` delivered from T."""
    got: list[bytes] = []
    for _ in range(rounds):
        for d, _a in t.datagrams_to_send(now):
            got += [p for _src, p in me.receive_datagram(d, T, now)]
        for d, a in me.datagrams_to_send(now):
            if a == T:
                t.receive_datagram(d, ME, now)
        now += 0.05
        me.handle_timer(now)
        t.handle_timer(now)
    return got, now


def test_a_forged_advert_cannot_move_a_quiet_seat_onto_a_live_seats_address():
    """Seat 2 (S, quiet) is advertised at seat 1's (T, live and proven) address. The advert is
    refused and kept pending; after routing the seats as the node does, T's channel is still
    keyed with T's key and T's next payload is delivered (at HEAD before the fix: [] and 5 bad_mac)."""
    im, it, is_ = Identity.generate(), Identity.generate(), Identity.generate()
    players = [SimpleNamespace(x25519_key=i.x25519_public_key) for i in (im, it, is_)]  # what pin_seats reads
    me = Endpoint(epoch=1, keys=KeyCache(im), accept_plain=False)
    t = Endpoint(epoch=2, keys=KeyCache(it), accept_plain=False)
    t.pin(ME, im.x25519_public_key)
    seats = SeatAddresses()
    seats.set_endpoints([ME, T, S], 0)
    _route(me, seats, players)  # the game started
    for k in range(3):
        t.send(ME, b"hello %d" % k)
    got, now = _exchange(me, t, 0.0)
    assert got == [b"hello 0", b"hello 1", b"hello 2"]
    assert me.peer_key(T) == it.x25519_public_key

    # S was never heard (or is quiet for good): an advert for it would move it at once.
    first = seats.advert(2, T, me.last_heard(S) or None, now)
    again = seats.advert(2, T, me.last_heard(S) or None, now + 0.5)  # the node's next tick
    _route(me, seats, players)
    t.send(ME, b"T's step")
    got, _ = _exchange(me, t, now)
    assert got == [b"T's step"]
    assert me.peer_key(T) == it.x25519_public_key and me.channels[T].stats["bad_mac"] == 0
    assert (first, again) == ("refused", "refused_again")
    assert seats.endpoints == [ME, T, S] and seats.pending == {2: T} and seats.refused == 1


def _three() -> SeatAddresses:
    seats = SeatAddresses()
    seats.set_endpoints([ME, T, S], 0)
    return seats


def test_our_own_address_is_refused_too():
    seats = _three()
    assert seats.advert(1, ME, None, 1.0) == "refused"
    assert seats.endpoints[1] == T and seats.pending == {1: ME}


def test_an_address_a_seat_left_is_refused_to_the_others_but_not_to_that_seat():
    """T moved away from where it was heard (its address stays allowed: it moves back if it speaks
    from there, §N3.2), so S may not take it; T itself may move back by an advert."""
    seats = _three()
    far = ("10.0.0.9", 6000)
    assert seats.advert(1, far, heard=1.0, now=1.0 + ADVERT_HEARD_S + 1) == "moved"
    assert seats.left_from == {T: 1}
    assert seats.advert(2, T, None, 10.0) == "refused"
    assert seats.taken(1, T) is False and seats.advert(1, T, None, 10.0) == "moved"
    assert seats.endpoints[1] == T and seats.left_from == {}


def test_a_refused_advert_is_adopted_once_the_address_is_free():
    """Two peers that really swapped addresses (DHCP): the advert that comes first waits in
    ``pending`` (looked at again every tick, ``NodeRestart.tick``) until the other seat moved."""
    seats = _three()
    assert seats.advert(2, T, None, 1.0) == "refused"
    assert seats.advert(1, S, None, 1.1) == "refused"  # S is still seat 2's
    assert seats.advert(1, ("10.0.0.7", 7000), None, 1.2) == "moved"  # seat 1's real advert
    assert seats.advert(2, seats.pending[2], None, 1.5) == "moved"  # the tick's second look
    assert seats.endpoints == [ME, ("10.0.0.7", 7000), T] and seats.pending == {} and seats.refused == 2


_ADDRS = [("10.0.0.%d" % i, 5000) for i in range(1, 7)]
_EVENTS = st.lists(st.one_of(
    st.tuples(st.just("advert"), st.integers(1, 3), st.sampled_from(_ADDRS), st.booleans()),
    st.tuples(st.just("spoke"), st.sampled_from(_ADDRS)),
), max_size=40)


@given(_EVENTS)
def test_no_sequence_of_adverts_puts_two_seats_on_one_address(events):
    """Property (§N3.2): whatever adverts come (any seat, any address, heard long ago or never)
    and whichever addresses speak, the seats' endpoints stay pairwise distinct and no seat sits
    on an address another seat may move back to; so ``pin_seats`` never pins an address twice."""
    seats = SeatAddresses()
    seats.set_endpoints(_ADDRS[:4], 0)
    now = 100.0
    for ev in events:
        now += ADVERT_HEARD_S + 1
        if ev[0] == "advert":
            _, seat, addr, was_heard = ev
            seats.advert(seat, addr, 1.0 if was_heard else None, now)
        else:
            seats.spoke(ev[1])
        assert len(set(seats.endpoints)) == len(seats.endpoints), (ev, seats.endpoints)
        assert all(seats.left_from[a] == i for i, a in enumerate(seats.endpoints) if a in seats.left_from)


_TIMED = st.lists(st.one_of(
    st.tuples(st.just("advert"), st.integers(1, 3), st.sampled_from(_ADDRS), st.booleans(), st.floats(0, 8)),
    st.tuples(st.just("spoke"), st.sampled_from(_ADDRS), st.floats(0, 8)),
    st.tuples(st.just("tick"), st.floats(0, 8)),
), max_size=40)


@given(_TIMED)
def test_no_sequence_of_adverts_with_unheard_holders_puts_two_seats_on_one_address(events):
    """Property (§N3.2 "An unheard holder"): with ``heard_at`` given, so that a seat never heard
    at its address may lose it to another seat's advert after ``ADVERT_HEARD_S``, at any times
    and with the pending adverts looked at again (the node's tick): the endpoints stay pairwise
    distinct, no seat sits on an address another seat left, ours never moves, and an address a
    seat was heard at while it held it never goes to another seat."""
    seats = SeatAddresses()
    seats.set_endpoints(_ADDRS[:4], 0)
    heard: set = set()  # (address, seat): that seat's channel there accepted a datagram

    def heard_at(a):
        return 1.0 if any((a, i) in heard for i, e in enumerate(seats.endpoints) if e == a) else 0.0

    now = 100.0
    for ev in events:
        now += ev[-1]
        firm = {i: e for i, e in enumerate(seats.endpoints) if (e, i) in heard}
        if ev[0] == "advert":
            _, seat, addr, was_heard, _dt = ev
            seats.advert(seat, addr, 1.0 if was_heard or heard_at(seats.endpoints[seat]) else None, now, heard_at)
        elif ev[0] == "spoke":
            holder = next((i for i, e in enumerate(seats.endpoints) if e == ev[1]), None)
            if holder not in (None, 0):
                heard.add((ev[1], holder))
            seats.spoke(ev[1])
        else:
            for seat, addr in list(seats.pending.items()):
                seats.advert(seat, addr, heard_at(seats.endpoints[seat]) or None, now, heard_at)
        eps = seats.endpoints
        assert len(set(eps)) == len(eps), (ev, eps)
        assert all(seats.left_from[a] == i for i, a in enumerate(eps) if a in seats.left_from)
        assert eps[0] == _ADDRS[0]
        assert all(eps[j] != e for i, e in firm.items() for j in range(4) if j != i), (ev, firm, eps)


def test_pin_seats_never_lets_a_later_seat_replace_another_seats_channel_at_one_address():
    """Defence in depth (``node_lobby.pin_seats``): were one address given for two seats (a
    hostile PROPOSAL; adverts no longer do it), the channel keeps the key it has if that is one of
    theirs, whichever seat comes first; a fresh address gets the lowest seat's key."""
    ids = [Identity.generate() for _ in range(4)]
    players = [SimpleNamespace(x25519_key=i.x25519_public_key) for i in ids]
    me = Endpoint(epoch=1, keys=KeyCache(ids[0]), accept_plain=False)
    me.pin(T, ids[2].x25519_public_key)  # seat 2's channel is at T
    pin_seats(me, players, [ME, T, T, S], 0)  # seat 1 (earlier) claims T too
    assert me.peer_key(T) == ids[2].x25519_public_key
    pin_seats(me, players, [ME, S, T, T], 0)  # seat 3 (later) claims it
    assert me.peer_key(T) == ids[2].x25519_public_key and me.peer_key(S) == ids[1].x25519_public_key
    far = ("10.0.0.8", 5000)
    pin_seats(me, players, [ME, T, far, far], 0)  # nobody's channel at far yet: the lowest seat's
    assert me.peer_key(far) == ids[2].x25519_public_key and me.peer_key(T) == ids[1].x25519_public_key
