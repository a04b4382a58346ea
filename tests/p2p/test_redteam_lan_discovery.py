"""Red team, the hostile laptop on the LAN (issue 10, H37): discovery (protocol.md §N3, §N3.1).

Any TXT record parses or is refused (never crashes), a cloned advert with another key cannot claim
the host's fingerprint, and a join by game id never picks one of two adverts with different keys.
Shared addresses and keys: tests/p2p/redteam_lan_kit.py.
"""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p.ad_record import DiscoveryError, GameAd

from redteam_lan_kit import GID, HOST_ID, MALLORY


class _Info:
    """What ``GameAd.from_info`` reads of a resolved zeroconf record."""

    def __init__(self, properties, port=41000, addresses=("127.0.0.2",)):
        self.properties, self.port, self._addresses = properties, port, list(addresses)

    def parsed_addresses(self, *_):
        return self._addresses


_AD = GameAd(version=C.PROTOCOL_VERSION, game_id=GID, edition="classico", seats_taken=1, seats_total=4,
             state="lobby", fingerprint=HOST_ID.fingerprint, address="127.0.0.2", port=41000,
             public_key=HOST_ID.public_key, x25519_key=HOST_ID.x25519_public_key, host_name="h", players=("h",),
             watch_port=41001)
_TXT = {k.encode(): v.encode() for k, v in _AD.txt().items()}


@settings(max_examples=300, deadline=None)
@given(edits=st.dictionaries(st.sampled_from(sorted(_TXT) + [b"p1", b"p9", b"sd", b"zz", b""]),
                             st.one_of(st.none(), st.binary(max_size=80),
                                       st.sampled_from([b"99/1", b"1/99", b"0:9:1", b"ff" * 40, b"\xff\xfe", b"0",
                                                        b"65536", b"-1", b"\xd9\xa3", b"1" * 7]))),
       port=st.sampled_from([41000, 0, 65535, None]))
def test_any_txt_record_parses_or_is_refused_never_crashes(edits, port):
    """Holds: a hostile TXT record (any key, any bytes, missing values) gives a GameAd or a
    DiscoveryError: it cannot crash the browser or the list."""
    props = dict(_TXT)
    props.update(edits)
    try:
        ad = GameAd.from_info(_Info(props, port=port))
    except DiscoveryError:
        return
    assert ad.public_key is None or ad.fingerprint == HOST_ID.fingerprint or ad.fingerprint == props[b"fp"].decode()


def test_a_cloned_ad_with_another_key_cannot_claim_the_hosts_fingerprint():
    """Holds: an ad that copies the game id and fingerprint but carries the attacker's key is
    refused (fp must be the fingerprint of pk); one with its own fingerprint is a different,
    visible game, and a joiner from the list keys its channel with the key of the ad it picked."""
    txt = dict(_TXT)
    txt[b"pk"] = MALLORY.public_key.hex().encode()
    txt[b"xk"] = MALLORY.x25519_public_key.hex().encode()
    with pytest.raises(DiscoveryError):
        GameAd.from_info(_Info(txt))
    txt[b"fp"] = MALLORY.fingerprint.encode()
    clone = GameAd.from_info(_Info(txt))
    assert clone.game_id == _AD.game_id and clone.fingerprint != _AD.fingerprint


def test_a_join_by_game_id_never_picks_one_of_two_adverts_with_different_keys(monkeypatch):
    """Fixed (H37): a join by game id alone (``lanopoli join --game <32 hex>``, the node's
    ``wait_for(ad.game_id == want)``) took the first advert of that id: a clone (same gid,
    the attacker's own keys and address) could win the race and the joiner joined the
    attacker's lobby. Now ``Discovery.wait_for`` skips a contested game id (two adverts, two
    keys) and times out while the clone stays; the same host's updated advert is no clone."""
    from p2p.discovery import Discovery

    monkeypatch.setattr(Discovery, "browse", lambda self: None)  # no zeroconf: adverts as found
    clone = GameAd.from_info(_Info({**_TXT, b"pk": MALLORY.public_key.hex().encode(),
                                    b"xk": MALLORY.x25519_public_key.hex().encode(),
                                    b"fp": MALLORY.fingerprint.encode()}, port=6666))

    async def pick(ads):
        d = Discovery(["127.0.0.1"])
        d.games.update({f"ad{i}": ad for i, ad in enumerate(ads)})
        try:
            return await d.wait_for(lambda ad: ad.game_id == GID, 0.05)
        except TimeoutError:
            return None

    assert asyncio.run(pick([clone, _AD])) is None and asyncio.run(pick([_AD, clone])) is None
    assert asyncio.run(pick([_AD])) == _AD
    later = GameAd.from_info(_Info({**_TXT, b"seats": b"2/4"}))  # the host's own update
    assert asyncio.run(pick([_AD, later])) in (_AD, later)
