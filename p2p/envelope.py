"""Signed envelopes (protocol.md §C1): the message types, their signature domains and size
limits, and the envelope every message travels in::

    envelope = msgpack [type: uint, body: bin, sig: bin(64)]
    sig      = Ed25519 over SIG_PREFIX + DOMAIN[type] + b"\\x00" + body

Keeping the body as opaque bytes inside the envelope means the signature is checked on the
bytes received, with no re-encoding, and a peer stores and logs exactly what it verified.
This module signs a body already encoded (``sign_body``) and opens an envelope
(``open_envelope``, on the per-message hot path: the canonical form is recognised by its
bytes); the body schemas and their encoders and decoders are p2p/wire.py's, which re-exports
every public name here (``from p2p.wire import Envelope`` keeps working). Split out of
``wire.py`` (issue 13).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import const as C
from .errors import LocalProtocolError, WireError
from .identity import Identity, verify
from .schema import pack, unpack

__all__ = ["DOMAINS", "Envelope", "MAX_SIZE", "MSG_ABANDON", "MSG_ALIVE", "MSG_CATCHUP_REQ", "MSG_CATCHUP_RESP",
           "MSG_CHAT", "MSG_COMPLAINT", "MSG_DROP", "MSG_ESCROW", "MSG_HINT", "MSG_JOIN", "MSG_LEAVE",
           "MSG_PROPOSAL", "MSG_RECORDS", "MSG_REJECT", "MSG_RESEAT", "MSG_SEED", "MSG_SETUP_SIG", "MSG_SKIP",
           "MSG_STATUS", "MSG_STEP", "MSG_WATCH", "SESSION_TAGS", "SESSION_TYPES", "is_session_message", "open_as",
           "open_envelope", "open_for_game", "seal", "sign_body"]

# Message types (envelope[0]).
MSG_JOIN = 1
MSG_STATUS = 2
MSG_REJECT = 3
MSG_LEAVE = 4
MSG_PROPOSAL = 5
MSG_SETUP_SIG = 6
MSG_SEED = 7
MSG_STEP = 16
MSG_ESCROW = 17
MSG_DROP = 18
MSG_CATCHUP_REQ = 19
MSG_CATCHUP_RESP = 20
MSG_HINT = 21
MSG_ALIVE = 22
MSG_ABANDON = 23
MSG_COMPLAINT = 24
MSG_RESEAT = 25  # protocol.md §C8.9 (p2p/reseat.py)
MSG_SKIP = 26  # protocol.md §C8.10 (p2p/turn_skip.py)
MSG_CHAT = 36  # protocol.md §N9 (p2p/chat.py); 36-39 are issue 11's (chat, spectators)
MSG_WATCH = 37  # protocol.md §N10 (p2p/spectate.py)
MSG_RECORDS = 38  # protocol.md §N10

#: Signature domain of each message type.
DOMAINS: dict[int, bytes] = {
    MSG_JOIN: C.DOMAIN_JOIN,
    MSG_STATUS: C.DOMAIN_STATUS,
    MSG_REJECT: C.DOMAIN_REJECT,
    MSG_LEAVE: C.DOMAIN_LEAVE,
    MSG_PROPOSAL: C.DOMAIN_PROPOSAL,
    MSG_SETUP_SIG: C.DOMAIN_SETUP_SIG,
    MSG_SEED: C.DOMAIN_SEED,
    MSG_STEP: C.DOMAIN_STEP,
    MSG_ESCROW: C.DOMAIN_ESCROW,
    MSG_DROP: C.DOMAIN_DROP,
    MSG_CATCHUP_REQ: C.DOMAIN_CATCHUP_REQ,
    MSG_CATCHUP_RESP: C.DOMAIN_CATCHUP_RESP,
    MSG_HINT: C.DOMAIN_HINT,
    MSG_ALIVE: C.DOMAIN_ALIVE,
    MSG_ABANDON: C.DOMAIN_ABANDON,
    MSG_COMPLAINT: C.DOMAIN_COMPLAINT,
    MSG_RESEAT: C.DOMAIN_RESEAT,
    MSG_SKIP: C.DOMAIN_SKIP,
    MSG_CHAT: C.DOMAIN_CHAT,
    MSG_WATCH: C.DOMAIN_WATCH,
    MSG_RECORDS: C.DOMAIN_RECORDS,
}
#: Largest envelope (bytes) accepted for each type.
MAX_SIZE: dict[int, int] = {t: C.MAX_LOBBY_MSG for t in DOMAINS}
for _t in (MSG_STEP, MSG_ESCROW, MSG_DROP, MSG_CATCHUP_REQ, MSG_HINT, MSG_ALIVE, MSG_ABANDON):
    MAX_SIZE[_t] = C.MAX_STEP_MSG
MAX_SIZE[MSG_CATCHUP_RESP] = C.MAX_CATCHUP_MSG
MAX_SIZE[MSG_CHAT] = C.MAX_STEP_MSG
MAX_SIZE[MSG_WATCH] = C.MAX_STEP_MSG
MAX_SIZE[MSG_RECORDS] = C.MAX_WATCH_MSG
MAX_SIZE[MSG_COMPLAINT] = C.MAX_COMPLAINT_MSG
MAX_SIZE[MSG_RESEAT] = C.MAX_RESEAT_MSG
MAX_SIZE[MSG_SKIP] = C.MAX_STEP_MSG

#: Message types a running ``LockstepSession`` handles (the node routes them to
#: ``session.receive_message``; everything else goes to the lobby).
SESSION_TYPES = frozenset((MSG_STEP, MSG_ESCROW, MSG_DROP, MSG_CATCHUP_REQ, MSG_CATCHUP_RESP, MSG_HINT,
                           MSG_ALIVE, MSG_ABANDON, MSG_COMPLAINT, MSG_RESEAT, MSG_SKIP))
#: First two bytes of every session envelope: msgpack fixarray(3) then the fixint type.
SESSION_TAGS = frozenset(bytes([0x93, t]) for t in SESSION_TYPES)


def is_session_message(data: bytes) -> bool:
    """True if ``data`` looks like a session envelope (by its first two bytes; the session
    still validates everything). Cheap routing test for the node."""
    return data[:2] in SESSION_TAGS


# --- envelope -------------------------------------------------------------------------------

class Envelope(NamedTuple):
    """A decoded envelope: ``mtype`` (int), ``body`` (bytes, as received), ``sig`` (64 bytes),
    ``raw`` (the whole envelope bytes, as received)."""

    mtype: int
    body: bytes
    sig: bytes
    raw: bytes

    def verify(self, public_key: bytes) -> bool:
        """True if ``sig`` is ``public_key``'s signature of ``body`` under this type's domain."""
        return verify(public_key, DOMAINS[self.mtype], self.body, self.sig)


def sign_body(identity: Identity, mtype: int, body: bytes) -> Envelope:
    """Sign ``body`` (already encoded) as a ``mtype`` message: the envelope (protocol.md §C1).
    Raises ``LocalProtocolError`` if it exceeds the type's size limit (our bug)."""
    sig = identity.sign(DOMAINS[mtype], body)
    raw = pack([mtype, body, sig])
    if len(raw) > MAX_SIZE[mtype]:
        raise LocalProtocolError(f"message type {mtype} is {len(raw)} bytes, over {MAX_SIZE[mtype]}")
    return Envelope(mtype, body, sig, raw)


def seal(identity: Identity, mtype: int, fields: list) -> bytes:
    """Sign a raw field list as a ``mtype`` body, unchecked: for tests that forge malformed
    messages (production uses ``seal_message``). Raises ``LocalProtocolError`` if oversize."""
    return sign_body(identity, mtype, pack(fields)).raw


_SIG_TAIL = 2 + C.SIG_LEN  # bytes of the signature field, header included
_tuple_new = tuple.__new__  # builds an Envelope as its NamedTuple __new__ does, one frame less


def open_envelope(data: bytes, max_size: int = C.MAX_LOBBY_MSG) -> Envelope:
    """Decode and check the envelope structure (not the signature). Raises ``WireError``
    for oversize, malformed, non-canonical input or an unknown type.

    Every message on the hot path goes through here, so the one canonical form of an envelope
    is recognised by its bytes first (issue 14): ``0x93`` (array of 3), the type as a positive
    fixint (every type is < 128), the body as bin8 (< 256 bytes) or bin16 (256..65535 bytes),
    then ``0xc4 0x40`` and the 64 signature bytes, and nothing after. That is exactly what
    msgpack's shortest encoding of ``[type, body, sig]`` is, so this path accepts what the
    general one below (unpack, re-encode, compare) accepts, with the same result; anything
    else takes the general path, which gives the precise error (tests/p2p/test_wire_envelope.py
    checks both paths agree)."""
    n = len(data)
    if n > max_size:
        raise WireError(f"message of {n} bytes over the {max_size} limit")
    if type(data) is not bytes:
        data = bytes(data)
    if n > _SIG_TAIL + 4 and data[0] == 0x93 and data[1] in DOMAINS:
        head = data[2]
        if head == 0xC4:
            start, end = 4, 4 + data[3]
        elif head == 0xC5 and data[3]:  # bin16 of >= 256 bytes (shorter: not the shortest form)
            start, end = 5, 5 + ((data[3] << 8) | data[4])
        else:
            start = end = 0  # another form: the general path decides
        if start and n == end + _SIG_TAIL and data[end] == 0xC4 and data[end + 1] == C.SIG_LEN:
            mtype = data[1]
            if n > MAX_SIZE[mtype]:
                raise WireError("message over the size limit of its type")
            return _tuple_new(Envelope, (mtype, data[start:end], data[end + 2:], data))  # no __new__ frame
    return _open_general(data, max_size)


def _open_general(data: bytes, max_size: int) -> Envelope:
    """``open_envelope`` by the general rule: unpack, check, re-encode and compare."""
    outer = unpack(data, big=max_size > C.MAX_LOBBY_MSG)
    if type(outer) is not list or len(outer) != 3:
        raise WireError("envelope: expected [type, body, sig]")
    mtype, body, sig = outer
    if type(mtype) is not int or mtype not in DOMAINS:
        raise WireError("envelope: unknown message type")
    if len(data) > MAX_SIZE[mtype]:
        raise WireError("message over the size limit of its type")
    if type(body) is not bytes:
        raise WireError("envelope: body must be bin")
    if type(sig) is not bytes or len(sig) != C.SIG_LEN:
        raise WireError(f"signature: expected {C.SIG_LEN} bytes")
    return Envelope(mtype, body, sig, bytes(data))


def open_as(data: bytes, mtype: int, decoder: Any, max_size: int) -> tuple[Envelope, Any]:
    """``open_envelope`` of a message that must be of type ``mtype``, and its body decoded
    with ``decoder``: (envelope, body). Raises ``WireError`` otherwise (signature not checked)."""
    env = open_envelope(data, max_size)
    if env.mtype != mtype:
        raise WireError(f"expected message type {mtype}")
    return env, decoder(env.body)


def open_for_game(data: bytes, mtype: int, decoder: Any, max_size: int,
                  game_id: bytes) -> tuple[Envelope | None, Any, str | None]:
    """``open_as``, then the body's ``game_id`` must be ``game_id``: (envelope, body, None),
    or (None, None, reason) with reason ``"malformed"`` (a ``WireError``) or ``"wrong_game"``.
    The first two checks of the receivers that count their drops by reason: CHAT (protocol.md
    §N9), WATCH and RECORDS (§N10). The signature is not checked."""
    try:
        env, body = open_as(data, mtype, decoder, max_size)
    except WireError:
        return None, None, "malformed"
    if body.game_id != game_id:
        return None, None, "wrong_game"
    return env, body, None
