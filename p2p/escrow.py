"""Chain-secret escrow: the stateless crypto of seat loss and the DROP record (protocol.md §C8.2, §C8.3).

Every active seat deals its chain secret h_0 in Shamir shares (``threshold.split``, threshold
t = Q, the drop quorum) to every other active seat: one ESCROW per seat and epoch, each share
encrypted to its recipient (X25519 + ChaCha20-Poly1305) and committed in the clear (SHA-256).
A DROP vote is first open (no share); its voter releases it (re-signed with its share, or with
its pairwise key when its entry does not open) only once it holds a quorum of votes against the
seat (version 5, protocol.md §C8.3 'Shares in votes that decide nothing'). The released votes
of a quorum carry the shares; ``recover_chain`` decides from them what the dropped seat
contributes to the chance steps from then on: its recombined chain (its real reveals), or the
public stand-in (``dropped_reveal``) when its escrow was never confirmed, when m - t + 1 released
keys show entries that do not open (no t valid shares are left), or when the dealer's shares do
not open its committed chain (a bad escrow, proven by the signed escrow, the signed shares and the
chain head of the setup: the dealer loses its seat, the game goes on).

What a bad escrow still buys its dealer (protocol.md §C8.5 "RANDAO bias"): the hash
commitments check each share alone, never that the shares lie on one polynomial whose secret
opens the chain head, so a dealer can deal shares that cannot be recombined, withhold its reveal
once it holds everyone else's, and choose between the real outcome and the stand-in outcome,
both known to it: one bit of choice, at the price of its seat.

The DROP log record (``drop_record``, ``check_drop_record``) carries the deciding votes and the
dealer's escrow, so a verifier re-runs ``recover_chain`` on it alone.

Shares are derived from the secret (no randomness to store, context gid || epoch); a restarted
peer re-creates the same ESCROW bytes (deterministic ChaCha20-Poly1305 with a per-key fixed
nonce, Ed25519).
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple, Sequence

from . import aead
from . import const as C
from . import threshold
from .beacon import HashChain
from .escrow_acks import AckLedger, escrow_hash
from .identity import Identity
from .errors import WireError
from .gamelog import DROP_RECORD
from .gamelog import DropRecord as DropPayload
from .wire import (MSG_DROP, MSG_ESCROW, DropVote, Escrow, EscrowEntry, Setup, decode_drop, decode_escrow,
                   open_envelope, seal_message)

_sha256 = hashlib.sha256
#: Each key encrypts exactly one share (the key is bound to game, seats and epoch).
NONCE = bytes(12)

#: ``recover_chain`` result while the votes held decide nothing yet (fewer than t valid shares and
#: fewer than m - t + 1 released keys, open votes, or shares that cannot be checked without the
#: dropped seat's escrow).
UNDECIDED = "undecided"
#: Why a dealer's escrow is proven bad when a quorum's shares do not open its chain.
BAD_RECOMBINATION = "escrow shares do not open its hash chain"
#: Why a voter's share is proven false (or its released key, version 5: it opens no bad entry).
BAD_VOTE_SHARE = "drop vote share does not match the escrow commitment"
#: Why a dealer is proven when a released key (version 5) shows a voter's entry does not open
#: (the reason of a kind-3 complaint, §C8.8).
BAD_ENTRY = "escrow share does not match its commitment"


def share_ctx(gid: bytes, dealer: int, to: int, epoch: int) -> bytes:
    """The binding of one share: gid (16 B) || dealer (1 B) || to (1 B) || epoch (2 B BE);
    the AEAD's associated data and part of the key and commitment inputs (§C8.2)."""
    return gid + bytes((dealer, to)) + epoch.to_bytes(2, "big")


def pair_key(identity: Identity, peer_x25519: bytes, gid: bytes, dealer: int, to: int, epoch: int) -> bytes:
    """32-byte ChaCha20-Poly1305 key for the share ``dealer`` deals to ``to`` in ``epoch``:
    SHA-256("lanopoli/1/escrow-key\\0" || X25519(our key, peer key) || gid || dealer || to ||
    epoch as 2 bytes BE). Both ends compute it. Raises ``ValueError`` for a bad peer key."""
    shared = identity.x25519_exchange(peer_x25519)
    return _sha256(C.SIG_PREFIX + b"escrow-key\x00" + shared + share_ctx(gid, dealer, to, epoch)).digest()


def share_commit(share: bytes, gid: bytes, dealer: int, to: int, epoch: int) -> bytes:
    """Public commitment to one share: SHA-256("lanopoli/1/escrow-commit\\0" || gid || dealer ||
    to || epoch (2 bytes) || share). Shares are 256-bit pseudo-random, so this hides them."""
    return _sha256(C.SIG_PREFIX + b"escrow-commit\x00" + share_ctx(gid, dealer, to, epoch) + share).digest()


def quorum(seats: int) -> int:
    """Votes needed to drop a seat, and the escrow threshold: a strict majority of all the
    setup's ``seats``, floor(seats / 2) + 1 (protocol.md §C8.3)."""
    return seats // 2 + 1


def make_shares(secret: bytes, gid: bytes, epoch: int, recipients: Sequence[int], t: int) -> dict[int, bytes]:
    """Shamir shares (threshold ``t``) of ``secret`` (32 bytes) for ``recipients`` (ascending
    seats): ``{seat: 66-byte share}`` (``threshold.split``, context gid || epoch as 2 bytes BE).
    Deterministic (module docstring)."""
    return threshold.split(secret, gid + epoch.to_bytes(2, "big"), t, list(recipients))


def make_escrow(identity: Identity, secret: bytes, gid: bytes, dealer: int, epoch: int,
                recipients: Sequence[int], x25519_keys: Sequence[bytes], t: int) -> bytes:
    """The signed ESCROW envelope of ``dealer`` for ``epoch``: body ``[gid, dealer, epoch,
    [[to, commit, ct], ...]]`` with one entry per recipient (ascending), shares of threshold
    ``t``. ``x25519_keys``: every seat's X25519 public key (setup order)."""
    shares = make_shares(secret, gid, epoch, recipients, t)
    entries = []
    for v in recipients:
        key = pair_key(identity, x25519_keys[v], gid, dealer, v, epoch)
        ct = aead.encrypt(key, NONCE, shares[v], share_ctx(gid, dealer, v, epoch))
        entries.append(EscrowEntry(v, share_commit(shares[v], gid, dealer, v, epoch), ct))
    return seal_message(identity, MSG_ESCROW, Escrow(gid, dealer, epoch, tuple(entries)))


def open_share(identity: Identity, escrow: Escrow, me: int, dealer_x25519: bytes) -> bytes | None:
    """Decrypt our share from ``escrow`` and check it against its commitment. Returns the
    66-byte share, or None if there is no entry for us, it does not decrypt, or it does not
    match its commitment (the dealer cheated or the message was damaged)."""
    entry = next((e for e in escrow.entries if e.to == me), None)
    if entry is None:
        return None
    try:
        key = pair_key(identity, dealer_x25519, escrow.game_id, escrow.seat, me, escrow.epoch)
    except ValueError:  # not a usable X25519 key
        return None
    share = aead.decrypt(key, NONCE, entry.ct, share_ctx(escrow.game_id, escrow.seat, me, escrow.epoch))
    if share is None or len(share) != threshold.SHARE_LEN or not check_share(escrow, me, share):
        return None
    return share


def check_share(escrow: Escrow, voter: int, share: bytes) -> bool:
    """True if ``share`` (published in ``voter``'s DROP vote) matches the commitment the
    dealer signed for ``voter`` in ``escrow``."""
    entry = next((e for e in escrow.entries if e.to == voter), None)
    return entry is not None and share_commit(share, escrow.game_id, escrow.seat, voter, escrow.epoch) == entry.commit


def key_proves_bad(escrow: Escrow, voter: int, key: bytes) -> bool:
    """True if ``key`` (32 bytes, published in ``voter``'s released DROP vote instead of a share,
    version 5) is ``voter``'s pairwise key of its entry in ``escrow``: it decrypts the entry (the
    AEAD tag checks), and what it decrypts is no share matching the dealer's commitment, so the
    dealer's escrow is proven bad (COMPLAINT kind 3's evidence, §C8.8; protocol.md §C8.3 rule
    (a)). False if there is no entry, the key does not decrypt it (the voter lied), or the share
    matches (the voter withheld a good share: it lied)."""
    entry = next((e for e in escrow.entries if e.to == voter), None)
    if entry is None or len(key) != C.HASH_LEN:
        return False
    share = aead.decrypt(key, NONCE, entry.ct, share_ctx(escrow.game_id, escrow.seat, voter, escrow.epoch))
    return share is not None and (len(share) != threshold.SHARE_LEN or not check_share(escrow, voter, share))


def released(v: DropVote) -> bool:
    """True if ``v`` is a released vote (version 5, protocol.md §C8.3 rule (a)): its ``share``
    field carries a share (``SHARE_LEN`` bytes) or a pairwise key (32 bytes); nil = open."""
    return v.share is not None


def valid_release(escrow: Escrow, v: DropVote) -> bool:
    """True if the released vote ``v`` is true to ``escrow`` (the dealer's, same epoch): its
    share matches the dealer's commitment for the voter (``check_share``), or its key proves the
    voter's entry bad (``key_proves_bad``). An open vote is no release (False)."""
    if v.share is None:
        return False
    if len(v.share) == threshold.SHARE_LEN:
        return check_share(escrow, v.voter, v.share)
    return key_proves_bad(escrow, v.voter, v.share)


def recombine(escrow: Escrow, shares: dict[int, bytes], chain_head: bytes, chain_length: int,
              t: int) -> HashChain | None:
    """Recombine the dealer's chain secret from ``t`` shares ``{voter: share}`` of ``escrow``
    and rebuild its ``HashChain``; None if SHA-256^n(secret) is not the committed
    ``chain_head`` or the secret does not re-create every committed share (the dealer dealt
    shares that no single secret explains: whichever t shares a peer holds, it gets None)."""
    secret = threshold.combine(shares)
    if secret is None:
        return None
    chain = HashChain(secret, chain_length)
    if chain.head != chain_head:
        return None
    recipients = [e.to for e in escrow.entries]
    again = make_shares(secret, escrow.game_id, escrow.epoch, recipients, t)
    for e in escrow.entries:
        if share_commit(again[e.to], escrow.game_id, escrow.seat, e.to, escrow.epoch) != e.commit:
            return None
    return chain


def dropped_reveal(gid: bytes, seat: int, j: int) -> bytes:
    """Public stand-in reveal of a dropped seat at the j-th chance step when its chain could not
    be recombined: SHA-256("lanopoli/1/dropped\\0" || gid || seat || j as 8 bytes BE)."""
    return _sha256(C.SIG_PREFIX + b"dropped\x00" + gid + bytes((seat,)) + j.to_bytes(8, "big")).digest()


class Recovery(NamedTuple):
    """What a set of drop votes decides about the dropped seat's chain (``recover_chain``).

    ``chain``: its recombined ``HashChain``; None for the public stand-in reveals; or
    ``UNDECIDED`` (wait for more votes, their release or its escrow). ``cheat``:
    ``BAD_RECOMBINATION`` when t valid shares do not open its committed chain, ``BAD_ENTRY`` when
    m - t + 1 released keys show their voters' entries do not open (``chain`` None; a single key
    with t valid shares elsewhere decides the chain, cheat None: the key's kind-3 complaint
    proves the dealer all the same),
    else None. ``used``: the voters (ascending, exactly t = Q of them) whose votes decide, to be
    logged in the DROP record; () while undecided. ``liars``: voters whose share does not match
    the dealer's commitment (their votes do not count; proven against them, never the dealer)."""

    chain: HashChain | None | str
    cheat: str | None
    used: tuple
    liars: tuple


def recover_chain(setup: Setup, escrow: Escrow | None, votes: Sequence[DropVote], recipients: int,
                  confirmed: bool = True) -> Recovery:
    """The dropped seat's chain from ``votes`` (distinct voters, ascending; open or released,
    protocol.md §C8.3 'Recombination', version 5), given the number of ``recipients`` of its
    escrow (the other active seats), m, and t = Q:

    * ``confirmed`` False: its escrow of the epoch is not CONFIRMED in the agreed history
      (``escrow_acks``; never acknowledged by every recipient, or acknowledged with two hashes):
      nobody has revealed at a chance step since it was dealt, so the stand-in gives no choice;
      the first t votes decide it, open or released, their shares are not looked at (an honest
      voter may hold another copy than ours: judging it would frame it, §C8.2);
    * with its ``escrow``, a released vote that is not true to it (``valid_release``: a share
      that does not match its commitment, a key that does not prove its entry bad) is a lie of
      the voter (``liars``) and does not count;
    * fewer than t counted votes: ``UNDECIDED``;
    * no escrow is dealt in this epoch (m < t): the stand-in;
    * without its escrow: ``UNDECIDED`` (nothing can be checked);
    * at least t released shares: the chain recombined from the first t; if they do not open
      the chain head, the stand-in with ``cheat`` = ``BAD_RECOMBINATION``. Every t valid
      shares of an honest escrow give the same secret and no t of a bad one open the chain;
    * at least m - t + 1 released keys (each proves its entry bad, so at most t - 1 valid shares
      exist): the stand-in with ``cheat`` = ``BAD_ENTRY``; the keys (the first m - t + 1) and
      then the lowest others (released first) are the t logged;
    * otherwise (open votes not released yet, or fewer keys): ``UNDECIDED``. An open vote never
      means "no share" (version 4's m - t + 1 shareless votes deciding the stand-in is gone:
      the first open votes would have chosen it), and fewer than m - t + 1 keys decide nothing
      (H127's fork: one key + t - 1 votes decided the stand-in where t good shares of the
      other entries recombined the chain).
    t valid shares and m - t + 1 keys are t + m - t + 1 > m distinct voters: they never both
    exist unless a voter signs both (an equivocation, kind 1), so every peer decides the same
    (chain, stand-in, cheat) whichever quorum it holds (property test in
    tests/p2p/test_escrow_decision.py)."""
    t = quorum(setup.seats)
    if not confirmed:
        escrow = None
        if len(votes) >= t:
            return Recovery(None, None, tuple(v.voter for v in votes[:t]), ())
    liars = ()
    if escrow is not None:
        liars = tuple(v.voter for v in votes if released(v) and not valid_release(escrow, v))
    counted = [v for v in votes if v.voter not in liars]
    if len(counted) < t:
        return Recovery(UNDECIDED, None, (), liars)
    if recipients < t:
        return Recovery(None, None, tuple(v.voter for v in counted[:t]), liars)  # no escrow dealt (§C8.2)
    if escrow is None:
        return Recovery(UNDECIDED, None, (), liars)  # shares we cannot check yet
    with_share = [v for v in counted if released(v) and len(v.share) == threshold.SHARE_LEN]
    if len(with_share) >= t:
        used = with_share[:t]
        chain = recombine(escrow, {v.voter: v.share for v in used}, setup.players[escrow.seat].chain_head,
                          setup.chain_length, t)
        return Recovery(chain, None if chain is not None else BAD_RECOMBINATION, tuple(v.voter for v in used),
                        liars)
    keys = [v for v in counted if released(v) and len(v.share) == C.HASH_LEN]
    bad = recipients - t + 1  # entries proven bad: no t valid shares are left
    if len(keys) >= bad:
        # The record alone must show it: the keys first, then the lowest others (released first).
        proof = {v.voter for v in keys[:bad]}
        rest = sorted((v for v in counted if v.voter not in proof), key=lambda v: (not released(v), v.voter))
        return Recovery(None, BAD_ENTRY, tuple(sorted(v.voter for v in keys[:bad] + rest[:t - bad])), liars)
    return Recovery(UNDECIDED, None, (), liars)  # open votes: their voters release once they hold Q


# --- the DROP log record: what a quorum decided, checkable alone (§C6, §C8.3) ------------------

def drop_record(step: int, seat: int, votes: Sequence[bytes], escrow: bytes | None) -> bytes:
    """Payload of a DROP log record (protocol.md §C6): msgpack [step, seat, [DROP envelopes in voter
    seat order], ESCROW envelope of the dropped seat or nil] (the table ``gamelog.DROP_RECORD``)."""
    return DROP_RECORD.encode(DropPayload(step, seat, list(votes), escrow))


class DropRecord(NamedTuple):
    """A checked DROP log record (``check_drop_record``): the dropped ``seat``, the vote
    envelopes, its ESCROW envelope or None, its recombined ``chain`` or None (stand-in), and
    ``cheat``: ``BAD_RECOMBINATION`` or ``BAD_ENTRY`` when the record proves its escrow bad
    (t shares that do not open the chain, or m - t + 1 released keys), else None."""

    seat: int
    votes: list
    escrow: bytes | None
    chain: HashChain | None
    cheat: str | None


def check_drop_record(setup: Setup, active: Sequence[bool], epoch: int, step: int, payload: bytes,
                      acks: AckLedger | None = None) -> DropRecord:
    """Verify a DROP log record for ``step`` (protocol.md §C6, §C8.3): valid signed votes for
    (step, seat, epoch) of at least Q = ``quorum(seats)`` distinct active seats other than
    ``seat``, in ascending voter order; the dropped seat's signed escrow if present; shares
    matching their commitments and deciding (``recover_chain``: recombined, stand-in, or
    stand-in because t valid shares do not open the chain or m - t + 1 released keys show
    entries that do not open: the dealer's bad escrow, proven by the record alone). With ``acks``
    (the agreed acknowledgements, §C8.2): the record's escrow must be the CONFIRMED one (nil when
    none is: then the stand-in, shares not looked at).
    Raises ``ValueError`` with the reason."""
    gid = setup.game_id
    keys = [p.public_key for p in setup.players]
    try:
        rstep, seat, votes, esc_raw = DROP_RECORD.decode(payload)  # types and shape (WireError)
        votes = list(votes)
        if rstep != step or not 0 <= seat < setup.seats or not active[seat]:
            raise ValueError("drop record not for this step or an active seat")
        esc = None
        if esc_raw is not None:
            eenv = open_envelope(esc_raw)
            esc = decode_escrow(eenv.body)
            if eenv.mtype != MSG_ESCROW or esc.seat != seat or esc.game_id != gid or esc.epoch != epoch \
                    or not eenv.verify(keys[seat]):
                raise ValueError("bad escrow in drop record")
        if len(votes) < quorum(setup.seats):
            raise ValueError("drop record without a quorum of votes")
        decoded = []
        last = -1
        for raw in votes:
            venv = open_envelope(raw)
            v = decode_drop(venv.body)
            if venv.mtype != MSG_DROP or v.game_id != gid or v.voter <= last or v.voter == seat \
                    or not active[v.voter] or v.step != step or v.seat != seat or v.epoch != epoch \
                    or not venv.verify(keys[v.voter]):
                raise ValueError(f"bad drop vote of seat {v.voter}")
            last = v.voter
            decoded.append(v)
    except (WireError, TypeError) as e:
        raise ValueError(f"malformed drop record: {e}") from None
    confirmed = True
    if acks is not None:
        status = acks.status(seat, epoch)
        confirmed = isinstance(status, bytes)
        if esc_raw is not None and (not confirmed or escrow_hash(esc_raw) != status):
            raise ValueError("drop record with an escrow that is not the confirmed one")
    r = recover_chain(setup, esc, decoded, sum(active) - 1, confirmed)
    if r.liars:
        raise ValueError(f"seat {r.liars[0]}: {BAD_VOTE_SHARE}")  # an honest peer never logs such a vote
    if r.chain is UNDECIDED:
        raise ValueError("drop record whose votes decide no reveal (too few shares or keys, or no escrow)")
    return DropRecord(seat, votes, esc_raw, r.chain, r.cheat)


def past_drop(setup: Setup, payload: bytes, applied: int) -> tuple[int, int] | None:
    """(step, seat) if ``payload`` (a DROP log record from a catch-up) drops a seat at a step
    before ``applied`` with valid signed votes, open or released, of Q distinct seats other than
    it (§C8.3 'Stale votes': the rule of a record of a past step); else None."""
    gid, keys = setup.game_id, [p.public_key for p in setup.players]
    try:
        step, seat, votes, _ = DROP_RECORD.decode(payload)  # types and shape (WireError)
        if seat >= setup.seats or step >= applied:
            return None
        voters = set()
        for raw in votes:
            env = open_envelope(raw)
            v = decode_drop(env.body)
            # voter < n before indexing the keys: the table bounds it by MAX_SEATS only.
            if env.mtype == MSG_DROP and v.game_id == gid and v.step == step and v.seat == seat \
                    and v.voter != seat and v.voter < setup.seats and env.verify(keys[v.voter]):
                voters.add(v.voter)
    except WireError:
        return None
    return (step, seat) if len(voters) >= quorum(setup.seats) else None
