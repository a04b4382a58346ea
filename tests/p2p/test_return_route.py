"""The return-routability bound of an unconfirmed channel on its own (p2p/return_route.py,
protocol.md §N2.6 'Reflection'); the channel-level cases are in tests/p2p/test_transport.py and
tests/p2p/test_redteam_lan_transport.py."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from p2p.return_route import UNCONFIRMED_FACTOR, UNCONFIRMED_RESENDS, ReturnRoute
from p2p.transport import STAT_KEYS

A = ("127.0.0.1", 9)
PURE_ACK = bytes([0xB1, 0]) + bytes(20)  # flags byte 0: a pure ack
DATA = bytes([0xB1, 1]) + bytes(98)  # flags byte 1: 100 bytes of data


def route(confirmed: bool = False) -> ReturnRoute:
    return ReturnRoute(dict.fromkeys(STAT_KEYS, 0), confirmed)


@given(st.lists(st.tuples(st.integers(0, 1200), st.lists(st.integers(1, 1200), max_size=8)), max_size=30))
def test_an_unconfirmed_channel_never_sends_more_than_the_factor_times_what_it_received(rounds):
    r = route()
    for received, sizes in rounds:
        r.heard(received)
        kept = r.bound([(bytes([0xB1, 1]) + bytes(max(0, s - 2)), A) for s in sizes], waiting=False)
        assert sum(len(d) for d, _ in kept) <= UNCONFIRMED_FACTOR * r.rx
        assert r.tx <= UNCONFIRMED_FACTOR * r.rx


def test_datagrams_are_kept_in_order_while_they_fit_and_withheld_after():
    r = route()
    r.heard(100)  # room for 300 bytes
    kept = r.bound([(DATA, A), (DATA, A), (DATA, A), (DATA, A)], waiting=False)
    assert kept == [(DATA, A)] * 3
    assert r.stats["unconfirmed_withheld"] == 1


def test_no_pure_ack_while_our_data_waits_for_its_first_ack():
    r = route()
    r.heard(1000)
    assert r.bound([(PURE_ACK, A), (DATA, A)], waiting=True) == [(DATA, A)]
    assert r.bound([(PURE_ACK, A)], waiting=False) == [(PURE_ACK, A)]


def test_it_gives_up_after_the_resends_and_wakes_when_the_address_speaks():
    r = route()
    for _ in range(UNCONFIRMED_RESENDS):
        assert not r.timed_out()
    assert r.timed_out() and r.dormant
    assert r.stats["unconfirmed_gaveup"] == 1
    assert r.heard(50) is True  # it was dormant: the caller resends its window
    assert not r.dormant and r.void_timeouts == 0
    assert r.heard(50) is False


def test_confirmation_lifts_the_bound_and_wakes_a_dormant_route():
    r = route()
    for _ in range(UNCONFIRMED_RESENDS + 1):
        r.timed_out()
    assert r.confirm() is True and r.confirmed and not r.dormant
    assert route(confirmed=False).confirm() is False  # not dormant: nothing to resend
