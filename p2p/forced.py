"""Forced reveals: the one STEP body a seat may send at a plain chance step, accepted without
its signature check (protocol.md §C3.8, version 4; issue 14).

At a **plain chance step** — the engine waits for a chance step, the step is not an escrow
round (§C8.2), the game has no hidden information (§C12) and it is not the final attestation —
a seat has no choice to make: its input is the next value of its hash chain (§C4), fixed by
the reveal it made before, and it carries no other field (no acks: none is owed once every
escrow is CONFIRMED, which an escrow round waits for; re-seat requests wait for the next step
that is not a plain chance step). Its body is therefore fully determined by the game id, the
step, the seat, the history (prev hash, prev digest) and that reveal:

    forced_body = pack([game_id, step, seat, prev_hash, prev_digest, reveal])   (6 fields, §C3.1)

Two versions of it over one history are the same bytes, so it can neither equivocate nor
carry anything its seat could deny; its signature would only say that the seat reached that
step, which the reveal itself says (nobody else knew it before). A peer therefore holds a
forced body at its current step, and accepts one in a record, **whatever its signature**: that
is the verify a peer skips at ~40% of the STEP messages of a classico game (Ed25519 is ~30% of
a 4-peer lockstep's CPU). A forced body is never evidence against its seat (§C8.8): a proof
needs a verified signature.

Pure functions, no state; the caller says whether the step is a plain chance step and gives
its own history and the seat's previous reveal.
"""

from __future__ import annotations

import hashlib

from . import const as C
from .bodies import StepBody
from .schema import pack
from .wire import encode_step_body

__all__ = ["forced_body", "is_forced", "other_fields", "plain_chance"]

_sha256 = hashlib.sha256


def plain_chance(chance: bool, escrow_round: bool, hidden: bool, final: bool) -> bool:
    """True if the step is a plain chance step (protocol.md §C3.8): ``chance`` (the engine
    waits for a chance step, ``engine.pending(state).chance``), not an ``escrow_round``
    (§C8.2), no ``hidden`` information in the game (§C12) and not the ``final`` attestation
    (§C3.5)."""
    return chance and not escrow_round and not hidden and not final


def forced_body(game_id: bytes, step: int, seat: int, prev_hash: bytes, prev_digest: bytes,
                reveal: bytes) -> bytes:
    """The forced body of ``seat`` at plain chance step ``step``: the canonical msgpack bytes of
    the 6-field STEP body ``[game_id, step, seat, prev_hash, prev_digest, reveal]`` (§C3.1,
    §C3.8). ``game_id``: 16 bytes; ``prev_hash``, ``prev_digest``, ``reveal``: 32 bytes each; ``step``,
    ``seat``: non-negative ints."""
    return pack(encode_step_body(game_id, step, seat, prev_hash, prev_digest, reveal))


def is_forced(body: bytes, b: StepBody, prev_hash: bytes, prev_digest: bytes, last_reveal: bytes) -> bool:
    """True if ``body`` (the signed bytes of STEP body ``b``, already decoded) is its seat's
    forced body over the history ``prev_hash``/``prev_digest`` (ours, or the replay's): input a
    32-byte reveal with SHA-256(reveal) == ``last_reveal`` (the seat's previous reveal, its
    committed chain head the first time, §C4), no other field, canonical bytes. The caller
    checks that the step is a plain chance step (``plain_chance``) and that ``b`` is of the
    game, step and seat it expects. Costs one SHA-256 and one msgpack encoding (~2 µs; an
    Ed25519 verify is ~40 µs here)."""
    r = b.input
    if type(r) is not bytes or len(r) != C.HASH_LEN or b.prev_hash != prev_hash or b.prev_digest != prev_digest:
        return False
    if _sha256(r).digest() != last_reveal:
        return False
    return body == forced_body(b.game_id, b.step, b.seat, prev_hash, prev_digest, r)


def other_fields(body: bytes, b: StepBody, prev_hash: bytes, prev_digest: bytes) -> bool:
    """True if ``body`` (the signed bytes of STEP body ``b``, already decoded) is over the
    history ``prev_hash``/``prev_digest`` but is not the 6-field body of its own input: it
    carries a hidden field, re-seat requests or acks, which a plain chance step does not allow
    (§C3.8: refused, counted ``not_forced``). A 6-field body over that history (a wrong reveal,
    nil, an action) is not: its application judges it (§C3.3, §C8.8); a body over another
    history is judged as such (§C3.4). The caller checks that the step is a plain chance step."""
    return b.prev_hash == prev_hash and b.prev_digest == prev_digest \
        and body != forced_body(b.game_id, b.step, b.seat, prev_hash, prev_digest, b.input)
