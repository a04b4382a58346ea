"""The forced body of a plain chance step (protocol.md §C3.8, p2p/forced.py): what is forced,
and that nothing else passes for it."""

from __future__ import annotations

import hashlib

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.bodies import EscrowAck, StepBody
from p2p.errors import WireError
from p2p.forced import forced_body, is_forced, other_fields, plain_chance
from p2p.schema import pack
from p2p.wire import decode_step_body, encode_step

GID, H, D = b"g" * 16, b"h" * 32, b"d" * 32
SECRET = b"s" * 32
REVEAL = hashlib.sha256(SECRET).digest()  # the seat's next reveal ...
HEAD = hashlib.sha256(REVEAL).digest()  # ... hashes to its previous one (its chain head here)


def forced(step: int = 7, seat: int = 2, reveal: bytes = REVEAL) -> tuple[bytes, StepBody]:
    body = forced_body(GID, step, seat, H, D, reveal)
    return body, decode_step_body(body)


def test_plain_chance_is_a_chance_step_without_escrow_hidden_information_or_end():
    """§C3.8: only a chance step that is not an escrow round (§C8.2), in a game without hidden
    information (§C12), and not the final attestation (§C3.5)."""
    assert plain_chance(True, False, False, False)
    assert not plain_chance(False, False, False, False)
    assert not plain_chance(True, True, False, False)
    assert not plain_chance(True, False, True, False)
    assert not plain_chance(True, False, False, True)


def test_the_forced_body_is_the_six_field_step_body():
    """§C3.1: the same bytes a seat's own encoder makes for its reveal."""
    body, b = forced()
    assert body == encode_step(StepBody(GID, 7, 2, H, D, REVEAL))
    assert len(msgpack.unpackb(body)) == 6
    assert is_forced(body, b, H, D, HEAD)


def test_a_wrong_reveal_or_another_history_is_not_forced():
    """§C3.8 and §C4: the reveal must hash to the seat's previous reveal, the history be ours."""
    body, b = forced(reveal=b"x" * 32)
    assert not is_forced(body, b, H, D, HEAD)
    body, b = forced()
    assert not is_forced(body, b, b"o" * 32, D, HEAD)
    assert not is_forced(body, b, H, b"o" * 32, HEAD)
    assert not is_forced(body, b, H, D, REVEAL)  # a replayed reveal: its hash is not the head


def test_a_body_with_any_other_field_is_not_forced():
    """§C3.8: acks, re-seat requests and a hidden field are choices; a 7th field, even nil, is
    other bytes."""
    for b in (StepBody(GID, 7, 2, H, D, REVEAL, None, (), (EscrowAck(0, 1, b"e" * 32),)),):
        body = encode_step(b)
        assert not is_forced(body, decode_step_body(body), H, D, HEAD)
    with pytest.raises(WireError):  # a trailing nil field never decodes (§C3.1)
        decode_step_body(pack([GID, 7, 2, H, D, REVEAL, None]))


def test_a_decision_input_is_not_forced():
    """Nil or an action is a seat's choice: only a reveal can be forced."""
    for inp in (None, [1, 2]):
        body = encode_step(StepBody(GID, 7, 2, H, D, inp))
        assert not is_forced(body, decode_step_body(body), H, D, HEAD)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**40), st.integers(0, 7), st.binary(min_size=32, max_size=32), st.data())
def test_only_the_forced_bytes_pass(step, seat, secret, data):
    """Property (§C3.8): over one history, for one seat and step, exactly one body is forced —
    changing any byte of it either breaks the decoding or makes it not forced."""
    reveal = hashlib.sha256(secret).digest()
    head = hashlib.sha256(reveal).digest()
    body = forced_body(GID, step, seat, H, D, reveal)
    b = decode_step_body(body)
    assert is_forced(body, b, H, D, head)
    i = data.draw(st.integers(0, len(body) - 1))
    x = data.draw(st.integers(1, 255))
    other = body[:i] + bytes([body[i] ^ x]) + body[i + 1:]
    try:
        ob = decode_step_body(other)
    except WireError:
        return
    if (ob.game_id, ob.step, ob.seat) != (GID, step, seat):
        return  # the caller checks game, step and seat; another seat's body is another slot
    assert not is_forced(other, ob, H, D, head)


def test_other_fields_are_a_bodys_fields_beyond_the_six_over_that_history():
    """§C3.8: acks, re-seat requests or a hidden field over the history are refused at a plain
    chance step; a 6-field body (the forced one, a wrong reveal, nil) or one over another
    history is not 'other fields' (the apply, or the history rules, judge it)."""
    ack = (EscrowAck(0, 1, b"e" * 32),)
    for b in (StepBody(GID, 7, 2, H, D, REVEAL, None, (), ack), StepBody(GID, 7, 2, H, D, REVEAL, None, (b"r",))):
        body = encode_step(b)
        assert other_fields(body, decode_step_body(body), H, D)
        assert not other_fields(body, decode_step_body(body), b"o" * 32, D)
        assert not other_fields(body, decode_step_body(body), H, b"o" * 32)
    for inp in (REVEAL, b"x" * 32, None, [1, 2]):
        body = encode_step(StepBody(GID, 7, 2, H, D, inp))
        assert not other_fields(body, decode_step_body(body), H, D)
