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
  DROP, SKIP, ABANDON, COMPLAINT record, as it logs them; ``LOG_KINDS``) from number ``index`` on. Everything in them
  is signed by the players (but the forced bodies of plain chance steps, which need no signature
  and may carry a bad one, protocol.md §C3.8); the spectator checks all of it by replaying the
  records exactly as ``lanopoli verify`` does (``ui.watch.verify_records``).

Any seat serves (protocol.md §N10 "Any seat serves"): each advertises its watch socket on
DNS-SD (``_lanopoli-watch._udp``: ``p2p.rendezvous.WATCH_SERVICE``, advertised by
``p2p.watch_service.WatchService``). A seat answers a renewal with an empty RECORDS when it has
nothing new (at most once per ``WATCH_ANSWER_S``), so a spectator hears from a live server at
least every ``WATCH_RENEW_S``; after
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
from .chat import clean_name
from .gamelog import KIND_ABANDON, KIND_COMPLAINT, KIND_DROP, KIND_SKIP, KIND_STEP, STEP_RECORD
from .identity import Identity
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
#: Seconds between two empty answers to one subscriber's renewals at least: an honest one
#: renews every WATCH_RENEW_S; one that renews faster (2,000 a second, each a signature before:
#: H107 s11 #1) is answered no more often, its pending renewal at a later sending.
WATCH_ANSWER_S = 1.0
#: Places one source host (IP address) holds at most among MAX_WATCHERS: a few views from one
#: machine (a teacher's projector and laptop, a shared classroom PC), not all of them (H107 s11
#: #2: one laptop on 16 ports kept every other spectator out). One that never proved its
#: address gives way to a newcomer of its IP that did (H114 s11b #10: spoofed WATCHes from a
#: machine's IP kept it out).
WATCHERS_PER_HOST = 4
#: The record kinds a game log holds after its header (protocol.md §C6; ``KIND_OWN`` is the
#: own-message log's): a RECORDS with another is its seat's lie (``WatchClient``, ``ui.watch``).
LOG_KINDS = frozenset((KIND_STEP, KIND_DROP, KIND_SKIP, KIND_ABANDON, KIND_COMPLAINT))
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
    #: Its WATCH came over a confirmed channel (``WatchServer.receive``'s ``proven``).
    proven: bool = False
    #: Loop time of the last empty answer (WATCH_ANSWER_S apart at least).
    answered: float = float("-inf")


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
        #: Signed empty RECORDS by index, kept across sendings: one signature per place, not
        #: per renewal answered (H107 s11 #1).
        self._empty: dict[int, bytes] = {}
        #: Counters: ``received``, ``subscribed`` (new spectators), ``renewed``, ``sent``
        #: (RECORDS messages), ``expired`` and one per drop reason.
        self.stats: dict[str, int] = dict.fromkeys(("received", "subscribed", "renewed", "sent", "expired"), 0)

    def receive(self, data: bytes, addr: Any, peer_key: bytes | None, now: float, proven: bool = False) -> None:
        """Check one WATCH (schema, game, channel key = its ``xk``, one key per place, room —
        ``WATCHERS_PER_HOST`` per source host —, check budget, signature: a renewal by the
        subscriber's own channel needs none of the last four) and subscribe or renew ``addr``
        (its name kept cleaned). ``proven``: the channel it came over is confirmed (the address
        answered a CHALLENGE sent there, §N2.6): a newcomer that is takes, when its IP holds its
        ``WATCHERS_PER_HOST`` places, one of them neither ``reached`` nor subscribed ``proven``.
        Failures are dropped and counted (protocol.md §N10 "WATCH")."""
        self.stats["received"] += 1
        env, msg, bad = open_for_game(data, MSG_WATCH, decode_watch, C.MAX_STEP_MSG, self.game_id)
        if bad:
            return self._drop(bad)
        if peer_key is None or peer_key != msg.xk:
            return self._drop("key_mismatch")  # the channel must be keyed with the spectator's own key
        sub = self.subs.get(addr)
        victim = None
        # A renewal (same address, pk and xk) came over the channel keyed with that xk: the MAC
        # proves the subscriber sent it, so it needs no signature check and none of the shared
        # budget, which a flood of forged WATCHes can use up (H37: it made every renewal 'busy'
        # and every spectator lapse after WATCH_TTL_S).
        if sub is None or sub.pk != msg.pk or sub.xk != msg.xk:
            self._expire(now)
            if addr in self.subs:  # a live place keeps its key until it lapses (H107 s11 #7)
                return self._drop("key_change")
            mine = [a for a in self.subs if _host(a) == _host(addr)]
            if len(mine) >= WATCHERS_PER_HOST:  # one machine on many ports (H107 s11 #2)
                # A newcomer that proved its address takes its IP's place that never proved its
                # own, settled least recently (H114 s11b #10: four spoofed WATCHes from a
                # machine's IP kept it out); one that did not prove it never takes any.
                victim = self._weakest(mine) if proven else None
                if victim is not None and self._proved(victim):
                    victim = None
                if victim is None:
                    return self._drop("host_full")
            elif len(self.subs) >= MAX_WATCHERS:
                victim = self._victim(len(mine), now)
                if victim is None:
                    return self._drop("full")
            self._checks = min(float(WATCH_CHECK_RATE), self._checks + (now - self._checks_at) * WATCH_CHECK_RATE)
            self._checks_at = now
            if self._checks < 1.0:
                return self._drop("busy")
            self._checks -= 1.0
            if not env.verify(msg.pk):
                return self._drop("bad_signature")
            if victim is not None:
                del self.subs[victim]
                self.stats["evicted"] = self.stats.get("evicted", 0) + 1
            # Its name is a display hint, shown cleaned (§C2.1 'Names': no line breaks, escapes).
            self.subs[addr] = Subscription(msg.pk, msg.xk, clean_name(msg.name), msg.have, now + WATCH_TTL_S,
                                           float(WATCH_BYTES_PER_S), now, answer=True,
                                           last_have=msg.have, mark=msg.have, settled_at=now, proven=proven)
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
            # One probe until reached; then renewals answered at most once per WATCH_ANSWER_S
            # (a pending one waits for a later sending: H107 s11 #1, renewals at any rate).
            if sub.answer and (sub.reached or not sub.probed) and now - sub.answered >= WATCH_ANSWER_S:
                raw = self._empty.get(sub.sent)
                if raw is None:
                    raw = self._empty[sub.sent] = seal_message(self.identity, MSG_RECORDS,
                                                               Records(self.game_id, sub.sent, []))
                    self.stats["signed"] = self.stats.get("signed", 0) + 1
                out.append((addr, raw))
                sub.unsettled += len(raw)
                sub.answer = False
                sub.probed = True
                sub.answered = now
                self.stats["alive"] = self.stats.get("alive", 0) + 1
        if len(self._empty) > MAX_WATCHERS:  # keep the answers of the places spectators are at
            at = {sub.sent for sub in self.subs.values()}
            self._empty = {i: raw for i, raw in self._empty.items() if i in at}
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

    def _victim(self, held: int, now: float) -> Any:
        """The seat is full: the place a newcomer from a host holding ``held`` places takes, or
        None. First a subscriber that acknowledged nothing for WATCH_SILENCE_S (a spoofed
        address, H37); else, if some host holds at least ``held`` + 2 places, the least recently
        settled of that host's, one never proved first (H107 s11 #2: places go round the hosts, a
        real spectator on its own machine always gets one while some host holds two; H115: a
        spoofed place at a machine's IP goes before the machine's own view)."""
        stale = min(self.subs, key=lambda a: self.subs[a].settled_at)
        if now - self.subs[stale].settled_at > WATCH_SILENCE_S:
            return stale
        count: dict[Any, int] = {}
        for a in self.subs:
            count[_host(a)] = count.get(_host(a), 0) + 1
        top = max(count, key=lambda h: (count[h], str(h)))
        if count[top] < held + 2:
            return None
        return self._weakest([a for a in self.subs if _host(a) == top])

    def _proved(self, addr: Any) -> bool:  # its address answered us, or its WATCH came confirmed
        return self.subs[addr].reached or self.subs[addr].proven

    def _weakest(self, addrs: list) -> Any:  # the place to give up first: never proved, then settled longest ago
        return min(addrs, key=lambda a: (self._proved(a), self.subs[a].settled_at), default=None)

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
        self.name = clean_name(name)  # we sign it clean; a seat shows a WATCH's name cleaned (§C2.1 'Names')
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
        self._bad_at: int | None = None  # our record of a kind no game log holds (``_take``)
        self.ask_now = False
        self.stats: dict[str, int] = dict.fromkeys(("received", "records"), 0)

    @property
    def resyncing(self) -> bool:
        """True between a ``switch`` and the new server's record of our last step."""
        return self._anchor is not None

    def watch_message(self) -> bytes:
        """Our WATCH (subscribe or renew), asking for the records we lack: from
        ``len(records) + offset`` on (while resyncing: from a little before our last step, and
        once the new server's first batch came, from its next record we expect: a renewal with
        ``have`` 0 again restarted its stream from the header every ``WATCH_RENEW_S``, so a log
        over ~1 MB never aligned, RV16R-B F2)."""
        if self._anchor is None:
            have = len(self.records) + self.offset
        else:
            have = self._srv_next or self._ask
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
        if self._bad_at is not None and self._bad_at >= n:
            self._bad_at = None
        del self.records[n:]
        del self.sources[n:]

    def _take(self, new: list, data: bytes) -> int:
        # A record of a kind no game log holds after its header (§C6) is the sender's lie: kept,
        # with its evidence, for the driver to name the seat (ui.watch), nothing after it; while
        # we hold one, nothing more is taken (H107 s11 #5: a seat filled our memory with them).
        if self._bad_at is not None and self._bad_at < len(self.records):
            return self._drop("after_bad_kind")
        start = 1 if not self.records else 0
        bad = next((i for i in range(start, len(new)) if new[i][0] not in LOG_KINDS), None)
        if bad is not None:
            self.stats["bad_kind"] = self.stats.get("bad_kind", 0) + 1
            new = new[:bad + 1]
            self._bad_at = len(self.records) + bad
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


def _host(addr: Any) -> Any:
    """The source host of a spectator's address ``(ip, port)``: its IP (``WATCHERS_PER_HOST``)."""
    return addr[0] if isinstance(addr, tuple) else addr


def _step_of(payload: bytes) -> int | None:
    """The step number of a STEP record's payload (protocol.md §C6: ``[step, [envelope, ...]]``,
    the table ``gamelog.STEP_RECORD``), None if it does not parse."""
    try:
        return STEP_RECORD.decode(payload).step
    except WireError:
        return None


__all__ = ["WatchServer", "WatchClient", "Subscription", "WATCH_RENEW_S", "WATCH_TTL_S", "MAX_WATCHERS",
           "WATCH_ANSWER_S", "WATCHERS_PER_HOST", "LOG_KINDS",
           "RECORDS_BATCH", "WATCH_BYTES_PER_S", "UNSETTLED_BYTES", "WATCH_SILENCE_S", "RESYNC_MARGIN"]
