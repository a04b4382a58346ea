"""Pairwise channel keys (protocol.md §N2.2): symmetric derivation, one key per direction,
refused keys, the cache and the rate limit of keys offered by strangers."""

import hmac

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import p2p.channel_auth as ca
from p2p.channel_auth import (INTRO_ADDR_BURST, INTRO_ADDR_RATE, INTRO_BURST, INTRO_IP_BURST, INTRO_IP_RATE,
                              INTRO_RATE, KeyCache, derive_pair_keys, mac, mac_ok)
from p2p import const as C
from p2p.identity import Identity


@settings(max_examples=25, deadline=None)
@given(st.binary(min_size=1, max_size=8), st.binary(min_size=1, max_size=8))
def test_both_sides_derive_the_same_keys_one_per_direction(sa, sb):
    a, b = Identity.from_seed(b"a" + sa), Identity.from_seed(b"b" + sb)
    ka = KeyCache(a).pinned(b.x25519_public_key)
    kb = KeyCache(b).pinned(a.x25519_public_key)
    assert ka.send == kb.recv and ka.recv == kb.send and ka.send != ka.recv
    assert ka.peer_xk == b.x25519_public_key and kb.peer_xk == a.x25519_public_key


def test_equal_or_bad_keys_are_refused():
    a = Identity.from_seed(b"a")
    with pytest.raises(ValueError):
        derive_pair_keys(bytes(32), a.x25519_public_key, a.x25519_public_key)
    cache = KeyCache(a)
    assert cache.pinned(a.x25519_public_key) is None  # our own key
    assert cache.pinned(bytes(32)) is None  # a low-order point: all-zero shared secret
    assert cache.pinned(b"short") is None
    assert cache.stats["bad_key"] == 3


def test_introduced_keys_are_rate_limited_but_cached_ones_are_free():
    cache = KeyCache(Identity.from_seed(b"me"))
    peers = [Identity.from_seed(b"p%d" % i).x25519_public_key for i in range(INTRO_BURST + 10)]
    got = [cache.introduced(xk, 0.0) for xk in peers]
    assert sum(k is not None for k in got) == INTRO_BURST
    assert cache.stats["intro_limited"] == 10
    assert cache.introduced(peers[0], 0.0) is not None  # cached: no token needed
    later = 3 / INTRO_RATE  # three tokens later
    assert sum(cache.introduced(xk, later) is not None for xk in peers[INTRO_BURST:]) == 3
    assert cache.pinned(peers[-1]) is not None  # pinned keys are never limited


def test_one_source_address_cannot_take_the_whole_introduction_budget():
    """protocol.md §N2.1 item 3: a stranger flooding fresh keys from one address gets
    INTRO_ADDR_BURST derivations, then INTRO_ADDR_RATE per second, so a joiner's
    introduction from another address is still derived (tests/p2p/test_flood_loopback.py
    failed ~1 run in 6 under load when the flood took the whole INTRO_RATE)."""
    cache = KeyCache(Identity.from_seed(b"me"))
    flood = [Identity.from_seed(b"f%d" % i).x25519_public_key for i in range(INTRO_BURST * 3)]
    stranger, joiner = ("10.0.0.66", 4000), ("10.0.0.7", 4000)
    got = [cache.introduced(xk, 0.0, stranger) for xk in flood]
    assert sum(k is not None for k in got) == INTRO_ADDR_BURST
    assert cache.introduced(Identity.from_seed(b"joiner").x25519_public_key, 0.0, joiner) is not None
    later = 2 / INTRO_ADDR_RATE  # two of the stranger's tokens later
    assert sum(cache.introduced(xk, later, stranger) is not None for xk in flood[INTRO_ADDR_BURST:]) == 2


def test_one_machine_with_many_sockets_cannot_take_the_whole_introduction_budget():
    """protocol.md §N2.1 item 3 (H88 review #9): 16 sockets of one stranger machine, each with its
    own per-address bucket, share their IP's INTRO_IP_BURST then INTRO_IP_RATE per second, so
    they take a quarter of INTRO_RATE and a joiner from another machine is still derived, in
    the burst and a second later (before: 16 x INTRO_ADDR_RATE = INTRO_RATE, all of it)."""
    cache = KeyCache(Identity.from_seed(b"me"))
    socks = [("10.0.0.66", 4000 + k) for k in range(16)]
    fresh = iter(Identity.from_seed(b"g%d" % i).x25519_public_key for i in range(10_000))
    for t in (0.0, 1.0):
        got = sum(cache.introduced(next(fresh), t, a) is not None for _ in range(INTRO_ADDR_BURST) for a in socks)
        assert got == INTRO_IP_BURST if t == 0.0 else got == INTRO_IP_RATE
        assert cache.introduced(next(fresh), t, ("10.0.0.7", 4000)) is not None


def test_a_demos_peers_on_one_machine_introduce_themselves_at_once():
    """protocol.md §N2.1 item 3: MAX_SEATS - 1 joiners on 127.0.0.1 (a demo, one port each)
    introduce themselves to the host in one burst, also while a stranger's socket on that IP
    floods fresh keys (its own bucket stops it at INTRO_ADDR_BURST)."""
    assert INTRO_IP_BURST >= C.MAX_SEATS + INTRO_ADDR_BURST
    cache = KeyCache(Identity.from_seed(b"host"))
    flood = [Identity.from_seed(b"s%d" % i).x25519_public_key for i in range(50)]
    assert sum(cache.introduced(xk, 0.0, ("127.0.0.1", 9999)) is not None for xk in flood) == INTRO_ADDR_BURST
    joiners = [Identity.from_seed(b"j%d" % i).x25519_public_key for i in range(C.MAX_SEATS - 1)]
    assert all(cache.introduced(xk, 0.0, ("127.0.0.1", 5001 + i)) is not None for i, xk in enumerate(joiners))


def test_an_introduction_a_later_bucket_refuses_spends_no_token_of_the_earlier_ones():
    """protocol.md §N2.1 item 3 (H110): a token is taken from the address's, the IP's and all
    sources' buckets only when each has one. Before, an introduction the IP's or all sources'
    bucket refused still spent the earlier buckets' tokens: a joiner retrying through a flood
    emptied its own address's bucket and was refused again once the flood's bucket refilled."""
    fresh = iter(Identity.from_seed(b"h110-%d" % i).x25519_public_key for i in range(10_000))
    # The IP's bucket refuses: 4 sockets of the joiner's machine took its INTRO_IP_BURST.
    cache = KeyCache(Identity.from_seed(b"me"))
    joiner = ("10.0.0.7", 4000)
    for port in range(4001, 4001 + INTRO_IP_BURST // INTRO_ADDR_BURST):
        assert all(cache.introduced(next(fresh), 0.0, ("10.0.0.7", port)) for _ in range(INTRO_ADDR_BURST))
    assert not any(cache.introduced(next(fresh), 0.0, joiner) for _ in range(INTRO_ADDR_BURST))
    later = INTRO_ADDR_BURST / INTRO_IP_RATE  # the IP's bucket holds INTRO_ADDR_BURST tokens again
    assert all(cache.introduced(next(fresh), later, joiner) for _ in range(INTRO_ADDR_BURST))  # before: 1
    # All sources' bucket refuses: strangers on other IPs took INTRO_BURST.
    cache = KeyCache(Identity.from_seed(b"me"))
    for k in range(INTRO_BURST // INTRO_ADDR_BURST):
        assert all(cache.introduced(next(fresh), 0.0, ("10.0.1.%d" % k, 4000)) for _ in range(INTRO_ADDR_BURST))
    assert not any(cache.introduced(next(fresh), 0.0, joiner) for _ in range(INTRO_ADDR_BURST))
    later = INTRO_ADDR_BURST / INTRO_RATE  # all sources' bucket holds INTRO_ADDR_BURST tokens again
    assert all(cache.introduced(next(fresh), later, joiner) for _ in range(INTRO_ADDR_BURST))  # before: none
    assert cache.stats["intro_limited"] == INTRO_ADDR_BURST


_FRESH = [Identity.from_seed(b"h110-p%d" % i).x25519_public_key for i in range(80)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.sampled_from([0, 1, 4])), max_size=80))
def test_a_refused_introduction_leaves_no_trace_in_the_buckets(calls):
    """protocol.md §N2.1 item 3 (H110), as a property: a cache given a run of introductions (fresh
    keys from 3 ports of 3 IPs, ``dt`` ticks of 1/64 s, a small bucket of all sources) and one
    given only those the first accepted end with the same tokens in every bucket (a bucket made
    by refused introductions only is full): the refused ones changed nothing."""
    run, now = [], 0.0
    for i, (ip, port, ticks) in enumerate(calls):
        now += ticks / 64
        run.append((_FRESH[i], now, ("10.0.0.%d" % ip, 4000 + port)))
    first = KeyCache(Identity.from_seed(b"me"), burst=6, rate=8.0)
    accepted = [c for c in run if first.introduced(*c) is not None]
    replay = KeyCache(Identity.from_seed(b"me"), burst=6, rate=8.0)
    assert all(replay.introduced(*c) is not None for c in accepted)

    def at_now(b) -> float:  # a bucket's tokens refilled to ``now``
        return b.tokens if b.at is None else min(b.burst, b.tokens + (now - b.at) * b.per_s)

    def tokens(cache: KeyCache) -> dict:
        out = {(kind, key): at_now(b) for kind, table in (("addr", cache._intros_by_addr), ("ip", cache._intros_by_ip))
               for key, b in table.items()}
        out["all"] = at_now(cache._intros)
        return out

    mine, replayed = tokens(first), tokens(replay)
    full = {"addr": INTRO_ADDR_BURST, "ip": INTRO_IP_BURST}  # a bucket only refused calls made
    assert mine.pop("all") == replayed.pop("all")
    assert all(t == replayed.get(key, full[key[0]]) for key, t in mine.items())


def test_mac_is_truncated_hmac_and_checked_in_constant_time():
    key = bytes(range(32))
    tag = mac(key, b"datagram")
    assert len(tag) == 16 and mac_ok(key, b"datagram", tag)
    assert not mac_ok(key, b"datagrap", tag) and not mac_ok(bytes(32), b"datagram", tag)


@given(st.lists(st.tuples(st.binary(min_size=32, max_size=32), st.binary(max_size=1300)), min_size=1, max_size=8))
def test_mac_is_the_standard_hmac_sha256_with_any_key_order(pairs):
    """The per-key prepared contexts (issue 14) give the tag of a fresh HMAC-SHA256 every time,
    whatever the keys used before (RFC 2104, truncated to 16 bytes: protocol.md §N2.2)."""
    import hmac

    for key, data in pairs + pairs[::-1]:
        assert mac(key, data) == hmac.digest(key, data, "sha256")[:16]


def test_the_prepared_contexts_are_bounded():
    for i in range(ca._KEYED_MAX + 10):
        mac(i.to_bytes(32, "big"), b"x")
    assert len(ca._KEYED) <= ca._KEYED_MAX
    assert mac(bytes(32), b"x") == hmac.digest(bytes(32), b"x", "sha256")[:16]
