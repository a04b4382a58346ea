#!/usr/bin/env python3
"""Decode (and encode) cost of every message body type (protocol.md part C), in µs per call.

The sample bodies are built as plain msgpack lists, so the same script measures any version of
p2p/wire.py. ``--against REV`` loads ``p2p/wire.py`` of git revision REV next to the working
tree's and times both, interleaved (so a busy machine slows both alike), printing the ratio
new/old per type. Encoders are timed when the module has them (the schema tables).

    python bench/bench_wire.py [--n 20000] [--json] [--against 70784cb]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

import msgpack

from p2p import const as C
from p2p import wire

GID = bytes(range(16))
H = bytes(range(32))
K = bytes(range(1, 33))


def _pk(i: int) -> bytes:
    return bytes([i]) * 32


def samples() -> dict[str, tuple[str, list]]:
    """name -> (decoder name in p2p.wire, body as a plain list)."""
    player = [[_pk(i), K, f"p{i}", H, H, False, ["127.0.0.1", 4000 + i]] for i in range(4)]
    setup = [C.PROTOCOL_VERSION, GID, "classico", 4, 200, [["a", 1], ["b", "x"]], player]
    setup_b = msgpack.packb(setup, use_bin_type=True)
    delivery = bytes(C.HIDDEN_TAG_LEN + 2 * C.HIDDEN_OPEN_LEN)
    return {
        "step_reveal": ("decode_step_body", [GID, 12345, 2, H, H, H]),
        "step_action": ("decode_step_body", [GID, 12345, 2, H, H, [4, 263]]),
        "step_nil": ("decode_step_body", [GID, 12345, 2, H, H, None]),
        "step_hidden": ("decode_step_body", [GID, 12345, 2, H, H, None,
                                             [[[0, delivery], [3, delivery]], bytes(32), None]]),
        "setup": ("decode_setup", setup),
        "join": ("decode_join", [GID, C.PROTOCOL_VERSION, player[0]]),
        "status": ("decode_status", [GID, "classico", 4, 2, ["a", "b"], K, K]),
        "reject": ("decode_reject", [GID, K, 1, K, K, H]),
        "leave": ("decode_leave", [GID]),
        "proposal": ("decode_proposal", [GID, setup_b]),
        "setup_sig": ("decode_setup_sig", [GID, 1, H]),
        "seed": ("decode_seed", [GID, 1, H, H, [H, H, H, H]]),
        "escrow": ("decode_escrow", [GID, 0, 1, [[i, H, bytes(C.SHARE_LEN + 16)] for i in (1, 2, 3)]]),
        "drop": ("decode_drop", [GID, 0, 77, 2, 1, bytes(C.SHARE_LEN)]),
        "catchup_req": ("decode_catchup_req", [GID, 1, 10, 42]),
        "catchup_resp": ("decode_catchup_resp", [GID, 1, 10, 42, [[1, bytes(200)]] * 32, [bytes(200)] * 3,
                                                 [bytes(300)] * 3]),
        "hint": ("decode_hint", [GID, 1, 77]),
        "alive": ("decode_alive", [GID, 1, 77, 5]),
        "abandon": ("decode_abandon", [GID, 1, 77, H, H]),
        "complaint": ("decode_complaint", [GID, 1, 77, 2, 1, [bytes(200), bytes(200)], None]),
        "chat": ("decode_chat", [GID, K, 7, "anna", "ciao a tutti"]),
        "watch": ("decode_watch", [GID, K, K, "anna", 12]),
        "records": ("decode_records", [GID, 3, [[1, bytes(200)]] * 16]),
    }


def per_call_us(fns: list, arg, n: int) -> list[float]:
    """Best of 5 interleaved runs of ``n`` calls of each of ``fns`` (with ``arg``, or none if
    None), µs per call."""
    best = [float("inf")] * len(fns)
    for _ in range(5):
        for i, fn in enumerate(fns):
            call = (lambda f=fn: f()) if arg is None else (lambda f=fn: f(arg))
            t = time.perf_counter()
            for _ in range(n):
                call()
            best[i] = min(best[i], time.perf_counter() - t)
    return [b / n * 1e6 for b in best]


def wire_at(rev: str):
    """p2p/wire.py as of git revision ``rev``, loaded as a module of the p2p package (its
    relative imports resolve to the working tree's const, errors, identity)."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    src = subprocess.run(["git", "-C", root, "show", f"{rev}:p2p/wire.py"], check=True,
                         capture_output=True).stdout
    path = os.path.join(tempfile.mkdtemp(), "wire_old.py")
    with open(path, "wb") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location("p2p._wire_old", path)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "p2p"
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def send_step_rows(n: int) -> list[dict]:
    """The session's STEP send path (now own_step.OwnStep.send_own) as built before the tables (positional
    list, pack, sign, pack the envelope, the held StepBody and Envelope) and now
    (``seal_envelope`` of a StepBody: to_wire, table check, pack, sign), interleaved, µs per
    message. Signing (~40 µs) is in both."""
    from p2p.identity import Identity
    from p2p.wire import MSG_STEP, Envelope, StepBody, seal_envelope

    ident = Identity.from_seed(b"bench-wire")
    rows = []
    for name, inp in (("send_step_reveal", H), ("send_step_action", [4, 263]), ("send_step_nil", None)):
        def old(inp=inp):
            fields = [GID, 12345, 2, H, H, inp]
            body = msgpack.packb(fields, use_bin_type=True)
            sig = ident.sign(C.DOMAIN_STEP, body)
            raw = msgpack.packb([MSG_STEP, body, sig], use_bin_type=True)
            if len(raw) > C.MAX_STEP_MSG:
                raise ValueError
            return StepBody(GID, 12345, 2, H, H, inp, None, ()), Envelope(MSG_STEP, body, sig, raw)

        def new(inp=inp):
            body = StepBody(GID, 12345, 2, H, H, inp, None, ())
            return body, seal_envelope(ident, MSG_STEP, body)
        assert old()[1] == new()[1]
        us = per_call_us([new, old], None, n)
        rows.append({"type": name, "send_us": round(us[0], 3), "old_send_us": round(us[1], 3),
                     "ratio": round(us[0] / us[1], 3)})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--against", help="git revision whose p2p/wire.py to compare with")
    a = ap.parse_args()
    old = wire_at(a.against) if a.against else None
    for name, (dec_name, fields) in samples().items():
        body = msgpack.packb(fields, use_bin_type=True)
        dec = getattr(wire, dec_name)
        msg = dec(body)
        fns = [dec] + ([getattr(old, dec_name)] if old is not None else [])
        us = per_call_us(fns, body, a.n)
        row = {"type": name, "bytes": len(body), "decode_us": round(us[0], 3)}
        if old is not None:
            row["old_decode_us"] = round(us[1], 3)
            row["ratio"] = round(us[0] / us[1], 3)
        schema = getattr(dec, "__self__", None)  # the Schema whose bound method decode is
        if schema is not None:
            assert schema.encode(msg) == body, name
            row["encode_us"] = round(per_call_us([schema.encode], msg, a.n)[0], 3)
        print(json.dumps(row) if a.json else "  ".join(f"{k}={v}" for k, v in row.items()))
    for row in send_step_rows(max(a.n // 10, 100)):
        print(json.dumps(row) if a.json else "  ".join(f"{k}={v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
