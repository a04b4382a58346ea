"""Vectors of forced reveals (make_vectors.py part): forced.json (protocol.md §C3.8, version 4).

At a plain chance step a seat's STEP body is forced — ``[gid, step, seat, prev_hash,
prev_digest, reveal]``, 6 fields, canonical msgpack, SHA-256(reveal) = the seat's previous
reveal — and a peer holds it (live, at its current step) or accepts it (in a record) whatever
its signature. The file gives two forced bodies, each also in an envelope with a valid
signature and in one with 64 zero bytes as signature (both accepted), and bodies that are
*not* forced over the same history: a wrong chain link, another prev digest, a 9th field
(escrow acks), an 8th field (a re-seat request), and the first body with a non-canonical step
(not even decodable). ``forced`` is what ``p2p.forced.is_forced`` says; tests/test_vectors.py
recomputes every byte and every verdict from the text with hashlib and a hand-written msgpack
encoder.
"""

from __future__ import annotations

import repo_first  # noqa: F401  (the repository's engine/p2p first on sys.path)

from p2p import beacon as B
from p2p import const as C
from p2p.bodies import EscrowAck, StepBody
from p2p.errors import WireError
from p2p.forced import forced_body, is_forced
from p2p.identity import Identity
from p2p.reseat import make_request
from p2p.wire import MSG_STEP, decode_step_body, encode_step, pack

from vec_labels import label_hash as _h

#: Chain of the forced seat: secret SHA-256("vector forced secret"), n = 64 links (§C4).
CHAIN_LENGTH = 64


def _case(name: str, body: bytes, prev_hash: bytes, prev_digest: bytes, last_reveal: bytes) -> dict:
    """One body judged over the history (``prev_hash``, ``prev_digest``) that the judging peer
    holds, with the seat's previous reveal ``last_reveal``."""
    try:
        b = decode_step_body(body)
    except WireError:
        b = None
    forced = b is not None and is_forced(body, b, prev_hash, prev_digest, last_reveal)
    return {"name": name, "body": body.hex(), "decodes": b is not None, "forced": forced}


def compute_forced() -> dict:
    """§C3.8 vectors (forced.json): demo identity ``vector-seat-a`` (sig.json's) at seat 1 of its
    demo game id; its chain of 64 links from SHA-256("vector forced secret"); our history
    (labelled prev hash and prev digest). ``forced``: the forced bodies of the 1st chance step
    (j = 1, previous reveal = the chain head) at step 7 and of the 3rd (j = 3) at step 300, each
    with its envelope (valid signature) and with a zero signature. ``not_forced``: other bodies
    of step 300 judged over the same history and previous reveal."""
    seed = b"vector-seat-a"
    ident = Identity.from_seed(seed)
    gid = B.derive_secret(seed, b"game-id", b"")[:16]
    secret = _h("vector forced secret")
    chain = B.HashChain(secret, CHAIN_LENGTH)
    ph, pd = _h("vector forced prev hash"), _h("vector forced prev digest")
    seat = 1
    forced = []
    for step, j in ((7, 1), (300, 3)):
        reveal, last = chain.value(CHAIN_LENGTH - j), chain.value(CHAIN_LENGTH - j + 1)
        body = forced_body(gid, step, seat, ph, pd, reveal)
        sig = ident.sign(C.DOMAIN_STEP, body)
        case = _case(f"chance step j={j}", body, ph, pd, last)
        case.update(step=step, j=j, reveal=reveal.hex(), previous_reveal=last.hex(), signature=sig.hex(),
                    envelope=pack([MSG_STEP, body, sig]).hex(),
                    envelope_zero_signature=pack([MSG_STEP, body, bytes(64)]).hex())
        forced.append(case)
    step, j = 300, 3
    reveal, last = chain.value(CHAIN_LENGTH - j), chain.value(CHAIN_LENGTH - j + 1)
    good = forced_body(gid, step, seat, ph, pd, reveal)
    ack = EscrowAck(0, 2, _h("vector forced escrow envelope"))
    request = make_request(Identity.from_seed(b"vector-seat-b"), gid, 2, 250, _h("vector forced new head"))
    step_at = 1 + 2 + 16  # after the array header and the 16-byte bin of gid: step 300 as uint16 (canonical)
    assert good[step_at:step_at + 3] == bytes([0xCD, 0x01, 0x2C])
    not_forced = [
        _case("previous reveal again (wrong chain link)", forced_body(gid, step, seat, ph, pd, last), ph, pd, last),
        _case("another prev digest (another history)",
              forced_body(gid, step, seat, ph, _h("vector forced other digest"), reveal), ph, pd, last),
        _case("9th field: escrow acks", encode_step(StepBody(gid, step, seat, ph, pd, reveal, None, None, (ack,))),
              ph, pd, last),
        _case("8th field: a re-seat request", encode_step(StepBody(gid, step, seat, ph, pd, reveal, None, (request,))),
              ph, pd, last),
        _case("step as uint32 (not canonical)",
              good[:step_at] + bytes([0xCE, 0, 0, 0x01, 0x2C]) + good[step_at + 3:], ph, pd, last),
    ]
    return {"spec": "protocol.md §C3.8, §C3.1, §C4", "demo_seed": seed.decode(), "game_id": gid.hex(),
            "seat": seat, "public_key": ident.public_key.hex(), "secret": secret.hex(),
            "chain_length": CHAIN_LENGTH, "chain_head": chain.head.hex(),
            "prev_hash": ph.hex(), "prev_digest": pd.hex(), "forced": forced,
            "not_forced": {"step": step, "previous_reveal": last.hex(), "cases": not_forced}}
