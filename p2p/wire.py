"""Wire format: canonical msgpack with a fixed schema per message type, signed envelopes.

Every message on the wire is an *envelope* (protocol.md §C1)::

    envelope = msgpack [type: uint, body: bin, sig: bin(64)]
    body     = msgpack array, fixed schema per type (below)
    sig      = Ed25519 over SIG_PREFIX + DOMAIN[type] + b"\\x00" + body

Keeping the body as opaque bytes inside the envelope means the signature is checked on the
bytes received, with no re-encoding, and a peer stores and logs exactly what it verified.

Strictness: no maps, no ext types, no floats; every length is bounded by the unpacker options
and every field's type, length and range is checked here, before anything reaches the engine.
Encodings must be *canonical*: the decoded value must re-encode to the very same bytes
(msgpack's shortest forms), so one message has exactly one byte string and the byte-level
digest of a step is well defined. Any violation raises ``WireError``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import msgpack

from . import const as C
from .errors import WireError
from .identity import Identity, verify

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

#: Message types a running ``LockstepSession`` handles (the node routes them to
#: ``session.receive_message``; everything else goes to the lobby).
SESSION_TYPES = frozenset((MSG_STEP, MSG_ESCROW, MSG_DROP, MSG_CATCHUP_REQ, MSG_CATCHUP_RESP, MSG_HINT,
                           MSG_ALIVE, MSG_ABANDON, MSG_COMPLAINT, MSG_RESEAT))
#: First two bytes of every session envelope: msgpack fixarray(3) then the fixint type.
SESSION_TAGS = frozenset(bytes([0x93, t]) for t in SESSION_TYPES)


def is_session_message(data: bytes) -> bool:
    """True if ``data`` looks like a session envelope (by its first two bytes; the session
    still validates everything). Cheap routing test for the node."""
    return data[:2] in SESSION_TAGS

_UNPACK_OPTS = dict(
    raw=False,
    strict_map_key=True,
    use_list=True,
    max_str_len=C.MAX_LOBBY_MSG,
    max_bin_len=C.MAX_LOBBY_MSG,
    max_array_len=256,
    max_map_len=0,  # maps are never part of a schema
    max_ext_len=0,
    ext_hook=None,  # set below
)


def _reject_ext(code: int, data: bytes) -> Any:
    raise WireError(f"ext type {code} not allowed")


_UNPACK_OPTS["ext_hook"] = _reject_ext
#: Same, for catch-up responses (their body is one large bin).
_UNPACK_BIG = dict(_UNPACK_OPTS, max_str_len=C.MAX_CATCHUP_MSG, max_bin_len=C.MAX_CATCHUP_MSG)


def pack(obj: Any) -> bytes:
    """Canonical msgpack encoding of ``obj`` (arrays, bin, str, int, bool, nil only)."""
    return msgpack.packb(obj, use_bin_type=True)


def unpack(data: bytes, big: bool = False) -> Any:
    """Strictly decode canonical msgpack: raises ``WireError`` for malformed, trailing,
    ext, map, or non-canonical input. ``big``: allow str/bin up to MAX_CATCHUP_MSG bytes
    (catch-up responses) instead of MAX_LOBBY_MSG."""
    try:
        obj = msgpack.unpackb(data, **(_UNPACK_BIG if big else _UNPACK_OPTS))
    except WireError:
        raise
    except Exception as e:  # msgpack raises ValueError, ExtraData, FormatError, StackError...
        raise WireError(f"undecodable msgpack: {type(e).__name__}") from None
    if msgpack.packb(obj, use_bin_type=True) != data:
        raise WireError("non-canonical msgpack encoding")
    return obj


# --- field checks ---------------------------------------------------------------------------

def _bin(v: Any, n: int, what: str) -> bytes:
    if type(v) is not bytes or len(v) != n:
        raise WireError(f"{what}: expected {n} bytes")
    return v


def _uint(v: Any, hi: int, what: str, lo: int = 0) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise WireError(f"{what}: expected int in [{lo}, {hi}]")
    return v


def _str(v: Any, maxlen: int, what: str) -> str:
    if type(v) is not str or len(v) > maxlen:
        raise WireError(f"{what}: expected str of at most {maxlen} characters")
    return v


def _bool(v: Any, what: str) -> bool:
    if type(v) is not bool:
        raise WireError(f"{what}: expected bool")
    return v


def _array(v: Any, n: int | None, what: str) -> list:
    if type(v) is not list or (n is not None and len(v) != n):
        raise WireError(f"{what}: expected array" + (f" of {n}" if n is not None else ""))
    return v


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


def seal(identity: Identity, mtype: int, fields: list) -> bytes:
    """Encode ``fields`` as the body of a ``mtype`` message, sign it, and return the envelope
    bytes. Raises ``ValueError`` if the result exceeds the type's size limit (our bug)."""
    body = pack(fields)
    raw = pack([mtype, body, identity.sign(DOMAINS[mtype], body)])
    if len(raw) > MAX_SIZE[mtype]:
        raise ValueError(f"message type {mtype} is {len(raw)} bytes, over {MAX_SIZE[mtype]}")
    return raw


def open_envelope(data: bytes, max_size: int = C.MAX_LOBBY_MSG) -> Envelope:
    """Decode and check the envelope structure (not the signature). Raises ``WireError``
    for oversize, malformed, non-canonical input or an unknown type."""
    if len(data) > max_size:
        raise WireError(f"message of {len(data)} bytes over the {max_size} limit")
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
    _bin(sig, C.SIG_LEN, "signature")
    return Envelope(mtype, body, sig, bytes(data))


def open_as(data: bytes, mtype: int, decoder: Any, max_size: int) -> tuple[Envelope, Any]:
    """``open_envelope`` of a message that must be of type ``mtype``, and its body decoded
    with ``decoder``: (envelope, body). Raises ``WireError`` otherwise (signature not checked)."""
    env = open_envelope(data, max_size)
    if env.mtype != mtype:
        raise WireError(f"expected message type {mtype}")
    return env, decoder(env.body)


# --- step message (hot path) -----------------------------------------------------------------

class StepBody(NamedTuple):
    """Body of a STEP message (protocol.md §C3). ``input`` is None, a 32-byte reveal (chance step)
    or an encoded engine action (a list) (decision step). ``hidden``: in a game with hidden
    information, the checked 7th field ``(deliveries, openings, complaint)`` (protocol.md §C12.4);
    None when the body has 6 fields (or its 7th is nil). ``reseat``: the 8th field, RESEAT
    request envelopes the seat carries (protocol.md §C8.9; structure checked here, contents by
    p2p.reseat), () when absent."""

    game_id: bytes
    step: int
    seat: int
    prev_hash: bytes
    prev_digest: bytes
    input: Any
    hidden: Any = None
    reseat: tuple = ()


def encode_step_body(game_id: bytes, step: int, seat: int, prev_hash: bytes, prev_digest: bytes,
                     inp: Any) -> list:
    """The field list of a STEP body, for ``seal``."""
    return [game_id, step, seat, prev_hash, prev_digest, inp]


def check_hidden_field(obj: Any) -> tuple:
    """Structural check of a STEP body's 7th field ``[deliveries, openings, complaint]``
    (protocol.md §C12.4; the contents are p2p.hidden's business); returns it as a tuple.
    Raises ``ValueError``."""
    if type(obj) is not list or len(obj) != 3:
        raise ValueError("hidden field: expected [deliveries, openings, complaint]")
    dels, ops, comp = obj
    if type(dels) is not list or len(dels) > C.MAX_SEATS - 1:
        raise ValueError("hidden field: deliveries")
    last = -1
    for d in dels:
        if type(d) is not list or len(d) != 2 or type(d[0]) is not int or type(d[1]) is not bytes \
                or not last < d[0] < C.MAX_SEATS or len(d[1]) < C.HIDDEN_TAG_LEN + C.HIDDEN_OPEN_LEN \
                or (len(d[1]) - C.HIDDEN_TAG_LEN) % C.HIDDEN_OPEN_LEN:
            raise ValueError("hidden field: malformed delivery")
        last = d[0]
    if type(ops) is not bytes or len(ops) % C.HIDDEN_OPEN_LEN:
        raise ValueError("hidden field: openings must be bin of 16-byte openings")
    if comp is not None and (type(comp) is not list or len(comp) != 2 or type(comp[0]) is not int
                             or not 0 <= comp[0] < C.MAX_SEATS or type(comp[1]) is not bytes
                             or len(comp[1]) != 32):
        raise ValueError("hidden field: malformed complaint")
    return dels, ops, comp


def check_reseat_field(obj: Any) -> tuple:
    """Structural check of a STEP body's 8th field: 1..``RESEAT_CARRY`` RESEAT envelopes as bin,
    each at most ``MAX_RESEAT_MSG`` bytes (protocol.md §C8.9; their signatures and contents are
    p2p.reseat's business, every peer judges them alike). Returns them as a tuple. Raises
    ``ValueError``; an empty list is refused (the body would have a shorter canonical form)."""
    if type(obj) is not list or not 1 <= len(obj) <= C.RESEAT_CARRY:
        raise ValueError("reseat field: expected 1..%d envelopes" % C.RESEAT_CARRY)
    if any(type(x) is not bytes or len(x) > C.MAX_RESEAT_MSG for x in obj):
        raise ValueError("reseat field: envelopes must be bin of at most %d bytes" % C.MAX_RESEAT_MSG)
    return tuple(obj)


def decode_step_body(body: bytes) -> StepBody:
    """Decode and validate a STEP body. Raises ``WireError``."""
    f = unpack(body)
    if type(f) is not list or len(f) not in (6, 7, 8):
        raise WireError("step: expected 6, 7 or 8 fields")
    gid, step, seat, ph, pd, inp = f[:6]
    hidden = None
    reseat: tuple = ()
    if len(f) == 8:
        # [..., input, hidden | nil, reseat] (protocol.md §C8.9)
        try:
            reseat = check_reseat_field(f[7])
        except ValueError as e:
            raise WireError(str(e)) from None
        f = f[:7] if f[6] is not None else f[:6]
    if len(f) == 7:
        try:
            hidden = check_hidden_field(f[6])
        except ValueError as e:
            raise WireError(str(e)) from None
    _bin(gid, C.GAME_ID_LEN, "game_id")
    _uint(step, C.MAX_STEP, "step")
    _uint(seat, C.MAX_SEATS - 1, "seat")
    _bin(ph, C.HASH_LEN, "prev_hash")
    _bin(pd, C.HASH_LEN, "prev_digest")
    if inp is None:
        pass
    elif type(inp) is bytes:
        _bin(inp, C.HASH_LEN, "reveal")
    elif type(inp) is list:
        check_action(inp)
    else:
        raise WireError("step input: expected nil, reveal or action")
    return StepBody(gid, step, seat, ph, pd, inp, hidden, reseat)


# --- setup ----------------------------------------------------------------------------------

class Player(NamedTuple):
    """One seated player in the setup (protocol.md §C2.3)."""

    public_key: bytes  # Ed25519, 32 bytes
    x25519_key: bytes  # X25519, 32 bytes
    name: str
    chain_head: bytes  # 32 bytes, h_n of the player's hash chain
    seed_commit: bytes  # 32 bytes, SHA-256 of the seed secret
    bot: bool


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
        """Canonical bytes of the setup (what ``setup_hash`` hashes)."""
        return pack([self.version, self.game_id, self.edition, self.seats, self.chain_length,
                     [list(kv) for kv in self.options], [list(p) for p in self.players]])

    def options_dict(self) -> dict:
        """Options as a dict, for ``engine.new_game``."""
        return dict(self.options)


def check_options(options: Any) -> tuple:
    """Validate and canonicalise setup options: a mapping or pair list of str keys (sorted,
    unique) to int/str/bool/None values. Returns a tuple of (key, value) pairs. ``WireError``."""
    if isinstance(options, dict):
        options = [[k, v] for k, v in options.items()]
    _array(options, None, "options")
    if len(options) > C.MAX_OPTIONS:
        raise WireError("too many options")
    out = []
    for kv in options:
        k, v = _array(list(kv) if isinstance(kv, tuple) else kv, 2, "option")
        _str(k, C.MAX_OPTION_STR, "option key")
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


def _player(v: Any) -> Player:
    pk, xk, name, head, commit, bot = _array(v, 6, "player")
    return Player(_bin(pk, C.KEY_LEN, "public_key"), _bin(xk, C.KEY_LEN, "x25519_key"),
                  _str(name, C.MAX_NAME_LEN, "name"), _bin(head, C.HASH_LEN, "chain_head"),
                  _bin(commit, C.HASH_LEN, "seed_commit"), _bool(bot, "bot"))


def decode_setup(data: bytes) -> Setup:
    """Decode and validate setup bytes: version, seat count, players strictly ascending by
    public key (hence unique). Raises ``WireError``."""
    f = _array(unpack(data), 7, "setup")
    version, gid, edition, seats, chain_length, options, players = f
    _uint(version, 2**16, "version")
    _bin(gid, C.GAME_ID_LEN, "game_id")
    _str(edition, C.MAX_EDITION_LEN, "edition")
    _uint(seats, C.MAX_SEATS, "seats", C.MIN_SEATS)
    _uint(chain_length, 2**32, "chain_length", 1)
    opts = check_options(options)
    if [list(kv) for kv in opts] != options:
        raise WireError("options not sorted by key")
    ps = tuple(_player(p) for p in _array(players, seats, "players"))
    for a, b in zip(ps, ps[1:]):
        if not a.public_key < b.public_key:
            raise WireError("players not strictly ascending by public key")
    return Setup(version, gid, edition, seats, chain_length, opts, ps)


# --- lobby messages -------------------------------------------------------------------------

class Join(NamedTuple):
    """JOIN body: a player asks the host for a seat (protocol.md §C2.1)."""

    game_id: bytes
    version: int
    player: Player


def decode_join(body: bytes) -> Join:
    """Validate a JOIN body ``[game_id, version, player]``. Raises ``WireError``."""
    gid, version, player = _array(unpack(body), 3, "join")
    return Join(_bin(gid, C.GAME_ID_LEN, "game_id"), _uint(version, 2**16, "version"), _player(player))


class Status(NamedTuple):
    """STATUS body: the host tells a joiner the lobby's state, signed by the host's key
    ``host_pk`` (its X25519 key: ``host_xk``)."""

    game_id: bytes
    edition: str
    seats: int
    taken: int
    names: tuple
    host_pk: bytes
    host_xk: bytes


def decode_status(body: bytes) -> Status:
    """Validate a STATUS body ``[game_id, edition, seats, taken, [name...], host_pk, host_xk]``
    (protocol.md §C2.1). The signature (by ``host_pk``) is the lobby's to check."""
    gid, edition, seats, taken, names, hpk, hxk = _array(unpack(body), 7, "status")
    _uint(seats, C.MAX_SEATS, "seats", C.MIN_SEATS)
    names = _array(names, None, "names")
    if len(names) > seats:
        raise WireError("more names than seats")
    return Status(_bin(gid, C.GAME_ID_LEN, "game_id"), _str(edition, C.MAX_EDITION_LEN, "edition"),
                  seats, _uint(taken, seats, "taken"), tuple(_str(n, C.MAX_NAME_LEN, "name") for n in names),
                  _bin(hpk, C.KEY_LEN, "host_pk"), _bin(hxk, C.KEY_LEN, "host_xk"))


class Chat(NamedTuple):
    """CHAT body ``[gid, pk, seq, name, text]`` (protocol.md §N9), signed by ``pk``."""

    game_id: bytes
    pk: bytes
    seq: int
    name: str
    text: str


def decode_chat(body: bytes) -> Chat:
    """Validate a CHAT body (protocol.md §N9): gid bin(16), pk bin(32), seq uint ≤ 2^48-1,
    name str ≤ 32, text str ≤ 200. The signature (by ``pk``) is the chat room's to check."""
    gid, pk, seq, name, text = _array(unpack(body), 5, "chat")
    return Chat(_bin(gid, C.GAME_ID_LEN, "game_id"), _bin(pk, C.KEY_LEN, "pk"), _uint(seq, C.MAX_CHAT_SEQ, "seq"),
                _str(name, C.MAX_NAME_LEN, "name"), _str(text, C.MAX_CHAT_TEXT, "text"))


class Watch(NamedTuple):
    """WATCH body ``[gid, pk, xk, name, have]`` (protocol.md §N10), signed by ``pk``."""

    game_id: bytes
    pk: bytes
    xk: bytes
    name: str
    have: int


def decode_watch(body: bytes) -> Watch:
    """Validate a WATCH body (protocol.md §N10): gid bin(16), pk and xk bin(32), name str ≤ 32,
    have uint ≤ 2^32-1 (records the spectator holds)."""
    gid, pk, xk, name, have = _array(unpack(body), 5, "watch")
    return Watch(_bin(gid, C.GAME_ID_LEN, "game_id"), _bin(pk, C.KEY_LEN, "pk"), _bin(xk, C.KEY_LEN, "xk"),
                 _str(name, C.MAX_NAME_LEN, "name"), _uint(have, 2**32 - 1, "have"))


class Records(NamedTuple):
    """RECORDS body ``[gid, index, [[kind, payload], ...]]`` (protocol.md §N10), signed by the
    serving seat: its log records from number ``index`` on (the header is record 0)."""

    game_id: bytes
    index: int
    records: tuple


def decode_records(body: bytes) -> Records:
    """Validate a RECORDS body: gid bin(16), index uint ≤ 2^32-1, at most 256 records each
    ``[kind: uint 0..255, payload: bin]``. The records' contents are checked by replaying them
    (p2p/verify.py), not here."""
    gid, index, recs = _array(unpack(body, big=True), 3, "records")
    out = []
    for r in _array(recs, None, "records"):
        kind, payload = _array(r, 2, "record")
        if type(payload) is not bytes:
            raise WireError("record payload must be bin")
        out.append((_uint(kind, 255, "kind"), payload))
    return Records(_bin(gid, C.GAME_ID_LEN, "game_id"), _uint(index, 2**32 - 1, "index"), tuple(out))


class Reject(NamedTuple):
    """REJECT body ``[game_id, joiner_pk, code, host_pk, host_xk]``: the host (keys
    ``host_pk``, ``host_xk``, which signed it) refuses the JOIN of ``joiner_pk``; ``code`` is one
    of ``const.REJECT_CODES`` (no free text: the joiner shows its own)."""

    game_id: bytes
    joiner_pk: bytes
    code: int
    host_pk: bytes
    host_xk: bytes


def decode_reject(body: bytes) -> Reject:
    """Decode and validate a REJECT body (protocol.md §C2.1): ``game_id`` bin(16),
    ``joiner_pk`` bin(32), ``code`` uint 0..255 (unknown codes are the lobby's business),
    ``host_pk``, ``host_xk`` bin(32). Signed by the host; the joiner checks it. Raises
    ``WireError`` for anything else."""
    gid, jpk, code, hpk, hxk = _array(unpack(body), 5, "reject")
    return Reject(_bin(gid, C.GAME_ID_LEN, "game_id"), _bin(jpk, C.KEY_LEN, "joiner_pk"), _uint(code, 255, "code"),
                  _bin(hpk, C.KEY_LEN, "host_pk"), _bin(hxk, C.KEY_LEN, "host_xk"))


class Leave(NamedTuple):
    """LEAVE body ``[game_id]``: a joiner withdraws before the setup is proposed."""

    game_id: bytes


def decode_leave(body: bytes) -> Leave:
    """Decode and validate a LEAVE body (protocol.md §C2.1): ``[game_id]``, bin(16). The
    envelope is signed by the leaving player's own key, which the caller checks. Raises
    ``WireError`` on a wrong arity or type."""
    (gid,) = _array(unpack(body), 1, "leave")
    return Leave(_bin(gid, C.GAME_ID_LEN, "game_id"))


class Proposal(NamedTuple):
    """PROPOSAL body ``[game_id, setup_bytes, [[host, port]...]]``: the host's proposed setup and
    each seat's UDP endpoint (seat order; endpoints are not signed into the setup)."""

    game_id: bytes
    setup_bytes: bytes
    setup: Setup
    endpoints: tuple


def decode_proposal(body: bytes) -> Proposal:
    """Decode and validate a PROPOSAL body (protocol.md §C2.1, §C2.3): ``game_id`` bin(16),
    ``setup`` bin holding the canonical setup bytes (decoded with ``decode_setup``; its game
    id must equal ``game_id``), and exactly one ``[host: str ≤ MAX_HOST_LEN, port: uint16]``
    per seat, in seat order. ``setup_bytes`` keeps the bytes as received (they are what is
    hashed and signed). Checking the setup against our own entry and the signer is the
    lobby's job. Raises ``WireError`` on any malformed field."""
    gid, sb, eps = _array(unpack(body), 3, "proposal")
    _bin(gid, C.GAME_ID_LEN, "game_id")
    if type(sb) is not bytes:
        raise WireError("setup must be bin")
    setup = decode_setup(sb)
    if setup.game_id != gid:
        raise WireError("proposal game_id differs from the setup's")
    endpoints = []
    for ep in _array(eps, setup.seats, "endpoints"):
        host, port = _array(ep, 2, "endpoint")
        endpoints.append((_str(host, C.MAX_HOST_LEN, "host"), _uint(port, 65535, "port")))
    return Proposal(gid, sb, setup, tuple(endpoints))


class SetupSig(NamedTuple):
    """SETUP_SIG body ``[game_id, seat, setup_hash]`` or, in an edition with hidden
    information, ``[game_id, seat, setup_hash, leaves]``: the seat's signature (the
    envelope's) on the setup hash, and its hidden-information commitment (32-byte leaves
    concatenated, protocol.md §C12.2; None without)."""

    game_id: bytes
    seat: int
    setup_hash: bytes
    leaves: bytes | None = None


def decode_setup_sig(body: bytes) -> SetupSig:
    """Decode and validate a SETUP_SIG body (protocol.md §C2.1, §C12.2): ``game_id`` bin(16),
    ``seat`` 0..7, ``setup_hash`` bin(32), and in an edition with hidden information a 4th
    field ``leaves``, a non-empty bin whose length is a multiple of 32 (``leaves`` is None
    with 3 fields). Raises ``WireError`` on any other arity, type or length."""
    f = unpack(body)
    if type(f) is list and len(f) == 4:
        leaves = f.pop()
        if type(leaves) is not bytes or not leaves or len(leaves) % C.HASH_LEN:
            raise WireError("setup_sig: leaves must be bin of 32-byte leaves")
    else:
        leaves = None
    gid, seat, sh = _array(f, 3, "setup_sig")
    return SetupSig(_bin(gid, C.GAME_ID_LEN, "game_id"), _uint(seat, C.MAX_SEATS - 1, "seat"),
                    _bin(sh, C.HASH_LEN, "setup_hash"), leaves)


class SeedReveal(NamedTuple):
    """SEED body ``[game_id, seat, setup_hash, secret]`` or, in an edition with hidden
    information, ``[game_id, seat, setup_hash, secret, [leaves digest per seat]]``: the seat's
    seed secret, revealed once it holds every seat's setup signature, and what it holds of
    every seat's hidden-information commitment (protocol.md §C12.2; None without)."""

    game_id: bytes
    seat: int
    setup_hash: bytes
    secret: bytes
    commits: tuple | None = None


def decode_seed(body: bytes) -> SeedReveal:
    """Decode and validate a SEED body (protocol.md §C2.1, §C4, §C12.2): ``game_id`` bin(16),
    ``seat`` 0..7, ``setup_hash`` bin(32), ``secret`` bin(32) and, with 5 fields, an array of
    2..8 bin(32) digests. Whether SHA-256(secret) equals the seat's seed commitment, and the
    digests the leaves, is checked by the lobby. Raises ``WireError`` on a wrong arity, type
    or length."""
    f = unpack(body)
    commits = None
    if type(f) is list and len(f) == 5:
        digests = _array(f.pop(), None, "commits")
        if not C.MIN_SEATS <= len(digests) <= C.MAX_SEATS:
            raise WireError("seed: one commitment digest per seat")
        commits = tuple(_bin(d, C.HASH_LEN, "commit digest") for d in digests)
    gid, seat, sh, secret = _array(f, 4, "seed")
    return SeedReveal(_bin(gid, C.GAME_ID_LEN, "game_id"), _uint(seat, C.MAX_SEATS - 1, "seat"),
                      _bin(sh, C.HASH_LEN, "setup_hash"), _bin(secret, C.HASH_LEN, "secret"), commits)


#: Body decoder of each lobby message type.
LOBBY_DECODERS = {
    MSG_JOIN: decode_join,
    MSG_STATUS: decode_status,
    MSG_REJECT: decode_reject,
    MSG_LEAVE: decode_leave,
    MSG_PROPOSAL: decode_proposal,
    MSG_SETUP_SIG: decode_setup_sig,
    MSG_SEED: decode_seed,
}


def setup_hash(setup_bytes: bytes) -> bytes:
    """Setup hash = SHA-256(b"lanopoli/1/setup\\x00" + setup bytes) (protocol.md §C2.3). It is what
    every seat signs (SETUP_SIG) and the ``prev_digest`` of step 0."""
    import hashlib

    return hashlib.sha256(C.HASH_SETUP + setup_bytes).digest()


def engine_options(setup: Setup) -> dict:
    """The setup options meant for the engine: all but the ``p2p.*`` keys (protocol.md §C7.1),
    as a dict for ``engine.new_game``."""
    return {k: v for k, v in setup.options if not k.startswith(C.P2P_OPTION_PREFIX)}


# --- resilience messages (protocol.md §C7-§9) ------------------------------------------------------

class EscrowEntry(NamedTuple):
    """One recipient's part of an ESCROW: ``to`` seat, ``commit`` (32 bytes) and the
    ChaCha20-Poly1305 ciphertext ``ct`` (82 bytes) of the 66-byte share."""

    to: int
    commit: bytes
    ct: bytes


class Escrow(NamedTuple):
    """ESCROW body ``[gid, seat, epoch, [[to, commit, ct], ...]]`` (protocol.md §C8.2)."""

    game_id: bytes
    seat: int
    epoch: int
    entries: tuple


def decode_escrow(body: bytes) -> Escrow:
    """Validate an ESCROW body: entries strictly ascending by recipient, none for the dealer.
    Raises ``WireError``."""
    gid, seat, epoch, entries = _array(unpack(body), 4, "escrow")
    _bin(gid, C.GAME_ID_LEN, "game_id")
    _uint(seat, C.MAX_SEATS - 1, "seat")
    _uint(epoch, C.MAX_SEATS, "epoch")
    out = []
    for e in _array(entries, None, "entries"):
        to, commit, ct = _array(e, 3, "entry")
        out.append(EscrowEntry(_uint(to, C.MAX_SEATS - 1, "to"), _bin(commit, C.HASH_LEN, "commit"),
                               _bin(ct, C.SHARE_LEN + 16, "ciphertext")))
    if len(out) > C.MAX_SEATS - 1 or any(a.to >= b.to for a, b in zip(out, out[1:])) \
            or any(e.to == seat for e in out):
        raise WireError("escrow entries must be ascending, unique and not for the dealer")
    return Escrow(gid, seat, epoch, tuple(out))


class DropVote(NamedTuple):
    """DROP body ``[gid, voter, step, seat, epoch, share]``: ``voter`` has not received
    ``seat``'s message of ``step`` within the drop timeout; ``share`` is the voter's escrow
    share of ``seat`` (``SHARE_LEN`` = 66 bytes, a Shamir share) or nil (protocol.md §C8.3)."""

    game_id: bytes
    voter: int
    step: int
    seat: int
    epoch: int
    share: bytes | None


def decode_drop(body: bytes) -> DropVote:
    """Validate a DROP body. Raises ``WireError``."""
    gid, voter, step, seat, epoch, share = _array(unpack(body), 6, "drop")
    if share is not None:
        _bin(share, C.SHARE_LEN, "share")
    if voter == seat:
        raise WireError("a seat cannot vote to drop itself")
    return DropVote(_bin(gid, C.GAME_ID_LEN, "game_id"), _uint(voter, C.MAX_SEATS - 1, "voter"),
                    _uint(step, C.MAX_STEP, "step"), _uint(seat, C.MAX_SEATS - 1, "seat"),
                    _uint(epoch, C.MAX_SEATS, "epoch"), share)


class CatchupRequest(NamedTuple):
    """CATCHUP_REQ body ``[gid, seat, from_step, to_step]``: ``seat`` asks for the log
    records of steps ``from_step <= s < to_step`` (protocol.md §C9.1)."""

    game_id: bytes
    seat: int
    from_step: int
    to_step: int


def decode_catchup_req(body: bytes) -> CatchupRequest:
    """Validate a CATCHUP_REQ body (``from_step < to_step``). Raises ``WireError``."""
    gid, seat, a, b = _array(unpack(body), 4, "catchup_req")
    _uint(a, C.MAX_STEP, "from_step")
    _uint(b, C.MAX_STEP, "to_step")
    if not a < b:
        raise WireError("catch-up range is empty")
    return CatchupRequest(_bin(gid, C.GAME_ID_LEN, "game_id"), _uint(seat, C.MAX_SEATS - 1, "seat"), a, b)


class CatchupResponse(NamedTuple):
    """CATCHUP_RESP body ``[gid, seat, from_step, head_step, [[kind, payload], ...],
    [STEP envelope, ...], [ESCROW envelope, ...]]`` (protocol.md §C9.2): log records from
    ``from_step`` on, the responder's current step, the step messages it holds for that step
    and the escrows of the current epoch it holds."""

    game_id: bytes
    seat: int
    from_step: int
    head_step: int
    records: tuple
    pending: tuple
    escrows: tuple


def decode_catchup_resp(body: bytes) -> CatchupResponse:
    """Validate a CATCHUP_RESP body (structure only: the records are verified by the session
    exactly like live messages). Raises ``WireError``."""
    f = unpack(body, big=True)
    gid, seat, a, head, records, pending, escrows = _array(f, 7, "catchup_resp")
    recs = []
    for r in _array(records, None, "records"):
        kind, payload = _array(r, 2, "record")
        _uint(kind, 255, "kind")
        if type(payload) is not bytes or len(payload) > C.MAX_CATCHUP_MSG:
            raise WireError("record payload must be bin")
        recs.append((kind, payload))
    if len(recs) > C.CATCHUP_MAX_RECORDS:
        raise WireError("too many records")
    lists = []
    for lst, what in ((pending, "pending"), (escrows, "escrows")):
        lst = _array(lst, None, what)
        if len(lst) > C.MAX_SEATS or any(type(x) is not bytes or len(x) > C.MAX_STEP_MSG for x in lst):
            raise WireError(f"{what}: expected at most {C.MAX_SEATS} envelopes")
        lists.append(tuple(lst))
    return CatchupResponse(_bin(gid, C.GAME_ID_LEN, "game_id"), _uint(seat, C.MAX_SEATS - 1, "seat"),
                           _uint(a, C.MAX_STEP, "from_step"), _uint(head, C.MAX_STEP, "head_step"),
                           tuple(recs), lists[0], lists[1])


class Hint(NamedTuple):
    """HINT body ``[gid, seat, step]``: ``seat`` is collecting ``step`` (protocol.md §C9.3)."""

    game_id: bytes
    seat: int
    step: int


def decode_hint(body: bytes) -> Hint:
    """Validate a HINT body. Raises ``WireError``."""
    gid, seat, step = _array(unpack(body), 3, "hint")
    return Hint(_bin(gid, C.GAME_ID_LEN, "game_id"), _uint(seat, C.MAX_SEATS - 1, "seat"),
                _uint(step, C.MAX_STEP, "step"))


def decode_alive(body: bytes) -> Hint:
    """Validate an ALIVE body ``[gid, seat, step]``: ``seat`` is alive and has not sent its
    message of ``step`` yet (protocol.md §C8.3). Same schema as HINT. Raises ``WireError``."""
    return decode_hint(body)


class Abandon(NamedTuple):
    """ABANDON body ``[gid, seat, step, prev_hash, prev_digest]``: ``seat`` ends the game at
    ``step`` as abandoned (no winner), having applied every step before it (state hash
    ``prev_hash``, digest ``prev_digest``; protocol.md §C8.7)."""

    game_id: bytes
    seat: int
    step: int
    prev_hash: bytes
    prev_digest: bytes


def decode_abandon(body: bytes) -> Abandon:
    """Validate an ABANDON body. Raises ``WireError``."""
    gid, seat, step, h, d = _array(unpack(body), 5, "abandon")
    return Abandon(_bin(gid, C.GAME_ID_LEN, "game_id"), _uint(seat, C.MAX_SEATS - 1, "seat"),
                   _uint(step, C.MAX_STEP, "step"), _bin(h, C.HASH_LEN, "prev_hash"),
                   _bin(d, C.HASH_LEN, "prev_digest"))


class ReseatRequest(NamedTuple):
    """RESEAT body ``[gid, seat, dropped_at, chain_head]``: the player of dropped ``seat`` (its
    drop record is at step ``dropped_at``) asks to play it again with a fresh hash chain whose
    head is ``chain_head`` (protocol.md §C8.9)."""

    game_id: bytes
    seat: int
    dropped_at: int
    chain_head: bytes


def decode_reseat(body: bytes) -> ReseatRequest:
    """Validate a RESEAT body. Raises ``WireError``."""
    gid, seat, at, head = _array(unpack(body), 4, "reseat")
    return ReseatRequest(_bin(gid, C.GAME_ID_LEN, "game_id"), _uint(seat, C.MAX_SEATS - 1, "seat"),
                         _uint(at, C.MAX_STEP, "dropped_at"), _bin(head, C.HASH_LEN, "chain_head"))


class ComplaintMsg(NamedTuple):
    """COMPLAINT body ``[gid, seat, step, culprit, kind, [evidence envelope, ...], key]``:
    ``seat`` (the complainer, at ``step``) shows every seat signed evidence that ``culprit``
    broke the protocol; ``kind`` 1 equivocation (two envelopes), 2 bad step message (one
    STEP), 3 bad escrow (one ESCROW; ``key``: the 32-byte pairwise share key, or nil when the
    entries alone are wrong). Protocol.md §C8.8."""

    game_id: bytes
    seat: int
    step: int
    culprit: int
    kind: int
    evidence: tuple
    key: bytes | None


def decode_complaint(body: bytes) -> ComplaintMsg:
    """Validate a COMPLAINT body (structure only: the evidence is checked by the session and
    ``p2p.complaints``). Raises ``WireError``."""
    gid, seat, step, culprit, kind, evidence, key = _array(unpack(body), 7, "complaint")
    ev = _array(evidence, None, "evidence")
    if not 1 <= len(ev) <= 2 or any(type(x) is not bytes or len(x) > C.MAX_STEP_MSG for x in ev):
        raise WireError("evidence: one or two envelopes")
    if key is not None:
        _bin(key, C.HASH_LEN, "key")
    seat = _uint(seat, C.MAX_SEATS - 1, "seat")
    culprit = _uint(culprit, C.MAX_SEATS - 1, "culprit")
    if seat == culprit:
        raise WireError("a seat cannot complain about itself")
    return ComplaintMsg(_bin(gid, C.GAME_ID_LEN, "game_id"), seat, _uint(step, C.MAX_STEP, "step"), culprit,
                        _uint(kind, 3, "kind", 1), tuple(ev), key)

