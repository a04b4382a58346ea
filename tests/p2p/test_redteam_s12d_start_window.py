"""Red team s12d #3 (H136): what a LAN attacker gets from §N3.2 "Heard at the start" (12c5a8e,
H131): for 5 s after the game starts, a seat still at its lobby endpoint counts as heard there,
so adverts for it are ignored (kept in ``pending``, looked at again every tick).

Adverts carry only public keys: anyone can copy one and name any address. Tried here, on the
case 12c5a8e was made for (the joiner's channel to the host never heard: the start's CHALLENGE
lost): copied adverts for the host in the window (the last one stays pending), a copied advert
of ANOTHER seat naming the host's lobby address (§N3.2 "An unheard holder" takeover), and the
host really restarting elsewhere at once. Holds: the window costs the real seat at most its
length (stated in §N3.2), a copied advert adopted after it is undone by the seat's own datagram
from its lobby address (``left_from``) or by its own advert (the copied address was never heard),
and the lobby address is never given to another seat. Sans-I/O, virtual clock, real Endpoint,
the harness of tests/p2p/test_lobby_heard.py.
"""

from __future__ import annotations

from p2p.rendezvous import ADVERT_HEARD_S

from test_lobby_heard import HOST, ME, START, _advert, _joiner, _route

FORGED = [("127.0.0.1", 6100 + i) for i in range(4)]  # addresses of copied adverts (nobody there)
REAL = ("127.0.0.1", 5500)  # where the host really restarted
HOST_SEAT, ME_SEAT = 0, 1


def _tick(ep, seats, players, now: float) -> None:
    """``NodeRestart.tick``: every pending advert looked at again."""
    for seat, addr in list(seats.pending.items()):
        verdict = seats.advert(seat, addr, ep.last_heard(seats.endpoints[seat]), now, ep.last_heard)
        if verdict == "moved":
            _route(ep, seats, players)


def test_copied_adverts_in_the_window_cost_a_partitioned_host_nothing_for_good():
    """Copied adverts for the host, one per second in the window: ignored; the last one is adopted
    at the first tick past 5 s (as for any seat quiet 5 s), and the host's lobby address stays its
    way back with its channel: its next datagram from there puts it back."""
    ep, seats, players = _joiner(started=True)
    lobby_channel = ep.channels[HOST]
    for i, addr in enumerate(FORGED):
        assert _advert(ep, seats, players, addr, START + 0.5 + i) == "ignored"
        assert seats.endpoints[HOST_SEAT] == HOST
    now = START
    while now < START + ADVERT_HEARD_S + 1.0:
        now += 0.1
        _tick(ep, seats, players, now)
    assert seats.endpoints[HOST_SEAT] == FORGED[-1] and seats.left_from == {HOST: HOST_SEAT}
    assert ep.channels.get(HOST) is lobby_channel
    assert seats.spoke(HOST) == HOST_SEAT and seats.endpoints[HOST_SEAT] == HOST


def test_another_seats_copied_advert_never_takes_the_lobby_address_of_a_host_never_heard():
    """A copied advert of the joiner's own seat is ours; with 3 seats, seat 2's copied advert naming
    the host's lobby address (never heard there: the start's CHALLENGE lost) is refused in the
    window and for 30 s of ticks after it (§N3.2 "An unheard holder": seat 2 counts as heard at
    its own lobby endpoint at the start, so that endpoint is no way back for the host)."""
    from types import SimpleNamespace

    from p2p.channel_auth import KeyCache
    from p2p.endpoint import Endpoint
    from p2p.identity import Identity
    from p2p.rendezvous import SeatAddresses

    ids = [Identity.generate() for _ in range(3)]
    players = [SimpleNamespace(x25519_key=i.x25519_public_key) for i in ids]
    ep = Endpoint(epoch=1, keys=KeyCache(ids[1]), accept_plain=False)
    ep.pin(HOST, players[0].x25519_key)
    third = ("127.0.0.1", 5002)
    seats = SeatAddresses()
    seats.set_endpoints([HOST, ME, third], ME_SEAT)
    seats.started(START)
    _route(ep, seats, players)
    ep.datagrams_to_send(START)  # the start's CHALLENGEs: lost
    assert ep.last_heard(HOST) == 0.0 and ep.last_heard(third) == 0.0
    now = START + 0.2
    assert seats.advert(2, HOST, ep.last_heard(third), now, ep.last_heard) == "refused"
    while now < START + 30.0:
        now += 0.1
        _tick(ep, seats, players, now)
    assert seats.endpoints == [HOST, ME, third], seats.endpoints
    assert seats.pending == {2: HOST}


def test_a_host_that_really_restarted_at_once_is_kept_out_by_copies_only_until_its_own_advert():
    """The host restarts at once at REAL (new port): its advert in the window is ignored (stated:
    adopted 5 s later); a copied advert after it replaces it in ``pending`` and is adopted past
    5 s instead, but the host was never heard there, so the host's own advert (its next one)
    moves it at once, and the copied address is not kept."""
    ep, seats, players = _joiner(started=True)
    assert _advert(ep, seats, players, REAL, START + 0.3) == "ignored"
    assert _advert(ep, seats, players, FORGED[0], START + 0.4) == "ignored"
    now = START
    while now < START + ADVERT_HEARD_S + 0.5:
        now += 0.1
        _tick(ep, seats, players, now)
    assert seats.endpoints[HOST_SEAT] == FORGED[0]
    assert _advert(ep, seats, players, REAL, now + 0.1) == "moved"
    assert seats.endpoints[HOST_SEAT] == REAL and FORGED[0] not in seats.left_from
    assert seats.left_from == {HOST: HOST_SEAT}
