"""Red team: a forged TXT sent later under a listed game's own instance name (protocol.md §N3
"Discovery"; H137's rule: a reader takes the TXT it received **last** for a game it lists).

mDNS is not authenticated and §N3 says what that allows: names are display hints, "the keys of
an advert are those of whoever answers for that game", and a lost or forged goodbye hides a
game as a crash does. It also promises that a game id advertised by two records with different
keys is *contested*: never picked by its ``gid`` alone (``Discovery.wait_for``), the list
showing both. Here a third zeroconf instance (the forger, loopback) sends one TXT response for
the host's instance name; nothing else of the host's advert (SRV, A) is forged.

* A malformed forged TXT hides nothing: the game stays listed with the host's advert (counted
  ``malformed``).
* A well-formed forged TXT with the forger's own key is listed beside the host's advert (one
  listing per key heard under the name), never in its place, and the name is *contested* until
  its goodbye: a join by ``gid`` picks neither (H144's finding, until H145 the forged TXT replaced
  the host's advert and a join by ``gid`` picked the forger's keys), whatever ``gid`` the forged
  TXT names, and the host's own re-announce does not undo it.

Loopback only; every zeroconf instance is closed (``async with``, a finally block).
"""

from __future__ import annotations

import asyncio
import os

from zeroconf import DNSOutgoing, DNSPointer, DNSText, const
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from p2p import const as C
from p2p.ad_listings import KEYS_PER_NAME
from p2p.ad_record import SERVICE_TYPE, GameAd
from p2p.discovery import REANNOUNCE_S, Discovery

LO = "127.0.0.1"
HOST_FP, FORGER_FP = "cd" * 8, "ef" * 8


def _ad(gid: bytes) -> GameAd:
    return GameAd(version=C.PROTOCOL_VERSION, game_id=gid, edition="classico", seats_taken=1,
                  seats_total=4, state="lobby", fingerprint=HOST_FP, address=LO, port=40021,
                  players=("Marco",))


def _forge_txt(forger: AsyncZeroconf, name: str, txt: dict[str, str]) -> None:
    """Send one mDNS response holding a TXT record for ``name`` (no cache-flush bit: the reader's
    last-received rule alone decides)."""
    text = AsyncServiceInfo(SERVICE_TYPE, name, properties=txt).text
    out = DNSOutgoing(const._FLAGS_QR_RESPONSE | const._FLAGS_AA)
    out.add_answer_at_time(DNSText(name, const._TYPE_TXT, const._CLASS_IN, 4500, text), 0)
    forger.zeroconf.async_send(out)


async def _until(cond, timeout: float) -> bool:
    """Poll ``cond()`` on the running loop (the browser's tasks run meanwhile) until true or
    ``timeout`` s have passed; returns its last value."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond() and loop.time() < end:
        await asyncio.sleep(0.01)
    return bool(cond())


def _run(forged_txt, check, with_host: bool = False) -> None:
    """Host advertises, ``other`` lists it, the forger sends ``forged_txt(ad)`` under the host's
    instance name (nothing if ``forged_txt`` is None), then ``await check(other, ad)``; with
    ``with_host``, ``await check(other, ad, host, forge)`` (``forge(txt)`` sends one more)."""
    async def main():
        forger = AsyncZeroconf(interfaces=[LO])
        try:
            async with Discovery([LO]) as host, Discovery([LO]) as other:  # closed on the way out
                ad = _ad(os.urandom(16))
                await host.advertise(ad)
                await other.wait_for(lambda a: a.game_id == ad.game_id, timeout=10)
                if forged_txt is not None:
                    _forge_txt(forger, ad.instance_name, forged_txt(ad))
                if with_host:
                    await check(other, ad, host, lambda txt: _forge_txt(forger, ad.instance_name, txt))
                else:
                    await check(other, ad)
        finally:
            await forger.async_close()

    asyncio.run(main())


def test_a_malformed_forged_txt_does_not_hide_the_game():
    """The forged TXT reaches the reader (counted ``malformed``) and the game stays listed with
    the host's advert (§N3: "A record with a missing or malformed key is ignored (counted)")."""
    def forged(ad):
        return {**ad.txt(), "seats": "9/1"}

    async def check(other, ad):
        assert await _until(lambda: other.malformed >= 1, 5)
        assert [a for a in other.games.values() if a.game_id == ad.game_id] == [ad]

    _run(forged, check)


def test_a_forged_txt_with_another_key_leaves_the_game_contested():
    """After the forged TXT (same ``gid``, the forger's fingerprint, its own name): a join by
    ``gid`` never picks the forger's advert (§N3: two records, two keys: contested), and the
    host's advert is still in the list."""
    def forged(ad):
        return {**ad.txt(), "fp": FORGER_FP, "n": "Mallory", "p0": "Mallory"}

    async def check(other, ad):
        await _until(lambda: any(a.fingerprint == FORGER_FP for a in other.games.values()), 3)
        try:
            picked = await other.wait_for(lambda a: a.game_id == ad.game_id, timeout=0.3)
        except TimeoutError:
            picked = None
        assert picked is None or picked.fingerprint == HOST_FP, "a join by gid picked the forger's key"
        assert any(a.fingerprint == HOST_FP and a.game_id == ad.game_id for a in other.games.values())
        # The list shows both, each contested (§N3: "the list still shows both, with their fingerprints").
        listed = [a for a in other.games.values() if a.game_id == ad.game_id]
        assert sorted(a.fingerprint for a in listed) == [HOST_FP, FORGER_FP]
        assert all(other.contested(a) for a in listed)

    _run(forged, check)


async def _picked(other: Discovery, gid: bytes, timeout: float = 0.3):
    """What a join by ``gid`` picks (``Discovery.wait_for``), None when it times out."""
    try:
        return await other.wait_for(lambda a: a.game_id == gid, timeout=timeout)
    except TimeoutError:
        return None


def test_a_forged_txt_with_another_gid_contests_the_hosts_name():
    """§N3 "Contested game ids": the forged TXT names another ``gid`` and the forger's key under the
    host's instance name; the host's advert stays listed, and since the name's TXTs carried two keys
    both listings are contested: a join by the host's ``gid`` picks nothing (it times out while the
    contest stands) rather than an advert the name's answers no longer vouch for."""
    other_gid = os.urandom(16)

    def forged(ad):
        return {**ad.txt(), "gid": other_gid.hex(), "fp": FORGER_FP}

    async def check(other, ad):
        assert await _until(lambda: any(a.game_id == other_gid for a in other.games.values()), 3)
        host_ad = [a for a in other.games.values() if a.game_id == ad.game_id]
        assert host_ad == [ad]
        assert other.contested(ad)
        assert await _picked(other, ad.game_id) is None
        assert await _picked(other, other_gid) is None

    _run(forged, check)


def test_the_hosts_reannounce_updates_its_listing_and_keeps_the_contest():
    """§N3: the host's later TXTs (a seat taken: ``update`` and its re-announce ``REANNOUNCE_S``
    later) update the host's own listing (2/4), never the forger's, and never undo the contest;
    ``wait_for`` still picks neither."""
    def forged(ad):
        return {**ad.txt(), "fp": FORGER_FP, "n": "Mallory"}

    async def check(other, ad, host, forge):
        assert await _until(lambda: any(a.fingerprint == FORGER_FP for a in other.games.values()), 3)
        heard = []  # (when, ad) of every listing change the reader makes
        loop = asyncio.get_running_loop()
        other.on_change = lambda name, a: heard.append((loop.time(), a))
        t0 = loop.time()
        new = await host.update(seats_taken=2, players=("Marco", "Anna"))
        # The update's announcements go out within ~0.5 s; the re-announce REANNOUNCE_S later.
        assert await _until(lambda: any(t >= t0 + REANNOUNCE_S - 0.1 and a == new for t, a in heard), 4)
        listed = sorted((a.fingerprint, a.seats_taken) for a in other.games.values() if a.game_id == ad.game_id)
        assert listed == [(HOST_FP, 2), (FORGER_FP, 1)]
        assert other.contested(new)
        assert await _picked(other, ad.game_id) is None

    _run(forged, check, with_host=True)


def test_the_goodbye_of_the_name_ends_the_contest():
    """§N3: a contest lasts until a goodbye for the instance name: the host withdraws, every
    listing of the name goes (the forger's too), and the host's next advert of the same game is
    listed alone, uncontested, and picked by its ``gid``."""
    def forged(ad):
        return {**ad.txt(), "fp": FORGER_FP}

    async def check(other, ad, host, forge):
        assert await _until(lambda: any(a.fingerprint == FORGER_FP for a in other.games.values()), 3)
        await host.withdraw()
        assert await _until(lambda: not any(a.game_id == ad.game_id for a in other.games.values()), 5)
        await host.advertise(ad)
        assert await _picked(other, ad.game_id, timeout=5) == ad
        assert not other.contested(ad)

    _run(forged, check, with_host=True)


def test_a_forged_goodbye_then_a_forged_txt_leaves_the_game_contested():
    """§N3 'Contested game ids' (RV13-A #1, session 13): one forged goodbye (PTR and TXT with TTL 0)
    for the host's name, then the forger's PTR and TXT under that same name, while the real host goes
    on: the forger's advert is listed but contested (the name and the game id are listed again within
    ``HOLD_S`` under a key other than the first heard for them), so a join by ``gid`` does not pick it.
    Until H154 the goodbye made the reader forget the host's key and the join picked the forger."""
    async def check(other, ad, host, forge):
        name = ad.instance_name
        zc = host.zeroconf.zeroconf  # any zeroconf on the LAN can send these
        host_text = AsyncServiceInfo(SERVICE_TYPE, name, properties=ad.txt()).text
        out = DNSOutgoing(const._FLAGS_QR_RESPONSE | const._FLAGS_AA)
        out.add_answer_at_time(DNSPointer(SERVICE_TYPE, const._TYPE_PTR, const._CLASS_IN, 0, name), 0)
        out.add_answer_at_time(DNSText(name, const._TYPE_TXT, const._CLASS_IN, 0, host_text), 0)
        zc.async_send(out)
        assert await _until(lambda: not any(a.game_id == ad.game_id for a in other.games.values()), 5)
        ftext = AsyncServiceInfo(SERVICE_TYPE, name, properties={**ad.txt(), "fp": FORGER_FP}).text
        out = DNSOutgoing(const._FLAGS_QR_RESPONSE | const._FLAGS_AA)
        out.add_answer_at_time(DNSPointer(SERVICE_TYPE, const._TYPE_PTR, const._CLASS_IN, 4500, name), 0)
        out.add_answer_at_time(DNSText(name, const._TYPE_TXT, const._CLASS_IN, 4500, ftext), 0)
        zc.async_send(out)
        assert await _until(lambda: any(a.fingerprint == FORGER_FP for a in other.games.values()), 3)
        forged = [a for a in other.games.values() if a.fingerprint == FORGER_FP]
        assert other.contested(forged[0])
        picked = await _picked(other, ad.game_id, timeout=1.0)
        assert picked is None or picked.fingerprint == HOST_FP, "a join by gid picked the forger's advert"

    _run(None, check, with_host=True)


def test_keys_heard_under_one_name_are_bounded():
    """§N3: at most ``KEYS_PER_NAME`` keys are listed under one instance name (the host's first);
    a forged TXT with one more key adds no listing (counted ``crowded``; the name is contested
    already), so a flood of keys under a name costs a reader a bounded list."""
    fps = [f"{i:02x}" * 8 for i in range(0x10, 0x10 + KEYS_PER_NAME + 1)]

    async def check(other, ad, host, forge):
        for i, fp in enumerate(fps):  # one at a time: a reader resolves the TXT it heard last
            forge({**ad.txt(), "fp": fp})
            if i < KEYS_PER_NAME - 1:
                assert await _until(lambda: any(a.fingerprint == fp for a in other.games.values()), 3)
        assert await _until(lambda: other.crowded >= 2, 3)
        listed = [a for a in other.games.values() if a.game_id == ad.game_id]
        assert sorted(a.fingerprint for a in listed) == sorted([HOST_FP, *fps[:KEYS_PER_NAME - 1]])
        assert all(other.contested(a) for a in listed)

    _run(None, check, with_host=True)
