"""The evidence pair (p2p/schema.py ``EVIDENCE_PAIR``): what a halted session keeps as
``CheatDetected.evidence`` when two signed messages prove the fault (protocol.md §C13.3 a wrong
sealed opening; §C12.4 a settled delivery complaint). Declared once as a table; these tests
check that it is the same bytes as the hand-built ``pack([earlier, message])`` it replaced, and
that what a halted peer writes to its evidence file decodes to the culprit's two messages."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

import engine as E
from p2p import const as C
from p2p.lockstep import CheatDetected
from p2p.node_resume import write_evidence
from p2p.schema import EVIDENCE_PAIR, EvidencePair, pack
from p2p.wire import decode_step_body, open_envelope

from p2p_harness import Net, make_lobbies, pump_lobbies


@given(st.binary(max_size=C.MAX_STEP_MSG), st.binary(max_size=C.MAX_STEP_MSG))
def test_the_table_encodes_the_bytes_of_the_hand_built_pair(earlier, message):
    body = EVIDENCE_PAIR.encode(EvidencePair(earlier, message))
    assert body == pack([earlier, message])
    assert EVIDENCE_PAIR.decode(body) == (earlier, message)


def test_a_wrong_opening_leaves_an_evidence_file_with_the_culprits_two_steps(tmp_path):
    """Seat 2 opens its bid with another salt than it committed to; seat loss is off, so every other peer
    halts with CheatDetected. The evidence file each writes (``session.dump()`` as the node's
    watchdog does) decodes with EVIDENCE_PAIR to seat 2's signed commit-step and open-step
    STEP messages."""
    lobbies = make_lobbies(3, edition="classico")
    pump_lobbies(lobbies)
    sessions = [lob.start_session(E) for lob in sorted(lobbies.values(), key=lambda lob: lob.my_seat)]
    liar, lied = sessions[2], []
    honest_opening = liar.sealed.opening

    def other_salt():  # its first opening, salted otherwise: it does not open its commitment
        o = honest_opening()
        if o is not None and not lied:
            lied.append(liar.step)
            o = [o[0], bytes(b ^ 0xFF for b in o[1])]
        return o
    liar.sealed.opening = other_salt
    def stop_the_liar_once_the_others_halted(net):  # else it re-sends until max_time
        if all(s.phase != "running" for s in sessions[:2]):
            net.s[2] = None

    net = Net(sessions, lambda s: E.bots.choose(s.state, s.my_seat))
    net.run(max_time=1e6, max_rounds=5_000_000, hook=stop_the_liar_once_the_others_halted)
    assert lied
    for seat in (0, 1):
        (cheat,) = [e for e in net.events[seat] if isinstance(e, CheatDetected)]
        assert (cheat.seat, cheat.step) == (2, lied[0])
        path = write_evidence(tmp_path, seat, sessions[seat].dump())
        written = bytes.fromhex(json.loads(path.read_text())["halt_reason"]["evidence"])
        assert written == cheat.evidence
        pair = EVIDENCE_PAIR.decode(written)
        steps = []
        for raw in pair:
            env = open_envelope(raw, C.MAX_STEP_MSG)
            body = decode_step_body(env.body)
            assert body.seat == 2
            steps.append(body.step)
        assert steps == [lied[0] - 1, lied[0]]  # its commitment, then its opening
