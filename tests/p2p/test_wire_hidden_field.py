"""The STEP body's hidden field is checked by its wire schema (protocol.md §C12.4): a malformed
one is a ``WireError`` before anything reaches the hidden ledger (p2p/wire.py
``check_hidden_field``)."""
from __future__ import annotations

import msgpack
import pytest

from p2p import const as C
from p2p.errors import WireError
from p2p.wire import decode_step_body

GID = bytes(16)
H = bytes(32)
DELIVERY = bytes(C.HIDDEN_TAG_LEN + 2 * C.HIDDEN_OPEN_LEN)  # two openings and the AEAD tag


def body(hidden) -> bytes:
    return msgpack.packb([GID, 5, 1, H, H, None, hidden], use_bin_type=True)


def test_a_well_formed_hidden_field_is_decoded() -> None:
    field = [[[0, DELIVERY], [2, DELIVERY]], bytes(3 * C.HIDDEN_OPEN_LEN), [3, H]]
    assert decode_step_body(body(field)).hidden == ([[0, DELIVERY], [2, DELIVERY]], bytes(48), [3, H])


@pytest.mark.parametrize("field", [
    [[], b""],                                            # two elements, not three
    [[[1, DELIVERY], [0, DELIVERY]], b"", None],          # receivers not ascending
    [[[1, DELIVERY[:-1]]], b"", None],                    # a partial opening
    [[[1, bytes(C.HIDDEN_TAG_LEN)]], b"", None],          # a tag and no opening
    [[[8, DELIVERY]], b"", None],                         # no seat 8
    [[[i, DELIVERY] for i in range(C.MAX_SEATS)], b"", None],  # more receivers than other seats
    [[], bytes(C.HIDDEN_OPEN_LEN + 1), None],             # openings not whole
    [[], b"", [0, bytes(31)]],                            # complaint key not 32 bytes
    [[], b"", [C.MAX_SEATS, H]],                          # complaint against no seat
    [[], "openings", None],                               # str, not bin
])
def test_a_malformed_hidden_field_is_a_wire_error(field) -> None:
    with pytest.raises(WireError):
        decode_step_body(body(field))
