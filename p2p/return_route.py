"""Return routability of one transport channel (protocol.md §N2.6 "Reflection").

A channel opened by the peer's datagram (not by us choosing the address) is *unconfirmed*: the
source address may be spoofed, and whatever we send there would go to a victim. Until the peer
proves it receives at that address, a ``ReturnRoute`` bounds what the channel sends to
``UNCONFIRMED_FACTOR`` x the bytes received from it, and the channel gives up re-sending
(*dormant*: sends nothing, no timer) at the timeout after ``UNCONFIRMED_RESENDS`` resends since
the address last sent anything. The proof is a RESPONSE echoing the random nonce of a CHALLENGE
sent to the address (an ack does not confirm: its numbers are predictable). A channel the owner
opened (it chose the address) starts confirmed but not *proven*; when the game starts
(``Endpoint.restrict``) every seat channel not proven is bounded again (``demand``) until a
RESPONSE comes: a seat's address may be a victim's, spoofed by a seat-holder that seated a ghost
key there (§N2.6 "Game started"; H82). Trust in a lobby peer does not confirm (H77).
The channel asks and tells; this object only counts.
"""

from __future__ import annotations

from .channel_auth import TAG_LEN, XKEY_LEN
from .datagram import HEADER_SIZE, Addr

__all__ = ["KNOCKS", "KNOCK_RESERVE", "PIN_ALLOWANCE", "ReturnRoute", "UNCONFIRMED_FACTOR", "UNCONFIRMED_RESENDS"]

UNCONFIRMED_FACTOR = 3
"""A channel opened by the peer's datagram sends at most this many times the bytes it received
from that address until the peer echoed the nonce of a CHALLENGE sent there (protocol.md §N2.6: a spoofed
source cannot turn the channel into a reflector)."""
UNCONFIRMED_RESENDS = 3
"""Retransmission timeouts after which such an unconfirmed channel stops re-sending
(``unconfirmed_gaveup``) until the address sends again."""
PIN_ALLOWANCE = 2000
"""Bytes a seat channel a resumed peer opened (it pins every seat on a fresh endpoint, before it
heard any) may send before its peer spoke: its first flight (a catch-up request, its last step);
then the 3x bound of what came back (protocol.md §N2.6 "Game started"). ``Endpoint.pin`` grants
it per seat key: once for the key's first pin after the start, once more shared by its moves."""
KNOCKS = 10
"""A lobby pin's channel not yet proven sends at most this many *knocks* (one pure ack
each, 70 B in the introduction form): the first ``KNOCKS_EAGER`` at its retransmission timeouts
(from the first: backing off 0.05 s to 1 s), then ``KNOCK_GAP_S`` s apart (~25 s in all, most of
a setup round's ``SETUP_TIMEOUT``; H102: knocks 0.25-0.5-1-2-4 s apart made lossy niente
lobbies start ~2x later than before the pins, 40% loss): its first flight may have been lost
(or its RESPONSE, and the peer's own channel gave up), and the peer's channel, pinned too, must
hear something before it may send more or challenge (protocol.md §N2.6 "Lobby pins"; H94's break
of b9052dd). They come out of ``PIN_ALLOWANCE``: ``KNOCK_RESERVE`` bytes of it are kept for them
(the rest, 1,300 B, still holds one full datagram of ``MAX_DATAGRAM`` = 1,200 B)."""
KNOCKS_EAGER = 4
"""How many of the ``KNOCKS`` go at the channel's retransmission timeouts, from the first."""
KNOCK_GAP_S = 4.0
"""Seconds between the knocks after the first ``KNOCKS_EAGER``."""
KNOCK_SIZE = HEADER_SIZE + XKEY_LEN + TAG_LEN
"""Bytes of one knock: a pure ack in the introduction form (header, our X25519 key, tag): 70."""
KNOCK_RESERVE = KNOCKS * KNOCK_SIZE
"""Bytes of a lobby pin's ``PIN_ALLOWANCE`` kept off its data room for its knocks: 700."""


class ReturnRoute:
    """Send bound of one channel (§N2.6). ``confirmed``: no bound (the peer proved it receives
    at the address, or we chose it and the game has not started); ``proven``: the peer echoed a
    nonce sent to the address (for good: ``demand`` changes nothing then); ``seat``: bounded
    since the game started (``demand``), it never gives up; ``dormant``: unconfirmed and gave up
    re-sending. Bytes received (``rx``) count until the route is proven,
    so a bound that starts late (``demand``) allows ``UNCONFIRMED_FACTOR`` x what the address
    sent over the channel's life; bytes sent (``tx``) count while the bound applies.
    ``stats``: the channel's counters."""

    __slots__ = ("stats", "confirmed", "proven", "seat", "lobby", "dormant", "rx", "tx", "allowance",
                 "void_timeouts", "withheld", "knock_due", "knocks", "knock_at")

    def __init__(self, stats: dict[str, int], confirmed: bool) -> None:
        self.stats = stats
        self.confirmed = confirmed
        self.proven = False
        self.seat = False
        self.lobby = False  # bounded by a lobby pin (``demand(lobby=True)``): the start counts anew
        self.dormant = False
        self.rx = 0
        self.tx = 0
        self.allowance = 0  # bytes it may send beyond the factor (``demand``)
        self.void_timeouts = 0  # RTO timeouts while unconfirmed since the address last spoke
        self.withheld = False  # a datagram did not fit: resent at once when confirmed (H77)
        self.knock_due = False  # a lobby pin not proven: one pure ack goes beyond the bound
        self.knocks = 0
        self.knock_at: float | None = None

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
        """The peer echoed a nonce sent to the address: the route is proven, lift the bound.
        True if the channel was dormant or withheld a datagram (the caller resends its window
        now rather than at the withheld datagram's timeout)."""
        self.confirmed = self.proven = True
        withheld, self.withheld = self.withheld, False
        return self.heard(0) if self.dormant else withheld

    def demand(self, allowance: int = 0, lobby: bool = False) -> bool:
        """The game started (``Endpoint.restrict``): unless proven, the bound applies from now
        on: what is sent from the first call (``tx`` restarts at 0 then, never again: every seat
        move calls ``restrict`` once more) fits in ``UNCONFIRMED_FACTOR`` x the bytes the address
        sent over the channel's life, plus ``allowance`` bytes given at the first call (a resumed
        peer's first flight, ``PIN_ALLOWANCE``) (§N2.6 "Game started"). ``lobby``: a lobby pin's
        bound (a PROPOSAL named the address, §N2.6 "Lobby pins"), the same until the next call,
        the game's start, which counts anew as for any seat channel (its lobby first flight
        expires); ``KNOCK_RESERVE`` bytes of its ``allowance`` are kept for knocks. True if the
        caller must ask for the proof (a CHALLENGE): the route is not proven."""
        if self.proven:
            return False
        if not self.seat or self.lobby:
            self.seat = True
            self.lobby = lobby
            self.knock_due = False
            self.confirmed = False
            self.tx = 0
            self.allowance = allowance - KNOCK_RESERVE if lobby else allowance
        return True

    def timed_out(self, now: float = 0.0) -> bool:
        """Datagrams of an unconfirmed channel timed out: True if it gives up now
        (``unconfirmed_gaveup``; dormant until the address speaks). A seat's channel (``seat``)
        never does: in lockstep an honest seat whose RESPONSE was lost may have nothing to send
        until our data arrives, and the bound alone keeps what a victim gets to the factor. A
        lobby pin's channel knocks on the ``KNOCKS`` schedule until proven (``now``:
        the channel's clock, s)."""
        self.void_timeouts += 1
        if self.lobby and self.knocks < KNOCKS:
            if self.knock_at is None or now >= self.knock_at:
                self.knock_due = True  # the channel appends a pure ack; ``bound`` lets it through
                self.knocks += 1
                # At each timeout first (a lost flight or CHALLENGE costs one RTO, not seconds),
                # then spaced so that the rest still cover the setup round.
                self.knock_at = now + (0.0 if self.knocks < KNOCKS_EAGER else KNOCK_GAP_S)
        if self.void_timeouts > UNCONFIRMED_RESENDS and not self.seat:
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
        (carrying the ack) fits. A due knock (``knock_due``: the first pure ack) goes beyond it."""
        room = UNCONFIRMED_FACTOR * self.rx + self.allowance - self.tx
        waiting = waiting and not self.seat  # a seat acks within the bound: its peer is no requester
        kept = []
        for item in out:
            size = len(item[0])
            if waiting and item[0][1] == 0:  # HEADER's flags byte (offset 1): 0 = a pure ack
                continue
            if self.knock_due and item[0][1] == 0:
                self.knock_due = False
                kept.append(item)
                self.tx += size
                self.allowance += size  # paid from KNOCK_RESERVE, not from the data's room
            elif size <= room:
                kept.append(item)
                room -= size
                self.tx += size
        if len(kept) < len(out):
            self.stats["unconfirmed_withheld"] += len(out) - len(kept)
            self.withheld = True
        return kept
