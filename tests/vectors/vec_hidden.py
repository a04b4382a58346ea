"""Vectors of hidden information (make_vectors.py part): hidden.json (protocol.md §C12: three demo
seats' hidden secrets, openings, shares and leaves, statuses from the summed shares, an
inspection's openings field, one private delivery written out, and the kind-4 complaints of a wrong
delivery) and niente.json (§E2/§E8/§C12.7: the wire form of ``PayBills`` and of a niente trade,
bill-order secrets and a 3-seat niente game run from ``new_game``).
"""

from __future__ import annotations

import hashlib

import repo_first  # noqa: F401  (the repository's engine/p2p first on sys.path)

import engine as E
from p2p.identity import Identity
from p2p.wire import pack

from vec_labels import label_hash as _h


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
