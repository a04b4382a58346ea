"""The published test vectors (protocol.md "Test vectors", tests/vectors/) still hold.

Each vector is recomputed from the reference code (tests/vectors/make_vectors.py) and compared
with the checked-in file; the simplest ones are also recomputed from the text of protocol.md by
the small independent implementations below (§E3 PRNG, §C2 signed bytes, §C3.2 digest, §C4
chain/seed/beacon), so the document, the vectors and the code agree. A failure means behaviour
changed: if that was meant, bump the protocol version (protocol.md part E "Versioning") and
regenerate with ``python tests/vectors/make_vectors.py``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

VEC = Path(__file__).resolve().parent / "vectors"
sys.path.insert(0, str(VEC))
import repo_first  # noqa: E402,F401  (the repository's engine/p2p, not tests/engine, tests/p2p)

import engine as E  # noqa: E402
import make_vectors as M  # noqa: E402


def load(name: str) -> dict:
    return json.loads((VEC / name).read_text())


def sha(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


class SpecRng:
    """§E3 exactly as written: SHA-256(beacon || i as 8 bytes BE) blocks, byte by byte;
    below(n) by rejection on the fewest bytes k with 256^k >= n."""

    def __init__(self, beacon: bytes) -> None:
        self.beacon, self.i, self.buf = beacon, 0, b""

    def byte(self) -> int:
        if not self.buf:
            self.buf = sha(self.beacon, self.i.to_bytes(8, "big"))
            self.i += 1
        b, self.buf = self.buf[0], self.buf[1:]
        return b

    def below(self, n: int) -> int:
        if n == 1:
            return 0
        k = 1
        while 256 ** k < n:
            k += 1
        while True:
            v = int.from_bytes(bytes(self.byte() for _ in range(k)), "big")
            if v < 256 ** k - (256 ** k) % n:
                return v % n


# --- §E3 PRNG -----------------------------------------------------------------------------

def test_rng_vectors_match_the_code():
    assert M.compute_rng() == load("rng.json")


def test_rng_vectors_match_the_spec_text():
    """protocol.md §E3: stream, dice (below(6)+1, first die first), card = below(undrawn)."""
    vecs = load("rng.json")["vectors"]
    assert any(bytes.fromhex(v["stream"])[0] >= 252 for v in vecs), "no die rejection vector"
    for v in vecs:
        b = bytes.fromhex(v["beacon"])
        assert bytes.fromhex(v["stream"]) == (sha(b, bytes(8)) + sha(b, (1).to_bytes(8, "big")))[:40]
        r = SpecRng(b)
        assert v["dice"] == [r.below(6) + 1, r.below(6) + 1]
        r = SpecRng(b)
        assert v["dice_run"] == [r.below(6) + 1 for _ in range(12)]
        assert v["card"] == {u: SpecRng(b).below(int(u)) for u in v["card"]}
        r = SpecRng(b)
        assert v["below"] == [[n, r.below(n)] for n, _ in v["below"]]


# --- §C4 hash chain, seed, beacon ------------------------------------------------------------

def test_chain_vectors_match_the_code():
    assert M.compute_chain() == load("chain.json")


def test_chain_vectors_match_the_spec_text():
    """protocol.md §C2.2 (demo game id), §C4 (demo secrets, h_i = SHA-256(h_{i-1}), reveal j =
    h_{n-j}, game seed, beacon)."""
    v = load("chain.json")
    seed_a = v["seats"][0]["demo_seed"].encode()
    gid = sha(b"lanopoli/1/game-id\x00", seed_a)[:16]
    assert v["game_id"] == gid.hex()
    for seat in v["seats"]:
        s = seat["demo_seed"].encode()
        secret = sha(b"lanopoli/1/chain\x00", gid, s)
        assert seat["chain_secret"] == secret.hex()
        h = [secret]
        for _ in range(4):
            h.append(sha(h[-1]))
        assert seat["short_chain_h0_to_h4"] == [x.hex() for x in h]
        reveals = [bytes.fromhex(r) for r in seat["reveals"]]
        assert sha(reveals[0]).hex() == seat["chain_head"]
        assert sha(reveals[1]) == reveals[0] and sha(reveals[2]) == reveals[1]
        seed_secret = sha(b"lanopoli/1/seed\x00", gid, s)
        assert seat["seed_secret"] == seed_secret.hex()
        assert seat["seed_commit"] == sha(seed_secret).hex()
    gseed = sha(*(bytes.fromhex(x["seed_secret"]) for x in v["seats"]))
    assert v["game_seed"] == gseed.hex()
    first = [bytes.fromhex(x["reveals"][0]) for x in v["seats"]]
    for b in v["beacons"]:
        assert b["beacon"] == sha(b"beacon", gseed, b["step"].to_bytes(8, "big"), *first).hex()


# --- §C1–§C3 identity, signature, digest ---------------------------------------------------

def test_signature_vectors_match_the_code():
    assert M.compute_sig() == load("sig.json")


def test_signature_vectors_match_the_spec_text():
    """protocol.md §C2 (demo keys, fingerprint, signed bytes), §C1 (envelope), §C3.2 (digest);
    Ed25519 signatures are deterministic (RFC 8032), so the signature itself is a vector."""
    import msgpack

    v = load("sig.json")
    sk = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(v["ed25519_private"]))
    pk = sk.public_key().public_bytes_raw()
    assert v["ed25519_public"] == pk.hex()
    assert v["fingerprint"] == hashlib.sha256(pk).hexdigest()[:16]
    sb = v["step_body"]
    body = msgpack.packb([bytes.fromhex(v["game_id"]), sb["step"], sb["seat"],
                          bytes.fromhex(sb["prev_hash"]), bytes.fromhex(sb["prev_digest"]),
                          sb["input"]], use_bin_type=True)
    assert v["body"] == body.hex()
    signed = b"lanopoli/1/step\x00" + body
    assert v["signed_bytes"] == signed.hex()
    assert v["signature"] == sk.sign(signed).hex()
    Ed25519PublicKey.from_public_bytes(pk).verify(bytes.fromhex(v["signature"]), signed)
    assert v["envelope"] == msgpack.packb([16, body, sk.sign(signed)], use_bin_type=True).hex()
    bodies = [bytes.fromhex(b) for b in v["digest_bodies"]]
    assert v["digest"] == sha(b"lanopoli/1/digest\x00",
                              *(len(b).to_bytes(4, "big") + b for b in bodies)).hex()


# --- §C12 hidden information ----------------------------------------------------------------

def test_hidden_vectors_match_the_code():
    assert M.compute_hidden() == load("hidden.json")


def test_hidden_vectors_match_the_spec_text():
    """protocol.md §C12.1 (hidden secret, opening = share ‖ salt, leaf with seat 1 B and item
    2 B BE, status from the summed shares), §C12.5 (an inspection's openings field), §C12.4
    (delivery key with sender and to 1 B each and step 8 B BE, AAD, ChaCha20-Poly1305 with a
    zero nonce), recomputed with hashlib and the cryptography primitives only."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    v = load("hidden.json")
    gid, bills, m = bytes.fromhex(v["game_id"]), v["bills"], 2 ** 32
    assert (bills, v["pairs"], v["modulus"]) == (352, 12, m)
    hs = []
    for i, seat in enumerate(v["seats"]):
        h = sha(b"lanopoli/1/hidden-secret\x00", bytes.fromhex(seat["chain_secret"]))
        assert seat["hidden_secret"] == h.hex()
        hs.append(h)
        ops = {t: sha(b"lanopoli/1/hidden-open\x00", h, t.to_bytes(2, "big"))[:16] for t in range(bills + 12)}
        blob = b"".join(sha(b"lanopoli/1/hidden-leaf\x00", gid, bytes((i,)), t.to_bytes(2, "big"), op)
                        for t, op in ops.items())
        assert seat["leaves_sha256"] == sha(blob).hex()
        for t, op in seat["openings"].items():
            assert op == ops[int(t)].hex()
            assert seat["shares"][t] == int.from_bytes(ops[int(t)][:4], "big")
            assert seat["leaves"][t] == blob[32 * int(t):32 * int(t) + 32].hex()
    stack = [500, 500, 100, 100, 100, 50, 50, 50, 20, 10, 10, 10]  # §E8 "Bill ids"
    for t, st in v["status"].items():
        total = sum(s["shares"][t] for s in v["seats"]) % m
        assert st["sum"] == total
        if int(t) < bills:
            den = stack[int(t) % 12] if int(t) < 72 else st["den"]
            assert st["den"] == den
            assert st["threshold"] == m * 1 // (10 if den == 500 else 5)
            assert st["fake"] == (total < st["threshold"])
        else:
            assert st["fake_card"] == 2 * (int(t) - bills) + total % 2
    ins = v["inspection"]
    items = [i if k == "bill" else bills + i // 2 for k, i in ins["items"]]
    assert ins["openings"] == b"".join(
        sha(b"lanopoli/1/hidden-open\x00", hs[ins["seat"]], t.to_bytes(2, "big"))[:16] for t in items).hex()
    d = v["delivery"]
    xk = [X25519PrivateKey.from_private_bytes(sha(b"lanopoli/1/x25519\x00", f"vector-hidden-{i}".encode()))
          for i in range(3)]
    assert [s["x25519_public"] for s in v["seats"]] == [k.public_key().public_bytes_raw().hex() for k in xk]
    shared = xk[d["sender"]].exchange(X25519PublicKey.from_public_bytes(xk[d["to"]].public_key().public_bytes_raw()))
    assert d["x25519_shared"] == shared.hex()
    aad = gid + bytes((d["sender"], d["to"])) + d["step"].to_bytes(8, "big")
    key = sha(b"lanopoli/1/hidden-key\x00", shared, aad)
    assert (d["aad"], d["key"]) == (aad.hex(), key.hex())
    plain = b"".join(sha(b"lanopoli/1/hidden-open\x00", hs[d["sender"]], t.to_bytes(2, "big"))[:16]
                     for t in d["items"])
    assert d["plaintext"] == plain.hex()
    assert d["ciphertext"] == ChaCha20Poly1305(key).encrypt(bytes(12), plain, aad).hex()
    assert len(bytes.fromhex(d["ciphertext"])) == 16 + 16 * len(d["items"])
    # §C12.4 / §C8.8 kind 4: the holder's complaint [sender, key], settled from the leaves.
    leaf = {t: sha(b"lanopoli/1/hidden-leaf\x00", gid, bytes((d["sender"],)), t.to_bytes(2, "big"),
                   sha(b"lanopoli/1/hidden-open\x00", hs[d["sender"]], t.to_bytes(2, "big"))[:16])
            for t in d["items"]}
    assert [c["guilty"] for c in v["complaints"]] == [d["sender"], d["to"], None]
    for c in v["complaints"]:
        try:
            opened = ChaCha20Poly1305(bytes.fromhex(c["complaint"][1])).decrypt(bytes(12), bytes.fromhex(
                c["ciphertext"]), aad)
        except Exception:
            opened = None
        bad = None if opened is None else next(
            (t for i, t in enumerate(d["items"]) if sha(b"lanopoli/1/hidden-leaf\x00", gid, bytes((d["sender"],)),
                                                         t.to_bytes(2, "big"), opened[16 * i:16 * i + 16]) != leaf[t]),
            None)
        assert (c["opens"], c["first_bad_item"]) == (opened is not None, bad)
        # A key that opens nothing proves nothing: the sender opens the items in public.
        assert c["guilty"] == (None if opened is None else d["sender"] if bad is not None else d["to"])
        assert c["public_reopen"] == ([] if opened is not None else d["items"])


# --- a complete game ------------------------------------------------------------------------

def test_game_vector_replays_byte_for_byte(tmp_path):
    """The fixed-seed 2-seat classico game gives the same setup, state hashes, final hash and
    log bytes (§C2.3, §E4, §C6)."""
    want = load("game.json")
    log = tmp_path / "game.lnplog"
    got = M.play_game(tuple(want["seeds"]), log)
    assert got == want
    assert log.read_bytes() == (VEC / "game.lnplog").read_bytes()
    assert hashlib.sha256((VEC / "game.lnplog").read_bytes()).hexdigest() == want["log_sha256"]


def test_game_vector_initial_state_encoding():
    """§E4: the initial state's encoding decodes, re-encodes identically, and hashes to the
    published hash."""
    want = load("game.json")
    raw = bytes.fromhex(want["initial_state"])
    assert E.encode_state(E.decode_state(raw)) == raw
    assert sha(raw).hex() == want["initial_state_hash"]


def test_verify_json_of_the_sample_log():
    """``lanopoli verify --json`` on the published log (Part L) prints the published summary."""
    assert M.verify_json(VEC / "game.lnplog") == load("verify.json")


@pytest.mark.parametrize("name", ["rng.json", "chain.json", "sig.json", "game.json", "verify.json", "hidden.json",
                                  "niente.json", "reseat.json", "forced.json"])
def test_vector_files_are_small_and_sorted(name):
    """Vector files are the generator's canonical dump (sorted keys), so a regeneration diff
    shows only real changes."""
    text = (VEC / name).read_text()
    assert text == json.dumps(json.loads(text), indent=1, sort_keys=True) + "\n"
    assert (VEC / "game.lnplog").stat().st_size < 200_000


# --- §N2.2 channel keys and datagram MACs -------------------------------------------------------

def test_channel_vectors_match_the_code():
    assert M.compute_channel() == load("channel.json")


def test_channel_vectors_match_the_spec_text():
    """protocol.md §N2.2 with independent code: X25519 (cryptography), HKDF-SHA256 written out
    from RFC 5869 with the standard library's hmac, the per-direction keys by the order of the
    public keys, the tag over every byte before it, the three datagram forms of §N2, and the
    §C12.2 leaves digest."""
    import hmac

    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

    v = load("channel.json")
    priv = [X25519PrivateKey.from_private_bytes(bytes.fromhex(k)) for k in v["x25519_private"]]
    pubs = [k.public_key().public_bytes_raw() for k in priv]
    assert [p.hex() for p in pubs] == v["x25519_public"]
    shared = priv[0].exchange(X25519PublicKey.from_public_bytes(pubs[1]))
    assert shared == priv[1].exchange(X25519PublicKey.from_public_bytes(pubs[0]))
    assert v["shared"] == shared.hex()
    lo, hi = sorted(pubs)
    info = b"lanopoli/1/channel\x00" + lo + hi
    prk = hmac.digest(bytes(32), shared, "sha256")  # HKDF-Extract, salt = 32 zero bytes
    t1 = hmac.digest(prk, info + b"\x01", "sha256")  # HKDF-Expand, L = 64
    t2 = hmac.digest(prk, t1 + info + b"\x02", "sha256")
    assert (v["info"], v["k_lo_hi"], v["k_hi_lo"]) == (info.hex(), t1.hex(), t2.hex())
    host_is_lo = pubs[0] == lo
    assert v["host_send"] == (t1 if host_is_lo else t2).hex()
    assert v["join_send"] == (t2 if host_is_lo else t1).hex()
    for name, key, magic in (("introduction_join_to_host", v["join_send"], 0xB3),
                             ("authenticated_host_to_join", v["host_send"], 0xB2),
                             ("pure_ack_join_to_host", v["join_send"], 0xB2)):
        d = v[name]
        header = bytes([magic, d["flags"]]) + b"".join(
            d[f].to_bytes(4, "big") for f in ("src_epoch", "dst_epoch", "seq", "ack", "ack_bits"))
        body = header + bytes.fromhex(d.get("key", "")) + bytes.fromhex(d.get("chunk", ""))
        tag = hmac.digest(bytes.fromhex(key), body, "sha256")[:16]
        assert d["datagram"] == (body + tag).hex() and d["tag"] == tag.hex()
    assert v["introduction_join_to_host"]["key"] == pubs[1].hex()
    assert v["leaves_digest"] == sha(b"lanopoli/1/hidden-leaves\x00", bytes.fromhex(v["leaves"])).hex()


# --- §C13 sealed decisions --------------------------------------------------------------------

def test_sealed_vectors_match_the_code():
    assert M.compute_sealed() == load("sealed.json")


def test_sealed_vectors_match_the_spec_text():
    """protocol.md §C13.2/§C13.3 with hashlib and msgpack only: commitment = SHA-256(
    "lanopoli/1/sealed\\0" ‖ gid ‖ step 8 B BE ‖ seat 1 B ‖ msgpack(input) ‖ salt 16 B); the
    open step's input is the array [input, salt]; the STEP bodies are §C3.1's 6 fields with the
    commitment (bin 32), then the opening, as input."""
    import msgpack

    v = load("sealed.json")
    gid = bytes.fromhex(v["game_id"])
    assert len(gid) == 16 and len(v["cases"]) >= 5
    for c in v["cases"]:
        inp, salt = c["input"], bytes.fromhex(c["salt"])
        packed = msgpack.packb(inp, use_bin_type=True)
        assert c["input_msgpack"] == packed.hex() and len(salt) == 16
        assert c["commitment"] == sha(b"lanopoli/1/sealed\x00", gid, c["step"].to_bytes(8, "big"),
                                      bytes((c["seat"],)), packed, salt).hex()
        assert c["opening_msgpack"] == msgpack.packb([inp, salt], use_bin_type=True).hex()
        if inp is not None:
            assert inp == E.encode_action(E.decode_action(inp))
    one = v["cases"][1]
    ph, pd = bytes.fromhex(v["prev_hash"]), bytes.fromhex(v["prev_digest"])
    assert v["commit_step_body"] == msgpack.packb(
        [gid, one["step"], one["seat"], ph, pd, bytes.fromhex(one["commitment"])], use_bin_type=True).hex()
    assert v["open_step_body"] == msgpack.packb(
        [gid, one["step"] + 1, one["seat"], ph, bytes.fromhex(v["open_prev_digest"]),
         [one["input"], bytes.fromhex(one["salt"])]], use_bin_type=True).hex()
    d = v["salt_derivation"]  # the reference peer's salt: a hash of its own Ed25519 signature
    sk = Ed25519PrivateKey.from_private_bytes(sha(b"lanopoli/1/ed25519\x00", d["identity_seed"].encode()))
    signed = b"lanopoli/1/sealed-salt\x00" + gid + d["step"].to_bytes(8, "big")
    assert d["public_key"] == sk.public_key().public_bytes_raw().hex() and d["signed_bytes"] == signed.hex()
    assert d["signature"] == sk.sign(signed).hex()
    assert d["salt"] == sha(b"lanopoli/1/sealed-salt\x00", sk.sign(signed))[:16].hex()


# --- §E2/§E8/§C12.7 niente: PayBills, card-key trades, bill order, a bill choice replayed ---------

def test_niente_vectors_match_the_code():
    assert M.compute_niente() == load("niente.json")


def test_niente_vectors_match_the_spec_text():
    """From the text: an action is msgpack [code, fields...] (§E2; PayBills = 46, ProposeTrade
    card fields hold deck*256+card in niente, §E8); the bill-order secret is
    SHA-256("lanopoli/1/bill-order\\0" || hs_i) with hs_i of hidden.json, equal bills go in the
    order of SHA-256(secret || id 4 B BE) (§C12.7); and the engine replays the published steps
    (beacons and inputs) to the published state hashes around the PayBills."""
    import msgpack

    v = load("niente.json")
    for case in v["actions"].values():
        assert msgpack.packb(case["fields"]).hex() == case["msgpack"]
    assert v["actions"]["pay_bills"]["fields"][0] == 46
    trade = v["actions"]["trade_with_cards"]["fields"]
    assert trade[0] == 12 and trade[6] == [1 * 256 + 20] and trade[7] == [0 * 256 + 3]
    for seat, row in zip(load("hidden.json")["seats"], v["bill_order"]):
        secret = sha(b"lanopoli/1/bill-order\x00", bytes.fromhex(seat["hidden_secret"]))
        assert secret.hex() == row["secret"]
        assert sorted((9, 10, 11), key=lambda b: sha(secret, b.to_bytes(4, "big"))) == row["tens_order"]
    g = v["game"]
    s = E.new_game(g["edition"], g["seats"])
    for st in g["steps"]:
        if "beacon" in st:
            s, _ = E.apply_chance(s, bytes.fromhex(st["beacon"]))
        else:
            s, _ = E.apply_step(s, [None if a is None else E.decode_action(a) for a in st["inputs"]])
    pay = g["pay_step"]
    assert E.pending(s).kind == "pay_bills" and E.state_hash(s).hex() == pay["state_hash_before"]
    inputs = [None] * g["seats"]
    inputs[pay["seat"]] = E.decode_action(pay["input"])
    s, ev = E.apply_step(s, inputs)
    assert E.state_hash(s).hex() == pay["state_hash_after"]
    assert [[e.frm, e.to, list(e.bills)] for e in ev if type(e).__name__ == "BillsMoved"] == pay["bills_moved"]
    # The choice keeps the bill the payer "knew" fake and has the default's denominations.
    den = E.observation.denominations(s)
    assert pay["default"][0] not in pay["input"][1]
    assert sorted(den[b] for b in pay["input"][1]) == sorted(den[b] for b in pay["default"])


# --- §N3 / §N3.1 join code, TXT names, §N9 chat (issue 11) ------------------------------------

def test_lan_vectors_match_the_code():
    assert M.compute_lan() == load("lan.json")


def test_lan_vectors_match_the_spec_text():
    """protocol.md §N3.1 (tag = first 50 bits of SHA-256(label ‖ gid ‖ pk), Crockford base32 in
    two groups of five), §N3 (instance name, TXT names and sd), §N9 (CHAT body, signed bytes,
    envelope), §C2.4 (table codes), with hashlib, msgpack and cryptography only."""
    import msgpack

    v = load("lan.json")
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    for c in v["join_codes"]:
        h = sha(b"lanopoli/1/join-code\x00", bytes.fromhex(c["game_id"]), bytes.fromhex(c["host_pk"]))
        tag = int.from_bytes(h, "big") >> (256 - 50)
        chars = "".join(alphabet[(tag >> (45 - 5 * i)) & 31] for i in range(10))
        assert c["tag"] == tag and c["code"] == f"192.168.1.20:40000/{chars[:5]}-{chars[5:]}"
    rec = v["txt"]["record"]
    tail = " — " + rec["ed"] + " (" + rec["gid"][:8] + ")"
    room = 63 - len(tail.encode())
    host = v["txt"]["host_name"].encode()[:room].decode("utf-8", "ignore").rstrip()
    assert v["txt"]["instance_name"] == host + tail + "._lanopoli._udp.local."
    assert rec["n"] == v["txt"]["host_name"].encode()[:32].decode("utf-8", "ignore")
    assert all(len(rec[k].encode()) <= 32 for k in rec if k == "n" or k[0] == "p" and k[1:].isdigit())
    assert len(v["txt"]["instance_name"].split("._lanopoli")[0].encode()) <= 63
    assert rec["sd"] == "14:2:1500,-,2310" and rec["p1"] == "Niccolò"
    ch = v["chat"]
    sk = Ed25519PrivateKey.from_private_bytes(sha(b"lanopoli/1/ed25519\x00", ch["demo_seed"].encode()))
    pk = sk.public_key().public_bytes_raw()
    assert ch["pk"] == pk.hex()
    body = msgpack.packb([bytes.fromhex(ch["game_id"]), pk, ch["seq"], ch["name"], ch["text"]], use_bin_type=True)
    assert ch["body"] == body.hex()
    signed = b"lanopoli/1/chat\x00" + body
    assert ch["signed_bytes"] == signed.hex() and ch["signature"] == sk.sign(signed).hex()
    assert ch["envelope"] == msgpack.packb([36, body, sk.sign(signed)], use_bin_type=True).hex()
    for t in v["table_codes"]:  # §C2.4: 40 bits of SHA-256(label ‖ setup hash ‖ game seed), Crockford
        n = int.from_bytes(sha(b"lanopoli/1/table-code\x00", bytes.fromhex(t["setup_hash"]),
                               bytes.fromhex(t["game_seed"]))[:5], "big")
        chars = "".join(alphabet[(n >> (35 - 5 * i)) & 31] for i in range(8))
        assert t["code"] == f"{chars[:4]}-{chars[4:]}"


# --- §C8.9 re-seating a returning player --------------------------------------------------------

def test_reseat_vectors_match_the_code():
    assert M.compute_reseat() == load("reseat.json")


def test_reseat_vectors_match_the_spec_text():
    """protocol.md §C8.9 from the primitives: the RESEAT body, its signature under domain
    "reseat", the envelope (type 25), the STEP body with the 8th field (7th nil), the chain head
    SHA-256^n(s') and the reveal h'_{n-(j-b)} at the game's j-th chance step."""
    import msgpack

    v = load("reseat.json")
    sk = Ed25519PrivateKey.from_private_bytes(sha(b"lanopoli/1/ed25519\x00", v["demo_seed"].encode()))
    gid = bytes.fromhex(v["game_id"])
    h = bytes.fromhex(v["secret"])
    chain = [h]
    for _ in range(v["chain_length"]):
        chain.append(sha(chain[-1]))
    assert v["chain_head"] == chain[-1].hex()
    r = v["request"]
    body = msgpack.packb([gid, r["seat"], r["dropped_at"], chain[-1]], use_bin_type=True)
    assert v["body"] == body.hex()
    signed = b"lanopoli/1/reseat\x00" + body
    assert v["signed_bytes"] == signed.hex() and v["signature"] == sk.sign(signed).hex()
    env = msgpack.packb([25, body, sk.sign(signed)], use_bin_type=True)
    assert v["envelope"] == env.hex()
    step = msgpack.packb([gid, 41, 0, sha(b"vector prev hash"), sha(b"vector prev digest"), None, None, [env]],
                         use_bin_type=True)
    assert v["step_body"] == step.hex()
    n, b = v["chain_length"], v["base"]
    for j, rev in v["reveals"].items():
        assert rev == chain[n - (int(j) - b)].hex()
