"""Catch-up of a peer that is behind (protocol.md §C9).

A peer that restarted, or that missed a message of a step the others completed, asks for the
log records from its step on (CATCHUP_REQ, broadcast). A peer that holds them answers with a
CATCHUP_RESP: up to ``CATCHUP_MAX_RECORDS`` records / ``CATCHUP_MAX_BYTES`` bytes of its
history (exactly the game-log records: STEP and DROP), its current step (``head_step``), the
step messages it holds for that step, and the escrows of the current epoch it holds. The
requester applies the records through the same checks as live messages
(``LockstepSession.ingest_step_record`` / ``ingest_drop_record``) and asks again from its new
step while ``head_step`` is ahead (pagination). The response is signed by the responder, but
its authority comes from the signed messages inside: a bad record only costs the responder a
``PeerMisbehaved`` report and the requester asks again.

Here: building a response from a session's history and feeding one into a session; the
session (lockstep.py) owns the state and the rate limits.
"""

from __future__ import annotations

from typing import Any

from . import const as C
from .errors import WireError
from .gamelog import KIND_DROP, KIND_STEP
from .wire import MSG_CATCHUP_RESP, MSG_STEP, CatchupResponse, open_envelope, seal, unpack

#: Bytes a record adds to the response around its payload (msgpack array and bin headers).
_RECORD_OVERHEAD = 8


def build_response(sess: Any, from_step: int, to_step: int) -> bytes:
    """The signed CATCHUP_RESP of session ``sess`` for steps [from_step, to_step): history
    records in log order from the first record of ``from_step``, capped by
    CATCHUP_MAX_RECORDS and CATCHUP_MAX_BYTES (at least one record when there is any)."""
    records: list = []
    size = 0
    i = sess._hist_index.get(from_step)
    hist = sess._history
    while i is not None and i < len(hist):
        kind, payload, step = hist[i]
        if step >= to_step or len(records) >= C.CATCHUP_MAX_RECORDS:
            break
        if records and size + len(payload) + _RECORD_OVERHEAD > C.CATCHUP_MAX_BYTES:
            break
        records.append([kind, payload])
        size += len(payload) + _RECORD_OVERHEAD
        i += 1
    pending = []
    if sess.phase == "running":
        pending = [h.env.raw for h in sess._slots.get(sess.step, ()) if h is not None]
    escrows = [raw for _, raw in sess._escrows.values()]
    return seal(sess.identity, MSG_CATCHUP_RESP,
                [sess.game_id, sess.my_seat, from_step, sess.step, records, pending, escrows])


def ingest_response(sess: Any, r: CatchupResponse) -> str | None:
    """Apply a verified-signature CATCHUP_RESP to ``sess``: records of steps before ours are
    skipped, the record of our step applied, a gap stops. Then its escrows and held step
    messages go through the live path (our own message is adopted). Returns None or why a
    record was refused (English)."""
    problem = None
    for kind, payload in r.records:
        if sess.phase != "running":
            break
        try:
            f = unpack(payload)
            step = f[0]
            if type(step) is not int:
                raise WireError("record without a step")
        except (WireError, TypeError, IndexError, KeyError) as e:
            problem = f"malformed record: {e}"
            break
        if step < sess.step:
            if kind == KIND_STEP and len(f) == 2 and sess.cross_check(step, f[1]):
                break  # equivocation found: the session halted
            continue
        if step > sess.step:
            problem = "records skip a step"
            break
        if kind == KIND_STEP:
            problem = sess.ingest_step_record(step, f[1] if len(f) == 2 else None)
        elif kind == KIND_DROP:
            seat = f[1] if len(f) == 4 else None
            info = sess.dropped.get(seat) if type(seat) is int else None
            if info is not None and info.step == step:
                continue  # already applied (pages may repeat the drop of their first step)
            problem = sess.ingest_drop_record(payload)
        else:
            problem = f"unknown record kind {kind}"
        if problem is not None:
            break
    now = sess._now
    for raw in r.escrows:
        sess.receive_message(raw, now)
    for raw in r.pending:
        try:
            env = open_envelope(raw, C.MAX_STEP_MSG)
        except WireError:
            continue
        if env.mtype == MSG_STEP and env.verify(sess.identity.public_key):
            sess.adopt_own(raw)  # we signed it before a crash: never sign another
        else:
            sess.receive_message(raw, now)
    return problem
