"""Return routability of one transport channel (protocol.md §N2.6 "Reflection").

A channel opened by the peer's datagram (not by us choosing the address) is *unconfirmed*: the
source address may be spoofed, and whatever we send there would go to a victim. Until the peer
proves it receives at that address, a ``ReturnRoute`` bounds what the channel sends to
``UNCONFIRMED_FACTOR`` x the bytes received from it, and the channel gives up re-sending
(*dormant*: sends nothing, no timer) at the timeout after ``UNCONFIRMED_RESENDS`` resends since
the address last sent anything. The proof is a RESPONSE echoing the random nonce of a CHALLENGE
sent to the address (an ack does not confirm: its numbers are predictable); the owner may also
confirm it once the game started (``Endpoint.restrict``; trust in a lobby peer does not, H77).
The channel asks and tells; this object only counts.
"""

from __future__ import annotations

from .datagram import Addr

__all__ = ["ReturnRoute", "UNCONFIRMED_FACTOR", "UNCONFIRMED_RESENDS"]

UNCONFIRMED_FACTOR = 3
"""A channel opened by the peer's datagram sends at most this many times the bytes it received
from that address until the peer echoed the nonce of a CHALLENGE sent there (protocol.md §N2.6: a spoofed
source cannot turn the channel into a reflector)."""
UNCONFIRMED_RESENDS = 3
"""Retransmission timeouts after which such an unconfirmed channel stops re-sending
(``unconfirmed_gaveup``) until the address sends again."""


class ReturnRoute:
    """Send bound of one channel (§N2.6). ``confirmed``: the peer proved it receives at the
    address (or we chose it); ``dormant``: unconfirmed and gave up re-sending. Bytes received
    (``rx``) and sent (``tx``) count only while unconfirmed. ``stats``: the channel's counters."""

    __slots__ = ("stats", "confirmed", "dormant", "rx", "tx", "void_timeouts", "withheld")

    def __init__(self, stats: dict[str, int], confirmed: bool) -> None:
        self.stats = stats
        self.confirmed = confirmed
        self.dormant = False
        self.rx = 0
        self.tx = 0
        self.void_timeouts = 0  # RTO timeouts while unconfirmed since the address last spoke
        self.withheld = False  # a datagram did not fit: resent at once when confirmed (H77)

    def heard(self, size: int) -> bool:
        """The unconfirmed address sent an accepted datagram of ``size`` bytes: the bound
        rises. True if the channel was dormant (the caller resends its window: the address is
        there again)."""
        self.rx += size
        self.void_timeouts = 0
        woke = self.dormant
        self.dormant = False
        return woke

    def confirm(self) -> bool:
        """The peer echoed our nonce, or the game started (``Endpoint.restrict``): lift the bound.
        True if the channel was dormant or withheld a datagram (the caller resends its window
        now rather than at the withheld datagram's timeout)."""
        self.confirmed = True
        withheld, self.withheld = self.withheld, False
        return self.heard(0) if self.dormant else withheld

    def timed_out(self) -> bool:
        """Datagrams of an unconfirmed channel timed out: True if it gives up now
        (``unconfirmed_gaveup``; dormant until the address speaks)."""
        self.void_timeouts += 1
        if self.void_timeouts > UNCONFIRMED_RESENDS:
            self.dormant = True
            self.stats["unconfirmed_gaveup"] += 1
            return True
        return False

    def bound(self, out: list[tuple[bytes, Addr]], waiting: bool) -> list[tuple[bytes, Addr]]:
        """Keep, in order, the datagrams of ``out`` that fit in ``UNCONFIRMED_FACTOR`` x the
        bytes received minus the bytes already sent; the others are withheld
        (``unconfirmed_withheld``) as if lost on the way: in flight, they time out and are
        resent within the bound. While our data is in flight (``waiting``) no pure ack is sent:
        a real peer that hears nothing re-sends, raising the bound, until a data datagram
        (carrying the ack) fits."""
        room = UNCONFIRMED_FACTOR * self.rx - self.tx
        kept = []
        for item in out:
            size = len(item[0])
            if waiting and item[0][1] == 0:  # HEADER's flags byte (offset 1): 0 = a pure ack
                continue
            if size <= room:
                kept.append(item)
                room -= size
                self.tx += size
        if len(kept) < len(out):
            self.stats["unconfirmed_withheld"] += len(out) - len(kept)
            self.withheld = True
        return kept
