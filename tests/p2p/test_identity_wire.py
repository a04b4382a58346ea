"""Identity (keys, domain-separated signatures, storage) and the strict wire format
(protocol.md §C1-§2)."""

from __future__ import annotations

import os
import stat

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p import const as C
from p2p.errors import LocalProtocolError, WireError
from p2p.identity import Identity, signed_bytes, verify
from p2p.wire import (MSG_STEP, SETUP, Player, Setup, decode_setup, decode_step_body, open_envelope, pack, seal,
                      unpack)

GID = bytes(range(16))
H = b"\x11" * 32


def test_from_seed_is_deterministic_and_distinct():
    a, b, c = Identity.from_seed(b"x"), Identity.from_seed(b"x"), Identity.from_seed(b"y")
    assert a.public_key == b.public_key != c.public_key
    assert len(a.public_key) == 32 and len(a.x25519_public_key) == 32
    assert len(a.fingerprint) == 16 and int(a.fingerprint, 16) >= 0


def test_signature_is_domain_separated():
    ident = Identity.from_seed(b"x")
    sig = ident.sign(b"step", b"body")
    assert len(sig) == 64
    assert verify(ident.public_key, b"step", b"body", sig)
    assert not verify(ident.public_key, b"join", b"body", sig)  # another message type
    assert not verify(ident.public_key, b"step", b"bodx", sig)
    assert not verify(Identity.from_seed(b"y").public_key, b"step", b"body", sig)
    assert not verify(ident.public_key[:31], b"step", b"body", sig)
    assert not verify(b"\xff" * 32, b"step", b"body", sig)  # not a curve point: False, no raise
    assert signed_bytes(b"step", b"body") == b"lanopoli/1/step\x00body"


def test_load_or_create_persists_with_private_mode(tmp_path):
    d = tmp_path / "cfg"
    first = Identity.load_or_create(d)
    again = Identity.load_or_create(d)
    assert first.public_key == again.public_key
    assert first.x25519_public_key == again.x25519_public_key
    for name in ("ed25519.key", "x25519.key"):
        assert stat.S_IMODE(os.stat(d / name).st_mode) == 0o600


def test_corrupted_key_file_is_not_replaced(tmp_path):
    Identity.load_or_create(tmp_path)
    (tmp_path / "ed25519.key").write_bytes(b"short")
    with pytest.raises(ValueError):
        Identity.load_or_create(tmp_path)
    assert (tmp_path / "ed25519.key").read_bytes() == b"short"


def _step_env(inp=None, **over):
    f = dict(gid=GID, step=3, seat=1, ph=H, pd=H, inp=inp)
    f.update(over)
    return seal(Identity.from_seed(b"x"), MSG_STEP, [f["gid"], f["step"], f["seat"], f["ph"], f["pd"], f["inp"]])


def test_step_message_round_trip_and_signature():
    ident = Identity.from_seed(b"x")
    raw = _step_env(["adv", 3])
    env = open_envelope(raw, C.MAX_STEP_MSG)
    b = decode_step_body(env.body)
    assert (b.game_id, b.step, b.seat, b.prev_hash, b.input) == (GID, 3, 1, H, ["adv", 3])
    assert env.verify(ident.public_key)


@pytest.mark.parametrize("bad", [
    dict(gid=b"short"), dict(step=-1), dict(step=C.MAX_STEP + 1), dict(seat=C.MAX_SEATS), dict(ph=H[:31]),
    dict(pd="x" * 32), dict(inp=b"\x00" * 31), dict(inp=1.5), dict(inp=["adv", 1.0]), dict(inp=5),
    dict(inp=[[[[[[[["deep"]]]]]]]]), dict(inp=list(range(C.MAX_ACTION_ITEMS + 1))), dict(seat=True),
])
def test_step_body_rejects_bad_fields(bad):
    env = open_envelope(_step_env(**bad), C.MAX_LOBBY_MSG)
    with pytest.raises(WireError):
        decode_step_body(env.body)


def test_non_canonical_encodings_are_rejected():
    assert unpack(pack([1, b"x"])) == [1, b"x"]
    with pytest.raises(WireError):
        unpack(b"\x91\xcd\x00\x01")  # [1] with 1 as uint16: not the shortest form
    with pytest.raises(WireError):
        unpack(pack([1]) + b"\x00")  # trailing bytes
    with pytest.raises(WireError):
        unpack(msgpack.packb({"a": 1}))  # maps are never in a schema
    with pytest.raises(WireError):
        unpack(msgpack.packb([msgpack.ExtType(1, b"x")]))  # no ext types
    with pytest.raises(WireError):
        unpack(b"\xc1")  # reserved byte


def test_envelope_limits():
    raw = _step_env(None)
    with pytest.raises(WireError):
        open_envelope(raw + b"\x00", C.MAX_STEP_MSG)
    with pytest.raises(WireError):
        open_envelope(pack([99, b"", b"\x00" * 64]))  # unknown type
    with pytest.raises(WireError):
        open_envelope(pack([MSG_STEP, b"x", b"\x00" * 63]))  # short signature
    with pytest.raises(WireError):
        open_envelope(pack([MSG_STEP, b"x" * 1300, b"\x00" * 64]))  # over the step size limit


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_only_ever_raise_wire_error(data):
    try:
        env = open_envelope(data, C.MAX_STEP_MSG)
        decode_step_body(env.body)
    except WireError:
        pass


def test_setup_requires_players_ascending_by_public_key():
    ps = sorted((Player(Identity.from_seed(bytes([i])).public_key, H, f"p{i}", H, H, False, (f"10.0.0.{i + 1}", 5000))
                 for i in range(3)))
    good = Setup(1, GID, "race", 3, 16, (("target", 9),), tuple(ps))
    assert decode_setup(good.encode()) == good
    swapped = good._replace(players=(ps[1], ps[0], ps[2]))
    with pytest.raises(WireError):  # as a hostile host would send it (our encoder refuses it)
        decode_setup(pack(SETUP.to_wire(swapped)))
    dup = good._replace(players=(ps[0], ps[0], ps[2]))
    with pytest.raises(WireError):
        decode_setup(pack(SETUP.to_wire(dup)))
    with pytest.raises(LocalProtocolError):
        dup.encode()
