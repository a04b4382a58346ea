"""Step collection: the signed STEP messages a session holds, per step and seat (protocol.md
§C3.4, state machine in §C3.6).

One ``StepCollector`` per session. It owns

* the held messages of the steps in the window ``[step - KEEP_STEPS + 1, step + STEP_WINDOW)``
  (``Held``: decoded body and envelope), one slot per seat;
* our own signed message of each kept step (the bytes we re-send and answer with);
* the digest of the last applied step (``prev_digest``, the setup hash before step 0);
* the rate limit of answers to stragglers (one per seat per ``ANSWER_MIN_INTERVAL``);
* the attestations of the next step (``attest``): the prev digest of a step-(k+1) message whose
  signature failed but which came on its own seat's keyed channel, one per seat, forgotten
  when k is applied (protocol.md §C8.3 'A voter's promise', F1);
* the digests of the signed messages of the kept steps refused after their verify (a lone
  mismatch, not a forced body, one superseded by the message we hold: §C3.4 'Refused
  messages'), so that their replays are dropped before another verify (``refuse``,
  ``refused``).

It checks nothing cryptographic and knows nothing of the engine: the session verifies a
message before it calls ``hold``. Per step a slot goes ``empty -> held`` (``hold``), or
``held -> empty`` when its seat is dropped at that step (``clear``); a step's slots are
forgotten ``KEEP_STEPS`` steps after it was applied (``applied``).
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple, Sequence

from . import const as C
from .wire import Envelope, StepBody

_sha256 = hashlib.sha256

REFUSED_KEEP = 32
"""Refused envelopes remembered per step and epoch (``StepCollector.refuse``): 32 SHA-256
digests. A seat that signs more distinct refused messages of one step pays a signature for each
of our verifies (§C3.4 'Refused messages')."""


class Held(NamedTuple):
    """A verified step message: decoded body and its envelope."""

    body: StepBody
    env: Envelope


def step_digest(bodies: Sequence[bytes]) -> bytes:
    """Digest of one step: SHA-256(b"lanopoli/1/digest\\x00" || for each seat in order:
    len(body) as 4-byte BE || body). Bodies are the signed STEP bodies (protocol.md §C3.2)."""
    h = _sha256(C.HASH_DIGEST)
    for b in bodies:
        h.update(len(b).to_bytes(4, "big"))
        h.update(b)
    return h.digest()


def kept_version(a: bytes, b: bytes) -> bytes:
    """Of two different signed STEP bodies ``a``, ``b`` of one seat for one step over one
    history (an equivocation both halves of which were applied, each by some peers), the one
    the whole table keeps: the body with the smaller SHA-256 (plain, 32 bytes compared as
    unsigned big-endian), ``a`` if equal (protocol.md §C3.4 "Two versions applied")."""
    return b if _sha256(b).digest() < _sha256(a).digest() else a


class StepCollector:
    """Held step messages of one session (module docstring). ``n``: seats; ``my_seat``: ours;
    ``setup_hash``: 32 bytes, the digest that step 0 messages carry."""

    def __init__(self, n: int, my_seat: int, setup_hash: bytes) -> None:
        self.n = n
        self.my_seat = my_seat
        #: Digest of the last applied step (setup hash before step 0), 32 bytes.
        self.prev_digest = setup_hash
        self._slots: dict[int, list[Held | None]] = {}
        self._own: dict[int, bytes] = {}
        self._answered: dict[int, float] = {}
        #: Step -> (epoch, SHA-256 digests of the envelopes refused at that step in that epoch)
        #: (``refuse``); empty in a game without refusals: the inbox tests it on every STEP before
        #: anything else costs (issue 14), asks ``refused`` only when it is not.
        self.refusals: dict[int, tuple[int, set[bytes]]] = {}
        #: Step (only ever the one after ours) -> {seat: prev digest} of its ``attest``-ed messages.
        self.attested: dict[int, dict[int, bytes]] = {}

    # -- queries --

    def held(self, step: int, seat: int) -> Held | None:
        """The message of ``seat`` held for ``step``, or None."""
        slots = self._slots.get(step)
        return None if slots is None else slots[seat]

    def slots(self, step: int) -> tuple:
        """The held messages of ``step`` in seat order (None where missing); all None if the
        step has no slot yet."""
        slots = self._slots.get(step)
        return (None,) * self.n if slots is None else tuple(slots)

    def keeps(self, step: int) -> bool:
        """True if ``step``'s slots are still kept (it was not forgotten)."""
        return step in self._slots

    def missing(self, step: int, active: Sequence[bool]) -> tuple[int, ...]:
        """Active seats whose message of ``step`` is not held (may include ours)."""
        slots = self._slots.get(step)
        if slots is None:
            return tuple(i for i, a in enumerate(active) if a)
        return tuple(i for i, (a, h) in enumerate(zip(active, slots)) if a and h is None)

    def complete(self, step: int, active: Sequence[bool]) -> bool:
        """True if every active seat's message of ``step`` is held."""
        slots = self._slots.get(step)
        if slots is None:
            return False
        # A plain loop, not all(genexpr): asked at every message received (issue 14).
        for a, h in zip(active, slots):
            if a and h is None:
                return False
        return True

    def signers(self, step: int, skipped: Sequence[int] = ()) -> list[int]:
        """Seats whose held step-(``step`` + 1) message covers exactly the step-``step`` messages
        held (its prev digest = their digest, the seats in ``skipped`` as 0xC1): they applied
        ``step`` as we would (protocol.md §C8.3 certificates, §C8.10 the voter's promise). A seat
        with no message of ``step`` + 1 held counts by its attestation (``attest``) if it has one
        over that digest: a held message, verified, always decides its seat (F1)."""
        digest = step_digest([C.SKIPPED_BODY if i in skipped else b"" if h is None else h.env.body
                              for i, h in enumerate(self.slots(step))])
        later = self.slots(step + 1)
        out = [i for i, h in enumerate(later) if h is not None and h.body.prev_digest == digest]
        attested = self.attested.get(step + 1)
        if attested:
            out += sorted(i for i, d in attested.items() if d == digest and later[i] is None)
        return out

    def attest(self, step: int, seat: int, prev_digest: bytes) -> bool:
        """``seat``'s message of ``step`` (the step after ours) came on ``seat``'s own keyed channel
        with a signature that failed: keep its ``prev_digest`` (32 bytes) as that seat's word that it
        applied the step before over that digest (MAC-authenticated, protocol.md §N2.2). Never held,
        applied, relayed or cited as evidence: only ``signers`` reads it. One per seat and step, a
        newer one replacing it (as the newer of two held messages over other histories is kept,
        ``Referee.other_history``: a seat rolled back signs again); False if it was that already.
        All are forgotten when our step is applied (§C8.3 'A voter's promise', F1)."""
        got = self.attested.setdefault(step, {})
        if got.get(seat) == prev_digest:
            return False
        got[seat] = prev_digest
        return True

    def refused(self, step: int, epoch: int, raw: bytes) -> bool:
        """True if the envelope ``raw`` of ``step`` was refused (``refuse``) at that step in
        ``epoch`` (a drop starts another epoch: what it refused may be judged again)."""
        kept = self.refusals.get(step)
        return kept is not None and kept[0] == epoch and _sha256(raw).digest() in kept[1]

    def own(self, step: int) -> bytes | None:
        """Our signed envelope of ``step`` if kept."""
        return self._own.get(step)

    def has_own(self, step: int) -> bool:
        """True if we hold a message of our own seat for ``step``."""
        slots = self._slots.get(step)
        return slots is not None and slots[self.my_seat] is not None

    def raws(self, step: int) -> list:
        """Envelopes of ``step`` in seat order (None where missing)."""
        return [None if h is None else h.env.raw for h in self.slots(step)]

    # -- changes --

    def hold(self, step: int, seat: int, held: Held) -> None:
        """Keep ``held`` as ``seat``'s message of ``step`` (the caller verified it); ours is
        also kept as the bytes we answer with."""
        slots = self._slots.get(step)
        if slots is None:
            slots = self._slots[step] = [None] * self.n
        slots[seat] = held
        if seat == self.my_seat:
            self._own[step] = held.env.raw

    def refuse(self, step: int, epoch: int, raw: bytes) -> None:
        """Remember that the signed envelope ``raw`` of ``step`` was verified and refused in
        ``epoch``: its replays are dropped unverified (``refused``, counted ``refused_again``;
        §C3.4 'Refused messages'). At most ``REFUSED_KEEP`` per step and epoch; a step's are
        forgotten with the step (``KEEP_STEPS`` after it is applied), and those of an earlier
        epoch when the step refuses something in a later one."""
        kept = self.refusals.get(step)
        if kept is None or kept[0] != epoch:
            kept = self.refusals[step] = (epoch, set())
        if len(kept[1]) < REFUSED_KEEP:
            kept[1].add(_sha256(raw).digest())

    def forget_refused(self) -> None:
        """Forget the refused envelopes (what made them wrong changed: ``Referee.overturn``)."""
        self.refusals = {}

    def clear(self, step: int, seat: int) -> None:
        """Forget ``seat``'s message of ``step`` (the seat is dropped at that step)."""
        slots = self._slots.get(step)
        if slots is not None:
            slots[seat] = None

    def applied(self, step: int, skipped: Sequence[int] = ()) -> None:
        """``step`` was applied: its digest becomes ``prev_digest`` (dropped seats count as an
        empty body, protocol.md §C8.4; the seats in ``skipped`` as the byte 0xC1, §C8.10) and
        the step ``KEEP_STEPS`` back is forgotten."""
        self.prev_digest = step_digest([C.SKIPPED_BODY if i in skipped else b"" if h is None else h.env.body
                                        for i, h in enumerate(self.slots(step))])
        old = step + 1 - C.KEEP_STEPS
        if self.attested:
            self.attested = {}  # all of step + 1: they could only certify ``step``, now applied
        if self.refusals:
            self.refusals = {k: v for k, v in self.refusals.items() if k > old}
        self._slots.pop(old, None)
        self._own.pop(old, None)

    def answer(self, seat: int, step: int, now: float) -> bytes | None:
        """Our message of ``step`` to re-send to ``seat`` (it seems stuck there), or None if we
        have none or answered that seat less than ``ANSWER_MIN_INTERVAL`` s ago."""
        own = self._own.get(step)
        if own is None or now - self._answered.get(seat, -1e9) < C.ANSWER_MIN_INTERVAL:
            return None
        self._answered[seat] = now
        return own

    def dump(self) -> dict:
        """JSON-able held messages: {step: [hex | None per seat]}."""
        return {str(s): [None if h is None else h.env.raw.hex() for h in slots]
                for s, slots in sorted(self._slots.items())}
