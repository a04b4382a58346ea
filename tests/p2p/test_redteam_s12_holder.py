"""Red team session 12 (H122): §N3.2 'An unheard holder' (92c09f1) against a seat-holder that
advertises its own seat at a returning seat's address and then speaks from there.

Same sans-I/O table as tests/p2p/test_redteam_s12_rendezvous.py (its helpers): ``SeatAddresses``
+ real ``Endpoint``s routed as ``Node.route_seats`` does, the node's 0.5 s look at pending
adverts, a virtual clock.
"""

from __future__ import annotations

from test_redteam_s12_rendezvous import ME, NEW_T, _exchange, _keys, _peer, _route, _us


def _seat_holder_table(spoofs: bool):
    """Seat 2 is a seat-holder (its own keys; present, quiet 5 s at OLD_S). Seat 1's peer comes
    back at NEW_T; seat 2 sees its mDNS announcement and answers our query first with ITS OWN
    advert naming NEW_T (the race of §N3.2's accepted 'forged advert that wins the race'; here a
    real advert of another seat). ``spoofs``: it then sends, from the spoofed source NEW_T, a
    datagram MACed with its own key every 4 s (its colluder passes it the table's messages)."""
    (im, it, is_), players = _keys()
    me, seats = _us(im, players)
    t = _peer(it, 2, im)
    liar = _peer(is_, 5, im)
    assert seats.advert(2, NEW_T, None, 6.0, me.last_heard) == "moved"  # its own advert, first
    _route(me, seats, players)
    now, got, verdicts = 6.1, [], []
    adverts = {6.1: (1, NEW_T), 30.0: (1, NEW_T)}  # seat 1's advert, and again after it re-registers
    while now < 60.0:
        if spoofs and int(now * 2) % 8 == 0:
            liar.send(ME, b"seat 2's step, from NEW_T")
            for d, _a in liar.datagrams_to_send(now):
                me.receive_datagram(d, NEW_T, now)
        due = [adverts.pop(w) for w in sorted(adverts) if w <= now]
        for seat, addr in list(seats.pending.items()) + due:
            verdicts.append(seats.advert(seat, addr, me.last_heard(seats.endpoints[seat]) or None, now,
                                         me.last_heard))
            if verdicts[-1] == "moved":
                _route(me, seats, players)
        t.send(ME, b"seat 1 today %d" % int(now))
        got += _exchange(me, t, NEW_T, now)
        liar.handle_timer(now)
        now += 0.5
    return seats, got, verdicts


def test_premise_a_seat_holders_own_advert_at_a_returning_seats_address_gives_way():
    """92c09f1 holds against the race alone: seat 2, never heard at NEW_T, gives it up 5 s after."""
    seats, got, _v = _seat_holder_table(spoofs=False)
    assert seats.endpoints[1] == NEW_T and got


def test_a_seat_holder_cannot_keep_a_returning_seats_address_by_speaking_from_it():
    """BREAK s12 #7 (MED with a colluder; no capture needed). After winning the race with its own
    advert, seat 2 sends datagrams MACed with its own key from the spoofed source NEW_T: it is
    'heard' there, so seat 1's advert stays refused, also when seat 1 re-registers (unlike the
    accepted race, which a re-resolved advert cures); seat 1's datagrams meet seat 2's key and it
    is voted out after the drop timeout. Seat 2 hears nothing we send (it goes to NEW_T), so a
    colluding seat passes it the signed messages. Cost: one advert, one 100 B datagram per 4 s
    per peer. Suggested fix: as #1: 'heard at an address' only once the channel there answered a
    CHALLENGE sent to it (a spoofer at NEW_T never sees the nonce).

    FIXED (H126, §N2.2 "Heard"): seat 2's datagrams from NEW_T are accepted but never heard (our
    CHALLENGE to NEW_T reaches seat 1, not seat 2), so it gives NEW_T up 5 s after its advert."""
    seats, got, verdicts = _seat_holder_table(spoofs=True)
    assert seats.endpoints[1] == NEW_T and got, f"seat 1 at {seats.endpoints[1]}, verdicts {sorted(set(verdicts))}"
