"""Checks of one game-log record each, shared by ``verify`` and the peers that read a log
(``resume``, ``ui/watch``): the header (protocol.md §C6: every seat's setup signature and seed
reveal, the protocol version, the hidden-information commitments of §C12.2), one seat's STEP
message of a record (``step_message``: its signature, or the forced body of a plain chance step
taken whatever its signature, §C3.8), a step's ``prev_hash``/``prev_digest`` (§C3, Part L:
which step a failure is reported at), an ABANDON record (§C8.7) and a COMPLAINT record with the
kind-2 complaints it defers until the step it names is read (§C8.8). Each raises ``BadLog`` (step, reason) for a record that fails; the
complaint checks name the cheater in the ``cheaters`` list they are given (``verify.Report``).
"""

from __future__ import annotations

import hashlib
from typing import Any

from . import const as C
from .beacon import game_seed as compute_game_seed, seed_commitment
from .complaints import HiddenNow, check_hidden, judge, same_history, signed_step
from .errors import WireError
from .forced import is_forced, other_fields
from .gamelog import HEADER_RECORD
from .wire import (MSG_ABANDON, MSG_COMPLAINT, MSG_SEED, MSG_SETUP_SIG, Envelope, StepBody, decode_abandon,
                   decode_complaint, decode_seed, decode_setup, decode_setup_sig, decode_step_body, open_envelope,
                   setup_hash, unpack)

#: Why a record is refused whose message at a plain chance step is validly signed, over the
#: replayed history, but is not its seat's forced body (protocol.md §C3.8: acks, re-seat
#: requests or a 7th field there are refused, live and in records alike).
NOT_FORCED = "a chance step's message must be its forced body"


class BadLog(Exception):
    """A log check failed at ``step`` (-1 = header) for reason ``why`` (English)."""

    def __init__(self, step: int, why: str) -> None:
        super().__init__(why)
        self.step, self.why = step, why


def _other_version(payload: bytes) -> str | None:
    """The refusal of a header whose setup is of another protocol version (its first field, read
    as plain msgpack), or None if it names ours or cannot be read."""
    try:
        version = unpack(unpack(payload)[1])[0]
    except (WireError, ValueError, TypeError, IndexError, KeyError):
        return None
    if type(version) is not int or version == C.PROTOCOL_VERSION:
        return None
    return _version_refusal(version)


def _version_refusal(version: int) -> str:
    """``verify``'s words for a log of another protocol version (protocol.md §E0 "Versioning")."""
    return f"the log is of protocol version {version}; this program checks version {C.PROTOCOL_VERSION}"


def parse_header(payload: bytes) -> tuple:
    """Check a log header record (protocol.md §C6): every seat's setup signature and seed reveal.
    Returns (setup, setup bytes, setup hash, game seed); raises ``BadLog`` (step -1)."""
    try:
        version, sb, sigs, seeds = HEADER_RECORD.decode(payload)
        setup = decode_setup(sb)
    except (WireError, ValueError, TypeError) as e:
        # A setup of another version may not even decode as ours (version 6's player entry has 7
        # fields): name its version, read from the setup's first field, rather than a field error.
        raise BadLog(-1, _other_version(payload) or f"malformed header: {e}") from None
    if setup.version != C.PROTOCOL_VERSION:
        # Another version plays by other rules (protocol.md §E0 "Versioning"): replaying it with
        # ours would call an honest log invalid, or a bad one valid.
        raise BadLog(-1, _version_refusal(setup.version))
    sh = setup_hash(sb)
    if len(sigs) != setup.seats or len(seeds) != setup.seats:
        raise BadLog(-1, "header must hold one setup signature and one seed reveal per seat")
    secrets = []
    for i, p in enumerate(setup.players):
        try:
            env = open_envelope(sigs[i])
            s = decode_setup_sig(env.body)
            env2 = open_envelope(seeds[i])
            r = decode_seed(env2.body)
        except (WireError, TypeError) as e:
            raise BadLog(-1, f"malformed setup signature or seed of seat {i}: {e}") from None
        if env.mtype != MSG_SETUP_SIG or s.seat != i or s.setup_hash != sh or s.game_id != setup.game_id \
                or not env.verify(p.public_key):
            raise BadLog(-1, f"bad setup signature of seat {i}")
        if env2.mtype != MSG_SEED or r.seat != i or r.setup_hash != sh or r.game_id != setup.game_id \
                or not env2.verify(p.public_key) or seed_commitment(r.secret) != p.seed_commit:
            raise BadLog(-1, f"bad seed reveal of seat {i}")
        secrets.append(r.secret)
    return setup, sb, sh, compute_game_seed(secrets)


def hidden_commits_of_header(payload: bytes) -> list | None:
    """Every seat's hidden-information commitment (leaves, protocol.md §C12.2) from a log header
    already checked by ``parse_header``, in seat order; None if the setup signatures carry
    none (an edition without hidden information)."""
    try:
        sigs = HEADER_RECORD.decode(payload).sigs
        leaves = [decode_setup_sig(open_envelope(raw).body).leaves for raw in sigs]
    except (WireError, TypeError, ValueError, IndexError) as e:
        raise BadLog(-1, f"malformed header: {e}") from None
    if all(x is None for x in leaves):
        return None
    if any(x is None for x in leaves):
        raise BadLog(-1, "some seats committed hidden information and others did not")
    return leaves


def step_message(env: Envelope, b: StepBody, public_key: bytes, plain: bool, h: bytes, digest: bytes,
                 last_reveal: bytes) -> str | None:
    """Check one seat's STEP message ``env`` (body ``b``, of the record's game, step and seat)
    of a step record replayed over the history ``h``/``digest`` (state hash and step digest
    before the step), as a live peer does (protocol.md §C3.4, §C3.8). ``plain``: the step is a
    plain chance step (``forced.plain_chance``); ``last_reveal``: the seat's previous reveal.

    At a plain chance step the seat's forced body (``forced.is_forced``) is taken WHATEVER its
    signature: it is the one body an honest seat may send there, so its signature adds nothing
    (and a relayer can only repeat it). Any other message needs its signature (``"bad
    signature"``); a validly signed one over this very history at a plain chance step that is
    not the 6-field body of its own input carries other fields (acks, re-seat requests, a 7th
    field) and is refused (``NOT_FORCED``), as live. A 6-field body with a wrong reveal passes
    here: the step's resolution refuses it (``step_resolve``), as before version 4. Returns
    None (taken) or why not (English, without the seat)."""
    if plain and is_forced(env.body, b, h, digest, last_reveal):
        return None
    if not env.verify(public_key):
        return "bad signature"
    if plain and other_fields(env.body, b, h, digest):
        return NOT_FORCED
    return None


def check_prev(k: int, bodies: list, h: bytes, digest: bytes) -> None:
    """Every message of step ``k`` must carry the replayed state hash and digest of step k-1.
    When **no** seat's message does, step k-1 itself is what changed (an input altered and
    re-signed, a message swapped): every seat signed over other messages or another state,
    so the failure is reported at step k-1 (protocol.md part L, verify). Otherwise the seats
    that differ signed a wrong hash at step k. Raises ``BadLog``."""
    present = [(i, b) for i, b in enumerate(bodies) if b is not None]
    bad_hash = [i for i, b in present if b.prev_hash != h]
    bad_digest = [i for i, b in present if b.prev_digest != digest]
    if not bad_hash and not bad_digest:
        return
    if k > 0 and len(bad_digest) == len(present):
        raise BadLog(k - 1, "the messages of this step are not the ones every seat signed over at the next step "
                            "(their prev digest): a message of this step was altered")
    if k > 0 and len(bad_hash) == len(present):
        raise BadLog(k - 1, "the state after this step differs from the one every seat signed at the next step")
    if bad_hash:
        raise BadLog(k, f"seat {bad_hash[0]}: prev state hash differs from the replayed state")
    raise BadLog(k, f"seat {bad_digest[0]}: prev digest differs from the replayed step digest")


def check_abandon(setup: Any, raw: bytes, k: int, h: bytes, digest: bytes) -> dict:
    """Check an ABANDON record (protocol.md §C8.7): signed by a seat of this game, for step k-1
    .. k+1 (its signer may have applied one step more or less than the log's writer), with
    our state and digest when it is for step k. Returns {"seat", "step"}."""
    try:
        env = open_envelope(raw)
        a = decode_abandon(env.body)
    except WireError as e:
        raise BadLog(k, f"malformed abandon record: {e}") from None
    if env.mtype != MSG_ABANDON or a.game_id != setup.game_id or a.seat >= setup.seats \
            or not env.verify(setup.players[a.seat].public_key):
        raise BadLog(k, "abandon record not signed by a seat of this game")
    if not k - 1 <= a.step <= k + 1 or (a.step == k and (a.prev_hash != h or a.prev_digest != digest)):
        raise BadLog(k, f"abandon record of seat {a.seat} for step {a.step} does not fit the log")
    return {"seat": a.seat, "step": a.step}


def check_complaint(setup: Any, raw: bytes, k: int, active: list, recent: dict, last_reveals: list,
                    pending: list, cheaters: list, now: HiddenNow | None = None, escrow_ok: Any = None) -> None:
    """Check a COMPLAINT record (protocol.md §C8.8) and name the cheater in ``cheaters``
    (``verify.Report.cheaters``). Kinds 1 and 3 are self-contained; a kind-2 STEP of a step
    already read is compared with the logged message, one of a later step waits for that step
    (``settle_complaints``); a kind-4 STEP is judged by ``complaints.check_hidden`` with
    ``now`` (our step k, before its record). As the live judge (``complaints.check_bad_step``),
    a kind-2 STEP is compared with the logged message only when both are signed over the same
    history (prev hash and prev digest): two STEPs of a seat over different histories are no
    equivocation (§C8.3; a seat re-signs a step after a quorum drop overturned it), and the
    complaint proves nothing. Raises ``BadLog`` for a complaint that proves nothing."""
    try:
        env = open_envelope(raw, C.MAX_COMPLAINT_MSG)
        c = decode_complaint(env.body)
    except WireError as e:
        raise BadLog(k, f"malformed complaint record: {e}") from None
    if env.mtype != MSG_COMPLAINT or c.game_id != setup.game_id or not env.verify(setup.players[c.seat].public_key):
        raise BadLog(k, "complaint record not signed by a seat of this game")
    deferred = []

    def bad_step(ev: bytes) -> tuple | None:
        b = signed_step(setup, ev)
        if b is None:
            return None
        if b.step in recent:
            logged = recent[b.step][b.seat]
            if logged is not None:
                body = open_envelope(logged).body
                if not same_history(decode_step_body(body), b):
                    return None  # over another history than the one the log applied (§C8.3)
                if body != open_envelope(ev).body:
                    return b.seat, "signed two different messages for one step"
                return c.seat, "false complaint: the log applied that very message"
        if b.step >= k:
            deferred.append(b)
            return -1, ""
        return None

    def bad_hidden(ev: bytes) -> tuple | None:
        b = signed_step(setup, ev)
        logged = recent[b.step][b.seat] if b is not None and b.step in recent else None
        return check_hidden(setup, ev, None if logged is None else open_envelope(logged).body, now)

    verdict = judge(setup, c, active, bad_step, bad_hidden, escrow_ok)
    if deferred:
        pending.append((c, deferred[0]))
        return
    if verdict is None:
        raise BadLog(k, f"complaint of seat {c.seat} proves nothing")
    cheaters.append({"seat": verdict[0], "step": c.step, "reason": verdict[1], "complainer": c.seat})


def settle_complaints(setup: Any, k: int, bodies: list, recent: dict, last_reveals: list, pending: list,
                      cheaters: list, sealed: Any = None) -> None:
    """Judge the kind-2 complaints about step ``k`` now that its record was read, as a live peer
    at step k judges (``complaints.check_bad_step``): a complaint's STEP signed over another
    history than step k's replayed one (the prev hash and digest every logged message of step k
    carries, ``check_prev``) proves nothing (§C8.3: ``BadLog``); over it, another message of the
    seat in the log proves equivocation; no message (the seat was dropped at k) leaves the
    reveal itself to check against the seat's previous reveal. With no message logged at k
    (``bodies`` all None: a log ending before step k), the caller checked the history."""
    history = next(((x.prev_hash, x.prev_digest) for x in bodies if x is not None), None)
    for item in [p for p in pending if p[1].step == k]:
        pending.remove(item)
        c, b = item
        reveals = last_reveals  # before step k is applied: what the seat's reveal must hash to
        logged = recent[k][b.seat]
        if history is not None and (b.prev_hash, b.prev_digest) != history:
            raise BadLog(k, f"complaint of seat {c.seat} proves nothing: its message of seat {b.seat} "
                            "is signed over another history than the log's")
        if logged is not None and bodies[b.seat] != b:
            cheaters.append({"seat": b.seat, "step": c.step, "reason": "signed two different messages for one step",
                             "complainer": c.seat})
        elif logged is None and sealed is not None and sealed.judge(b) is not None:
            cheaters.append({"seat": b.seat, "step": c.step, "reason": sealed.judge(b)[1], "complainer": c.seat})
        elif logged is None and (type(b.input) is not bytes or hashlib.sha256(b.input).digest() != reveals[b.seat]):
            cheaters.append({"seat": b.seat, "step": c.step, "reason": "reveal does not hash to the previous reveal",
                             "complainer": c.seat})
        elif logged is None:
            raise BadLog(k, f"complaint of seat {c.seat} about a valid reveal")
        else:
            cheaters.append({"seat": c.seat, "step": c.step, "reason": "false complaint: the log applied that "
                             "very message", "complainer": c.seat})
