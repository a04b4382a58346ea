"""Red team, real processes on loopback: a stranger on the LAN redirects an honest seat with a
copied seat advert (protocol.md §N3.2 'Forged adverts'; the attack in memory is
tests/p2p/test_redteam_rendezvous.py).

Three peers on 127.0.0.91-93; seat 1 (held_peer.py) holds its input, so the others wait more
than WAIT_NOTICE and start their seat rendezvous (advertise and browse ``_lanopoli-seat._udp``).
The stranger (this test, zeroconf on 127.0.0.99 only) browses, copies the first seat advert it
sees (a waiting peer's: alive and talking; its keys are public) under another instance name
with its own address, and the hold is released a few seconds later. Before the fix the other
peers adopted the forged address (``seat_found``), cut the seat off (their channels were
restricted to it) and dropped it after the drop timeout. Now a seat heard at its address in the
last ADVERT_HEARD_S keeps it (``seat_advert_ignored``), and a seat moved anyway moves back
when it speaks from an address it was heard at: nobody is dropped, one final hash.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import threading
from pathlib import Path

from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from p2p.rendezvous import SEAT_SERVICE

from test_restart import GAME_S

ADDRS = ["127.0.0.91", "127.0.0.92", "127.0.0.93"]
FORGER = "127.0.0.99"
HOLD_AT = 12


class Forger(threading.Thread):
    """Browse for the seat adverts of ``gid``, copy the first one seen (a peer that waits, so
    alive and talking) and re-advertise it at FORGER until ``stop``."""

    def __init__(self, gid: str) -> None:
        super().__init__(daemon=True)
        self.gid, self.stop, self.copied = gid, threading.Event(), threading.Event()
        self.seat: int | None = None  # the seat whose advert it copied (the first one it sees)

    def run(self) -> None:
        asyncio.run(self._run())

    async def _run(self) -> None:
        azc = AsyncZeroconf(interfaces=[FORGER])
        names: list[str] = []
        browser = AsyncServiceBrowser(azc.zeroconf, SEAT_SERVICE, handlers=[
            lambda zeroconf, service_type, name, state_change: names.append(name)])
        forged = None
        try:
            while not self.stop.is_set() and forged is None:
                await asyncio.sleep(0.2)
                mine = [n for n in names if n.startswith(f"lanopoli-{self.gid[:16]}-seat")]
                if not mine:
                    continue
                info = AsyncServiceInfo(SEAT_SERVICE, mine[0])
                if await info.async_request(azc.zeroconf, 1000) and info.properties:
                    self.seat = int(info.properties[b"seat"])
                    forged = AsyncServiceInfo(SEAT_SERVICE, f"x-forged.{SEAT_SERVICE}", port=40999,
                                              properties=dict(info.properties), server="x-forged.local.",
                                              parsed_addresses=[FORGER])
                    await (await azc.async_register_service(forged, cooperating_responders=True))
                    self.copied.set()
            while not self.stop.is_set():
                await asyncio.sleep(0.2)
        finally:
            await browser.async_cancel()
            if forged is not None:
                await (await azc.async_unregister_service(forged))
            await azc.async_close()


def test_a_copied_seat_advert_does_not_drop_the_live_seat(spawn, tmp_path):
    seed = f"forge-{os.getpid()}-{secrets.token_hex(3)}"
    release = tmp_path / "release"

    def argv(i):
        return ["--bind", ADDRS[i], "--progress-json", "--seed", f"{seed}-{i}", "--name", f"p{i}",
                "--log-dir", str(tmp_path / f"peer-{i}"), "--timeout", str(GAME_S)]

    host = spawn("host", "--seats", "3", "--on-drop", "bot", "--drop-timeout", "4", *argv(0))
    hosting = host.wait_for(lambda m: m["type"] == "hosting", 60)
    gid, where = hosting["game_id"], f"{hosting['address']}:{hosting['port']}"
    held = spawn("--host", where, "--game", gid, "--seed", f"{seed}-1", "--log-dir", str(tmp_path / "peer-1"),
                 "--hold-at", str(HOLD_AT), "--release", str(release), "--timeout", str(GAME_S),
                 "--name", "p1", "--bind", ADDRS[1], script=Path(__file__).with_name("held_peer.py"))
    join = spawn("join", "--game", gid, *argv(2))
    procs = [host, held, join]
    held.wait_for(lambda m: m["type"] == "holding", GAME_S)
    forger = Forger(gid)
    forger.start()
    try:
        if not forger.copied.wait(60):
            for p in procs:
                p._drain(0.1)
            raise AssertionError(("no seat advert showed up", [
                [m for m in p.seen if m["type"] not in ("progress", "step")][-8:] for p in procs]))
        # Give the peers' browsers time to see the forged advert (they report what they adopt).
        import time
        time.sleep(4.0)
        release.touch()
        codes = [p.finish(GAME_S) for p in procs]
    finally:
        forger.stop.set()
        forger.join(10)
    moved = [m for p in procs for m in p.of_type("seat_found") if m["address"] == FORGER]
    ignored = [m for p in procs for m in p.of_type("seat_advert_ignored") if m["address"] == FORGER]
    assert moved or ignored, "the forged advert reached no peer: the test proved nothing"
    dropped = [m for p in procs for m in p.of_type("seat_dropped")]
    dones = [p.of_type("done")[-1] if p.of_type("done") else None for p in procs]
    assert codes == [0, 0, 0], (forger.seat, codes, dropped, moved, [p.stderr[-25:] for p in procs])
    assert dropped == [], (dropped, moved)
    assert len({d["final_state_hash"] for d in dones}) == 1, dones
