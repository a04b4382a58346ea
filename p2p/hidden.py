"""Hidden information: counterfeit banknotes and fake Imprevisti nobody can rig or lie about
(DESIGN.md §4; protocol.md §C12 "Hidden information").

Theory of operation
-------------------
*Items.* In an edition with hidden information (``engine.has_hidden(state)``) every bill id
``b < B`` (the bills that exist at the start; bills the bank prints later are genuine by
construction) and every Imprevisti *pair* ``p`` (cards 2p and 2p+1) is an item: item ``b`` is
bill b, item ``B + p`` is pair p.

*Shares.* Every seat i has a secret opening per item, ``op(i, t)`` = 16 bytes = share (4 bytes
BE, uniform mod M = 2^32) || salt (12 bytes), derived from its hidden secret (itself derived
from its hash-chain secret, so the seat-loss escrow also recovers it, protocol.md §C8). Leaf =
SHA-256("lanopoli/1/hidden-leaf\\0" || gid || seat || item (2 B BE) || opening).

*Commitment before the seed.* Each seat puts the concatenation of its leaves into its SETUP_SIG
(signed, before any seed secret is revealed; they end up in the log header). So nobody can
choose its shares after anything about the game is known, and since the shares of every seat
count, one honest seat makes every status uniformly random: nobody, not even the host, chooses
which bills are fake.

*Status.* Bill b is fake iff ``sum_i share(i, b) mod M < T(den(b))`` with
``T = floor(M * num / den)`` for the edition's fake rate of that denomination
(the engine's ``fake_thresholds``). In pair p the fake card is ``2p + (S_p mod 2)``.

*Private delivery.* Whenever a seat gets an item it was never given (its start wallet, a bill
paid to it, an Imprevisti taken), every other active seat delivers its opening of that item to
it, in its next STEP message, encrypted with ChaCha20-Poly1305 under a key only the two of
them can derive (X25519). The receiver checks every opening against the sender's leaf and now
knows the status. Who is due what is public (a function of the state), so a missing or short
delivery is a public fault; a delivery that decrypts to a wrong opening is proven by the
receiver, which publishes that one message key (a *complaint*): everybody decrypts and checks.

*Public reveal.* At an inspection step (engine phase "inspection") every active seat opens its
share of every item of ``engine.hidden_items`` publicly in its STEP message; every peer
checks each opening against the leaf, sums, and gives the outcomes to the engine with
``engine.apply_reveal``.

This module is pure bookkeeping and crypto (no I/O): the items, commitments and delivery crypto,
and ``HiddenLedger``, the public part every peer and ``verify`` compute identically. What one
peer knows about its own items is ``private_view.PrivateView`` (§C12.7).
"""

from __future__ import annotations

import hashlib
from collections import deque
from typing import TYPE_CHECKING, Any, NamedTuple, Sequence

from . import aead
from . import const as C

if TYPE_CHECKING:  # annotations only (engine/api.py: the seam p2p sees; the caller passes the engine)
    from engine.api import Engine, HiddenInformation

_sha256 = hashlib.sha256

SHARE_LEN = C.HIDDEN_SHARE_LEN
SALT_LEN = C.HIDDEN_SALT_LEN
#: Bytes of one opening: share (4, big-endian) || salt (12).
OPEN_LEN = C.HIDDEN_OPEN_LEN
LEAF_LEN = 32
#: Shares are uniform modulo M.
MODULUS = 1 << (8 * SHARE_LEN)
TAG_LEN = C.HIDDEN_TAG_LEN
#: Most openings one STEP message delivers privately (all receivers together): keeps the
#: message in one Ethernet frame (MAX_STEP_MSG); what does not fit stays due for the next step.
MAX_DELIVERY_ITEMS = 36
#: The cheat a recombined hidden secret proves when it does not make the seat's leaves (§C12.6).
LEAVES_UNMADE = "hidden leaves not made from its chain secret"
_NONCE = bytes(12)  # every delivery key encrypts exactly one plaintext (bound to the step)

__all__ = ["Fault", "Layout", "layout_for_setup", "layout_of_state", "hidden_secret", "opening", "leaf",
           "make_leaves", "opening_matches", "bill_order_secret", "delivery_key", "seal_delivery", "open_delivery",
           "HiddenLedger", "OPEN_LEN", "MODULUS", "MAX_DELIVERY_ITEMS", "LEAVES_UNMADE"]


# --- items and statuses -----------------------------------------------------------------------

class Layout(NamedTuple):
    """Items of a hidden-information game: ``bills`` (B: bill ids 0..B-1 are items 0..B-1),
    ``pairs`` (Imprevisti pairs: item B+p), ``den`` (denomination per bill id, euro) and
    ``threshold`` (denomination -> T: fake iff total mod M < T)."""

    bills: int
    pairs: int
    den: tuple
    threshold: dict

    @property
    def items(self) -> int:
        """Number of items (leaves per seat)."""
        return self.bills + self.pairs

    def item_of(self, kind: str, ident: int) -> int:
        """Item index of ("bill", id) or ("card", Imprevisti index)."""
        return ident if kind == "bill" else self.bills + (ident >> 1)

    def is_fake(self, kind: str, ident: int, total: int) -> bool:
        """Status from the sum of all seats' shares of its item (module docstring)."""
        if kind == "bill":
            return total % MODULUS < self.threshold[self.den[ident]]
        return (total & 1) == (ident & 1)


def _real_engine() -> HiddenInformation:
    """The engine package, for a caller that passes none (imported on use, as before: importing
    a p2p module does not load the engine and its bots)."""
    import engine

    return engine


def layout_of_state(state: Any, engine: Engine | HiddenInformation | None = None) -> Layout | None:
    """The layout of an engine state, or None if its edition has no hidden information.
    ``engine``: the engine seam (engine.api.HiddenInformation; None: the real engine); an
    engine without hidden information (``has_hidden`` missing, e.g. the race stand-in) gives None."""
    engine = _real_engine() if engine is None else engine
    has_hidden = getattr(engine, "has_hidden", None)
    if has_hidden is None or not has_hidden(state):
        return None
    den = tuple(engine.denominations(state))
    return Layout(len(den), engine.card_pairs(state), den, engine.fake_thresholds(state, MODULUS))


def layout_for_setup(setup: Any, engine: Engine | None = None) -> Layout | None:
    """Layout of the game a ``wire.Setup`` describes (None: no hidden information, or an
    edition the engine does not know, e.g. a test stand-in). ``engine``: the engine seam
    (engine.api; None: the real engine)."""
    engine = _real_engine() if engine is None else engine
    try:
        from .wire import engine_options

        state = engine.new_game(setup.edition, setup.seats, engine_options(setup))
    except Exception:  # unknown edition or options: the lobby reports those itself
        return None
    return layout_of_state(state, engine)


# --- commitments ------------------------------------------------------------------------------

def hidden_secret(chain_secret: bytes) -> bytes:
    """A seat's hidden secret: SHA-256("lanopoli/1/hidden-secret\\0" || chain secret h_0)."""
    return _sha256(C.SIG_PREFIX + b"hidden-secret\x00" + chain_secret).digest()


def opening(hsecret: bytes, item: int) -> bytes:
    """The seat's 16-byte opening of ``item``: first 16 bytes of SHA-256("lanopoli/1/
    hidden-open\\0" || hidden secret || item (2 B BE)) = share (4 B) || salt (12 B)."""
    return _sha256(C.SIG_PREFIX + b"hidden-open\x00" + hsecret + item.to_bytes(2, "big")).digest()[:OPEN_LEN]


def share_of(op: bytes) -> int:
    """The share (int mod M) in an opening."""
    return int.from_bytes(op[:SHARE_LEN], "big")


def leaf(gid: bytes, seat: int, item: int, op: bytes) -> bytes:
    """Leaf commitment: SHA-256("lanopoli/1/hidden-leaf\\0" || gid || seat (1 B) || item (2 B
    BE) || opening (16 B))."""
    return _sha256(C.SIG_PREFIX + b"hidden-leaf\x00" + gid + bytes((seat,)) + item.to_bytes(2, "big")
                   + op).digest()


def make_leaves(hsecret: bytes, gid: bytes, seat: int, items: int) -> bytes:
    """The seat's commitment: its ``items`` leaves concatenated (32 bytes each)."""
    return b"".join(leaf(gid, seat, t, opening(hsecret, t)) for t in range(items))


def leaves_digest(leaves: bytes) -> bytes:
    """SHA-256(b"lanopoli/1/hidden-leaves\x00" + leaves): what a SEED says it holds of a seat's
    hidden-information commitment (protocol.md §C12.2). All seats' SEEDs must agree on every
    seat's digest before the game starts, so no seat can show different leaves to different
    peers."""
    return hashlib.sha256(b"lanopoli/1/hidden-leaves\x00" + leaves).digest()


def opening_matches(leaves: bytes, gid: bytes, seat: int, item: int, op: bytes) -> bool:
    """True if ``op`` opens ``seat``'s leaf of ``item``."""
    return len(op) == OPEN_LEN and leaves[LEAF_LEN * item:LEAF_LEN * (item + 1)] == leaf(gid, seat, item, op)


def bill_order_secret(hsecret: bytes) -> bytes:
    """SHA-256("lanopoli/1/bill-order\\0" || hs_i), 32 bytes: the seat's private key for the order
    in which it hands over equal bills when it chooses its bills (protocol.md §C12.7;
    ``engine.observation.choose`` pays with it). Derived from the hidden secret, so it is as private
    as the seat's shares, and a separate domain, so it reveals nothing about them."""
    return _sha256(C.SIG_PREFIX + b"bill-order\x00" + hsecret).digest()


# --- private delivery -------------------------------------------------------------------------

def _aad(gid: bytes, sender: int, to: int, step: int) -> bytes:
    return gid + bytes((sender, to)) + step.to_bytes(8, "big")


def delivery_key(shared: bytes, gid: bytes, sender: int, to: int, step: int) -> bytes:
    """Key of the delivery ``sender`` -> ``to`` in ``step``: SHA-256("lanopoli/1/hidden-key\\0"
    || X25519 shared secret || gid || sender || to || step (8 B BE)). One key per message, so
    a complaint can publish it without exposing any other delivery."""
    return _sha256(C.SIG_PREFIX + b"hidden-key\x00" + shared + _aad(gid, sender, to, step)).digest()


def seal_delivery(key: bytes, gid: bytes, sender: int, to: int, step: int, openings: bytes) -> bytes:
    """ChaCha20-Poly1305(key, nonce 0^12, openings, aad = gid || sender || to || step (8 B))."""
    return aead.encrypt(key, _NONCE, openings, _aad(gid, sender, to, step))


def open_delivery(key: bytes, gid: bytes, sender: int, to: int, step: int, ct: bytes) -> bytes | None:
    """The plaintext of a delivery, or None if it does not decrypt under ``key``."""
    return aead.decrypt(key, _NONCE, ct, _aad(gid, sender, to, step))


class Fault(NamedTuple):
    """A hidden-information fault of one step: ``seat`` is guilty for ``reason`` (English), as
    the signed STEP of seat ``witness`` (of the same step) shows: the culprit's own message for
    a public fault, the holder's for a settled complaint (the holder itself, or the sender whose
    delivery of the previous step the holder's published key opens to a wrong opening)."""

    seat: int
    reason: str
    witness: int


class HiddenLedger:
    """The public bookkeeping of the hidden layer: identical on every peer and in ``verify``.

    ``gid``: game id; ``n``: seats; ``layout``: ``Layout``; ``leaves``: every seat's
    commitment (bytes, ``layout.items`` * 32), seat order. ``queues[s][r]``: items ``s`` still
    owes ``r`` (in order); ``given[r]``: items ever queued for ``r``. ``engine``: the engine
    seam that says what each seat holds (engine.api.HiddenInformation; None: the real engine).
    """

    def __init__(self, gid: bytes, n: int, layout: Layout, leaves: Sequence[bytes], state: Any,
                 engine: HiddenInformation | None = None) -> None:
        if len(leaves) != n or any(len(x) != LEAF_LEN * layout.items for x in leaves):
            raise ValueError("one commitment of layout.items leaves per seat")
        #: What a seat holds of unknown status (engine.api.HiddenInformation.held_unknown).
        self._held_unknown = (_real_engine() if engine is None else engine).held_unknown
        self.gid, self.n, self.layout, self.leaves = gid, n, layout, list(leaves)
        self.active = [True] * n
        #: Dropped seat -> its hidden secret (recombined from the escrow) or None (shares 0).
        self.dropped: dict[int, bytes | None] = {}
        self.queues = [[deque() for _ in range(n)] for _ in range(n)]
        self.given: list[set] = [set() for _ in range(n)]
        #: Deliveries of the last applied step: (sender, to) -> (items, ct).
        self.last: dict[tuple[int, int], tuple[list, bytes]] = {}
        #: Counters for reports: deliveries, items delivered, openings at inspections.
        self.stats = {"deliveries": 0, "items_delivered": 0, "openings": 0, "inspections": 0, "reopened": 0}
        self._last_step = -1
        self._leaving: set[int] = set()  # seats dropped in the current step (``drop``)
        #: Public re-openings due in the current step: sender -> [(holder, items)] (§C12.4: the
        #: holder's published key did not open the sender's delivery, so nobody can tell who
        #: lied; the sender opens those items in public instead, after its inspection openings).
        self.reopen: dict[int, list[tuple[int, list]]] = {}
        self.enqueue(state)

    # -- what is due --

    def enqueue(self, state: Any) -> None:
        """Queue, for every active seat, the items it holds now and was never given (bills
        with an unknown public status, Imprevisti kept or held as the jail card, pair not
        public), owed by every other active seat (protocol.md §C12.3)."""
        B = self.layout.bills
        held_unknown = self._held_unknown
        for r in range(self.n):
            if not self.active[r]:
                continue
            given = self.given[r]
            # The engine's held_unknown: bills in wallet order, then kept Imprevisti, then
            # the jail card; that order is the delivery order of §C12.3.
            bills, cards = held_unknown(state, r)
            new = [b for b in bills if b < B and b not in given]
            for card in cards:
                t = B + (card >> 1)
                if t not in given and t not in new:
                    new.append(t)
            if not new:
                continue
            given.update(new)
            for s in range(self.n):
                if s != r and self.active[s]:
                    self.queues[s][r].extend(new)

    def expected(self, sender: int) -> list[tuple[int, list]]:
        """What ``sender`` must deliver in this step: ``[(to, items)]`` ascending by ``to``, the
        oldest items first, at most MAX_DELIVERY_ITEMS in all (the rest stays due)."""
        out = []
        budget = MAX_DELIVERY_ITEMS
        for r, q in enumerate(self.queues[sender]):
            # A receiver dropped in this very step is still owed it (its queue is cleared after
            # the step, ``drop``); one dropped earlier has an empty queue.
            if not q or budget == 0:
                continue
            take = [q[i] for i in range(min(budget, len(q)))]
            budget -= len(take)
            out.append((r, take))
        return out

    # -- checks of one step --

    def find_fault(self, fields: Sequence[Any], inspection: list | None) -> Fault | None:
        """The first fault in one step's hidden fields (protocol.md §C12.4, §C12.5), or None:
        first the public part of every active seat's field in seat order (``public_fault``),
        then the complaints in seat order (``complaint_fault``). ``fields``: seat order, None
        for dropped seats; ``inspection``: the ``unknown_items`` list at an inspection step,
        else None. A dropped seat's field is never judged, and a complaint that proves a
        seat already dropped guilty is settled (that seat is out; it proves nothing new)."""
        for seat, f in enumerate(fields):
            if self.active[seat]:
                why = self.public_fault(seat, f, inspection)
                if why is not None:
                    return Fault(seat, why, seat)
        for seat, f in enumerate(fields):
            if self.active[seat]:
                fault = self.complaint_fault(seat, f)
                if fault is not None:
                    return fault
        return None

    def judge_field(self, seat: int, field: Any, inspection: list | None) -> Fault | None:
        """Judge one seat's hidden field of the current step alone (a kind-4 COMPLAINT's STEP,
        protocol.md §C8.8): its public part, then its complaint. Same verdicts as
        ``find_fault`` gives for that seat; None if nothing in it is wrong (or ``seat`` was
        dropped, or the complaint proves a dropped seat guilty)."""
        if not 0 <= seat < self.n or not self.active[seat]:
            return None
        why = self.public_fault(seat, field, inspection)
        return Fault(seat, why, seat) if why is not None else self.complaint_fault(seat, field)

    def public_fault(self, seat: int, f: Any, inspection: list | None) -> str | None:
        """Why active ``seat``'s hidden field ``f`` ([deliveries, openings, complaint]) breaks
        the public rules of the step (English), or None: deliveries to exactly the receivers of
        ``expected(seat)`` with ``16 + 16 * items`` bytes each (§C12.4); at an inspection every
        opening present and matching the seat's leaf, else no opening (§C12.5)."""
        if f is None:
            return "no hidden-information field in a game with hidden information"
        dels, ops, _ = f
        want = self.expected(seat)
        if [d[0] for d in dels] != [r for r, _ in want] or any(
                len(d[1]) != TAG_LEN + OPEN_LEN * len(items) for d, (_, items) in zip(dels, want)):
            return "private deliveries differ from what it owes (receivers or counts)"
        owed = [(to, t) for to, items in self.reopen.get(seat, ()) for t in items]
        if inspection is None and not owed:
            return "openings outside an inspection step" if ops else None
        n = 0 if inspection is None else len(inspection)
        if len(ops) != OPEN_LEN * (n + len(owed)):
            return "withheld its openings at an inspection" if inspection is not None else \
                "withheld the public opening it owes"
        for i, (kind, ident) in enumerate(inspection or ()):
            t = self.layout.item_of(kind, ident)
            if not opening_matches(self.leaves[seat], self.gid, seat, t, ops[OPEN_LEN * i:OPEN_LEN * (i + 1)]):
                return f"opening of {kind} {ident} does not match its commitment"
        for i, (to, t) in enumerate(owed, n):
            if not opening_matches(self.leaves[seat], self.gid, seat, t, ops[OPEN_LEN * i:OPEN_LEN * (i + 1)]):
                return f"public opening of item {t} owed to seat {to} does not match its commitment"
        return None

    def complaint_fault(self, holder: int, f: Any) -> Fault | None:
        """The verdict on the complaint in ``holder``'s field ``f`` (None: no complaint, or it
        proves guilty a seat already dropped). Witness: the holder, whose STEP carries the key."""
        if f is None or f[2] is None:
            return None
        verdict = self._complaint(holder, f[2])
        return Fault(verdict[0], verdict[1], holder) if verdict is not None and self.active[verdict[0]] else None

    def _complaint(self, holder: int, comp: list) -> tuple | None:
        """Settle ``holder``'s complaint ``[sender, key]`` about the sender's delivery of the
        last step: the sender is the culprit if that delivery decrypts with the key to an
        opening that does not match its leaf; the holder if there was no such delivery or the
        openings match. A key that does not decrypt it settles nothing (None): the key is not
        publicly checkable (X25519), so either the sender sealed under another key or the
        holder published a wrong one; the sender then opens those items in public at the next
        step (``reopen``), which tells the holder its shares and nobody else any status."""
        sender, key = comp
        d = self.last.get((sender, holder)) if sender != holder else None
        if d is None:
            return holder, "complaint about a delivery that does not exist"
        items, ct = d
        plain = open_delivery(key, self.gid, sender, holder, self._last_step, ct)
        if plain is None:
            return None
        for i, t in enumerate(items):
            if not opening_matches(self.leaves[sender], self.gid, sender, t, plain[OPEN_LEN * i:OPEN_LEN * (i + 1)]):
                return sender, f"private delivery to seat {holder} does not match its commitment (item {t})"
        return holder, "false complaint: the delivery matches its commitment"

    def resolve(self, engine: HiddenInformation, state: Any, fields: Sequence[Any], inspection: list | None) -> tuple:
        """The hidden-information part of one step (§C12.4, §C12.5): ``(fault, None)`` with the
        first ``Fault`` of the step; else at an inspection ``(None, (new state, events))`` from
        ``engine.apply_reveal`` with the ``outcomes`` of the checked openings; else ``(None,
        None)`` (the caller applies the step as any other). Does not advance the ledger
        (``after_step``)."""
        fault = self.find_fault(fields, inspection)
        if fault is not None or inspection is None:
            return fault, None
        return None, engine.apply_reveal(state, self.outcomes(fields, inspection))

    def outcomes(self, fields: Sequence[Any], inspection: list) -> list[bool]:
        """The fake/genuine outcome of every inspected item from the (checked) openings of the
        active seats and the dropped seats' recombined shares (0 without a recombined chain)."""
        out = []
        for i, (kind, ident) in enumerate(inspection):
            t = self.layout.item_of(kind, ident)
            total = 0
            for seat in range(self.n):
                if self.active[seat]:
                    total += share_of(fields[seat][1][OPEN_LEN * i:OPEN_LEN * (i + 1)])
                else:
                    total += self.dropped_share(seat, t)
            out.append(self.layout.is_fake(kind, ident, total))
        self.stats["openings"] += len(inspection) * sum(self.active)
        self.stats["inspections"] += 1
        return out

    def dropped_share(self, seat: int, item: int) -> int:
        """A dropped seat's share: from its recombined hidden secret, else 0 (protocol.md §C12.6)."""
        hs = self.dropped.get(seat)
        return 0 if hs is None else share_of(opening(hs, item))

    # -- after a step --

    def after_step(self, step: int, fields: Sequence[Any], state: Any) -> None:
        """The step was applied: pop what was delivered, remember it (for a complaint in the
        next step) and queue what the new state makes due. A complaint of this step whose key
        does not open the delivery it names makes the sender owe those items in public at the
        next step (``reopen``)."""
        reopen: dict[int, list] = {}
        for holder, f in enumerate(fields):
            if self.active[holder] and f is not None and f[2] is not None:
                sender = f[2][0]
                d = self.last.get((sender, holder)) if sender != holder else None
                if d is not None and self.active[sender] and self._complaint(holder, f[2]) is None:
                    reopen.setdefault(sender, []).append((holder, d[0]))
                    self.stats["reopened"] += len(d[0])
        self.reopen = reopen
        self.last = {}
        self._last_step = step
        for seat, f in enumerate(fields):
            if not self.active[seat] or f is None:
                continue
            for (to, items), (_, ct) in zip(self.expected(seat), f[0]):
                q = self.queues[seat][to]
                for _ in items:
                    q.popleft()
                self.last[(seat, to)] = (items, ct)
                self.stats["deliveries"] += 1
                self.stats["items_delivered"] += len(items)
        for seat in self._leaving:
            for q in self.queues[seat]:
                q.clear()
            for row in self.queues:
                row[seat].clear()
        self._leaving.clear()
        self.enqueue(state)

    def drop(self, seat: int, hsecret: bytes | None) -> str | None:
        """``seat`` was dropped at the current step: from now on it delivers and opens nothing
        and its field is not judged; its shares are recomputed from ``hsecret`` (its recombined
        chain) or count as 0. What the others owe it is cleared only after this step
        (``after_step``): their messages of this step may have been signed before the drop,
        so this step's deliveries stay as ``expected`` said when the step began (§C12.6).

        Returns the cheat its recombined ``hsecret`` proves, or None: a secret that does not
        make every leaf the seat committed in its SETUP_SIG (§C12.2) proves the seat made its
        leaves from another secret (§C12.6 'Leaves of another secret'; the DROP record and the
        log header's leaves are the evidence). Its shares still come from ``hsecret``."""
        self.active[seat] = False
        self.dropped[seat] = hsecret
        self._leaving.add(seat)
        if hsecret is None:
            return None
        made = make_leaves(hsecret, self.gid, seat, self.layout.items)
        mine = self.leaves[seat][:len(made)]
        if made == mine:
            return None
        t = next(t for t in range(self.layout.items)
                 if made[LEAF_LEN * t:LEAF_LEN * (t + 1)] != mine[LEAF_LEN * t:LEAF_LEN * (t + 1)])
        return f"{LEAVES_UNMADE} (item {t})"
