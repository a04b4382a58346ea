"""tests/vectors/session.json (protocol.md §C8.2, §C8.3, §C8.7, §C8.8) still holds: recomputed
from the reference code (tests/vectors/make_session_vectors.py) and, independently, from the
text of protocol.md with hashlib, msgpack and the ``cryptography`` primitives (Shamir over
GF(2^521 - 1) written out here, X25519, SHA-256 key, ChaCha20-Poly1305, Ed25519 signatures).
A failure means the wire format changed: bump the protocol version and regenerate."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

VEC = Path(__file__).resolve().parent / "vectors"
sys.path.insert(0, str(VEC))
import repo_first  # noqa: E402,F401  (the repository's engine/p2p, not tests/engine, tests/p2p)

import make_session_vectors as M  # noqa: E402

P = 2**521 - 1


def load() -> dict:
    return json.loads((VEC / "session.json").read_text())


def b(h: str) -> bytes:
    return bytes.fromhex(h)


def test_session_vectors_match_the_code():
    text = (VEC / "session.json").read_text()
    assert text == json.dumps(M.compute_session(), indent=1, sort_keys=True) + "\n"


def test_quorum_is_a_strict_majority_of_all_seats():
    assert load()["quorum"] == {str(n): n // 2 + 1 for n in range(2, 9)}


def _share(secret: bytes, ctx: bytes, t: int, seat: int) -> bytes:
    coef = [int.from_bytes(secret, "big")] + [
        int.from_bytes(hashlib.sha512(b"lanopoli/1/escrow-coef\x00" + secret + ctx + bytes((j,))).digest(), "big") % P
        for j in range(1, t)]
    x = seat + 1
    return (sum(a * pow(x, i, P) for i, a in enumerate(coef)) % P).to_bytes(66, "big")


def _lagrange0(points: dict[int, bytes]) -> bytes:
    xs = {v + 1: int.from_bytes(s, "big") for v, s in points.items()}
    total = 0
    for xi, yi in xs.items():
        num = den = 1
        for xj in xs:
            if xj != xi:
                num, den = num * xj % P, den * (xj - xi) % P
        total += yi * num * pow(den, P - 2, P)
    return (total % P).to_bytes(32, "big")


def test_shamir_vectors_match_the_spec_text():
    """§C8.2: f(x) = s + a_1 x + a_2 x^2 mod p, a_j = SHA-512(prefix ‖ s ‖ context ‖ j) mod p,
    share of seat v = f(v + 1) as 66 bytes; any 3 shares interpolate back to s."""
    v = load()["shamir"]
    secret, ctx = b(v["secret"]), b(v["context"])
    for seat in v["seats"]:
        assert v["shares"][str(seat)] == _share(secret, ctx, v["t"], seat).hex()
    for pick, key in (((0, 1, 2), "recombined_0_1_2"), ((1, 2, 4), "recombined_1_2_4")):
        assert _lagrange0({s: b(v["shares"][str(s)]) for s in pick}).hex() == v[key] == v["secret"]


def _x25519(seed: str) -> X25519PrivateKey:
    return X25519PrivateKey.from_private_bytes(hashlib.sha256(b"lanopoli/1/x25519\x00" + seed.encode()).digest())


def _ed25519(seed: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"lanopoli/1/ed25519\x00" + seed.encode()).digest())


def _envelope(mtype: int, domain: bytes, fields: list, sk: Ed25519PrivateKey) -> bytes:
    body = msgpack.packb(fields, use_bin_type=True)
    return msgpack.packb([mtype, body, sk.sign(b"lanopoli/1/" + domain + b"\x00" + body)], use_bin_type=True)


def test_escrow_drop_abandon_and_complaint_vectors_match_the_spec_text():
    """§C8.2 (pairwise key, commitment, ciphertext, ESCROW body), §C8.3 (DROP), §C8.7
    (ABANDON), §C8.8 (COMPLAINT): every envelope rebuilt byte for byte (Ed25519 is
    deterministic)."""
    v = load()
    e = v["escrow"]
    gid, seeds = b(e["game_id"]), e["demo_seeds"]
    dealer = _x25519(seeds[2])
    ctx2 = gid + (0).to_bytes(2, "big")
    rows = []
    for to in (0, 1):
        ent = e["entries"][str(to)]
        share = _share(b(e["chain_secret"]), ctx2, e["t"], to)
        assert ent["share"] == share.hex()
        shared = dealer.exchange(X25519PublicKey.from_public_bytes(b(e["x25519_public"][to])))
        assert ent["x25519_shared"] == shared.hex()
        aad = gid + bytes((2, to)) + (0).to_bytes(2, "big")
        key = hashlib.sha256(b"lanopoli/1/escrow-key\x00" + shared + aad).digest()
        assert ent["key"] == key.hex()
        commit = hashlib.sha256(b"lanopoli/1/escrow-commit\x00" + aad + share).digest()
        assert ent["commit"] == commit.hex()
        rows.append([to, commit, ChaCha20Poly1305(key).encrypt(bytes(12), share, aad)])
    assert e["envelope"] == _envelope(17, b"escrow", [gid, 2, 0, rows], _ed25519(seeds[2])).hex()
    d = v["drop"]
    assert d["envelope"] == _envelope(18, b"seat-drop", [gid, 0, 7, 2, 0, b(e["entries"]["0"]["share"])],
                                      _ed25519(seeds[0])).hex()
    h, dg = hashlib.sha256(b"vector state hash").digest(), hashlib.sha256(b"vector digest").digest()
    assert v["abandon"]["envelope"] == _envelope(23, b"abandon", [gid, 1, 9, h, dg], _ed25519(seeds[1])).hex()
    eq = v["complaint"]["equivocation"]
    step_a = _envelope(16, b"step", [gid, 7, 2, h, dg, None], _ed25519(seeds[2]))
    step_b = _envelope(16, b"step", [gid, 7, 2, h, dg, hashlib.sha256(b"vector reveal").digest()], _ed25519(seeds[2]))
    assert eq["evidence"] == [step_a.hex(), step_b.hex()]
    assert eq["envelope"] == _envelope(24, b"complaint", [gid, 0, 7, 2, 1, [step_a, step_b], None],
                                       _ed25519(seeds[0])).hex()
    # kind 3: seat 0's key of seat 2's share to it is the same pairwise key, seen from seat 0
    key0 = b(e["entries"]["0"]["key"])
    assert v["complaint"]["false_escrow"]["envelope"] == _envelope(
        24, b"complaint", [gid, 0, 7, 2, 3, [b(e["envelope"])], key0], _ed25519(seeds[0])).hex()


def test_complaint_vectors_are_judged_as_documented():
    """The equivocation proves seat 2; the escrow complaint is false (its key opens a share
    that matches its commitment), so it proves the complainer, seat 0 (§C8.8)."""
    from p2p.complaints import check_equivocation, check_escrow
    from p2p.identity import Identity
    from p2p.wire import Player, Setup

    v = load()
    e = v["escrow"]
    ids = [Identity.from_seed(s.encode()) for s in e["demo_seeds"]]
    players = tuple(Player(x.public_key, x.x25519_public_key, f"p{i}", bytes(32), bytes(32), False,
                           (f"127.0.0.{i + 1}", 41000 + i)) for i, x in enumerate(ids))
    setup = Setup(1, b(e["game_id"]), "race", 3, 64, (), players)
    ev = [b(x) for x in v["complaint"]["equivocation"]["evidence"]]
    assert check_equivocation(setup, ev[0], ev[1]) == 2
    guilty, reason = check_escrow(setup, 0, b(e["envelope"]), b(e["entries"]["0"]["key"]), [True] * 3)
    assert guilty == v["complaint"]["false_escrow"]["guilty"] == 0 and "false complaint" in reason


def test_dropped_reveal_bad_escrow_and_false_share_vectors_match_the_spec_text():
    """§C8.4: the stand-in reveal; §C8.3: a bad escrow's shares each match their commitment but
    recombine to a secret whose SHA-256^n is not the chain head (stand-in, dealer named);
    §C8.8 kind 5: a vote whose share matches no commitment, the complaint rebuilt byte for byte."""
    v = load()
    e, seeds = v["escrow"], v["escrow"]["demo_seeds"]
    gid = b(e["game_id"])
    d = v["dropped_reveal"]
    assert d["reveal"] == hashlib.sha256(b"lanopoli/1/dropped\x00" + b(d["game_id"]) + bytes((d["seat"],))
                                         + d["j"].to_bytes(8, "big")).hexdigest()
    x = v["bad_escrow"]
    _, _, _, rows = msgpack.unpackb(msgpack.unpackb(b(x["envelope"]))[1])
    shares = {}
    for raw in x["votes"]:
        _, voter, step, seat, epoch, share = msgpack.unpackb(msgpack.unpackb(b(raw))[1])
        aad = gid + bytes((seat, voter)) + epoch.to_bytes(2, "big")
        assert (step, seat) == (7, 2) and share == _share(b(x["other_secret"]), gid + bytes(2), 2, voter)
        assert [r[1] for r in rows if r[0] == voter] == [hashlib.sha256(b"lanopoli/1/escrow-commit\x00" + aad
                                                                         + share).digest()]
        shares[voter] = share
    s = _lagrange0(shares)
    assert s.hex() == x["recombined"] == x["other_secret"]
    h = s
    for _ in range(x["chain_length"]):
        h = hashlib.sha256(h).digest()
    assert h.hex() != x["chain_head"]  # the escrow is bad: the stand-in reveal, seat 2 named
    assert msgpack.unpackb(b(x["record"])) == [7, 2, [b(r) for r in x["votes"]], b(x["envelope"])]
    f = v["complaint"]["false_share"]
    vote = b(f["vote"])
    assert f["envelope"] == _envelope(24, b"complaint", [gid, 0, 7, 1, 5, [vote, b(e["envelope"])], None],
                                      _ed25519(seeds[0])).hex()
    liar = msgpack.unpackb(msgpack.unpackb(vote)[1])[5]
    assert liar != b(e["entries"]["1"]["share"])  # not the share seat 2 dealt seat 1


def test_bad_escrow_and_false_share_vectors_are_judged_as_documented():
    """The code agrees: the record decides the stand-in and names the dealer; the kind-5
    complaint proves seat 1."""
    from p2p.beacon import HashChain
    from p2p.complaints import check_drop_share
    from p2p.identity import Identity
    from p2p.seat_loss import check_drop_record
    from p2p.wire import Player, Setup

    v = load()
    e, x = v["escrow"], v["bad_escrow"]
    ids = [Identity.from_seed(s.encode()) for s in e["demo_seeds"]]
    head = HashChain(b(e["chain_secret"]), x["chain_length"]).head
    assert head.hex() == x["chain_head"]
    players = tuple(Player(i.public_key, i.x25519_public_key, f"p{n}", head if n == 2 else bytes(32), bytes(32), False,
                           (f"127.0.0.{n + 1}", 41000 + n)) for n, i in enumerate(ids))
    setup = Setup(1, b(e["game_id"]), "race", 3, x["chain_length"], (), players)
    rec = check_drop_record(setup, [True] * 3, 0, 7, b(x["record"]))
    assert (rec.seat, rec.chain, rec.cheat) == (2, None, "escrow shares do not open its hash chain")
    guilty, _ = check_drop_share(setup, 0, [b(v["complaint"]["false_share"]["vote"]), b(e["envelope"])])
    assert guilty == v["complaint"]["false_share"]["guilty"] == 1


def test_escrow_round_vector_from_the_spec_text():
    """§C8.2 acknowledgements, rebuilt with msgpack and hashlib alone: each escrow-round STEP has
    input nil and a 9th field acknowledging the other dealers (ascending) by SHA-256 of the
    whole ESCROW envelope; a dealer is CONFIRMED when every recipient acknowledged one hash (that
    hash), EQUIVOCATED when two recipients acknowledged different ones; the §C3.2 digest; and a
    kind-5 complaint proves something only with the confirmed escrow as its evidence."""
    v = load()["escrow_round"]
    hashes = [hashlib.sha256(b(e)).hexdigest() for e in v["escrows"]]
    assert hashes == v["hashes"]
    acked: dict[int, dict[int, str]] = {d: {} for d in range(3)}
    bodies = []
    for i, raw in enumerate(v["steps"]):
        env = msgpack.unpackb(b(raw), raw=False)  # [type, body, signature] (§C1)
        body = msgpack.unpackb(env[1], raw=False)
        bodies.append(env[1])
        assert body[1:3] == [0, i] and body[5] is None and body[6] is None and body[7] is None
        assert [a[0] for a in body[8]] == [d for d in range(3) if d != i]
        for dealer, epoch, h in body[8]:
            assert epoch == 0
            acked[dealer][i] = h.hex()
    for d in range(3):
        assert set(acked[d].values()) == {hashes[d]} and v["confirmed"][d] == hashes[d]
    digest = hashlib.sha256(b"lanopoli/1/digest\x00" + b"".join(len(x).to_bytes(4, "big") + x for x in bodies))
    assert digest.hexdigest() == v["digest"]
    eq = v["equivocated"]
    assert eq["acks"]["0"] != eq["acks"]["1"] and eq["status"] == "equivocated"
    assert v["false_share_judged_unconfirmed"] is None and v["false_share_judged_confirmed"][0] == 1


def test_reseat_carry_start_vector_is_recomputed_from_the_text():
    """§C8.9 'Carrying': r = the first 4 bytes of SHA-256("lanopoli/1/reseat-carry" 00 || k as 8 bytes
    big-endian), read big-endian, modulo the seat count; the vector written in the text (seats 7,
    k = 0..11) recomputed with hashlib alone, and the code's ``reseat.carry_start`` agrees."""
    import re

    from p2p.reseat import carry_start

    text = (Path(__file__).resolve().parent.parent / "protocol.md").read_text()
    found = re.search(r"vector: seats (\d+), k = 0\.\.(\d+) → ([\d\s]+?)\)", text)
    assert found, "the §C8.9 carry vector is no longer written in protocol.md"
    seats, last = int(found[1]), int(found[2])
    written = [int(x) for x in found[3].split()]

    def r(k: int, n: int) -> int:
        d = hashlib.sha256(b"lanopoli/1/reseat-carry\x00" + k.to_bytes(8, "big")).digest()
        return int.from_bytes(d[:4], "big") % n

    assert len(written) == last + 1
    assert [r(k, seats) for k in range(last + 1)] == written
    assert [carry_start(k, seats) for k in range(last + 1)] == written
    assert all(carry_start(k, n) == r(k, n) for k in (0, 1, 2**32 + 5, 2**63 - 1) for n in (2, 3, 5, 8))
