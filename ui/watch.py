"""Watching a game: the spectator's driver of the game screen (protocol.md §N10).

``WatchDriver`` is a read-only ``ui.play.GameDriver``: it subscribes to the seat that serves
spectators (the advertiser's watch port, TXT ``wp``), receives the game's log records
(``p2p.spectate.WatchClient``), writes them to a private temporary log and checks the whole
log with ``p2p.verify.verify_log`` — every signature, reveal, digest and engine step, as
``lanopoli verify`` does — before it shows anything: the board shows the last *verified*
state, the log the events of the verified steps. Nothing a spectator does reaches the game's
own sockets.

A record that fails names the seat that sent it (its signed RECORDS envelope is kept as
evidence, ``bad``; the log shows a ``BadRecords`` line): the spectator stops following that
seat (no more renewals: its subscription lapses) and follows another seat of the table from
its last verified step, as when a server goes silent (protocol.md §N10 "A seat that lies").
Only when every seat sent a record that does not verify, or the header itself fails, does the
view end with the reason (``fault``).

Any seat serves (protocol.md §N10 "Any seat serves"): once the header is in, the driver browses
the seats' watch adverts (``_lanopoli-watch._udp``, ``p2p.rendezvous`` with ``WATCH_SERVICE``),
accepting only adverts with a seat's setup keys; when its server sends nothing valid for
``WATCH_SILENCE_S`` (a live one answers every renewal) it moves to the next seat found and
resumes from the last step it holds (``WatchClient.switch``). A server that keeps answering but
serves no new step for ``WATCH_STALL_S`` makes it ask another seat, and follow it if that seat
holds a step beyond ours (``ui.watch_stall.StallProbe``, protocol.md §N10 'A stalled server').

The replay runs in a worker thread while records arrive, at most every ``VERIFY_INTERVAL_S``
and never sooner than twice its own duration after the last one (a third of a core at most):
the cost is the spectator's alone. ``bench/bench_watch.py``: the 245-step sample game
re-verifies in 0.15-0.3 s; a long game (2,000 steps) in 1-2 s, so its board then moves every
few seconds. Which verified DROP and SKIP records become lines is ``ui.watch_drops.DropLines``'s.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ui.play import DriverBase, Fault, HumanSeat
from ui.watch_drops import DropLines
from ui.watch_replay import RecordingEngine, record_appenders, verify_records
from ui.watch_stall import WATCH_STALL_S, StallProbe, last_step, resync_have

#: Seconds between two verifications of the records received (while new ones arrive).
VERIFY_INTERVAL_S = 0.5


@dataclass(frozen=True)
class BadRecords:
    """A UI-only event (queued among the engine events) and the evidence kept: seat ``seat``,
    which we followed, sent a record of step ``step`` that does not verify (``reason``, English,
    from ``verify_log``); ``evidence``: its signed RECORDS envelope that carried the record
    (wire type 38, protocol.md §N10: anyone can check the seat's signature). We follow
    another seat."""

    seat: int
    step: int
    reason: str
    evidence: bytes = field(default=b"", repr=False)


class WatchDriver(DriverBase):
    """Follow the advertised game ``ad`` (``p2p.ad_record.GameAd`` with a ``watch_port``) from
    ``bind`` (our address on that network), as ``name``. ``seat`` stays -1: we play nothing.
    ``spectator`` is True (the game screen asks nothing before leaving). ``silence_s``,
    ``stall_s``: seconds, ``WATCH_SILENCE_S`` and ``WATCH_STALL_S`` unless given (§N10)."""

    role = "watch"
    spectator = True

    def __init__(self, ad: Any, bind: str, name: str = "", identity: Any = None,
                 silence_s: float | None = None, stall_s: float | None = None) -> None:
        super().__init__(HumanSeat())
        from p2p.identity import Identity

        if ad.watch_port is None or ad.public_key is None:
            raise ValueError("this game does not serve spectators")
        self.ad = ad
        self.bind = bind
        self.identity = identity or Identity.generate()
        self.name = name or "spectator"
        self.seats_total = ad.seats_total
        self.edition = ad.edition
        self.steps = 0
        self.table_code = ""  # the game's, from its verified header (§C2.4): the teacher compares it
        self._dir = Path(tempfile.mkdtemp(prefix="lanopoli-watch-"))
        self.log_path = None  # our temporary copy is not a game log of ours
        self._writer: Any = None
        self._written = 0
        self._shown_events = 0
        self._dirty = asyncio.Event()
        self.client: Any = None
        self.link: Any = None
        self.chat_room: Any = None
        self._members_known = False
        self.drops = DropLines()  # the DROP and SKIP records of our copy shown as lines
        self.clock: Callable[[], float] = time.monotonic
        #: Where we watch now: (address, port), and the seats' watch sockets found on DNS-SD.
        self.server: tuple[str, int] = (ad.address, int(ad.watch_port))
        self.browser: Any = None
        self.silence_s = silence_s
        self.switches = 0  # servers we moved to after one went silent
        self.server_seat: int | None = None  # the seat we follow after a switch (None: the advertiser)
        self._tried: list[bytes] = []  # keys of the servers we followed, oldest first
        #: Seats that sent us a record that does not verify: seat -> BadRecords (never again).
        self.bad: dict[int, BadRecords] = {}
        self._last_heard = 0.0
        self._heard = 0
        self.stall = StallProbe(WATCH_STALL_S if stall_s is None else stall_s)  # a server serving nothing new
        self._probe_addr: Any = None  # the address of our last probe: its channel is kept until the next

    async def run(self) -> None:
        """Subscribe, receive, verify and show until the game is over, fails, or we are
        cancelled; never raises for the game's faults (``fault`` set)."""
        import engine
        from p2p.spectate import WATCH_RENEW_S, WATCH_SILENCE_S, WatchClient
        from p2p.link import Link

        if self.silence_s is None:
            self.silence_s = WATCH_SILENCE_S
        self.client = WatchClient(self.identity, self.ad.game_id, self.ad.public_key, self.name)
        self._tried.append(self.ad.public_key)
        try:
            self.link = await Link.open(self.bind, 0, self._on_message, identity=self.identity)
        except OSError as e:
            self._fail(Fault("error", str(e)))
            return
        self.link.endpoint.pin(self.server, self.ad.x25519_key)  # only the seat's MACed datagrams
        self.link.endpoint.accept_plain = False
        self._last_heard = self.clock()
        self.stall.restart(self._last_heard, -1)  # the stall clock starts with our first WATCH
        renew = asyncio.ensure_future(self._renew(WATCH_RENEW_S))
        try:
            while self.phase in ("lobby", "playing"):
                try:  # not wait_for: on 3.11 it drops a cancel that meets a finished wait (RV16-B F1)
                    async with asyncio.timeout(min(1.0, self.silence_s / 2)):
                        await self._dirty.wait()
                except TimeoutError:
                    self._failover()
                    continue
                self._dirty.clear()
                self._failover()  # records came, but maybe no new step (ui.watch_stall)
                if not self._write_new():
                    break
                if self.browser is None and self._writer is not None:
                    await self._browse()
                t0 = time.monotonic()
                report, rec = await asyncio.to_thread(verify_records, self._dir / "game.log", engine)
                self._show(report, rec)
                # The replay grows with the game: wait at least twice as long as it took, so
                # that following a long game costs the spectator at most a third of a core.
                await asyncio.sleep(max(VERIFY_INTERVAL_S, 2 * (time.monotonic() - t0)))
        finally:
            renew.cancel()
            await asyncio.gather(renew, return_exceptions=True)
            await self.close()

    async def _renew(self, every: float) -> None:
        while True:
            if self.server is not None:  # None: the seat we followed lied, no other found yet
                self.link.send(self.server, self.client.watch_message())
            await asyncio.sleep(every)

    async def _browse(self) -> None:
        """Find the seats' watch sockets (protocol.md §N10 "Any seat serves"): adverts with a
        seat's setup keys only, on our own interface. No DNS-SD: we keep the server we have."""
        from p2p.rendezvous import WATCH_SERVICE, Rendezvous

        setup = self._setup()
        if setup is None:
            return
        self.browser = Rendezvous([self.bind], setup, -1, lambda *_: None, service=WATCH_SERVICE)
        try:
            await self.browser.start()
        except Exception:  # noqa: BLE001 - no multicast here: the advertised server is all we have
            self.browser.found.clear()

    def _setup(self) -> Any:
        """The game's setup from the header record (None before it or if it does not parse)."""
        from p2p.log_checks import BadLog, parse_header

        if not self.client.records:
            return None
        try:
            return parse_header(self.client.records[0][1])[0]
        except BadLog:
            return None

    def _failover(self) -> None:
        """Our server sent nothing valid for ``silence_s`` (a live one answers every renewal),
        or we left one that lied and found no other yet (``server`` None): follow another seat.
        Else, if it served no new step for ``stall_s``, probe another seat (``_probe``)."""
        now = self.clock()
        if self.browser is None or self.phase not in ("lobby", "playing"):
            return
        # A resync not aligned stall_s after its switch counts as silence (RV16-E F1): a seat that
        # answers with a step beyond ours, then only its empty RECORDS, holds us no longer.
        if self.server is not None and now - self._last_heard < self.silence_s and not (
                self.client.resyncing and self.stall.due(now)):
            if self.stall.due(now) and not self.client.resyncing and (setup := self._setup()) is not None:
                self._probe(setup, now)
            return
        self._last_heard = now  # try again after another silence if nobody answers
        setup = self._setup()
        if setup is not None:
            self._follow_next(setup)

    def _candidates(self, setup: Any, cut: int | None = None) -> list[int]:
        """Seats found on DNS-SD that never lied to us and (unless ``cut``) are not our server."""
        found = self.browser.found if self.browser is not None else {}
        return [s for s in sorted(found) if 0 <= s < len(setup.players) and s not in self.bad
                and (cut is not None or setup.players[s].public_key != self.client.host_pk)]

    def _probe(self, setup: Any, now: float) -> None:
        """Ask the seat found that we probed least recently for the records after our last step
        (``ui.watch_stall``, protocol.md §N10 'A stalled server'): one WATCH, never renewed."""
        from p2p.spectate import RESYNC_MARGIN
        from p2p.wire import MSG_WATCH, Watch, seal_message

        seat = self.stall.pick(self._candidates(setup), lambda s: setup.players[s].public_key)
        if seat is None:
            return
        player, addr = setup.players[seat], self.browser.next_address(seat)
        have = resync_have(self.client.records, self.client.offset, RESYNC_MARGIN)
        prev, self._probe_addr = self._probe_addr, (None if addr == self.server else addr)
        self._release(prev)  # one probe at a time: its channel goes with it (RV16-E F4)
        if self._probe_addr is None:  # a forged advert naming our server's address: never re-key it (F2)
            return self.stall.sent(now, None, player.public_key, have)
        self.link.endpoint.pin(addr, player.x25519_key)
        me = self.identity
        self.link.send(addr, seal_message(me, MSG_WATCH, Watch(self.ad.game_id, me.public_key, me.x25519_public_key,
                                                              self.client.name, have)))
        self.stall.sent(now, addr, player.public_key, have)

    def _follow_next(self, setup: Any, cut: int | None = None) -> bool:
        """Follow the seat found on DNS-SD that we followed least recently, among those that
        never lied to us and (unless ``cut``) other than our server, from the step we hold —
        before record ``cut`` if given (``WatchClient.switch``); its channel is keyed with that
        seat's setup X25519 key. False if no such seat is found (yet)."""
        cands = self._candidates(setup, cut)
        if not cands:
            return False
        order = {pk: i for i, pk in enumerate(self._tried)}
        self._follow(setup, min(cands, key=lambda s: (order.get(setup.players[s].public_key, -1), s)), cut)
        return True

    def _follow(self, setup: Any, seat: int, cut: int | None = None, addr: Any = None) -> None:
        """Follow seat ``seat`` from our last step (``_follow_next``), at ``addr`` if given (the
        address a probe reached), else at the next address DNS-SD found for it."""
        player = setup.players[seat]
        if player.public_key in self._tried:
            self._tried.remove(player.public_key)
        self._tried.append(player.public_key)
        if self.client.switch(player.public_key, cut):
            self._restart_copy()  # our records after the last step were dropped
        # each of its addresses in turn (H112; found[seat] among them)
        old, probe, self._probe_addr = self.server, self._probe_addr, None
        self.server = addr if addr is not None else self.browser.next_address(seat)
        self._release(old)
        self._release(probe)
        self.server_seat = seat
        self.switches += 1
        self._last_heard = self.clock()
        self.stall.restart(self._last_heard, last_step(self.client.records)[1])
        self.link.endpoint.pin(self.server, player.x25519_key)
        self.link.send(self.server, self.client.watch_message())

    def _reject(self, step: int, reason: str, at: int | None = None) -> bool:
        """A record of step ``step`` (our record number ``at`` if known, else the first that may
        belong to that step) does not verify: name the seat that sent it (``bad``, a
        ``BadRecords`` line), drop it and what followed, and follow another seat that never
        lied to us from our last verified step (protocol.md §N10 "A seat that lies"); with none
        found yet, stop following (``server`` None: no renewal, its records are ignored) and let
        ``_failover`` look again. False when the view must end: no setup to find the seats by,
        a sender that is no seat, or every seat lied."""
        setup = self._setup()
        if setup is None:
            return False
        cut = self.client.cut_before(step) if at is None else at
        pk, evidence = self.client.source(cut) or (self.client.host_pk, b"")
        seat = next((i for i, p in enumerate(setup.players) if p.public_key == pk), None)
        if seat is None:
            return False
        if seat not in self.bad:
            self.bad[seat] = BadRecords(seat, step, reason, evidence)
            self._new_events.append(self.bad[seat])
        if len(self.bad) == len(setup.players):
            return False
        if not self._follow_next(setup, cut):
            self.client.switch(self.client.host_pk, cut)
            self._restart_copy()
            old, self.server, self.server_seat = self.server, None, None
            self._release(old)
        return True

    def _release(self, addr: Any) -> None:
        """Forget our channel to ``addr`` and stop vouching for it, unless it is our server's or our
        probe's: the channels we pin stay two (RV16-E F4: one per probe filled ``max_peers``)."""
        if addr is not None and addr not in (self.server, self._probe_addr) and self.link is not None:
            ep = self.link.endpoint
            ep.forget(addr)
            ep.trust(ep.trusted - {addr})

    def _on_message(self, addr: Any, payload: bytes) -> None:
        from p2p.chat import CHAT_TAG, SPECTATOR

        if self.server is None:
            return  # we left a seat that lied and follow nobody yet
        if addr != self.server and self.stall.probing(addr):
            self._probed(addr, payload)  # a seat we asked (ui.watch_stall): its answer, nothing else
            return
        if payload[:2] == CHAT_TAG:  # the game's chat, relayed by the seat we watch (§N9, §N10)
            line = self._room().receive(payload, asyncio.get_running_loop().time(), relayed=True,
                                        relayed_role=SPECTATOR, channel=addr)
            if line is not None:
                self._chat(line)
            return
        if self.client.receive(payload):
            self._dirty.set()
            self.stall.progress(self.clock(), last_step(self.client.records)[1])
        if self.client.heard != self._heard:  # a valid RECORDS: our server lives
            self._heard = self.client.heard
            self._last_heard = self.clock()
        if self.client.ask_now:  # a resync starts over: ask at once, not at the next renewal
            self.client.ask_now = False
            self.link.send(self.server, self.client.watch_message())

    def _probed(self, addr: Any, payload: bytes) -> None:
        """A datagram from the seat we probed: if it is that seat's RECORDS holding a step beyond
        our last, follow that seat and take it as the first batch of the resync; else ignore it."""
        from p2p import const as C

        setup = self._setup()
        if setup is None or self.client.resyncing:
            return
        pk = self.stall.ahead(payload, self.ad.game_id, C.MAX_WATCH_MSG, last_step(self.client.records)[1])
        seat = next((i for i, p in enumerate(setup.players) if p.public_key == pk), None)
        if seat is not None:
            self._follow(setup, seat, addr=addr)
            self._on_message(addr, payload)  # our server's now: the resync's first batch

    def _room(self) -> Any:
        """Our ChatRoom: the seats (from the game's header) are players, anyone else the seat
        relays a spectator, charged to that seat's channel bucket (§N9 ``relay_flood``)."""
        from p2p.chat import PLAYER, ChatRoom
        from p2p.log_checks import BadLog, parse_header

        if self.chat_room is None:
            self.chat_room = ChatRoom(self.identity, self.ad.game_id, self.name)
        if not self._members_known and self.client.records:
            try:
                setup = parse_header(self.client.records[0][1])[0]
            except BadLog:
                return self.chat_room
            self.chat_room.set_members({p.public_key: (p.name, PLAYER) for p in setup.players})
            self._members_known = True
        return self.chat_room

    def _restart_copy(self) -> None:
        """Our records were cut back (a switch): rewrite the temporary log from them."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        (self._dir / "game.log").unlink(missing_ok=True)
        self._written = 0
        self.drops.cut(len(self.client.records))

    def _write_new(self) -> bool:
        """Append the records received since the last call to our temporary log: every kind a
        game log holds (protocol.md §C6, ``p2p.spectate.LOG_KINDS``: STEP, DROP, SKIP, ABANDON,
        COMPLAINT after the header). A STEP record that does not parse or is not the next step,
        or a record of any other kind, is the sender's lie, like one that fails the replay
        (``_reject``; H107 s11 #3/#5: SKIP records were dropped here, so every skipped turn
        made honest seats liars, and unknown kinds were held unchecked); False when the view
        must end for it."""
        from p2p.errors import WireError
        from p2p.gamelog import KIND_HEADER, KIND_STEP, STEP_RECORD, LogWriter

        append: dict = {}  # kind -> the writer's method, once the writer exists (record_appenders)
        for kind, payload in self.client.records[self._written:]:
            if self._writer is None:
                if kind != KIND_HEADER:
                    break
                self._writer = LogWriter(self._dir / "game.log", payload)
                self._written += 1
                continue
            k = self._writer.steps
            why = None
            if kind == KIND_STEP:
                try:
                    record = STEP_RECORD.decode(payload)
                except WireError:
                    record = None
                if record is None or record.step != k:
                    why = "a step record that does not parse" if record is None else \
                        f"step record {record.step} where step {k} was due"
                else:
                    self._writer.append_step(k, record.messages)
            elif kind in (append := append or record_appenders(self._writer)):
                append[kind](payload)
            else:
                why = f"a record of kind {kind}, which no game log holds"
            if why is not None:
                if self._reject(k, why, self._written):
                    return self._write_new()  # our copy again, up to the last good step
                self._fail(Fault("cheat", why, None, k))
                return False
            self._written += 1
        return True

    def _show(self, report: Any, rec: RecordingEngine) -> None:
        """Take the verified state and the new events; a failed check moves us to another
        seat (``_reject``) or, when none is left, ends the view."""
        if not self.names and report.seats:
            self.names = tuple(name for name, _ in report.seats)
            self.lobby_names = self.names
        self.table_code = self.table_code or report.table_code
        if rec.state is not None:  # the state after the last step that verified
            self.state = rec.state
            self._new_events.extend(rec.events[self._shown_events:])
            self._shown_events = len(rec.events)
            self.steps = report.steps
        self._show_drops(report)
        if not report.ok:
            bad_step = report.first_bad_step
            reason = report.error or "the records do not verify"
            if bad_step is not None and bad_step >= 0 and self._reject(bad_step, reason):
                self._notify("step")
                return
            setup = self._setup() if self.bad else None
            if setup is not None and len(self.bad) == len(setup.players):
                reason = "every seat sent a record that does not verify; last: " + reason
            self._fail(Fault("cheat" if bad_step is not None and bad_step >= 0 else "error",
                             reason, None, bad_step))
            return
        if self.phase == "lobby" and self.state is not None:
            self.phase = "playing"
            self._notify("lobby")
        if report.complete or report.abandoned is not None:
            self.phase = "over"
            self._notify("over")
            return
        self._notify("step")

    def _show_drops(self, report: Any) -> None:
        """Seats the others dropped and turns a majority skipped (verified DROP and SKIP records,
        ``ui.watch_drops.DropLines``): a log line, and for a drop a panel mark, as the players get
        them (SeatChanged, protocol.md §C8.4, §C8.10 'skipped': a skipped seat keeps its seat)."""
        for change in self.drops.new(self.client.records, self._written, report):
            if change.change != "skipped":
                self.seat_changes[change.seat] = change.change
            self._new_events.append(change)

    def _fail(self, fault: Fault) -> None:
        self.fault = fault
        self.phase = "failed"
        self._notify("fault")

    def say(self, text: str) -> None:
        """Send a chat line to the seat we watch, which relays it to the seats and the other
        spectators (protocol.md §N10); it shows as ours, marked as a spectator's. Raises
        ValueError or ``p2p.chat.ChatLimited`` like a player's."""
        from dataclasses import replace

        from p2p.chat import SPECTATOR

        if self.link is None or self.server is None:
            raise ValueError("not watching yet")
        raw, line = self._room().say(text, asyncio.get_running_loop().time())
        self.link.send(self.server, raw)
        self._chat(replace(line, role=SPECTATOR))

    def waiting(self) -> None:
        """A spectator waits for nobody."""
        return None

    async def fill_with_bots(self) -> None:
        """Nothing to fill."""

    async def close(self) -> None:
        """Close our socket and DNS-SD browser and remove the temporary log."""
        if self.browser is not None:
            browser, self.browser = self.browser, None
            await browser.close()
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self.link is not None:
            link, self.link = self.link, None
            await link.close()
        shutil.rmtree(self._dir, ignore_errors=True)


__all__ = ["WatchDriver", "BadRecords", "RecordingEngine", "record_appenders", "verify_records", "VERIFY_INTERVAL_S"]
