"""A clean-room check of tests/vectors/game.lnplog from the text of protocol.md alone (issue 15):
§C6 framing and header, §C2.2/§C2.3 setup, seat order, SETUP_SIG and SEED signatures, seed
commitments and the game seed, §C3.1/§C3.2 every STEP signature, field and digest chain, §C4
every hash-chain reveal, §C13.2/§C13.3 every sealed commitment against its opening, §C3.5 the final
attestation — with msgpack, hashlib, zlib and
cryptography's Ed25519, no project code. The state hashes come from game.json (the engine is
normative code, §E0: its port is checked by the playthroughs)."""

from __future__ import annotations

import hashlib
import json
import zlib
from pathlib import Path

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

VEC = Path(__file__).resolve().parent / "vectors"


def _spec_version() -> int:
    """The protocol version protocol.md's title states ("# lanopoli protocol, version N", §C2)."""
    title = (Path(__file__).resolve().parents[1] / "protocol.md").read_text(encoding="utf-8").splitlines()[0]
    return int(title.rsplit(" ", 1)[1])


def sha(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def records(data: bytes) -> list[tuple[int, bytes]]:
    """§C6: b"LNPLOG1\\n", then u32 length | u8 kind | payload | u32 CRC-32(kind + payload)."""
    assert data[:8] == b"LNPLOG1\n"
    out, off = [], 8
    while off < len(data):
        n, kind = int.from_bytes(data[off:off + 4], "big"), data[off + 4]
        payload = data[off + 5:off + 5 + n]
        assert int.from_bytes(data[off + 5 + n:off + 9 + n], "big") == zlib.crc32(bytes((kind,)) + payload)
        out.append((kind, payload))
        off += 9 + n
    assert off == len(data)
    return out


def opened(raw: bytes, mtype: int, domain: bytes, pk: bytes) -> list:
    """§C1: envelope [type, body, sig], sig = Ed25519(pk, b"lanopoli/1/" + domain + 0x00 + body),
    canonical msgpack; returns the decoded body."""
    t, body, sig = msgpack.unpackb(raw)
    assert t == mtype and len(sig) == 64 and msgpack.packb([t, body, sig], use_bin_type=True) == raw
    try:
        Ed25519PublicKey.from_public_bytes(pk).verify(sig, b"lanopoli/1/" + domain + b"\x00" + body)
    except InvalidSignature:
        raise AssertionError(f"bad signature on a type-{mtype} envelope") from None
    fields = msgpack.unpackb(body)
    assert msgpack.packb(fields, use_bin_type=True) == body  # canonical
    return fields


def test_game_log_checks_out_from_the_spec_text():
    game = json.loads((VEC / "game.json").read_text())
    data = (VEC / "game.lnplog").read_bytes()
    assert hashlib.sha256(data).hexdigest() == game["log_sha256"]
    recs = records(data)
    kind, header = recs[0]
    assert kind == 0 and all(k == 1 for k, _ in recs[1:])  # a clean game: one header, then steps
    layout, setup, sigs, seeds = msgpack.unpackb(header)
    assert layout == 1 and setup.hex() == game["setup"]
    sh = sha(b"lanopoli/1/setup\x00", setup)
    assert sh.hex() == game["setup_hash"]
    version, gid, edition, n, chain_length, options, players = msgpack.unpackb(setup)
    assert (version, gid.hex(), edition, n, options) == (_spec_version(), game["game_id"], game["edition"], game["seats"], [])
    pks = [p[0] for p in players]
    assert pks == sorted(pks) and len(set(pks)) == n  # §C2.2: seat i = i-th smallest key
    secrets = []
    for i in range(n):
        assert opened(sigs[i], 6, b"setup-sig", pks[i])[:3] == [gid, i, sh]
        g, seat, h, secret = opened(seeds[i], 7, b"seed", pks[i])[:4]
        assert (g, seat, h) == (gid, i, sh) and sha(secret) == players[i][4]  # seed_commit
        secrets.append(secret)
    assert sha(*secrets).hex() == game["game_seed"]
    hashes = [bytes.fromhex(game["initial_state_hash"])] + [bytes.fromhex(x) for x in game["first_state_hashes"]]
    last_reveal = [p[3] for p in players]  # chain heads h_n
    prev_digest, chance, sealed = sh, 0, 0
    steps = [msgpack.unpackb(p) for _, p in recs[1:]]
    assert len(steps) == game["steps"] + 1  # every engine step, then the final attestation (§C3.5)
    for k, (step, envs) in enumerate(steps):
        assert step == k and len(envs) == n
        bodies = [opened(e, 16, b"step", pks[i]) for i, e in enumerate(envs)]
        for i, b in enumerate(bodies):
            assert b[:3] == [gid, k, i] and b[4] == prev_digest and len(b) == 6
            assert b[3] == bodies[0][3]  # every seat signed the same state hash
        if k < len(hashes):
            assert bodies[0][3] == hashes[k]
        inputs = [b[5] for b in bodies]
        nxt = [msgpack.unpackb(msgpack.unpackb(e)[1]) for e in steps[k + 1][1]] if k + 1 < len(steps) else None
        if all(type(x) is bytes for x in inputs) and nxt and nxt[0][3] == bodies[0][3] and all(
                b[5] is None or type(b[5]) is list and len(b[5]) == 2 and type(b[5][1]) is bytes for b in nxt):
            # a sealed commit step (§C13.2): nothing applied (same prev_hash at k+1), and every
            # opening at k+1 matches: SHA-256(prefix ‖ gid ‖ k (8 B) ‖ seat (1 B) ‖ msgpack(x) ‖ salt)
            sealed += 1
            for i, b in enumerate(nxt):
                if b[5] is not None:  # nil: the seat withdrew
                    x, salt = b[5]
                    assert len(salt) == 16 and inputs[i] == sha(b"lanopoli/1/sealed\x00", gid, k.to_bytes(8, "big"),
                                                               bytes((i,)), msgpack.packb(x, use_bin_type=True), salt)
        elif all(type(x) is bytes for x in inputs):  # a chance step: every seat's next reveal (§C4)
            chance += 1
            for i, r in enumerate(inputs):
                assert len(r) == 32 and sha(r) == last_reveal[i]
            last_reveal = inputs
        else:
            assert all(x is None or type(x) is list for x in inputs)  # decision: action, opening or nil
        digest = hashlib.sha256(b"lanopoli/1/digest\x00")
        for e in envs:
            body = msgpack.unpackb(e)[1]
            digest.update(len(body).to_bytes(4, "big") + body)
        prev_digest = digest.digest()
    final = steps[-1][1]
    assert all(msgpack.unpackb(msgpack.unpackb(e)[1])[5] is None for e in final)
    assert msgpack.unpackb(msgpack.unpackb(final[0])[1])[3].hex() == game["final_state_hash"]
    assert 0 < chance <= chain_length and sealed > 0
