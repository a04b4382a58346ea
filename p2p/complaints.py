"""Complaints: signed evidence that a seat cheated, passed to every seat (protocol.md §C8.8).

A peer that receives a provably bad signed message does not stop alone (the others would then
vote the silent victim out and the cheater would finish clean): it sends the evidence to every
seat in a COMPLAINT. Every peer checks the evidence itself and acts against the **signer** of the
bad message, never against the complainer: it votes the culprit out at once (DROP, no timeout)
and keeps voting at every step until the quorum drops it (§C8.3); the culprit's seat is then
played by the lobby's rule (bot or bankrupt). A false complaint is itself signed evidence
against the complainer.

Kinds (``kind`` field):

1. **equivocation**: two envelopes of the culprit, both validly signed, of the same type and
   the same slot — STEP (gid, step, seat, prev hash, prev digest: two messages over different
   histories are not equivocation, one of them was overturned by a drop, §C8.3), DROP (gid,
   voter, step, epoch: one vote per step and epoch, whatever its target; version 5: an open
   vote and the same seat's released vote are one vote, not two) or ESCROW (gid, seat, epoch)
   — with different bodies.
   Self-contained.
2. **bad step message**: one STEP of the culprit at a chance step whose input is not a reveal
   hashing to the culprit's previous reveal. Checked by a peer still at that step against its
   own previous reveals; a peer past it compares with the message it applied (different:
   equivocation; the same: the complaint is false).
3. **bad escrow**: the culprit's ESCROW and ``key``, the complainer's pairwise share key
   (``escrow.pair_key``; publishing it exposes that one share only). The share decrypts
   under ``key`` (ChaCha20-Poly1305 is not key-committing, but finding another key under which
   the dealer's fixed tag verifies is a PRF pre-image) and does not match its commitment:
   the dealer cheated; the share matches: the complainer lied; ``key`` does not decrypt it:
   nothing is proven (charged to the complainer's budget; a dealer may seal an entry under
   another key and a judge cannot tell a true key from a made-up one, so an honest recipient
   sends no such complaint: H127 review #6, protocol.md §C8.5). With ``key`` nil: the entries
   are not one per other active seat (checked against the active seats).
4. **bad hidden-information field** (protocol.md §C12.4, §C12.5): one STEP whose 7th field
   breaks a public rule of its step (deliveries to other receivers or of other lengths than
   the public queues say, a missing or wrong opening at an inspection, openings outside one)
   — the culprit is its signer — or carries a complaint ``[sender, key]`` that settles
   against someone: the sender, when the key opens its delivery of the previous step to an
   opening that does not match the sender's leaf; the signer (the holder), when the key does
   not open it, the openings match, or there was no such delivery. Judged by a peer at that
   step over the same history with its own ``HiddenLedger`` (``check_hidden``); a peer
   past it only compares with the message it applied (different: equivocation).
5. **false drop-vote share**: [the culprit's released DROP vote, the ESCROW of the seat it votes
   against]: the vote's share does not match the dealer's signed commitment for the voter, or
   its key (version 5) does not show the voter's entry bad (``escrow.valid_release``,
   ``check_drop_share``); it is true: the complainer lied.

State (``Complaints``)::

    seat: honest --evidence checked--> proven(step, reason, complaint)   (never back)
"""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple, Sequence

from . import aead
from . import const as C
from .errors import WireError
from .identity import Identity
from .escrow import BAD_ENTRY, BAD_VOTE_SHARE, NONCE as _NONCE, share_commit, share_ctx as _ctx, valid_release
from .threshold import SHARE_LEN
from .wire import (MSG_COMPLAINT, MSG_DROP, MSG_ESCROW, MSG_STEP, ComplaintMsg, Setup, decode_drop, decode_escrow,
                   decode_step_body, open_envelope, seal_message)

EQUIVOCATION = 1
BAD_STEP = 2
BAD_ESCROW = 3
BAD_HIDDEN = 4
BAD_DROP_SHARE = 5


def make_complaint(identity: Identity, gid: bytes, seat: int, step: int, culprit: int, kind: int,
                   evidence: Sequence[bytes], key: bytes | None = None) -> bytes:
    """The signed COMPLAINT envelope ``[gid, seat, step, culprit, kind, [evidence...], key]``."""
    return seal_message(identity, MSG_COMPLAINT, ComplaintMsg(gid, seat, step, culprit, kind, tuple(evidence), key))


def _slot(mtype: int, body: bytes) -> tuple:
    """(signer seat, the slot a signer may fill once) of an envelope body; raises WireError."""
    if mtype == MSG_STEP:
        b = decode_step_body(body)
        # Over one history only: a seat overturned by a quorum drop re-signs the next step over
        # the new history (prev hash/digest differ), which is no equivocation (§C8.3, §C8.8).
        return b.seat, (mtype, b.game_id, b.step, b.seat, b.prev_hash, b.prev_digest)
    if mtype == MSG_DROP:
        v = decode_drop(body)
        return v.voter, (mtype, v.game_id, v.step, v.epoch)  # one vote per step and epoch
    if mtype == MSG_ESCROW:
        e = decode_escrow(body)
        return e.seat, (mtype, e.game_id, e.seat, e.epoch)
    raise WireError("not a STEP, DROP or ESCROW")


def same_history(a: Any, b: Any) -> bool:
    """True if the STEP bodies ``a`` and ``b`` are signed over the same history (equal prev
    hash and prev digest): only then do two different ones of a seat prove equivocation."""
    return a.prev_hash == b.prev_hash and a.prev_digest == b.prev_digest


def _signed(setup: Setup, raw: bytes, mtype: int, decode: Any) -> Any:
    """The body of ``raw`` decoded by ``decode`` if it is an ``mtype`` envelope of this game
    validly signed by the seat it names (the body's ``seat``), else None (malformed, another
    type or game, a seat out of range, a bad signature)."""
    try:
        env = open_envelope(raw, C.MAX_STEP_MSG)
        b = decode(env.body)
    except WireError:
        return None
    if env.mtype != mtype or b.game_id != setup.game_id or b.seat >= setup.seats \
            or not env.verify(setup.players[b.seat].public_key):
        return None
    return b


def signed_step(setup: Setup, raw: bytes) -> Any:
    """The decoded body of ``raw`` if it is a STEP envelope of this game validly signed by the
    seat it names (kind-2 evidence), else None."""
    return _signed(setup, raw, MSG_STEP, decode_step_body)


def check_equivocation(setup: Setup, first: bytes, second: bytes) -> int | None:
    """The seat that signed two different messages for one slot (module docstring, kind 1),
    or None if ``first``/``second`` prove nothing (malformed, another game, different slots
    or signers, equal bodies, a bad signature)."""
    try:
        e1, e2 = open_envelope(first, C.MAX_STEP_MSG), open_envelope(second, C.MAX_STEP_MSG)
        if e1.mtype != e2.mtype or e1.body == e2.body:
            return None
        s1, slot1 = _slot(e1.mtype, e1.body)
        s2, slot2 = _slot(e2.mtype, e2.body)
    except WireError:
        return None
    if slot1 != slot2 or s1 != s2 or slot1[1] != setup.game_id or not 0 <= s1 < setup.seats:
        return None
    if e1.mtype == MSG_DROP and _release_pair(decode_drop(e1.body), decode_drop(e2.body)):
        return None
    key = setup.players[s1].public_key
    return s1 if e1.verify(key) and e2.verify(key) else None


def _release_pair(a: Any, b: Any) -> bool:
    """True if the DROP bodies ``a`` and ``b`` are an open vote and the same voter's released
    vote of one seat (version 5, §C8.3 rule (a)): one vote, no equivocation."""
    return a.seat == b.seat and (a.share is None) != (b.share is None)


def check_escrow(setup: Setup, complainer: int, raw: bytes, key: bytes | None, active: Sequence[bool]) -> tuple | None:
    """Judge a bad-escrow complaint (kind 3) of ``complainer`` about the ESCROW ``raw``
    (protocol.md §C8.8): (guilty seat, reason), or None if it proves nothing: the evidence is not
    a signed ESCROW of this game, or ``key`` does not decrypt the complainer's entry (a dealer may
    seal under another key; §C8.5). ``key`` decrypts it to a matching share: the complainer;
    to anything else, or the entries are not one per other active seat: the dealer."""
    e = _signed(setup, raw, MSG_ESCROW, decode_escrow)
    if e is None:
        return None
    if key is None:
        want = [i for i in range(setup.seats) if active[i] and i != e.seat]
        if [x.to for x in e.entries] != want:
            return e.seat, "escrow not dealt to every other active seat"
        return complainer, "false complaint: the escrow is dealt to every other active seat"
    entry = next((x for x in e.entries if x.to == complainer), None)
    if entry is None:
        return e.seat, "escrow not dealt to every other active seat"
    share = aead.decrypt(key, _NONCE, entry.ct, _ctx(e.game_id, e.seat, complainer, e.epoch))
    if share is None:
        # Proves nothing (charged to the complainer's budget): a dealer may seal an entry under
        # another key, and a judge cannot tell the complainer's true key from a made-up one
        # (H127 review #6: it framed the honest recipient).
        return None
    if len(share) == SHARE_LEN and share_commit(share, e.game_id, e.seat, complainer, e.epoch) == entry.commit:
        return complainer, "false complaint: the escrow share matches its commitment"
    return e.seat, BAD_ENTRY


class HiddenNow(NamedTuple):
    """What a judge of a kind-4 complaint knows at its current step: ``step``, the history it
    is over (``prev_hash``, ``prev_digest``: the state hash and step digest every message of
    the step must carry), the ``ledger`` (``hidden.HiddenLedger``, after the previous step)
    and ``inspection`` (the ``unknown_items`` list at an inspection step, else None)."""

    step: int
    prev_hash: bytes
    prev_digest: bytes
    ledger: Any
    inspection: list | None


def _against_held(raw: bytes, b: Any, held: bytes | None) -> tuple | None:
    """The verdict a held body gives on a complaint's STEP ``b`` (raw ``raw``): ``("other",)``
    when ``held`` is signed over another history (§C8.3: nothing proven), the signer's
    equivocation when it differs over the same history, else None (no held body, or the same)."""
    if held is None:
        return None
    if not same_history(decode_step_body(held), b):
        return ("other",)
    if held != open_envelope(raw, C.MAX_STEP_MSG).body:
        return b.seat, "signed two different messages for one step"
    return None


def check_hidden(setup: Setup, raw: bytes, held: bytes | None, now: HiddenNow | None) -> tuple | None:
    """Judge a kind-4 complaint's STEP ``raw`` (module docstring): (guilty seat, reason), or
    None if it proves nothing to this judge. ``held``: the body of the message of the same
    seat and step the judge holds or applied, or None; ``now``: the judge's current step (None
    in a game without hidden information). A different held body over the same history is
    equivocation; otherwise only a judge at that very step, over the same history, judges the
    hidden field (``HiddenLedger.judge_field``). A valid field proves nothing: it is never held
    against the complainer, whose ledger may have been one drop behind ours (§C12.6)."""
    b = signed_step(setup, raw)
    if b is None:
        return None  # (a STEP without the 7th field in a hidden game is judged: that is a fault)
    v = _against_held(raw, b, held)
    if v is not None:
        return None if v == ("other",) else v
    if now is None or b.step != now.step or b.prev_hash != now.prev_hash or b.prev_digest != now.prev_digest:
        return None
    fault = now.ledger.judge_field(b.seat, b.hidden, now.inspection)
    return None if fault is None else (fault.seat, fault.reason)


class StepNow(NamedTuple):
    """What a judge of a kind-2 complaint knows at its current step: ``step``, its history
    (``prev_hash``, ``prev_digest``), ``sealed``: at a sealed decision's open step the judge
    of an opening against the commitment held (``sealed.SealedDecisions.judge``, §C13.3),
    else None; ``reveals``: at a chance step (not an inspection, not the final attestation)
    every seat's previous hash-chain reveal, else None."""

    step: int
    prev_hash: bytes
    prev_digest: bytes
    sealed: Any
    reveals: Sequence[bytes] | None


def check_bad_step(setup: Setup, raw: bytes, complainer: int, held: bytes | None, now: StepNow) -> tuple | None:
    """Judge a kind-2 complaint's STEP ``raw`` of ``complainer`` (module docstring, §C8.8):
    (guilty seat, reason) or None (proves nothing to this judge). ``held``: the body of the
    judge's message of the same seat and step (held or applied), or None. Past the step, a
    different body over the same history is equivocation and the very same one a false
    complaint (the judge applied it); at the step, over the judge's history, a sealed opening
    is judged against its commitment, and at a chance step the input must be a 32-byte reveal
    hashing to the seat's previous reveal."""
    b = signed_step(setup, raw)
    if b is None:
        return None
    at = b.step == now.step
    if at and (b.prev_hash != now.prev_hash or b.prev_digest != now.prev_digest):
        return None  # signed over another history (§C8.3): it proves nothing to us
    v = _against_held(raw, b, held)
    if v is not None:
        return None if v == ("other",) else v
    if held is not None and b.step < now.step:
        return complainer, "false complaint: we applied that very message"
    if not at:
        return None
    if now.sealed is not None:
        return now.sealed(b)  # §C13.3: its opening against the commitment we hold
    if now.reveals is None:
        return None
    if type(b.input) is not bytes:
        return b.seat, "no reveal at a chance step"
    if hashlib.sha256(b.input).digest() != now.reveals[b.seat]:
        return b.seat, "reveal does not hash to the previous reveal"
    return None


# --- kind 5: a false share in a drop vote (H2, issue 10; protocol.md §C8.3, §C8.8) ---------------

def check_drop_share(setup: Setup, complainer: int, evidence: Sequence[bytes], escrow_ok: Any = None) -> tuple | None:
    """Judge a false-share complaint (kind 5) of ``complainer``: ``evidence`` = [the culprit's
    DROP vote, the ESCROW of the seat it votes against], both signed, of this game, same seat
    and epoch. (voter, reason) if the vote's share does not match the dealer's commitment for
    the voter (an honest voter only votes the share it checked on receipt, §C8.2);
    (complainer, reason) if it matches; None if the evidence proves nothing (malformed, other
    game, seat or epoch, an open vote, a bad signature). ``escrow_ok(dealer, epoch, raw) ->
    bool``: the judge's agreed acknowledgements (``escrow_acks.AckLedger.confirmed``); an escrow
    that is not the CONFIRMED one proves nothing (a dealer that signed two escrows must not frame
    the honest voters that checked their share against the other one, §C8.2)."""
    if len(evidence) != 2:
        return None
    try:
        venv, eenv = open_envelope(evidence[0], C.MAX_STEP_MSG), open_envelope(evidence[1], C.MAX_STEP_MSG)
        if venv.mtype != MSG_DROP or eenv.mtype != MSG_ESCROW:
            return None
        v, e = decode_drop(venv.body), decode_escrow(eenv.body)
    except WireError:
        return None
    gid, n = setup.game_id, setup.seats
    if v.game_id != gid or e.game_id != gid or v.seat != e.seat or v.epoch != e.epoch or v.share is None \
            or not (0 <= v.voter < n and 0 <= e.seat < n) or not venv.verify(setup.players[v.voter].public_key) \
            or not eenv.verify(setup.players[e.seat].public_key):
        return None
    if escrow_ok is not None and not escrow_ok(e.seat, e.epoch, evidence[1]):
        return None
    if valid_release(e, v):
        return complainer, "false complaint: the drop vote share matches the escrow commitment"
    return v.voter, BAD_VOTE_SHARE


class Proof(NamedTuple):
    """A proven cheat: ``seat`` cheated, seen at ``step``, ``reason`` (English), and the
    COMPLAINT envelope that shows it to others (ours or the one we checked)."""

    seat: int
    step: int
    reason: str
    complaint: bytes


#: Validly signed COMPLAINTs of one seat that proved nothing to us (or proved the complainer
#: itself a liar again) that we judge and remember; later ones of that seat are dropped
#: unjudged (protocol.md §C8.8 'What a peer keeps'). A complaint that proves another seat never
#: spends it: how many bad messages an honest seat receives, and so complains about, is the
#: cheater's choice (H94's re-attack of 496cdd4).
COMPLAINT_BUDGET = 64
#: Complaints of one seat proving another seat already proven whose digests are kept, uncharged,
#: so a replay of one (by any seat: a catch-up page may repeat it too) is a duplicate, not
#: judged again; beyond it the one kept longest ago is forgotten (H95 review #1).
AGAIN_KEPT = 64


class Complaints:
    """The complaints part of a session: the seats proven to cheat (module docstring), and
    the COMPLAINTs already judged, by SHA-256 digest (32 bytes each, never the envelope): those
    that made a proof (at most one per proven seat) and, per complainer, at most
    ``COMPLAINT_BUDGET`` that proved nothing or the complainer again (§C8.8 'What a peer
    keeps'), and the last ``AGAIN_KEPT`` proving another seat already proven (uncharged). A
    complaint whose signature fails is not remembered either (anyone holding a channel can send
    one naming any seat): it costs its one check and is counted by the caller."""

    def __init__(self) -> None:
        self._proven: dict[int, Proof] = {}
        #: Digests of the validly signed COMPLAINTs judged so far.
        self._seen: set[bytes] = set()
        #: Complainer seat -> digests of its complaints proving another seat already proven,
        #: oldest first (at most ``AGAIN_KEPT``; not charged).
        self._again: dict[int, dict[bytes, None]] = {}
        #: Complainer seat -> how many of its complaints spent its budget.
        self._spent: dict[int, int] = {}
        #: Complaints dropped unjudged because their complainer's budget was spent.
        self.over_budget = 0

    def proven(self, seat: int) -> Proof | None:
        """The proof against ``seat``, or None."""
        return self._proven.get(seat)

    def cheaters(self) -> list[int]:
        """Seats proven to cheat, ascending."""
        return sorted(self._proven)

    def seen(self, raw: bytes) -> bool:
        """True if the COMPLAINT envelope ``raw`` was judged before (then it is ignored).
        Marks nothing: ``judged`` does, once its signature has been checked."""
        d = hashlib.sha256(raw).digest()
        return d in self._seen or any(d in q for q in self._again.values())

    def spent(self, seat: int) -> bool:
        """True (and counted in ``over_budget``) if ``seat``'s complaints that spent its budget
        reached ``COMPLAINT_BUDGET``: its next ones are dropped before their signature is checked."""
        if self._spent.get(seat, 0) < COMPLAINT_BUDGET:
            return False
        self.over_budget += 1
        return True

    def judged(self, raw: bytes, seat: int, guilty: int | None) -> None:
        """Note the validly signed COMPLAINT ``raw`` of ``seat``, judged, before its proof is
        recorded: ``guilty`` is the seat it proves (None: nothing). A new proof is remembered;
        one that proves nothing, or proves ``seat`` itself once more, is remembered and spends
        one of ``seat``'s ``COMPLAINT_BUDGET``; one that proves another seat already proven
        spends nothing (it tells nothing new, and the complainer received a bad message) and
        is kept among ``seat``'s last ``AGAIN_KEPT`` such ones (a replay is a duplicate)."""
        again = guilty is not None and guilty in self._proven
        if again and guilty != seat:
            q = self._again.setdefault(seat, {})
            q[hashlib.sha256(raw).digest()] = None
            if len(q) > AGAIN_KEPT:
                del q[next(iter(q))]
            return
        self._seen.add(hashlib.sha256(raw).digest())
        if guilty is None or again:
            self._spent[seat] = self._spent.get(seat, 0) + 1

    @property
    def kept(self) -> int:
        """How many complaint digests are remembered (at most seats x (COMPLAINT_BUDGET +
        AGAIN_KEPT) + seats)."""
        return len(self._seen) + sum(len(q) for q in self._again.values())

    def prove(self, proof: Proof) -> bool:
        """Record ``proof``; True if its seat was not proven before."""
        if proof.seat in self._proven:
            return False
        self._proven[proof.seat] = proof
        return True


def judge(setup: Setup, c: ComplaintMsg, active: Sequence[bool], bad_step: Any,
          bad_hidden: Any = None, escrow_ok: Any = None) -> tuple | None:
    """(guilty seat, reason) for a COMPLAINT ``c`` whose signature was checked, or None if its
    evidence proves nothing to us. ``bad_step(raw) -> (seat, reason) | None`` judges a kind-2
    STEP with the caller's state (the session or the verifier); ``bad_hidden(raw)`` likewise a
    kind-4 STEP (``check_hidden``; None: the caller cannot judge one); ``escrow_ok`` the escrow
    of a kind-5 complaint (``check_drop_share``)."""
    if c.kind == BAD_HIDDEN:
        return None if bad_hidden is None or len(c.evidence) != 1 else bad_hidden(c.evidence[0])
    if c.kind == EQUIVOCATION:
        if len(c.evidence) != 2:
            return None
        seat = check_equivocation(setup, c.evidence[0], c.evidence[1])
        return None if seat is None else (seat, "signed two different messages for one step")
    if c.kind == BAD_ESCROW:
        return check_escrow(setup, c.seat, c.evidence[0], c.key, active)
    if c.kind == BAD_DROP_SHARE:
        return check_drop_share(setup, c.seat, c.evidence, escrow_ok)
    return bad_step(c.evidence[0]) if c.kind == BAD_STEP else None

