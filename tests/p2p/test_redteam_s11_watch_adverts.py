"""Red team session 11 (H107): forged watch adverts against a spectator's failover (protocol.md §N10
"Any seat serves", "What holds").

The sample game of tests/vectors (2 seats, the setup from its header). DNS-SD is replaced by
``Rendezvous._resolve`` fed records from a cache (``AsyncServiceInfo`` patched to return the
records an mDNS responder would have answered): the real ``accept`` and ``found`` logic; then the
real ``WatchDriver._failover`` / ``_follow_next`` with a stub link (no socket).
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import p2p.rendezvous as RV
from p2p import const as C
from p2p.identity import Identity
from p2p.log_checks import parse_header
from p2p.rendezvous import WATCH_SERVICE, Rendezvous, SeatAd
from p2p.spectate import WATCH_SILENCE_S, WatchClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ui"))
from test_watch_lying_seat import FACTS, GID, SEATS, records  # noqa: E402  (the sample game's seats)

HOST = ("10.0.0.1", 4000)  # seat 0's watch socket (the advert's wp): it goes away
REAL_1 = ("10.0.0.2", 4001)  # seat 1's real watch socket, advertised by seat 1
FORGED = ("10.0.0.66", 9)  # where the attacker's copy of seat 1's advert points: nobody signs there


def test_a_forged_watch_advert_does_not_hide_the_real_seat_from_a_spectator(monkeypatch):
    """HOLDS since H112 (was BREAK, MED: every spectator loses the game when its server goes, or
    stays with a lying seat; fixed: ``Rendezvous`` keeps every accepted address of a seat, the
    seat's own instance name always and the newest SEAT_ADDRS_KEPT others, and failover takes
    ``next_address``: each in turn, §N10 'Any seat serves'). §N10 says a forged watch advert
    'points a spectator to an address that cannot sign
    as the seat: another 7 s of silence, then the next'. But ``Rendezvous`` keeps ONE address
    per seat (``found[seat]``, the last accepted advert): an attacker that announces, under
    another instance name, a copy of seat 1's advert (its public ``pk``/``xk``, which
    ``rendezvous.accept`` checks, and an address of its choice) after the real one replaces the
    real address; re-announcing keeps it so. Cost: one mDNS record per seat (~300 B), repeated
    now and then. Effect: when the seat followed falls silent (here seat 0, the host), the
    spectator alternates for ever between the forged address and the dead host, every
    WATCH_SILENCE_S, and never tries seat 1's real socket; the same forged adverts also keep a
    spectator with a seat that lies (§N10 'A seat that lies' moves it only to seats found).
    Suggested fix: keep every accepted address per seat (a few, newest first) and let failover
    try each of a seat's addresses before moving on (or prefer one that answered before)."""
    good = records()
    setup = parse_header(good[0][1])[0]
    infos: dict = {}
    real_info = RV.AsyncServiceInfo

    def advert(seat: int, addr: tuple, name: str | None = None) -> str:
        p = setup.players[seat]
        ad = SeatAd(C.PROTOCOL_VERSION, GID, seat, p.public_key, p.x25519_key, addr[0], addr[1], WATCH_SERVICE)
        n = name or ad.instance_name
        infos[n] = ad.to_info()
        infos[n].load_from_cache = lambda _zc: True  # what the mDNS cache holds for that name
        return n

    class Cached:
        def __new__(cls, service, name, **kw):
            return real_info(service, name, **kw) if kw else infos[name]

    monkeypatch.setattr(RV, "AsyncServiceInfo", Cached)

    async def browse() -> Rendezvous:
        r = Rendezvous(["127.0.0.1"], setup, -1, lambda *_: None, service=WATCH_SERVICE)
        r._azc = SimpleNamespace(zeroconf=None)
        await r._resolve(advert(0, HOST))
        await r._resolve(advert(1, REAL_1))
        await r._resolve(advert(1, FORGED, name=f"lanopoli-{GID.hex()[:16]}-seat1-copy.{WATCH_SERVICE}"))
        return r

    browser = asyncio.run(browse())
    assert browser.refused == 0  # the copy passes accept(): its keys are seat 1's

    from ui.watch import WatchDriver

    spec = Identity.from_seed(b"h107-spectator")
    ad = SimpleNamespace(game_id=GID, edition=FACTS["edition"], seats_total=2, address=HOST[0], watch_port=HOST[1],
                         public_key=SEATS[0].public_key, x25519_key=SEATS[0].x25519_public_key)
    driver = WatchDriver(ad, "127.0.0.1", identity=spec, silence_s=WATCH_SILENCE_S)
    try:
        driver.client = WatchClient(spec, GID, SEATS[0].public_key, "s")
        driver.client.records = list(good[:10])  # it followed the host for a while
        driver.browser = browser
        ep = SimpleNamespace(pin=lambda *a: None, forget=lambda a: None, trust=lambda a: None, trusted=set())
        driver.link = SimpleNamespace(endpoint=ep, send=lambda *a: None)
        clock = [0.0]
        driver.clock = lambda: clock[0]
        tried = []
        for _ in range(6):  # the host is gone and nothing at FORGED answers: silence after silence
            clock[0] += WATCH_SILENCE_S + 1.0
            driver._failover()
            tried.append(driver.server)
        assert FORGED in tried  # the attacker's address was tried (that much §N10 accepts)
        assert REAL_1 in tried, f"the spectator never tried seat 1's real watch socket: {tried}"
    finally:
        shutil.rmtree(driver._dir, ignore_errors=True)
