"""All channels of one UDP socket, keyed by peer address: the sans-I/O endpoint of the
transport (protocol.md part N, §N2.2 authentication, §N2.6 strangers).

``p2p.transport`` is one ``Channel`` (sequence numbers, acks, retransmission, MACs of one peer);
this module routes datagrams to channels, opens and keys them (``pin``, introductions), evicts
strangers and shares the receive budget. Like the channel it never reads a clock nor touches a
socket: every entry point takes ``now``. The asyncio adapter that drives it from a UDP socket is
``p2p.link.Link`` (aioquic keeps ``asyncio/protocol.py`` apart the same way).
"""

from __future__ import annotations

from typing import Any, Callable

from .channel_auth import TAG_LEN, XKEY_LEN, Delivered, KeyCache, PairKeys
from .datagram import tag_ok
from .displaced import Displaced
from .errors import LocalProtocolError
from .recovery import LossClock
from .resume_point import ResumePoint
from .return_route import PIN_ALLOWANCE
from .tombs import Tombs
from .transport import (HEADER, HEADER_SIZE, MAGIC, MAGIC_AUTH, MAGIC_INTRO, MAX_MESSAGE, STAT_KEYS, STRANGER_RECV_CAP,
                        Addr, Channel, RecvBudget, new_epoch)

__all__ = ["Endpoint", "UNTRUSTED_IDLE"]

UNTRUSTED_IDLE = 5.0
"""Seconds after which an *untrusted* channel (one whose peer the node has not vouched for:
no valid JOIN yet, protocol.md §N2.6) that received nothing is evicted when a new source
shows up."""

_INTRO_BYTE = bytes([MAGIC_INTRO])
_PLAIN_BYTE = bytes([MAGIC])
_AUTH_BYTE = bytes([MAGIC_AUTH])

TOMBSTONES_PER_PEER = 4
"""Forgotten channels' resume points kept per ``max_peers`` (oldest dropped first), §N2.6."""


class Endpoint:
    """All channels of one UDP socket, keyed by peer address (sans-I/O).

    ``epoch`` defaults to a random one (``new_epoch``); pass a fixed one in tests.

    Strangers (protocol.md §N2.6): anyone on the LAN can send datagrams from any source address without signing
    anything, so a channel opened by an unknown address is *untrusted* until the owner vouches for its address
    (``trust``: the lobby accepted a valid JOIN from it, or it is the host we joined). When a datagram from a new
    address arrives, untrusted channels silent for ``UNTRUSTED_IDLE`` s are evicted, and if ``max_peers`` channels
    still exist one untrusted channel is evicted (``evicted``; of the source host holding the most, unconfirmed
    first, least recently heard first); with none to evict the datagram is dropped (``unknown_dropped``). Once the
    game started the owner calls ``restrict(addresses)``: only those addresses (the setup's endpoints, where a
    restarted peer comes back, §N5) may open channels, the rest are forgotten, and datagrams from other sources are
    dropped (``unknown_dropped``). Receive buffers of trusted channels share one ``RecvBudget`` of
    ``MAX_RECV_BUFFER`` bytes (``budget``); an untrusted channel holds at most ``STRANGER_RECV_CAP`` bytes of
    out-of-order chunks and its one reassembly, counted in ``stranger_budget`` (sized never to fill), so strangers
    cannot starve a trusted peer's multi-chunk payload. A channel the owner opens (``channel``, ``pin``: it chose
    the address) sends freely until the game starts, but one a ``pin`` of an address a peer named opens (``chosen``
    False: a PROPOSAL's seat) is bounded with a first flight (§N2.6 "Lobby pins"); one opened by the peer's datagram
    is *unconfirmed* and sends at most ``UNCONFIRMED_FACTOR`` x what it received until the peer answers a CHALLENGE
    sent to its address (``transport.Channel``, §N2.6 reflection); ``trust`` does not lift the bound (a spoofed JOIN
    is valid, H77). At the game's start (``restrict``) every seat channel whose peer has not so proven its address
    is bounded and challenged, ours included, and one ``pin`` opens afterwards is bounded with a first-flight
    allowance (§N2.6 "Game started": a seat-holder's ghost seat, a resumed peer, a moved seat's copied advert).

    Authentication (protocol.md §N2.2): ``keys`` (``channel_auth.KeyCache`` of our identity; None: plain channels
    only, for tests of the bare transport) lets the owner ``pin`` an address to a peer's X25519 key: that channel is
    keyed, and from then on only datagrams MACed with the pairwise key reach it. An *introduction* (a MACed datagram
    carrying the sender's X25519 key) from an unknown address opens a keyed channel (the key derivation is
    rate-limited, ``KeyCache.introduced``); on an address with a plain channel it keys the channel in place (trust
    on first use: lobby-time peers without a key) if the address is trusted or its peer was heard in the last
    ``UNTRUSTED_IDLE`` s, else it replaces it as below (a joiner by code's PROBE, H134); it replaces a keyed channel
    only if the address is untrusted and its peer was not *heard* there (``last_heard``: over a proven route) in the
    last ``UNTRUSTED_IDLE`` s: one spoofed introduction from a live spectator's or joiner's address cut it off (H122
    s12 #3), a peer that really changed its key there waits that long, and every channel so replaced is kept aside
    (``p2p.displaced``, at most ``INTRO_ADDR_BURST``) until the current one is heard (``_swap_back``, H128 s12b #1,
    H127 review #7); a ``pin`` of its key takes it back, and one dropped keeps its resume point (``_bury``, H144).
    Plain datagrams open channels only while ``accept_plain`` is true and never reach a keyed channel (one swaps
    back a plain channel kept aside).

    Forgetting a channel (``forget``: an evicted stranger, §N2.6 "Strangers") of a peer that proved its address or
    that the owner trusts keeps its resume point (``Channel.resume_point``; at most ``TOMBSTONES_PER_PEER`` x
    ``max_peers``, oldest dropped; a spoofed source never proves its address, so its channels cannot push the
    others' points out): the peer still holds its side, having taken every acknowledged chunk as delivered. A
    channel opened later for that address, with the same key (or a plain one before), goes on from it
    (``Channel.resume``): both streams continue where they stopped, or, if the old channel held data it cannot pass
    on (out of order, half reassembled, unacknowledged), it takes a fresh epoch of its own so that the peer restarts
    the stream (§N2.2); so does one opened, with no point kept, by a datagram whose ``dst_epoch`` names ours (a
    first contact names 0: the peer had a channel here that we forgot). An authenticated datagram (``0xB2``) from an
    address with no channel reopens a keyed one only so, and only if its MAC checks with the remembered key. Before
    (H85): the new channel acknowledged the peer's next chunks out of order behind ones it never got, and never
    delivered them.
    """

    def __init__(self, *, epoch: int | None = None, max_peers: int = 32, keys: KeyCache | None = None,
                 accept_plain: bool = True) -> None:
        self.epoch = epoch if epoch is not None else new_epoch()
        self.max_peers = max_peers
        self.channels: dict[Addr, Channel] = {}
        self.keys = keys
        #: Whether a plain datagram from an unknown address may open a (plain) channel.
        self.accept_plain = accept_plain
        self.stats = {"unknown_dropped": 0, "evicted": 0, "intro_dropped": 0, "resumed": 0}
        #: Receive bytes of trusted channels; strangers' (capped each) are counted apart.
        self.budget = RecvBudget()
        self.stranger_budget = RecvBudget(max_peers * (STRANGER_RECV_CAP + MAX_MESSAGE))
        #: The lossy regime shared by every channel (recovery.LossClock, §N2.4).
        self.loss_clock = LossClock()
        #: Addresses the owner vouched for: never evicted.
        self.trusted: set[Addr] = set()
        #: None (lobby: anyone may open a channel) or the only addresses allowed (game started).
        self.allowed: frozenset[Addr] | None = None
        #: Called as ``on_confirm(addr, now)`` when a datagram confirms the channel to ``addr``
        #: (a RESPONSE to our CHALLENGE, §N2.6): the host's lobby answers a PROBE it kept (§N3.1).
        self.on_confirm: Callable[[Addr, float], None] | None = None
        #: Address -> resume point of a forgotten channel (``forget``; oldest first, bounded).
        self._tombs = Tombs(TOMBSTONES_PER_PEER * max_peers)
        #: The channels (keyed or plain) introductions replaced (§N2.1 step 3), kept aside by address until the current
        #: one is heard (``_swap_back``, H128 s12b #1, H127 #7); ``_displaced`` is its dict, for the hot path.
        self._aside = Displaced(on_release=self._bury)
        self._displaced = self._aside.by_addr
        #: Seat key -> bytes of its *move* allowance (one ``PIN_ALLOWANCE`` shared by every pin of
        #: that key after ``restrict`` but its first) spent by forgotten channels that never heard
        #: their peer (§N2.6 "Game started": forged adverts moving a seat to one port after another
        #: of a victim's machine must not renew it, H88 review #7; oldest first, bounded). A key
        #: is here once it had a channel by ``restrict`` or a first pin after it; never reset, not
        #: even when the key proves an address or a new epoch (§N2.6, H110: only forged moves would gain).
        self._flights: dict[bytes, int] = {}
        #: Address -> key of the channel a key's first pin after ``restrict`` opened (a resumed
        #: peer's, from its log): its own first flight, not charged to the move allowance.
        self._firsts: dict[Addr, bytes] = {}

    def trust(self, addrs: Any) -> None:
        """Vouch for these addresses (iterable of (host, port)): their channels are never evicted as strangers.
        Replaces the previous set. Trust does not lift the send bound of an unconfirmed channel (protocol.md §N2.6
        'Reflection'): a valid JOIN proves who signed it, not that its source address is theirs (H77). A keyed
        channel the owner opened (``pin``) to an address it no longer vouches for, which never accepted a datagram,
        is forgotten: nothing is owed to it, and its re-sends would go on for good to an address that may be a
        victim's (a seat removed from the setup round, §C2.2 step 7; §N2.6 "Game started", "What does not")."""
        trusted = {(str(a[0]), int(a[1])) for a in addrs}
        dropped = [a for a, ch in self.channels.items()
                   if a not in trusted and a in self.trusted and ch.keys is not None and ch.peer_epoch is None]
        for addr in dropped:
            self.forget(addr)
        self.trusted = trusted
        for addr, ch in self.channels.items():
            self._place(addr, ch)

    def restrict(self, addrs: Any) -> None:
        """From now on only ``addrs`` (iterable of (host, port): the setup's endpoints) may open channels; every other
        channel is forgotten. They are trusted too. Each kept channel whose peer has not proven it receives at its
        address (a RESPONSE to a CHALLENGE sent there) is bounded and challenged now (``Channel.require_proof``),
        the ones we opened ourselves included: a seat-holder can seat a ghost key of its own at a victim's spoofed
        address (protocol.md §N2.6 "Game started"). A channel ``pin`` opens later (a resumed peer's, a moved seat's,
        §N3.2) is bounded from its first byte with a first flight of ``PIN_ALLOWANCE`` bytes: it may have to speak
        first. Per seat key, for the endpoint's life: its first such pin has its own, every later one (a move)
        shares one more, spent by what channels that never heard their peer sent (``pin``; H88 review #7)."""
        allowed = frozenset((str(a[0]), int(a[1])) for a in addrs)
        self.allowed = allowed
        self.trusted = set(allowed)
        for addr in [a for a in self.channels if a not in allowed]:
            self.forget(addr)
        for addr, ch in self.channels.items():
            self._place(addr, ch)
            ch.require_proof()
            if ch.keys is not None:  # its later pins elsewhere (moves) share one first flight
                self._spend(ch.keys.peer_xk, 0)

    def _place(self, addr: Addr, ch: Channel) -> None:
        """Make ``ch`` draw on the receive budget of its address's trust (class doc)."""
        if addr in self.trusted:
            ch.rebudget(self.budget, None)
        else:
            ch.rebudget(self.stranger_budget, STRANGER_RECV_CAP)

    def _make_room(self, now: float) -> bool:
        """Before opening a channel for a new source: evict idle strangers, then, if still full, one stranger of the
        source host (IP) holding the most stranger channels, an unconfirmed one first, the least recently heard
        first (protocol.md §N2.6 "Strangers"). True if a channel may be opened."""
        trusted = self.trusted
        stale = [a for a, ch in self.channels.items()
                 if a not in trusted and now - ch.last_rx >= UNTRUSTED_IDLE]
        for a in stale:
            self.forget(a)
        self.stats["evicted"] += len(stale)
        if len(self.channels) < self.max_peers:
            return True
        # The host with the most stranger channels gives one up first: one machine on many ports
        # (answering CHALLENGEs or not) churns its own channels, not a joiner by code's between
        # its RESPONSE and its next PROBE (§N3.1, H85); then unconfirmed ones: a blind spoofer
        # opens as many of those as it likes from as many hosts, a confirmed one proved it
        # receives at its address. One pass, no key function: this runs for each new source of a
        # flood (H88 review #4: 1.6x the cost per spoofed datagram at 8917207 with the lambda).
        strangers = [(ch.route.confirmed, ch.last_rx, a) for a, ch in self.channels.items() if a not in trusted]
        if not strangers:
            return False
        per_host: dict[Any, int] = {}
        for s in strangers:
            host = s[2][0]
            per_host[host] = per_host.get(host, 0) + 1
        top = max(per_host.values())
        if top > 1:
            strangers = [s for s in strangers if per_host[s[2][0]] == top]
        self.forget(min(strangers)[2])
        self.stats["evicted"] += 1
        return True

    def last_heard(self, addr: Addr) -> float:
        """Time (the clock passed to ``receive_datagram``) the peer of ``addr``'s channel was last *heard* there
        (``Channel.last_heard``: a RESPONSE echoing our nonce, or, once the route is so proven, a datagram MACed
        with its key that advanced the channel), 0.0 if never or no channel. Not ``last_rx``: a datagram of another
        run replayed from a spoofed source, or a duplicate of this run's, is accepted (or counted) there but is no
        sign the peer is there now (protocol.md §N2.2 "Heard"; H122 s12 #1, #2)."""
        ch = self.channels.get(addr)
        return 0.0 if ch is None else ch.last_heard

    def channel(self, addr: Addr) -> Channel:
        """The channel to ``addr``, created (plain) if needed; raises LocalProtocolError past max_peers once no
        stranger can be evicted."""
        ch = self.channels.get(addr)
        if ch is None:
            self.trusted.add(addr)  # we chose to talk to it (the owner may revise: ``trust``)
            ch = self._open(addr, None, False, 0.0, True)
        return ch

    def _open(self, addr: Addr, keys: PairKeys | None, introduce: bool, now: float, chosen: bool,
              first: bytes = b"") -> Channel:
        """A new channel to ``addr``; ``chosen``: the owner opened it (not the peer's datagram), ``first``: that
        datagram (its ``dst_epoch`` may show a channel we forgot, class doc)."""
        if len(self.channels) >= self.max_peers and not self._make_room(now):
            raise LocalProtocolError(f"more than max_peers={self.max_peers} peers")
        trusted = addr in self.trusted
        tomb = self._tombs.take(addr, keys)  # the same peer's (a plain stream may be keyed in place, §N2.2)
        if tomb is None and len(first) >= HEADER_SIZE:
            _magic, _flags, _src_epoch, dst_epoch, _seq, _ack, _bits = HEADER.unpack_from(first)
            if dst_epoch == self.epoch:
                # It names our epoch: it had a channel here that we forgot, its resume point gone
                # (never kept for a stranger that did not prove its address): restart its stream.
                tomb = ResumePoint(None, -1, -1, keys)
        epoch = self.epoch if tomb is None or tomb.rx_next >= 0 else new_epoch()
        ch = self.channels[addr] = Channel(addr, epoch=epoch, keys=keys, loss_clock=self.loss_clock,
                                           budget=self.budget if trusted else self.stranger_budget,
                                           recv_cap=None if trusted else STRANGER_RECV_CAP,
                                           my_xk=self.keys.my_xk if self.keys is not None else b"",
                                           introduce=introduce, confirmed=chosen)
        if tomb is not None:
            ch.resume(tomb)
            self.stats["resumed"] += 1
        return ch

    def pin(self, addr: Addr, peer_xk: bytes, chosen: bool = True) -> bool:
        """Expect ``peer_xk`` (the peer's raw X25519 public key, 32 bytes) at ``addr``: its channel is keyed with the
        pairwise key (created if needed; a plain channel is keyed in place, its stream goes on; one keyed with
        another key is replaced) and we introduce ourselves until the peer answers. The address becomes trusted.
        ``chosen``: the owner chose the address itself (the host it joins); False: a peer named it (a PROPOSAL's
        seat endpoint, i.e. where a JOIN came from, maybe spoofed): a channel opened so is bounded from its first
        byte like one pinned after ``restrict``, with a first flight of ``PIN_ALLOWANCE`` bytes (protocol.md §N2.6
        "Lobby pins", H91). Returns False (and changes nothing) for an unusable key. Raises LocalProtocolError
        without ``keys``. Cheap when nothing changes (the node calls it on every lobby event)."""
        if self.keys is None:
            raise LocalProtocolError("this endpoint has no identity to key channels with")
        addr = (str(addr[0]), int(addr[1]))
        ch = self.channels.get(addr)
        if ch is not None and ch.keys is not None and ch.keys.peer_xk == peer_xk:
            if addr not in self.trusted:
                self.trusted.add(addr)
                self._place(addr, ch)
            return True
        keys = self.keys.pinned(peer_xk)
        if keys is None:
            return False
        if ch is not None and ch.keys is None:
            self.trusted.add(addr)
            ch.upgrade(keys, self.keys.my_xk, True)
            self._place(addr, ch)
            return True
        back = None
        if ch is not None:
            back = self._aside.take(addr, peer_xk) if self._displaced else None
            # Before the address is trusted: a channel of another key there (a spoofer's, unconfirmed)
            # keeps no resume point (``_bury``, class doc; RV13-A #4).
            self.forget(addr)
        self.trusted.add(addr)
        if back is not None:  # its own channel, kept aside (§N2.1 step 3): its streams go on (H144)
            self.channels[addr] = back
            self._place(addr, back)
            return True
        ch = self._open(addr, keys, True, 0.0, True)
        if self.allowed is not None:
            # A resumed peer's or a moved seat's (§N2.6 "Game started"): its first flight, then 3x
            # what came back. Not 0: when every seat resumed at a new address, nobody else speaks
            # (the log's address, then the advert's: two flights, tests/e2e/test_table_resume_e2e.py).
            # Per key, not per address: a victim has 65,535 ports (H88 review #7).
            spent = self._flights.get(peer_xk)
            if spent is None:
                self._firsts[addr] = peer_xk
                self._spend(peer_xk, 0)
            ch.require_proof(PIN_ALLOWANCE - (spent or 0))
        elif not chosen:
            # A blind JOIN from V's address puts V in the PROPOSAL: every joiner's SETUP_SIG and
            # SEED re-sends went there unbounded (H85: 47 KB per joiner per round). The first
            # flights of two seats that pin each other reach each other: neither waits for ever.
            # A fresh channel: no peer epoch to challenge yet, so the route alone changes.
            ch.route.demand(PIN_ALLOWANCE, lobby=True)
        return True

    def await_seat(self, addr: Addr) -> None:
        """A joiner's PROPOSAL names ``addr`` as a seat: a channel there that the address's own datagram opened (a
        SETUP_SIG before our PROPOSAL: not confirmed, not yet bounded as a seat's) is bounded as a lobby pin's from
        now on, first flight included: it never gives up, knocks and is challenged until a RESPONSE proves it
        (protocol.md §N2.6 "Lobby pins"). Else it gave up after 3 resends, and with the other seat's lobby pin out
        of its flight only a knock woke it, seconds apart. Nothing for other channels (cheap, idempotent)."""
        ch = self.channels.get((str(addr[0]), int(addr[1])))
        if ch is not None and self.allowed is None and not ch.route.confirmed and not ch.route.seat:
            ch.route.demand(PIN_ALLOWANCE, lobby=True)

    def _spend(self, peer_xk: bytes, size: int) -> None:
        """Charge ``size`` bytes to the move allowance of the seat key ``peer_xk`` (at most ``PIN_ALLOWANCE`` in all;
        registers the key; bounded, oldest forgotten)."""
        flights = self._flights
        flights[peer_xk] = min(PIN_ALLOWANCE, flights.pop(peer_xk, 0) + size)
        if len(flights) > TOMBSTONES_PER_PEER * self.max_peers:
            del flights[next(iter(flights))]

    def confirmed(self, addr: Addr) -> bool:
        """Whether the channel to ``addr`` is confirmed (``Channel.confirmed``: e.g. the peer
        answered a CHALLENGE sent to that address, protocol.md §N2.6 'Reflection'); False for an
        unknown address. The lobby answers a join-code PROBE only from a confirmed address (§N3.1)."""
        ch = self.channels.get(addr)
        return ch is not None and ch.confirmed

    def peer_key(self, addr: Addr) -> bytes | None:
        """The X25519 key the channel to ``addr`` is keyed with: every payload delivered from
        it was MACed by the holder of that key. None for a plain or unknown channel."""
        ch = self.channels.get(addr)
        return None if ch is None or ch.keys is None else ch.keys.peer_xk

    def _introduction(self, data: bytes, addr: Addr, now: float, old: Channel | None) -> Channel | None:
        """A MAGIC_INTRO datagram that no keyed channel of its key takes: derive the offered key (rate-limited), check
        the MAC, then open or key the channel (see the class doc). None if dropped (``intro_dropped``)."""
        keys = None
        if self.keys is not None and len(data) >= HEADER_SIZE + XKEY_LEN + TAG_LEN:
            keys = self.keys.introduced(data[HEADER_SIZE:HEADER_SIZE + XKEY_LEN], now, addr)
        if keys is None or not tag_ok(keys.recv, data):
            self.stats["intro_dropped"] += 1
            return None
        if old is not None and old.keys is None and self._settled(addr, old, now):
            old.upgrade(keys, self.keys.my_xk, False)  # trust on first use (class doc)
            return old
        if old is not None:
            self._aside.keep(addr, self.channels.pop(addr))
        try:
            ch = self._open(addr, keys, False, now, False, data)
        except LocalProtocolError:
            self.stats["unknown_dropped"] += 1
            if old is not None:
                self.channels[addr] = self._aside.restore(addr)
            return None
        ch.last_rx = now
        return ch

    def _settled(self, addr: Addr, ch: Channel, now: float) -> bool:
        """No introduction replaces ``ch`` (§N2.1 step 3): ``addr`` is trusted or its peer was heard there lately."""
        return addr in self.trusted or bool(ch.last_heard and now - ch.last_heard < UNTRUSTED_IDLE)

    def _swap_back(self, data: bytes, addr: Addr, now: float, ch: Channel) -> Channel:
        """``ch``, or a channel an introduction displaced at ``addr`` if ``data`` fails ``ch``'s MAC and passes its
        (they swap, ``Displaced.swap``) while ``ch``'s peer was not heard in the last ``UNTRUSTED_IDLE`` s (once it
        was, every displaced one is dropped): forged introductions in a new peer's first round trip no longer cut it
        off (§N2.1 step 3)."""
        if self._settled(addr, ch, now):
            self._aside.drop(addr)  # (a trusted address's channel is never replaced, step 3)
            return ch
        old = self._aside.swap(addr, data, ch)
        if old is None:
            return ch
        self.channels[addr] = old
        return old

    def send(self, addr: Addr, payload: bytes) -> None:
        """Queue ``payload`` for ``addr`` (see ``Channel.send`` for limits and errors)."""
        self.channel(addr).send(payload)

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> Delivered:
        """Route one datagram: a ``Delivered``, the [(peer address, payload), ...] it completed, in order ([]: none)."""
        ch = self.channels.get(addr)
        if ch is not None:
            if self._displaced and addr in self._displaced:
                ch = self._swap_back(data, addr, now, ch)
            if data[:1] == _INTRO_BYTE and (ch.keys is None or (  # §N2.1 step 3
                    ch.keys.peer_xk != data[HEADER_SIZE:HEADER_SIZE + XKEY_LEN] and not self._settled(addr, ch, now))):
                ch = self._introduction(data, addr, now, ch)
                if ch is None:
                    return Delivered(addr, None, [])
            if self.on_confirm is None or ch.route.confirmed:  # the game's path: no extra work
                return Delivered(addr, ch.keys, ch.receive_datagram(data, addr, now))
            out = Delivered(addr, ch.keys, ch.receive_datagram(data, addr, now))
            if ch.route.confirmed:
                self.on_confirm(addr, now)  # its RESPONSE: a PROBE kept from it is answered now (§N3.1)
            return out
        if self.allowed is not None and addr not in self.allowed:
            self.stats["unknown_dropped"] += 1
            return Delivered(addr, None, [])
        first = data[:1]
        if first == _INTRO_BYTE:
            ch = self._introduction(data, addr, now, None)
            if ch is None:
                return Delivered(addr, None, [])
        elif (first == _PLAIN_BYTE and len(data) >= HEADER_SIZE and self.accept_plain
              and self._make_room(now)):
            ch = self._open(addr, None, False, now, False, data)
            ch.last_rx = now
        elif first == _AUTH_BYTE and (keys := self._tombs.remembered(data, addr)) is not None \
                and self._make_room(now):
            ch = self._open(addr, keys, False, now, False)
            ch.last_rx = now
        else:
            self.stats["unknown_dropped"] += 1
            return Delivered(addr, None, [])
        return Delivered(addr, ch.keys, ch.receive_datagram(data, addr, now))

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        """Every channel's due datagrams: [(bytes, address), ...] (``now``: the caller's clock, s);
        the first half of ``flush``, for callers that read the timer apart (the simulator)."""
        return self.flush(now)[0]

    def flush(self, now: float) -> tuple[list[tuple[bytes, Addr]], float | None]:
        """``(datagrams_to_send(now), get_timer())`` in one pass over the channels: what the link does after every
        batch of datagrams (issue 14: one scan per wake-up, not two). ``now``: the caller's clock (s); the timer is
        an absolute time on that clock, or None."""
        out: list[tuple[bytes, Addr]] = []
        when = None
        for ch in self.channels.values():
            if ch.due(now):
                out.extend(ch.datagrams_to_send(now))
            t = ch.get_timer()
            if t is not None and (when is None or t < when):
                when = t
        return out, when

    def get_timer(self) -> float | None:
        """Earliest timer of any channel (s), or None."""
        when = None
        for ch in self.channels.values():
            t = ch.get_timer()
            if t is not None and (when is None or t < when):
                when = t
        return when

    def handle_timer(self, now: float) -> None:
        """Run every channel's timer (cheap for channels with nothing due)."""
        for ch in self.channels.values():
            ch.handle_timer(now)

    @property
    def resume_points(self) -> int:
        """How many forgotten channels' resume points are kept (``forget``; for tests, stats)."""
        return len(self._tombs)

    def forget(self, addr: Addr) -> None:
        """Drop the channel to ``addr`` and everything queued or buffered for it; keep its resume point
        (``Channel.resume_point``, class doc) for a later channel to the same peer."""
        self._aside.drop(addr)
        ch = self.channels.pop(addr, None)
        if ch is not None:
            route = ch.route
            first = self._firsts.pop(addr, None)
            if (route.seat and not route.rx and ch.keys is not None and ch.keys.peer_xk != first
                    and self.allowed is not None):  # (a lobby pin's flight is per round: "Lobby pins")
                self._spend(ch.keys.peer_xk, route.tx)  # it never heard its peer: what it sent stays spent
            self._bury(addr, ch)

    def _bury(self, addr: Addr, ch: Channel) -> None:
        """Release ``ch`` (forgotten, or a channel kept aside at ``addr``, ``Displaced.on_release``) and keep its
        resume point (class doc): only for a peer that proved its address or that we vouch for, a blind spoofer's
        channels never do, so a flood of them cannot push a real stranger's point out; nor does one without a point
        drop the point kept there (a displaced peer's, H144)."""
        ch.release()
        self._tombs.bury(addr, ch.resume_point() if ch.confirmed or addr in self.trusted else None)

    def totals(self) -> dict[str, int]:
        """Sum of every channel's counters plus the endpoint's own."""
        out = dict.fromkeys(STAT_KEYS, 0)
        for ch in self.channels.values():
            for k, v in ch.stats.items():
                out[k] += v
        out.update(self.stats)
        if self.keys is not None:
            out.update(self.keys.stats)
        return out

    def hurry_acks(self, now: float) -> None:
        """``Channel.hurry_acks`` on every channel (the owner is draining before it closes)."""
        for ch in self.channels.values():
            ch.hurry_acks(now)

    @property
    def idle(self) -> bool:
        """True when no channel has anything queued, in flight or to acknowledge."""
        return all(ch.idle for ch in self.channels.values())
