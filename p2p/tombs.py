"""The resume points of forgotten channels, by address (protocol.md §N2.6 "Strangers", H86): what
``Endpoint.forget`` keeps of a channel whose peer proved its address or that the owner trusts, so
that a later channel to the same peer goes on from it (``Channel.resume``). Sans-I/O, no clock.
"""

from __future__ import annotations

from .channel_auth import PairKeys
from .datagram import tag_ok
from .resume_point import ResumePoint
from .transport import Addr

__all__ = ["Tombs"]


class Tombs:
    """Address -> the resume point of the channel last forgotten there (``by_addr``, oldest first), at most
    ``limit`` (the oldest dropped first: a spoofed source never proves its address, so its channels cannot
    push the others' points out)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.by_addr: dict[Addr, ResumePoint] = {}

    def __len__(self) -> int:
        return len(self.by_addr)

    def bury(self, addr: Addr, point: ResumePoint | None) -> None:
        """A channel to ``addr`` was forgotten with ``point``: it replaces the point kept there, if any, as the
        newest. None (nothing to keep: a blind spoofer's channel) leaves the point kept there: it is another
        peer's (a keyed point is taken only with its own key, ``take``; a plain one by the next channel opened
        there), e.g. the real peer's whose channel an introduction displaced (H144)."""
        if point is None:
            return
        tombs = self.by_addr
        tombs.pop(addr, None)
        tombs[addr] = point
        if len(tombs) > self.limit:
            del tombs[next(iter(tombs))]

    def take(self, addr: Addr, keys: PairKeys | None) -> ResumePoint | None:
        """The point kept at ``addr`` for a new channel there keyed with ``keys`` (None: plain), removed: a point
        of a plain channel (its stream may be keyed in place, §N2.2) or of the same key. None (and the point
        stays) for another key or none kept."""
        tomb = self.by_addr.get(addr)
        if tomb is not None and (tomb.keys is None or (keys is not None and keys.peer_xk == tomb.keys.peer_xk)):
            del self.by_addr[addr]
            return tomb
        return None

    def remembered(self, data: bytes, addr: Addr) -> PairKeys | None:
        """An authenticated datagram from ``addr``, which has no channel: the keys of the keyed channel forgotten
        there if its point is kept and ``data``'s MAC checks with them, else None."""
        tomb = self.by_addr.get(addr)
        keys = None if tomb is None else tomb.keys
        return keys if keys is not None and tag_ok(keys.recv, data) else None
