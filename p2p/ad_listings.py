"""Which adverts heard on DNS-SD a reader lists, and which of them are *contested* (protocol.md §N3
"Contested game ids"): the bookkeeping of ``p2p.discovery.Discovery``, without zeroconf (the clock is
injected, so the rules run in tests on a virtual one).

mDNS is not authenticated: anyone on the LAN can send a TXT under a listed game's instance name, an
advert of its own naming another game's id, or a goodbye for any name. ``Listings`` therefore keeps

* one listing per key (``pk`` in hex, else ``fp``) heard under an instance name, at most
  ``KEYS_PER_NAME`` keys per name and ``MAX_NAMES`` names at once (more are not listed: counted
  ``crowded``): a flood of made-up names or keys costs a reader a bounded list;
* a *memory* per instance name and per game id: the first key heard for it (its *owner*), which
  keeps its place while it is listed and for ``HOLD_S`` after its last listing went (a goodbye), and
  then gives it to the listed key heard first; a memory with nothing listed waits ``HOLD_S`` in an
  LRU of at most ``MAX_HELD`` (RV13-A #1, session 13: the keys used to be forgotten at the goodbye,
  which anyone can send, so a forged goodbye for the host's name and then the forger's own TXT under
  it, or a clone advert of its game id under another name, listed the forger alone, and a join by
  game id picked it).

An advert is contested when another listed advert names its game id with another key, when its name
carried two keys since it was listed, or when its key is not the owner of its name or game id while
that owner is listed or within its hold. Only the first key counts, not every key heard: a forger
heard under the name before a goodbye would otherwise come back uncontested. A memory dropped from
the LRU before its hold ended (a flood of goodbyes) opens a window until that hold would have ended:
a name or game id first heard in it has no owner, so every key is contested for it until then, and
after: until one key is listed alone and ``HOLD_S`` has passed since any other key's last listing went
(the host's key, heard again in the window, is one of them: a flood is denial, never a takeover).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field

from .ad_record import GameAd

#: Keys listed per instance name (§N3 "Contested game ids"): a TXT with yet another key is not listed
#: (the name is contested already), so a flood of keys under one name costs nothing.
KEYS_PER_NAME = 4
#: Instance names listed at once; a TXT under one more new name is not listed (counted ``crowded``).
MAX_NAMES = 256
#: How long the first key heard for a name or game id is remembered after its last listing went (s).
HOLD_S = 300.0
#: Names and game ids remembered after their goodbye (the oldest goodbye is dropped first).
MAX_HELD = 1024


def ad_key(ad: GameAd) -> str:
    """The key an advert claims, as text: ``pk`` in hex, else ``fp`` (an older advertiser)."""
    return ad.public_key.hex() if ad.public_key is not None else ad.fingerprint


def keys_by_game(ads: Iterable[GameAd]) -> dict[bytes, set[str]]:
    """Game id -> the keys (``ad_key``) of the adverts ``ads`` naming it."""
    keys: dict[bytes, set[str]] = {}
    for ad in ads:
        keys.setdefault(ad.game_id, set()).add(ad_key(ad))
    return keys


def claimed_by_another(keys: dict[bytes, set[str]], ad: GameAd) -> bool:
    """True if ``keys`` (``keys_by_game`` of the listed adverts) holds ``ad``'s game id under a key
    other than ``ad``'s: the game-id half of the contest (protocol.md §N3 "Contested game ids")."""
    key = ad_key(ad)
    return any(k != key for k in keys.get(ad.game_id, ()))


#: Keys whose first listing a memory keeps in order (more: counted as heard last, never first).
_SINCE_KEYS = 16


@dataclass
class _Memory:
    """What a reader remembers of one instance name or game id: ``owner``, the first key heard for it
    (None: first heard while a flood had pushed older memories out, so unknown); ``until``, the end of
    the owner's hold (monotonic s): ``HOLD_S`` after its last listing went; ``live``, key -> listings in
    ``games`` now; ``since``, key -> order of its first listing (the oldest listed key takes over from an
    owner whose hold ended)."""

    owner: str | None
    until: float = -math.inf
    live: dict[str, int] = field(default_factory=dict)
    since: dict[str, int] = field(default_factory=dict)

    def settle(self, now: float) -> None:
        """An owner unlisted past its hold gives way to the listed key heard first. An unknown owner
        (a flood's window) gives way only to a key listed alone once ``until`` passed: the window's end
        and ``HOLD_S`` after any key's last listing went (``Listings._release``), so a key heard in the
        window never settles while the key the reader forgot (the host's, heard again) was unlisted for
        less than ``HOLD_S`` (RV14-A #2: it did, a takeover)."""
        if not self.live or self.owner in self.live or now < self.until:
            return
        if self.owner is not None:
            self.owner = min(self.live, key=lambda k: self.since.get(k, math.inf))
        elif len(self.live) == 1:
            self.owner = next(iter(self.live))

    def contests(self, key: str, now: float) -> bool:
        """True if ``key`` is not the owner while the owner is listed or within its hold."""
        self.settle(now)
        return key != self.owner and (self.owner in self.live or now < self.until)


class Listings:
    """The adverts a reader lists (``games``: listing -> GameAd) and the contest rule.

    A listing is the instance name for the first key heard under it and ``"<name>#<key>"`` for each
    other key. ``put(name, ad)`` lists an advert just read from a TXT of ``name``; ``goodbye(name)``
    unlists all of that name's; ``contested(ad)`` tells whether a join by game id may pick ``ad``.
    ``clock``: monotonic seconds. Source: protocol.md §N3 "Contested game ids".
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, hold_s: float = HOLD_S,
                 max_names: int = MAX_NAMES, max_held: int = MAX_HELD) -> None:
        self.games: dict[str, GameAd] = {}
        self.crowded = 0  # TXTs not listed: a key past KEYS_PER_NAME, or a name past MAX_NAMES
        self.evicted = 0  # memories dropped before their hold ended (more than MAX_HELD goodbyes within it)
        self._clock, self._hold_s, self._max_names, self._max_held = clock, hold_s, max_names, max_held
        self._heard: dict[str, dict[str, str]] = {}  # listed name -> {key: its listing in games}
        self._lower: dict[str, set[str]] = {}  # name.lower() -> the listed names spelt so
        self._name_of: dict[str, str] = {}  # listing -> its instance name
        self._mem: dict[Hashable, _Memory] = {}  # ("name", name.lower()) / ("gid", game id) -> memory
        self._held: OrderedDict[Hashable, None] = OrderedDict()  # memories with nothing listed, oldest first
        self._unknown_until = -math.inf  # end of the window a flood of goodbyes opened
        self._seq = 0  # order of first listings (``_Memory.since``)
        #: Built on the first question after a change (RV13-C #2): game id -> live keys, and each listed
        #: advert -> the lowercased names it is listed under, plus the names whose listings carry two keys.
        self._contest: tuple[dict[bytes, set[str]], dict[GameAd, list[str]], set[str]] | None = None

    def names(self, name: str) -> set[str]:
        """The listed instance names equal to ``name`` but for case (DNS names are case-insensitive),
        in O(1): a TXT heard under one of them is that listing's latest."""
        return self._lower.get(name.lower(), set())

    def put(self, name: str, ad: GameAd) -> str | None:
        """List ``ad``, just read from a TXT of instance ``name``: returns its listing (the key's own,
        a new one for a key not heard under ``name`` since it was listed), or None when it is not
        listed: a key past ``KEYS_PER_NAME`` under ``name`` or a new name past ``MAX_NAMES`` (counted
        ``crowded``). Keys stay until the name's goodbye: the owner's later TXTs update its own
        listing and never undo a contest."""
        key = ad_key(ad)
        heard = self._heard.get(name)
        if heard is None:
            if len(self._heard) >= self._max_names:
                self.crowded += 1
                return None
            heard = self._heard[name] = {}
            self._lower.setdefault(name.lower(), set()).add(name)
        listing = heard.get(key)
        if listing is None:
            if len(heard) >= KEYS_PER_NAME:
                self.crowded += 1
                return None
            listing = heard[key] = f"{name}#{key}" if heard else name
            self._name_of[listing] = name
            self._take(("name", name.lower()), key)
        old = self.games.get(listing)
        if old is None or old.game_id != ad.game_id:
            self._take(("gid", ad.game_id), key)
            if old is not None:
                self._release(("gid", old.game_id), key)
        self.games[listing] = ad
        self._contest = None
        return listing

    def goodbye(self, name: str) -> list[str]:
        """A goodbye for instance ``name`` (PTR with TTL 0, or its expiry): unlist every listing of
        it and return them; the memories of the name and of the game ids it listed are held for
        ``HOLD_S`` from now."""
        heard = self._heard.pop(name, None)
        if heard is None:
            return []
        spelt = self._lower[name.lower()]
        spelt.discard(name)
        if not spelt:
            del self._lower[name.lower()]
        gone = []
        for key, listing in heard.items():
            self._name_of.pop(listing, None)
            ad = self.games.pop(listing, None)
            if ad is not None:
                self._release(("gid", ad.game_id), key)
                gone.append(listing)
            self._release(("name", name.lower()), key)
        self._contest = None
        return gone

    def _take(self, mk: Hashable, key: str) -> None:
        """One more listing with ``key`` under memory ``mk`` (a name or a game id); a memory whose hold
        ended is forgotten first; an owner past its hold gives way before ``key`` is counted."""
        now = self._clock()
        self._expire(now)
        m = self._mem.get(mk)
        if m is None:
            unknown = now < self._unknown_until
            m = self._mem[mk] = _Memory(None if unknown else key, self._unknown_until if unknown else -math.inf)
        if not m.live:
            self._held.pop(mk, None)
        m.settle(now)
        m.live[key] = m.live.get(key, 0) + 1
        if key not in m.since and len(m.since) < _SINCE_KEYS:
            self._seq += 1
            m.since[key] = self._seq

    def _release(self, mk: Hashable, key: str) -> None:
        """One listing with ``key`` less under memory ``mk``. The owner's last one starts its hold
        (``HOLD_S``); with nothing listed, the memory waits in an LRU of ``MAX_HELD`` (a flood of
        goodbyes drops the oldest: what it held is unknown until its hold would have ended)."""
        m = self._mem[mk]
        now = self._clock()
        m.settle(now)
        m.live[key] -= 1
        if m.live[key]:
            return
        del m.live[key]
        if key == m.owner:
            m.until = now + self._hold_s
        elif m.owner is None:  # unknown owner: any key may be the forgotten one (``settle``)
            m.until = max(m.until, now + self._hold_s)
        if m.live:
            return
        self._held[mk] = None
        self._expire(now)
        while len(self._held) > self._max_held:
            old, _ = self._held.popitem(last=False)
            dropped = self._mem.pop(old)
            if dropped.until > now:
                self.evicted += 1
                self._unknown_until = max(self._unknown_until, dropped.until)

    def _expire(self, now: float) -> None:
        """Forget the held memories whose hold ended (the oldest goodbyes are first in ``_held``)."""
        while self._held:
            mk = next(iter(self._held))
            if self._mem[mk].until > now:
                return  # (an entry behind it may have ended: it goes when it reaches the front)
            del self._held[mk]
            del self._mem[mk]

    def _table(self) -> tuple[dict[bytes, set[str]], dict[GameAd, list[str]], set[str]]:
        if self._contest is None:
            keys = keys_by_game(self.games.values())
            where: dict[GameAd, list[str]] = {}
            for listing, ad in self.games.items():  # (one put in ``games`` directly, as a test does, is its own name)
                where.setdefault(ad, []).append(self._name_of.get(listing, listing).lower())
            shared = {name.lower() for name, heard in self._heard.items() if len(heard) > 1}
            self._contest = keys, where, shared
        return self._contest

    def _contests(self, mk: Hashable, key: str, now: float) -> bool:
        m = self._mem.get(mk)
        return m is not None and m.contests(key, now)

    def contested(self, ad: GameAd) -> bool:
        """True if a join by game id must not pick ``ad``: another listed advert names its game id with
        another key (``pk``, else ``fp``); or it is listed under an instance name whose TXTs carried two
        keys since the name was listed; or its key is not the owner (the first key heard) of its name
        or game id while that owner is listed or within ``HOLD_S`` after its last listing went, which
        a goodbye anyone can forge makes (or the owner is unknown: a flood's window). O(1) per
        question, O(n) per change.
        Source: protocol.md §N3 "Contested game ids"."""
        keys, where, shared = self._table()
        if claimed_by_another(keys, ad):
            return True
        names = where.get(ad, ())
        if any(n in shared for n in names):
            return True
        now, key = self._clock(), ad_key(ad)
        return self._contests(("gid", ad.game_id), key, now) or any(
            self._contests(("name", n), key, now) for n in names)

    @property
    def memories(self) -> int:
        """Memories of names and game ids held now (live, or within their hold after a goodbye), not
        listings (``len(games)``): bounded by ``MAX_NAMES`` x (1 + KEYS_PER_NAME) live ones plus
        ``MAX_HELD``."""
        return len(self._mem)
