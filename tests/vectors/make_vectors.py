"""Generate the published test vectors of protocol.md "Test vectors" (tests/vectors/*.json,
tests/vectors/game.lnplog).

Every value here is computed by the reference code (engine/, p2p/) from fixed inputs; nothing
is typed in by hand. tests/test_vectors.py recomputes every vector with ``compute_*`` below
and compares it with the checked-in files, so a change in behaviour fails the suite. When the
change is deliberate (and the protocol version was bumped, protocol.md part E "Versioning"),
regenerate and commit the new files:

    /work/venv/bin/python tests/vectors/make_vectors.py

Files (all JSON: bytes as lowercase hex strings, keys sorted):

* ``rng.json``    — §E3 PRNG: stream bytes, dice, card draws, ``below(n)`` sequences per beacon.
* ``chain.json``  — §C4: demo secrets, hash-chain head and reveals, seed commitments, game seed,
  beacons.
* ``sig.json``    — §C2/§C3: a demo identity, a STEP body, its domain-separated signed bytes,
  the Ed25519 signature and envelope; a step digest.
* ``game.json``   — a complete 2-seat classico game from fixed demo seeds: setup bytes, setup
  hash, game seed, the encoding of the initial state (§E4), the state hash after each of the
  first ``FIRST_HASHES`` steps (``first_state_hashes[k]`` = after step k) and the final one.
* ``game.lnplog`` — the game log of that game (§C6, byte-identical on every peer).
* ``verify.json`` — ``lanopoli verify --json game.lnplog`` without the two run-dependent keys
  ``log`` (the path) and ``seconds`` (the time taken).
* ``channel.json`` — §N2.2: pairwise channel keys of two demo identities, an introduction, an
  authenticated datagram and a pure ack byte for byte; §C12.2 a leaves digest.
* ``sealed.json`` — §C13: commitments of sealed decisions (nil, bids, a pass, a build request),
  their openings, a commit-step and an open-step STEP body, the reference salt derivation.
* ``lan.json``    — §N3, §N3.1, §N9: join-code tags and codes, a TXT record with names and
  standings, a signed CHAT message.
* ``reseat.json`` — §C8.9: a RESEAT request byte for byte, a STEP body carrying it, the new
  chain's reveals after the re-seat.
* ``hidden.json`` — §C12: three demo seats' hidden secrets, openings, shares and leaves of a few
  items, statuses from the summed shares, an inspection's openings field, and one private
  delivery written out (X25519 secret, key, AAD, plaintext, ciphertext).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import engine as E  # noqa: E402
import engine.bots  # noqa: E402,F401  (E.bots)
from engine.rng import BeaconRng  # noqa: E402
from p2p import beacon as B  # noqa: E402
from p2p import const as C  # noqa: E402
from p2p.gamelog import LogWriter  # noqa: E402
from p2p.identity import Identity, signed_bytes  # noqa: E402
from p2p.lobby import Lobby  # noqa: E402
from p2p.lockstep import GameOver, StepApplied, step_digest  # noqa: E402
from p2p.wire import MSG_STEP, StepBody, encode_step, pack, seal_message, setup_hash  # noqa: E402

#: Demo seed strings of the two seats of the sample game, as given to ``lanopoli host/join
#: --seed`` (identity = Identity.from_seed(seed), secrets derived from the same bytes).
#: The first is the host's. Chosen among GAME_CANDIDATES for the shortest game (small log).
GAME_CANDIDATES = [(f"vector-host-{i}", f"vector-join-{i}") for i in range(12)]
FIRST_HASHES = 40
"""How many per-step state hashes game.json lists from step 0 (plus the final one)."""

RNG_BOUNDS = [2, 3, 6, 16, 28, 40, 100, 251, 257, 1000, 65537, 2**31 + 1, 2**32]


def _h(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


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


#: Items of hidden.json: bills 0 (500), 2 (100), 5 (50), 8 (20), 9 (10), the last bill, then
#: Imprevisti pairs 0 and 11 (items B and B + 11).
HIDDEN_ITEMS = (0, 2, 5, 8, 9, 351, 352, 363)


def compute_hidden() -> dict:
    """§C12.1/§C12.4/§C12.5 vectors for a 3-seat niente-e-come-sembra game id: per seat the demo
    chain secret SHA-256("vector-hidden-<i>"), its hidden secret, the SHA-256 of its whole leaf
    blob (B + P leaves) and, for HIDDEN_ITEMS, opening, share and leaf; per item the sum of the
    shares mod M and the status (bill: fake iff sum < T(den); pair p: which card is fake); the
    openings field of seat 1 at an inspection of bill 24 then card 18; a delivery from seat 0 to
    seat 2 at step 7 of items 0, 5 and 352 (identities Identity.from_seed("vector-hidden-<i>"));
    seat 2's complaints about it (``hidden_complaints``)."""
    from p2p import hidden as H

    state = E.new_game("niente-e-come-sembra", 3)
    lay = H.layout_of_state(state)
    gid = _h("vector hidden game id")[:16]
    idents = [Identity.from_seed(f"vector-hidden-{i}".encode()) for i in range(3)]
    chains = [_h(f"vector-hidden-{i}") for i in range(3)]
    hs = [H.hidden_secret(c) for c in chains]
    seats = []
    for i in range(3):
        ops = {str(t): H.opening(hs[i], t) for t in HIDDEN_ITEMS}
        seats.append({"chain_secret": chains[i].hex(), "hidden_secret": hs[i].hex(),
                      "x25519_public": idents[i].x25519_public_key.hex(),
                      "leaves_sha256": hashlib.sha256(H.make_leaves(hs[i], gid, i, lay.items)).hexdigest(),
                      "openings": {t: op.hex() for t, op in ops.items()},
                      "shares": {t: H.share_of(op) for t, op in ops.items()},
                      "leaves": {t: H.leaf(gid, i, int(t), op).hex() for t, op in ops.items()}})
    status = {}
    for t in HIDDEN_ITEMS:
        total = sum(H.share_of(H.opening(h, t)) for h in hs) % H.MODULUS
        if t < lay.bills:
            status[str(t)] = {"den": lay.den[t], "threshold": lay.threshold[lay.den[t]], "sum": total,
                              "fake": lay.is_fake("bill", t, total)}
        else:
            p = t - lay.bills
            status[str(t)] = {"pair": p, "sum": total,
                              "fake_card": 2 * p + (1 if lay.is_fake("card", 2 * p + 1, total) else 0)}
    inspection = [["bill", 24], ["card", 18]]
    field = b"".join(H.opening(hs[1], lay.item_of(k, i)) for k, i in inspection)
    sender, to, step, items = 0, 2, 7, [0, 5, 352]
    shared = idents[sender].x25519_exchange(idents[to].x25519_public_key)
    key = H.delivery_key(shared, gid, sender, to, step)
    plain = b"".join(H.opening(hs[sender], t) for t in items)
    return {"spec": "protocol.md §C12.1, §C12.4, §C12.5", "game_id": gid.hex(),
            "edition": "niente-e-come-sembra", "bills": lay.bills, "pairs": lay.pairs,
            "modulus": H.MODULUS, "seats": seats, "status": status,
            "inspection": {"seat": 1, "items": inspection, "openings": field.hex()},
            "delivery": {"sender": sender, "to": to, "step": step, "items": items,
                         "x25519_shared": shared.hex(), "key": key.hex(),
                         "aad": (gid + bytes((sender, to)) + step.to_bytes(8, "big")).hex(),
                         "plaintext": plain.hex(),
                         "ciphertext": H.seal_delivery(key, gid, sender, to, step, plain).hex()},
            "complaints": hidden_complaints(H, gid, [H.make_leaves(h, gid, i, lay.items) for i, h in enumerate(hs)],
                                            sender, to, step, items, key, plain)}


def hidden_complaints(H, gid, leaves, sender, to, step, items, key, plain) -> list:
    """§C12.4 / §C8.8 kind 4: the holder ``to``'s complaint ``[sender, key]`` about the delivery
    of hidden.json, judged three ways — against a delivery sealed over zero openings (the sender
    is guilty: the first item's opening does not open its leaf), against the right delivery (a
    false complaint: the holder is guilty) and with 32 zero bytes as key (it does not open the
    delivery: nobody is guilty, the sender owes those items in public at the next step)."""
    wrong = H.seal_delivery(key, gid, sender, to, step, bytes(len(plain)))
    right = H.seal_delivery(key, gid, sender, to, step, plain)
    out = []
    for ct, k in ((wrong, key), (right, key), (right, bytes(32))):
        opened = H.open_delivery(k, gid, sender, to, step, ct)
        bad = None if opened is None else next(
            (t for i, t in enumerate(items)
             if not H.opening_matches(leaves[sender], gid, sender, t, opened[16 * i:16 * i + 16])), None)
        guilty = None if opened is None else sender if bad is not None else to
        out.append({"ciphertext": ct.hex(), "complaint": [sender, k.hex()], "opens": opened is not None,
                    "first_bad_item": bad, "guilty": guilty, "public_reopen": items if opened is None else []})
    return out


def play_game(seeds: tuple[str, str], log_path: Path) -> dict:
    """Run the lobby and a whole lockstep game of two in-memory peers (no loss, every seat's
    input chosen by ``engine.bots.choose(state, seat)``), writing seat 0's log to ``log_path``.
    Returns the game facts of game.json."""
    ids = [Identity.from_seed(s.encode()) for s in seeds]
    addrs = [("127.0.0.1", 41000), ("127.0.0.1", 41001)]
    host = Lobby.host(ids[0], edition="classico", seats=2, name="host", endpoint=addrs[0],
                      demo_seed=seeds[0].encode())
    join = Lobby.join(ids[1], host_addr=addrs[0], game_id=host.game_id, name="joiner",
                      demo_seed=seeds[1].encode())
    lobbies = {addrs[0]: host, addrs[1]: join}
    while True:
        batch = [(src, dst, raw) for src, lob in lobbies.items() for dst, raw in lob.messages_to_send()]
        if not batch:
            break
        for src, dst, raw in batch:
            lobbies[tuple(dst)].receive_message(raw, src, 0.0)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    writer = LogWriter(log_path, ordered[0].log_header())
    sessions = [lob.start_session(E, log=writer if i == 0 else None) for i, lob in enumerate(ordered)]
    hashes: list[str] = []
    over = None
    for _ in range(1_000_000):
        for s in sessions:
            if s.needs_local_input() is not None:
                s.submit_local_input(E.bots.choose(s.state, s.my_seat), now=0.0)
        moved = False
        for i, s in enumerate(sessions):
            for raw in s.messages_to_send():
                sessions[1 - i].receive_message(raw, 0.0)
                moved = True
        for i, s in enumerate(sessions):
            while (ev := s.next_event()) is not None:
                if i == 0 and isinstance(ev, StepApplied):
                    hashes.append(ev.state_hash.hex())
                if i == 0 and isinstance(ev, GameOver):
                    over = ev
        if over is not None or not moved:
            break
    writer.close()
    if over is None:
        raise RuntimeError(f"game {seeds} did not finish")
    init = E.new_game("classico", 2, {})
    return {"seeds": list(seeds), "edition": "classico", "seats": 2, "options": [],
            "game_id": host.game_id.hex(), "setup": ordered[0].setup_bytes.hex(),
            "setup_hash": setup_hash(ordered[0].setup_bytes).hex(),
            "game_seed": ordered[0].game_seed.hex(),
            "initial_state": E.encode_state(init).hex(),
            "initial_state_hash": E.state_hash(init).hex(),
            "steps": over.steps, "winner": over.winner,
            "first_state_hashes": hashes[:FIRST_HASHES], "final_state_hash": over.final_hash.hex(),
            "log_sha256": hashlib.sha256(log_path.read_bytes()).hexdigest()}


def verify_json(log_path: Path) -> dict:
    """``lanopoli verify --json`` of the log (subprocess), minus the keys ``log`` and
    ``seconds``; the exit code is added as ``exit_code``."""
    proc = subprocess.run([sys.executable, "-m", "ui.cli", "verify", "--json", str(log_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "LANG": "C.UTF-8"})
    out = json.loads(proc.stdout)
    out.pop("log", None)
    out.pop("seconds", None)
    out["exit_code"] = proc.returncode
    return out


def _dump(path: Path, obj: dict) -> None:
    path.write_text(json.dumps(obj, indent=1, sort_keys=True) + "\n")


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


def compute_niente() -> dict:
    """§E2/§E8/§C12.7 vectors (niente.json): the wire form of ``PayBills`` and of a niente
    ``ProposeTrade`` whose card fields hold card keys (deck*256+card); each hidden.json seat's
    bill-order secret SHA-256("lanopoli/1/bill-order\\0" || hs_i) and the order in which it hands
    over the €10 bills 9, 10, 11 (ascending SHA-256(secret || id 4 B BE)); and a 3-seat game run
    from ``new_game`` (chance steps: beacon SHA-256("vector-niente-<k>"), decision steps: the
    default bots' inputs) to its first "pay_bills" step whose payer, knowing its default bill
    is fake, pays with other bills (``keep_choice`` with that seat's bill-order secret): every
    step's inputs, the PayBills, the state hashes before and after, and the bills that moved."""
    from engine.actions import PayBills, ProposeTrade
    from engine.bots import _niente
    from engine.rules.bill_choice import default_bills
    from p2p import hidden as H

    ed = "niente-e-come-sembra"
    acts = {"pay_bills": PayBills((9, 10, 40)),
            "trade_with_cards": ProposeTrade(1, (1,), (), 0, 50, (256 + 20,), (3,), ())}
    actions = {k: {"fields": E.encode_action(a), "msgpack": pack(E.encode_action(a)).hex()} for k, a in acts.items()}
    hs = [H.hidden_secret(_h(f"vector-hidden-{i}")) for i in range(3)]
    order = []
    for h in hs:
        sec = H.bill_order_secret(h)
        order.append({"secret": sec.hex(),
                      "tens_order": sorted((9, 10, 11), key=lambda b: hashlib.sha256(sec + b.to_bytes(4, "big")).digest())})
    s = E.new_game(ed, 3)
    steps = []
    for k in range(2000):
        p = E.pending(s)
        if p.chance:
            beacon = _h(f"vector-niente-{k}")
            s, _ = E.apply_chance(s, beacon)
            steps.append({"beacon": beacon.hex()})
            continue
        if p.kind == "pay_bills":
            seat = p.actors[0]
            default = default_bills(s, seat)
            view = _niente.PrivateView({("bill", default[0]): True}, H.bill_order_secret(hs[seat]))
            choice = _niente.keep_choice(s, seat, view)
            if choice is not None:
                before = E.state_hash(s)
                inputs = [None] * s.n
                inputs[seat] = choice
                s, ev = E.apply_step(s, inputs)
                return {"spec": "protocol.md §E2, §E8, §C12.7", "actions": actions, "bill_order": order,
                        "game": {"edition": ed, "seats": 3, "steps": steps,
                                 "pay_step": {"step": k, "seat": seat, "default": list(default),
                                              "input": E.encode_action(choice), "state_hash_before": before.hex(),
                                              "state_hash_after": E.state_hash(s).hex(),
                                              "bills_moved": [[e.frm, e.to, list(e.bills)] for e in ev
                                                              if type(e).__name__ == "BillsMoved"]}}}
        inputs = [E.bots.choose(s, seat, "default") for seat in range(s.n)]
        s, _ = E.apply_step(s, inputs)
        steps.append({"inputs": [None if a is None else E.encode_action(a) for a in inputs]})
    raise RuntimeError("no bill choice within 2000 steps")


def compute_lan() -> dict:
    """§N3, §N3.1, §N9 vectors (lan.json): join-code tags and codes of three game ids and host
    keys, a TXT record with names and standings and its instance name, and a CHAT message of
    the demo identity ``vector-seat-a`` (body, signed bytes, signature, envelope)."""
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
    return {"spec": "protocol.md §N3, §N3.1, §N9", "join_codes": codes,
            "txt": {"host_name": ad.host_name, "instance_name": ad.instance_name, "record": ad.txt()},
            "chat": {"demo_seed": seed.decode(), "game_id": gid.hex(), "pk": ident.public_key.hex(),
                     "seq": fields[2], "name": fields[3], "text": fields[4], "body": body.hex(),
                     "signed_bytes": signed_bytes(C.DOMAIN_CHAT, body).hex(),
                     "signature": ident.sign(C.DOMAIN_CHAT, body).hex(),
                     "envelope": seal_message(ident, MSG_CHAT, Chat(*fields)).hex()}}


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


def main() -> None:
    _dump(HERE / "rng.json", compute_rng())
    _dump(HERE / "chain.json", compute_chain())
    _dump(HERE / "sig.json", compute_sig())
    _dump(HERE / "channel.json", compute_channel())
    _dump(HERE / "hidden.json", compute_hidden())
    _dump(HERE / "sealed.json", compute_sealed())
    _dump(HERE / "niente.json", compute_niente())
    _dump(HERE / "lan.json", compute_lan())
    _dump(HERE / "reseat.json", compute_reseat())
    best = None
    with tempfile.TemporaryDirectory() as tmp:
        for i, seeds in enumerate(GAME_CANDIDATES):
            p = Path(tmp) / f"{i}.lnplog"
            facts = play_game(seeds, p)
            if best is None or p.stat().st_size < best[1].stat().st_size:
                best = (facts, p)
        facts, p = best
        (HERE / "game.lnplog").write_bytes(p.read_bytes())
    _dump(HERE / "game.json", facts)
    _dump(HERE / "verify.json", verify_json(HERE / "game.lnplog"))
    print(f"game {facts['seeds']}: {facts['steps']} steps, "
          f"{(HERE / 'game.lnplog').stat().st_size} bytes")


if __name__ == "__main__":
    main()
