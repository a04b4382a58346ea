"""Red team of forced reveals (protocol version 4, protocol.md §C3.8; issue 14), part 2: the real
engine (classico, niente), the holes found and fixed this session (an early non-forced body, a
colluder's page, a wrong reveal to one victim) and a property over any mix of a griefer's moves.
The attacker, the harness and the promises are part 1's (test_redteam_forced.py)."""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

import fake_engine as E
from p2p import const as C
from p2p.lockstep import CheaterProven, SeatDropped
from p2p.verify import verify_log
from p2p.wire import MSG_STEP, open_envelope, seal

from p2p_harness import random_legal, restart_overturned
from redteam_auth_kit import STEP_TAG, KeyedNet, garbled, step_of
from test_resilience import finals, logged_game
from redteam_forced_kit import (DROP, forced_looking, garble_forced, honest_logs_verify, with_acks, ForcedSteps, page_of, second_body_game, real_game)


def test_classico_with_a_griefer_garbling_its_forced_bodies(tmp_path):
    """The real engine (classico: dice, cards, every chance step of the rules), seat loss on
    (escrow rounds), seat 3 garbles every forced body: the four finish one game, nobody dropped
    or proven, every log verifies; the honest peers held the griefer's bodies unchecked."""
    from test_real_engine_game import chooser

    net, sessions = real_game(tmp_path, "classico", {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5},
                               lambda sessions: garble_forced(3), chooser())
    assert net.lies and all(sessions[i].stats["forced"] > 0 for i in range(3))


def test_niente_has_no_plain_chance_step_a_forced_looking_body_needs_its_signature(tmp_path):
    """niente-e-come-sembra (hidden information, §C12): no step is a plain chance step, so
    nothing is taken unchecked. Seat 3 sends victim 0, at every chance step, a 6-field body with
    its real reveal over the right history (a forced body in a classico game) and a garbage
    signature instead of its real message (reveal + hidden field). The victim drops each one
    (``bad_signature``, never ``forced``), gets seat 3's signed message from the others' records,
    and the four finish one game whose logs verify naming nobody."""
    import engine as RE

    def make_lie(sessions):
        def lie(src, dst, raw):
            b = step_of(raw)
            if src != 3 or dst != 0 or type(b.input) is not bytes or b.hidden is None:
                return None
            return garbled(seal(sessions[3].identity, MSG_STEP,
                                [b.game_id, b.step, 3, b.prev_hash, b.prev_digest, b.input]))
        return lie

    net, sessions = real_game(tmp_path, "niente-e-come-sembra", None, make_lie,
                               lambda s: RE.choose(s.state, s.my_seat, "default", s.private_view()))
    assert net.lies
    assert sessions[0].stats["forced"] == 0 and sessions[0].stats["bad_signature"] >= 1


def test_an_early_signed_non_forced_body_is_refused_when_its_step_begins(tmp_path):
    """Victim 0 lags a step (the first copy of seat 1's messages of steps 5..12 to it is lost),
    so seat 3's messages of the next step reach it EARLY, verified and buffered (§C3.4 'step >
    ours'). For steps 6..12 seat 3 sends victim 0, instead of its forced body, its signed body
    plus an escrow ack. When such a step begins as a plain chance step, the buffered body must
    be judged as on receipt (§C3.8: not the forced body -> not held, ``not_forced``), never
    applied: else the victim's digest differs from everyone's, 'Two versions applied' may keep
    the ack body (the liar picks its hash) and the honest peers roll back onto a body no log can
    verify. Safe: nobody halts, rolls back or is dropped, one game, every honest log verifies.
    (Found by H75, 20:53: the victim applied it; fixed in b1c05b8, re-judged at step begin.)"""
    sessions, paths, _, _ = logged_game(tmp_path, 4, DROP)
    g, v = 3, 0
    first: set = set()

    def lie(src, dst, raw):
        if src == g and dst == v and forced_looking(raw) and 6 <= step_of(raw).step <= 12:
            return with_acks(sessions[g].identity, raw)
        return None

    def drop(src, dst, raw):
        if src != 1 or dst != v or raw[:2] != STEP_TAG or not 5 <= step_of(raw).step <= 12:
            return False
        if raw in first:
            return False
        first.add(raw)
        return True

    net = KeyedNet(list(sessions), random_legal(E, seed=3), lie=lie)
    net.drop = drop
    net.run(max_time=300.0)
    assert net.lies and sessions[v].stats["not_forced"] > 0, (net.describe(), [s.halt_reason.__class__.__name__ for s in sessions])
    for i in range(3):
        assert sessions[i].halt_reason is None, (i, sessions[i].halt_reason, net.describe())
        assert not [e for e in net.events[i] if isinstance(e, SeatDropped)], i
    honest_logs_verify(net, sessions, paths, range(3))


def test_a_colluders_page_never_overturns_a_plain_chance_step_onto_a_non_forced_body(tmp_path):
    """Liar 1 signs, besides its forced body of an applied plain chance step k >= 6, a second body
    with an escrow ack whose bytes it grinds until ``kept_version`` (smaller SHA-256, §C3.4 'Two
    versions applied') would keep it; colluder 2 serves it to victim 0 in ITS page of step k.
    At a plain chance step only the forced body can be the step's body (§C3.8): the victim may
    prove seat 1 (both versions signed) but never rolls back onto the ack body. Safe: no
    StepOverturned at the victim, the honest seats 0 and 3 finish one game with the others, every
    log verifies naming at most seat 1. (H79's review, 20:57; fixed by H72 in 45c8c31.)"""
    from p2p.step_collect import kept_version
    from p2p.lockstep import StepOverturned

    sessions, paths, secrets, _ = logged_game(tmp_path, 4, DROP)
    liar, colluder, v = 1, 2, 0
    lie = ForcedSteps(liar, garble=False)

    def make(s, k):
        forced = open_envelope(lie.sent[k], C.MAX_STEP_MSG).body
        b = step_of(lie.sent[k])
        for n in range(256):  # grind the ack until kept_version would keep it
            evil = seal(sessions[liar].identity, MSG_STEP, [b.game_id, k, liar, b.prev_hash, b.prev_digest, b.input,
                                                            None, None, [[0, 0, bytes([n]) * 32]]])
            if kept_version(forced, open_envelope(evil, C.MAX_STEP_MSG).body) != forced:
                break
        return page_of(sessions[colluder], s, k, evil, seat=liar)

    net, done = second_body_game(sessions, lie, make)
    assert done, net.describe()
    assert not isinstance(sessions[v].halt_reason, StepOverturned), sessions[v].halt_reason
    overs = finals(net)
    assert all(len(overs[i]) == 1 for i in (0, 3)), net.describe()
    assert len({o[0].final_hash for o in overs if o}) == 1
    for i in range(4):
        sessions[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and (rep.complete or i == liar), (i, rep.error)  # the liar may be voted out
        assert {c["seat"] for c in rep.cheaters} <= {liar}, (i, rep.cheaters)


def test_a_wrong_reveal_to_one_victim_never_wins_over_the_forced_body(tmp_path):
    """Seat 3 sends victim 0 the FIRST copy of its message of chance steps 1 and 2 as a signed
    wrong reveal (6 fields, §C8.8 kind 2), every re-send and every other peer its forced body.
    The victim proves seat 3 (both versions signed: the others too), but must still apply the
    forced body (the only body a plain chance step can apply, §C3.8), reach the next step and
    vote there with the others, so seat 3 is dropped and the game goes on. (Found by H75's
    widened mix test, 21:05: the victim kept the wrong reveal, voted at k while the others voted
    at k+1, and no quorum ever formed: the whole table stalled; the same on v3 code. Fixed by
    H72 in 45c8c31: at a plain chance step the kept version is the forced body.)"""
    sessions, paths, _, _ = logged_game(tmp_path, 4, DROP)
    g, v = 3, 0
    first: set = set()

    def lie(src, dst, raw):
        if src != g or dst != v or not forced_looking(raw) or step_of(raw).step not in (1, 2) or raw in first:
            return None
        first.add(raw)
        b = step_of(raw)
        return seal(sessions[g].identity, MSG_STEP, [b.game_id, b.step, g, b.prev_hash, b.prev_digest, b"\x13" * 32])

    net = KeyedNet(list(sessions), random_legal(E, seed=0), lie=lie)
    net.run(max_time=300.0)
    assert net.lies
    for i in range(3):
        assert {e.seat for e in net.events[i] if isinstance(e, SeatDropped)} <= {g}, i
    honest_logs_verify(net, sessions, paths, range(3), cheaters=[g])


# -- A10: any mix of the griefer's moves -------------------------------------------------------

@settings(max_examples=10, deadline=None, phases=[Phase.explicit, Phase.generate, Phase.shrink],
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(moves=st.lists(st.sampled_from(["send", "garble", "acks", "withhold", "wrong"]), min_size=5, max_size=13),
       victims=st.sets(st.integers(0, 2), min_size=1, max_size=2), seed=st.integers(0, 3),
       n=st.sampled_from([3, 4, 5]))
@example(moves=["send", "acks", "acks", "send", "send", "send", "send", "send"], victims={0}, seed=0, n=4)  # H75 20:53
@example(moves=["send"] * 8 + ["wrong"], victims={0}, seed=0, n=4)  # H75 21:05: the wrong-reveal stall
def test_any_mix_of_a_griefers_chance_step_moves_is_safe(tmp_path_factory, moves, victims, seed, n):
    """In a game of ``n`` seats (seat loss on), the last seat treats each copy of its forced
    bodies toward the ``victims`` by a move drawn per step and copy (cycling through ``moves``):
    send it, garble its signature, replace it by its signed body with an escrow ack (refused,
    §C3.8) or by a signed wrong reveal (proven, §C8.8), or withhold it (the others get it as
    sent); a peer halted by ``StepOverturned`` restarts from its log as the node does. Safety,
    whatever the mix: no honest peer is proven or dropped, every honest peer that finishes has
    the same final hash, and every honest log verifies (possibly incomplete) naming no honest
    seat."""
    tmp_path = tmp_path_factory.mktemp("mix")
    sessions, paths, secrets, _ = logged_game(tmp_path, n, DROP)
    g = n - 1  # the griefer: the last seat; victims among the others
    victims = {x for x in victims if x < g}

    count: dict = {}

    def move(raw):  # per step and per copy (first copy, re-sends...)
        count[raw] = count.get(raw, 0) + 1
        return moves[(step_of(raw).step * 7 + count[raw]) % len(moves)]

    def lie(src, dst, raw):
        if src != g or dst not in victims or not forced_looking(raw):
            return None
        m = move(raw)
        if m == "wrong":
            b = step_of(raw)
            return seal(sessions[g].identity, MSG_STEP, [b.game_id, b.step, g, b.prev_hash, b.prev_digest, b"\x13" * 32])
        return garbled(raw) if m == "garble" else with_acks(sessions[g].identity, raw) if m == "acks" else None

    net = KeyedNet(list(sessions), random_legal(E, seed=seed), lie=lie)
    net.drop = lambda src, dst, raw: src == g and dst in victims and raw[:2] == STEP_TAG \
        and forced_looking(raw) and move(raw) == "withhold"
    net.run(max_time=300.0, hook=restart_overturned(paths, secrets))  # as the node restarts (§C3.4)
    honest = range(g)
    for i in honest:
        proven = {e.seat for e in net.events[i] if isinstance(e, (CheaterProven, SeatDropped))}
        assert proven <= {g}, (i, proven, net.describe())
    overs = [o[0].final_hash for o in finals(net)[:g] if o]
    assert len(set(overs)) <= 1
    for i in honest:
        net.s[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok, (i, rep.error)
        assert {c["seat"] for c in rep.cheaters} <= {g}, (i, rep.cheaters)
