"""Vectors of the randomness and the signatures (make_vectors.py part): rng.json (protocol.md §E3,
the beacon PRNG: stream bytes, dice, card draws, ``below(n)``), chain.json (§C4: demo secrets, hash
chains, seed commitments, game seed, beacons) and sig.json (§C2/§C3: a demo identity, a STEP body,
its domain-separated signed bytes, signature and envelope; a step digest).
"""

from __future__ import annotations

import hashlib

import repo_first  # noqa: F401  (the repository's engine/p2p first on sys.path)

from engine.rng import BeaconRng
from p2p import beacon as B
from p2p import const as C
from p2p.identity import Identity, signed_bytes
from p2p.lockstep import step_digest
from p2p.wire import MSG_STEP, StepBody, encode_step, seal_message

from vec_labels import label_hash as _h


RNG_BOUNDS = [2, 3, 6, 16, 28, 40, 100, 251, 257, 1000, 65537, 2**31 + 1, 2**32]


def _rng_beacons() -> list[bytes]:
    """Fixed beacons: all-zero, all-0xff, SHA-256 of labels, and the first labelled beacon whose
    first stream byte is >= 252 (so the die's rejection path is exercised)."""
    out = [bytes(32), b"\xff" * 32, _h("lanopoli vector beacon 0"), _h("lanopoli vector beacon 1")]
    i = 0
    while hashlib.sha256(_h(f"lanopoli vector reject {i}") + bytes(8)).digest()[0] < 252:
        i += 1
    out.append(_h(f"lanopoli vector reject {i}"))
    return out


def compute_rng() -> dict:
    """§E3 vectors. Per beacon: ``stream`` = first 40 bytes (block 0 and the start of block 1),
    ``dice`` = the two dice of a ``dice`` chance step (fresh PRNG), ``dice_run`` = 12 dice drawn
    one after another from one PRNG, ``card`` = ``{undrawn: index}`` for a ``card`` chance step
    (one ``below(undrawn)`` from a fresh PRNG), ``below`` = ``[n, value]`` drawn in sequence from
    one PRNG for the bounds RNG_BOUNDS."""
    vecs = []
    for b in _rng_beacons():
        stream = (hashlib.sha256(b + (0).to_bytes(8, "big")).digest()
                  + hashlib.sha256(b + (1).to_bytes(8, "big")).digest())[:40]
        r = BeaconRng(b)
        dice = [r.die(), r.die()]
        r = BeaconRng(b)
        run = [r.die() for _ in range(12)]
        card = {str(u): BeaconRng(b).below(u) for u in (16, 15, 14, 9, 2, 1)}
        r = BeaconRng(b)
        below = [[n, r.below(n)] for n in RNG_BOUNDS]
        vecs.append({"beacon": b.hex(), "stream": stream.hex(), "dice": dice, "dice_run": run,
                     "card": card, "below": below})
    return {"spec": "protocol.md §E3", "vectors": vecs}


def compute_chain() -> dict:
    """§C4 vectors for two demo seats of one game id: derived secrets, a full-length chain head
    (n = CHAIN_LENGTH) and its first three reveals, a short chain (n = 4) written out, the seed
    commitments, the game seed and the beacons of steps 0 and 7 for the first reveals."""
    seeds = [b"vector-seat-a", b"vector-seat-b"]
    gid = B.derive_secret(seeds[0], b"game-id", b"")[:16]
    seats = []
    for s in seeds:
        chain_secret = B.derive_secret(s, b"chain", gid)
        seed_secret = B.derive_secret(s, b"seed", gid)
        ch = B.HashChain(chain_secret, C.CHAIN_LENGTH)
        reveals = [ch.next_reveal() for _ in range(3)]
        short = B.HashChain(chain_secret, 4)
        seats.append({"demo_seed": s.decode(), "chain_secret": chain_secret.hex(),
                      "chain_head": ch.head.hex(), "reveals": [r.hex() for r in reveals],
                      "short_chain_h0_to_h4": [short.value(i).hex() for i in range(5)],
                      "seed_secret": seed_secret.hex(),
                      "seed_commit": B.seed_commitment(seed_secret).hex()})
    gseed = B.game_seed([bytes.fromhex(x["seed_secret"]) for x in seats])
    first = [bytes.fromhex(x["reveals"][0]) for x in seats]
    beacons = [{"step": k, "reveal_index": 0, "beacon": B.beacon(gseed, k, first).hex()}
               for k in (0, 7)]
    return {"spec": "protocol.md §C2.2, §C4", "game_id": gid.hex(),
            "chain_length": C.CHAIN_LENGTH, "seats": seats, "game_seed": gseed.hex(),
            "beacons": beacons}


def compute_sig() -> dict:
    """§C1–§C3 vectors: demo identity ``vector-seat-a``, a STEP body (step 5, seat 1, action
    RollDice), the bytes Ed25519 signs, the signature, the envelope, and the digest of a step
    made of that body and a nil-input body of seat 0."""
    seed = b"vector-seat-a"
    ident = Identity.from_seed(seed)
    gid = B.derive_secret(seed, b"game-id", b"")[:16]
    prev_hash, prev_digest = _h("vector prev hash"), _h("vector prev digest")
    body = encode_step(StepBody(gid, 5, 1, prev_hash, prev_digest, [1]))  # the production encoder
    other = encode_step(StepBody(gid, 5, 0, prev_hash, prev_digest, None))
    domain = C.DOMAIN_STEP
    signed = signed_bytes(domain, body)
    sig = ident.sign(domain, body)
    env = seal_message(ident, MSG_STEP, StepBody(gid, 5, 1, prev_hash, prev_digest, [1]))
    return {"spec": "protocol.md §C1, §C2, §C3.1, §C3.2", "demo_seed": seed.decode(),
            "ed25519_private": hashlib.sha256(b"lanopoli/1/ed25519\x00" + seed).hexdigest(),
            "x25519_private": hashlib.sha256(b"lanopoli/1/x25519\x00" + seed).hexdigest(),
            "ed25519_public": ident.public_key.hex(), "x25519_public": ident.x25519_public_key.hex(),
            "fingerprint": ident.fingerprint, "game_id": gid.hex(),
            "step_body": {"step": 5, "seat": 1, "prev_hash": prev_hash.hex(),
                          "prev_digest": prev_digest.hex(), "input": [1]},
            "body": body.hex(), "domain": domain.decode(), "signed_bytes": signed.hex(),
            "signature": sig.hex(), "envelope": env.hex(),
            "digest_bodies": [other.hex(), body.hex()],
            "digest": step_digest([other, body]).hex()}
