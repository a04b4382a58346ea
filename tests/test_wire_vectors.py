"""tests/vectors/wire.json (protocol.md §C1, §C2.1, §C6, §C8.8, §C12.4): one envelope of every
message type, the kind-2 and kind-4 complaints, one framed record of every log kind. Recomputed
from the reference code (tests/vectors/make_wire_vectors.py) and, independently, from the text
of protocol.md: the §C1 table (type, domain, max envelope) is read from protocol.md itself, and
bodies, signed bytes, signatures, envelopes and log framing are rebuilt with msgpack, hashlib,
zlib and cryptography's Ed25519 alone. A failure means the wire format changed: bump the
protocol version and regenerate."""

from __future__ import annotations

import hashlib
import json
import re
import socket
import struct
import sys
import zlib
from pathlib import Path
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

VEC = Path(__file__).resolve().parent / "vectors"
ROOT = VEC.parent.parent
sys.path.insert(0, str(VEC))
import make_wire_vectors as M  # noqa: E402


def _vec() -> dict:
    return json.loads((VEC / "wire.json").read_text())


def untag(obj: Any) -> Any:
    """wire.json's tagged JSON back to the msgpack value: {"bin": hex} -> bytes."""
    if isinstance(obj, dict):
        return bytes.fromhex(obj["bin"])
    if isinstance(obj, list):
        return [untag(x) for x in obj]
    return obj


def c1_table() -> dict[int, tuple[str, bytes, int]]:
    """protocol.md §C1's message table: type -> (NAME, domain, max envelope bytes)."""
    text = (ROOT / "protocol.md").read_text()
    sec = text[text.index("### C1. Encoding and envelope"):text.index("### C2. Identity and signatures")]
    rows = re.findall(r"^\| (\d+) \| (\w+) \| `([a-z-]+)` \| \**(\d+)\**[^|]* \|", sec, re.M)
    return {int(t): (name, dom.encode(), int(mx)) for t, name, dom, mx in rows}


def _ed25519(seed: str) -> Ed25519PrivateKey:
    """§C2 demo identity: private key = SHA-256(b"lanopoli/1/ed25519\\x00" + seed)."""
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"lanopoli/1/ed25519\x00" + seed.encode()).digest())


def test_wire_vectors_match_the_code():
    text = (VEC / "wire.json").read_text()
    assert text == json.dumps(M.compute_wire(), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def test_every_message_type_of_the_code_is_in_the_c1_table_and_has_a_vector():
    from p2p import wire
    table = c1_table()
    assert set(table) == set(wire.SCHEMAS) == {int(t) for t in _vec()["messages"]}
    for t, (name, dom, mx) in table.items():
        assert wire.DOMAINS[t] == dom and wire.MAX_SIZE.get(t, mx) == mx, (t, name)


def test_every_envelope_from_the_spec_text():
    """§C1: envelope = msgpack [type, body, sig], sig = Ed25519(b"lanopoli/1/" + domain + 0x00 +
    body), domain and size limit from the §C1 table; body = the canonical msgpack of the fields."""
    table = c1_table()
    for t, m in _vec()["messages"].items():
        name, dom, mx = table[int(t)]
        assert m["domain"].encode() == dom and m["name"].upper() == name, t
        body = msgpack.packb(untag(m["fields"]), use_bin_type=True)
        assert body.hex() == m["body"] and len(m["names"]) >= len(m["fields"]), t
        signed = b"lanopoli/1/" + dom + b"\x00" + body
        assert signed.hex() == m["signed"]
        sk = _ed25519(m["signer"])
        assert sk.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex() == m["public_key"]
        assert sk.sign(signed).hex() == m["signature"]  # Ed25519 is deterministic (RFC 8032)
        env = msgpack.packb([int(t), body, sk.sign(signed)], use_bin_type=True)
        assert env.hex() == m["envelope"] and len(env) <= mx, t


def test_lobby_and_session_fields_follow_the_spec_text():
    """A few cross-checks of the bodies against the text: §C2.3 setup hash; PROPOSAL carries the
    setup bytes; SETUP_SIG/SEED sign the setup hash; §C3.1 STEP; §C9.1 CATCHUP_REQ range."""
    v = _vec()
    gid, setup = bytes.fromhex(v["game_id"]), bytes.fromhex(v["setup"])
    sh = hashlib.sha256(b"lanopoli/1/setup\x00" + setup).digest()
    assert sh.hex() == v["setup_hash"]
    f = {int(t): untag(m["fields"]) for t, m in v["messages"].items()}
    assert all(x[0] == gid for t, x in f.items() if t != 38 or x[0] == gid)
    assert f[5][1] == setup and f[6][2] == sh and f[7][2] == sh
    assert msgpack.unpackb(setup)[1] == gid and len(f[5]) == 2  # version 6: no endpoint list
    # §C2.1 (version 6): each player entry's 7th field is its own [host, port]
    demo = {seat: int(seed.rsplit("-", 1)[1]) for seed, seat in v["seat_of_demo"].items()}
    assert [p[6] for p in msgpack.unpackb(setup)[6]] == [[f"127.0.0.{demo[s] + 1}", 41000 + demo[s]] for s in range(3)]
    # REJECT's 6th field answers one JOIN: SHA-256("lanopoli/1/reject-answers\0" + its envelope)
    ra = v["reject_answers"]
    join = bytes.fromhex(ra["join"])
    assert hashlib.sha256(b"lanopoli/1/reject-answers\x00" + join).hexdigest() == ra["answers"]
    assert f[3][5].hex() == ra["answers"] and f[3][1] == msgpack.unpackb(msgpack.unpackb(join)[1])[2][0]
    assert msgpack.unpackb(msgpack.unpackb(join)[1])[2][6] == ra["endpoint"] == ["fd00::1:2", 41001]
    assert len(f[16]) == 6 and f[19][2] < f[19][3]
    # §C9.2: a page of the STEP record of step 7 (every seat's message), the responder's held
    # message of its head step and its escrow; §N10: RECORDS from index 0 start with the header
    gid_, seat, from_step, head, records, pending, escrows = f[20]
    (kind, payload), = records
    step, msgs = msgpack.unpackb(payload)
    assert (kind, step, from_step, head) == (1, 7, 7, 8)
    assert [msgpack.unpackb(msgpack.unpackb(m)[1])[1:3] for m in msgs] == [[7, 0], [7, 1], [7, 2]]
    assert msgpack.unpackb(msgpack.unpackb(pending[0])[1])[1:3] == [head, seat] and _env_type(escrows[0]) == 17
    assert f[38][1] == 0 and [k for k, _ in f[38][2]] == [0, 1]
    assert msgpack.unpackb(f[38][2][0][1])[1] == setup


def _endpoint_ok(host: str, port: int) -> bool:
    """§C2.1 'Endpoints' from the text, without ``ipaddress``: the canonical IPv4 dotted quad, or
    RFC 5952 §4 IPv6 in hexadecimal groups only; not unspecified, multicast (224.0.0.0/4,
    ff00::/8), 255.255.255.255, IPv4-mapped (::ffff:0:0/96) or scoped; port 1..65535."""
    if not 1 <= port <= 65535 or "%" in host:
        return False
    try:
        raw = socket.inet_pton(socket.AF_INET, host)
        return (".".join(str(b) for b in raw) == host and raw != bytes(4) and raw[0] & 0xF0 != 0xE0
                and raw != b"\xff" * 4)
    except OSError:
        pass
    try:
        raw = socket.inet_pton(socket.AF_INET6, host)
    except OSError:
        return False
    groups = [int.from_bytes(raw[i:i + 2], "big") for i in range(0, 16, 2)]
    best, at = 0, -1
    for i in range(8):
        n = next((k for k in range(i, 8) if groups[k]), 8) - i
        if n > best and n >= 2:
            best, at = n, i
    hexs = ["%x" % g for g in groups]
    text = ":".join(hexs) if at < 0 else ":".join(hexs[:at]) + "::" + ":".join(hexs[at + best:])
    return (text == host and raw != bytes(16) and raw[0] != 0xFF
            and raw[:12] != bytes(10) + b"\xff\xff")


def test_endpoint_forms_from_the_spec_text():
    """§C2.1 'Endpoints' (version 6): every form of ``endpoint_forms`` is valid exactly when the
    text says so (recomputed without ``ipaddress``), and a setup with two seats at one endpoint
    holds two equal [host, port] entries (the code refuses it: malformed)."""
    v = _vec()["endpoint_forms"]
    assert [_endpoint_ok(h, p) for h, p, _ in v["forms"]] == [ok for _, _, ok in v["forms"]]
    assert {ok for _, _, ok in v["forms"]} == {True, False}
    players = msgpack.unpackb(bytes.fromhex(v["setup_two_seats_one_endpoint"]))[6]
    assert len({tuple(p[6]) for p in players}) < len(players)


def _record(kind: int, payload: bytes) -> bytes:
    """§C6: u32 payload length | u8 kind | payload | u32 CRC-32 of kind + payload (big-endian)."""
    return struct.pack(">IB", len(payload), kind) + payload + struct.pack(">I", zlib.crc32(bytes((kind,)) + payload))


def _env_type(raw: bytes) -> int:
    return msgpack.unpackb(raw)[0]


def test_log_records_from_the_spec_text():
    """§C6 framing and each kind's payload layout."""
    v = _vec()
    assert bytes.fromhex(v["log"]["magic"]) == b"LNPLOG1\n"
    recs = {int(k): r for k, r in v["log"]["records"].items()}
    assert set(recs) == set(range(7))
    p = {}
    for k, r in recs.items():
        payload = bytes.fromhex(r["payload"])
        assert r["kind"] == k and _record(k, payload).hex() == r["record"]
        p[k] = payload
    version, setup, sigs, seeds = msgpack.unpackb(p[0])
    assert version == 1 and setup.hex() == v["setup"]
    assert [_env_type(x) for x in sigs] == [6, 6, 6] and [_env_type(x) for x in seeds] == [7, 7, 7]
    step, msgs = msgpack.unpackb(p[1])
    assert step == 0 and [_env_type(x) for x in msgs] == [16, 16, 16]
    assert [msgpack.unpackb(msgpack.unpackb(x)[1])[1:3] for x in msgs] == [[0, 0], [0, 1], [0, 2]]
    assert msgpack.unpackb(msgpack.unpackb(msgs[0])[1])[4].hex() == v["setup_hash"]  # prev_digest of step 0
    step, seat, votes, escrow = msgpack.unpackb(p[2])
    assert (step, seat) == (7, 2) and [_env_type(x) for x in votes] == [18, 18] and _env_type(escrow) == 17
    voters = [msgpack.unpackb(msgpack.unpackb(x)[1])[1] for x in votes]
    assert voters == sorted(voters)  # ascending voters
    step, own = msgpack.unpackb(p[3])
    assert step == 7 and _env_type(own) == 16
    assert _env_type(p[4]) == 23 and _env_type(p[5]) == 24
    step, seat, skips = msgpack.unpackb(p[6])
    assert (step, seat) == (7, 2) and [_env_type(x) for x in skips] == [26, 26]


def test_complaint_vectors_from_the_spec_text():
    """§C8.8: COMPLAINT body [gid, seat, step, culprit, kind, [evidence], key nil], signed by the
    complainer. kind 2: the evidence is a STEP whose input at a chance step is nil. kind 4: a
    STEP with the 7th field (§C12.4): openings outside an inspection, or a [sender, key]
    complaint of its holder."""
    v = _vec()
    seat_of = v["seat_of_demo"]
    demo = {s: d for d, s in seat_of.items()}
    for name, c in v["complaints"].items():
        ev = [bytes.fromhex(x) for x in c["evidence"]]
        env = msgpack.unpackb(bytes.fromhex(c["envelope"]))
        gid, seat, step, culprit, kind, evidence, key = msgpack.unpackb(env[1])
        assert (env[0], kind, culprit, evidence, key) == (24, c["kind"], c["culprit"], ev, None), name
        assert gid.hex() == c.get("game_id", v["game_id"])
        signed = b"lanopoli/1/complaint\x00" + env[1]
        assert _ed25519(demo[seat]).sign(signed) == env[2]
        sbody = msgpack.unpackb(msgpack.unpackb(ev[0])[1])
        if kind == 2:
            assert len(sbody) == 6 and sbody[5] is None and sbody[2] == culprit
        else:
            assert len(sbody) == 7
            deliveries, openings, complaint = sbody[6]
            assert (openings != b"" and sbody[2] == culprit) or (complaint is not None and complaint[0] == culprit)


def test_dropped_seat_digest_from_the_spec_text():
    """§C3.2: digest = SHA-256(b"lanopoli/1/digest\\x00" ‖ per seat u32(len(body)) ‖ body), a
    seat dropped at or before the step counting as the empty body (§C8.4)."""
    d = _vec()["digest_dropped"]
    bodies = [bytes.fromhex(x) for x in d["bodies"]]
    assert bodies[2] == b""
    h = hashlib.sha256(b"lanopoli/1/digest\x00")
    for body in bodies:
        h.update(len(body).to_bytes(4, "big") + body)
    assert h.hexdigest() == d["digest"]


def test_epoch_challenge_and_response_from_the_spec_text():
    """§N2 header (`!BBIIIII`), §N2.2: a CHALLENGE (flag bit 2) to the unknown epoch carrying a
    non-zero nonce in `seq`, the RESPONSE (bit 3) echoing it to the challenger's epoch, ack and
    ack_bits 0, no chunk; tags = HMAC-SHA256 of every byte before them under the sender's
    direction key (channel.json, same demo identities)."""
    import hmac

    v, ch = _vec()["epoch_proof"], json.loads((VEC / "channel.json").read_text())
    assert v["demo_seeds"] == ch["demo_seeds"]
    data, c, r = v["data_new_host_to_join"], v["challenge_join_to_host"], v["response_host_to_join"]
    assert data["magic"] == 0xB3 and data["dst_epoch"] == 0  # the restarted host introduces itself
    assert (c["flags"], c["dst_epoch"], c["ack"], c["ack_bits"]) == (0x04, data["src_epoch"], 0, 0) and c["seq"]
    assert (r["flags"], r["dst_epoch"], r["seq"], r["ack"], r["ack_bits"]) == (0x08, c["src_epoch"], c["seq"], 0, 0)
    for d, key in ((c, ch["join_send"]), (r, ch["host_send"])):
        header = struct.pack("!BBIIIII", d["magic"], d["flags"], d["src_epoch"], d["dst_epoch"], d["seq"], d["ack"],
                             d["ack_bits"])
        assert d["magic"] == 0xB2
        assert d["datagram"] == (header + hmac.digest(bytes.fromhex(key), header, "sha256")[:16]).hex()


#: Where protocol.md writes each message type's body (a regex whose group 1 is the `[...]` list).
BODY_TEXT = {
    1: r"^\| JOIN \| `(\[.*?\])`", 2: r"^\| STATUS \| `(\[.*?\])`", 3: r"^\| REJECT \| `(\[.*?\])`",
    4: r"^\| LEAVE \| `(\[.*?\])`", 5: r"^\| PROPOSAL \| `(\[.*?\])`", 6: r"SETUP_SIG body = (\[.*?\])`",
    7: r"^\| SEED \| `(\[.*?\])`", 16: r"^STEP body     = (\[.*\])", 17: r"^ESCROW body = (\[.*\])",
    18: r"^DROP body = (\[.*\])", 19: r"#### C9\.1\. CATCHUP_REQ.*?\n\n`(\[.*?\])`",
    20: r"#### C9\.2\. CATCHUP_RESP.*?```\n(\[.*?\])\n```", 21: r"#### C9\.3\. HINT.*?\n\n`(\[.*?\])`",
    22: r"`ALIVE body = (\[.*?\])`", 23: r"^ABANDON body = (\[.*\])", 24: r"^COMPLAINT body = (\[.*\])",
    25: r"^RESEAT body   = (\[.*\])", 26: r"^SKIP body = (\[.*\])", 36: r"`body = (\[gid: bin\(16\), pk.*?\])`",
    37: r"\*\*WATCH\*\*.*?`(\[gid.*?\])`", 38: r"\*\*RECORDS\*\*.*?`(\[gid.*?\])`"}
#: The document's short names of the tables' fields.
ALIAS = {"gid": "game_id", "setup": "setup_bytes"}


def _doc_fields(text: str) -> list[str]:
    """Top-level entries of a documented body `[a: t, b, [x, ...], ...]`: a field's name, or
    the entry itself when it is a bare list (named by position)."""
    assert text[0] == "["
    depth, cur, out = 0, "", []
    for ch in text[1:]:
        depth += ch in "[("
        depth -= ch in "])"
        if depth < 0:
            break
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return [e if e.startswith("[") else re.match(r"[a-z_]+", e).group(0) for e in out]


def test_every_body_in_the_text_lists_the_tables_fields_in_order():
    """protocol.md writes every message type's body field by field (§C1: "the field lists in
    this document and those tables say the same thing"): the same fields, in the same order, as
    the type's table in ``p2p/wire.SCHEMAS`` — all of them, or the required ones when the
    optional tail is described apart (SEED's 5th field, §C12.2)."""
    from p2p import wire
    text = (ROOT / "protocol.md").read_text()
    assert set(BODY_TEXT) == set(wire.SCHEMAS), "a message type whose body the text does not write"
    for t, rx in BODY_TEXT.items():
        m = re.search(rx, text, re.M | re.S)
        assert m, f"type {t}: body not found in protocol.md"
        doc = _doc_fields(" ".join(m.group(1).split()))
        struct = wire.SCHEMAS[t].struct
        assert len(doc) in (len(struct.names), struct.required), (t, doc, struct.names)
        for d, name in zip(doc, struct.names):
            assert d.startswith("[") or ALIAS.get(d, d) == name, (t, d, name)


def test_seat_advert_from_the_spec_text():
    """§N3.2: service `_lanopoli-seat._udp.local.`, instance `lanopoli-<gid hex[:16]>-seat<k>`,
    host `lanopoli-<gid16>-s<k>-<fp8>.local.` (fp8: the first 8 hex digits of the seat's key
    fingerprint, §C2: SHA-256 of the Ed25519 public key), TXT v, gid, seat, pk, xk — the seat's
    keys in the signed setup."""
    v = _vec()
    a, gid = v["seat_advert"], v["game_id"]
    pk = bytes.fromhex(a["txt"]["pk"])
    assert a["service_type"] == "_lanopoli-seat._udp.local."
    assert a["instance_name"] == f"lanopoli-{gid[:16]}-seat{a['seat']}._lanopoli-seat._udp.local."
    assert a["host_name"] == f"lanopoli-{gid[:16]}-s{a['seat']}-{hashlib.sha256(pk).hexdigest()[:8]}.local."
    setup = msgpack.unpackb(bytes.fromhex(v["setup"]))
    # TXT v is the protocol version, the setup's first field (§C2.3)
    assert a["txt"] == {"v": str(setup[0]), "gid": gid, "seat": str(a["seat"]), "pk": pk.hex(), "xk": a["txt"]["xk"]}
    players = setup[6]
    assert players[a["seat"]][:2] == [pk, bytes.fromhex(a["txt"]["xk"])]  # [pk, xk, ...] of that seat


def test_kind_4_complaints_settle_from_the_spec_text():
    """§C12.1/§C12.4: hidden secret = SHA-256("lanopoli/1/hidden-secret\\0" ‖ chain secret),
    opening of item t = SHA-256("lanopoli/1/hidden-open\\0" ‖ hs ‖ t (2 B))[:16]. The public
    fault: seat 0's openings field holds its opening of item 0 outside an inspection. The
    witness form: the key in seat 2's complaint opens seat 0's delivery of step 0 to seat 2
    (AAD gid ‖ 0 ‖ 2 ‖ step 0 (8 B)), and the openings in it are zeros, not seat 0's."""
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    c = _vec()["complaints"]
    p = c["hidden_public"]
    gid = bytes.fromhex(p["game_id"])
    hs0 = hashlib.sha256(b"lanopoli/1/hidden-secret\x00" + bytes.fromhex(p["chain_secrets"][0])).digest()
    op0 = hashlib.sha256(b"lanopoli/1/hidden-open\x00" + hs0 + (0).to_bytes(2, "big")).digest()[:16]
    own = msgpack.unpackb(msgpack.unpackb(bytes.fromhex(p["evidence"][0]))[1])
    assert own[6][1] == op0 and p["culprit"] == own[2] == 0 and p["reason"] == "openings outside an inspection step"
    w = c["hidden_witness"]
    holder = msgpack.unpackb(msgpack.unpackb(bytes.fromhex(w["evidence"][0]))[1])
    sender = msgpack.unpackb(msgpack.unpackb(bytes.fromhex(w["sender_step"]))[1])
    (culprit, key), step = holder[6][2], sender[1]
    assert (holder[2], holder[1], culprit, w["culprit"]) == (2, step + 1, 0, 0)
    ct = dict((to, x) for to, x in sender[6][0])[2]
    plain = ChaCha20Poly1305(key).decrypt(bytes(12), ct, gid + bytes((0, 2)) + step.to_bytes(8, "big"))
    assert plain == bytes(len(plain)) and len(plain) % 16 == 0 and plain
    assert "private delivery to seat 2 does not match its commitment" in w["reason"]


def test_setup_with_options_from_the_spec_text():
    """§C2.3: setup = msgpack [version, gid, edition, seats, chain_length, options sorted by key
    as [key, value] pairs, players in seat order (ascending pk)], setup_hash = SHA-256(prefix ‖
    bytes); §C7.1: the engine gets the options without the `p2p.` keys."""
    v = _vec()
    w = v["setup_with_options"]
    version, gid, edition, seats, chain_length, options, players = msgpack.unpackb(bytes.fromhex(w["setup"]))
    assert options == w["options"] == sorted(w["options"]) and len({k for k, _ in options}) == len(options)
    assert [p[0] for p in players] == sorted(p[0] for p in players) and len(players) == seats
    rebuilt = msgpack.packb([version, gid, edition, seats, chain_length, options, players], use_bin_type=True)
    assert rebuilt.hex() == w["setup"]
    assert hashlib.sha256(b"lanopoli/1/setup\x00" + rebuilt).hexdigest() == w["setup_hash"]
    assert w["engine_options"] == [kv for kv in options if not kv[0].startswith("p2p.")]
    assert {type(x) for _, x in options} == {int, str, bool}


def test_escrow_ack_vector_from_the_text():
    """§C8.2 / §C3.1: a STEP's 9th field acknowledges an escrow by SHA-256 of its whole envelope;
    the 7th (hidden) and 8th (reseat) fields are nil when absent before it. Rebuilt with msgpack
    and hashlib alone."""
    v = _vec()["escrow_ack"]
    escrow = bytes.fromhex(v["escrow"])
    assert hashlib.sha256(escrow).hexdigest() == v["hash"]
    body = msgpack.unpackb(bytes.fromhex(v["body"]), raw=False)
    assert len(body) == 9 and body[5] is None and body[6] is None and body[7] is None
    dealer, epoch, h = body[8][0]
    assert (dealer, epoch, h.hex()) == (2, 0, v["hash"])
    assert msgpack.packb(body, use_bin_type=True).hex() == v["body"]


def test_drop_share_forms_from_the_spec_text():
    """§C8.3 rule (a) (version 5): a DROP body's 6th field is nil (open), 66 bytes (released
    share) or 32 bytes (released pairwise key); each envelope rebuilt with msgpack and Ed25519
    alone. The key decrypts seat 1's entry of the bad escrow (ChaCha20-Poly1305, 12 zero-byte
    nonce, aad gid || dealer || to || epoch, §C8.2) to bytes whose commitment is not the entry's:
    the dealer's escrow is proven bad, the stand-in decides; the DROP record is msgpack [step,
    seat, [votes], escrow]."""
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    w = _vec()
    v = w["drop_forms"]
    seed_of = {seat: seed for seed, seat in w["seat_of_demo"].items()}
    gid = bytes.fromhex(w["game_id"])
    lengths = {"open": None, "share": 66, "key": 32}
    for name, m in v["votes"].items():
        fields = untag(m["fields"])
        assert fields[:5] == [gid, m["voter"], 7, 2, 0]
        assert (fields[5] if fields[5] is None else len(fields[5])) == lengths[name], name
        body = msgpack.packb(fields, use_bin_type=True)
        sig = _ed25519(seed_of[m["voter"]]).sign(b"lanopoli/1/seat-drop\x00" + body)
        assert body.hex() == m["body"]
        assert msgpack.packb([18, body, sig], use_bin_type=True).hex() == m["envelope"]
    key = bytes.fromhex(v["key"])
    assert untag(v["votes"]["key"]["fields"])[5] == key
    _, ebody, _ = msgpack.unpackb(bytes.fromhex(v["bad_escrow"]), raw=False)
    egid, dealer, epoch, entries = msgpack.unpackb(ebody, raw=False)
    to, commit, ct = entries[1]
    aad = egid + bytes((dealer, to)) + epoch.to_bytes(2, "big")
    plain = ChaCha20Poly1305(key).decrypt(bytes(12), ct, aad)
    assert plain.hex() == v["key_opens_to"]
    assert hashlib.sha256(b"lanopoli/1/escrow-commit\x00" + aad + plain).digest() != commit  # the entry does not open
    assert v["verdict"] == {"chain": None, "cheat": "escrow share does not match its commitment", "used": [0, 1]}
    votes = [bytes.fromhex(v["votes"][k]["envelope"]) for k in ("share", "key")]
    assert msgpack.packb([7, 2, votes, bytes.fromhex(v["bad_escrow"])], use_bin_type=True).hex() == v["drop_record"]
