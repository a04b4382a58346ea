"""Generate tests/vectors/session.json: the issue-9 session messages of protocol.md §C8
(``python tests/vectors/make_session_vectors.py``).

* ``quorum``: Q for 2..8 seats (§C8.3).
* ``shamir``: a 32-byte secret split for seats [0, 1, 2, 4] with t = 3 and context gid ‖ epoch
  (§C8.2): the coefficients, every 66-byte share, and the secret recombined from two different
  subsets.
* ``escrow``: three demo seats (``vector-escrow-0..2``); seat 2 deals its chain secret to seats
  0 and 1 in epoch 0 with t = Q(3) = 2: per recipient the share, the X25519 shared secret, the
  pairwise key, the commitment, the ciphertext; the signed ESCROW envelope.
* ``drop``: seat 0's DROP vote against seat 2 at step 7 carrying its share.
* ``abandon``: seat 1's ABANDON at step 9 (§C8.7).
* ``complaint``: kind 1 (two STEP envelopes of seat 2 for step 7, nil and a reveal) and kind 3
  (seat 0 publishes its key of seat 2's escrow, which here matches: a false complaint), as
  signed COMPLAINT envelopes (§C8.8); kind 5 (seat 0 shows seat 1's vote against seat 2 whose
  share is not the one seat 2 dealt it, with seat 2's escrow: seat 1 lied).
* ``dropped_reveal``: the public stand-in reveal of seat 2 at the 7th chance step (§C8.4).
* ``escrow_round``: step 0 of a 3-seat game with seat loss is an escrow round (§C8.2): every seat's
  escrow of epoch 0, every seat's STEP (input nil, 9th field acknowledging the two other
  escrows by SHA-256 of the envelope), the step digest, each dealer's CONFIRMED hash; then
  seat 1 acknowledging ``bad_escrow`` instead: seat 2's escrow EQUIVOCATED, and the kind-5
  complaint ``false_share`` judged without a confirmed escrow proves nothing.
* ``bad_escrow``: seat 2 deals honest Shamir shares of another secret (each matches its
  commitment); seats 0 and 1 vote DROP(7, 2) with them; the DROP record payload
  [7, 2, [votes], ESCROW]; the secret they recombine, whose SHA-256^16 is not seat 2's chain
  head (chain length 16): the stand-in, the dealer named (§C8.3).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from p2p import const as C  # noqa: E402
from p2p import threshold  # noqa: E402
from p2p.beacon import HashChain  # noqa: E402
from p2p.complaints import BAD_DROP_SHARE, BAD_ESCROW, EQUIVOCATION, make_complaint  # noqa: E402
from p2p.identity import Identity  # noqa: E402
from p2p.escrow import dropped_reveal, make_escrow, make_shares, pair_key, quorum, share_commit  # noqa: E402
from p2p.wire import MSG_ABANDON, MSG_DROP, MSG_STEP, Abandon, DropVote, StepBody, pack, seal_message  # noqa: E402
from p2p.complaints import judge  # noqa: E402
from p2p.escrow_acks import AckLedger, EscrowAck, escrow_hash  # noqa: E402
from p2p.step_collect import step_digest  # noqa: E402
from p2p.wire import Player, Setup, decode_complaint, decode_step_body, open_envelope  # noqa: E402


def _h(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


def compute_session() -> dict:
    """The session.json vectors (module docstring)."""
    gid = _h("vector session game")[:16]
    # Shamir alone
    secret = _h("vector shamir secret")
    ctx = gid + (1).to_bytes(2, "big")
    seats = [0, 1, 2, 4]
    shares = threshold.split(secret, ctx, 3, seats)
    coef = [int.from_bytes(hashlib.sha512(C.SIG_PREFIX + b"escrow-coef\x00" + secret + ctx + bytes((j,))).digest(),
                           "big") % threshold.P for j in (1, 2)]
    shamir = {"secret": secret.hex(), "context": ctx.hex(), "t": 3, "seats": seats,
              "p": "2^521 - 1", "coefficients": [hex(a) for a in coef],
              "shares": {str(v): shares[v].hex() for v in seats},
              "recombined_0_1_2": threshold.combine({v: shares[v] for v in (0, 1, 2)}).hex(),
              "recombined_1_2_4": threshold.combine({v: shares[v] for v in (1, 2, 4)}).hex()}
    # An escrow among three demo seats
    ids = [Identity.from_seed(f"vector-escrow-{i}".encode()) for i in range(3)]
    xkeys = [i.x25519_public_key for i in ids]
    chain_secret = _h("vector escrow chain secret")
    t = quorum(3)
    dealt = make_shares(chain_secret, gid, 0, [0, 1], t)
    entries = {}
    for v in (0, 1):
        shared = ids[2].x25519_exchange(xkeys[v])
        key = pair_key(ids[2], xkeys[v], gid, 2, v, 0)
        entries[str(v)] = {"share": dealt[v].hex(), "x25519_shared": shared.hex(), "key": key.hex(),
                           "commit": share_commit(dealt[v], gid, 2, v, 0).hex()}
    escrow = make_escrow(ids[2], chain_secret, gid, 2, 0, [0, 1], xkeys, t)
    drop = seal_message(ids[0], MSG_DROP, DropVote(gid, 0, 7, 2, 0, dealt[0]))
    abandon = seal_message(ids[1], MSG_ABANDON, Abandon(gid, 1, 9, _h("vector state hash"), _h("vector digest")))
    step_a = seal_message(ids[2], MSG_STEP, StepBody(gid, 7, 2, _h("vector state hash"), _h("vector digest"), None))
    step_b = seal_message(ids[2], MSG_STEP, StepBody(gid, 7, 2, _h("vector state hash"), _h("vector digest"),
                                                     _h("vector reveal")))
    eq = make_complaint(ids[0], gid, 0, 7, 2, EQUIVOCATION, [step_a, step_b])
    false_escrow = make_complaint(ids[0], gid, 0, 7, 2, BAD_ESCROW, [escrow], pair_key(ids[0], xkeys[2], gid, 2, 0, 0))
    # A bad escrow (§C8.3, §C8.5) and a false share in a vote (§C8.8 kind 5)
    other = _h("vector bad escrow secret")
    bad_dealt = make_shares(other, gid, 0, [0, 1], t)
    bad_escrow = make_escrow(ids[2], other, gid, 2, 0, [0, 1], xkeys, t)
    bad_votes = [seal_message(ids[v], MSG_DROP, DropVote(gid, v, 7, 2, 0, bad_dealt[v])) for v in (0, 1)]
    liar_vote = seal_message(ids[1], MSG_DROP, DropVote(gid, 1, 7, 2, 0, bytes(C.SHARE_LEN - 1) + b"\x01"))
    false_share = make_complaint(ids[0], gid, 0, 7, 1, BAD_DROP_SHARE, [liar_vote, escrow])
    escrow_round = _escrow_round(gid, ids, xkeys, escrow, bad_escrow, false_share)
    return {"spec": "protocol.md §C8.2, §C8.3, §C8.4, §C8.7, §C8.8",
            "escrow_round": escrow_round,
            "dropped_reveal": {"game_id": gid.hex(), "seat": 2, "j": 7, "reveal": dropped_reveal(gid, 2, 7).hex()},
            "bad_escrow": {"other_secret": other.hex(), "chain_length": 16,
                           "chain_head": HashChain(chain_secret, 16).head.hex(),
                           "envelope": bad_escrow.hex(), "votes": [x.hex() for x in bad_votes],
                           "record": pack([7, 2, bad_votes, bad_escrow]).hex(),
                           "recombined": threshold.combine(bad_dealt).hex(),
                           "verdict": "stand-in; seat 2: escrow shares do not open its hash chain"},
            "quorum": {str(n): quorum(n) for n in range(2, 9)},
            "shamir": shamir,
            "escrow": {"game_id": gid.hex(), "demo_seeds": [f"vector-escrow-{i}" for i in range(3)],
                       "x25519_public": [x.hex() for x in xkeys], "dealer": 2, "epoch": 0, "t": t,
                       "chain_secret": chain_secret.hex(), "entries": entries, "envelope": escrow.hex()},
            "drop": {"voter": 0, "step": 7, "seat": 2, "epoch": 0, "envelope": drop.hex()},
            "abandon": {"seat": 1, "step": 9, "envelope": abandon.hex()},
            "complaint": {"equivocation": {"evidence": [step_a.hex(), step_b.hex()], "envelope": eq.hex(),
                                           "culprit": 2},
                          "false_escrow": {"envelope": false_escrow.hex(), "guilty": 0},
                          "false_share": {"vote": liar_vote.hex(), "envelope": false_share.hex(), "guilty": 1}}}


def _escrow_round(gid: bytes, ids: list, xkeys: list, escrow: bytes, bad_escrow: bytes, false_share: bytes) -> dict:
    """The ``escrow_round`` vector (module docstring)."""
    t = quorum(3)
    escrows = [make_escrow(ids[d], _h(f"vector round secret {d}"), gid, d, 0, [i for i in range(3) if i != d], xkeys, t)
               for d in (0, 1)] + [escrow]
    h, sh = _h("vector initial state hash"), _h("vector setup hash")
    steps = [seal_message(ids[i], MSG_STEP, StepBody(gid, 0, i, h, sh, None, None, (), tuple(
        EscrowAck(d, 0, escrow_hash(escrows[d])) for d in range(3) if d != i))) for i in range(3)]
    led = AckLedger(3)
    led.open_epoch(0, [True] * 3)
    for i, raw in enumerate(steps):
        led.add(i, decode_step_body(open_envelope(raw).body).acks)
    bodies = [open_envelope(raw).body for raw in steps]
    split = AckLedger(3)
    split.open_epoch(0, [True] * 3)
    split.add(0, [EscrowAck(2, 0, escrow_hash(escrow))])
    split.add(1, [EscrowAck(2, 0, escrow_hash(bad_escrow))])
    players = tuple(Player(i.public_key, i.x25519_public_key, f"p{k}", bytes(32), bytes(32), False,
                           (f"127.0.0.{k + 1}", 41000 + k))
                    for k, i in enumerate(ids))
    setup = Setup(C.PROTOCOL_VERSION, gid, "classico", 3, 16, (), players)
    c = decode_complaint(open_envelope(false_share).body)
    return {"escrows": [e.hex() for e in escrows], "hashes": [escrow_hash(e).hex() for e in escrows],
            "steps": [raw.hex() for raw in steps], "digest": step_digest(bodies).hex(),
            "confirmed": [led.status(d, 0).hex() for d in range(3)],
            "equivocated": {"acks": {"0": escrow_hash(escrow).hex(), "1": escrow_hash(bad_escrow).hex()},
                            "status": split.status(2, 0)},
            "false_share_judged_unconfirmed": judge(setup, c, [True] * 3, lambda raw: None, None,
                                                    split.confirmed),
            "false_share_judged_confirmed": list(judge(setup, c, [True] * 3, lambda raw: None, None,
                                                       led.confirmed))}


def main() -> None:
    (HERE / "session.json").write_text(json.dumps(compute_session(), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
