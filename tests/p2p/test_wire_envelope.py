"""``wire.open_envelope`` recognises the canonical envelope by its bytes (issue 14 fast path):
it must give exactly what the general rule (unpack, check, re-encode, compare) gives, on good
envelopes and on any damaged or non-canonical byte string (protocol.md §C1)."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p import const as C
from p2p.errors import WireError
from p2p.envelope import DOMAINS, MAX_SIZE, MSG_CATCHUP_RESP, MSG_STEP, _open_general, open_envelope

TYPES = sorted(DOMAINS)


def outcome(fn, data: bytes, max_size: int):
    """(kind, value): the envelope's fields, or the WireError."""
    try:
        e = fn(data, max_size)
    except WireError:
        return "error"
    return (e.mtype, e.body, e.sig, e.raw, type(e.raw))


def same(data: bytes, max_size: int = C.MAX_CATCHUP_MSG) -> None:
    assert outcome(open_envelope, data, max_size) == outcome(_open_general, data, max_size)


@given(st.sampled_from(TYPES), st.binary(max_size=1100), st.binary(min_size=64, max_size=64))
def test_a_canonical_envelope_opens_as_by_the_general_rule(mtype, body, sig):
    data = msgpack.packb([mtype, body, sig], use_bin_type=True)
    same(data)
    same(data, C.MAX_LOBBY_MSG)
    if len(data) <= MAX_SIZE[mtype]:
        env = open_envelope(data, C.MAX_CATCHUP_MSG)
        assert (env.mtype, env.body, env.sig, env.raw) == (mtype, body, sig, data)


@given(st.sampled_from(TYPES), st.binary(max_size=600), st.binary(min_size=64, max_size=64),
       st.data())
def test_any_damage_is_judged_as_by_the_general_rule(mtype, body, sig, draw):
    """Flip, cut or extend the bytes anywhere: same envelope or WireError on both paths."""
    data = bytearray(msgpack.packb([mtype, body, sig], use_bin_type=True))
    i = draw.draw(st.integers(0, len(data) - 1))
    how = draw.draw(st.sampled_from(["set", "cut", "add"]))
    if how == "set":
        data[i] = draw.draw(st.integers(0, 255))
    elif how == "cut":
        del data[i]
    else:
        data.insert(i, draw.draw(st.integers(0, 255)))
    same(bytes(data))
    same(bytes(data), C.MAX_LOBBY_MSG)


@pytest.mark.parametrize("size", [0, 1, 255, 256, 300, 65535 - 80])
def test_the_non_canonical_forms_are_refused(size):
    """bin16/bin32 headers for a body bin8 would hold, a str body, a uint8 type, and the
    signature as bin16: each refused (non-canonical or malformed) as before."""
    body, sig = b"b" * size, b"s" * 64
    bin16 = b"\xc5" + size.to_bytes(2, "big") + body
    bin32 = b"\xc6" + size.to_bytes(4, "big") + body
    sig8 = b"\xc4\x40" + sig
    forms = [b"\x93\x10" + bin32 + sig8, b"\x93\xcc\x10" + b"\xc4" + bytes([min(size, 255)]) + body[:255] + sig8,
             b"\x93\x10" + b"\xc4" + bytes([min(size, 255)]) + body[:255] + b"\xc5\x00\x40" + sig]
    if size < 256:
        forms.append(b"\x93\x10" + bin16 + sig8)
    for data in forms:
        same(data)
        with pytest.raises(WireError):
            open_envelope(data, C.MAX_CATCHUP_MSG)


def test_size_limits_hold_on_the_fast_path():
    body, sig = b"x" * 1200, b"s" * 64
    data = msgpack.packb([MSG_STEP, body, sig], use_bin_type=True)
    with pytest.raises(WireError, match="size limit of its type"):
        open_envelope(data, C.MAX_CATCHUP_MSG)  # over MAX_STEP_MSG
    with pytest.raises(WireError, match="over the 1000 limit"):
        open_envelope(data, 1000)
    big = msgpack.packb([MSG_CATCHUP_RESP, b"y" * 60000, sig], use_bin_type=True)
    assert open_envelope(big, C.MAX_CATCHUP_MSG).body == b"y" * 60000
    assert open_envelope(bytearray(big), C.MAX_CATCHUP_MSG).raw == big
