"""Red team session 12 (H122): ac35344's second certificate kind (§C8.3 'A voter's promise') against
a skipped turn (§C8.10).

``SessionVotes.certified`` counts a seat whose DROP vote of step k+1 (this epoch) and step-k
message we hold as never voting DROP(k, d): it applied k without a drop. Unlike a signed
step-(k+1) message, whose `prev_digest` must cover exactly the step-k messages we hold, the vote
says nothing of HOW it applied k: with d's message, or with d skipped (§C8.10: no epoch change,
d's body 0xC1 in the digest). §C8.10 'Precedence and roll back': "A peer that voted DROP(k, d)
keeps the promise of §C8.3 for the skip too: it applies step k (with d skipped or not) only with
that certificate, so it waits for the drop or for the others to move on, and never rolls back
from a skip." Honest seats only, lost and late datagrams; in memory, fake engine, 5 seats (Q = 3).
"""

from __future__ import annotations

import fake_engine as E
from p2p.gamelog import OwnLog
from p2p.lockstep import GameOver, StepOverturned
from p2p.session_events import TurnSkipped

from p2p_harness import Net, random_legal, restart_overturned
from turn_skip_kit import game

D, V = 4, 3  # the idle seat, and the seat that votes it out instead of skipping it
MSG_STEP_TYPE, MSG_DROP_TYPE = 16, 18  # an envelope's second byte (msgpack fixint type)


def _race(tmp_path, k1_kind: int):
    """All at a skippable step k, none has sent. Seats 0-3 send their step-k messages to everyone;
    seat 4's is held back. Seats 0, 1, 2 skip seat 4 (their SKIP votes reach each other only) and
    apply k with it skipped; seat 3 votes DROP(k, 4) (turn time), then gets seat 4's late message.
    Seats 0 and 1 then send seat 3 only their step-(k+1) envelopes of type ``k1_kind``: their STEP
    (over the skip) or their DROP(k+1, 4) ('j': seat 4 is idle again). Returns (net, k, paths,
    what is still to deliver: [(from, [raw], to)])."""
    sessions, paths = game(5, tmp_path)
    for i, s in enumerate(sessions):
        s.own_log = OwnLog(str(paths[i]) + ".own")
    net = Net(sessions, random_legal(E, seed=4))
    for _ in range(400):
        s0 = sessions[0]
        if s0.step >= 3 and s0.skippable() and all(s.step == s0.step and not s.steps.has_own(s.step)
                                                   for s in sessions):
            break
        if not net.inputs():
            net.deliver()
    k = sessions[0].step

    def send(i, raws, to):
        for j in to:
            for raw in raws:
                sessions[j].receive_message(raw, net.now)

    net.inputs()
    out = {i: s.messages_to_send() for i, s in enumerate(sessions)}
    for i in range(4):
        send(i, out[i], [j for j in range(5) if j != i])
    for i in (0, 1, 2):
        assert sessions[i].skip_turn(D)
    skips = {i: sessions[i].messages_to_send() for i in (0, 1, 2)}
    for i in (0, 1, 2):
        send(i, skips[i], [j for j in (0, 1, 2) if j != i])
    assert sessions[V].vote_out(D)
    later = [(V, sessions[V].messages_to_send(), [0, 1, 2, 4])]
    send(D, out[D], [V])  # seat 4's late step-k message: seat 3 holds every message of k now
    assert [s.step for s in sessions[:4]] == [k + 1, k + 1, k + 1, k] and sessions[V].waiting_for() == ()
    net.inputs()
    k1 = {i: sessions[i].messages_to_send() for i in (0, 1, 2)}
    for i in (0, 1):
        if k1_kind == MSG_DROP_TYPE:
            assert sessions[i].vote_out(D)
            k1[i] += sessions[i].messages_to_send()
        send(i, [r for r in k1[i] if r[1] == k1_kind], [V])
        later.append((i, [r for r in k1[i] if r[1] != k1_kind], [V]))
    later += [(i, k1[i], [j for j in range(5) if j not in (i, V)]) for i in (0, 1, 2)] + [(2, k1[2], [V])]
    return net, k, paths, later, send


def test_premise_signed_step_messages_over_the_skip_certify_nothing(tmp_path):
    """The first kind holds: seats 0 and 1's STEP of k+1 covers seat 4 skipped (0xC1), not the
    message seat 3 holds, so seat 3 keeps waiting at k (it voted)."""
    net, k, _paths, _later, _send = _race(tmp_path, MSG_STEP_TYPE)
    assert net.s[V].step == k


def test_the_table_recovers_by_rolling_the_voter_back(tmp_path):
    """What held before the fix of the break below: seat 3 applied k with seat 4's message, its
    step-(k+1) message carried another digest, the others pushed their records, seat 3 found the
    kind-6 record, halted with StepOverturned(k, 4), was resumed from its log cut at k and applied
    the skip (a temporary fork). FIXED (H121): seat 3 waits at k (next-step DROP votes certify
    nothing at a skippable step), takes the skip from the others' kind-6 record and never rolls
    back, as §C8.10 says; every seat ends with one final hash."""
    net, k, paths, later, send = _race(tmp_path, MSG_DROP_TYPE)
    for i, raws, to in later:
        send(i, raws, to)
    restarts: list = []
    net.run(max_time=2000, max_rounds=2_000_000,
            hook=restart_overturned(paths, [s.chain.value(0) for s in net.s], restarts))
    assert (V, k, False) not in restarts, restarts
    assert not any(isinstance(e, StepOverturned) for e in net.events[V])
    assert any(isinstance(e, TurnSkipped) and (e.step, e.seat) == (k, D) for e in net.events[V])
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert [len(o) for o in overs] == [1] * 5 and len({o[0].final_hash for o in overs}) == 1


def test_drop_votes_of_the_next_step_do_not_certify_a_message_the_others_skipped(tmp_path):
    """BREAK s12 #6 (LOW: a temporary fork, undone by a roll back; no liar). Seats 0 and 1, which
    applied k with seat 4 skipped, vote DROP(k+1, 4) (seat 4 idle again); seat 3 holds their
    step-k messages, so ac35344's kind counts them (active - Q = 2) and seat 3 applies k WITH
    seat 4's message, signs k+1 over it, and later rolls back from the skip (StepOverturned, a
    restart): what §C8.10 says a DROP voter never does. With a liar instead of 0/1 the same vote
    needs no message of k at all (a STEP of k+1 must cover them). Suggested fix: count a DROP
    vote of k+1 only where step k is not skippable (``turn_skip.skippable_step``: no skip can
    have happened there; H106's stall was at an escrow wait), or state in §C8.10 that a DROP
    voter certified by next-step votes may roll back from a skip. FIXED (H121): the former
    (``SessionVotes.certified``)."""
    net, k, _paths, _later, _send = _race(tmp_path, MSG_DROP_TYPE)
    assert net.s[V].step == k, f"seat 3 applied step {k} with seat 4's message; seats 0-2 skipped it"
