"""Canonical encoding of the state, its hash, and the event encoding.

``encode_state``: msgpack (``use_bin_type=True``) of one array, no maps, fields in the order of
``_SCALARS`` then ``_LISTS`` then ``_NESTED`` (engine.state), preceded by the format version (see
protocol.md part E "State encoding"). ``state_hash`` = SHA-256 of those bytes.
``decode_state`` rebuilds an identical state and raises ValueError on anything malformed.
"""
from __future__ import annotations

from hashlib import sha256

import msgpack

from .editions import EDITIONS
# The field order and encode_state live with the layout they encode (engine.state: State.__eq__
# compares encodings, and state must not import this module back); re-exported here.
from .state import _LISTS, _NESTED, _SCALARS, PHASE_NAMES, STATE_FORMAT, State, encode_state

__all__ = ["encode_state", "decode_state", "state_hash", "STATE_FORMAT"]

def state_hash(s: State) -> bytes:
    """32 bytes: SHA-256 of ``encode_state(s)``."""
    return sha256(encode_state(s)).digest()


def _ints(v, what: str, depth: int = 1):
    if depth == 0:
        if type(v) is not int:
            raise ValueError(f"{what}: expected int")
        return v
    if not isinstance(v, list):
        raise ValueError(f"{what}: expected array")
    return [_ints(x, what, depth - 1) if not isinstance(x, list) or depth > 1 else
            _fail(what) for x in v]


def _fail(what: str):
    raise ValueError(f"{what}: bad nesting")


def _tree(v, what: str):
    """Ints and arrays of ints only (for the nested fields)."""
    if type(v) is int:
        return v
    if isinstance(v, list):
        return [_tree(x, what) for x in v]
    raise ValueError(f"{what}: only ints and arrays allowed")


def decode_state(b: bytes) -> State:
    """Inverse of ``encode_state``. Raises ValueError on malformed input."""
    try:
        obj = msgpack.unpackb(b, raw=False, strict_map_key=True, use_list=True)
    except Exception as e:  # msgpack raises several types
        raise ValueError(f"not msgpack: {e}") from None
    n_fields = 2 + len(_SCALARS) + len(_LISTS) + len(_NESTED)
    if not isinstance(obj, list) or len(obj) != n_fields:
        raise ValueError("state must be an array of the right length")
    if obj[0] != STATE_FORMAT or type(obj[0]) is not int:
        raise ValueError("unknown state format")
    ed = EDITIONS.get(obj[1]) if isinstance(obj[1], str) else None
    if ed is None:
        raise ValueError("unknown edition")
    s = State.__new__(State)
    s.edition = ed.name
    s.ed = ed
    s.tb = ed.tables
    i = 2
    for f in _SCALARS:
        setattr(s, f, _ints(obj[i], f, 0))
        i += 1
    for f in _LISTS:
        setattr(s, f, _ints(obj[i], f, 1))
        i += 1
    for f in _NESTED:
        v = _tree(obj[i], f)
        if not isinstance(v, list):
            raise ValueError(f"{f}: expected array")
        setattr(s, f, v)
        i += 1
    n = s.n
    nsq = ed.tables.nsq
    if not ed.min_players <= n <= ed.max_players:
        raise ValueError("bad seat count")
    if not 0 <= s.phase < len(PHASE_NAMES):
        raise ValueError("bad phase")
    for f in ("cash", "pos", "jail", "out", "auc_in", "auc_target"):
        if len(getattr(s, f)) != n:
            raise ValueError(f"{f}: one entry per seat")
    for f in ("owner", "level", "mort"):
        if len(getattr(s, f)) != nsq:
            raise ValueError(f"{f}: one entry per square")
    if len(s.opts) != 4:
        raise ValueError("opts: four entries")
    if len(s.held) != n or len(s.decks) != len(ed.decks) or len(s.undrawn) != len(ed.decks):
        raise ValueError("held/decks: wrong length")
    if encode_state(s) != bytes(b):
        raise ValueError("not the canonical encoding")
    return s
