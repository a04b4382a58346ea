"""REJECT: the host's refusal of one JOIN, and which REJECT a joiner believes (protocol.md §C2.1,
§N3.1; version 6).

A REJECT carries ``answers`` = SHA-256(``b"lanopoli/1/reject-answers\\x00"`` + the envelope bytes
of the JOIN or PROBE it answers). A joiner believes a REJECT only if it answers a JOIN it sent in
its current attempt (this ``Lobby``): every attempt's JOIN bytes are fresh (its chain head and
seed commitment are new random secrets; a PROBE too), so a REJECT the host once signed for an
old PROBE of ours, replayed or spoofed from the host's address, answers nothing we sent now and is
dropped (``stale_reject``; H156 BREAK #2, ``tests/p2p/test_redteam_s14_code.py``).

``JoinAnswers`` holds both sides' state (one per lobby, held by ``Admission``): host — the hash
of the last JOIN it accepted from each member (what a removal REJECT answers, §C2.2 step 7);
joiner — the hashes of the JOINs it sent in this attempt (the last ``SENT_KEPT``). Sans-I/O.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any

from . import const as C
from .wire import MSG_REJECT, Reject, seal_message

#: English text of each REJECT code (protocol.md §C2.1); ui translates it.
REJECT_TEXT = {
    C.REJECT_FULL: "the lobby is full",
    C.REJECT_VERSION: "protocol version mismatch",
    C.REJECT_OTHER_KEYS: "already joined with other keys",
}

#: Joiner: how many distinct JOINs of this attempt a REJECT may answer (one per setup round, the
#: PROBE; the oldest forgotten first: a REJECT answers a JOIN the host just got).
SENT_KEPT = 16


def answers_hash(join_raw: bytes) -> bytes:
    """REJECT's ``answers`` (32 bytes) for the JOIN/PROBE envelope bytes ``join_raw`` (§C2.1)."""
    return hashlib.sha256(C.HASH_REJECT_ANSWERS + join_raw).digest()


class JoinAnswers:
    """Which JOIN a REJECT answers. Host: ``accepted(pk, raw)`` for each JOIN it takes,
    ``reject_msg`` builds a REJECT answering given bytes or the member's last JOIN. Joiner:
    ``sent(raw)`` for each JOIN/PROBE it sends, ``believes(reject)``."""

    def __init__(self) -> None:
        self._last: dict[bytes, bytes] = {}  # host: member pk -> answers_hash of its last accepted JOIN
        self._sent: OrderedDict[bytes, None] = OrderedDict()  # joiner: hashes of our JOINs, this attempt

    def accepted(self, pk: bytes, join_raw: bytes) -> None:
        """Host: we took the JOIN ``join_raw`` of member ``pk`` (seated, refreshed or moved)."""
        self._last[pk] = answers_hash(join_raw)

    def forget(self, pk: bytes) -> None:
        """Host: ``pk`` left or was removed (after its last REJECT was built)."""
        self._last.pop(pk, None)

    def reject_msg(self, identity: Any, game_id: bytes, joiner_pk: bytes, code: int,
                   join_raw: bytes | None = None) -> bytes:
        """Host: our signed REJECT (code ``code``) of ``joiner_pk``, answering ``join_raw`` (the
        JOIN/PROBE envelope we refuse) or, None, the last JOIN we accepted from that member
        (a removal, §C2.2 step 7; 32 zero bytes if none: it answers nothing)."""
        h = answers_hash(join_raw) if join_raw is not None else self._last.get(joiner_pk, bytes(C.HASH_LEN))
        return seal_message(identity, MSG_REJECT, Reject(game_id, joiner_pk, code, identity.public_key,
                                                         identity.x25519_public_key, h))

    def sent(self, join_raw: bytes) -> bytes:
        """Joiner: we send ``join_raw`` (a JOIN or PROBE envelope); returns it."""
        h = answers_hash(join_raw)
        self._sent[h] = None
        self._sent.move_to_end(h)
        while len(self._sent) > SENT_KEPT:
            self._sent.popitem(last=False)
        return join_raw

    def new_round(self) -> None:
        """Joiner, a new round (§C2.2 step 7): our JOINs of earlier rounds are superseded."""
        self._sent.clear()

    def believes(self, reject: Any) -> bool:
        """Joiner: whether the REJECT body ``reject`` answers a JOIN we sent in this attempt."""
        return reject.answers in self._sent
