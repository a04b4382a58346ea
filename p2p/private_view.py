"""What one seat knows privately about the hidden information (protocol.md §C12.7 "The private
view"; deliveries §C12.4).

``PrivateView`` owns our seat's side of the hidden layer: it seals what we owe into our hidden
field (deliveries, openings at an inspection, a pending complaint), opens the deliveries and
public re-openings addressed to us in each applied step (a delivery that does not decrypt or
open its leaves becomes our complaint), and keeps the statuses of the items we hold every
share of. It reads the public ``hidden.HiddenLedger`` (what is due, active and dropped seats,
re-openings) and never changes it. Nothing here leaves the peer except the field it builds.
"""

from __future__ import annotations

from typing import Any, Sequence

from .hidden import (OPEN_LEN, HiddenLedger, bill_order_secret, delivery_key, open_delivery, opening, opening_matches,
                     seal_delivery, share_of)

__all__ = ["PrivateView"]


class PrivateView:
    """What one seat knows privately: its own openings and the openings others delivered to
    it. ``status()`` maps ("bill", id) / ("card", index) to True (fake) / False for every item
    whose shares it holds in full (its bills and cards, now or earlier). Never leaves the peer."""

    def __init__(self, ledger: HiddenLedger, seat: int, hsecret: bytes, identity: Any, xkeys: Sequence[bytes]) -> None:
        self.ledger, self.seat, self._hs, self._id = ledger, seat, hsecret, identity
        self._shared = [None if i == seat else identity.x25519_exchange(xkeys[i]) for i in range(ledger.n)]
        self._got: dict[int, dict[int, int]] = {}  # item -> sender -> share
        self._dirty: set[int] = set()  # items whose status may have changed since refresh
        self._drops = 0  # len(ledger.dropped) at the last refresh
        self._status: dict[tuple[str, int], bool] = {}
        #: A complaint to put into our next message: [sender, key] or None.
        self.complaint: list | None = None

    def message_key(self, sender: int, to: int, step: int) -> bytes:
        """The key of the delivery ``sender`` -> ``to`` of ``step`` (``delivery_key``), for a pair
        of seats that includes ours: what a complaint publishes (§C12.4). Raises ValueError for
        a pair without us."""
        if self.seat not in (sender, to) or sender == to:
            raise ValueError("only the key of a delivery from or to our seat")
        other = to if sender == self.seat else sender
        return delivery_key(self._shared[other], self.ledger.gid, sender, to, step)

    def my_field(self, step: int, inspection: list | None) -> list:
        """Our hidden field for ``step``: deliveries of what we owe, our openings at an
        inspection, and a pending complaint."""
        L = self.ledger
        dels = []
        for to, items in L.expected(self.seat):
            plain = b"".join(opening(self._hs, t) for t in items)
            key = self.message_key(self.seat, to, step)
            dels.append([to, seal_delivery(key, L.gid, self.seat, to, step, plain)])
        ops = b""
        if inspection is not None:
            ops = b"".join(opening(self._hs, L.layout.item_of(k, i)) for k, i in inspection)
        ops += b"".join(opening(self._hs, t) for _, items in L.reopen.get(self.seat, ()) for t in items)
        return [dels, ops, self.complaint]

    def receive(self, step: int, fields: Sequence[Any]) -> None:
        """Open the deliveries addressed to us in an applied step (before ``ledger.after_step``
        pops them), and take the public re-openings owed to us (``HiddenLedger.reopen``). A
        delivery that does not decrypt or open its leaves sets ``complaint``."""
        L = self.ledger
        self.complaint = None
        for sender, f in enumerate(fields):
            if sender == self.seat or f is None or not L.active[sender]:
                continue
            for (to, items), (_, ct) in zip(L.expected(sender), f[0]):
                if to != self.seat:
                    continue
                key = self.message_key(sender, to, step)
                plain = open_delivery(key, L.gid, sender, to, step, ct)
                ok = plain is not None and all(
                    opening_matches(L.leaves[sender], L.gid, sender, t, plain[OPEN_LEN * i:OPEN_LEN * (i + 1)])
                    for i, t in enumerate(items))
                if not ok:
                    if self.complaint is None:
                        self.complaint = [sender, key]
                    continue
                for i, t in enumerate(items):
                    self._got.setdefault(t, {})[sender] = share_of(plain[OPEN_LEN * i:OPEN_LEN * (i + 1)])
                    self._dirty.add(t)
            # Public re-openings (checked against the leaves when the step was): the last
            # openings of the field, in ``reopen`` order.
            owed = [(to, t) for to, items in L.reopen.get(sender, ()) for t in items]
            tail = f[1][len(f[1]) - OPEN_LEN * len(owed):]
            for i, (to, t) in enumerate(owed):
                if to == self.seat:
                    self._got.setdefault(t, {})[sender] = share_of(tail[OPEN_LEN * i:OPEN_LEN * (i + 1)])
                    self._dirty.add(t)

    def refresh(self, state: Any) -> None:
        """Update the statuses of the items we hold all shares of (after each step): the items
        that got a share in this step, or all of them after a seat was dropped."""
        L = self.ledger
        lay = L.layout
        if len(L.dropped) != self._drops:
            self._drops = len(L.dropped)
            self._dirty.update(self._got)
        dirty, self._dirty = self._dirty, set()
        for t in sorted(dirty):
            got = self._got[t]
            total = share_of(opening(self._hs, t))
            for s in range(L.n):
                if s == self.seat:
                    continue
                if s in L.dropped:
                    total += L.dropped_share(s, t)
                elif s in got:
                    total += got[s]
                else:
                    break
            else:
                if t < lay.bills:
                    self._status[("bill", t)] = lay.is_fake("bill", t, total)
                else:
                    p = t - lay.bills
                    self._status[("card", 2 * p)] = lay.is_fake("card", 2 * p, total)
                    self._status[("card", 2 * p + 1)] = lay.is_fake("card", 2 * p + 1, total)

    def shares_received(self) -> dict[int, frozenset]:
        """{item: the seats whose share of it we hold} for every item another seat delivered or
        re-opened to us (a copy). Only items we were given appear, and never our own seat as a
        sender: our own shares are derived, not stored."""
        return {t: frozenset(got) for t, got in self._got.items()}

    def status(self) -> dict:
        """{("bill", id) | ("card", index): fake} for every item we know (a copy)."""
        return dict(self._status)

    def bot_view(self) -> dict:
        """``status()`` as the engine's private-view mapping, carrying ``secret =
        bill_order_secret(hs)`` (``engine.Knowledge``), so our bot and our player's bill
        choices order equal bills as only we can (protocol.md §C12.7). A plain dict with an
        engine that has no such class."""
        try:
            from engine import Knowledge
        except ImportError:
            return self.status()
        return Knowledge(self._status, bill_order_secret(self._hs))
