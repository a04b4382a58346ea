"""Generate tests/vectors/skip.json: the turn-skip vote of protocol.md §C8.10
(``python tests/vectors/make_skip_vectors.py``).

Three demo seats (``Identity.from_seed(b"vector-skip-<i>")``, game id = the first 16 bytes of
SHA-256("vector skip game")): seats 0 and 1 vote SKIP(step 7, seat 2, epoch 0) — per vote the
body, the bytes Ed25519 signs (``"lanopoli/1/turn-skip\\0" ‖ body``), the signature and the
envelope; the kind-6 log payload of the certificate (Q = 2 of 3); and the digest of a step 7
whose seats 0 and 1 sent STEP bodies (given) and whose seat 2 was skipped (body 0xC1).

``own_defaults`` (§C8.10 "Own decisions"): per decision kind of ``turn_skip.OWN_DEFAULTS`` (and
one auction, where the default is nil), a classico 3-seat state built with ``engine.testing``
(``OWN_STATES``; encoding §E4) whose actor seat 1 is skipped: its state hash, the pending kind
and actors, the default input (wire encoding §E2, null for nil), the state hash after
``engine.apply_step`` with nil for every seat (the same state: the engine waits) and with the
default for seat 1.
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

import engine as E  # noqa: E402
from engine import actions as A  # noqa: E402
from engine.testing import roll, scenario, step  # noqa: E402
from p2p import const as C  # noqa: E402
from p2p.identity import Identity, signed_bytes  # noqa: E402
from p2p.step_collect import step_digest  # noqa: E402
from p2p.drop_rules import default_bot  # noqa: E402
from p2p.turn_skip import KIND_SKIP, SKIPPED_BODY, TurnSkip, skip_input, skip_record  # noqa: E402
from p2p.wire import open_envelope, pack  # noqa: E402


VICOLO_CORTO, VICOLO_STRETTO, BASTIONI = 1, 3, 6  # classico squares


def roll_state():
    return scenario(3, current=1)


def jail_state():
    return scenario(3, current=1, jail={1: 1})


def buy_state():
    return roll(scenario(3, current=1, pos={1: 0}), 1, 2)[0]  # seat 1 on Vicolo Stretto, unowned


def auction_state():
    return step(buy_state(), seat1=A.DeclineProperty())[0]


def raise_state():
    # seat 1 lands on seat 0's Vicolo Stretto with a house (rent 20) holding 10: a debt it can
    # pay by mortgaging its Bastioni Gran Sasso
    s = roll(scenario(3, current=1, pos={1: 0}, cash={1: 10}, owners={VICOLO_STRETTO: 0, BASTIONI: 1},
                      levels={VICOLO_STRETTO: 1}), 1, 2)[0]
    return step(s, seat0=A.ClaimRent(VICOLO_STRETTO, 1))[0]


def inherit_state():
    # seat 2, penniless with two mortgaged lots, lands on seat 1's hotel and goes bankrupt:
    # seat 1 inherits the mortgages
    s = roll(scenario(3, current=2, pos={2: 0}, cash={2: 0}, owners={VICOLO_STRETTO: 1, VICOLO_CORTO: 2, BASTIONI: 2},
                      levels={VICOLO_STRETTO: 5}, mortgaged=[VICOLO_CORTO, BASTIONI]), 1, 2)[0]
    s = step(s, seat1=A.ClaimRent(VICOLO_STRETTO, 2))[0]
    return step(s, seat2=A.DeclareBankruptcy())[0]


#: pending kind -> (builder of a classico 3-seat state whose actor is seat 1, its default).
OWN_STATES = {"roll": (roll_state, A.RollDice()), "jail": (jail_state, A.RollDice()),
              "buy_or_auction": (buy_state, A.DeclineProperty()), "raise_money": (raise_state, A.Mortgage(BASTIONI)),
              "mortgage_choice": (inherit_state, A.SettleMortgages(())), "auction_bid": (auction_state, None)}


def compute_own_defaults() -> list[dict]:
    """The ``own_defaults`` vectors (module docstring)."""
    import engine.bots  # noqa: F401  (default_bot finds them)

    bot = default_bot(E)
    out = []
    for kind, (make, _) in OWN_STATES.items():
        s = make()
        pend = E.pending(s)
        a = skip_input(E, bot, s, 1)
        moved = E.apply_step(s, [None, a, None])[0]
        out.append({"kind": pend.kind, "actors": list(pend.actors), "seat": 1, "state": E.encode_state(s).hex(),
                    "state_hash": E.state_hash(s).hex(), "default": None if a is None else E.encode_action(a),
                    "hash_after_nil": E.state_hash(E.apply_step(s, [None] * 3)[0]).hex(),
                    "hash_after_default": E.state_hash(moved).hex()})
    return out


def compute_skip() -> dict:
    """The skip.json vectors (module docstring)."""
    gid = hashlib.sha256(b"vector skip game").digest()[:16]
    seeds = [f"vector-skip-{i}" for i in range(3)]
    ids = [Identity.from_seed(s.encode()) for s in seeds]
    keys = [i.public_key for i in ids]
    votes = []
    raws = []
    for voter in (0, 1):
        raw = TurnSkip(gid, keys, voter, ids[voter]).vote(7, 2, 0)
        env = open_envelope(raw)
        raws.append(raw)
        votes.append({"voter": voter, "body": env.body.hex(), "signed": signed_bytes(C.DOMAIN_SKIP, env.body).hex(),
                      "signature": env.sig.hex(), "envelope": raw.hex()})
    bodies = [pack([gid, 7, s, bytes([s]) * 32, bytes([9]) * 32, None]) for s in (0, 1)]
    return {"game_id": gid.hex(), "demo_seeds": seeds, "public_keys": [k.hex() for k in keys],
            "step": 7, "seat": 2, "epoch": 0, "votes": votes,
            "record_kind": KIND_SKIP, "record": skip_record(7, 2, raws).hex(),
            "step_bodies": [b.hex() for b in bodies], "skipped_body": SKIPPED_BODY.hex(),
            "digest": step_digest(bodies + [SKIPPED_BODY]).hex(), "own_defaults": compute_own_defaults()}


def main() -> None:
    (HERE / "skip.json").write_text(json.dumps(compute_skip(), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
