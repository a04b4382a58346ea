"""tests/vectors/skip.json (protocol.md §C8.10) still holds: recomputed from the reference code
(tests/vectors/make_skip_vectors.py) and, independently, from the text of §C8.10, §C3.2 and §C6
with hashlib, msgpack and cryptography's Ed25519 alone."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

VEC = Path(__file__).resolve().parent / "vectors"
sys.path.insert(0, str(VEC))
import make_skip_vectors as M  # noqa: E402


def _vec() -> dict:
    return json.loads((VEC / "skip.json").read_text())


def test_skip_vectors_match_the_code():
    assert (VEC / "skip.json").read_text() == json.dumps(M.compute_skip(), indent=1, sort_keys=True) + "\n"


def test_skip_vectors_from_the_text():
    v = _vec()
    gid = bytes.fromhex(v["game_id"])
    assert gid == hashlib.sha256(b"vector skip game").digest()[:16]
    raws = []
    for vote in v["votes"]:
        body = msgpack.packb([gid, vote["voter"], 7, 2, 0], use_bin_type=True)  # [gid, voter, step, seat, epoch]
        assert body.hex() == vote["body"]
        signed = b"lanopoli/1/turn-skip\x00" + body
        assert signed.hex() == vote["signed"]
        sig = bytes.fromhex(vote["signature"])
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(v["public_keys"][vote["voter"]])).verify(sig, signed)
        raw = msgpack.packb([26, body, sig], use_bin_type=True)  # envelope [type 26, body, sig]
        assert raw.hex() == vote["envelope"]
        raws.append(raw)
    assert v["record_kind"] == 6
    assert bytes.fromhex(v["record"]) == msgpack.packb([7, 2, raws], use_bin_type=True)
    bodies = [bytes.fromhex(b) for b in v["step_bodies"]] + [b"\xc1"]  # the skipped seat: one byte 0xC1
    h = hashlib.sha256(b"lanopoli/1/digest\x00")
    for b in bodies:
        h.update(len(b).to_bytes(4, "big") + b)
    assert h.hexdigest() == v["digest"]


def test_own_defaults_from_the_text():
    """§C8.10 "Own decisions": per vector, the state decoded from its §E4 encoding (its hash as
    given), the kind and actors as given, the default as the table of §C8.10 says (the bot's
    choice at raise_money, nil at an auction), nil leaving the same state at the five kinds of
    the table, and the default leading to the given hash."""
    import engine as E
    import engine.bots  # noqa: F401

    table = {"roll": [1], "jail": [1], "buy_or_auction": [3], "mortgage_choice": [18, []]}
    kinds = set()
    for o in _vec()["own_defaults"]:
        s = E.decode_state(bytes.fromhex(o["state"]))
        assert E.state_hash(s).hex() == o["state_hash"]
        pend = E.pending(s)
        assert (pend.kind, list(pend.actors)) == (o["kind"], o["actors"]) and o["seat"] in o["actors"]
        if o["kind"] in table:
            assert o["default"] == table[o["kind"]]
        elif o["kind"] == "raise_money":
            assert o["default"] == E.encode_action(E.bots.choose(s, o["seat"], "default"))
        else:
            assert o["default"] is None  # silence already moves the game on there
        inputs = [None] * s.n
        assert E.state_hash(E.apply_step(s, inputs)[0]).hex() == o["hash_after_nil"]
        if o["default"] is not None:
            assert o["hash_after_nil"] == o["state_hash"]  # the engine waits on the same seat
            inputs[o["seat"]] = E.decode_action(o["default"])
        assert E.state_hash(E.apply_step(s, inputs)[0]).hex() == o["hash_after_default"]
        kinds.add(o["kind"])
    assert kinds == set(table) | {"raise_money", "auction_bid"}
