"""Forced reveals in a session (protocol.md §C3.8, version 4; issue 14): the sender's forced body
and the live receiver's rule (``own_step.OwnStep.send_own``, ``session_inbox.SessionInbox``).

* Sender (§C3.1, §C3.8): at a plain chance step our body is the forced one, 6 fields: a re-seat
  request we carry (§C8.9) and acks we owe (§C8.2) ride our next step that is not one.
* Receiver (§C3.4, §C3.8): at our current plain chance step a seat's forced body is held without
  its signature check (counted ``forced``), so garbage signatures on forced reveals change
  nothing; any other STEP is verified as before (a garbage-signed action or early message is
  dropped); a validly signed body of that step over our history with more fields is refused,
  not held (``not_forced``, PeerMisbehaved), and its seat's forced body is still taken.
* Evidence (§C8.8): a held forced body whose signature does not verify never proves
  equivocation; one that verifies still does.

In memory, virtual clock, fake engine (tests/p2p/p2p_harness.py): step 0 picks the first player
(a chance step), then rolls (chance) and moves (decisions) alternate."""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.bodies import EscrowAck
from p2p.forced import plain_chance
from p2p.lockstep import Equivocation, GameOver, PeerMisbehaved, SeatDropped, SeatReturned
from p2p.wire import (MSG_CATCHUP_RESP, MSG_RESEAT, MSG_STEP, decode_step_body, encode_step, open_envelope, pack,
                      seal, sign_body)

from p2p_harness import Net, drain, finish_together, first_legal, random_legal, started_sessions
from test_reseat_session import NEW_SECRET, _returning
from test_resilience import logged_game

REASON = "a chance step's message must be its forced body"


def garble(raw: bytes) -> bytes:
    """``raw`` with its signature's bytes flipped: same type and body, canonical, not valid."""
    env = open_envelope(raw)
    return pack([env.mtype, env.body, bytes(b ^ 0x5A for b in env.sig)])


def with_acks(sess, raw: bytes) -> bytes:
    """``raw``'s body (a seat's forced reveal) with one ack added, signed by ``sess``'s seat:
    a message no plain chance step allows (§C3.8)."""
    b = decode_step_body(open_envelope(raw).body)
    extra = b._replace(acks=(EscrowAck(0, 0, b"e" * 32),))
    return sign_body(sess.identity, MSG_STEP, encode_step(extra)).raw


def is_reveal(raw: bytes) -> bool:
    """A STEP whose input is a 32-byte reveal (the fake engine's decisions are lists or nil)."""
    if raw[:2] != bytes([0x93, MSG_STEP]):
        return False
    b = decode_step_body(open_envelope(raw).body)
    return type(b.input) is bytes and len(b.input) == C.HASH_LEN


def misbehaved(sess, reason: str) -> list:
    return [e for e in drain(sess) if isinstance(e, PeerMisbehaved) and e.reason == reason]


# --- one message at a time: step 0 is a plain chance step (no seat loss: no escrow round) ---


def test_a_forced_reveal_is_held_whatever_its_signature():
    """§C3.8: the forced body at our current plain chance step is held unchecked; the step applies."""
    s0, s1, s2 = started_sessions(3)
    assert s0.own.plain_chance()
    s0.receive_message(garble(s1.messages_to_send()[0]), 0.0)
    assert s0.stats["forced"] == 1 and s0.stats["bad_signature"] == 0
    assert s0.steps.held(0, 1) is not None
    s0.receive_message(s2.messages_to_send()[0], 0.0)
    assert s0.step == 1 and s0.phase == "running" and s0.stats["forced"] == 2


def test_garbage_signatures_on_what_is_not_forced_are_dropped():
    """§C3.4: nil or a wrong reveal at a chance step, a message of the next step: verified, dropped."""
    s0, s1, _ = started_sessions(3)
    raw = s1.messages_to_send()[0]
    b = decode_step_body(open_envelope(raw).body)
    fields = [b.game_id, 0, 1, b.prev_hash, b.prev_digest]
    for inp, step in ((None, 0), (b"\x13" * 32, 0), (b.input, 1)):
        fields[1] = step
        s0.receive_message(garble(seal(s1.identity, MSG_STEP, fields + [inp])), 0.0)
    assert s0.stats["bad_signature"] == 3 and s0.stats["forced"] == 0
    assert len(misbehaved(s0, "bad signature")) == 3
    assert s0.steps.held(0, 1) is None and s0.steps.held(1, 1) is None


def test_a_signed_chance_message_with_acks_is_refused_and_the_forced_one_still_taken():
    """§C3.8: a signed body of our plain chance step over our history with more fields is not
    held (so its seat's forced body can be), counted and reported; nothing is proven."""
    s0, s1, s2 = started_sessions(3)
    raw = s1.messages_to_send()[0]
    s0.receive_message(with_acks(s1, raw), 0.0)
    assert s0.stats["not_forced"] == 1 and s0.steps.held(0, 1) is None
    assert len(misbehaved(s0, REASON)) == 1 and s0.stats["complaints"] == 0
    s0.receive_message(raw, 0.0)
    s0.receive_message(s2.messages_to_send()[0], 0.0)
    assert s0.step == 1 and s0.phase == "running" and s0.stats["forced"] == 2


def test_an_early_signed_chance_message_with_acks_is_refused_when_its_step_begins():
    """§C3.8 (H75): seat 1's step-1 reveal with an ack reaches lagging seat 0 a step early, so it
    is verified and buffered (§C3.4 'step > ours'); when step 1 begins as a plain chance step it
    is judged as on receipt: slot cleared, ``not_forced``; the forced body is then taken."""
    s0, s1, s2 = started_sessions(3)
    first = {s: s.messages_to_send()[0] for s in (s0, s1, s2)}
    for dst in (s1, s2):
        for src in (s0, s1, s2):
            if src is not dst:
                dst.receive_message(first[src], 0.0)
    assert s1.step == 1 and s1.own.plain_chance()
    raw = next(r for r in s1.messages_to_send() if decode_step_body(open_envelope(r).body).step == 1)
    s0.receive_message(with_acks(s1, raw), 0.0)
    assert s0.step == 0 and s0.steps.held(1, 1) is not None  # verified, buffered
    s0.receive_message(first[s1], 0.0)
    s0.receive_message(first[s2], 0.0)
    assert s0.step == 1 and s0.steps.held(1, 1) is None
    assert s0.stats["not_forced"] == 1 and len(misbehaved(s0, REASON)) == 1
    s0.receive_message(raw, 0.0)
    assert s0.steps.held(1, 1).env.raw == raw and s0.stats["forced"] == 3


def test_a_signed_wrong_reveal_is_held_as_before():
    """§C3.8: a 6-field body with a wrong reveal is no 'other field': held, the apply proves it
    (§C8.8, tests/p2p/test_lockstep.py)."""
    s0, s1, _ = started_sessions(3)
    b = decode_step_body(open_envelope(s1.messages_to_send()[0]).body)
    s0.receive_message(seal(s1.identity, MSG_STEP, [b.game_id, 0, 1, b.prev_hash, b.prev_digest, b"\x13" * 32]), 0.0)
    assert s0.steps.held(0, 1) is not None and s0.stats["not_forced"] == 0 and s0.stats["forced"] == 0


def test_the_forced_body_takes_the_slot_of_a_held_wrong_reveal():
    """§C3.8 (H75): a held signed wrong reveal gives way to the seat's forced body, the only body
    a plain chance step can apply, even one with a garbage signature (then nothing is proven);
    the step applies. (Kept, the wrong reveal left the peer at k while the others went on.)"""
    s0, s1, s2 = started_sessions(3)
    raw = s1.messages_to_send()[0]
    b = decode_step_body(open_envelope(raw).body)
    s0.receive_message(seal(s1.identity, MSG_STEP, [b.game_id, 0, 1, b.prev_hash, b.prev_digest, b"\x13" * 32]), 0.0)
    s0.receive_message(garble(raw), 0.0)
    assert s0.steps.held(0, 1).env.raw == garble(raw) and s0.stats["complaints"] == 0
    s0.receive_message(s2.messages_to_send()[0], 0.0)
    assert s0.step == 1 and s0.phase == "running"


def test_an_unchecked_forced_body_is_no_evidence_of_equivocation():
    """§C8.8: held with a bad signature, then another signed message of the step: no proof (the
    held one is kept, the other refused), the game goes on."""
    s0, s1, s2 = started_sessions(3)
    raw = s1.messages_to_send()[0]
    bad = garble(raw)
    s0.receive_message(bad, 0.0)
    s0.receive_message(with_acks(s1, raw), 0.0)
    assert s0.stats["bad_signature"] == 1 and s0.stats["not_forced"] == 1
    assert s0.phase == "running" and s0.steps.held(0, 1).env.raw == bad
    s0.receive_message(s2.messages_to_send()[0], 0.0)
    assert s0.step == 1 and s0.phase == "running"


def test_a_signed_copy_replaces_a_held_forced_body_with_a_bad_signature():
    """§C3.8, §C8.8: a relayer that planted the garbage-signed copy first does not keep the
    signed one out: the seat's genuine message (same body, other bytes) takes its place."""
    s0, s1, _ = started_sessions(3)
    raw = s1.messages_to_send()[0]
    s0.receive_message(garble(raw), 0.0)
    s0.receive_message(raw, 0.0)
    assert s0.stats["duplicate"] == 1 and s0.steps.held(0, 1).env.raw == raw


def test_a_signed_forced_body_and_another_signed_message_still_prove_equivocation():
    """§C8.8: when the held forced body's signature verifies, two signed messages of one step
    over one history are proof, as before (seat loss off: no drop possible, the game halts)."""
    s0, s1, _ = started_sessions(3)
    raw = s1.messages_to_send()[0]
    s0.receive_message(raw, 0.0)
    s0.receive_message(with_acks(s1, raw), 0.0)
    assert s0.phase == "halted" and isinstance(s0.halt_reason, Equivocation)


# --- whole games ---


class Rewrite:
    """A ``Net`` drop hook: seat ``seat``'s messages that ``pick`` selects go out as what
    ``make(raw)`` returns (a list of envelopes, delivered in order) to every peer."""

    def __init__(self, seat: int, pick, make) -> None:
        self.seat, self.pick, self.make, self.net, self.count = seat, pick, make, None, 0

    def __call__(self, src: int, dst: int, data: bytes) -> bool:
        if src != self.seat or not self.pick(data) or self.net.s[dst] is None:
            return False
        self.count += 1
        for raw in self.make(data):
            self.net.s[dst].receive_message(raw, self.net.now)
        return True


def _play(n: int, hook: Rewrite, choose=None) -> Net:
    sessions = started_sessions(n)
    net = Net(sessions, choose or first_legal(E), drop=hook)
    hook.net = net
    net.run(max_time=1e4)
    return net


def _one_end(net: Net) -> None:
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs), net.describe()
    assert len({o[0].final_hash for o in overs}) == 1


def test_a_seat_whose_forced_reveals_carry_garbage_signatures_plays_on(tmp_path):
    """§C3.8: every peer finishes with one final hash, the others held its reveals as forced, and
    every log verifies (§C3.8 'Records': those logs hold its garbage-signed forced bodies)."""
    sessions, paths, _, _ = logged_game(tmp_path, 4, {"target": 40})
    hook = Rewrite(3, is_reveal, lambda raw: [garble(raw)])
    net = Net(list(sessions), first_legal(E), drop=hook)
    hook.net = net
    net.run(max_time=1e4)
    assert hook.count > 0
    assert all(net.s[i].stats["forced"] > 0 for i in range(3))
    finish_together(net, sessions, paths, range(4), cheaters=())


def test_a_seat_whose_decisions_carry_garbage_signatures_is_still_dropped():
    """§C3.4: a garbage-signed message that is not forced is dropped and reported (its genuine
    copy, sent after it, is taken)."""
    hook = Rewrite(3, lambda raw: raw[:2] == bytes([0x93, MSG_STEP]) and not is_reveal(raw),
                   lambda raw: [garble(raw), raw])
    net = _play(4, hook)
    _one_end(net)
    assert hook.count > 0
    for i in range(3):
        assert net.s[i].stats["bad_signature"] >= 1
        assert any(isinstance(e, PeerMisbehaved) and e.seat == 3 and e.reason == "bad signature"
                   for e in net.events[i])


def test_signed_acks_at_plain_chance_steps_are_refused_never_proven():
    """§C3.8, §C8.8: a seat that first signs its reveal with an ack at every plain chance step,
    then sends its forced body: the first is refused (not held, so not evidence of
    equivocation), the second taken; the game ends with one final hash."""
    sessions = started_sessions(4)
    hook = Rewrite(3, is_reveal, lambda raw: [with_acks(sessions[3], raw), raw])
    net = Net(sessions, first_legal(E), drop=hook)
    hook.net = net
    net.run(max_time=1e4)
    _one_end(net)
    for i in range(3):
        assert net.s[i].stats["not_forced"] >= 1 and net.s[i].stats["complaints"] == 0
        assert any(isinstance(e, PeerMisbehaved) and e.seat == 3 and e.reason == REASON for e in net.events[i])


def test_a_carried_reseat_request_waits_for_a_step_that_is_not_plain_chance(tmp_path):
    """§C3.8, §C8.9: every reveal sent is a 6-field forced body, also the ones signed while a
    re-seat request is carried; the request rides a later step and the player gets its seat
    back. Seat 0 returns and asks while the others are at a decision step: its request reaches
    them (it is delivered first) before that step completes, so they sign the next step, a
    plain chance step, holding it."""
    opts = {"target": 70, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, opts)
    net = Net(list(sessions), random_legal(E, seed=11))
    back, st = _returning(sessions, paths, secrets, seat=0, crash_step=6, ask=False)
    plain = []  # (carrier, step) of the plain chance steps the carriers entered after the request

    def hook(net):
        back(net)
        s = net.s[0]
        others = net.s[1:]
        if st["back"] is not None and st["asked"] is None and s.spectator \
                and all(o.running and not o.pending.chance for o in others):
            st["asked"] = s.request_reseat(NEW_SECRET, net.now)
            st["at"] = others[0].step
        if st["asked"] and not others[0].active[0]:
            plain.extend((i, o.step) for i, o in enumerate(others, 1) if plain_chance(
                o.pending.chance, o.escrow_round, o.hidden is not None, o.final_step == o.step))

    net.run(max_time=1e5, hook=hook)
    assert st["asked"] and (1, st["at"] + 1) in plain
    assert all(len([e for e in evs if isinstance(e, SeatReturned)]) == 1 for evs in net.events)
    carried = {src for src, raw in net.sent_log if src and raw[:2] == bytes([0x93, MSG_STEP])
               and decode_step_body(open_envelope(raw).body).reseat}
    assert carried == {1, 2, 3}
    for _, raw in net.sent_log:
        if is_reveal(raw):
            b = decode_step_body(open_envelope(raw).body)
            assert (b.hidden, b.reseat, b.acks) == (None, (), ()), b.step


def test_a_seat_that_never_sends_its_forced_body_is_voted_out_as_silent():
    """§C3.8, §C8.3: from step 6 seat 3 signs every reveal with an ack and serves no catch-up page:
    its slot stays empty at the others, who vote it out as silent and finish one game."""
    sessions = started_sessions(4, options={C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3})
    hook = Rewrite(3, lambda raw: is_reveal(raw) and decode_step_body(open_envelope(raw).body).step >= 6,
                   lambda raw: [with_acks(sessions[3], raw)])
    page = bytes([0x93, MSG_CATCHUP_RESP])
    net = Net(sessions, first_legal(E),
              drop=lambda src, dst, raw: (src == 3 and raw[:2] == page) or hook(src, dst, raw))
    hook.net = net
    net.run(max_time=1e4)
    assert hook.count > 0
    for i in range(3):
        assert [e.seat for e in net.events[i] if isinstance(e, SeatDropped)] == [3], net.describe()
        assert net.s[i].stats["not_forced"] >= 1 and net.s[i].stats["complaints"] == 0
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in range(3)]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1


def test_the_steps_begun_as_plain_chance_steps_are_remembered():
    """§C3.8: whether a past step (within ``KEEP_STEPS``) was a plain chance step is what a
    second version of it from a record is judged by (``OwnStep.plain_chance_at``)."""
    s0, s1, s2 = started_sessions(3)
    net = Net([s0, s1, s2], first_legal(E))
    while s0.step < 2 + C.KEEP_STEPS:
        net.inputs()
        net.deliver()
    k = s0.step
    assert s0.own.plain_chance_at(k) == s0.own.plain_chance()
    seen = [j for j in range(k + 1) if s0.own.plain_chance_at(j)]
    # The fake engine alternates rolls (chance) and moves (decisions) after step 0's first player.
    assert seen == [j for j in range(k - C.KEEP_STEPS + 1, k + 1) if j == 0 or j % 2 == 1]
