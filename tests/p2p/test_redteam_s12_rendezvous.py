"""Red team session 12 (H122): §N3.2 'An unheard holder' (92c09f1) and 'heard' against replays.

§N3.2 decides who keeps an address by whether a seat was *heard* there: ``Endpoint.last_heard``,
the ``last_rx`` of the address's channel ("a datagram its channel accepted, MACed with the seat's
key"). But the channel keys are static (§N2.2: "a restarted peer derives the same ones"), a
fresh channel takes the first epoch it hears (§N2.2 'Epochs': "first contact ... nothing to
protect"), and a replayed datagram of the current instances is a duplicate that still sets
``last_rx`` (transport.Channel.receive_datagram sets it before the receiver finds the copy).
So a datagram the seat once sent us, replayed from a spoofed source, makes it 'heard' there: a
MAC proves who made a datagram, not that its maker is at that address now. The hostile laptop
of §N2.6 "replays anything".

Sans-I/O, as tests/p2p/test_redteam_s11b_rendezvous.py: ``SeatAddresses`` + real ``Endpoint``s
routed as ``Node.route_seats`` does, the node's 0.5 s look at pending adverts, a virtual clock.
"""

from __future__ import annotations

from types import SimpleNamespace

from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.identity import Identity
from p2p.node_lobby import pin_seats
from p2p.rendezvous import SeatAddresses

ME = ("10.0.0.1", 5000)
OLD_T, OLD_S = ("10.0.0.2", 5000), ("10.0.0.3", 5000)  # the .resume file's endpoints
NEW_T = ("10.0.0.12", 5000)  # where seat 1's peer listens now


def _route(ep: Endpoint, seats: SeatAddresses, players) -> None:
    """What ``Node.route_seats`` does after a move."""
    ep.restrict(seats.peers() + list(seats.left_from))
    pin_seats(ep, players, seats.endpoints, seats.my_seat)


def _keys():
    ids = [Identity.generate() for _ in range(3)]
    return ids, [SimpleNamespace(x25519_key=i.x25519_public_key) for i in ids]


def _peer(ident: Identity, epoch: int, us: Identity) -> Endpoint:
    """A seat's peer (instance ``epoch``) that found us and sends to us."""
    ep = Endpoint(epoch=epoch, keys=KeyCache(ident), accept_plain=False)
    ep.pin(ME, us.x25519_public_key)
    return ep


def _us(im: Identity, players) -> tuple[Endpoint, SeatAddresses]:
    """Our endpoint and the seats of the ``.resume`` file, routed."""
    seats = SeatAddresses()
    seats.set_endpoints([ME, OLD_T, OLD_S], 0)
    me = Endpoint(epoch=1, keys=KeyCache(im), accept_plain=False)
    _route(me, seats, players)
    return me, seats


def _exchange(me: Endpoint, peer: Endpoint, at, now: float, seen: list | None = None) -> list[bytes]:
    """One 0.5 s tick between us and ``peer`` (which sends from ``at``): its datagrams to us
    (kept in ``seen``), ours back to it, both timers. Returns the payloads delivered to us."""
    got = []
    for d, _a in peer.datagrams_to_send(now):
        if seen is not None:
            seen.append(d)
        got += [p for _src, p in me.receive_datagram(d, at, now)]
    for d in [d for d, a in me.datagrams_to_send(now) if a == at]:
        peer.receive_datagram(d, ME, now)
    me.handle_timer(now + 0.5)
    peer.handle_timer(now + 0.5)
    return got


def _loop(me, seats, players, t, now, until, replay=None, adverts=None):
    """The node's loop from ``now`` to ``until`` (0.5 s ticks): pending adverts looked at again,
    ``adverts`` ({time: (seat, addr)}) arriving, seat 1's peer ``t`` sending from NEW_T, and the
    attacker's ``replay`` ((bytes, spoofed source)) every 4 s. Returns (seat 1's payloads
    delivered at NEW_T, verdicts)."""
    adverts = dict(adverts or {})
    got, verdicts = [], []
    while now < until:
        if replay is not None and int(now * 2) % 8 == 0:
            me.receive_datagram(replay[0], replay[1], now)
        due = [adverts.pop(w) for w in sorted(adverts) if w <= now]
        for seat, addr in list(seats.pending.items()) + due:
            v = seats.advert(seat, addr, me.last_heard(seats.endpoints[seat]) or None, now, me.last_heard)
            verdicts.append(v)
            if v == "moved":
                _route(me, seats, players)
        t.send(ME, b"seat 1 today %d" % int(now))
        got += _exchange(me, t, NEW_T, now)
        now += 0.5
    return got, verdicts


def _absent_seat_table(replayed: bool):
    """H114's #14 table (3 seats resume, seat 2's player away, seat 1 back at NEW_T), with the
    copy of seat 2's advert naming NEW_T first; ``replayed``: the attacker also replays, from
    NEW_T, one datagram seat 2's peer sent us in an earlier run (its first flight)."""
    (im, it, is_), players = _keys()
    earlier = _peer(is_, 7, im)  # seat 2's peer, another day
    earlier.send(ME, b"seat 2's step, another day")
    captured = [d for d, _a in earlier.datagrams_to_send(100.0)][0]
    me, seats = _us(im, players)
    t = _peer(it, 2, im)
    assert seats.advert(2, NEW_T, None, 0.0, me.last_heard) == "moved"  # the copy, first (H114 #14)
    _route(me, seats, players)
    if replayed:
        me.receive_datagram(captured, NEW_T, 0.05)  # one datagram, spoofed source NEW_T
    got, _v = _loop(me, seats, players, t, 0.1, 60.0, adverts={0.1: (1, NEW_T)})
    return me, seats, got


def test_premise_without_the_replay_the_returning_seat_gets_its_address():
    """What 92c09f1 fixed holds without a replay: seat 1 takes NEW_T from the unheard seat 2."""
    me, seats, got = _absent_seat_table(replayed=False)
    assert seats.endpoints == [ME, NEW_T, OLD_S] and got


def test_one_replayed_datagram_of_an_earlier_run_keeps_the_returning_seat_out_again():
    """BREAK s12 #1 (MED; reopens H114's #14 that 92c09f1 fixed). The attacker sends the copy of
    absent seat 2's advert naming seat 1's new address NEW_T (as in #14) plus ONE datagram seat
    2's peer sent us on another day (its first flight: `dst_epoch` 0, MACed with the static
    pairwise key), from the spoofed source NEW_T. Our fresh channel at NEW_T, pinned with seat
    2's key, takes it as first contact (delivered, `last_rx` set): seat 2 is 'heard' at NEW_T,
    so §N3.2's unheard-holder rule never applies and seat 1's advert stays refused for good;
    seat 1's datagrams meet seat 2's key (`key_mismatch`, ~2,850 in 60 s). Cost: one mDNS answer
    and one replayed datagram per peer (a capture of any earlier run's first flight of the
    absent seat). Gets: a table resuming with one player away never resumes (as #14).
    Suggested fix: 'heard at an address' (``Endpoint.last_heard`` as §N3.2 reads it) only from a
    channel whose return routability is confirmed (§N2.6: a RESPONSE to a fresh nonce sent to
    that address; a replay from a spoofed source cannot answer it), or only datagrams that carry
    our current epoch as `dst_epoch` (a first flight of this run answered by us).

    FIXED (H126, §N2.2 "Heard"): the replay is delivered but never heard (the route at NEW_T is
    not proven: our CHALLENGE goes to seat 1, which cannot answer it with seat 2's key)."""
    me, seats, got = _absent_seat_table(replayed=True)
    assert seats.endpoints[1] == NEW_T and got, (
        f"seat 1 at {seats.endpoints[1]}, pending {seats.pending}; seat 2 'heard' at NEW_T at "
        f"{me.last_heard(NEW_T)}; {me.channels[NEW_T].stats.get('key_mismatch')} key_mismatch")


def _moved_seat_table(replayed: bool):
    """Seat 1's peer talks to us from OLD_T for 10 s (this run), crashes and restarts at NEW_T
    (new epoch), which it advertises at 10.5 s. ``replayed``: the attacker replays one of seat 1's
    datagrams of before the crash (a duplicate for us) from the spoofed source OLD_T every 4 s."""
    (im, it, _is), players = _keys()
    me, seats = _us(im, players)
    before = _peer(it, 2, im)
    now, seen = 0.0, []
    while now < 10.0:
        before.send(ME, b"seat 1 before the crash %d" % int(now))
        _exchange(me, before, OLD_T, now, seen)
        now += 0.5
    t = _peer(it, 3, im)  # restarted at NEW_T
    got, verdicts = _loop(me, seats, players, t, now, 70.0, replay=(seen[3], OLD_T) if replayed else None,
                          adverts={10.5: (1, NEW_T)})
    return me, seats, got, verdicts


def test_premise_a_seat_that_restarted_elsewhere_is_found_there():
    """§N3.2: the advert of a seat heard at OLD_T is ignored while it was heard there lately, and
    adopted once it has been quiet there 5 s (a peer restarted elsewhere)."""
    me, seats, got, verdicts = _moved_seat_table(replayed=False)
    assert verdicts[0] == "ignored" and seats.endpoints[1] == NEW_T and got


def test_replayed_duplicates_keep_a_restarted_seat_heard_at_its_old_address():
    """BREAK s12 #2 (LOW-MED; no race needed, unlike §N3.2's accepted "a forged advert that wins
    the race against a seat that really moved"). Seat 1's peer crashed at OLD_T and restarted at
    NEW_T; the attacker replays one of its old datagrams (already received: a duplicate) from the
    spoofed source OLD_T every 4 s. A duplicate is not delivered but sets ``last_rx``, so seat 1
    is 'heard' at OLD_T for ever: its advert is ignored at each look (`ignored_again`), NEW_T is
    not allowed (`restrict`), its datagrams from there are `unknown_dropped` (~2,850 in 60 s)
    and it is voted out as silent after the drop timeout (§C8.3). Cost: one captured datagram,
    a 100 B replay every 4 s per peer. Gets: any seat whose peer restarts elsewhere (a laptop
    that changed Wi-Fi) is kept out and dropped. Suggested fix: 'heard' only for a datagram that
    advanced the channel (new data or a new acknowledgement), not a duplicate; together with
    #1's fix (confirmed return routability).

    FIXED (H126, §N2.2 "Heard"): a duplicate advances nothing, so it is not heard; seat 1 goes
    quiet at OLD_T and its advert is adopted."""
    me, seats, got, verdicts = _moved_seat_table(replayed=True)
    assert seats.endpoints[1] == NEW_T and got, (
        f"seat 1 at {seats.endpoints[1]} (verdicts {sorted(set(verdicts))}), "
        f"{me.stats.get('unknown_dropped')} datagrams from NEW_T dropped")
