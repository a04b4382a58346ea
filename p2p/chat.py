"""Signed chat lines between the people of one game: sans-I/O (protocol.md §N9 "Chat").

A CHAT message (wire type 36) is one line of text signed by its author::

    body = [gid: bin(16), pk: bin(32), seq: uint ≤ 2^48-1, name: str ≤ 32, text: str ≤ 200]

``pk`` is the author's Ed25519 key (it signs the envelope, domain ``chat``); ``seq`` a number
the author makes strictly increasing (milliseconds of its wall clock, bumped by one when the
clock has not moved), so a line is shown once however often it is resent or replayed; ``name``
the author's name as it says it; ``text`` one printable line.

``ChatRoom`` checks what arrives and says who may speak. The node tells it who is in the game
(``set_members``: each known key with the name the lobby/setup gives it and a role, "player"
or "spectator") and which sources relay for others (the host's channel while in the lobby,
where joiners do not know each other's keys; every seat's channel once the setup is proposed,
for the spectators each seat serves; no other address, RV13-B #5). Checks, in this order, each failure dropped and
counted in ``stats`` by reason, never shown, never answered:

1. envelope and body schema (``malformed``), type CHAT, game id (``wrong_game``); none while
   our game id is the PROBE's zero one (``probe_game_id``: a joiner by code has no game yet, §N3.1);
2. the author is a member (``unknown_sender``) — or the message came over a relay channel
   (``relayed=True``), whose author is then shown with the name it gives;
3. ``seq`` greater than the last one accepted from that author (``replayed``);
4. the author's rate: a token bucket of ``CHAT_BURST`` lines refilled one per
   ``CHAT_REFILL_S`` seconds must hold a token (``flood``): nobody can flood the others'
   screens, and a flood costs no signature check;
5. verification budget: at most ``CHAT_SOURCE_VERIFY_RATE`` signature checks per second for
   the lines of one source (``via``: the address they came from), and ``CHAT_VERIFY_RATE`` for
   all together (``busy``): forged lines cost a bounded amount of CPU, and one source's
   forgeries cannot use up the checks the other sources' lines need;
6. the signature by ``pk`` (``bad_signature``); only now is the author's token taken (and a
   new author's bucket kept: at most ``RELAYED_AUTHORS_KEPT`` authors who are not members) and
   its ``seq`` remembered — except from a source that can only be the author (``author``: a
   spectator on the watch socket, whose channel is keyed with its own key): its line must name
   that key (``not_author``, checked first) and its token is taken before the signature check,
   so its own forgeries spend its own tokens; the lines of every spectator at one IP
   (``machine``) also share one bucket of the same size, taken with the author's
   (``machine_flood``; both taken with the budgets' tokens, once all are ready, RV13-B #6's
   twin: a ``busy`` drop spends neither); and only a place whose address answered the seat (``reached``) may
   speak at all (``unproven``, ``ChatRelay.receive_spectator``); a relayed line whose author is
   not a player (``channel``: a seat's spectators' lines, keys it subscribed as our own
   spectators too, RV13-B #4; the other joiners' lines the host relays to a joiner; what the
   seat a spectator follows relays, ``ui/watch.py``) is also charged to that channel's bucket of
   the same size (``relay_flood``), checked after (4) and taken with the budgets' tokens, once
   all three are ready (RV13-B #6): a relay minting a key per line speaks as one author (H149
   s13 #3), its own lines (``owner``) are not charged;
7. the text, without control characters, is not empty (``empty``).

A line passing them all is a ``ChatLine`` event, with the author's name cleaned
(``clean_name``: a member's from ``set_members``, a relayed author's from the line). Our own
lines go through the same bucket in ``say`` (``ChatLimited`` when it is empty), so an honest
peer is never counted as a flood.
Chat is never part of the game log (it is not signed game data: protocol.md §C6).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from . import const as C
from .identity import Identity
from .wire import MSG_CHAT, Chat, decode_chat, open_for_game, seal_message

PLAYER = "player"
SPECTATOR = "spectator"
#: Authors who are not members (relayed: the lobby's joiners for a joiner, spectators of other
#: seats in the game) whose token bucket and last ``seq`` are kept, the least recently first
#: seen forgotten beyond it (protocol.md §N9 'What does not'); members are always kept.
RELAYED_AUTHORS_KEPT = 64


class ChatLimited(Exception):
    """``say`` refused: our own rate limit (the others would drop the line as a flood)."""


@dataclass(frozen=True)
class ChatLine:
    """A chat line that passed every check: ``pk`` (author's Ed25519 key, 32 bytes),
    ``name`` (the member's name, or the name the line gives when relayed), ``role``
    ("player" | "spectator"), ``text`` (printable, ≤ 200 characters), ``seq``, ``raw`` (the
    envelope as received, for relaying)."""

    pk: bytes
    name: str
    role: str
    text: str
    seq: int
    raw: bytes


class _Bucket:
    """Token bucket: ``burst`` tokens, one more every ``refill`` seconds."""

    __slots__ = ("tokens", "at")

    def __init__(self, burst: float, now: float) -> None:
        self.tokens = burst
        self.at = now

    def ready(self, now: float, burst: float, per_s: float) -> bool:
        """Refill up to ``now``; True if a token is there (none taken)."""
        self.tokens = min(burst, self.tokens + max(0.0, now - self.at) * per_s)
        self.at = now
        return self.tokens >= 1.0

    def take(self, now: float, burst: float, per_s: float) -> bool:
        """Take a token if there is one."""
        if not self.ready(now, burst, per_s):
            return False
        self.tokens -= 1.0
        return True


def clean_text(text: str) -> str:
    """``text`` as one printable line: control characters (newlines included) removed,
    surrounding spaces stripped."""
    return "".join(ch for ch in text if ch.isprintable()).strip()


def clean_name(name: str) -> str:
    """A player's or spectator's ``name`` as it may be shown (protocol.md §C2.1 'Names'): every
    character that is not printable removed (Python ``str.isprintable``: Unicode categories
    Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs other than U+0020 — line breaks, tabs, bidi overrides),
    spaces at both ends stripped, at most ``MAX_NAME_LEN`` characters. Idempotent; may be ''.
    The one cleaning of names: our own in ``Lobby`` and ``ChatRoom``, the members' names a
    chat line is shown with, a STATUS's names; ``name_ok`` is the check at JOIN and PROPOSAL."""
    return clean_text(clean_text(name)[: C.MAX_NAME_LEN])


def shown_name(name: str) -> str:
    """A name as a screen shows it (protocol.md §C2.1 'Names'): ``clean_name(name)``, or '?' when
    nothing printable is left. For names from elsewhere: a STATUS's, chat members', relayed authors'."""
    return clean_name(name) or "?"


def name_ok(name: str) -> bool:
    """True if ``name`` is clean (``clean_name(name) == name``): what a JOIN's player and every
    seat of a proposed setup must carry (protocol.md §C2.1 'Names')."""
    return clean_name(name) == name


class ChatRoom:
    """Chat of one game for one peer (see the module doc). ``clock_ms``: wall clock in
    milliseconds for our ``seq`` (tests pass a fake one)."""

    def __init__(self, identity: Identity, game_id: bytes, name: str, now: float = 0.0,
                 clock_ms: Callable[[], int] | None = None) -> None:
        self.identity = identity
        self.game_id = game_id
        self.name = clean_name(name)
        self._clock_ms = clock_ms or (lambda: int(time.time() * 1000))
        self._seq = 0
        self._members: dict[bytes, tuple[str, str]] = {}
        self._last: dict[bytes, int] = {}
        self._buckets: dict[bytes, _Bucket] = {}
        self._relayed: dict[bytes, None] = {}  # non-member authors kept, oldest first
        self._verify = _Bucket(float(C.CHAT_VERIFY_RATE), now)
        self._verify_by: dict[object, _Bucket] = {}  # source -> its share of the checks
        self._by_machine: dict[object, _Bucket] = {}  # a spectator's IP -> its lines' bucket
        self._mine = _Bucket(float(C.CHAT_BURST), now)
        #: Counters: ``received``, ``shown``, ``sent`` and one per drop reason (module doc).
        self.stats: dict[str, int] = dict.fromkeys(("received", "shown", "sent"), 0)

    def set_game(self, game_id: bytes) -> None:
        """The game id once known (a joiner by code learns it from the host, protocol.md §N3.1)."""
        self.game_id = game_id

    def set_members(self, members: dict[bytes, tuple[str, str]]) -> None:
        """Who may speak: ``{Ed25519 key: (name, role)}`` (replaces the previous set). Lines
        already shown keep their ``seq`` memory, so a replay stays a replay. Each name is
        shown as ``clean_name`` makes it ('?' if nothing is left): a spectator's WATCH name with
        a line break cannot print a line that reads as a player's (H107 s11 #8)."""
        self._members = {pk: (shown_name(name), role) for pk, (name, role) in members.items()}

    def say(self, text: str, now: float) -> tuple[bytes, ChatLine]:
        """Our line: the CHAT envelope to send and the ChatLine to show ourselves. Raises
        ``ValueError`` for an empty or too long line, ``ChatLimited`` past our rate."""
        text = clean_text(text)
        if not text:
            raise ValueError("empty chat line")
        if len(text) > C.MAX_CHAT_TEXT:
            raise ValueError(f"chat line longer than {C.MAX_CHAT_TEXT} characters")
        if not self._mine.take(now, float(C.CHAT_BURST), 1.0 / C.CHAT_REFILL_S):
            raise ChatLimited("too many lines: wait a moment")
        self._seq = max(self._seq + 1, min(self._clock_ms(), C.MAX_CHAT_SEQ))
        raw = seal_message(self.identity, MSG_CHAT,
                           Chat(self.game_id, self.identity.public_key, self._seq, self.name, text))
        self.stats["sent"] += 1
        role = self._members.get(self.identity.public_key, (self.name, PLAYER))[1]
        return raw, ChatLine(self.identity.public_key, self.name, role, text, self._seq, raw)

    def receive(self, data: bytes, now: float, relayed: bool = False,
                relayed_role: str = PLAYER, *, via: object = None,
                author: bytes | None = None, machine: object = None,
                channel: object = None, owner: bytes | None = None) -> ChatLine | None:
        """Check one CHAT envelope (module doc, checks 1-7). ``relayed``: it came over a relay
        channel (the host's: joiners in the lobby; any seat's: spectators during the game), whose unknown
        authors get ``relayed_role``. ``via``: the source (address) it came from, for its share
        of the verification budget (None: the shared budget only). ``author``: the only key
        this source may speak with (a spectator's WATCH key), charged before the signature
        check. ``machine``: with ``author``, the source's host (IP): all its spectators' lines
        also share one bucket (``machine_flood``), charged with the author's. ``channel``: the
        seat's channel (address) a relayed line came over; a line of an author who is not a player
        also takes a token of that channel's bucket (``CHAT_BURST``, one per ``CHAT_REFILL_S``)
        before the signature check (``relay_flood``: the channel is keyed with that seat's key,
        what comes over it is that seat's, forged or not), but for ``owner``'s lines (the key of the
        peer whose channel it is: the host's, relaying to a joiner in the lobby). The channel's, the
        source's and the shared budgets are all looked at before a token of any is taken (a line
        dropped ``busy`` spends no channel token, RV13-B #6). Returns the line to show, or None (counted)."""
        self.stats["received"] += 1
        env, msg, bad = open_for_game(data, MSG_CHAT, decode_chat, C.MAX_STEP_MSG, self.game_id)
        if bad:
            return self._drop(bad)
        if self.game_id == C.PROBE_GAME_ID:  # probing: anyone at the host's address could sign it (H87)
            return self._drop("probe_game_id")
        if author is not None and msg.pk != author:
            return self._drop("not_author")
        member = self._members.get(msg.pk)
        if msg.pk == self.identity.public_key or (member is None and not relayed):
            return self._drop("unknown_sender")
        if msg.seq <= self._last.get(msg.pk, -1):
            return self._drop("replayed")
        # A new author's bucket is kept only once a token is taken from it (below): lines that
        # never verify, each naming a fresh key, leave nothing behind (H94).
        burst, refill, rate, src_rate = float(C.CHAT_BURST), 1.0 / C.CHAT_REFILL_S, float(C.CHAT_VERIFY_RATE), \
            float(C.CHAT_SOURCE_VERIFY_RATE)
        bucket = self._buckets.get(msg.pk) or _Bucket(burst, now)
        # An author past its rate costs no signature check (and cannot use up the budget the
        # others' lines need); its token is taken only once the line is proven its own, so a
        # forger cannot silence someone by spending their tokens.
        if not bucket.ready(now, burst, refill):
            return self._drop("flood")
        shared = None if author is None or machine is None else self._machine(machine, now)
        if shared is not None and not shared.ready(now, burst, refill):
            return self._drop("machine_flood")  # its machine's other places spoke (H114 s11b #11)
        # One relaying channel's authors who are not players (its spectators, keys it minted) speak as
        # one author (H149 s13 #3); the relaying peer's own lines (``owner``) are not charged.
        charged = None
        if channel is not None and msg.pk != owner and (member is None or member[1] != PLAYER):
            charged = self._machine(("seat", channel), now)
            if not charged.ready(now, burst, refill):
                return self._drop("relay_flood")
        # Both budgets are looked at before any token is taken: a line dropped ``busy`` spends none of
        # its channel's or its machine's (RV13-B #6: a busy spell drained them, and honest lines were dropped after).
        source = None if via is None else self._source(via, now)
        if source is not None and not source.ready(now, src_rate, src_rate) or \
                not self._verify.ready(now, rate, rate):
            return self._drop("busy")
        for b, full, per_s in ((shared, burst, refill), (charged, burst, refill), (source, src_rate, src_rate),
                               (self._verify, rate, rate)):
            if b is not None:
                b.take(now, full, per_s)
        if author is not None:  # the source is the author: its forgeries are its own lines
            bucket.take(now, burst, refill)
            self._keep(msg.pk, bucket)
        if not env.verify(msg.pk):
            return self._drop("bad_signature")
        if author is None:
            bucket.take(now, burst, refill)
            self._keep(msg.pk, bucket)
        self._last[msg.pk] = msg.seq
        text = clean_text(msg.text)
        if not text:
            return self._drop("empty")
        self.stats["shown"] += 1
        name, role = member if member is not None else (shown_name(msg.name), relayed_role)
        return ChatLine(msg.pk, name, role, text, msg.seq, env.raw)

    @property
    def authors_kept(self) -> int:
        """How many authors' buckets are kept: the members that spoke, plus at most
        ``RELAYED_AUTHORS_KEPT`` others."""
        return len(self._buckets)

    def _keep(self, pk: bytes, bucket: _Bucket) -> None:
        """Keep ``pk``'s ``bucket`` (a token was taken from it). An author who is not a member
        counts among the ``RELAYED_AUTHORS_KEPT`` last ones; beyond them the one first kept
        longest ago is forgotten, bucket and ``seq`` (a replay of its old lines shows again)."""
        if self._buckets.get(pk) is bucket:
            return
        self._buckets[pk] = bucket
        if pk in self._members:
            return
        self._relayed[pk] = None
        while len(self._relayed) > RELAYED_AUTHORS_KEPT:
            old = next(iter(self._relayed))
            del self._relayed[old]
            if old not in self._members:  # (it may have become one since)
                self._buckets.pop(old, None)
                self._last.pop(old, None)

    def _machine(self, host: object, now: float) -> _Bucket:
        """The bucket all spectators at IP ``host`` share (``CHAT_BURST``, one per
        ``CHAT_REFILL_S``); also, keyed ``("seat", address)``, the one of a seat's channel
        (``relay_flood``). At most 64 kept: past it, the buckets that are full again are
        forgotten (they would start full anyway), then the one made longest ago.

        Not ``ratelimit.bucket_in`` (least recently used forgotten first): under a flood of
        source IPs that order forgets a machine that spoke its fill while buckets full again
        are kept, and its next line starts a fresh burst; this order forgets only what would
        start full anyway until all 64 are below full (each IP here is a reached spectator
        place, so adding one is rare and the scan of 64 is cheap; ``bucket_in`` serves
        unproven sources, where a scan per new source would be the flood's lever).
        Test: tests/p2p/test_chat_memory.py."""
        b = self._by_machine.get(host)
        if b is None:
            if len(self._by_machine) >= 64:
                burst, per_s = float(C.CHAT_BURST), 1.0 / C.CHAT_REFILL_S
                for h in [h for h, x in self._by_machine.items() if x.ready(now, burst, per_s) and x.tokens >= burst]:
                    del self._by_machine[h]
                if len(self._by_machine) >= 64:
                    del self._by_machine[next(iter(self._by_machine))]
            b = self._by_machine[host] = _Bucket(float(C.CHAT_BURST), now)
        return b

    def _source(self, via: object, now: float) -> _Bucket:
        """``via``'s share of the signature checks: ``CHAT_SOURCE_VERIFY_RATE`` a second.
        Sources are the transport's channels (at most a few dozen); the oldest is forgotten
        past 64."""
        b = self._verify_by.get(via)
        if b is None:
            if len(self._verify_by) >= 64:
                del self._verify_by[next(iter(self._verify_by))]
            b = self._verify_by[via] = _Bucket(float(C.CHAT_SOURCE_VERIFY_RATE), now)
        return b

    def refuse(self, reason: str) -> None:
        """Count a CHAT refused before ``receive`` (``received`` and ``reason``, §N9): e.g. the
        relay's ``unproven``, a spectator place whose address never answered. Returns None."""
        self.stats["received"] += 1
        return self._drop(reason)

    def _drop(self, reason: str) -> None:
        # Dropped unanswered and never shown; only the count says it happened.
        self.stats[reason] = self.stats.get(reason, 0) + 1
        return None


class ChatRelay:
    """Our game's chat on a running node (protocol.md §N9, §N10): who is a member, where a line
    goes, what we relay. Sans-I/O: ``send(addr, raw)`` sends one datagram (a failure, such as a
    full buffer, is counted in ``room.stats["send_failed"]``, never raised).

    ``game``: the node, read through its public attributes only — ``lobby`` (``Lobby`` or None),
    ``session`` (``LockstepSession`` or None), ``peers`` (the other seats' endpoints once the
    game runs) and ``watch`` (``WatchService``: ``spectators()``, ``subscriber(addr)``,
    ``send_all(raw, exclude)``). ``host``: we opened the lobby (we relay the joiners' lines in
    the lobby); every seat relays its own spectators' lines to the seats. ``observer``: gets every ``ChatLine``
    shown. ``room``: the ``ChatRoom``, created once a lobby or session exists."""

    def __init__(self, identity: Identity, name: str, host: bool, game: object,
                 send: Callable[[tuple[str, int], bytes], None],
                 observer: Callable[[ChatLine], None] | None = None) -> None:
        self.identity = identity
        self.name = name
        self.host = host
        self.game = game
        self._send_raw = send
        self.observer = observer
        self.room: ChatRoom | None = None

    def current(self, now: float) -> ChatRoom | None:
        """Our ChatRoom with its members brought up to date: the setup's players (and our
        spectators, marked as such) once the game runs, the joined players in the host's lobby,
        nobody for a joiner (the host relays); None before any lobby or session."""
        lobby, session = self.game.lobby, self.game.session
        if lobby is None and session is None:
            return None
        if self.room is None:
            self.room = ChatRoom(self.identity, bytes(16), self.name, now)
        setup = session.setup if session is not None else lobby.setup
        if setup is not None:
            self.room.set_game(setup.game_id)
            watching = {pk: (name, SPECTATOR) for pk, name in self.game.watch.spectators().items()}
            self.room.set_members(watching | {p.public_key: (p.name, PLAYER) for p in setup.players})
        else:
            self.room.set_game(lobby.game_id)
            self.room.set_members({p.public_key: (p.name, PLAYER) for p, _ in lobby.members()})
        return self.room

    def targets(self, exclude: object = None) -> list[tuple[str, int]]:
        """Where a chat line goes: every other seat once the game runs; in the lobby the host
        sends to every joined player, a joiner to the host (who relays)."""
        lobby, session = self.game.lobby, self.game.session
        if session is not None or (lobby is not None and lobby.setup is not None):
            targets = list(self.game.peers) or \
                [a for i, a in enumerate(lobby.endpoints if lobby is not None else ()) if i != lobby.my_seat]
        elif self.host:
            targets = [a for p, a in lobby.members() if p.public_key != self.identity.public_key]
        else:
            targets = [lobby.host_address]
        return [(str(a[0]), int(a[1])) for a in targets if a is not None and tuple(a) != exclude]

    def receive(self, addr: tuple[str, int], payload: bytes, now: float) -> None:
        """A CHAT from the game's socket: show it; the host relays a joiner's lobby line to the
        other joiners; every line goes to our spectators too."""
        room = self.current(now)
        if room is None:
            return
        lobby = self.game.lobby
        in_lobby = self.game.session is None and (lobby is None or lobby.setup is None)
        # In the lobby the host relays the joiners' lines. Once the setup is proposed any seat relays
        # its own spectators' lines (§N10), and only a seat's address relays: while the setup is
        # signed the host still takes strangers' plain channels (RV13-B #5). An author who is not a
        # player, relayed, is charged to the relaying channel too (§N9 (6) ``relay_flood``: one
        # relay speaks as one author), but for the relay's own lines (the host's, at a joiner).
        addr = (str(addr[0]), int(addr[1]))
        owner = None
        if in_lobby:
            host = None if self.host or lobby is None else lobby.host_address
            relayed = host is not None and addr == (str(host[0]), int(host[1]))
            owner = lobby.admission.host_public_key if relayed else None
        else:
            relayed = addr in self.targets()
        line = room.receive(payload, now, relayed=relayed, relayed_role=PLAYER if in_lobby else SPECTATOR,
                            via=addr, channel=addr, owner=owner)
        if line is None:
            return
        if in_lobby and self.host:  # joiners do not know each other: we relay
            for a in self.targets(exclude=addr):
                self._send(a, line.raw)
        self.game.watch.send_all(line.raw)
        if self.observer is not None:
            self.observer(line)

    def receive_spectator(self, addr: tuple[str, int], payload: bytes, now: float) -> None:
        """A CHAT from our watch socket. Only a subscribed spectator whose address answered us
        (``Subscription.reached``; else ``unproven``) may speak, with its WATCH key, within its
        key's and its machine's (source IP's) buckets; its line goes to every seat and our other
        spectators, whichever seat we are (the others pass it to their own spectators,
        protocol.md §N9/§N10)."""
        sub = self.game.watch.subscriber(addr)
        room = self.current(now)
        if sub is None or room is None:
            return
        if not sub.reached:  # a spoofed source never proves its address (H114 s11b #11)
            return room.refuse("unproven")
        # Its WATCH key only, checked before anything else, and charged before the signature
        # check: a spectator's forged lines spend its own tokens, not everyone's checks (H37).
        line = room.receive(payload, now, via=addr, author=sub.pk, machine=addr[0])
        if line is None:
            return
        for a in self.targets():  # any serving seat, not the host only (issue 11): a spectator
            self._send(a, line.raw)  # may be following whichever seat it found or failed over to
        self.game.watch.send_all(line.raw, exclude=addr)
        if self.observer is not None:
            self.observer(line)

    def say(self, text: str, now: float) -> ChatLine:
        """Send one line of ours to the others and our spectators (protocol.md §N9). Raises
        ``ValueError`` (empty, too long, no lobby yet) or ``ChatLimited``."""
        room = self.current(now)
        if room is None:
            raise ValueError("no game to chat in yet")
        raw, line = room.say(text, now)
        for a in self.targets():
            self._send(a, raw)
        self.game.watch.send_all(raw)
        return line

    def _send(self, addr: tuple[str, int], raw: bytes) -> None:
        try:
            self._send_raw(addr, raw)
        except Exception:  # noqa: BLE001 - a full send buffer to one peer must not stop the chat
            self.room.stats["send_failed"] = self.room.stats.get("send_failed", 0) + 1


def is_chat(data: bytes) -> bool:
    """True if ``data`` looks like a CHAT envelope (first two bytes), for the node's routing."""
    return data[:2] == CHAT_TAG


#: First two bytes of a CHAT envelope: msgpack fixarray(3), then the type 36 (positive fixint).
CHAT_TAG = bytes([0x93, MSG_CHAT])

__all__ = ["ChatRoom", "ChatRelay", "ChatLine", "ChatLimited", "PLAYER", "RELAYED_AUTHORS_KEPT", "SPECTATOR",
           "clean_text", "clean_name", "shown_name", "name_ok", "is_chat", "CHAT_TAG"]
