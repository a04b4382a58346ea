"""Vectors of sealed decisions and re-seating (make_vectors.py part): sealed.json (protocol.md §C13:
commitments, their openings, a commit-step and an open-step STEP body, the salt derivation) and
reseat.json (§C8.9: a RESEAT request byte for byte, a STEP body carrying it, the new chain's
reveals after the re-seat).
"""

from __future__ import annotations

import repo_first  # noqa: F401  (the repository's engine/p2p first on sys.path)

import engine as E
from p2p import beacon as B
from p2p import const as C
from p2p.identity import Identity, signed_bytes
from p2p.wire import StepBody, encode_step, pack

from vec_labels import label_hash as _h


def compute_sealed() -> dict:
    """§C13 vectors (sealed.json): commitments of a few inputs (nil, bids, a pass, a build
    request) of demo seats at commit steps, their openings as sent at the open step, and a
    commit-step and an open-step STEP body written out (``prev_hash``/``prev_digest`` are
    labelled hashes, not a real game's)."""
    from engine.actions import Bid, BuildHouse, PassBid
    from p2p.sealed import commitment

    gid = _h("vector-sealed")[:16]
    cases = []
    for i, (step, seat, action) in enumerate([(0, 0, None), (41, 1, Bid(10)), (41, 2, Bid(1234)),
                                              (977, 3, PassBid()), (2 ** 33 + 5, 7, BuildHouse(39))]):
        inp = None if action is None else E.encode_action(action)
        salt = _h(f"vector-sealed-salt-{i}")[:16]
        c = commitment(gid, step, seat, inp, salt)
        cases.append({"step": step, "seat": seat, "input": inp, "input_msgpack": pack(inp).hex(),
                      "salt": salt.hex(), "commitment": c.hex(), "opening_msgpack": pack([inp, salt]).hex()})
    one = cases[1]
    ph, pd = _h("vector-sealed-prev-hash"), _h("vector-sealed-prev-digest")
    commit_body = encode_step(StepBody(gid, one["step"], one["seat"], ph, pd, bytes.fromhex(one["commitment"])))
    open_body = encode_step(StepBody(gid, one["step"] + 1, one["seat"], ph, _h("vector-sealed-commit-digest"),
                                     [one["input"], bytes.fromhex(one["salt"])]))
    from p2p.sealed import DOMAIN_SALT, derive_salt

    ident = Identity.from_seed(b"vector-sealed-seat")
    body = gid + (41).to_bytes(8, "big")
    derivation = {"identity_seed": "vector-sealed-seat", "public_key": ident.public_key.hex(), "step": 41,
                  "signed_bytes": signed_bytes(DOMAIN_SALT, body).hex(),
                  "signature": ident.sign(DOMAIN_SALT, body).hex(), "salt": derive_salt(ident, gid, 41).hex()}
    return {"game_id": gid.hex(), "cases": cases, "prev_hash": ph.hex(), "prev_digest": pd.hex(),
            "open_prev_digest": _h("vector-sealed-commit-digest").hex(),
            "commit_step_body": commit_body.hex(), "open_step_body": open_body.hex(),
            "salt_derivation": derivation}


def compute_reseat() -> dict:
    """§C8.9 vectors (reseat.json): demo identity ``vector-seat-a`` (sig.json's) asks for seat 2
    back after its drop at step 40 with the chain of secret SHA-256("vector reseat secret")
    (n = 64): the RESEAT body, signed bytes, signature and envelope; a STEP body of seat 0 at
    step 41 carrying it (8th field, 7th nil); and the new chain's reveals at the game's chance
    steps b+1 and b+2 for b = 9 chance steps applied before the re-seat."""
    from p2p.reseat import OffsetChain, make_request

    seed = b"vector-seat-a"
    ident = Identity.from_seed(seed)
    gid = B.derive_secret(seed, b"game-id", b"")[:16]
    secret = _h("vector reseat secret")
    chain = B.HashChain(secret, 64)
    from p2p.wire import MSG_RESEAT, SCHEMAS, ReseatRequest

    fields = [gid, 2, 40, chain.head]
    body = SCHEMAS[MSG_RESEAT].encode(ReseatRequest(*fields))
    env = make_request(ident, gid, 2, 40, chain.head)
    prev_hash, prev_digest = _h("vector prev hash"), _h("vector prev digest")
    step = encode_step(StepBody(gid, 41, 0, prev_hash, prev_digest, None, None, (env,)))
    oc = OffsetChain(chain, 9)
    return {"spec": "protocol.md §C8.9", "demo_seed": seed.decode(), "game_id": gid.hex(),
            "secret": secret.hex(), "chain_length": 64, "chain_head": chain.head.hex(),
            "request": {"seat": 2, "dropped_at": 40}, "body": body.hex(),
            "signed_bytes": signed_bytes(C.DOMAIN_RESEAT, body).hex(),
            "signature": ident.sign(C.DOMAIN_RESEAT, body).hex(), "envelope": env.hex(),
            "step_body": step.hex(), "base": 9,
            "reveals": {"10": oc.reveal_at(10).hex(), "11": oc.reveal_at(11).hex()}}
