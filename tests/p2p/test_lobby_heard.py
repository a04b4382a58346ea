"""§N3.2 "Heard at the start" (H131): the game's start counts as hearing every seat at its lobby endpoint.

A channel we chose (a joiner's to the host) is *heard* (§N2.2 "Heard", a4954af) only after a
RESPONSE to the CHALLENGE sent when the game starts. A partition from the start (a
``--partition`` at step 0, an overloaded machine) loses it, and the seat was 'never heard' at its
lobby address: the first advert for it (two demos with one seed advertise the same seat with the
same keys, protocol.md part L "Not isolated") moved it at once, its lobby address was not kept
(``left_from``) and its channel was forgotten, so when the partition healed the two peers of one
game, each pinned afresh on a move allowance spent in the cut, never reached each other: one
played on with the other demo's peer, the other abandoned, and the demo's peers disagreed
(tests/e2e/test_demo_same_seed.py, CI at d32f0fa). Sans-I/O: ``SeatAddresses`` + a real
``Endpoint`` routed as ``Node.route_seats`` does, a virtual clock.
"""

from __future__ import annotations

from types import SimpleNamespace

from p2p.channel_auth import KeyCache
from p2p.endpoint import Endpoint
from p2p.identity import Identity
from p2p.node_lobby import pin_seats
from p2p.rendezvous import ADVERT_HEARD_S, SeatAddresses

ME = ("127.0.0.1", 5001)  # the joiner (seat 1)
HOST = ("127.0.0.1", 5000)  # seat 0's lobby endpoint
OTHER = ("127.0.0.1", 6000)  # the other demo's host: same seat, same keys
START = 100.0  # loop time the game starts


def _route(ep: Endpoint, seats: SeatAddresses, players) -> None:
    """What ``Node.route_seats`` does after a move."""
    ep.restrict(seats.peers() + list(seats.left_from))
    pin_seats(ep, players, seats.endpoints, seats.my_seat)


def _joiner(started: bool):
    """The joiner at the game's start: its chosen channel to the host, never heard (the start's
    CHALLENGE lost in the partition); ``started``: ``SeatAddresses.started`` called as
    ``NodeRestart.new_game`` does."""
    ids = [Identity.generate() for _ in range(2)]
    players = [SimpleNamespace(x25519_key=i.x25519_public_key) for i in ids]
    ep = Endpoint(epoch=1, keys=KeyCache(ids[1]), accept_plain=False)
    ep.pin(HOST, players[0].x25519_key)  # the joiner chose the host's address (join code)
    seats = SeatAddresses()
    seats.set_endpoints([HOST, ME], 1)
    if started:
        seats.started(START)
    _route(ep, seats, players)
    ep.datagrams_to_send(START)  # the start's CHALLENGE: lost in the partition
    assert ep.last_heard(HOST) == 0.0
    return ep, seats, players


def _advert(ep: Endpoint, seats: SeatAddresses, players, addr, now: float) -> str:
    """``NodeRestart.seat_moved`` for seat 0's advert naming ``addr`` at ``now``."""
    verdict = seats.advert(0, addr, ep.last_heard(seats.endpoints[0]), now, ep.last_heard)
    if verdict == "moved":
        _route(ep, seats, players)
    return verdict


def test_premise_without_the_start_a_seat_never_heard_loses_its_lobby_address_at_the_first_advert():
    ep, seats, players = _joiner(started=False)
    lobby_channel = ep.channels[HOST]
    assert _advert(ep, seats, players, OTHER, START + 1.0) == "moved"
    assert HOST not in seats.left_from and ep.channels.get(HOST) is not lobby_channel


def test_an_advert_in_the_first_5_s_of_the_game_is_ignored_for_a_seat_at_its_lobby_endpoint():
    """§N3.2 "Heard at the start": heard at ``START`` there, so ignored until 5 s of silence."""
    ep, seats, players = _joiner(started=True)
    assert _advert(ep, seats, players, OTHER, START + 1.0) == "ignored"
    assert seats.endpoints[0] == HOST and seats.pending == {0: OTHER}
    assert _advert(ep, seats, players, OTHER, START + ADVERT_HEARD_S + 0.5) == "moved"


def test_the_lobby_address_stays_the_seats_way_back_with_its_channel():
    """Moved 5 s after the start: the lobby address is kept (``left_from``, allowed) with its
    channel, and the seat moves back when it speaks from there (``spoke``), as it did when
    'heard' was any accepted datagram; still no other seat's advert may take it."""
    ep, seats, players = _joiner(started=True)
    lobby_channel = ep.channels[HOST]
    assert _advert(ep, seats, players, OTHER, START + ADVERT_HEARD_S + 0.5) == "moved"
    assert seats.endpoints[0] == OTHER and seats.left_from == {HOST: 0}
    assert ep.channels.get(HOST) is lobby_channel
    assert seats.taken(1, HOST)
    assert seats.spoke(HOST) == 0 and seats.endpoints[0] == HOST
    _route(ep, seats, players)
    assert ep.channels.get(HOST) is lobby_channel


def test_the_start_counts_once_and_only_at_the_lobby_endpoint():
    """Long after the start the seat counts as heard long ago (moved, way back kept); at an
    address an advert put it at, the start counts for nothing (moved at once, nothing kept)."""
    ep, seats, players = _joiner(started=True)
    assert _advert(ep, seats, players, OTHER, START + 60.0) == "moved"
    third = ("127.0.0.1", 7000)
    assert _advert(ep, seats, players, third, START + 61.0) == "moved"
    assert seats.endpoints[0] == third and OTHER not in seats.left_from and seats.left_from == {HOST: 0}
