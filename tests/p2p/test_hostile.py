"""Hostile peers against the resilience protocol (protocol.md §C3.4, §8, §9): each test scripts one
malicious seat and checks that every honest peer detects it, names the culprit and keeps the
signed evidence, then either continues unharmed or halts with a clear reason."""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.lockstep import (HALTED, CheaterProven, CheatDetected, Equivocation, GameOver, PeerMisbehaved,
                          SeatDropped, SeatDropVoted, StepApplied)
from p2p.complaints import BAD_DROP_SHARE
from p2p.seat_loss import make_escrow, pair_key
from p2p.wire import (MSG_CATCHUP_RESP, MSG_COMPLAINT, MSG_DROP, MSG_ESCROW, MSG_HINT, MSG_STEP, decode_complaint,
                      decode_step_body, open_envelope, pack, seal)

from p2p_harness import Net, drain, first_legal, random_legal, started_sessions

DROP = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5, "target": 30}
STEP_TAG = bytes([0x93, MSG_STEP])


def body(raw):
    return decode_step_body(open_envelope(raw).body)


def resign(sess, raw):
    """Re-sign ``raw`` with a zero signature (a forgery: only the key owner can sign)."""
    env = open_envelope(raw, C.MAX_CATCHUP_MSG)
    return pack([env.mtype, env.body, bytes(64)])


def test_forged_signatures_on_every_new_message_type_are_dropped_and_named():
    s0, s1, s2 = started_sessions(3, options=DROP)
    forged = [
        seal(s1.identity, MSG_DROP, [s1.game_id, 1, 0, 2, 0, None]),
        seal(s1.identity, MSG_HINT, [s1.game_id, 1, 7]),
        seal(s1.identity, MSG_CATCHUP_RESP, [s1.game_id, 1, 0, 3, [], [], []]),
        make_escrow(s1.identity, s1.chain.value(0), s1.game_id, 1, 5, [0, 2], [p.x25519_key for p in s1.setup.players], 2),
    ]
    for raw in forged:
        s0.receive_message(resign(s1, raw), 0.0)
    evs = [e for e in drain(s0) if isinstance(e, PeerMisbehaved)]
    assert s0.phase == "running"
    assert [e.seat for e in evs] == [1, 1, 1] and all(e.reason == "bad signature" for e in evs)
    assert s0.stats["bad_signature"] == 3 and s0.stats["ignored"] >= 1  # escrow of a wrong epoch


def test_messages_of_another_game_are_rejected_by_game_id():
    a = started_sessions(2)
    b = started_sessions(2, options={"target": 31})  # same players, another setup: another game id?
    assert a[0].game_id == b[0].game_id  # demo seeds give the same id: use a forged one instead
    other = seal(a[1].identity, MSG_DROP, [b"\x01" * 16, 1, 0, 0, 0, None])
    a[0].receive_message(other, 0.0)
    step = seal(a[1].identity, MSG_STEP, [b"\x01" * 16, 0, 1, a[1].state_hash, a[1].prev_digest, None])
    a[0].receive_message(step, 0.0)
    assert a[0].stats["wrong_game"] == 2 and a[0].phase == "running"


def test_equivocation_to_different_peers_is_named_by_every_honest_peer():
    """Seat 2 signs two different inputs for one decision step and sends one to seat 0, the
    other to seat 1. Both apply the step; their next digests differ; the digest dispute
    (catch-up of the previous step) exposes both signed messages of seat 2."""
    sessions = started_sessions(3, options={"target": 30})
    s0, s1, s2 = sessions
    net = Net(sessions, first_legal(E))
    state = {"done": False}

    def drop(src, dst, raw):
        if src != 2 or state["done"] or raw[:2] != STEP_TAG:
            return False
        b = body(raw)
        if b.input is not None:  # a decision step where seat 2 sends "nothing"
            return False
        # another message for the same step, signed by seat 2, only for seat 1
        alt = seal(s2.identity, MSG_STEP, [b.game_id, b.step, 2, b.prev_hash, b.prev_digest, ["adv", 6]])
        if dst == 1:
            state["done"] = True
            s1.receive_message(alt, net.now)
            return True
        return False

    net.drop = drop
    net.run(max_time=1e4)
    assert state["done"]
    for i in (0, 1):
        eq = [e for e in net.events[i] if isinstance(e, Equivocation)]
        assert eq and eq[0].seat == 2, net.events[i][-3:]
        assert open_envelope(eq[0].first).verify(s2.identity.public_key)
        assert open_envelope(eq[0].second).verify(s2.identity.public_key)
        assert eq[0].first != eq[0].second
        assert sessions[i].phase == HALTED


def test_out_of_turn_action_is_refused_identically_everywhere():
    """An illegal action (acting out of turn) is signed input like any other: every peer's
    engine refuses it the same way (ActionRefused names the seat), the game goes on."""
    sessions = started_sessions(3, options={"target": 20})
    cheat = 1
    sent = {"n": 0}

    def choose(s):
        if s.my_seat == cheat and cheat not in s.pending.actors:
            sent["n"] += 1
            return E.Advance(6)  # not its turn
        la = E.legal_actions(s.state, s.my_seat)
        return la[0] if la else None

    net = Net(sessions, choose)
    net.run(max_time=1e4)
    assert sent["n"] > 0
    refused = [[x for e in evs if isinstance(e, StepApplied) for x in e.engine_events
                if isinstance(x, E.ActionRefused)] for evs in net.events]
    assert refused[0] and refused[0] == refused[1] == refused[2]
    assert {r.seat for r in refused[0]} == {cheat}
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert len({o[0].final_hash for o in overs}) == 1


def test_bad_escrow_share_is_proven_to_every_seat_and_the_dealer_voted_out():
    """protocol.md §C8.8 kind 3: the recipient of a bad share publishes its pairwise key in a
    COMPLAINT; a peer that cannot open the share itself checks it and acts against the dealer,
    and nobody halts."""
    s0, s1, s2 = started_sessions(3, options=DROP)
    for s in (s0, s1, s2):
        s.messages_to_send()
    # seat 2 deals shares of a secret that is not its chain, and lies in one commitment
    raw = make_escrow(s2.identity, b"\x07" * 32, s2.game_id, 2, 0, [0, 1], [p.x25519_key for p in s2.setup.players], 2)
    env = open_envelope(raw)
    import msgpack
    gid, seat, epoch, entries = msgpack.unpackb(env.body)
    entries[0][1] = bytes(32)  # commitment for seat 0 no longer matches its share
    bad = seal(s2.identity, MSG_ESCROW, [gid, seat, epoch, entries])
    s0.receive_message(bad, 0.0)
    evs = drain(s0)
    (p,) = [e for e in evs if isinstance(e, CheaterProven)]
    assert p.seat == 2 and "escrow" in p.reason and s0.phase == "running"
    assert any(isinstance(e, SeatDropVoted) and e.seat == 2 for e in evs)
    complaint = next(m for m in s0.messages_to_send() if m[:2] == bytes([0x93, MSG_COMPLAINT]))
    s1.receive_message(complaint, 0.0)  # s1 holds no such share: it checks s0's key
    (p1,) = [e for e in drain(s1) if isinstance(e, CheaterProven)]
    assert p1.seat == 2 and p1.complaint == complaint and s1.phase == "running"


def test_false_escrow_complaint_names_the_complainer():
    """A complaint about a good share (the complainer's key opens a share that matches its
    commitment) proves the complainer lied (protocol.md §C8.8)."""
    s0, s1, s2 = started_sessions(3, options=DROP)
    esc2 = next(m for m in s2.messages_to_send() if m[:2] == bytes([0x93, MSG_ESCROW]))
    key = pair_key(s0.identity, s2.setup.players[2].x25519_key, s0.game_id, 2, 0, 0)
    lie = seal(s0.identity, MSG_COMPLAINT, [s0.game_id, 0, 0, 2, 3, [esc2], key])
    s1.receive_message(esc2, 0.0)
    s1.receive_message(lie, 0.0)
    (p,) = [e for e in drain(s1) if isinstance(e, CheaterProven)]
    assert p.seat == 0 and "false complaint" in p.reason


def test_drop_vote_with_a_wrong_share_names_the_voter():
    s0, s1, s2 = started_sessions(3, options=DROP)
    net = Net([s0, s1, s2], random_legal(E, seed=1))
    for _ in range(4):
        net.inputs()
        net.deliver()
    assert len(s0.seats.escrow_raws()) == 3
    assert s0.waiting_for() == (1,)  # seat 1's message of this step is still missing at seat 0
    # seat 2 votes to drop seat 1 with a share that is not the one seat 1 dealt it
    vote = seal(s2.identity, MSG_DROP, [s2.game_id, 2, s0.step, 1, 0, b"\x09" * C.SHARE_LEN])
    s0.receive_message(vote, 1.0)
    s0.handle_timer(s0.step_started + 5.0)  # our own timeout vote: with seat 2's, a quorum (2 of 3)
    # Seat 2's share is its lie (§C8.3): its vote does not count, nobody halts, seat 2 is proven
    # to everyone with a kind-5 complaint [its vote, seat 1's escrow] and seat 1 is not dropped.
    evs = drain(s0)
    (p,) = [e for e in evs if isinstance(e, CheaterProven)]
    assert p.seat == 2 and "share" in p.reason and s0.phase == "running"
    assert not any(isinstance(e, (CheatDetected, SeatDropped)) for e in evs)
    complaint = next(m for m in s0.messages_to_send() if m[:2] == bytes([0x93, MSG_COMPLAINT]))
    c = decode_complaint(open_envelope(complaint, C.MAX_COMPLAINT_MSG).body)
    assert (c.culprit, c.kind, c.evidence[0]) == (2, BAD_DROP_SHARE, vote)
    s1.receive_message(complaint, 1.0)
    (p1,) = [e for e in drain(s1) if isinstance(e, CheaterProven)]
    assert p1.seat == 2 and p1.complaint == complaint


def _past_the_escrow_round():
    """Three sessions past step 0, the escrow round that confirms every escrow (§C8.2); seat 1's
    ESCROW envelope."""
    sessions = started_sessions(3, options=DROP)
    esc1 = next(m for m in sessions[1].messages_to_send() if m[:2] == bytes([0x93, MSG_ESCROW]))
    sessions[1]._out.insert(0, esc1)
    net = Net(sessions, first_legal(E))
    while sessions[1].step < 1:
        net.inputs()
        net.deliver()
    assert all(s.seats.acks.confirmed(1, 0, esc1) for s in sessions)
    return sessions, esc1


def _released(s, k: int, seat: int) -> bytes:
    """``s``'s DROP(k, seat) vote released with its true share (version 5, §C8.3 rule (a): a vote
    is open until its voter holds a quorum; only a released vote can be judged by kind 5)."""
    return seal(s.identity, MSG_DROP, [s.game_id, s.my_seat, k, seat, s.seats.epoch, s.seats._shares[seat]])


def test_a_false_share_complaint_names_the_complainer():
    """Kind 5 about a vote whose share matches the CONFIRMED commitment: the complainer lied (§C8.8)."""
    (s0, s1, s2), esc1 = _past_the_escrow_round()
    k = s2.step
    vote = _released(s2, k, 1)  # seat 2's honest vote against seat 1, released with its true share
    lie = seal(s0.identity, MSG_COMPLAINT, [s0.game_id, 0, k, 2, BAD_DROP_SHARE, [vote, esc1], None])
    s1.receive_message(lie, 0.0)
    (p,) = [e for e in drain(s1) if isinstance(e, CheaterProven)]
    assert p.seat == 0 and "false complaint" in p.reason


def test_a_kind_5_complaint_proves_nothing_without_the_confirmed_escrow():
    """§C8.2: a kind-5 complaint is judged only with the escrow every recipient acknowledged. The
    same evidence before the escrow round confirmed it, or with another escrow of the dealer
    (validly signed, another secret), proves nothing: neither the voter nor the complainer."""
    s0, s1, s2 = started_sessions(3, options=DROP)
    esc1 = next(m for m in s1.messages_to_send() if m[:2] == bytes([0x93, MSG_ESCROW]))
    s2.receive_message(esc1, 0.0)
    vote = _released(s2, 0, 1)
    early = seal(s0.identity, MSG_COMPLAINT, [s0.game_id, 0, 0, 2, BAD_DROP_SHARE, [vote, esc1], None])
    s1.receive_message(early, 0.0)
    assert not [e for e in drain(s1) if isinstance(e, CheaterProven)]
    (s0, s1, s2), esc1 = _past_the_escrow_round()
    other = make_escrow(s1.identity, b"\x55" * 32, s1.game_id, 1, 0, [0, 2],
                        [p.x25519_key for p in s1.setup.players], 2)
    k = s2.step
    vote = _released(s2, k, 1)
    framed = seal(s0.identity, MSG_COMPLAINT, [s0.game_id, 0, k, 2, BAD_DROP_SHARE, [vote, other], None])
    s2.receive_message(framed, 0.0)
    assert not [e for e in drain(s2) if isinstance(e, CheaterProven)]


def test_flood_of_datagrams_is_counted_dropped_and_bounded():
    sessions = started_sessions(3, options=DROP)
    s0, s1, s2 = sessions
    junk = 0
    for i in range(3000):
        s0.receive_message(bytes([i % 256]) * (i % 50), 0.0)
        b = seal(s1.identity, MSG_STEP, [s1.game_id, 10**6 + i, 1, bytes(32), bytes(32), None])
        s0.receive_message(b, 0.0)  # valid signature, far future: not stored
        junk += 2
    assert s0.stats["malformed"] + s0.stats["too_far"] == junk and len(s0.steps.dump()) <= C.STEP_WINDOW + C.KEEP_STEPS
    net = Net(sessions, random_legal(E, seed=6))
    net.run(max_time=1e4)
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
