"""Channels (keyed, or plain before heard) that introductions displaced at untrusted addresses, kept aside until
the address's channel is heard (protocol.md §N2.1 step 3 "Every replaced channel is kept aside"; sans-I/O, no clock).

An introduction (a MACed datagram carrying its sender's key) replaces the keyed channel of an untrusted address
whose peer was not heard there in the last 5 s, and so a plain one (instead of keying it in place: a joiner by
code's PROBE opens a plain channel, H134). A new peer is heard only one round trip after its first datagram,
so a forged introduction in that round trip would cut it off for good (H128 s12b #1). ``Endpoint`` keeps every
channel so replaced here (H131 kept one; two forged introductions of two keys back to back dropped the real one,
H127 REVIEW #7), swaps back whichever passes the MAC of a datagram the current channel's fails, gives back the one
of a key the owner pins there (``take``), and drops them all once the current one is heard or the address trusted or
forgotten. A channel released here goes through ``on_release``: the endpoint keeps its resume point as for a
forgotten channel (RV12-B #6, H144).
"""

from __future__ import annotations

from typing import Callable

from .channel_auth import INTRO_ADDR_BURST
from .datagram import tag_ok
from .transport import MAGIC, Addr, Channel

_PLAIN_BYTE = bytes([MAGIC])

__all__ = ["Displaced"]


class Displaced:
    """Address -> the channels (keyed, or plain) introductions displaced there, oldest first (``by_addr``).

    At most ``limit`` per address (default ``INTRO_ADDR_BURST``: the introductions one source address may have
    back to back, §N2.6, so a spoofer must wait for its bucket to refill, 1/``INTRO_ADDR_RATE`` s each, to push
    out the oldest, while a live peer's next datagram swaps its own back within a round trip); the oldest is
    released past it. Memory: at most ``limit`` channels per live channel, each with its receive buffers counted
    in its budget until released. ``on_release(addr, ch)`` releases one (the ``Endpoint``'s releases it and keeps
    its resume point, ``Endpoint._bury``)."""

    def __init__(self, on_release: Callable[[Addr, Channel], None], limit: int = INTRO_ADDR_BURST) -> None:
        self.limit = limit
        self.on_release = on_release
        #: Address -> displaced channels, oldest first (never an empty list). The endpoint's hot path tests this
        #: dict itself (empty almost always).
        self.by_addr: dict[Addr, list[Channel]] = {}

    def keep(self, addr: Addr, ch: Channel) -> None:
        """Keep ``ch`` (just displaced at ``addr``) aside; release the oldest past ``limit``."""
        kept = self.by_addr.setdefault(addr, [])
        kept.append(ch)
        if len(kept) > self.limit:
            self.on_release(addr, kept.pop(0))

    def restore(self, addr: Addr) -> Channel:
        """Take back the channel ``keep`` put aside last at ``addr`` (its replacement could not be opened).
        Raises KeyError if none."""
        kept = self.by_addr[addr]
        ch = kept.pop()
        if not kept:
            del self.by_addr[addr]
        return ch

    def swap(self, addr: Addr, data: bytes, current: Channel) -> Channel | None:
        """The displaced channel of ``addr`` that takes ``data`` where ``current`` does not, put in ``current``'s
        place (``current`` goes aside where it was): for a plain datagram (``MAGIC``) a plain one when ``current`` is
        keyed, else one whose key passes ``data``'s MAC when ``current`` is plain or its MAC fails. None (nothing
        changes) otherwise. A plain datagram is anyone's: it only puts back the plain channel as it was before the
        introduction, and the keyed one's next MACed datagram swaps that back again."""
        kept = self.by_addr[addr]
        if data[:1] == _PLAIN_BYTE:
            if current.keys is None:
                return None
            for i, old in enumerate(kept):
                if old.keys is None:
                    kept[i] = current
                    return old
            return None
        if current.keys is not None and tag_ok(current.keys.recv, data):
            return None
        for i, old in enumerate(kept):
            if old.keys is not None and tag_ok(old.keys.recv, data):
                kept[i] = current
                return old
        return None

    def take(self, addr: Addr, peer_xk: bytes) -> Channel | None:
        """The channel keyed with ``peer_xk`` displaced at ``addr`` (the owner pins that key there), removed; None
        if none."""
        kept = self.by_addr.get(addr, ())
        for i, ch in enumerate(kept):
            if ch.keys is not None and ch.keys.peer_xk == peer_xk:
                del kept[i]
                if not kept:
                    del self.by_addr[addr]
                return ch
        return None

    def drop(self, addr: Addr) -> None:
        """Release every channel displaced at ``addr`` (heard, trusted or forgotten), if any (``on_release``)."""
        for ch in self.by_addr.pop(addr, ()):
            self.on_release(addr, ch)
