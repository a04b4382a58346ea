"""Hidden information of a local game (niente-e-come-sembra) and what our player may see of it.

A network game learns whether a bill or an Imprevisti card is fake from the seats' committed
shares (protocol.md §C12): the holder knows its own items (``session.private_view()``)
and everybody learns an item's status when it is inspected (``engine.apply_reveal``). :class:`LocalSecrets` plays that part for ``ui.play.LocalGame`` (tests,
snapshots, games against bots without a network): every status is fixed for the whole game,
either pinned by the caller or derived from a seed with the edition's rates, and each seat's
private view is the status of every item it holds or held.

Nothing here is sent anywhere; the engine never sees a view.
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping

from engine import observation as obs
from engine.observation import FAKE, IMPREVISTI, UNKNOWN
#: Modulus of the derived statuses, as of the shares of protocol.md §C12.1.
_M = 1 << 32

Item = tuple[str, int]


class LocalSecrets:
    """Fixed fake/genuine statuses of a local game's bills and Imprevisti cards.

    ``seed``: derives the statuses nobody pinned (bill b is fake iff SHA-256("lanopoli/ui/
    hidden" ‖ seed ‖ "bill" ‖ b) read as a 32-bit int is below ``fake_threshold`` of its
    denomination, the rates of protocol.md §C12.1; in Imprevisti pair p the fake card is 2p + the low
    bit of the same hash of "pair" p — exactly one per pair, as the rulebook says "una delle
    due"). ``pinned``: ``{("bill", id) | ("card", index): fake}`` overriding the derived ones;
    pinning a card fixes its twin (card index XOR 1) to the opposite.
    """

    def __init__(self, seed: int = 0, pinned: Mapping[Item, bool] | None = None) -> None:
        self.seed = int(seed)
        self.pinned = dict(pinned or {})
        self._seen: list[set[Item]] = []

    def _word(self, kind: str, ident: int) -> int:
        h = hashlib.sha256(b"lanopoli/ui/hidden\0" + self.seed.to_bytes(8, "big", signed=True)
                           + kind.encode() + ident.to_bytes(4, "big")).digest()
        return int.from_bytes(h[:4], "big")

    def is_fake(self, state: Any, item: Item) -> bool:
        """The status of ``item`` (``("bill", id)`` or ``("card", index)``) in ``state``'s game."""
        if item in self.pinned:
            return bool(self.pinned[item])
        kind, ident = item
        public = obs.public_status(state, item)
        if public != UNKNOWN:  # inspected already, or a genuine bill the bank printed later
            return public == FAKE
        if kind == "card":
            twin = ("card", ident ^ 1)
            if twin in self.pinned:
                return not self.pinned[twin]
            return ident == 2 * (ident // 2) + (self._word("pair", ident // 2) & 1)
        den = obs.bill_value(state, ident)
        return self._word("bill", ident) < obs.fake_threshold(state.ed, den, _M)

    def outcomes(self, state: Any) -> list[bool]:
        """The outcomes the "inspection" phase of ``state`` waits for (one per
        ``engine.hidden_items`` entry, in order), for ``engine.apply_reveal``."""
        return [self.is_fake(state, item) for item in obs.hidden_items(state)]

    def observe(self, state: Any) -> None:
        """Remember what each seat holds now (call after every step): a seat knows the status
        of every item it holds or once held (protocol.md §C12.7)."""
        if not obs.has_hidden(state):
            return
        while len(self._seen) < state.n:
            self._seen.append(set())
        for seat in range(state.n):
            self._seen[seat].update(obs.held_items(state, seat))

    def view(self, state: Any, seat: int) -> dict[Item, bool]:
        """``seat``'s private view: ``{item: fake}`` for the items it holds or held (the shape of
        ``LockstepSession.private_view()``), an ``engine.Knowledge`` carrying a per-seat
        secret for the bill-choice order; {} outside niente-e-come-sembra."""
        if not obs.has_hidden(state) or not 0 <= seat < len(self._seen):
            return {}
        # A per-seat secret for the bill-choice order (engine.observation.choose pays with it):
        # in a local game only this process knows the seed.
        secret = hashlib.sha256(b"lanopoli/ui/bill-order\0" + self.seed.to_bytes(8, "big", signed=True)
                                + seat.to_bytes(1, "big")).digest()
        return obs.Knowledge({item: self.is_fake(state, item) for item in sorted(self._seen[seat])},
                           secret)


#: A player's standing choice of bills for its payments (niente-e-come-sembra, phase
#: "pay_bills"): "keep" its known fakes (``engine.observation.keep_choice``), "spend" them
#: first (``spend_choice``), or "ask" at every payment (the bills dialog).
BILL_POLICIES = ("keep", "spend", "ask")


def bills_by_policy(state: Any, seat: int, policy: str, view: Mapping | None) -> Any:
    """Our input for a "pay_bills" step under ``policy`` ("keep" or "spend", see
    BILL_POLICIES) from our private ``view``: a ``PayBills`` or None (the default bills, which
    are also what a payment we can no longer choose for keeps). Raises ValueError for "ask"
    or an unknown policy (asking is the UI's business)."""
    if policy not in ("keep", "spend"):
        raise ValueError(f"no standing choice of bills for policy {policy!r}")
    choose = obs.keep_choice if policy == "keep" else obs.spend_choice
    return choose(state, seat, view if view is not None else {})


__all__ = ["LocalSecrets", "IMPREVISTI", "BILL_POLICIES", "bills_by_policy"]
