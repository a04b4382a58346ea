"""Wire format: canonical msgpack bodies, one schema table per message type (protocol.md §C1).

Every message travels in a signed *envelope* (``[type, body: bin, sig: bin(64)]``): the message
types, their signature domains and size limits, signing and opening the envelope are
p2p/envelope.py's, re-exported here (``from p2p.wire import Envelope, MSG_STEP, open_envelope``
keeps working). This module declares what is inside: each body's schema, once, as data: a
``Struct`` table of ``(field, wire type)`` rows (p2p/schema.py), compiled at import into the
decoder (``decode_step_body``, ``decode_drop``..., each validating type, length, range, arity
and the cross-field rules) and the encoder (``seal_message(identity, MSG_X, X(...))``,
``SCHEMAS[MSG_X].encode``). Production and the test vectors build every message through these
encoders; ``seal(identity, mtype, fields)`` with a raw field list is left for tests that forge
malformed messages.

Strictness: no maps, no ext types, no floats; every length is bounded by the unpacker options
and every field's type, length and range is checked here, before anything reaches the engine.
Encodings must be *canonical*: the decoded value must re-encode to the very same bytes
(msgpack's shortest forms), so one message has exactly one byte string and the byte-level
digest of a step is well defined. Any violation raises ``WireError``.

Adding a message type: a ``MSG_X`` number, its domain and size limit in p2p/envelope.py, a
NamedTuple for the decoded body in p2p/bodies.py, one ``Schema`` row in ``_SCHEMAS`` and a
``decode_x`` alias.
"""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

from . import const as C
from .bodies import (Abandon, Alive, CatchupRequest, CatchupResponse, Chat, ComplaintMsg, DropVote, Escrow,  # noqa: F401
                     EscrowAck, EscrowEntry, Hint, Join, Leave, Proposal, Records, Reject, ReseatRequest, SeedReveal,
                     SetupSig, SkipVote, Status, StepBody, Watch)  # the decoded bodies, re-exported from here
from .envelope import (DOMAINS, MAX_SIZE, MSG_ABANDON, MSG_ALIVE, MSG_CATCHUP_REQ, MSG_CATCHUP_RESP,  # noqa: F401
                       MSG_CHAT, MSG_COMPLAINT, MSG_DROP, MSG_ESCROW, MSG_HINT, MSG_JOIN, MSG_LEAVE, MSG_PROPOSAL,
                       MSG_RECORDS, MSG_REJECT, MSG_RESEAT, MSG_SEED, MSG_SETUP_SIG, MSG_SKIP, MSG_STATUS, MSG_STEP,
                       MSG_WATCH, SESSION_TAGS, SESSION_TYPES, Envelope, is_session_message, open_as, open_envelope,
                       open_for_game, seal, sign_body)  # the envelope (p2p/envelope.py), re-exported from here
from .errors import WireError
from .identity import Identity
from .schema import Array, Bin, Bool, Custom, Nil, Opt, Rule, Schema, Str, Struct, UInt, pack, unpack  # noqa: F401
from .seat_endpoint import endpoint_ok

# ``pack``/``unpack`` (p2p/schema.py), the body classes (p2p/bodies.py) and the envelope
# (p2p/envelope.py) are imported from here.

# --- common field types (protocol.md §C1 'Common field types') -----------------------------------

GID = Bin(C.GAME_ID_LEN)  # game id, bin(16)
H32 = Bin(C.HASH_LEN)  # hashes, digests, commitments, secrets
KEY = Bin(C.KEY_LEN)  # raw Ed25519 or X25519 public key
SEAT = UInt(C.MAX_SEATS - 1)
STEP_NO = UInt(C.MAX_STEP)
EPOCH = UInt(C.MAX_EPOCH)
U32 = UInt(2**32 - 1)
VERSION = UInt(2**16)
NAME = Str(C.MAX_NAME_LEN)
STEP_ENVELOPE = Bin(max=C.MAX_STEP_MSG)  # an envelope carried inside another message


def check_action(obj: Any, depth: int = 0, budget: list[int] | None = None) -> None:
    """Validate an encoded engine action as plain data: nested lists (depth <= MAX_ACTION_DEPTH,
    at most MAX_ACTION_ITEMS elements in all) of int, str, bytes, bool, None. The engine's
    ``decode_action`` then checks the meaning. Raises ``WireError``."""
    if budget is None:
        budget = [C.MAX_ACTION_ITEMS]
    t = type(obj)
    if t is list:
        if depth >= C.MAX_ACTION_DEPTH:
            raise WireError("action nested too deeply")
        budget[0] -= len(obj)
        if budget[0] < 0:
            raise WireError("action has too many elements")
        for x in obj:
            check_action(x, depth + 1, budget)
    elif t is int or t is str or t is bytes or t is bool or obj is None:
        return
    else:
        raise WireError(f"action: type {t.__name__} not allowed")


def _step_input(inp: Any) -> Any:
    """A STEP input (§C3.1): nil, a 32-byte reveal or commitment, or an encoded action."""
    if inp is None:
        return None
    if type(inp) is bytes:
        if len(inp) != C.HASH_LEN:
            raise WireError("reveal: expected 32 bytes")
        return inp
    if type(inp) is list:
        check_action(inp)
        return inp
    raise WireError("step input: expected nil, reveal or action")


def check_hidden_field(obj: Any) -> tuple:
    """Structural check of a STEP body's 7th field ``[deliveries, openings, complaint]``
    (protocol.md §C12.4; the contents are p2p.hidden's business); returns it as a tuple.
    Raises ``WireError``."""
    if type(obj) is not list or len(obj) != 3:
        raise WireError("hidden field: expected [deliveries, openings, complaint]")
    dels, ops, comp = obj
    if type(dels) is not list or len(dels) > C.MAX_SEATS - 1:
        raise WireError("hidden field: deliveries")
    last = -1
    for d in dels:
        if type(d) is not list or len(d) != 2 or type(d[0]) is not int or type(d[1]) is not bytes \
                or not last < d[0] < C.MAX_SEATS or len(d[1]) < C.HIDDEN_TAG_LEN + C.HIDDEN_OPEN_LEN \
                or (len(d[1]) - C.HIDDEN_TAG_LEN) % C.HIDDEN_OPEN_LEN:
            raise WireError("hidden field: malformed delivery")
        last = d[0]
    if type(ops) is not bytes or len(ops) % C.HIDDEN_OPEN_LEN:
        raise WireError("hidden field: openings must be bin of 16-byte openings")
    if comp is not None and (type(comp) is not list or len(comp) != 2 or type(comp[0]) is not int
                             or not 0 <= comp[0] < C.MAX_SEATS or type(comp[1]) is not bytes
                             or len(comp[1]) != 32):
        raise WireError("hidden field: malformed complaint")
    return dels, ops, comp


def check_options(options: Any) -> tuple:
    """Validate and canonicalise setup options: a mapping or pair list of str keys (sorted,
    unique) to int/str/bool/None values. Returns a tuple of (key, value) pairs. ``WireError``."""
    if isinstance(options, dict):
        options = [[k, v] for k, v in options.items()]
    if type(options) is not list or len(options) > C.MAX_OPTIONS:
        raise WireError(f"options: expected an array of at most {C.MAX_OPTIONS}")
    out = []
    for kv in options:
        kv = list(kv) if isinstance(kv, tuple) else kv
        if type(kv) is not list or len(kv) != 2:
            raise WireError("option: expected [key, value]")
        k, v = kv
        if type(k) is not str or len(k) > C.MAX_OPTION_STR:
            raise WireError(f"option key: expected str of at most {C.MAX_OPTION_STR} characters")
        if not (v is None or type(v) in (int, bool) or (type(v) is str and len(v) <= C.MAX_OPTION_STR)):
            raise WireError(f"option {k!r}: value must be int, str, bool or nil")
        if type(v) is int and not -(2**63) <= v < 2**64:
            raise WireError(f"option {k!r}: int out of range")
        out.append((k, v))
    out.sort(key=lambda kv: kv[0])
    keys = [k for k, _ in out]
    if len(set(keys)) != len(keys):
        raise WireError("duplicate option keys")
    return tuple(out)


def _options_to_wire(opts: tuple) -> list:
    return [list(kv) for kv in opts]


def _wire_options(obj: Any) -> tuple:
    """Setup options as received: already sorted by key and unique (one canonical form)."""
    opts = check_options(obj)
    if _options_to_wire(opts) != obj:
        raise WireError("options not sorted by key")
    return opts


def _rule(ok: Any, message: str) -> Rule:
    """A cross-field rule of a table: ``ok(value)`` false raises ``WireError(message)``."""
    return Rule(ok, message)


STEP_INPUT = Custom("step_input", _step_input)
HIDDEN = Custom("hidden", check_hidden_field, list)
OPTIONS = Custom("options", _wire_options, _options_to_wire)
RECORD = Struct((("kind", UInt(255)), ("payload", Bin())))  # a log record [kind, payload], §C6


# --- sealing a body with its schema (the envelope itself is p2p/envelope.py) ---------------

def seal_envelope(identity: Identity, mtype: int, msg: Any) -> Envelope:
    """Encode ``msg`` (the type's NamedTuple) with its schema and sign it. Raises
    ``LocalProtocolError`` if ``msg`` breaks the schema or the size limit."""
    return sign_body(identity, mtype, SCHEMAS[mtype].encode(msg))


def seal_message(identity: Identity, mtype: int, msg: Any) -> bytes:
    """The envelope bytes of ``msg`` (``seal_envelope(...).raw``): what production sends."""
    return sign_body(identity, mtype, SCHEMAS[mtype].encode(msg)).raw


# --- the setup (§C2.3); the message bodies are in p2p/bodies.py ---------------------------------

class Player(NamedTuple):
    """One seated player in the setup (protocol.md §C2.3)."""

    public_key: bytes  # Ed25519, 32 bytes
    x25519_key: bytes  # X25519, 32 bytes
    name: str
    chain_head: bytes  # 32 bytes, h_n of the player's hash chain
    seed_commit: bytes  # 32 bytes, SHA-256 of the seed secret
    bot: bool
    endpoint: tuple  # (host: canonical IP text, port 1..65535): where its game socket is bound (version 6)


class Setup(NamedTuple):
    """The fixed game setup that every seat signs (protocol.md §C2.3). ``players`` are in seat
    order = ascending Ed25519 public key bytes. ``options`` is a tuple of (key, value) pairs
    sorted by key; values are int, str, bool or None."""

    version: int
    game_id: bytes
    edition: str
    seats: int
    chain_length: int
    options: tuple
    players: tuple

    def encode(self) -> bytes:
        """Canonical bytes of the setup (what ``setup_hash`` hashes). Raises
        ``LocalProtocolError`` if the setup breaks its schema."""
        return SETUP.encode(self)

    def options_dict(self) -> dict:
        """Options as a dict, for ``engine.new_game``."""
        return dict(self.options)


# --- the tables (protocol.md §C1-§C9, §N9, §N10) ------------------------------------------------

#: A seat's own endpoint (§C2.1, version 6; p2p/seat_endpoint.py): [host, port], one text form.
ENDPOINT = Struct((("host", Str(C.MAX_HOST_LEN)), ("port", UInt(65535, 1))),
                  rules=(_rule(lambda e: endpoint_ok(e[0], e[1]), "endpoint: not a canonical IP address"),))

PLAYER = Struct((("public_key", KEY), ("x25519_key", KEY), ("name", NAME), ("chain_head", H32),
                 ("seed_commit", H32), ("bot", Bool()), ("endpoint", ENDPOINT)), Player)

#: The setup (§C2.3): what SETUP_SIG signs by hash; not a message type of its own.
SETUP = Schema("setup", None, Struct(
    (("version", VERSION), ("game_id", GID), ("edition", Str(C.MAX_EDITION_LEN)),
     ("seats", UInt(C.MAX_SEATS, C.MIN_SEATS)), ("chain_length", UInt(2**32, 1)), ("options", OPTIONS),
     ("players", Array(PLAYER, max=C.MAX_SEATS))), Setup,
    rules=(_rule(lambda s: len(s.players) == s.seats, "setup: one player per seat"),
           _rule(lambda s: all(a.public_key < b.public_key for a, b in zip(s.players, s.players[1:])),
                 "players not strictly ascending by public key"),
           _rule(lambda s: len({tuple(p.endpoint) for p in s.players}) == len(s.players),
                 "setup: two seats name one endpoint"))))


def _proposal(gid: bytes, sb: bytes) -> Proposal:
    return Proposal(gid, sb, SETUP.decode(sb))


_SCHEMAS = [
    # lobby (§C2.1)
    Schema("join", MSG_JOIN, Struct((("game_id", GID), ("version", VERSION), ("player", PLAYER)), Join)),
    Schema("status", MSG_STATUS, Struct(
        (("game_id", GID), ("edition", Str(C.MAX_EDITION_LEN)), ("seats", UInt(C.MAX_SEATS, C.MIN_SEATS)),
         ("taken", UInt(C.MAX_SEATS)), ("names", Array(NAME, max=C.MAX_SEATS)), ("host_pk", KEY),
         ("host_xk", KEY)), Status,
        rules=(_rule(lambda s: s.taken <= s.seats and len(s.names) <= s.seats, "status: more taken than seats"),))),
    Schema("reject", MSG_REJECT, Struct(
        (("game_id", GID), ("joiner_pk", KEY), ("code", UInt(255)), ("host_pk", KEY), ("host_xk", KEY),
         ("answers", H32)), Reject)),
    Schema("leave", MSG_LEAVE, Struct((("game_id", GID),), Leave)),
    Schema("proposal", MSG_PROPOSAL, Struct(
        (("game_id", GID), ("setup_bytes", Bin())), Proposal, make=_proposal,
        rules=(_rule(lambda p: p.setup.game_id == p.game_id, "proposal game_id differs from the setup's"),))),
    Schema("setup_sig", MSG_SETUP_SIG, Struct(
        (("game_id", GID), ("seat", SEAT), ("setup_hash", H32),
         ("leaves", Opt(Bin(min=C.HASH_LEN, multiple=C.HASH_LEN)))), SetupSig)),
    Schema("seed", MSG_SEED, Struct(
        (("game_id", GID), ("seat", SEAT), ("setup_hash", H32), ("secret", H32),
         ("commits", Opt(Array(H32, min=C.MIN_SEATS, max=C.MAX_SEATS)))), SeedReveal)),
    # session (§C3, §C8, §C9)
    Schema("step", MSG_STEP, Struct(
        (("game_id", GID), ("step", STEP_NO), ("seat", SEAT), ("prev_hash", H32), ("prev_digest", H32),
         ("input", STEP_INPUT), ("hidden", Opt(HIDDEN)),
         ("reseat", Opt(Array(Bin(max=C.MAX_RESEAT_MSG), min=1, max=C.RESEAT_CARRY), ())),
         ("acks", Opt(Array(Struct((("dealer", SEAT), ("epoch", EPOCH), ("hash", H32)), EscrowAck),
                            min=1, max=C.MAX_SEATS - 1), ()))), StepBody,
        rules=(_rule(lambda b: len(b.acks) < 2 or all(x.dealer < y.dealer for x, y in zip(b.acks, b.acks[1:])),
                     "step acks must be in ascending dealer order"),))),
    Schema("escrow", MSG_ESCROW, Struct(
        (("game_id", GID), ("seat", SEAT), ("epoch", EPOCH),
         ("entries", Array(Struct((("to", SEAT), ("commit", H32), ("ct", Bin(C.SHARE_LEN + 16))), EscrowEntry),
                           max=C.MAX_SEATS - 1))), Escrow,
        rules=(_rule(lambda e: all(a.to < b.to for a, b in zip(e.entries, e.entries[1:]))
                     and all(x.to != e.seat for x in e.entries),
                     "escrow entries must be ascending, unique and not for the dealer"),))),
    Schema("drop", MSG_DROP, Struct(
        (("game_id", GID), ("voter", SEAT), ("step", STEP_NO), ("seat", SEAT), ("epoch", EPOCH),
         ("share", Nil(Bin(min=C.HASH_LEN, max=C.SHARE_LEN)))), DropVote,
        rules=(_rule(lambda d: d.voter != d.seat, "a seat cannot vote to drop itself"),
               _rule(lambda d: d.share is None or len(d.share) in (C.HASH_LEN, C.SHARE_LEN),
                     "a drop vote's share is nil, a share (66 bytes) or a key (32 bytes)")))),
    Schema("skip", MSG_SKIP, Struct(
        (("game_id", GID), ("voter", SEAT), ("step", STEP_NO), ("seat", SEAT), ("epoch", EPOCH)), SkipVote,
        rules=(_rule(lambda v: v.voter != v.seat, "a seat cannot vote to skip its own turn"),))),
    Schema("catchup_req", MSG_CATCHUP_REQ, Struct(
        (("game_id", GID), ("seat", SEAT), ("from_step", STEP_NO), ("to_step", STEP_NO)), CatchupRequest,
        rules=(_rule(lambda r: r.from_step < r.to_step, "catch-up range is empty"),))),
    Schema("catchup_resp", MSG_CATCHUP_RESP, Struct(
        (("game_id", GID), ("seat", SEAT), ("from_step", STEP_NO), ("head_step", STEP_NO),
         ("records", Array(Struct((("kind", UInt(255)), ("payload", Bin(max=C.MAX_CATCHUP_MSG)))),
                           max=C.CATCHUP_MAX_RECORDS)),
         ("pending", Array(STEP_ENVELOPE, max=C.MAX_SEATS)), ("escrows", Array(STEP_ENVELOPE, max=C.MAX_SEATS))),
        CatchupResponse), big=True),
    Schema("hint", MSG_HINT, Struct((("game_id", GID), ("seat", SEAT), ("step", STEP_NO)), Hint)),
    Schema("alive", MSG_ALIVE, Struct((("game_id", GID), ("seat", SEAT), ("step", STEP_NO), ("n", U32)), Alive)),
    Schema("abandon", MSG_ABANDON, Struct(
        (("game_id", GID), ("seat", SEAT), ("step", STEP_NO), ("prev_hash", H32), ("prev_digest", H32)), Abandon)),
    Schema("complaint", MSG_COMPLAINT, Struct(
        (("game_id", GID), ("seat", SEAT), ("step", STEP_NO), ("culprit", SEAT), ("kind", UInt(5, 1)),
         ("evidence", Array(STEP_ENVELOPE, min=1, max=2)), ("key", Nil(H32))), ComplaintMsg,
        rules=(_rule(lambda c: c.seat != c.culprit, "a seat cannot complain about itself"),))),
    Schema("reseat", MSG_RESEAT, Struct(
        (("game_id", GID), ("seat", SEAT), ("dropped_at", STEP_NO), ("chain_head", H32)), ReseatRequest)),
    # chat and spectators (§N9, §N10)
    Schema("chat", MSG_CHAT, Struct(
        (("game_id", GID), ("pk", KEY), ("seq", UInt(C.MAX_CHAT_SEQ)), ("name", NAME),
         ("text", Str(C.MAX_CHAT_TEXT))), Chat)),
    Schema("watch", MSG_WATCH, Struct(
        (("game_id", GID), ("pk", KEY), ("xk", KEY), ("name", NAME), ("have", U32)), Watch)),
    Schema("records", MSG_RECORDS, Struct(
        (("game_id", GID), ("index", U32), ("records", Array(RECORD, max=256))), Records), big=True),
]
#: The body schema of every message type.
SCHEMAS: dict[int, Schema] = {s.mtype: s for s in _SCHEMAS}
assert set(SCHEMAS) == set(DOMAINS), "every message type has a schema"

# The decoders, by name (each raises ``WireError``; the schema row above is the whole spec).
decode_setup = SETUP.decode
decode_join = SCHEMAS[MSG_JOIN].decode
decode_status = SCHEMAS[MSG_STATUS].decode
decode_reject = SCHEMAS[MSG_REJECT].decode
decode_leave = SCHEMAS[MSG_LEAVE].decode
decode_proposal = SCHEMAS[MSG_PROPOSAL].decode
decode_setup_sig = SCHEMAS[MSG_SETUP_SIG].decode
decode_seed = SCHEMAS[MSG_SEED].decode
decode_step_body = SCHEMAS[MSG_STEP].decode
decode_escrow = SCHEMAS[MSG_ESCROW].decode
decode_drop = SCHEMAS[MSG_DROP].decode
decode_skip = SCHEMAS[MSG_SKIP].decode
decode_catchup_req = SCHEMAS[MSG_CATCHUP_REQ].decode
decode_catchup_resp = SCHEMAS[MSG_CATCHUP_RESP].decode
decode_hint = SCHEMAS[MSG_HINT].decode
decode_alive = SCHEMAS[MSG_ALIVE].decode
decode_abandon = SCHEMAS[MSG_ABANDON].decode
decode_complaint = SCHEMAS[MSG_COMPLAINT].decode
decode_reseat = SCHEMAS[MSG_RESEAT].decode
decode_chat = SCHEMAS[MSG_CHAT].decode
decode_watch = SCHEMAS[MSG_WATCH].decode
decode_records = SCHEMAS[MSG_RECORDS].decode

#: Body decoder of each lobby message type.
LOBBY_DECODERS = {t: SCHEMAS[t].decode for t in (MSG_JOIN, MSG_STATUS, MSG_REJECT, MSG_LEAVE, MSG_PROPOSAL,
                                                 MSG_SETUP_SIG, MSG_SEED)}


def encode_step(body: StepBody) -> bytes:
    """The canonical bytes of a STEP body (what is signed and hashed into the step digest).
    Raises ``LocalProtocolError`` if ``body`` breaks the STEP schema."""
    return SCHEMAS[MSG_STEP].encode(body)


def encode_step_body(game_id: bytes, step: int, seat: int, prev_hash: bytes, prev_digest: bytes,
                     inp: Any) -> list:
    """The wire field list of a 6-field STEP body (``pack`` gives ``encode_step``'s bytes)."""
    return SCHEMAS[MSG_STEP].to_wire(StepBody(game_id, step, seat, prev_hash, prev_digest, inp))


def setup_hash(setup_bytes: bytes) -> bytes:
    """Setup hash = SHA-256(b"lanopoli/1/setup\\x00" + setup bytes) (protocol.md §C2.3). It is what
    every seat signs (SETUP_SIG) and the ``prev_digest`` of step 0."""
    return hashlib.sha256(C.HASH_SETUP + setup_bytes).digest()


def engine_options(setup: Setup) -> dict:
    """The setup options meant for the engine: all but the ``p2p.*`` keys (protocol.md §C7.1),
    as a dict for ``engine.new_game``."""
    return {k: v for k, v in setup.options if not k.startswith(C.P2P_OPTION_PREFIX)}
