"""Seat loss: chain-secret escrow, drop votes and what a dropped seat contributes
(DESIGN.md §3 "a seat that withholds its reveal has left the game"; protocol.md §C8).

Why an escrow
-------------
At a chance step every seat reveals the next pre-image of its hash chain and the beacon is the
hash of all reveals. Reveals are fixed in advance, so nobody can steer them, but the last seat
to reveal sees everyone else's reveal first, can compute the outcome and could *withhold* if it
dislikes it. If a withheld reveal were replaced by anything the withholder did not already
have to accept, withholding would be a free re-roll. So a withheld reveal must be replaced by
**the very reveal the seat would have sent**: every seat deals its chain secret s (h_0) in
XOR shares to all other active seats (ESCROW, one per seat and epoch), each share encrypted to
its recipient and committed in the clear; a seat reveals at a chance step only once it holds a
valid escrow from every other active seat. When the others agree to drop a seat (every other
active seat signs a DROP vote carrying its share), anyone recombines s, checks
SHA-256^n(s) = the committed chain head, and computes the dropped seat's reveal of that step
and of every later chance step: the outcome is exactly what it would have been. Withholding
can delay a roll, never change it.

If some voter holds no share of the dropped seat, that voter has not revealed at this chance
step (reveals wait for all escrows), so the dropped seat could not have known the outcome;
its contribution is then the public constant ``dropped_reveal(gid, seat, j)``.

Limits (written in protocol.md §C8.5): the other seats together can recombine any seat's chain, so
all N-1 other seats colluding could predict that seat's future rolls (they can already vote it
out); with two seats the "others" are one player, so no escrow is dealt and a withholder in a
two-seat game can re-roll once at the price of its seat (fair coin flipping between two parties
is impossible without an honest majority, Cleve 1986).

Shares are derived from the secret (no randomness to store): for the recipients v_1 < ... <
v_m of epoch e, x_{v_i} = SHA-256("lanopoli/1/escrow-share\\0" || s || gid || e || v_i) for
i < m and x_{v_m} = s XOR x_{v_1} XOR ... XOR x_{v_{m-1}}; a restarted peer re-creates the same
ESCROW bytes (deterministic ChaCha20-Poly1305 with a per-key fixed nonce, Ed25519).
"""

from __future__ import annotations

import hashlib
import importlib
from typing import Any, Callable, Collection, Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from . import const as C
from .beacon import HashChain
from .identity import Identity
from .errors import WireError
from .wire import (MSG_DROP, MSG_ESCROW, DropVote, Escrow, Setup, decode_drop, decode_escrow, open_envelope,
                   pack, seal, unpack)

_sha256 = hashlib.sha256
_NONCE = bytes(12)  # each key encrypts exactly one share (key bound to game, seats, epoch)

RULE_BOT = "bot"
RULE_BANKRUPT = "bankrupt"
RULES = (RULE_BOT, RULE_BANKRUPT)


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


def _ctx(gid: bytes, dealer: int, to: int, epoch: int) -> bytes:
    return gid + bytes((dealer, to)) + epoch.to_bytes(2, "big")


def pair_key(identity: Identity, peer_x25519: bytes, gid: bytes, dealer: int, to: int, epoch: int) -> bytes:
    """32-byte ChaCha20-Poly1305 key for the share ``dealer`` deals to ``to`` in ``epoch``:
    SHA-256("lanopoli/1/escrow-key\\0" || X25519(our key, peer key) || gid || dealer || to ||
    epoch as 2 bytes BE). Both ends compute it. Raises ``ValueError`` for a bad peer key."""
    shared = identity.x25519_exchange(peer_x25519)
    return _sha256(C.SIG_PREFIX + b"escrow-key\x00" + shared + _ctx(gid, dealer, to, epoch)).digest()


def share_commit(share: bytes, gid: bytes, dealer: int, to: int, epoch: int) -> bytes:
    """Public commitment to one share: SHA-256("lanopoli/1/escrow-commit\\0" || gid || dealer ||
    to || epoch (2 bytes) || share). Shares are 256-bit pseudo-random, so this hides them."""
    return _sha256(C.SIG_PREFIX + b"escrow-commit\x00" + _ctx(gid, dealer, to, epoch) + share).digest()


def make_shares(secret: bytes, gid: bytes, epoch: int, recipients: Sequence[int]) -> dict[int, bytes]:
    """XOR shares of ``secret`` (32 bytes) for ``recipients`` (ascending seats, at least 2):
    ``{seat: share}``; XOR of all shares = secret. Deterministic (module docstring)."""
    out: dict[int, bytes] = {}
    acc = secret
    for v in recipients[:-1]:
        x = _sha256(C.SIG_PREFIX + b"escrow-share\x00" + secret + gid + epoch.to_bytes(2, "big")
                    + bytes((v,))).digest()
        out[v] = x
        acc = _xor(acc, x)
    out[recipients[-1]] = acc
    return out


def make_escrow(identity: Identity, secret: bytes, gid: bytes, dealer: int, epoch: int,
                recipients: Sequence[int], x25519_keys: Sequence[bytes]) -> bytes:
    """The signed ESCROW envelope of ``dealer`` for ``epoch``: body ``[gid, dealer, epoch,
    [[to, commit, ct], ...]]`` with one entry per recipient (ascending). ``x25519_keys``: every
    seat's X25519 public key (setup order)."""
    shares = make_shares(secret, gid, epoch, recipients)
    entries = []
    for v in recipients:
        key = pair_key(identity, x25519_keys[v], gid, dealer, v, epoch)
        ct = ChaCha20Poly1305(key).encrypt(_NONCE, shares[v], _ctx(gid, dealer, v, epoch))
        entries.append([v, share_commit(shares[v], gid, dealer, v, epoch), ct])
    return seal(identity, MSG_ESCROW, [gid, dealer, epoch, entries])


def open_share(identity: Identity, escrow: Escrow, me: int, dealer_x25519: bytes) -> bytes | None:
    """Decrypt our share from ``escrow`` and check it against its commitment. Returns the
    32-byte share, or None if there is no entry for us, it does not decrypt, or it does not
    match its commitment (the dealer cheated or the message was damaged)."""
    entry = next((e for e in escrow.entries if e.to == me), None)
    if entry is None:
        return None
    try:
        key = pair_key(identity, dealer_x25519, escrow.game_id, escrow.seat, me, escrow.epoch)
        share = ChaCha20Poly1305(key).decrypt(_NONCE, entry.ct, _ctx(escrow.game_id, escrow.seat, me, escrow.epoch))
    except (InvalidTag, ValueError):
        return None
    if len(share) != C.HASH_LEN or share_commit(share, escrow.game_id, escrow.seat, me, escrow.epoch) != entry.commit:
        return None
    return share


def check_share(escrow: Escrow, voter: int, share: bytes) -> bool:
    """True if ``share`` (published in ``voter``'s DROP vote) matches the commitment the
    dealer signed for ``voter`` in ``escrow``."""
    entry = next((e for e in escrow.entries if e.to == voter), None)
    return entry is not None and share_commit(share, escrow.game_id, escrow.seat, voter, escrow.epoch) == entry.commit


def recombine(shares: Sequence[bytes], chain_head: bytes, chain_length: int) -> HashChain | None:
    """XOR the shares into the dealer's chain secret and rebuild its ``HashChain``; None if
    SHA-256^n(secret) is not the committed ``chain_head`` (the dealer's shares were bad)."""
    s = bytes(32)
    for x in shares:
        s = _xor(s, x)
    chain = HashChain(s, chain_length)
    return chain if chain.head == chain_head else None


def dropped_reveal(gid: bytes, seat: int, j: int) -> bytes:
    """Public stand-in reveal of a dropped seat at the j-th chance step when its chain could not
    be recombined: SHA-256("lanopoli/1/dropped\\0" || gid || seat || j as 8 bytes BE)."""
    return _sha256(C.SIG_PREFIX + b"dropped\x00" + gid + bytes((seat,)) + j.to_bytes(8, "big")).digest()


def drop_rule(options: dict) -> tuple[str | None, float]:
    """(rule, timeout seconds) from setup options: rule None when seat loss is off (no
    ``p2p.on_drop`` option). Unknown rules and out-of-range timeouts fall back to the
    defaults (the lobby validates them; a setup is signed by all, so all peers agree)."""
    rule = options.get(C.OPT_ON_DROP)
    if rule is None:
        return None, float(C.DEFAULT_DROP_TIMEOUT)
    if rule not in RULES:
        rule = C.DEFAULT_ON_DROP
    t = options.get(C.OPT_DROP_TIMEOUT, C.DEFAULT_DROP_TIMEOUT)
    if type(t) is not int or not C.MIN_DROP_TIMEOUT <= t <= C.MAX_DROP_TIMEOUT:
        t = C.DEFAULT_DROP_TIMEOUT
    return rule, float(t)


def turn_time(options: dict) -> float:
    """Seconds an alive seat may take at one step before the others vote it out (protocol.md part C
    §8.3): ``p2p.turn_time`` (int, 0 = unlimited: returns 0.0), else ``DEFAULT_TURN_TIME``.
    An out-of-range value falls back to the default (the lobby refuses it; the setup is signed
    by all, so all peers agree)."""
    t = options.get(C.OPT_TURN_TIME, C.DEFAULT_TURN_TIME)
    if type(t) is not int or not 0 <= t <= C.MAX_TURN_TIME:
        t = C.DEFAULT_TURN_TIME
    return float(t)


def default_bot(engine: Any) -> Callable[[Any, int], Any]:
    """The deterministic bot that plays a dropped seat: ``engine.bots.choose(state, seat,
    "default")`` (ARCHITECTURE.md §1); an engine without bots gets "always nothing".

    The bots are the subpackage ``<engine>.bots``, imported here: ``engine`` does not import
    it, so the attribute exists only once someone did, and a verifier that never had would
    replay a dropped seat as "always nothing" and call a good log bad. An engine that is a
    plain module or object (test stand-ins) is only looked at."""
    bots = getattr(engine, "bots", None)
    if bots is None and hasattr(engine, "__path__"):  # a package: the rules engine
        try:
            bots = importlib.import_module(engine.__name__ + ".bots")
        except ModuleNotFoundError as exc:
            if exc.name != engine.__name__ + ".bots":
                raise  # the bots exist but something they need is missing: say so
    choose = getattr(bots, "choose", None)
    if choose is None:
        return lambda state, seat: None
    return lambda state, seat: choose(state, seat, "default")


def dropped_input(bot: Callable[[Any, int], Any], state: Any, seat: int, dropped: Collection[int]) -> Any:
    """Decision-step input of dropped ``seat`` played by ``bot`` (protocol.md §C8.4), given the
    seats dropped so far: in a timed game, ``TimeUp`` once a strict majority of the seats
    neither bankrupt nor dropped have voted that the time is up
    (``engine.rules.timed.absent_vote``, protocol.md part E "TimeUp contract"), so absent players never
    block the end of the time; otherwise the bot's action. Deterministic: every peer and the
    verifier fill the same input. States without ``time_up`` (test engines) get the bot's."""
    if getattr(state, "time_up", None) is not None:
        from engine.actions import TimeUp
        from engine.rules.timed import absent_vote

        if absent_vote(state, seat, dropped):
            return TimeUp()
    return bot(state, seat)


def drop_record(step: int, seat: int, votes: Sequence[bytes], escrow: bytes | None) -> bytes:
    """Payload of a DROP log record (protocol.md §C6): msgpack [step, seat, [DROP envelopes in voter
    seat order], ESCROW envelope of the dropped seat or nil]."""
    return pack([step, seat, list(votes), escrow])


def recover_chain(setup: Setup, escrow: Escrow | None, votes: Sequence[DropVote],
                  escrow_needed: bool) -> tuple[HashChain | None, tuple | None]:
    """The dropped seat's recombined chain from the votes' shares (protocol.md §C8.3), or None when
    not every voter holds a share (then the public stand-in applies). Second item: None, or
    (culprit seat, reason) when a share does not match its commitment (the voter lied) or the
    shares do not open the committed chain (the dealer cheated)."""
    if not escrow_needed or escrow is None or any(v.share is None for v in votes):
        return None, None
    for v in votes:
        if not check_share(escrow, v.voter, v.share):
            return None, (v.voter, "drop vote share does not match the escrow commitment")
    seat = escrow.seat
    chain = recombine([v.share for v in votes], setup.players[seat].chain_head, setup.chain_length)
    if chain is None:
        return None, (seat, "escrow shares do not open its hash chain")
    return chain, None


def check_drop_payload(setup: Setup, active: Sequence[bool], epoch: int, step: int, payload: bytes,
                       escrow_needed: bool) -> tuple:
    """Verify a DROP log record for ``step`` (protocol.md §C6, §8.3): one valid signed vote of every
    other active seat for (step, seat, epoch), the dropped seat's signed escrow if present,
    shares matching their commitments and opening the chain. Returns (seat, votes, escrow raw,
    recombined chain or None); raises ``ValueError`` with the reason."""
    gid = setup.game_id
    keys = [p.public_key for p in setup.players]
    try:
        rstep, seat, votes, esc_raw = unpack(payload)
        if rstep != step or type(seat) is not int or not 0 <= seat < setup.seats or not active[seat]:
            raise ValueError("drop record not for this step or an active seat")
        esc = None
        if esc_raw is not None:
            eenv = open_envelope(esc_raw)
            esc = decode_escrow(eenv.body)
            if eenv.mtype != MSG_ESCROW or esc.seat != seat or esc.game_id != gid or not eenv.verify(keys[seat]):
                raise ValueError("bad escrow in drop record")
        voters = [i for i in range(setup.seats) if active[i] and i != seat]
        if type(votes) is not list or len(votes) != len(voters):
            raise ValueError("drop record without one vote per other active seat")
        decoded = []
        for i, raw in zip(voters, votes):
            venv = open_envelope(raw)
            v = decode_drop(venv.body)
            if venv.mtype != MSG_DROP or v.game_id != gid or v.voter != i or v.step != step or v.seat != seat \
                    or v.epoch != epoch or not venv.verify(keys[i]):
                raise ValueError(f"bad drop vote of seat {i}")
            decoded.append(v)
    except (WireError, TypeError) as e:
        raise ValueError(f"malformed drop record: {e}") from None
    chain, problem = recover_chain(setup, esc, decoded, escrow_needed)
    if problem is not None:
        raise ValueError(f"seat {problem[0]}: {problem[1]}")
    return seat, votes, esc_raw, chain
