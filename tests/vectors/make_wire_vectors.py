"""Generate tests/vectors/wire.json: one signed envelope of EVERY message type of protocol.md
§C1, the complaint kinds no other vector file covers, and one framed log record of every log
record kind of §C6 (``python tests/vectors/make_wire_vectors.py``).

Three demo seats ``vector-wire-0..2`` (``Identity.from_seed``) sit at a 3-seat classico game
whose game id is SHA-256("vector wire game")[:16] and whose setup is built from their keys
(players ascending by public key, §C2.2). Every message is built through the production
encoders (``wire.seal_message``), so a change of any table of ``p2p/wire.py`` shows here.

* ``messages``: per type (a decimal string key), ``name``, ``domain``, ``signer`` (demo seat
  index), ``names`` (the body's wire field names, in order), ``fields`` (the body as tagged
  JSON: ``{"bin": hex}`` for bin, JSON strings for str, ints, booleans, null for nil, lists for
  arrays), ``body``, ``signed`` (b"lanopoli/1/" + domain + b"\\x00" + body), ``signature``,
  ``envelope``.
* ``complaints``: a COMPLAINT of kind 2 (a nil STEP of seat 2 at chance step 7, the signer
  seat 0; ``complaints.check_bad_step`` at step 7 names seat 2) and two of kind 4 (§C8.8,
  §C12.4; ``hidden_complaints``), each with the verdict (culprit, reason) the code gives.
* ``digest_dropped``: the §C3.2 digest of a step whose seat 2 was dropped (its body empty).
* ``drop_forms``: version 5's DROP ``share`` forms (open, released share, released key), the
  bad escrow the key proves, the verdict and the DROP record (``drop_forms``).
* ``epoch_proof``: §N2.2's CHALLENGE and RESPONSE datagrams (``epoch_proof``).
* ``seat_advert``: §N3.2's DNS-SD advert of seat 1 (``seat_advert``).
* ``setup_with_options``: §C2.3 setup bytes and hash with options (``setup_with_options``).
* ``endpoint_forms`` (version 6, §C2.1): signed endpoint texts with whether a seat may sign them
  (canonical IPv4, RFC 5952 §4 IPv6 in hexadecimal groups only; refused: other texts of one
  address, unspecified, multicast, broadcast, IPv4-mapped, scoped, port 0), and a setup with two
  seats at one endpoint (malformed).
* ``reject_answers`` (version 6, §C2.1): seat 1's JOIN (its entry's endpoint IPv6 ``fd00::1:2``)
  and the REJECT's ``answers`` = SHA-256(b"lanopoli/1/reject-answers\x00" + that envelope).
  Every player entry carries its ``endpoint`` [host, port]: demo seat i at 127.0.0.(i+1):41000+i.
* ``log``: the framed records (``u32 length | u8 kind | payload | u32 CRC-32``) of kinds 0
  (header), 1 (step), 2 (drop), 3 (own message), 4 (abandon), 5 (complaint), 6 (skip), each
  with ``kind``, ``payload`` and ``record``; written through ``p2p.gamelog`` (LogWriter, OwnLog).
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgpack

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from p2p import const as C  # noqa: E402
from p2p import gamelog  # noqa: E402
from p2p import wire as W  # noqa: E402
from p2p.complaints import BAD_HIDDEN, BAD_STEP, StepNow, check_bad_step, make_complaint  # noqa: E402
from p2p.escrow import make_escrow, make_shares, quorum  # noqa: E402
from p2p.identity import Identity  # noqa: E402
from p2p.lobby import LOG_HEADER_VERSION  # noqa: E402
from p2p.reject import answers_hash  # noqa: E402
from p2p.step_collect import step_digest  # noqa: E402

SEEDS = [f"vector-wire-{i}" for i in range(3)]


def _h(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


def _ep(i: int) -> tuple[str, int]:
    """Demo seat ``i``'s signed endpoint (§C2.1, version 6)."""
    return (f"127.0.0.{i + 1}", 41000 + i)


def tagged(obj: Any) -> Any:
    """A msgpack value as JSON: bin -> {"bin": hex}, str -> JSON string, arrays -> lists."""
    if isinstance(obj, bytes):
        return {"bin": obj.hex()}
    if isinstance(obj, (list, tuple)):
        return [tagged(x) for x in obj]
    return obj


def _setup(ids: list[Identity], gid: bytes) -> tuple[bytes, list[int]]:
    """The setup bytes of the demo game and, per setup seat, the demo identity index."""
    order = sorted(range(len(ids)), key=lambda i: ids[i].public_key)
    players = tuple(W.Player(ids[i].public_key, ids[i].x25519_public_key, f"wire-{i}", _h(f"head {i}"),
                             _h(f"commit {i}"), False, _ep(i)) for i in order)
    setup = W.Setup(C.PROTOCOL_VERSION, gid, "classico", 3, 64, (), players)
    return W.SETUP.encode(setup), order


def hidden_complaints(ids: list[Identity]) -> dict:
    """The two kind-4 COMPLAINT vectors (§C8.8, §C12.4) at a 3-seat niente-e-come-sembra table
    of the same demo seats (game id SHA-256("vector wire hidden game")[:16], chain secret of
    seat s SHA-256("vector wire chain <s>"), its hidden secret and leaves as in §C12.1; every
    STEP over prev_hash SHA-256("vector state hash"), prev_digest SHA-256("vector digest")),
    each judged by ``complaints.check_hidden`` with the ledger every peer holds at that step:

    * ``hidden_public``: at step 0 seat 0 sends its honest deliveries plus one opening (its item
      0) outside an inspection; seat 1 complains with seat 0's STEP: seat 0 is proven.
    * ``hidden_witness``: at step 0 seat 0 seals zero openings to seat 2 under the right key;
      seat 2's STEP of step 1 carries ``complaint = [0, key]``; seat 1 complains with that STEP
      (the witness's message): seat 0 is proven. ``sender_step``: seat 0's STEP of step 0 (the
      delivery the judge applied)."""
    import engine as E
    from p2p import hidden as H
    from p2p.complaints import HiddenNow, check_hidden
    from p2p.private_view import PrivateView

    gid = _h("vector wire hidden game")[:16]
    state = E.new_game("niente-e-come-sembra", 3)
    layout = H.layout_of_state(state)
    chains = [_h(f"vector wire chain {s}") for s in range(3)]
    hs = [H.hidden_secret(c) for c in chains]
    leaves = [H.make_leaves(hs[s], gid, s, layout.items) for s in range(3)]
    players = tuple(W.Player(i.public_key, i.x25519_public_key, f"wire-{n}", bytes(32), bytes(32), False, _ep(n))
                    for n, i in enumerate(ids))
    setup = W.Setup(C.PROTOCOL_VERSION, gid, "niente-e-come-sembra", 3, 64, (), players)
    h, dg = _h("vector state hash"), _h("vector digest")
    xkeys = [i.x25519_public_key for i in ids]

    def table() -> tuple:
        led = H.HiddenLedger(gid, 3, layout, leaves, state)
        return led, [PrivateView(led, s, hs[s], ids[s], xkeys) for s in range(3)]

    def step(seat: int, k: int, field: list) -> bytes:
        return W.seal_message(ids[seat], W.MSG_STEP, W.StepBody(gid, k, seat, h, dg, None, field))

    out = {}
    led, views = table()
    f0 = views[0].my_field(0, None)
    f0[1] = H.opening(hs[0], 0)
    own = step(0, 0, f0)
    out["hidden_public"] = (own, make_complaint(ids[1], gid, 1, 0, 0, BAD_HIDDEN, [own]),
                            check_hidden(setup, own, None, HiddenNow(0, h, dg, led, None)))
    led, views = table()
    fields = [v.my_field(0, None) for v in views]
    for d in fields[0][0]:
        if d[0] == 2:
            d[1] = H.seal_delivery(views[0].message_key(0, 2, 0), gid, 0, 2, 0, bytes(len(d[1]) - H.TAG_LEN))
    for v in views:
        v.receive(0, fields)
    led.after_step(0, fields, state)
    holder = step(2, 1, views[2].my_field(1, None))
    out["hidden_witness"] = (holder, make_complaint(ids[1], gid, 1, 1, 0, BAD_HIDDEN, [holder]),
                             check_hidden(setup, holder, None, HiddenNow(1, h, dg, led, None)))
    res = {name: {"kind": BAD_HIDDEN, "game_id": gid.hex(), "edition": "niente-e-come-sembra",
                  "chain_secrets": [c.hex() for c in chains], "evidence": [ev.hex()], "envelope": env.hex(),
                  "culprit": verdict[0], "reason": verdict[1]}
           for name, (ev, env, verdict) in out.items()}
    # what the judge holds besides the evidence: the sender's STEP of step 0 every peer applied
    res["hidden_witness"]["sender_step"] = step(0, 0, fields[0]).hex()
    return res


def epoch_proof() -> dict:
    """§N2.2 epoch challenge/response between the demo identities of channel.json
    (``vector-host-0``, ``vector-join-0``, so its direction keys apply): the joiner (epoch
    0x0A0B0C0D) knows the host at epoch 0x01020304; the host restarts at epoch 0x05060708 and
    sends DATA "again"; the joiner answers with a CHALLENGE (nonce 0x11223344, forced here: the
    code draws it from os.urandom) and the new host with the RESPONSE echoing it, after which
    the joiner believes the new epoch and delivers the data."""
    from unittest import mock

    from p2p.endpoint import Endpoint
    from p2p import transport as T
    from p2p.channel_auth import KeyCache

    host, join = (Identity.from_seed(s) for s in (b"vector-host-0", b"vector-join-0"))
    a, b = ("127.0.0.1", 1), ("127.0.0.1", 2)

    def fields(d: bytes) -> dict:
        magic, flags, src, dst, seq, ack, bits = T.HEADER.unpack_from(d)
        return {"magic": magic, "flags": flags, "src_epoch": src, "dst_epoch": dst, "seq": seq, "ack": ack,
                "ack_bits": bits, "datagram": d.hex()}

    old = Endpoint(epoch=0x01020304, keys=KeyCache(host))
    ep_j = Endpoint(epoch=0x0A0B0C0D, keys=KeyCache(join))
    ep_j.pin(a, host.x25519_public_key)
    ep_j.send(a, b"JOIN?")
    old.receive_datagram(ep_j.datagrams_to_send(0.0)[0][0], b, 0.0)
    old.send(b, b"STATUS!")
    ep_j.receive_datagram(old.datagrams_to_send(0.0)[0][0], a, 0.0)
    new = Endpoint(epoch=0x05060708, keys=KeyCache(host))
    new.pin(b, join.x25519_public_key)
    new.send(b, b"again")
    data = new.datagrams_to_send(10.0)[0][0]
    with mock.patch("os.urandom", return_value=bytes.fromhex("11223344")):
        assert ep_j.receive_datagram(data, a, 10.0) == []  # not believed yet
    challenge = next(d for d, _ in ep_j.datagrams_to_send(10.0) if d[1] & T.FLAG_CHALLENGE)
    new.receive_datagram(challenge, b, 10.0)
    response = next(d for d, _ in new.datagrams_to_send(10.0) if d[1] & T.FLAG_RESPONSE)
    ep_j.receive_datagram(response, a, 10.0)
    new.handle_timer(20.0)  # the unacknowledged DATA is sent again
    resent = new.datagrams_to_send(20.0)
    delivered = [p for d, _ in resent for _, p in ep_j.receive_datagram(d, a, 20.0)]
    assert delivered == [b"again"], delivered
    return {"demo_seeds": ["vector-host-0", "vector-join-0"], "data_new_host_to_join": fields(data),
            "challenge_join_to_host": fields(challenge), "response_host_to_join": fields(response)}


def seat_advert(ids: list[Identity], gid: bytes) -> dict:
    """§N3.2: seat 1's DNS-SD advert of the wire game at 127.0.0.31:41001 (TXT record,
    instance name, host name, as ``rendezvous.SeatAd`` builds them)."""
    from p2p.rendezvous import SeatAd

    ad = SeatAd(C.PROTOCOL_VERSION, gid, 1, ids[1].public_key, ids[1].x25519_public_key, "127.0.0.31", 41001)
    info = ad.to_info()
    return {"seat": 1, "address": "127.0.0.31", "port": 41001, "txt": ad.txt(), "instance_name": ad.instance_name,
            "host_name": info.server, "service_type": info.type}


#: §C2.1 'Endpoints' (version 6): signed endpoint forms, valid or refused (``seat_endpoint.endpoint_ok``).
ENDPOINT_FORMS = [
    ("10.0.0.2", 41000), ("192.168.1.20", 1), ("fd00::1:2", 65535), ("::1", 5000), ("2001:db8::1:0:0:1", 5000),
    ("2001:db8:0:1:1:1:1:1", 5000), ("fd00:0:0:1::1", 5000), ("::ffff:0:a00:2", 5000),
    ("::ffff:0:10.0.0.2", 5000), ("::ffff:10.0.0.1", 5000), ("::ffff:a00:1", 5000), ("FD00::1", 5000),
    ("fd00:0:0:0:0:0:0:1", 5000), ("2001:db8:0:0:1::1", 5000), ("2001:db8::1:1:1:1:1", 5000),
    ("fd00::1:0:0:0:1", 5000), ("010.0.0.1", 5000), ("0.0.0.0", 5000), ("::", 5000), ("255.255.255.255", 5000),
    ("224.0.0.1", 5000), ("ff02::fb", 5000), ("fe80::1%eth0", 5000), ("10.0.0.1", 0), ("host.local", 5000)]


def endpoint_forms(ids: list[Identity], gid: bytes) -> dict:
    """§C2.1 (version 6): each of ``ENDPOINT_FORMS`` with whether a seat may sign it, and the setup
    of the wire game with seat 1's endpoint made seat 0's (two seats at one endpoint): malformed."""
    from p2p.errors import WireError
    from p2p.seat_endpoint import endpoint_ok

    forms = [[h, port, endpoint_ok(h, port)] for h, port in ENDPOINT_FORMS]
    players = [W.Player(i.public_key, i.x25519_public_key, f"wire-{n}", _h(f"head {n}"), _h(f"commit {n}"), False,
                        _ep(n)) for n, i in enumerate(ids)]
    players[1] = players[1]._replace(endpoint=players[0].endpoint)
    dup = W.SETUP.to_wire(W.Setup(C.PROTOCOL_VERSION, gid, "classico", 3, 64, (), tuple(players)))
    raw = msgpack.packb(dup, use_bin_type=True)
    try:
        W.SETUP.decode(raw)
        raise AssertionError("a setup with two seats at one endpoint decoded")
    except WireError as e:
        why = str(e)
    return {"forms": forms, "setup_two_seats_one_endpoint": raw.hex(), "refused": why,
            "note": "[host, port, valid]; the setup with seats 0 and 1 at one endpoint is malformed (§C2.1)"}


def setup_with_options(ids: list[Identity], gid: bytes) -> dict:
    """§C2.3, §C7.1: the setup of the wire game's players for a timed editrice-giochi game with
    options of each value type (str, ints, bools), given unsorted and encoded sorted by key; its
    hash and the options the engine gets (``wire.engine_options``: the ``p2p.`` keys left out;
    ``engine.new_game`` accepts them) and the p2p checks pass (``setup_options.check_p2p_options``)."""
    import engine
    from p2p.setup_options import check_p2p_options

    players = tuple(W.Player(i.public_key, i.x25519_public_key, f"wire-{n}", _h(f"head {n}"), _h(f"commit {n}"),
                             False, _ep(n)) for n, i in enumerate(ids))
    opts = W.check_options({"timed_minutes": 2, "p2p.turn_time": 0, "p2p.on_drop": "bot", "p2p.drop_timeout": 30,
                            "p2p.timed_ms": 90000, "free_parking_pot": True, "no_auctions": False})
    setup = W.Setup(C.PROTOCOL_VERSION, gid, "editrice-giochi", 3, 65536, opts, players)
    raw = W.SETUP.encode(setup)
    check_p2p_options(opts)
    engine.new_game(setup.edition, setup.seats, W.engine_options(setup))
    return {"options": [list(kv) for kv in opts], "setup": raw.hex(), "setup_hash": W.setup_hash(raw).hex(),
            "engine_options": sorted([list(kv) for kv in W.engine_options(W.SETUP.decode(raw)).items()])}


def drop_forms(ids: list, gid: bytes) -> dict:
    """§C8.3 rule (a) (version 5): DROP(7, seat 2) in its three forms of ``share``: seat 1's
    **open** vote (nil), seat 0's vote **released with its share** (66 bytes) and seat 1's vote
    **released with its pairwise key** (32 bytes) of an entry that does not open: seat 2's
    ``bad_escrow`` deals seat 1 a ciphertext that decrypts under that key to 66 zero bytes,
    which do not match seat 1's commitment (``escrow.key_proves_bad``). With the escrow
    CONFIRMED, the quorum of seat 0's share and seat 1's key decides the stand-in and names the
    dealer (``recover_chain``: chain None, cheat, used); ``drop_record`` is that DROP log record."""
    from p2p import aead
    from p2p.escrow import BAD_ENTRY, NONCE, drop_record, key_proves_bad, pair_key, recover_chain, share_ctx

    xkeys = [i.x25519_public_key for i in ids]
    secret = _h("vector wire chain")
    good = W.open_envelope(make_escrow(ids[2], secret, gid, 2, 0, [0, 1], xkeys, quorum(3)))
    e = W.decode_escrow(good.body)
    key1 = pair_key(ids[1], xkeys[2], gid, 2, 1, 0)
    plain = bytes(C.SHARE_LEN)
    ct = aead.encrypt(key1, NONCE, plain, share_ctx(gid, 2, 1, 0))
    bad = W.seal_message(ids[2], W.MSG_ESCROW, e._replace(entries=(e.entries[0], e.entries[1]._replace(ct=ct))))
    esc = W.decode_escrow(W.open_envelope(bad).body)
    share0 = make_shares(secret, gid, 0, [0, 1], quorum(3))[0]
    forms = {"open": W.DropVote(gid, 1, 7, 2, 0, None), "share": W.DropVote(gid, 0, 7, 2, 0, share0),
             "key": W.DropVote(gid, 1, 7, 2, 0, key1)}
    out: dict = {}
    for name, v in forms.items():
        raw = W.seal_message(ids[v.voter], W.MSG_DROP, v)
        out[name] = {"voter": v.voter, "body": W.open_envelope(raw).body.hex(), "envelope": raw.hex(),
                     "fields": tagged(msgpack.unpackb(W.open_envelope(raw).body, raw=False))}
    assert key_proves_bad(esc, 1, key1)
    r = recover_chain(W.SETUP.decode(W.SETUP.encode(_setup_for(ids, gid))), esc, [forms["share"], forms["key"]], 2)
    assert (r.chain, r.cheat, r.used) == (None, BAD_ENTRY, (0, 1))
    record = drop_record(7, 2, [bytes.fromhex(out["share"]["envelope"]), bytes.fromhex(out["key"]["envelope"])], bad)
    return {"votes": out, "bad_escrow": bad.hex(), "key": key1.hex(), "key_opens_to": plain.hex(),
            "verdict": {"chain": None, "cheat": r.cheat, "used": list(r.used)}, "drop_record": record.hex(),
            "note": "share nil = open, bin(66) = released share, bin(32) = released pairwise key (§C8.3 (a))"}


def _setup_for(ids: list, gid: bytes) -> Any:
    """A 3-seat Setup of ``ids`` (seat order) whose seat 2's chain head is that of
    SHA-256("vector wire chain") (``recover_chain`` reads the seats, the chain length and heads)."""
    from p2p.beacon import HashChain

    head = HashChain(_h("vector wire chain"), 64).head
    players = tuple(W.Player(i.public_key, i.x25519_public_key, f"wire-{n}", head, _h(f"commit {n}"), False, _ep(n))
                    for n, i in enumerate(ids))
    return W.Setup(C.PROTOCOL_VERSION, gid, "classico", 3, 64, (), players)


def compute_wire() -> dict:
    """The wire.json vectors (module docstring)."""
    demo = [Identity.from_seed(s.encode()) for s in SEEDS]
    gid = _h("vector wire game")[:16]
    setup_bytes, order = _setup(demo, gid)
    ids = [demo[i] for i in order]  # ids[seat]: the seat's identity
    sh = W.setup_hash(setup_bytes)
    h, dg = _h("vector state hash"), _h("vector digest")
    xkeys = [i.x25519_public_key for i in ids]
    player0 = W.Player(ids[0].public_key, ids[0].x25519_public_key, "wire-0", _h("head 0"), _h("commit 0"), False,
                       _ep(order[0]))
    # §C2.1 (version 6): the JOIN of seat 1 that the REJECT answers (``answers`` = SHA-256 of
    # "lanopoli/1/reject-answers\0" + its envelope), seat 1's entry with an IPv6 endpoint
    player1 = W.Player(ids[1].public_key, ids[1].x25519_public_key, "wire-1", _h("head 1"), _h("commit 1"), False,
                       ("fd00::1:2", 41001))
    join1 = W.seal_message(ids[1], W.MSG_JOIN, W.Join(gid, C.PROTOCOL_VERSION, player1))
    # every seat's STEP of step 0 (over the setup hash) and of chance step 7 (labelled reveals)
    steps0 = [W.seal_message(ids[s], W.MSG_STEP, W.StepBody(gid, 0, s, h, sh, _h(f"vector reveal 0 {s}")))
              for s in range(3)]
    steps7 = [W.seal_message(ids[s], W.MSG_STEP, W.StepBody(gid, 7, s, h, dg, _h(f"vector reveal 7 {s}")))
              for s in range(3)]
    step7 = W.decode_step_body(W.open_envelope(steps7[1]).body)
    step8 = W.seal_message(ids[1], W.MSG_STEP, W.StepBody(gid, 8, 1, _h("vector state hash 8"), _h("vector digest 8"),
                                                           None))
    escrow = make_escrow(ids[2], _h("vector wire chain"), gid, 2, 0, [0, 1], xkeys, quorum(3))
    shares = make_shares(_h("vector wire chain"), gid, 0, [0, 1], quorum(3))
    drops = [W.seal_message(ids[v], W.MSG_DROP, W.DropVote(gid, v, 7, 2, 0, shares[v])) for v in (0, 1)]
    skips = [W.seal_message(ids[v], W.MSG_SKIP, W.SkipVote(gid, v, 7, 2, 0)) for v in (0, 1)]
    reseat = W.seal_message(ids[2], W.MSG_RESEAT, W.ReseatRequest(gid, 2, 5, _h("vector new head")))
    abandon = W.seal_message(ids[1], W.MSG_ABANDON, W.Abandon(gid, 1, 9, h, dg))
    nil_step = W.seal_message(ids[2], W.MSG_STEP, W.StepBody(gid, 7, 2, h, dg, None))
    bad_step = make_complaint(ids[0], gid, 0, 7, 2, BAD_STEP, [nil_step])
    # judged by a peer at chance step 7 over the same history (any previous reveals)
    verdict = check_bad_step(W.SETUP.decode(setup_bytes), nil_step, 0, None,
                             StepNow(7, h, dg, None, [_h(f"reveal {s}") for s in range(3)]))
    sigs = [W.seal_message(ids[s], W.MSG_SETUP_SIG, W.SetupSig(gid, s, sh)) for s in range(3)]
    seeds = [W.seal_message(ids[s], W.MSG_SEED, W.SeedReveal(gid, s, sh, _h(f"seed secret {s}"))) for s in range(3)]
    header = msgpack.packb([LOG_HEADER_VERSION, setup_bytes, sigs, seeds], use_bin_type=True)
    bodies = {
        W.MSG_JOIN: (0, W.Join(gid, C.PROTOCOL_VERSION, player0)),
        W.MSG_STATUS: (0, W.Status(gid, "classico", 3, 2, ("wire-0", "wire-1"), ids[0].public_key,
                                   ids[0].x25519_public_key)),
        W.MSG_REJECT: (0, W.Reject(gid, ids[1].public_key, 1, ids[0].public_key, ids[0].x25519_public_key,
                                   answers_hash(join1))),
        W.MSG_LEAVE: (1, W.Leave(gid)),
        W.MSG_PROPOSAL: (0, W.Proposal(gid, setup_bytes, None)),
        W.MSG_SETUP_SIG: (1, W.SetupSig(gid, 1, sh)),
        W.MSG_SEED: (1, W.SeedReveal(gid, 1, sh, _h("seed secret 1"))),
        W.MSG_STEP: (1, step7),
        W.MSG_ESCROW: None,
        W.MSG_DROP: None,
        W.MSG_CATCHUP_REQ: (0, W.CatchupRequest(gid, 0, 7, 11)),
        W.MSG_CATCHUP_RESP: (1, W.CatchupResponse(gid, 1, 7, 8, ((gamelog.KIND_STEP, msgpack.packb(
            [7, steps7], use_bin_type=True)),), (step8,), (escrow,))),
        W.MSG_HINT: (1, W.Hint(gid, 1, 12)),
        W.MSG_ALIVE: (2, W.Alive(gid, 2, 12, 3)),
        W.MSG_ABANDON: None,
        W.MSG_COMPLAINT: None,
        W.MSG_RESEAT: None,
        W.MSG_SKIP: None,
        W.MSG_CHAT: (1, W.Chat(gid, ids[1].public_key, 3, "wire-1", "ciao a tutti, €1.500!")),
        W.MSG_WATCH: (None, W.Watch(gid, _h("spectator pk"), _h("spectator xk"), "spettatore", 0)),
        W.MSG_RECORDS: (0, W.Records(gid, 0, ((gamelog.KIND_HEADER, header),
                                              (gamelog.KIND_STEP, msgpack.packb([0, steps0], use_bin_type=True))))),
    }
    sealed = {W.MSG_ESCROW: (2, escrow), W.MSG_DROP: (0, drops[0]), W.MSG_ABANDON: (1, abandon),
              W.MSG_COMPLAINT: (0, bad_step), W.MSG_RESEAT: (2, reseat), W.MSG_SKIP: (0, skips[0])}
    spectator = Identity.from_seed(b"vector-wire-spectator")
    messages = {}
    for mtype, schema in sorted(W.SCHEMAS.items()):
        if bodies[mtype] is None:
            signer, raw = sealed[mtype]
            who = ids[signer]
        else:
            signer, msg = bodies[mtype]
            who = spectator if signer is None else ids[signer]
            if mtype == W.MSG_WATCH:
                msg = msg._replace(pk=who.public_key, xk=who.x25519_public_key)
            raw = W.seal_message(who, mtype, msg)
        env = W.open_envelope(raw, 1 << 20)
        assert env.mtype == mtype
        domain = W.DOMAINS[mtype]
        messages[str(mtype)] = {
            "name": schema.name, "domain": domain.decode(), "names": list(schema.struct.names),
            "signer": "vector-wire-spectator" if signer is None else SEEDS[order[signer]],
            "public_key": who.public_key.hex(), "fields": tagged(msgpack.unpackb(env.body, raw=False)),
            "body": env.body.hex(), "signed": (C.SIG_PREFIX + domain + b"\x00" + env.body).hex(),
            "signature": env.sig.hex(), "envelope": raw.hex()}
    complaints = {
        "bad_step": {"kind": BAD_STEP, "evidence": [nil_step.hex()], "envelope": bad_step.hex(),
                     "culprit": verdict[0], "reason": verdict[1]},
        **hidden_complaints(ids)}
    drop_record = msgpack.packb([7, 2, drops, escrow], use_bin_type=True)
    skip_record = msgpack.packb([7, 2, skips], use_bin_type=True)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "wire.lnplog"
        with gamelog.LogWriter(path, header) as w:
            w.append_step(0, steps0)
            w.append_drop(drop_record)
            w.append_complaint(bad_step)
            w.append_skip(skip_record)
            w.append_abandon(abandon)
        own_log = gamelog.OwnLog(Path(d) / "wire.lnplog.own")
        own_log.append_own(7, steps7[0])
        own_log.close()
        data = path.read_bytes()[len(C.LOG_MAGIC):] + (Path(d) / "wire.lnplog.own").read_bytes()[len(C.LOG_MAGIC):]
    records, off = {}, 0
    while off < len(data):
        length, kind = int.from_bytes(data[off:off + 4], "big"), data[off + 4]
        end = off + 5 + length + 4
        records[str(kind)] = {"kind": kind, "payload": data[off + 5:off + 5 + length].hex(), "record": data[off:end].hex()}
        off = end
    # §C8.2: seat 0's STEP of an escrow round (step 0, input nil) acknowledging seat 2's escrow
    ack = W.EscrowAck(2, 0, hashlib.sha256(escrow).digest())
    ack_step = W.seal_message(ids[0], W.MSG_STEP, W.StepBody(gid, 0, 0, h, sh, None, None, (), (ack,)))
    escrow_ack = {"escrow": escrow.hex(), "hash": ack.hash.hex(), "step": ack_step.hex(),
                  "body": W.open_envelope(ack_step).body.hex(),
                  "fields": tagged(msgpack.unpackb(W.open_envelope(ack_step).body, raw=False)),
                  "note": "9th STEP field [[dealer, epoch, SHA-256(ESCROW envelope)]]; 7th nil, 8th nil (§C8.2)"}
    bodies3 = [W.open_envelope(steps7[0]).body, W.open_envelope(steps7[1]).body, b""]
    digest_dropped = {"bodies": [x.hex() for x in bodies3], "digest": step_digest(bodies3).hex(),
                      "note": "seat 2 dropped at or before the step: its body counts as empty (§C3.2, §C8.4)"}
    return {"spec": "protocol.md §C1, §C2.1, §C3.1, §C3.2, §C6, §C8, §C9, §N2.2, §N9, §N10",
            "drop_forms": drop_forms(ids, gid),
            "digest_dropped": digest_dropped, "escrow_ack": escrow_ack, "epoch_proof": epoch_proof(), "seat_advert": seat_advert(ids, gid),
            "setup_with_options": setup_with_options(ids, gid),
            "endpoint_forms": endpoint_forms(ids, gid),
            "reject_answers": {"join": join1.hex(), "answers": answers_hash(join1).hex(),
                               "endpoint": list(player1.endpoint)},
            "game_id": gid.hex(), "demo_seeds": SEEDS, "setup": setup_bytes.hex(), "setup_hash": sh.hex(),
            "seat_of_demo": {SEEDS[i]: order.index(i) for i in range(3)},
            "messages": messages, "complaints": complaints,
            "log": {"magic": C.LOG_MAGIC.hex(), "records": records}}


def main() -> None:
    (HERE / "wire.json").write_text(json.dumps(compute_wire(), indent=1, sort_keys=True, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
