"""The lying seat of the authentication red teams (tests/p2p/test_redteam_auth.py,
test_redteam_forced*.py; protocol.md §N2.2, §C3.4, §C3.8): ``KeyedNet``, whose liar puts any
bytes on its own keyed channel (its MAC is valid whatever it sends), and the helpers that garble
an envelope's signature or read a STEP body. Not a test module."""

from __future__ import annotations

from p2p import const as C
from p2p.lockstep import GameOver
from p2p.wire import MSG_CATCHUP_RESP, MSG_STEP, decode_step_body, open_envelope

from p2p_harness import Net

STEP_TAG = bytes([0x93, MSG_STEP])
CATCHUP_RESP_TAG = bytes([0x93, MSG_CATCHUP_RESP])


def garbled(raw: bytes) -> bytes:
    """``raw`` (an envelope) with the same body and a signature that does not verify."""
    env = open_envelope(raw, C.MAX_CATCHUP_MSG)
    return raw[:len(raw) - len(env.sig)] + bytes(b ^ 0x5A for b in env.sig)


def step_of(raw: bytes):
    """The decoded STEP body of the envelope ``raw``."""
    return decode_step_body(open_envelope(raw, C.MAX_STEP_MSG).body)


class KeyedNet(Net):
    """``Net`` over keyed channels: ``lie(src, dst, raw)`` returns what the lying seat puts on
    its own channel to ``dst`` instead of ``raw`` (its MAC is valid whatever it sends), or None
    to send ``raw`` unchanged."""

    def __init__(self, sessions, choose, lie=None, **kw):
        super().__init__(sessions, choose, **kw)
        self.lie = lie or (lambda src, dst, raw: None)
        self.lies: list[tuple[int, int, bytes]] = []

    def send_to(self, src, dst, raw):
        j = self.s.index(dst)
        out = self.lie(src, j, raw) if raw[:2] == STEP_TAG else None
        if out is not None:
            self.lies.append((src, j, out))
            raw = out
        dst.receive_message(raw, self.now)


def final_hashes(net, seats):
    """The final state hashes the ``seats`` of ``net`` reported (one when they agree)."""
    return {e.final_hash for i in seats for e in net.events[i] if isinstance(e, GameOver)}
