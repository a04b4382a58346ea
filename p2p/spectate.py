"""Spectators: follow a running game, every message verified, at little cost to the seats
(sans-I/O; protocol.md §N10 "Spectators").

A seat that serves spectators (the host, which advertises ``wp``, its *watch port*, in its TXT
record, protocol.md §N3) listens on a second UDP socket, apart from the game's: spectators
never touch the game's channels, so nothing they send can slow or disturb the game.

* **WATCH** (type 37, signed by the spectator): ``[gid, pk, xk, name: str ≤ 32, have: uint]``.
  ``have``: how many records of the game the spectator already holds (the header is record 0).
  A subscription is soft state: the spectator repeats WATCH every ``WATCH_RENEW_S`` and the
  seat forgets it ``WATCH_TTL_S`` after the last one.
* **RECORDS** (type 38, signed by the seat): ``[gid, index: uint, [[kind: uint, payload: bin],
  ...]]`` — the seat's own game-log records (protocol.md §C6: the header, then every STEP,
  DROP, ABANDON, COMPLAINT record, as it logs them) from number ``index`` on. Everything in them
  is signed by the players (but the forced bodies of plain chance steps, which need no signature
  and may carry a bad one, protocol.md §C3.8); the spectator checks all of it by replaying the
  records exactly as ``lanopoli verify`` does (``ui.watch.verify_records``).

Any seat serves (protocol.md §N10 "Any seat serves"): each advertises its watch socket on
DNS-SD (``_lanopoli-watch._udp``: ``p2p.rendezvous.WATCH_SERVICE``, advertised by
``p2p.watch_service.WatchService``). A seat answers every renewal with an empty RECORDS when it has
nothing new, so a spectator hears from a live server at least every ``WATCH_RENEW_S``; after
``WATCH_SILENCE_S`` without a valid RECORDS it moves to another seat (``WatchClient.switch``)
and resumes from the last step it holds: the seats' STEP records are byte-identical, but their
other records (DROP quorums, COMPLAINTs) may differ in number, so the new seat's record numbers
are found again from the step numbers (``resync``).

``WatchServer`` is the seat's side: who watches, what to send them next. ``WatchClient`` is the
spectator's side: the WATCH to send, the records received in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import const as C
from .errors import WireError
from .identity import Identity
from .gamelog import KIND_STEP, STEP_RECORD
from .wire import MSG_RECORDS, MSG_WATCH, Records, Watch, decode_records, decode_watch, open_for_game, seal_message

#: Seconds between two WATCH of a spectator (its renewal).
WATCH_RENEW_S = 3.0
#: Seconds a seat keeps a subscription without a renewal.
WATCH_TTL_S = 10.0
#: Spectators one seat serves at most; more are dropped (``full``).
MAX_WATCHERS = 16
#: WATCH messages a seat checks per second over all sources (``busy`` beyond).
WATCH_CHECK_RATE = 32
#: Bytes of records per RECORDS message (the header may exceed it alone).
RECORDS_BATCH = 32 * 1024
#: Bytes a seat sends one spectator per second at most (a slow start, never the game's pace).
WATCH_BYTES_PER_S = 256 * 1024
#: Seconds without a valid RECORDS (records or the empty answer to a renewal) after which a
#: spectator takes its server for gone and moves to another seat: two renewals unanswered, plus
#: a second for a slow tick.
WATCH_SILENCE_S = 2 * WATCH_RENEW_S + 1.0
#: Bytes a seat sends one spectator while its channel still holds unacknowledged data: beyond
#: it nothing more is queued for that spectator until the transport says everything arrived
#: (``outgoing``'s ``settled``). Twice a second's credit: an honest spectator acknowledges within
#: ~50 ms (§N2.4), so it never meets the bound; one that never acknowledges (and renews with
#: ``have`` = 0 to restart the log again and again) costs the seat this much, not up to the
#: transport's 8 MiB send buffer (H37, issue 10).
UNSETTLED_BYTES = 2 * WATCH_BYTES_PER_S
#: Records before our last STEP record's number that a spectator asks a new server for: the
#: seats' logs differ only by their non-step records (a few per drop or complaint).
RESYNC_MARGIN = 16


@dataclass
class Subscription:
    """One spectator of a seat: ``pk``/``xk``/``name`` from its WATCH, ``sent``: records sent
    (the next to send), ``expires``: loop time when it lapses, ``credit``: bytes it may still
    be sent now (refilled at WATCH_BYTES_PER_S)."""

    pk: bytes
    xk: bytes
    name: str
    sent: int
    expires: float
    credit: float
    at: float
    #: A renewal came in and nothing was sent since: answer it (an empty RECORDS if need be).
    answer: bool = False
    #: ``have`` of its last WATCH and our ``sent`` then: a spectator whose ``have`` did not move
    #: for a whole renewal while it lacks records we had sent before it lost them (``receive``).
    last_have: int = 0
    mark: int = 0
    #: Bytes sent since its channel last held nothing unacknowledged (``UNSETTLED_BYTES``).
    unsettled: int = 0
    #: Loop time when its channel last held nothing unacknowledged (subscription time at first):
    #: one silent past WATCH_SILENCE_S gives its place to a newcomer when the seat is full.
    settled_at: float = 0.0
    #: Its channel acknowledged something we sent it since it subscribed: the address is the
    #: spectator's, not a spoofed one. Until then it gets only the empty answer (``outgoing``).
    reached: bool = False
    #: We sent it something since it subscribed (the empty answer at least).
    probed: bool = False


class WatchServer:
    """A seat's spectators (see the module doc). ``receive`` takes WATCH envelopes from the
    watch socket (with the X25519 key of the channel they came over: a spectator must
    introduce itself with the key it names); ``outgoing(records, now)`` gives the RECORDS
    envelopes to send, ``records`` being the seat's log records so far as ``[(kind, payload)]``
    with the header first."""

    def __init__(self, identity: Identity, game_id: bytes) -> None:
        self.identity = identity
        self.game_id = game_id
        self.subs: dict[Any, Subscription] = {}
        self._checks = float(WATCH_CHECK_RATE)
        self._checks_at = 0.0
        #: Counters: ``received``, ``subscribed`` (new spectators), ``renewed``, ``sent``
        #: (RECORDS messages), ``expired`` and one per drop reason.
        self.stats: dict[str, int] = dict.fromkeys(("received", "subscribed", "renewed", "sent", "expired"), 0)

    def receive(self, data: bytes, addr: Any, peer_key: bytes | None, now: float) -> None:
        """Check one WATCH (schema, game, channel key = its ``xk``, room, check budget,
        signature — a renewal by the subscriber's own channel needs neither of the last two)
        and subscribe or renew ``addr``. Failures are dropped and counted."""
        self.stats["received"] += 1
        env, msg, bad = open_for_game(data, MSG_WATCH, decode_watch, C.MAX_STEP_MSG, self.game_id)
        if bad:
            return self._drop(bad)
        if peer_key is None or peer_key != msg.xk:
            return self._drop("key_mismatch")  # the channel must be keyed with the spectator's own key
        sub = self.subs.get(addr)
        stale = None
        if sub is None and len(self.subs) >= MAX_WATCHERS:
            self._expire(now)
            if len(self.subs) >= MAX_WATCHERS:
                # Full: a subscriber that acknowledged nothing for WATCH_SILENCE_S (a spoofed
                # address, H37) gives its place, once the newcomer's signature holds.
                stale = min(self.subs, key=lambda a: self.subs[a].settled_at)
                if now - self.subs[stale].settled_at <= WATCH_SILENCE_S:
                    return self._drop("full")
        # A renewal (same address, pk and xk) came over the channel keyed with that xk: the MAC
        # proves the subscriber sent it, so it needs no signature check and none of the shared
        # budget, which a flood of forged WATCHes can use up (H37: it made every renewal 'busy'
        # and every spectator lapse after WATCH_TTL_S).
        if sub is None or sub.pk != msg.pk or sub.xk != msg.xk:
            self._checks = min(float(WATCH_CHECK_RATE), self._checks + (now - self._checks_at) * WATCH_CHECK_RATE)
            self._checks_at = now
            if self._checks < 1.0:
                return self._drop("busy")
            self._checks -= 1.0
            if not env.verify(msg.pk):
                return self._drop("bad_signature")
        if sub is None or sub.pk != msg.pk or sub.xk != msg.xk:
            if stale is not None:
                del self.subs[stale]
                self.stats["evicted"] = self.stats.get("evicted", 0) + 1
            self.subs[addr] = Subscription(msg.pk, msg.xk, msg.name, msg.have, now + WATCH_TTL_S,
                                           float(WATCH_BYTES_PER_S), now, answer=True,
                                           last_have=msg.have, mark=msg.have, settled_at=now)
            self.stats["subscribed"] += 1
        else:
            sub.expires = now + WATCH_TTL_S
            sub.answer = True
            if msg.have == 0 and sub.sent > 0:
                sub.sent = 0  # the spectator started afresh (in flight records are just late)
            elif msg.have == sub.last_have < sub.mark:
                # No progress over a whole renewal while it lacks records sent before the last
                # one: they were lost (a send that failed; the channel is reliable otherwise) and
                # it drops every later batch as a gap. Send again from what it holds; an
                # overlap is skipped. A slow spectator that progresses is never sent twice.
                sub.sent = msg.have
                self.stats["resent"] = self.stats.get("resent", 0) + 1
            sub.last_have, sub.mark = msg.have, sub.sent
            self.stats["renewed"] += 1

    def outgoing(self, records: list, now: float,
                 settled: Callable[[Any], bool] | None = None) -> list[tuple[Any, bytes]]:
        """RECORDS envelopes due now, ``[(addr, bytes)]``: to each live spectator the records it
        lacks, in batches of at most RECORDS_BATCH bytes, within its byte credit; to one that
        renewed and lacks nothing, an empty RECORDS (``[gid, sent, []]``: we are alive).
        ``settled(addr)``: True when everything sent to ``addr`` was acknowledged by its
        transport channel (None: always); while it is not, at most ``UNSETTLED_BYTES`` go to
        that spectator (``unsettled_limited`` counts the waits), and a new subscriber gets no
        records before its channel has acknowledged our first answer (``reached``): a WATCH
        from a spoofed address costs its victim one small datagram, not the game log."""
        self._expire(now)
        out = []
        signed: dict[tuple[int, int], bytes] = {}  # spectators at the same place share one batch
        for addr, sub in self.subs.items():
            sub.credit = min(float(WATCH_BYTES_PER_S), sub.credit + (now - sub.at) * WATCH_BYTES_PER_S)
            sub.at = now
            if settled is None or settled(addr):
                sub.unsettled = 0
                sub.settled_at = now
                sub.reached = sub.reached or settled is None or sub.probed
            elif sub.unsettled >= UNSETTLED_BYTES:
                self.stats["unsettled_limited"] = self.stats.get("unsettled_limited", 0) + 1
                continue  # it acknowledged nothing of the last UNSETTLED_BYTES: queue no more
            if not sub.reached and not sub.probed:
                sub.answer = True  # the first answer is the probe of its address
            while sub.reached and sub.sent < len(records) and sub.credit > 0 and sub.unsettled < UNSETTLED_BYTES:
                batch, size = [], 0
                for kind, payload in records[sub.sent:]:
                    if batch and size + len(payload) > RECORDS_BATCH:
                        break
                    batch.append([kind, payload])
                    size += len(payload) + 8
                raw = signed.get((sub.sent, len(batch)))
                if raw is None:
                    raw = signed[sub.sent, len(batch)] = seal_message(self.identity, MSG_RECORDS,
                                                                      Records(self.game_id, sub.sent, batch))
                    self.stats["signed"] = self.stats.get("signed", 0) + 1
                out.append((addr, raw))
                sub.sent += len(batch)
                sub.credit -= len(raw)
                sub.unsettled += len(raw)
                sub.answer = False
                self.stats["sent"] += 1
            if sub.answer and (sub.reached or not sub.probed):  # one probe until reached
                raw = signed.get((sub.sent, 0))
                if raw is None:
                    raw = signed[sub.sent, 0] = seal_message(self.identity, MSG_RECORDS,
                                                             Records(self.game_id, sub.sent, []))
                    self.stats["signed"] = self.stats.get("signed", 0) + 1
                out.append((addr, raw))
                sub.unsettled += len(raw)
                sub.answer = False
                sub.probed = True
                self.stats["alive"] = self.stats.get("alive", 0) + 1
        return out

    def owed(self, n_records: int, now: float, settled: Callable[[Any], bool] | None = None) -> bool:
        """True while a live spectator whose address answered us (``reached``) lacks some of the
        ``n_records`` records or has not acknowledged all we sent it (``settled``, as in
        ``outgoing``): a seat whose game ended keeps serving until it is False, at most
        ``node_config.STRAGGLER_WAIT_S`` (protocol.md §N4 "Draining", §N10). A subscription from a
        spoofed address never answers our CHALLENGE (``watch_service.channel_settled``), so it is
        never reached and cannot hold the seat back."""
        self._expire(now)
        return any(sub.reached and (sub.sent < n_records or (settled is not None and not settled(addr)))
                   for addr, sub in self.subs.items())

    def _expire(self, now: float) -> None:
        for addr in [a for a, s in self.subs.items() if s.expires <= now]:
            del self.subs[addr]
            self.stats["expired"] += 1

    def _drop(self, reason: str) -> None:
        # Dropped unanswered: a spectator learns nothing from a refusal.
        self.stats[reason] = self.stats.get(reason, 0) + 1


class WatchClient:
    """The spectator's side for one game (see the module doc): ``identity`` (any keys: a
    spectator needs no seat), the game's id and the serving seat's Ed25519 key (``host_pk``,
    from the advert), our ``name``. ``records``: the game's log records received so far, in
    order, ``[(kind, payload)]`` (the header first). ``heard``: valid RECORDS received (an empty
    one included): the driver's sign that its server lives. ``offset``: the server's record
    number of our ``records[i]`` is ``i + offset`` (0 until a switch to a seat whose log has
    more or fewer non-step records before our last step). ``ask_now``: a WATCH should go out at
    once (set by a resync restart; the driver clears it)."""

    def __init__(self, identity: Identity, game_id: bytes, host_pk: bytes, name: str) -> None:
        self.identity = identity
        self.game_id = game_id
        self.host_pk = host_pk
        self.name = name[: C.MAX_NAME_LEN]
        self.records: list[tuple[int, bytes]] = []
        #: ``sources[i]``: (seat key, RECORDS envelope) that brought ``records[i]`` — the seat's
        #: signature over the record, kept as evidence should the record not verify (``source``).
        #: One tuple per envelope, shared by its records; the envelopes hold the records' bytes
        #: a second time (~450 bytes a step), freed with the records they brought.
        self.sources: list[tuple[bytes, bytes] | None] = []
        self.offset = 0
        self.heard = 0
        #: While resyncing after a switch: the step number of our last STEP record, and the
        #: server's record number we expect next (None before its first batch).
        self._anchor: int | None = None
        self._srv_next: int | None = None
        self._ask = 0
        self.ask_now = False
        self.stats: dict[str, int] = dict.fromkeys(("received", "records"), 0)

    @property
    def resyncing(self) -> bool:
        """True between a ``switch`` and the new server's record of our last step."""
        return self._anchor is not None

    def watch_message(self) -> bytes:
        """Our WATCH (subscribe or renew), asking for the records we lack: from
        ``len(records) + offset`` on (while resyncing: from a little before our last step)."""
        have = self._ask if self._anchor is not None else len(self.records) + self.offset
        return seal_message(self.identity, MSG_WATCH, Watch(self.game_id, self.identity.public_key,
                                                            self.identity.x25519_public_key, self.name, have))

    def switch(self, host_pk: bytes, cut: int | None = None) -> int:
        """Follow another seat (key ``host_pk``) from now on. Our records from number ``cut`` on
        (a record that does not verify and what came after it: ``cut_before``) and after the
        last STEP record left are dropped (that seat may number or word its DROP/COMPLAINT
        records otherwise; its own follow); we then take that seat's records after the one of
        our last step (``resync``). Returns how many of our records were dropped (the caller
        rewrites its copy of the log if any)."""
        self.host_pk = host_pk
        held = len(self.records)
        if cut is not None:
            self._truncate(max(1, cut))
        last = max((i for i, (kind, _) in enumerate(self.records) if kind == KIND_STEP), default=None)
        if last is None:  # the header at most: nothing to align, start after it
            self._truncate(1)
            self.offset, self._anchor = 0, None
            return max(0, held - 1)
        dropped = held - last - 1
        self._truncate(last + 1)
        self._anchor = _step_of(self.records[last][1])
        self._srv_next = None
        self._ask = max(1, last + self.offset - RESYNC_MARGIN)
        return dropped

    def cut_before(self, step: int) -> int:
        """The number of our first record that may belong to step ``step`` or later: the one
        after our last STEP record of an earlier step (1 if none). ``verify_log`` names the step
        of a record that fails (``Report.first_bad_step``, the records after STEP ``step``−1
        up to STEP ``step``); every record from there on came from one seat (a ``switch`` cuts
        after a STEP record), so ``source(cut_before(step))`` is the seat that sent it."""
        last = 0
        for i, (kind, payload) in enumerate(self.records):
            if kind == KIND_STEP:
                k = _step_of(payload)
                if k is None or k >= step:
                    break
                last = i
        return last + 1

    def source(self, i: int) -> tuple[bytes, bytes] | None:
        """(seat key, signed RECORDS envelope) that brought our record ``i``; None if unknown."""
        return self.sources[i] if 0 <= i < len(self.sources) else None

    def _truncate(self, n: int) -> None:
        del self.records[n:]
        del self.sources[n:]

    def _take(self, new: list, data: bytes) -> int:
        self.sources += [None] * (len(self.records) - len(self.sources))  # records set from outside
        self.sources += [(self.host_pk, data)] * len(new)
        self.records.extend(new)
        self.stats["records"] += len(new)
        return len(new)

    def receive(self, data: bytes) -> int:
        """Take one RECORDS envelope: schema, game, signature by the seat, then the records that
        extend ours (an overlap is skipped, a gap dropped: the next WATCH asks again). Returns
        how many records were added."""
        self.stats["received"] += 1
        env, msg, bad = open_for_game(data, MSG_RECORDS, decode_records, C.MAX_WATCH_MSG, self.game_id)
        if bad:
            return self._drop(bad)
        if not env.verify(self.host_pk):
            return self._drop("bad_signature")
        self.heard += 1
        if self._anchor is not None:
            return self._resync(msg.index, msg.records, data)
        have = len(self.records) + self.offset
        if msg.index > have:
            return self._drop("gap")
        new = msg.records[have - msg.index:]
        if not self.records and new and new[0][0] != 0:
            return self._drop("no_header")
        return self._take(new, data)

    def _resync(self, index: int, batch: Any, data: bytes) -> int:
        """After a switch: skip the new server's records up to its STEP record of our last step
        (in order from where we asked), then take the rest as usual. If its first STEP record
        is already past our step we asked too late: ask again from its header (``have`` 0)."""
        if self._srv_next is None:
            if index > self._ask:  # a subscription it still held from before: start it over
                return self._restart()
            self._srv_next = index
        if index > self._srv_next:
            return self._drop("gap")
        start = self._srv_next - index
        for i in range(start, len(batch)):
            kind, payload = batch[i]
            if kind != KIND_STEP:
                continue
            step = _step_of(payload)
            if step == self._anchor:  # found: the server's next record is our next one
                self.offset = index + i + 1 - len(self.records)
                self._anchor = self._srv_next = None
                self.stats["resynced"] = self.stats.get("resynced", 0) + 1
                return self._take(batch[i + 1:], data)
            if step is None or step > self._anchor:
                return self._restart()  # asked too late (or a record that does not parse)
        self._srv_next = index + len(batch)
        return 0

    def _restart(self) -> int:
        """Resync from the new server's header (``have`` 0 restarts a subscription)."""
        self._ask, self._srv_next, self.ask_now = 0, 0, True
        return self._drop("resync_restart")

    def _drop(self, reason: str) -> int:
        self.stats[reason] = self.stats.get(reason, 0) + 1
        return 0


def _step_of(payload: bytes) -> int | None:
    """The step number of a STEP record's payload (protocol.md §C6: ``[step, [envelope, ...]]``,
    the table ``gamelog.STEP_RECORD``), None if it does not parse."""
    try:
        return STEP_RECORD.decode(payload).step
    except WireError:
        return None


__all__ = ["WatchServer", "WatchClient", "Subscription", "WATCH_RENEW_S", "WATCH_TTL_S", "MAX_WATCHERS",
           "RECORDS_BATCH", "WATCH_BYTES_PER_S", "UNSETTLED_BYTES", "WATCH_SILENCE_S", "RESYNC_MARGIN"]
