"""A forged goodbye must not leave a live host unheard (protocol.md §N3 "Contested game ids"; RV14-A #1).

Anyone on the LAN can send a goodbye for any instance name. python-zeroconf's browser asks for the type
only in its first ~9 s and then only to refresh records it still holds, so after a forged goodbye a
running reader never asked again: the live host stayed unlisted until its next TXT change, the hold of
its key (``HOLD_S``) lapsed, and a clone of its game id sent then was listed alone and picked. Two
answers, each tested alone here:

* the reader asks once more ``REQUERY_S`` after it unlisted a game, and the live host's answer lists
  it again under its key (the host here is a bare python-zeroconf registration, which never defends);
* the host (``Discovery.advertise``) that hears a goodbye for its own name re-announces at once and
  ``REANNOUNCE_S`` later, one such round per ``REANNOUNCE_S`` however many goodbyes arrive (the
  reader's question is put off here).

Real zeroconf on loopback where what a peer hears matters (the reader's own query schedule is stopped
first, as it is once its startup queries are done), with ``REQUERY_S`` cut to a tenth of a second (it
only has to come after the goodbye); the bounds (one question, one defence round, per interval however
many goodbyes) in memory on a virtual clock, where they are exact: those were ~9 s of real sleeps
(RV14R-D). Each assertion holds whatever another zeroconf on the same loopback sends meanwhile (its
startup query draws the host's answer too: RV14-D #2). Every zeroconf instance is closed.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace

import pytest
from zeroconf import (DNSOutgoing, DNSPointer, DNSRecord, DNSText, RecordUpdate, RecordUpdateListener,
                      ServiceStateChange, const)
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


def _unlistings(reader: Discovery, name: str) -> list[str]:
    """The reader's unlistings of instance ``name`` from now on, as they happen (``on_change``; games of
    other processes on the loopback come and go meanwhile)."""
    gone: list[str] = []
    reader.on_change = lambda listing, new: gone.append(listing) if new is None and listing == name else None
    return gone


async def _reader_after_startup(ad) -> Discovery:
    """A browsing reader that lists ``ad``, its browser's query schedule then stopped (as after its
    startup queries: it would never ask for the type again)."""
    reader = Discovery([LO])
    await reader.start()
    await reader.wait_for(lambda a: a.game_id == ad.game_id, timeout=10)
    reader._browser.query_scheduler.stop()
    return reader


def test_n3_a_reader_asks_again_after_a_goodbye_and_the_live_host_keeps_its_game_id(monkeypatch: pytest.MonkeyPatch):
    """RV14-A #1 (a): a forged goodbye for a live host that does not defend its name: the reader lists
    it again within ~``REQUERY_S`` under its own key; a clone of its game id sent later, even past the
    hold, is contested, never picked by the game id."""
    monkeypatch.setattr(discovery, "REQUERY_S", 0.1)

    async def body(forger: AsyncZeroconf, reader: Discovery, ad) -> None:
        reader.listings._hold_s = 0.2
        name = ad.instance_name
        gone = _unlistings(reader, name)  # (the host may be listed again before a poll sees it unlisted)
        _goodbye(forger, name, AsyncServiceInfo(SERVICE_TYPE, name, properties=ad.txt()).text)
        assert await _until(lambda: gone == [name], 2)
        assert await _until(lambda: reader.requeries == 1, 2)  # another zeroconf may list it again first
        assert await _until(lambda: _listed(reader, ad.game_id) == [HOST_FP], 2)
        assert reader.requeries == 1 and _pickable(reader, ad.game_id) == [HOST_FP]
        await asyncio.sleep(0.3)  # past the (shortened) hold: the host is listed, so it keeps its place
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
    once, so a reader that would not ask again lists it again; the host's own withdrawal is not
    answered. (Many goodbyes: ``test_n3_many_goodbyes_for_our_name_cost_one_more_defence_round``.)"""
    monkeypatch.setattr(discovery, "REQUERY_S", 60.0)  # the reader does not ask again within this test

    async def main():
        forger = AsyncZeroconf(interfaces=[LO])
        reader = None
        try:
            async with Discovery([LO]) as host:
                ad = _ad(os.urandom(16))
                loop = asyncio.get_running_loop()
                registered = loop.time()
                await host.advertise(ad)
                reader = await _reader_after_startup(ad)
                heard = _Heard(ad.instance_name)
                forger.zeroconf.async_add_listener(heard, None)
                # the registration's three announcements (0.45 s) are over, and a peer that heard them
                # no longer drops their bytes as a repeat (first sight + 0.8 s in python-zeroconf)
                await asyncio.sleep(max(0.0, registered + 1.4 - loop.time()))
                name = ad.instance_name
                text = AsyncServiceInfo(SERVICE_TYPE, name, properties=ad.txt()).text
                sent, heard.at = loop.time(), []
                _goodbye(forger, name, text)
                assert await _until(lambda: heard.at, 1.0) and heard.at[0] - sent < 0.5
                assert await _until(lambda: _pickable(reader, ad.game_id) == [HOST_FP], 2)
                assert host.defences == 1
                gone = _unlistings(reader, name)
                await host.withdraw()
                await asyncio.sleep(0.3)
                # The withdrawal's goodbye unlisted it and was not answered. (Not "unlisted 0.3 s later":
                # an answer the host queued for another zeroconf's query before its goodbye may go out
                # after it and list the game again at any reader, the goodbye's repeats then dropped as
                # duplicates; python-zeroconf's, not ours.)
                assert host.defences == 1 and name in gone
        finally:
            if reader is not None:
                await reader.close()
            await forger.async_close()
    asyncio.run(main())


class _RecordedMdns:
    """The parts of python-zeroconf's ``Zeroconf`` that ``Discovery``'s defence and question use,
    recording what is sent and when (``sent``: (loop time, packet) pairs); its one listener is fed
    records by hand. In memory: nothing reaches a socket."""

    def __init__(self) -> None:
        self.sent: list[tuple[float, object]] = []
        self.listener: RecordUpdateListener | None = None

    def async_send(self, out: object) -> None:
        self.sent.append((asyncio.get_running_loop().time(), out))

    def generate_service_broadcast(self, info: AsyncServiceInfo, ttl: int | None) -> object:
        return ("announce", info.name)

    def async_add_listener(self, listener: RecordUpdateListener, question: object) -> None:
        self.listener = listener

    def async_remove_listener(self, listener: RecordUpdateListener) -> None:
        self.listener = None

    def hear_goodbye(self, name: str) -> None:
        """A goodbye for instance ``name`` (its PTR, TTL 0), as zeroconf hands it to listeners."""
        ptr = DNSPointer(SERVICE_TYPE, const._TYPE_PTR, const._CLASS_IN, 0, name)
        self.listener.async_update_records(self, 0.0, [RecordUpdate(ptr, None)])


class _RecordedAsyncMdns:
    """``AsyncZeroconf`` around a ``_RecordedMdns``: registrations and goodbyes sent at once."""

    def __init__(self) -> None:
        self.zeroconf = _RecordedMdns()

    async def async_register_service(self, info: AsyncServiceInfo, **kw: object) -> asyncio.Future[None]:
        self.zeroconf.async_send(("register", info.name))
        return asyncio.ensure_future(asyncio.sleep(0))

    async def async_unregister_service(self, info: AsyncServiceInfo) -> asyncio.Future[None]:
        self.zeroconf.async_send(("goodbye", info.name))
        return asyncio.ensure_future(asyncio.sleep(0))

    async def async_close(self) -> None:
        pass


class _VirtualLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock moves only when nothing is ready: it then jumps to the next timer, so
    a sleep takes no real time and ``time()`` reads as if it had. For in-memory tests only (it never
    waits for a socket; nothing scheduled and nothing ready is a deadlock, raised)."""

    def __init__(self) -> None:
        super().__init__()
        self._now = 0.0
        select = self._selector.select

        def jump(timeout: float | None = None) -> list:
            events = select(0)
            if not events and timeout:
                self._now += timeout
            elif not events and timeout is None:
                raise RuntimeError("deadlock: nothing ready and no timer")
            return events

        self._selector.select = jump

    def time(self) -> float:
        return self._now


def _in_memory(body) -> None:
    """``await body(d, zc)`` on a virtual clock, ``d`` a ``Discovery`` whose zeroconf is ``zc``
    (a ``_RecordedMdns``); ``d`` is closed after."""
    async def main() -> None:
        d = Discovery([LO])
        fake = d._azc = _RecordedAsyncMdns()
        try:
            await body(d, fake.zeroconf)
        finally:
            await d.close()
    with asyncio.Runner(loop_factory=_VirtualLoop) as runner:
        runner.run(main())


def test_n3_many_goodbyes_for_our_name_cost_one_more_defence_round():
    """RV14-A #1 (b), the bound: the host answers a goodbye for its own name at once and
    ``REANNOUNCE_S`` later; five more goodbyes meanwhile cost one more round (two announcements),
    ``REANNOUNCE_S`` after the last packet (an equal packet sooner is dropped by receivers); goodbyes
    for other names, and for our own after our withdrawal, are not answered. Virtual clock."""
    R = discovery.REANNOUNCE_S

    async def body(host: Discovery, zc: _RecordedMdns) -> None:
        ad = _ad(os.urandom(16))
        await host.advertise(ad)
        name, announce = ad.instance_name, ("announce", ad.instance_name)
        await asyncio.sleep(10.0)
        zc.sent.clear()
        zc.hear_goodbye(name)
        await asyncio.sleep(0.1)
        for _ in range(5):
            zc.hear_goodbye(name.upper())  # DNS names match whatever their case
            await asyncio.sleep(0.02)
        zc.hear_goodbye(f"another game.{SERVICE_TYPE}")
        await asyncio.sleep(10.0)
        assert host.defences == 2
        assert [(round(t - 10.0, 6), p) for t, p in zc.sent] == [
            (0.0, announce), (round(R, 6), announce), (round(2 * R, 6), announce), (round(3 * R, 6), announce)]
        await host.withdraw()
        zc.hear_goodbye(name)  # our own, heard back
        await asyncio.sleep(10.0)
        assert host.defences == 2 and [p for _, p in zc.sent[4:]] == [("goodbye", name)]
    _in_memory(body)


def test_n3_many_goodbyes_cost_a_reader_one_question_per_requery_s():
    """RV14-A #1 (a), the bound: however many listed games are unlisted within ``REQUERY_S`` of the
    first, the reader asks once, ``REQUERY_S`` after it, one PTR question for the type and no known
    answers (RV14-D); a goodbye after that is asked about again; a goodbye for a name not listed is not.
    Virtual clock."""
    Q = discovery.REQUERY_S

    class Browser:  # browsing (``_ask_again`` asks only while browsing), with no zeroconf browser
        async def async_cancel(self) -> None:
            pass

    async def body(reader: Discovery, zc: _RecordedMdns) -> None:
        reader._browser = Browser()
        ads = [_ad(os.urandom(16)) for _ in range(4)]
        for ad in ads:
            reader.listings.put(ad.instance_name, ad)

        def goodbye(name: str) -> None:
            reader._on_state_change(None, SERVICE_TYPE, name, ServiceStateChange.Removed)

        goodbye(f"not listed.{SERVICE_TYPE}")
        await asyncio.sleep(10.0)
        assert zc.sent == [] and reader.requeries == 0
        start = asyncio.get_running_loop().time()
        for ad in ads[:3]:
            goodbye(ad.instance_name)
            await asyncio.sleep(0.5)
        await asyncio.sleep(10.0)
        goodbye(ads[3].instance_name)
        await asyncio.sleep(10.0)
        assert reader.requeries == 2 and [round(t - start, 6) for t, _ in zc.sent] == [round(Q, 6), round(11.5 + Q, 6)]
        for _, out in zc.sent:
            assert [(q.name, q.type) for q in out.questions] == [(SERVICE_TYPE, const._TYPE_PTR)]
            assert not out.answers
    _in_memory(body)


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
    monkeypatch.setattr(discovery, "REQUERY_S", 0.1)

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
        assert await _until(lambda: reader.requeries == 1, 2)
        asked = [out for out in made if out.questions]
        assert len(asked) == 1 and not asked[0].answers
        assert sum(len(p) for p in asked[0].packets()) < 100  # was ~10 KB with these 300 in the cache
    asyncio.run(_with_bare_host(body))
