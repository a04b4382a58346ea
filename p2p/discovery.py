"""Finding games on the local network with DNS-SD over mDNS (python-zeroconf, async API;
protocol.md §N3 "Discovery").

A peer that opens a lobby advertises one service instance of type ``_lanopoli._udp.local.``;
peers that want to join browse for that type. What the record says (SRV port, A address, TXT
keys) and its codec are ``ad_record.GameAd``; the join code for networks without multicast is
``join_code`` (§N3.1). Here: ``Discovery`` (one zeroconf instance: our advert published,
updated and withdrawn, others' adverts browsed into ``games``, a game id claimed by two keys
``contested``) and ``say_goodbye``.

Rules learnt on these machines (DESIGN.md section 5): zeroconf always gets explicit
``interfaces`` (loopback in tests and demos); instance names are unique by construction
(game id + key fingerprint) so ``cooperating_responders=True`` skips the ~1.2 s name probe;
browsing uses ``DNSQuestionType.QM`` because several processes share port 5353 on one host and a
unicast answer would reach only one of them; the task returned by ``async_unregister_service``
is awaited, or the goodbye is never sent. A crashed peer's record lingers for minutes, so
liveness is the protocol's business, not discovery's. An advert's TXT is the one last *received*
(``_Listener.on_txt``), not python-zeroconf's: it fires no ``Updated`` for a TXT equal to one still
cached and its cache answers the TXT first *stored*, so an advert going back to an earlier TXT
(1/4 -> 2/4 -> 1/4: a joiner leaving) was listed as 2/4 until the TTL ran out (H137). Last
*per key*: anyone can send a TXT under a listed instance name, so each key heard there keeps a
listing of its own and the name is contested until its goodbye (H145; one forged TXT used to
replace the host's advert, and a join by game id took the forger's keys); what is listed and
contested, and what is remembered after a goodbye, is ``ad_listings.Listings``'s. And
its listener drops a packet byte-equal to one received in the last second (first sight + 1 s),
so an update back to a TXT announced less than a second before never arrived at all: ``update``
announces once more ``REANNOUNCE_S`` later (the last word, after any answer still queued).
Keeping the last TXT uses two methods of python-zeroconf's record cache (``DNSCache``) that
its documentation does not list: ``async_all_by_details(name, type, class)`` (the records held)
and ``async_remove_records(records)``; tests/p2p/test_discovery_txt_back.py fails if either
goes or changes its parameters (pyproject pins only ``zeroconf>=0.132``; 0.154 here).

A goodbye anyone can forge (RV14-A #1): python-zeroconf's browser asks for the type only at start
(four queries over ~9 s) and then only to refresh records it still holds, so after a goodbye it never
asks again and a live host went unheard until its next TXT change, long enough for ``Listings``' hold
(``HOLD_S``) to lapse and a clone to be listed alone. So a reader that unlists a game asks once more,
``REQUERY_S`` later (one PTR question for the type, multicast QM, **no known answers**: attaching the
cache's, as python-zeroconf's own queries do, let a forger that filled our cache with made-up games make
every reader multicast all of them on each forged goodbye, 77 KB per question at 3,000, RV14-D): a live
host answers and is listed again under its own key, which keeps its place. And an
advertiser that hears a goodbye for its own instance name while it advertises (its zeroconf caches its own
records, heard back over the multicast loop) re-announces at once, at most once per ``REANNOUNCE_S``.

Closing sends each advert's goodbye once, at once (``say_goodbye``), not python-zeroconf's three
goodbyes 125 ms apart: those repeats made every closing node wait 0.25 s per advert (a seat has
two, the host three: ~0.3-0.6 s at the end of every game, issue 14). One goodbye is what RFC 6762
§10.1 asks for; if it is lost the record only lingers until its TTL expires, as a crashed peer's
does, which every reader already tolerates (see above).
"""


from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace

from zeroconf import (DNSOutgoing, DNSQuestion, DNSQuestionType, DNSRecord, RecordUpdate, RecordUpdateListener,
                      ServiceStateChange, Zeroconf)
from zeroconf.const import _FLAGS_QR_QUERY  # private name, as the query's flags (0): see _ask_again
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from .ad_listings import Listings
from .ad_record import SERVICE_TYPE, DiscoveryError, GameAd

#: How long a found service is resolved (SRV, TXT, A) before it is given up (ms).
RESOLVE_TIMEOUT_MS = 1500
#: Delay of an update's last announcement (s): past python-zeroconf's 1 s duplicate-packet window.
REANNOUNCE_S = 1.2
#: Delay of a reader's question for the type after it unlisted a game (s): past the goodbye, and at
#: most one such question per ``REQUERY_S`` whatever the number of goodbyes (RV14-A #1).
REQUERY_S = 1.2
_TYPE_PTR, _TYPE_TXT, _CLASS_IN = 12, 16, 1  # RFC 1035 §3.2.2, §3.2.4
_SUFFIX = SERVICE_TYPE.lower()  # the names our listener keeps (every record on the LAN passes them)


class _Listener(RecordUpdateListener):
    """Hands ``Discovery`` the records of ``_lanopoli._udp`` instances it wants, as they arrive: every
    TXT (TTL > 0) to ``on_txt(record)`` while it browses, repeats included (the browser's ``Updated``
    skips a record equal to one already cached); and every goodbye (a record with TTL 0: the PTR's
    alias, the SRV's or the TXT's name) to ``on_goodbye(instance name)`` while it advertises (other
    goodbyes are left to the browser's ``Removed``). ``None``: not wanted. One listener, not one
    per job: it runs for every record of every mDNS packet on the LAN. python-zeroconf passes a
    goodbye on only for a record it holds in its cache; an advertiser holds its own, heard back over
    the multicast loop."""

    def __init__(self) -> None:
        self.on_txt: Callable[[DNSRecord], None] | None = None
        self.on_goodbye: Callable[[str], None] | None = None

    def async_update_records(self, zc: Zeroconf, now: float, records: list[RecordUpdate]) -> None:
        """Called by zeroconf for each response, before its records are cached (``now``: ms,
        zeroconf's clock; ``records``: (new, old) pairs, ``new`` a ``DNSRecord``)."""
        on_txt, on_goodbye = self.on_txt, self.on_goodbye
        for update in records:
            rec = update.new
            if rec.ttl:
                if on_txt is None or rec.type != _TYPE_TXT or not rec.name.lower().endswith(_SUFFIX):
                    continue
                on_txt(rec)
            elif on_goodbye is not None and rec.name.lower().endswith(_SUFFIX):
                on_goodbye(getattr(rec, "alias", rec.name) if rec.type == _TYPE_PTR else rec.name)


async def say_goodbye(azc: AsyncZeroconf, info: AsyncServiceInfo) -> None:
    """Withdraw ``info`` from ``azc`` and send its goodbye (its records with TTL 0, RFC 6762
    §10.1) once, now; returns without waiting for python-zeroconf's two repeats (125 ms apart),
    which are cancelled. For a zeroconf instance about to be closed: the caller closes it next.
    Errors of the unregistration propagate (callers closing anyway catch them)."""
    task = await azc.async_unregister_service(info)
    # The broadcast task's first step sends the first goodbye; it was scheduled before this
    # coroutine's resumption, so one pass of the loop sends it.
    await asyncio.sleep(0)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


class Discovery:
    """One zeroconf instance restricted to ``interfaces`` (IP literals, e.g. ["127.0.0.1"]).

    Use ``async with Discovery([...]) as d:``; ``advertise``/``update``/``withdraw`` publish one
    game; ``browse()`` starts collecting the games of others into ``games`` and
    ``wait_for(predicate, timeout)`` returns the first that matches and is not ``contested``.

    ``games`` maps a listing to a GameAd: the instance name for the first key (``pk``, else
    ``fp``) whose TXT was heard under that name, ``"<instance name>#<key>"`` for each other key
    heard under it (at most ``KEYS_PER_NAME`` in all, ``MAX_NAMES`` names), each with the TXT last
    received with that key; a goodbye for the name removes them all, and the first key heard for
    the name and for each game id is remembered ``HOLD_S`` longer (``ad_listings.Listings``,
    protocol.md §N3 "Contested game ids"). ``clock``: monotonic seconds (tests pass a virtual one).
    """

    def __init__(self, interfaces: Iterable[str], clock: Callable[[], float] | None = None) -> None:
        interfaces = list(interfaces)
        if not interfaces:
            raise ValueError("zeroconf must be given explicit interfaces (DESIGN.md section 5)")
        for a in interfaces:
            ipaddress.ip_address(a)
        self.interfaces = interfaces
        self.listings = Listings() if clock is None else Listings(clock)
        self.games: dict[str, GameAd] = self.listings.games  # the same dict
        self.malformed = 0
        self._azc: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._ad: GameAd | None = None
        self._info: AsyncServiceInfo | None = None
        self._changed = asyncio.Event()
        self._tasks: set[asyncio.Future[None]] = set()  # resolutions of found services
        self._announcing: set[asyncio.Future[object]] = set()  # announcements of our ad
        self._listener = _Listener()  # TXTs while browsing, goodbyes for our name while advertising
        self._listening = False
        self._attacked = False  # a goodbye for our own name heard since the last defence
        self._defence: asyncio.Future[None] | None = None
        self._requery: asyncio.Future[None] | None = None
        self.requeries = 0  # questions for the type asked after a goodbye (``REQUERY_S``)
        self.defences = 0  # re-announcements after a goodbye for our own name we did not send
        self._latest_txt: dict[str, DNSRecord] = {}  # listed name -> the TXT record last received
        self.on_change: Callable[[str, GameAd | None], None] | None = None

    @property
    def crowded(self) -> int:
        """TXTs not listed: a key past ``KEYS_PER_NAME`` under a listed name, or a name past
        ``MAX_NAMES`` (``ad_listings.Listings.crowded``)."""
        return self.listings.crowded

    async def __aenter__(self) -> Discovery:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> None:
        """Open the zeroconf instance on the given interfaces only."""
        if self._azc is None:
            self._azc = AsyncZeroconf(interfaces=self.interfaces)

    @property
    def zeroconf(self) -> AsyncZeroconf:
        """The underlying AsyncZeroconf (raises RuntimeError before ``start``)."""
        if self._azc is None:
            raise RuntimeError("Discovery not started")
        return self._azc

    # -- advertising -----------------------------------------------------------------------

    async def advertise(self, ad: GameAd) -> None:
        """Publish ``ad`` (one game per Discovery). Returns in < 1 ms: no name probe (see the
        module doc); the announcements continue in the background."""
        if self._info is not None:
            raise RuntimeError("already advertising; use update()")
        info = ad.to_info()
        task = await self.zeroconf.async_register_service(info, cooperating_responders=True)
        self._ad, self._info = ad, info
        self._keep(task)  # the announcements go out over ~0.5 s; nobody needs to wait for them
        self._listener.on_goodbye = self._goodbye_heard
        self._listen()

    def _listen(self) -> None:
        if not self._listening:
            self.zeroconf.zeroconf.async_add_listener(self._listener, None)
            self._listening = True

    def _goodbye_heard(self, name: str) -> None:
        # A goodbye for our own name while we advertise is not ours (``_withdraw`` forgets the ad
        # before sending its goodbye): someone hides our game from readers; we answer it (module doc).
        if self._ad is None or name.lower() != self._ad.instance_name.lower():
            return
        self._attacked = True
        if self._defence is None or self._defence.done():
            self._defence = asyncio.ensure_future(self._defend())
            self._announcing.add(self._defence)  # cancelled with the announcements (``_withdraw``)
            self._defence.add_done_callback(self._announcing.discard)

    async def _defend(self) -> None:
        # Re-announce the whole advert (PTR, SRV, TXT, A) at once and REANNOUNCE_S later: receivers drop
        # a packet equal to one first seen less than 1 s before (H137), and a goodbye sent just after
        # one of our announcements would get the first dropped. Goodbyes heard meanwhile get one more
        # round, REANNOUNCE_S after the last (else its first packet repeats that one within the 1-s window
        # and is dropped, RV14R-D): a flood of forged goodbyes costs two packets a REANNOUNCE_S.
        first = True
        while self._attacked:
            if not first:
                await asyncio.sleep(REANNOUNCE_S)
            first = False
            self._attacked = False
            self.defences += 1
            for last in (False, True):
                if self._info is None or self._azc is None:
                    return
                zc = self._azc.zeroconf
                zc.async_send(zc.generate_service_broadcast(self._info, None))
                if not last:
                    await asyncio.sleep(REANNOUNCE_S)

    async def update(self, **changes: object) -> GameAd:
        """Change fields of the published ad (e.g. ``seats_taken=3``, ``state="running"``) and
        re-announce it. Returns the new GameAd; raises DiscoveryError for bad values."""
        if self._ad is None or self._info is None:
            raise RuntimeError("not advertising")
        ad = replace(self._ad, **changes)
        if (ad.instance_name, ad.port, ad.address) != (self._ad.instance_name, self._ad.port,
                                                       self._ad.address):
            raise ValueError("only TXT fields can be updated")
        info = ad.to_info()  # same name, server and port: the registry replaces the record
        task = await self.zeroconf.async_update_service(info)
        self._ad, self._info = ad, info
        self._keep(task)
        self._keep(self._reannounce(info))
        return ad

    async def _reannounce(self, info: AsyncServiceInfo) -> None:
        # Receivers drop a packet equal to one they got less than 1 s before (H137, module doc).
        await asyncio.sleep(REANNOUNCE_S)
        if self._info is info:
            await (await self.zeroconf.async_update_service(info))

    def _keep(self, aw: Awaitable[object]) -> None:
        # Hold a reference so the announcement task is not garbage-collected; close() ends it.
        task = asyncio.ensure_future(aw)
        self._announcing.add(task)
        task.add_done_callback(self._announcing.discard)

    @property
    def advertised(self) -> GameAd | None:
        """The ad currently published, if any."""
        return self._ad

    async def withdraw(self) -> None:
        """Unpublish the ad and wait until the goodbye packets (all three) are sent."""
        async def all_goodbyes(azc: AsyncZeroconf, info: AsyncServiceInfo) -> None:
            await (await azc.async_unregister_service(info))

        await self._withdraw(all_goodbyes)

    async def _withdraw(self, goodbye: Callable[[AsyncZeroconf, AsyncServiceInfo], Awaitable[None]]) -> None:
        if self._info is not None:
            pending = list(self._announcing)
            for t in pending:  # pending announcements of the ad being withdrawn
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            info, self._info, self._ad = self._info, None, None
            await goodbye(self.zeroconf, info)

    # -- browsing --------------------------------------------------------------------------

    def browse(self) -> None:
        """Start browsing (idempotent). Found games appear in ``games``; our own ad is skipped."""
        if self._browser is None:
            self._listener.on_txt = self._txt_received
            self._listen()
            self._browser = AsyncServiceBrowser(
                self.zeroconf.zeroconf, SERVICE_TYPE, handlers=[self._on_state_change],
                question_type=DNSQuestionType.QM)

    def _on_state_change(self, zeroconf: Zeroconf, service_type: str, name: str,
                         state_change: ServiceStateChange) -> None:
        if state_change is ServiceStateChange.Removed:
            self._latest_txt.pop(name, None)
            gone = self.listings.goodbye(name)
            for listing in gone:
                self._notify(listing, None)
            if gone and (self._requery is None or self._requery.done()):
                self._requery = asyncio.ensure_future(self._ask_again())
                self._tasks.add(self._requery)
                self._requery.add_done_callback(self._tasks.discard)
            return
        self._schedule_resolve(name)

    def _schedule_resolve(self, name: str) -> None:
        task = asyncio.ensure_future(self._resolve(name))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _ask_again(self) -> None:
        # RV14-A #1 (module doc): one question for the type REQUERY_S after a game was unlisted; every
        # goodbye heard meanwhile is answered by it. The answers list games again through the browser.
        await asyncio.sleep(REQUERY_S)
        azc = self._azc
        if azc is None or self._browser is None:
            return
        out = DNSOutgoing(_FLAGS_QR_QUERY, True)  # one ~40-byte question, whatever our cache holds
        out.add_question(DNSQuestion(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN))
        azc.zeroconf.async_send(out)
        self.requeries += 1

    def _txt_received(self, record: DNSRecord) -> None:
        # A TXT of a listed game, new or a repeat: kept as its current one and resolved again
        # (the task runs once the response is cached). Unlisted names are not kept (a flood of
        # made-up names costs nothing); the resolution that lists one reads the cache. O(1) per
        # TXT (it scanned every listed name: RV13-C).
        for listed in list(self.listings.names(record.name)):
            self._latest_txt[listed] = record
            self._schedule_resolve(listed)

    def _keep_latest_txt(self, zc: Zeroconf, name: str) -> None:
        """Drop from zeroconf's cache every TXT of ``name`` other than the last received, so the
        service info loads that one (the cache-flush bit does it for older records only). Uses
        ``DNSCache.async_all_by_details`` and ``async_remove_records`` (module doc); runs in the
        event loop, as zeroconf's ``async_`` cache calls must."""
        latest = self._latest_txt.get(name)
        if latest is None:
            return
        cache = zc.cache
        stale = [r for r in cache.async_all_by_details(name, _TYPE_TXT, _CLASS_IN) if r != latest]
        if stale:
            cache.async_remove_records(stale)

    async def _resolve(self, name: str) -> None:
        if self._ad is not None and name == self._ad.instance_name:
            return
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        azc = self._azc
        if azc is None:
            return
        self._keep_latest_txt(azc.zeroconf, name)
        if not info.load_from_cache(azc.zeroconf):
            if not await info.async_request(azc.zeroconf, RESOLVE_TIMEOUT_MS,
                                            question_type=DNSQuestionType.QM):
                return
        try:
            ad = GameAd.from_info(info)
        except DiscoveryError:
            self.malformed += 1
            return
        listing = self.listings.put(name, ad)
        if listing is not None:
            self._notify(listing, ad)

    def _notify(self, name: str, ad: GameAd | None) -> None:
        self._changed.set()
        if self.on_change is not None:
            self.on_change(name, ad)

    def contested(self, ad: GameAd) -> bool:
        """True if ``ad``'s game id or instance name is claimed by two keys, now or (after a goodbye)
        within ``HOLD_S``: ``ad_listings.Listings.contested`` holds the rule (protocol.md §N3
        "Contested game ids"); mDNS is not authenticated, so nothing here tells which is the clone."""
        return self.listings.contested(ad)

    async def wait_for(self, predicate: Callable[[GameAd], bool], timeout: float) -> GameAd:
        """The first found game with ``predicate(ad)`` true that is not ``contested`` (starts
        browsing if needed): a join by game id alone never picks one of two adverts of that id
        with different keys (H37: the clone could win the race and take the joiner into the
        attacker's lobby); it waits, and times out while the clone stays.

        Raises ``TimeoutError`` if none appears within ``timeout`` seconds.
        """
        self.browse()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for ad in list(self.games.values()):
                if predicate(ad) and not self.contested(ad):
                    return ad
            self._changed.clear()
            left = deadline - loop.time()
            if left <= 0:
                raise TimeoutError("no matching lanopoli game found")
            try:  # a hold ending changes no listing: look again at least once a second
                await asyncio.wait_for(self._changed.wait(), min(left, 1.0))
            except asyncio.TimeoutError:
                pass

    async def close(self) -> None:
        """Withdraw our ad (one goodbye sent, ``say_goodbye``), stop browsing and close zeroconf.
        Idempotent."""
        if self._azc is None:
            return
        try:
            await self._withdraw(say_goodbye)
        finally:
            if self._listening:
                self.zeroconf.zeroconf.async_remove_listener(self._listener)
                self._listener.on_txt = self._listener.on_goodbye = None
                self._listening = False
            if self._browser is not None:
                await self._browser.async_cancel()
                self._browser = None
            for t in list(self._tasks):
                t.cancel()
            if self._tasks:
                await asyncio.gather(*self._tasks, return_exceptions=True)
            azc, self._azc = self._azc, None
            await azc.async_close()
