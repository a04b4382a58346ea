"""Red team session 11, round 2 (H114): resuming an unfinished game from new addresses (protocol.md
§N3.2) against a forged seat advert that names a returning seat's new address first.

Sans-I/O: ``SeatAddresses`` (what an accepted advert does) and two real ``Endpoint``s routed as
``Node.route_seats`` routes them (``Endpoint.restrict`` + ``node_lobby.pin_seats``), on a virtual
clock; ``NodeRestart.tick`` looks at a pending advert again every 0.5 s (``seat_moved``).
"""

from __future__ import annotations

from types import SimpleNamespace

from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.identity import Identity
from p2p.node_lobby import pin_seats
from p2p.rendezvous import SeatAddresses

ME = ("10.0.0.1", 5000)
OLD_T, OLD_S = ("10.0.0.2", 5000), ("10.0.0.3", 5000)  # the .resume file's endpoints (yesterday's)
NEW_T = ("10.0.0.12", 5000)  # where seat 1's peer listens today (another DHCP address, its old port)


def _route(ep: Endpoint, seats: SeatAddresses, players) -> None:
    """What ``Node.route_seats`` does after a move."""
    ep.restrict(seats.peers() + list(seats.left_from))
    pin_seats(ep, players, seats.endpoints, seats.my_seat)


def test_a_forged_advert_of_an_absent_seat_cannot_keep_a_returning_seat_out():
    """BREAK #14 (MED, stall of a resumed game; a variant of §N3.2's accepted "forged advert that
    wins the race", but one that nothing cures: there, the seat's own advert resolved again
    moves it back; here that advert stays refused, and the seat's own datagrams do not help
    either). A table of
    3 resumes the next day; seat 2's player stays away (the others would drop it and go on: Q = 2).
    Seat 1's peer comes back at NEW_T (a new IP, its old port) and advertises it. The attacker
    copies seat 2's advert (public keys) with NEW_T as its address, and gets it to us before
    seat 1's own answer (it answers our DNS-SD query at once; a responder delays its multicast
    answers). ``SeatAddresses.advert`` moves seat 2 there: seat 2 was never heard anywhere in this
    run, and NEW_T is nobody's. Seat 1's real advert then finds NEW_T 'taken' by seat 2 and waits
    in ``pending`` until seat 2 moves away or speaks from there, which an absent seat never does:
    we never send to seat 1, and its datagrams from NEW_T meet a channel pinned with seat 2's key
    (dropped, ``key_mismatch``: ~2,850 in 60 s here). Done to each present peer (one forged
    advert each), no two seats ever meet: the game never resumes. Cost: one mDNS answer per
    peer. Suggested fix: an address held only by an advert (the seat never heard there) does not
    make it 'taken' for another seat's advert (the later advert's seat takes it, the other seat
    goes back to pending; an authenticated datagram from the address settles it), or a seat's
    authenticated datagram from its pending address moves it there (``SeatAddresses.spoke`` for
    ``pending`` as for ``left_from``).

    FIXED (H116, §N3.2 "An unheard holder"): seat 2 held NEW_T 5 s without a word heard there, so
    seat 1's pending advert takes it at its next look (seat 2 goes back to OLD_S, its advert
    pending), seat 1's next datagram is heard there and it keeps it: seat 2 never gets it back."""
    im, it, is_ = Identity.generate(), Identity.generate(), Identity.generate()
    players = [SimpleNamespace(x25519_key=i.x25519_public_key) for i in (im, it, is_)]
    me = Endpoint(epoch=1, keys=KeyCache(im), accept_plain=False)
    t = Endpoint(epoch=2, keys=KeyCache(it), accept_plain=False)
    t.pin(ME, im.x25519_public_key)  # seat 1 found us (our own advert): it sends to us
    seats = SeatAddresses()
    seats.set_endpoints([ME, OLD_T, OLD_S], 0)
    _route(me, seats, players)

    forged = seats.advert(2, NEW_T, me.last_heard(OLD_S) or None, 0.0, me.last_heard)  # the copy, first
    _route(me, seats, players)
    now, got = 0.1, []
    real = seats.advert(1, NEW_T, me.last_heard(OLD_T) or None, now, me.last_heard)  # seat 1's own advert
    while now < 60.0:
        for seat, addr in list(seats.pending.items()):  # NodeRestart.tick -> seat_moved
            if seats.advert(seat, addr, me.last_heard(seats.endpoints[seat]) or None, now, me.last_heard) == "moved":
                _route(me, seats, players)
        t.send(ME, b"seat 1's step %d" % int(now))
        for d, _a in t.datagrams_to_send(now):
            for src, payload in me.receive_datagram(d, NEW_T, now):
                got.append(payload)
                if seats.spoke(src) is not None:
                    _route(me, seats, players)
        for d in [d for d, a in me.datagrams_to_send(now) if a == NEW_T]:  # ours reach seat 1 there
            t.receive_datagram(d, ME, now)  # (its RESPONSEs: 'heard' needs them since H126)
        now += 0.5
        me.handle_timer(now)
        t.handle_timer(now)
    assert forged == "moved" and real == "refused"  # the attack's first steps
    assert seats.endpoints == [ME, NEW_T, OLD_S] and seats.pending == {2: NEW_T} and len(got) >= 50, (
        f"after 60 s seat 1 is still at {seats.endpoints[1]} (pending {seats.pending}), seat 2 at "
        f"{seats.endpoints[2]}; {len(got)} payloads of seat 1 delivered, "
        f"{me.channels[NEW_T].stats.get('key_mismatch', 0) if NEW_T in me.channels else '-'} key_mismatch")


def _table(seat1_speaks_from: float):
    """Our endpoint, seat 1's (talking to us from ``seat1_speaks_from`` on), the seats from the
    ``.resume`` file, the setup's players, and a ``run(now, until, adverts)`` that plays the
    node's loop (adverts: {time: (seat, addr)}) and returns seat 1's payloads delivered."""
    im, it, is_ = Identity.generate(), Identity.generate(), Identity.generate()
    players = [SimpleNamespace(x25519_key=i.x25519_public_key) for i in (im, it, is_)]
    me = Endpoint(epoch=1, keys=KeyCache(im), accept_plain=False)
    t = Endpoint(epoch=2, keys=KeyCache(it), accept_plain=False)
    t.pin(ME, im.x25519_public_key)
    seats = SeatAddresses()
    seats.set_endpoints([ME, OLD_T, OLD_S], 0)
    _route(me, seats, players)

    def look(seat, addr, now):
        if seats.advert(seat, addr, me.last_heard(seats.endpoints[seat]) or None, now, me.last_heard) == "moved":
            _route(me, seats, players)

    def run(now, until, adverts, at=NEW_T):
        got = []
        while now < until:
            for seat, addr in list(seats.pending.items()):
                look(seat, addr, now)
            for when in [w for w in adverts if w <= now]:
                look(*adverts.pop(when), now)
            if now >= seat1_speaks_from:
                t.send(ME, b"seat 1's step %d" % int(now))
            for d, _a in t.datagrams_to_send(now):
                got += [p for _src, p in me.receive_datagram(d, at, now)]
            for d in [d for d, a in me.datagrams_to_send(now) if a == at]:  # ours reach seat 1 there
                t.receive_datagram(d, ME, now)
            now += 0.5
            me.handle_timer(now)
            t.handle_timer(now)
        return got

    return me, seats, run


def test_a_forged_advert_after_the_real_one_does_not_keep_the_seat_out_either():
    """§N3.2 "An unheard holder", the other order: seat 1's own advert moves it to NEW_T first,
    seat 1 says nothing for 6 s (backing off), then the copy of absent seat 2's advert naming
    NEW_T takes it (seat 1 unheard there 5 s): seat 1 goes back to OLD_T, its advert pending.
    Seat 1 speaks from NEW_T (dropped: seat 2's key) and 5 s later takes it back, is heard and
    keeps it. Before the rule, the copy was refused here; the rule must not turn the attacker's
    being second into a win."""
    me, seats, run = _table(seat1_speaks_from=6.0)
    got = run(0.0, 30.0, {0.0: (1, NEW_T), 6.0: (2, NEW_T)})
    assert seats.endpoints == [ME, NEW_T, OLD_S] and seats.pending == {2: NEW_T} and got
    assert me.last_heard(NEW_T) > 0


def test_a_seat_back_at_an_absent_seats_old_address_gets_it():
    """Without an attacker: today seat 1's peer got the IP and port seat 2 had yesterday (the
    ``.resume`` file's OLD_S) and seat 2's player stays away. Before, seat 1's advert was
    refused for as long as seat 2 held OLD_S, i.e. for good; now seat 2, never heard there,
    gives it up after 5 s and takes seat 1's old address (a swap: the endpoints stay distinct)."""
    me, seats, run = _table(seat1_speaks_from=0.0)
    got = run(0.0, 20.0, {0.0: (1, OLD_S)}, at=OLD_S)
    assert seats.endpoints == [ME, OLD_S, OLD_T] and seats.pending == {2: OLD_S} and got


def test_a_heard_holder_our_address_and_an_address_a_seat_left_stay_refused():
    """The rule takes an address only from a seat never heard there: our own address, an
    address a seat was heard at and moved away from (``left_from``), and a seat heard at its
    address (``heard_at``) keep it, however long the advert waits (§N3.2 "Safe against")."""
    seats = SeatAddresses()
    seats.set_endpoints([ME, OLD_T, OLD_S], 0)
    heard = {OLD_T: 1.0}
    for now in (10.0, 20.0, 30.0):
        assert seats.advert(2, OLD_T, None, now, lambda a: heard.get(a, 0.0)).startswith("refused")
        assert seats.advert(1, ME, None, now, lambda a: heard.get(a, 0.0)).startswith("refused")
    seats = SeatAddresses()
    seats.set_endpoints([ME, OLD_T, OLD_S], 0)
    assert seats.advert(1, NEW_T, 1.0, 10.0, lambda a: 0.0) == "moved" and seats.left_from == {OLD_T: 1}
    for now in (20.0, 30.0):
        assert seats.advert(2, OLD_T, None, now, lambda a: 0.0).startswith("refused")
    assert seats.endpoints == [ME, NEW_T, OLD_S]
