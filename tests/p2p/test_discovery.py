"""DNS-SD discovery on loopback only (protocol.md part N, "Discovery"; DESIGN.md section 5).

Every zeroconf instance is given interfaces=["127.0.0.1"] and is closed in a finally block.
"""

import asyncio
import os
import subprocess
import sys
import textwrap

import pytest

from p2p import const as C
from p2p.ad_record import SERVICE_TYPE, DiscoveryError, GameAd
from p2p.discovery import Discovery

LO = "127.0.0.1"


def make_ad(gid=b"\x11" * 16, fp="ab" * 8, port=40001, taken=1, total=4, state="lobby"):
    return GameAd(version=C.PROTOCOL_VERSION, game_id=gid, edition="classico", seats_taken=taken,
                  seats_total=total, state=state, fingerprint=fp, address=LO, port=port)


def test_txt_record_round_trips_through_a_service_info():
    ad = make_ad()
    assert ad.txt() == {"v": str(C.PROTOCOL_VERSION), "gid": "11" * 16, "ed": "classico", "seats": "1/4",
                        "st": "lobby", "fp": "ab" * 8}
    assert ad.instance_name == f"lanopoli — classico (11111111).{SERVICE_TYPE}"
    assert ad.label == f"lanopoli-{'11' * 8}-{'ab' * 8}" and len(ad.label) <= 63
    assert GameAd.from_info(ad.to_info()) == ad


@pytest.mark.parametrize("edition", ["classico", "editrice-giochi", "niente-e-come-sembra", "fabrianopoli"])
def test_every_edition_name_fits_the_txt_record(edition):
    import dataclasses
    from engine import EDITIONS
    assert edition in EDITIONS
    ad = dataclasses.replace(make_ad(), edition=edition)
    assert GameAd.from_info(ad.to_info()).edition == edition


@pytest.mark.parametrize("key,value", [
    ("seats", "5/4"), ("seats", "x"), ("st", "playing"), ("gid", "zz"), ("gid", "abc"),
    ("v", "one"), ("fp", "XYZ"), ("ed", "Classico!"),
])
def test_malformed_txt_is_rejected(key, value):
    with pytest.raises(DiscoveryError):
        GameAd.from_info(with_txt(make_ad(), key, value))


def with_txt(ad, key, value):
    """``ad``'s service record with TXT ``key`` set to ``value``."""
    info = ad.to_info()
    props = dict(ad.txt())
    props[key] = value
    return type(info)(SERVICE_TYPE, info.name, port=info.port, properties=props,
                      server=info.server, parsed_addresses=[LO])


def test_missing_txt_key_is_rejected():
    info = make_ad().to_info()
    props = make_ad().txt()
    del props["st"]
    bad = type(info)(SERVICE_TYPE, info.name, port=info.port, properties=props,
                     server=info.server, parsed_addresses=[LO])
    with pytest.raises(DiscoveryError, match="st"):
        GameAd.from_info(bad)


def test_zeroconf_needs_explicit_interfaces():
    with pytest.raises(ValueError):
        Discovery([])


@pytest.mark.parametrize("leave", ["withdraw", "close"])
def test_two_instances_find_each_other_and_see_updates(leave):
    """... and the ad's goodbye removes it: ``withdraw`` waits for python-zeroconf's three
    goodbyes; ``close`` sends one and does not wait 0.25 s for the repeats (issue 14) — its
    zeroconf is closed when it returns, so the removal came from that single goodbye."""
    async def main():
        host, joiner = Discovery([LO]), Discovery([LO])
        try:
            await host.start()
            await joiner.start()
            ad = make_ad(gid=os.urandom(16))
            await host.advertise(ad)
            found = await joiner.wait_for(lambda a: a.game_id == ad.game_id, timeout=10)
            assert found == ad
            await host.update(seats_taken=4, state="running")
            running = await joiner.wait_for(
                lambda a: a.game_id == ad.game_id and a.state == "running", timeout=10)
            assert (running.seats_taken, running.seats_total) == (4, 4)
            await (host.withdraw() if leave == "withdraw" else host.close())
            assert await _gone(joiner, ad.instance_name)
        finally:
            await host.close()
            await joiner.close()

    asyncio.run(main())


async def _gone(browser, name, within=4.0):
    """True once ``name`` left ``browser.games`` (a goodbye arrived), False after ``within`` s."""
    for _ in range(int(within / 0.02)):
        if name not in browser.games:
            return True
        await asyncio.sleep(0.02)
    return name not in browser.games


CHILD = textwrap.dedent("""
    import asyncio, sys
    from p2p.ad_record import GameAd
    from p2p.discovery import Discovery

    async def main():
        d = Discovery(["127.0.0.1"])
        await d.start()
        try:
            await d.advertise(GameAd(version=1, game_id=bytes.fromhex(sys.argv[1]),
                edition="classico", seats_taken=1, seats_total=2, state="lobby",
                fingerprint="cd" * 8, address="127.0.0.1", port=40002))
            print("READY", flush=True)
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        finally:
            await d.close()
        print("BYE", flush=True)

    asyncio.run(main())
""")


def test_finds_a_game_advertised_by_another_process():
    gid = os.urandom(16)
    child = subprocess.Popen([sys.executable, "-c", CHILD, gid.hex()], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "READY"

        async def main():
            async with Discovery([LO]) as d:
                return await d.wait_for(lambda a: a.game_id == gid, timeout=10)

        ad = asyncio.run(main())
        assert (ad.port, ad.address, ad.fingerprint, ad.seats_total) == (40002, LO, "cd" * 8, 2)
        child.stdin.write("stop\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "BYE"
        assert child.wait(timeout=10) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def keyed_ad(**kw):
    import dataclasses

    from p2p.identity import Identity
    ident = Identity.from_seed(b"disco-host")
    return dataclasses.replace(make_ad(fp=ident.fingerprint), public_key=ident.public_key,
                               x25519_key=ident.x25519_public_key, **kw)


def test_host_keys_travel_in_the_txt_record():
    """protocol.md §N3: ``pk`` and ``xk`` (64 hex digits each) next to ``fp``, so a joiner can
    check the host's signed lobby messages and key its channel from the first datagram."""
    ad = keyed_ad()
    txt = ad.txt()
    assert txt["pk"] == ad.public_key.hex() and txt["xk"] == ad.x25519_key.hex()
    assert GameAd.from_info(ad.to_info()) == ad


@pytest.mark.parametrize("key,value", [("pk", "ab" * 31), ("xk", "AB" * 32), ("pk", "00" * 32)])
def test_bad_or_mismatched_host_keys_are_rejected(key, value):
    """A ``pk`` whose fingerprint is not ``fp``, or malformed keys, make the record malformed."""
    with pytest.raises(DiscoveryError):
        GameAd.from_info(with_txt(keyed_ad(), key, value))


def test_pk_without_xk_is_rejected():
    import dataclasses
    ad = keyed_ad()
    with pytest.raises(DiscoveryError):
        dataclasses.replace(ad, x25519_key=None)


def test_names_travel_in_the_txt_record_and_the_instance_name_is_readable():
    """protocol.md §N3: n, p0.. carry UTF-8 names; the instance name reads "<host> — <edition>
    (<gid8>)" in standard DNS-SD tools."""
    import dataclasses
    ad = dataclasses.replace(make_ad(), host_name="Giulia", players=("Giulia", "Niccolò"))
    assert ad.txt()["n"] == "Giulia" and ad.txt()["p1"] == "Niccolò"
    assert ad.instance_name == f"Giulia — classico (11111111).{SERVICE_TYPE}"
    assert GameAd.from_info(ad.to_info()) == ad


def test_long_names_are_clipped_at_a_character_boundary():
    import dataclasses
    from p2p.ad_record import MAX_LABEL_BYTES, TXT_NAME_BYTES
    name = "Ðé" * 16  # 64 bytes of UTF-8, 32 characters (a legal lobby name)
    ad = dataclasses.replace(make_ad(), host_name=name, players=(name,))
    assert len(ad.title.encode()) <= MAX_LABEL_BYTES
    assert ad.title.endswith(" — classico (11111111)") and ad.title.startswith("ÐéÐé")
    txt = ad.txt()
    assert len(txt["n"].encode()) <= TXT_NAME_BYTES and name.startswith(txt["n"])
    back = GameAd.from_info(ad.to_info())
    assert back.host_name == txt["n"] and back.players == (txt["p0"],)


@pytest.mark.parametrize("key,value", [
    ("n", "bell\x07"), ("p0", "x" * 129), ("sd", "1:0:1500"), ("sd", "1:9:1,2,3,4"), ("sd", "a:0:1,2,3,4"),
])
def test_malformed_names_and_standings_are_rejected(key, value):
    with pytest.raises(DiscoveryError):
        GameAd.from_info(with_txt(make_ad(), key, value))


def test_invalid_utf8_name_is_rejected():
    info = make_ad().to_info()
    props = {k.encode(): v.encode() for k, v in make_ad().txt().items()} | {b"n": b"\xff\xfe"}
    bad = type(info)(SERVICE_TYPE, info.name, port=info.port, properties=props,
                     server=info.server, parsed_addresses=[LO])
    with pytest.raises(DiscoveryError, match="UTF-8"):
        GameAd.from_info(bad)


def test_standings_round_trip():
    """TXT sd = turn:current:w0,w1,... with '-' for a seat that is out (protocol.md §N3)."""
    import dataclasses
    from p2p.ad_record import Standings
    sd = Standings(turn=12, current=2, worth=(1500, None, 2310, 0))
    assert sd.txt() == "12:2:1500,-,2310,0" and Standings.parse(sd.txt()) == sd
    ad = dataclasses.replace(make_ad(state="running", taken=4), standings=sd)
    assert GameAd.from_info(ad.to_info()).standings == sd


def test_the_one_listener_hands_on_only_what_is_wanted():
    """``discovery._Listener`` (one for the TXTs a reader keeps and the goodbyes an advertiser answers,
    §N3 "Discovery", "Contested game ids"): a TXT (TTL > 0) of our type to ``on_txt`` while set; a
    goodbye (TTL 0) to ``on_goodbye`` with the instance name (a PTR's alias); other types, other
    services and callbacks not set are passed over. In memory."""
    from zeroconf import DNSPointer, DNSService, DNSText, RecordUpdate, const as zc

    from p2p.discovery import _Listener

    name = make_ad().instance_name
    other = "x._other._udp.local."
    txt, bye_txt = (DNSText(name, zc._TYPE_TXT, zc._CLASS_IN, ttl, b"\x03a=b") for ttl in (4500, 0))
    bye_ptr = DNSPointer(SERVICE_TYPE, zc._TYPE_PTR, zc._CLASS_IN, 0, name)
    bye_srv = DNSService(name.upper(), zc._TYPE_SRV, zc._CLASS_IN, 0, 0, 0, 40001, "h.local.")
    srv = DNSService(name, zc._TYPE_SRV, zc._CLASS_IN, 120, 0, 0, 40001, "h.local.")
    foreign = [DNSText(other, zc._TYPE_TXT, zc._CLASS_IN, ttl, b"\x03a=b") for ttl in (4500, 0)]
    records = [RecordUpdate(r, None) for r in (txt, srv, bye_ptr, bye_srv, bye_txt, *foreign)]
    got: list = []
    listener = _Listener()
    listener.async_update_records(None, 0.0, records)  # neither job wanted: nothing
    listener.on_txt = lambda r: got.append(("txt", r))
    listener.async_update_records(None, 0.0, records)
    assert got == [("txt", txt)]
    got.clear()
    listener.on_goodbye = lambda n: got.append(("bye", n))
    listener.async_update_records(None, 0.0, records)
    assert got == [("txt", txt), ("bye", name), ("bye", name.upper()), ("bye", name)]
