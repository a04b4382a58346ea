"""A seat signs two versions of its decision-step message and splits the honest peers
(protocol.md §C3.4 "Two versions applied", §C8.3 "Asymmetric race: roll back"): the table
converges on ``kept_version``'s pick, the equivocator loses its seat, the honest peers finish.

Seat d = n - 1 signs its real message of the first decision step >= 10 and a second one (same
history, another input); the ``victims`` get the second, the other seats the real one. Each
group applies its version; at the next step each sees the other group's digest, opens a digest
dispute and finds the other version in a record. The group whose version ``kept_version`` keeps
proves d (COMPLAINT kind 1) and votes it out; the other halts with
``StepOverturned(step, d, chosen, other)`` and, as the node does (``node_restart``), restarts
from its log cut at that step and is handed both versions (``adopt_equivocation``). Checked:
every honest peer ends with one ``GameOver`` and one final hash, its log verifies complete and
names only d, and d was dropped. In memory, virtual clock, fake engine (from H38's repro).
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

import fake_engine as E
from p2p import const as C
from p2p.lockstep import HALTED, SeatDropped
from p2p.step_collect import kept_version
from p2p.wire import MSG_STEP, decode_step_body, open_envelope, seal

from p2p_harness import Net, finish_together, first_legal, restart_overturned
from test_resilience import logged_game

STEP_TAG = bytes([0x93, MSG_STEP])
DROP = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5, "target": 30}


def _split_game(tmp_path, n: int, victims: set, alt: int):
    """Play the game with seat n - 1 equivocating once (module docstring), restarting a halted
    ``StepOverturned`` peer from its log as the node does. Returns (net, sessions at the end,
    paths, the two versions (real, second), restarts [(seat, step)])."""
    sessions, paths, secrets, _ = logged_game(tmp_path, n, DROP)
    cheat = n - 1
    net = Net(list(sessions), first_legal(E))
    state: dict = {"step": None}

    def drop(src, dst, raw):
        if src != cheat or raw[:2] != STEP_TAG:
            return False
        b = decode_step_body(open_envelope(raw).body)
        if state["step"] is None:
            if b.step < 10 or b.input is not None:
                return False
            state.update(step=b.step, real=raw, second=seal(sessions[cheat].identity, MSG_STEP,
                                                         [b.game_id, b.step, cheat, b.prev_hash, b.prev_digest,
                                                          ["adv", alt]]))
        if b.step == state["step"] and dst in victims:
            net.s[dst].receive_message(state["second"], net.now)
            return True
        return False

    restarts: list = []
    net.drop = drop
    net.run(max_time=1e4, hook=restart_overturned(paths, secrets, restarts))
    assert state["step"] is not None
    return net, paths, (state["real"], state["second"]), restarts


@pytest.mark.parametrize("n, victims", [(4, {0}), (4, {0, 1}), (5, {0, 1}), (5, {0})])
@pytest.mark.parametrize("alt", [6, 7])
def test_the_honest_peers_converge_and_the_equivocator_loses_its_seat(tmp_path, n, victims, alt):
    net, paths, (real, second), restarts = _split_game(tmp_path, n, victims, alt)
    cheat = n - 1
    honest = range(n - 1)
    body = {raw: open_envelope(raw).body for raw in (real, second)}
    kept = real if kept_version(body[real], body[second]) == body[real] else second
    losers = victims if kept == real else set(honest) - victims
    # Every peer that applied the version not kept rolled back once, handed the kept one.
    assert {i for i, _, chosen in restarts if chosen} == losers, restarts
    finish_together(net, net.s, paths, honest, cheaters={cheat})
    for i in honest:
        assert [e.seat for e in net.events[i] if isinstance(e, SeatDropped)] == [cheat], i


@given(st.binary(max_size=64), st.binary(max_size=64))
def test_kept_version_is_the_smaller_sha256_and_symmetric(a, b):
    """The rule every peer applies alone (§C3.4 "Two versions applied"): the body with the
    smaller SHA-256 (unsigned big-endian), whatever the order it is given in."""
    small = min(a, b, key=lambda x: int.from_bytes(hashlib.sha256(x).digest(), "big"))
    assert kept_version(a, b) == kept_version(b, a) == small


def test_adopt_equivocation_refuses_what_is_not_two_versions(tmp_path):
    """``adopt_equivocation`` takes only two different, validly signed versions of the seat's
    current-step message over one history (the chosen one first: ``kept_version``'s, or the other
    seat's record's when ours rested on the seat's word, H179; the halt chose); anything else
    changes nothing."""
    sessions, _, _, _ = logged_game(tmp_path, 4, DROP)
    s0, cheat = sessions[0], sessions[3]
    k = s0.step
    body = [s0.game_id, k, 3, s0.state_hash, s0.steps.prev_digest]
    a, b = seal(cheat.identity, MSG_STEP, body + [["adv", 1]]), seal(cheat.identity, MSG_STEP, body + [["adv", 2]])
    kept, other = (a, b) if kept_version(open_envelope(a).body, open_envelope(b).body) == open_envelope(a).body \
        else (b, a)
    forged = seal(sessions[1].identity, MSG_STEP, body + [["adv", 3]])  # seat 1's key, seat 3's slot
    other_history = seal(cheat.identity, MSG_STEP, [s0.game_id, k, 3, s0.state_hash, b"\x5a" * 32, ["adv", 2]])
    assert not s0.ingest.adopt_equivocation(k, 3, kept, kept)  # one version
    assert not s0.ingest.adopt_equivocation(k, 3, kept, forged)  # bad signature
    assert not s0.ingest.adopt_equivocation(k, 3, forged, other)  # the chosen one must be signed by the seat
    assert not s0.ingest.adopt_equivocation(k, 3, kept, other_history)  # another history: no equivocation
    assert not s0.ingest.adopt_equivocation(k + 1, 3, kept, other)  # not our step
    assert not s0.ingest.adopt_equivocation(k, 3, kept, b"\x00junk")
    assert s0.steps.held(k, 3) is None and not s0.complaints.cheaters()
    assert s0.ingest.adopt_equivocation(k, 3, kept, other)
    assert s0.steps.held(k, 3).env.raw == kept and s0.complaints.cheaters() == [3]


def test_a_current_step_record_with_the_other_version_keeps_the_kept_one(tmp_path):
    """A peer that holds the kept version of seat 3's current-step message (handed over after
    its roll back) gets a catch-up record of that step with the other version, from a peer
    that has not rolled back yet: it holds the kept one still (it followed the record before,
    applied the other version and had to roll back again: seen in the e2e, §C3.4)."""
    sessions, _, _, _ = logged_game(tmp_path, 4, DROP)
    s0 = sessions[0]
    k = s0.step
    body = [s0.game_id, k, 3, s0.state_hash, s0.steps.prev_digest]
    a, b = seal(sessions[3].identity, MSG_STEP, body + [["adv", 1]]), seal(sessions[3].identity, MSG_STEP,
                                                                            body + [["adv", 2]])
    kept, other = (a, b) if kept_version(open_envelope(a).body, open_envelope(b).body) == open_envelope(a).body \
        else (b, a)
    assert s0.ingest.adopt_equivocation(k, 3, kept, other)
    raws = [seal(sessions[i].identity, MSG_STEP, [s0.game_id, k, i, s0.state_hash, s0.steps.prev_digest, None])
            for i in range(3)] + [other]
    assert s0.ingest.ingest_step_record(k, raws) is None
    assert s0.phase != HALTED and s0.steps.held(k, 3).env.raw == kept
