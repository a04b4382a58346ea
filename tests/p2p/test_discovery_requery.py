"""A forged goodbye must not leave a live host unheard (protocol.md §N3 "Contested game ids"; RV14-A #1).

Anyone on the LAN can send a goodbye for any instance name. python-zeroconf's browser asks for the type
only in its first ~9 s and then only to refresh records it still holds, so after a forged goodbye a
running reader never asked again: the live host stayed unlisted until its next TXT change, the hold of
its key (``HOLD_S``) lapsed, and a clone of its game id sent then was listed alone and picked. Two
answers, each tested alone here (real zeroconf on loopback; the reader's own query schedule is stopped
first, as it is once its startup queries are done):

* the reader asks once more ``REQUERY_S`` after it unlisted a game, and the live host's answer lists
  it again under its key (the host here is a bare python-zeroconf registration, which never defends);
* the host (``Discovery.advertise``) that hears a goodbye for its own name re-announces at once and
  ``REANNOUNCE_S`` later, one such round per ``REANNOUNCE_S`` however many goodbyes arrive (the
  reader's question is put off here).

Loopback only; every zeroconf instance is closed.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace

import pytest
from zeroconf import DNSOutgoing, DNSPointer, DNSRecord, DNSText, RecordUpdateListener, const
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from p2p import discovery
from p2p.ad_record import SERVICE_TYPE
from p2p.discovery import Discovery
from test_discovery_forged_txt import FORGER_FP, HOST_FP, LO, _ad, _until


def _goodbye(zc: AsyncZeroconf, name: str, txt: bytes) -> None:
    """One forged goodbye for instance ``name``: its PTR and TXT with TTL 0 (RFC 6762 §10.1)."""
    out = DNSOutgoing(const._FLAGS_QR_RESPONSE | const._FLAGS_AA)
    out.add_answer_at_time(DNSPointer(SERVICE_TYPE, const._TYPE_PTR, const._CLASS_IN, 0, name), 0)
    out.add_answer_at_time(DNSText(name, const._TYPE_TXT, const._CLASS_IN, 0, txt), 0)
    zc.zeroconf.async_send(out)


def _listed(reader: Discovery, gid: bytes) -> list[str]:
    return sorted(a.fingerprint for a in reader.games.values() if a.game_id == gid)


def _pickable(reader: Discovery, gid: bytes) -> list[str]:
    return sorted(a.fingerprint for a in reader.games.values() if a.game_id == gid and not reader.contested(a))


async def _with_bare_host(body) -> None:
    """A bare python-zeroconf registration of a fresh advert (it never defends its name), a forger's
    zeroconf and a reader after its startup queries (``_reader_after_startup``), all on loopback:
    ``await body(forger, reader, ad)``, then everything is closed."""
    host, forger = AsyncZeroconf(interfaces=[LO]), AsyncZeroconf(interfaces=[LO])
    reader = None
    try:
        ad = _ad(os.urandom(16))
        await host.async_register_service(ad.to_info(), cooperating_responders=True)
        reader = await _reader_after_startup(ad)
        await body(forger, reader, ad)
    finally:
        if reader is not None:
            await reader.close()
        await forger.async_close()
        await host.async_close()


async def _reader_after_startup(ad) -> Discovery:
    """A browsing reader that lists ``ad``, its browser's query schedule then stopped (as after its
    startup queries: it would never ask for the type again)."""
    reader = Discovery([LO])
    await reader.start()
    await reader.wait_for(lambda a: a.game_id == ad.game_id, timeout=10)
    reader._browser.query_scheduler.stop()
    return reader


def test_n3_a_reader_asks_again_after_a_goodbye_and_the_live_host_keeps_its_game_id():
    """RV14-A #1 (a): a forged goodbye for a live host that does not defend its name: the reader lists
    it again within ~``REQUERY_S`` under its own key; a clone of its game id sent later, even past the
    hold, is contested, never picked by the game id."""
    async def body(forger: AsyncZeroconf, reader: Discovery, ad) -> None:
        reader.listings._hold_s = 0.5
        name = ad.instance_name
        _goodbye(forger, name, AsyncServiceInfo(SERVICE_TYPE, name, properties=ad.txt()).text)
        assert await _until(lambda: _listed(reader, ad.game_id) == [], 2)
        assert await _until(lambda: _listed(reader, ad.game_id) == [HOST_FP], 2 + discovery.REQUERY_S)
        assert reader.requeries == 1 and _pickable(reader, ad.game_id) == [HOST_FP]
        await asyncio.sleep(1.0)  # past the (shortened) hold: the host is listed, so it keeps its place
        clone = replace(ad, fingerprint=FORGER_FP)  # its own name (game id + its fingerprint)
        await forger.async_register_service(clone.to_info(), cooperating_responders=True)
        assert await _until(lambda: len(_listed(reader, ad.game_id)) == 2, 3)
        assert _pickable(reader, ad.game_id) == []
    asyncio.run(_with_bare_host(body))


class _Heard(RecordUpdateListener):
    """The TXTs (TTL > 0) heard for one instance name, with the loop time of each."""

    def __init__(self, name: str) -> None:
        self.name, self.at = name.lower(), []

    def async_update_records(self, zc, now, records) -> None:
        for update in records:
            rec: DNSRecord = update.new
            if rec.type == const._TYPE_TXT and rec.ttl and rec.name.lower() == self.name:
                self.at.append(asyncio.get_running_loop().time())


def test_n3_a_host_re_announces_at_once_when_it_hears_a_goodbye_for_its_own_name(monkeypatch: pytest.MonkeyPatch):
    """RV14-A #1 (b): the host hears a forged goodbye for its own name and re-announces its advert at
    once, so a reader that would not ask again lists it again; five more goodbyes at once cost at most
    one more round (two announcements); the host's own withdrawal is not answered."""
    monkeypatch.setattr(discovery, "REQUERY_S", 60.0)  # the reader does not ask again within this test

    async def main():
        forger = AsyncZeroconf(interfaces=[LO])
        reader = None
        try:
            async with Discovery([LO]) as host:
                ad = _ad(os.urandom(16))
                await host.advertise(ad)
                reader = await _reader_after_startup(ad)
                heard = _Heard(ad.instance_name)
                forger.zeroconf.async_add_listener(heard, None)
                await asyncio.sleep(1.0)  # the registration's announcements are over
                name, loop = ad.instance_name, asyncio.get_running_loop()
                text = AsyncServiceInfo(SERVICE_TYPE, name, properties=ad.txt()).text
                sent, heard.at = loop.time(), []
                _goodbye(forger, name, text)
                assert await _until(lambda: heard.at, 1.0) and heard.at[0] - sent < 0.5
                assert await _until(lambda: _pickable(reader, ad.game_id) == [HOST_FP], 2)
                for i in range(5):  # each one new bytes (receivers drop a repeat seen < 1 s before)
                    _goodbye(forger, name, AsyncServiceInfo(SERVICE_TYPE, name, properties={"n": str(i)}).text)
                    await asyncio.sleep(0.02)
                await asyncio.sleep(2.5 * discovery.REANNOUNCE_S)
                assert 2 <= host.defences <= 3
                assert await _until(lambda: _pickable(reader, ad.game_id) == [HOST_FP], 2)
                done = host.defences
                await host.withdraw()
                await asyncio.sleep(0.3)
                assert host.defences == done and _listed(reader, ad.game_id) == []
        finally:
            if reader is not None:
                await reader.close()
            await forger.async_close()
    asyncio.run(main())


def test_n3_the_question_after_a_goodbye_carries_nothing_a_forger_put_in_our_cache(monkeypatch):
    """RV14-D [MED]: the re-query attached every PTR of the type in the reader's cache as known
    answers, so a forger that once filled the cache with made-up games (no SRV/A: never listed) made
    every reader multicast all of them at each forged goodbye (77 KB per question at 3,000). Now the
    question is one PTR question and nothing else, whatever the cache holds (§N3)."""
    made: list = []

    class Spy(DNSOutgoing):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            made.append(self)

    monkeypatch.setattr(discovery, "DNSOutgoing", Spy, raising=False)

    async def body(forger: AsyncZeroconf, reader: Discovery, ad) -> None:
        junk = DNSOutgoing(const._FLAGS_QR_RESPONSE | const._FLAGS_AA)
        for i in range(300):
            junk.add_answer_at_time(DNSPointer(SERVICE_TYPE, const._TYPE_PTR, const._CLASS_IN, 4500,
                                               f"junk {i:04d}.{SERVICE_TYPE}"), 0)
        forger.zeroconf.async_send(junk)
        cache = reader.zeroconf.zeroconf.cache
        assert await _until(lambda: len(cache.get_all_by_details(SERVICE_TYPE, const._TYPE_PTR,
                                                                 const._CLASS_IN)) > 300, 3)
        name = ad.instance_name
        _goodbye(forger, name, AsyncServiceInfo(SERVICE_TYPE, name, properties=ad.txt()).text)
        assert await _until(lambda: reader.requeries == 1, 2 + discovery.REQUERY_S)
        asked = [out for out in made if out.questions]
        assert len(asked) == 1 and not asked[0].answers
        assert sum(len(p) for p in asked[0].packets()) < 100  # was ~10 KB with these 300 in the cache
    asyncio.run(_with_bare_host(body))
