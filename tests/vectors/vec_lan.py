"""Vectors of the network part (make_vectors.py part): channel.json (protocol.md §N2, §N2.2: the
pairwise channel keys of two demo identities, an introduction, an authenticated datagram and a
pure ack; §C12.2 a leaves digest) and lan.json (§N3, §N3.1, §N9: join-code tags and codes, a TXT
record with names and standings, a signed CHAT message).
"""

from __future__ import annotations

import hashlib

import repo_first  # noqa: F401  (the repository's engine/p2p first on sys.path)

from p2p import beacon as B
from p2p import const as C
from p2p.identity import Identity, signed_bytes
from p2p.wire import seal_message

from vec_labels import label_hash as _h


def compute_channel() -> dict:
    """§N2, §N2.2 vectors (channel.json): the pairwise keys of the demo identities
    ``vector-host-0`` and ``vector-join-0`` (X25519 private keys as in §C2), an authenticated
    DATA datagram from the host, an introduction from the joiner and its pure ack, and (§C12.2)
    the leaves digest of 64 bytes of leaves."""
    from p2p.endpoint import Endpoint
    from p2p import transport as T
    from p2p.channel_auth import KeyCache
    from p2p.hidden import leaves_digest

    seeds = (b"vector-host-0", b"vector-join-0")
    ids = [Identity.from_seed(s) for s in seeds]
    host, join = ids
    lo, hi = sorted((host.x25519_public_key, join.x25519_public_key))
    shared = host.x25519_exchange(join.x25519_public_key)
    hk, jk = KeyCache(host).pinned(join.x25519_public_key), KeyCache(join).pinned(host.x25519_public_key)
    a, b = ("127.0.0.1", 1), ("127.0.0.1", 2)
    ep_h = Endpoint(epoch=0x01020304, keys=KeyCache(host))
    ep_j = Endpoint(epoch=0x0A0B0C0D, keys=KeyCache(join))
    ep_j.pin(a, host.x25519_public_key)
    ep_j.send(a, b"JOIN?")
    intro = ep_j.datagrams_to_send(0.0)[0][0]
    assert ep_h.receive_datagram(intro, b, 0.0) == [(b, b"JOIN?")]
    ep_h.send(b, b"STATUS!")
    auth = ep_h.datagrams_to_send(0.0)[0][0]
    assert ep_j.receive_datagram(auth, a, 0.0) == [(a, b"STATUS!")]
    (ack, _), = ep_j.datagrams_to_send(1.0)  # the joiner's pure ack, no longer an introduction
    leaves = bytes(range(64))

    def fields(d: bytes) -> dict:
        magic, flags, src, dst, seq, ack, bits = T.HEADER.unpack_from(d)
        return {"magic": magic, "flags": flags, "src_epoch": src, "dst_epoch": dst, "seq": seq, "ack": ack,
                "ack_bits": bits, "datagram": d.hex(), "tag": d[-16:].hex()}

    return {"spec": "protocol.md §N2, §N2.2, §C12.2",
            "demo_seeds": [s.decode() for s in seeds],
            "x25519_private": [hashlib.sha256(b"lanopoli/1/x25519\x00" + s).hexdigest() for s in seeds],
            "x25519_public": [i.x25519_public_key.hex() for i in ids],
            "lo": lo.hex(), "hi": hi.hex(), "shared": shared.hex(),
            "info": (b"lanopoli/1/channel\x00" + lo + hi).hex(),
            "k_lo_hi": (hk.send if host.x25519_public_key == lo else hk.recv).hex(),
            "k_hi_lo": (hk.recv if host.x25519_public_key == lo else hk.send).hex(),
            "host_send": hk.send.hex(), "join_send": jk.send.hex(),
            "introduction_join_to_host": dict(fields(intro), chunk=b"JOIN?".hex(),
                                              key=join.x25519_public_key.hex()),
            "authenticated_host_to_join": dict(fields(auth), chunk=b"STATUS!".hex()),
            "pure_ack_join_to_host": fields(ack),
            "leaves": leaves.hex(), "leaves_digest": leaves_digest(leaves).hex()}


def compute_lan() -> dict:
    """§N3, §N3.1, §N9, §C2.4 vectors (lan.json): join-code tags and codes of three game ids and host
    keys, the table codes of two labelled (setup hash, game seed) pairs, a TXT record with names
    and standings and its instance name, and a CHAT message of the demo identity
    ``vector-seat-a`` (body, signed bytes, signature, envelope)."""
    from p2p.ad_record import GameAd, Standings
    from p2p.join_code import format_code, join_code_tag
    from p2p.wire import MSG_CHAT, SCHEMAS, Chat

    codes = []
    for label in ("a", "b", "c"):
        ident = Identity.from_seed(b"vector-host-" + label.encode())
        gid = _h("vector game id " + label)[:16]
        tag = join_code_tag(gid, ident.public_key)
        codes.append({"game_id": gid.hex(), "host_pk": ident.public_key.hex(), "tag": tag,
                      "code": format_code("192.168.1.20", 40000, tag)})
    host = Identity.from_seed(b"vector-host-a")
    ad = GameAd(version=C.PROTOCOL_VERSION, game_id=bytes.fromhex(codes[0]["game_id"]), edition="niente-e-come-sembra",
                seats_taken=3, seats_total=3, state="running", fingerprint=host.fingerprint,
                address="192.168.1.20", port=40000, public_key=host.public_key,
                x25519_key=host.x25519_public_key, host_name="Prof.ssa Niccolò-Žižek di Sant'Eufemia",
                players=("Anna", "Niccolò", "Prof.ssa Niccolò-Žižek di Sant'Eufemia"),
                standings=Standings(turn=14, current=2, worth=(1500, None, 2310)))
    seed = b"vector-seat-a"
    ident = Identity.from_seed(seed)
    gid = B.derive_secret(seed, b"game-id", b"")[:16]
    fields = [gid, ident.public_key, 1_700_000_000_000, "Anna", "Ciao a tutti! È il mio turno?"]
    body = SCHEMAS[MSG_CHAT].encode(Chat(*fields))
    from p2p.table_code import table_code

    tables = []
    for x in ("a", "b"):
        sh, game_seed = _h(f"vector setup {x}"), _h(f"vector game seed {x}")
        tables.append({"setup_hash": sh.hex(), "game_seed": game_seed.hex(), "code": table_code(sh, game_seed)})
    return {"spec": "protocol.md §N3, §N3.1, §N9, §C2.4", "join_codes": codes, "table_codes": tables,
            "txt": {"host_name": ad.host_name, "instance_name": ad.instance_name, "record": ad.txt()},
            "chat": {"demo_seed": seed.decode(), "game_id": gid.hex(), "pk": ident.public_key.hex(),
                     "seq": fields[2], "name": fields[3], "text": fields[4], "body": body.hex(),
                     "signed_bytes": signed_bytes(C.DOMAIN_CHAT, body).hex(),
                     "signature": ident.sign(C.DOMAIN_CHAT, body).hex(),
                     "envelope": seal_message(ident, MSG_CHAT, Chat(*fields)).hex()}}
