"""A spectator is not stopped by one seat's bad records (protocol.md §N10 "A seat that lies";
issue 10, H37's finding): the seat that sent a record that does not verify is named, its signed
RECORDS envelope kept as evidence, and the spectator follows another seat of the table from its
last verified step to the end of the game. Only when every seat lied does the view end.

Real ``ui.watch.WatchDriver`` and ``p2p.spectate.WatchServer`` over loopback UDP (``p2p.link``
keyed channels): each seat of the published sample game (tests/vectors/game.lnplog, 2 seats,
demo seeds from game.json) serves its log from its own watch socket, one of them with a forged
record. DNS-SD is replaced by the list of the seats' watch sockets (``browser.found``), what the
driver's browser would find.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from p2p.gamelog import KIND_STEP, STEP_RECORD, LogReader, StepRecord
from p2p.identity import Identity
from p2p.link import Link
from p2p.spectate import WatchServer
from p2p.wire import MSG_RECORDS, decode_records, open_as

VEC = Path(__file__).resolve().parents[1] / "vectors"
FACTS = json.loads((VEC / "game.json").read_text())
GID = bytes.fromhex(FACTS["game_id"])


def records():
    """The sample game's log records, header first."""
    return [(r.kind, r.payload) for r in LogReader(VEC / "game.lnplog")]


def _seats() -> list[Identity]:
    """The sample game's seat identities in seat order (the setup's, not the seeds')."""
    from p2p.log_checks import parse_header

    ids = {i.public_key: i for i in (Identity.from_seed(s.encode()) for s in FACTS["seeds"])}
    return [ids[p.public_key] for p in parse_header(records()[0][1])[0].players]


SEATS = _seats()


def action_at(recs, i):
    """The number of the first STEP record from ``i`` on whose first message is an action or
    nil, not a reveal: a plain chance step's forced body is taken whatever its signature since
    version 4 (protocol.md §C3.8), so only such a message can carry a forged one."""
    from p2p.wire import decode_step_body, open_envelope

    return next(j for j in range(i, len(recs)) if (m := STEP_RECORD.decode(recs[j][1]).messages[0]) is not None
                and type(decode_step_body(open_envelope(m).body).input) is not bytes)


def forged_signature(recs, i):
    """``recs`` with the first signature of record ``i`` (a STEP record) flipped in one bit."""
    rec = STEP_RECORD.decode(recs[i][1])
    msgs = list(rec.messages)
    msgs[0] = msgs[0][:-1] + bytes([msgs[0][-1] ^ 1])
    return recs[:i] + [(KIND_STEP, STEP_RECORD.encode(StepRecord(rec.step, msgs)))] + recs[i + 1:]


def garbage_at(recs, i):
    """``recs`` with record ``i`` replaced by a STEP record that does not parse."""
    return recs[:i] + [(KIND_STEP, b"\xc1not a step record")] + recs[i + 1:]


class SeatServer:
    """One seat's watch socket on loopback serving fixed ``recs`` (as ``p2p.watch_service``
    does: keyed channels only, a flush on every WATCH and every 50 ms)."""

    def __init__(self, identity: Identity, recs: list) -> None:
        self.identity, self.recs = identity, recs
        self.server = WatchServer(identity, GID)
        self.link: Link | None = None
        self.task: asyncio.Task | None = None

    async def open(self) -> tuple:
        self.link = await Link.open("127.0.0.1", 0, self._on, identity=self.identity)
        self.link.endpoint.accept_plain = False
        self.task = asyncio.ensure_future(self._tick())
        return self.link.address

    def _on(self, addr, payload: bytes) -> None:
        self.server.receive(payload, addr, self.link.endpoint.peer_key(addr), asyncio.get_running_loop().time())
        self._flush()

    def _settled(self, addr) -> bool:
        ch = self.link.endpoint.channels.get(addr)
        return ch is None or ch.idle

    def _flush(self) -> None:
        for addr, raw in self.server.outgoing(self.recs, asyncio.get_running_loop().time(), self._settled):
            self.link.send(addr, raw)

    async def _tick(self) -> None:
        while True:
            self._flush()
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)
        await self.link.close()


class Found:
    """The seats' watch sockets as the driver's DNS-SD browser would list them."""

    def __init__(self, found: dict) -> None:
        self.found = found

    def next_address(self, seat: int):
        """One address per seat here (``Rendezvous.next_address`` gives each kept one in turn)."""
        return self.found.get(seat)

    async def close(self) -> None:
        return None


def watch(logs: list[list], first: int = 0, late: bool = False):
    """Serve seat ``s`` of the sample game with ``logs[s]``; a WatchDriver starts from seat
    ``first`` (the advert's ``wp``). Returns the driver once its view ended, and its events.
    ``late``: DNS-SD finds the other seats only once the spectator has named a liar."""
    from ui.watch import WatchDriver

    async def run():
        seats = [SeatServer(SEATS[s], logs[s]) for s in range(len(logs))]
        addrs = [await seat.open() for seat in seats]
        ad = SimpleNamespace(game_id=GID, edition=FACTS["edition"], seats_total=len(logs), address=addrs[first][0],
                             watch_port=addrs[first][1], public_key=SEATS[first].public_key,
                             x25519_key=SEATS[first].x25519_public_key)
        watcher = WatchDriver(ad, "127.0.0.1", name="Prof", silence_s=5.0)
        watcher.browser = Found({first: addrs[first]} if late else dict(enumerate(addrs)))
        events: list = []

        def listen(kind: str) -> None:
            events.extend(watcher.take_events())
            if late and watcher.bad and len(watcher.browser.found) == 1:
                assert watcher.server is None  # nobody followed, the liar's records ignored
                watcher.browser.found.update(enumerate(addrs))

        watcher.listener = listen
        try:
            await asyncio.wait_for(watcher.run(), 60)
        finally:
            for seat in seats:
                await seat.close()
        return watcher, events

    return asyncio.run(run())


def final_hash(watcher) -> str:
    import engine

    return engine.state_hash(watcher.state).hex()


@pytest.mark.parametrize("first", [0, 1])
def test_a_spectator_leaves_a_seat_whose_record_does_not_verify_and_sees_the_game_to_its_end(first):
    from ui.narrate import Narrator
    from ui.watch import BadRecords

    good = records()
    liar = first  # the advertiser (the seat the spectator starts with) lies: seat 0, then seat 1
    logs = [good, good]
    at = action_at(good, 10)  # step at - 1, record at: one flipped signature bit
    logs[liar] = forged_signature(good, at)
    watcher, events = watch(logs, first)
    assert watcher.fault is None and watcher.phase == "over"
    assert final_hash(watcher) == FACTS["final_state_hash"]  # the real game, every step verified
    assert watcher.server_seat == 1 - liar and watcher.switches == 1
    bad = watcher.bad[liar]
    assert set(watcher.bad) == {liar} and bad.step == at - 1 and "signature" in bad.reason
    # The evidence: the liar's own signed RECORDS envelope carrying the forged record.
    env, msg = open_as(bad.evidence, MSG_RECORDS, decode_records, 1 << 20)
    assert env.verify(SEATS[liar].public_key)
    assert [list(r) for r in forged_signature(good, at)[at:at + 1]][0] in [list(r) for r in msg.records]
    named = [e for e in events if isinstance(e, BadRecords)]
    assert named == [bad]
    line = Narrator(__import__("engine").EDITIONS[FACTS["edition"]], watcher.names).line(bad)
    assert watcher.names[liar] in line and str(at - 1) in line


def test_a_step_record_that_does_not_parse_is_a_lie_too():
    good = records()
    watcher, _ = watch([garbage_at(good, 50), good])
    assert watcher.fault is None and watcher.phase == "over"
    assert final_hash(watcher) == FACTS["final_state_hash"]
    assert set(watcher.bad) == {0} and watcher.bad[0].step == 49 and "parse" in watcher.bad[0].reason


def test_the_view_ends_only_when_every_seat_lied():
    good = records()
    a, b = action_at(good, 10), action_at(good, 30)
    watcher, events = watch([forged_signature(good, a), forged_signature(good, b)])
    assert watcher.phase == "failed" and watcher.fault.code == "cheat"
    assert "every seat" in watcher.fault.message
    assert {s: x.step for s, x in watcher.bad.items()} == {0: a - 1, 1: b - 1}
    assert watcher.steps == b - 1  # it verified seat 1's steps a-1..b-2 before seat 1's own lie


def test_with_no_other_seat_found_yet_the_spectator_waits_for_one():
    good = records()
    watcher, events = watch([forged_signature(good, action_at(good, 10)), good], late=True)
    assert watcher.fault is None and watcher.phase == "over" and watcher.server_seat == 1
    assert final_hash(watcher) == FACTS["final_state_hash"] and set(watcher.bad) == {0}
