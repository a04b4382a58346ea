"""The host's advert kept current (p2p/game_ad.py, protocol.md §N3): names as the TXT record
carries them, standings only for a real engine, updates applied in the order asked and only
while something is advertised, standings re-announced only when they changed."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from p2p.ad_record import TXT_NAME_BYTES
from p2p.game_ad import STANDINGS_INTERVAL, AdUpdates, ad_name, live_standings


class FakeDiscovery:
    """Records ``update`` calls; the first one is slow, so a wrong order would show."""

    def __init__(self, advertised: bool = True) -> None:
        self.advertised = SimpleNamespace(standings=None) if advertised else None
        self.calls: list[dict] = []

    async def update(self, **changes) -> None:
        if not self.calls and "seats_taken" in changes and changes["seats_taken"] == 1:
            await asyncio.sleep(0.01)
        self.calls.append(changes)


def test_ad_name_is_printable_and_clipped():
    assert ad_name("Anna\x00\n") == "Anna"
    assert len(ad_name("è" * 100).encode("utf-8")) <= TXT_NAME_BYTES


def test_live_standings_needs_an_engine_with_standings():
    assert live_standings(SimpleNamespace(), SimpleNamespace(out=[False])) is None
    engine = SimpleNamespace(standings=lambda s: [(1, 900), (0, 500)])
    state = SimpleNamespace(turn=3, current=1, out=[False, False, True], n=3)
    sd = live_standings(engine, state)
    assert (sd.turn, sd.current, sd.worth) == (3, 1, (500, 900, None))


def test_updates_land_in_the_order_asked_and_not_without_an_advert():
    async def run(discovery):
        ads = AdUpdates(discovery)
        ads.update(seats_taken=1)
        ads.update(seats_taken=2)
        await asyncio.sleep(0.05)
        return discovery.calls

    assert asyncio.run(run(FakeDiscovery())) == [{"seats_taken": 1}, {"seats_taken": 2}]
    assert asyncio.run(run(FakeDiscovery(advertised=False))) == []


def test_standings_are_re_announced_only_when_changed_and_not_too_often():
    engine = SimpleNamespace(standings=lambda s: [(0, s.turn)])

    async def run():
        discovery = FakeDiscovery()
        ads = AdUpdates(discovery)
        for turn, now in ((1, 0.0), (1, 5.0), (2, STANDINGS_INTERVAL / 2), (2, STANDINGS_INTERVAL)):
            ads.standings(engine, SimpleNamespace(turn=turn, current=0, out=[False], n=1), now)
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        return [c["standings"].worth for c in discovery.calls]

    assert asyncio.run(run()) == [(1,), (2,)]
