"""Generate tests/vectors/skip.json: the turn-skip vote of protocol.md §C8.10
(``python tests/vectors/make_skip_vectors.py``).

Three demo seats (``Identity.from_seed(b"vector-skip-<i>")``, game id = the first 16 bytes of
SHA-256("vector skip game")): seats 0 and 1 vote SKIP(step 7, seat 2, epoch 0) — per vote the
body, the bytes Ed25519 signs (``"lanopoli/1/turn-skip\\0" ‖ body``), the signature and the
envelope; the kind-6 log payload of the certificate (Q = 2 of 3); and the digest of a step 7
whose seats 0 and 1 sent STEP bodies (given) and whose seat 2 was skipped (body 0xC1).
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
from p2p.identity import Identity, signed_bytes  # noqa: E402
from p2p.step_collect import step_digest  # noqa: E402
from p2p.turn_skip import KIND_SKIP, SKIPPED_BODY, TurnSkip, skip_record  # noqa: E402
from p2p.wire import open_envelope, pack  # noqa: E402


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
            "digest": step_digest(bodies + [SKIPPED_BODY]).hex()}


def main() -> None:
    (HERE / "skip.json").write_text(json.dumps(compute_skip(), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
