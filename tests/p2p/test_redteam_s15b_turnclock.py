"""Red team session 15, second round (H169): the turn clock (protocol.md §C8.3 'Own decision across
steps', 41c93be) against a liar that plays with delivery, signatures and restarts. Tests only.

Live games (classico, 3 seats, turn time 40 s, drop timeout 10 s, virtual clock). The liar (seat 1)
answers nil at its own roll from step 20 (``test_turn_clock.OwnRollNet``); on top of that:

* F1 + the clock: its nil goes out with a garbled signature (a valid MAC on its channel is what F1
  attests; here no peer can hold it): nothing is held, so the turn clock never counts it and the
  drop timeout (§C8.3) votes it out at its FIRST stalled step, 10 s in -- garbling buys nothing;
* OWN_STEPS_PER_TURN - 1 held steps then silence: voted at the drop timeout of the next step, not
  a fresh count;
* the table split (§C8.3 'every honest peer votes at the same step'): its held nil reaches seat 0
  only at every stalled step (seat 2 gets it from seat 0's forward or a catch-up): both honest
  peers still vote at the same step, the bound's;
* an honest peer that restarts from its log (§C10) in the middle of the held turn, or whose log is
  cut back into that turn (a roll back, then a catch-up), counts the replayed and caught-up steps
  as live ones and votes at the same step as the other honest peer: the restart buys the liar
  nothing;
* the liar forcing that roll back itself (two versions of a held message, 100 steps into the
  turn): caught and proven at once (dropped at the next step), no second bound.
"""

from __future__ import annotations

from p2p.gamelog import OwnLog
from p2p.resume import resume_session
from p2p.session_events import PeerMisbehaved, SeatDropped, SeatDropVoted
from p2p.session_turn_clock import OWN_STEPS_PER_TURN
from p2p.wire import MSG_STEP, decode_step_body, open_envelope, seal

from p2p_harness import finish_together, restart_overturned
from test_turn_clock import LIAR, OwnRollNet, _classico, _of

DROP_TIMEOUT = 10.0


def _step_msg(data: bytes):
    """The STEP body of ``data``, or None for another message type."""
    if data[:2] != bytes([0x93, MSG_STEP]):
        return None
    return decode_step_body(open_envelope(data).body)


def _drops(net, seat):
    return [(d.step, d.seat) for d in _of(net, seat, SeatDropped)]


def test_f1_a_liar_garbling_its_held_nils_signature_is_voted_out_at_its_first_stalled_step(tmp_path):
    """§C8.3 (drop timeout) with F1 (§C8.3 'A seat's own channel'): the liar's nil at its roll is
    sent with its signature's last byte flipped (every copy, re-sends included). No honest peer
    holds it (bad signature, reported), so the turn clock has nothing to count and the liar's
    message is simply missing: both honest peers vote DROP at its FIRST stalled step, the drop
    timeout after that step began, and it is dropped there (not OWN_STEPS_PER_TURN steps later)."""
    RE, sessions, paths = _classico(tmp_path)
    garbled: list = []

    def drop(src, dst, data):
        if src != LIAR or net.s[dst] is None:
            return False
        b = _step_msg(data)
        if b is None or b.step not in net.stalled:
            return False
        garbled.append(b.step)
        net.s[dst].receive_message(data[:-1] + bytes([data[-1] ^ 1]), net.now)
        return True

    net = OwnRollNet(RE, sessions)
    net.drop = drop
    net.run(max_time=1e6, max_rounds=5_000_000)
    first = net.stalled[0]
    assert garbled and min(garbled) == first  # premise: the held nil went out garbled
    for i in (0, 2):
        assert any(e.seat == LIAR and "signature" in e.reason for e in _of(net, i, PeerMisbehaved)), i
        votes = [(v.step, v.seat) for v in _of(net, i, SeatDropVoted)]
        assert votes[:1] == [(first, LIAR)], (i, votes[:3])
        assert _drops(net, i) == [(first, LIAR)], i
    finish_together(net, sessions, paths, (0, 2), cheaters=(), engine=RE)


def test_c8_3_bound_minus_one_held_steps_then_silence_is_voted_at_the_drop_timeout_once(tmp_path):
    """§C8.3: the liar holds its roll OWN_STEPS_PER_TURN - 1 times (nil at once), then sends
    nothing at the next step. Both honest peers vote at that step (the drop timeout: the message
    is missing; the bound's step would have been the same one, so no count is restarted by the
    silence), drop it once, finish together; logs verify with no cheater."""
    RE, sessions, paths = _classico(tmp_path)
    net = OwnRollNet(RE, sessions)
    st: dict = {}

    def drop(src, dst, data):
        if src != LIAR or not net.stalled:
            return False
        b = _step_msg(data)
        last = net.stalled[0] + OWN_STEPS_PER_TURN - 1
        if b is not None and b.step >= last and b.step in net.stalled:
            st.setdefault("silent", b.step)
            return True  # silence from the last held step on
        return False

    net.drop = drop
    net.run(max_time=1e6, max_rounds=5_000_000)
    first = net.stalled[0]
    assert st["silent"] == first + OWN_STEPS_PER_TURN - 1  # premise: bound - 1 held, then silence
    for i in (0, 2):
        assert _drops(net, i) == [(st["silent"], LIAR)], i
    finish_together(net, sessions, paths, (0, 2), cheaters=(), engine=RE)


def test_c8_3_a_held_nil_reaching_one_honest_peer_only_splits_no_vote(tmp_path):
    """§C8.3 'Own decision across steps' ("every honest peer votes at the same step"): at every
    stalled step the liar's nil reaches seat 0 only (seat 2 gets it through seat 0's forward, a
    catch-up, or its own vote). Both honest peers still vote at the bound's step and the same one:
    first + OWN_STEPS_PER_TURN; nobody honest is dropped; they finish together."""
    RE, sessions, paths = _classico(tmp_path)
    withheld: list = []

    def drop(src, dst, data):
        if src != LIAR or dst != 2:
            return False
        b = _step_msg(data)
        if b is not None and b.step in net.stalled:
            withheld.append(b.step)
            return True
        return False

    net = OwnRollNet(RE, sessions)
    net.drop = drop
    net.run(max_time=1e6, max_rounds=5_000_000)
    first = net.stalled[0]
    assert withheld and min(withheld) == first  # premise: seat 2 never got the liar's nil directly
    bound = first + OWN_STEPS_PER_TURN
    for i in (0, 2):
        assert _drops(net, i) == [(bound, LIAR)], (i, _drops(net, i), net.describe())
    finish_together(net, sessions, paths, (0, 2), cheaters=(), engine=RE)


def _run_with_restart(tmp_path, at: int, cut: int | None):
    """The held-roll game; seat 2 restarts from its log once it reached ``first + at`` (its log
    cut at ``first + cut``; None: the whole log) -- a node restart (§C10), or a roll back and then
    a catch-up from the others. Returns (engine, net, paths, what happened)."""
    RE, sessions, paths = _classico(tmp_path)
    for s, p in zip(sessions, paths):
        s.own_log = OwnLog(f"{p}.own")
    net = OwnRollNet(RE, sessions)
    st: dict = {}

    def hook(n):
        s = n.s[2]
        if "at" not in st and n.stalled and s.step >= n.stalled[0] + at:
            st["at"], secret = s.step, s.own.chain.value(0)  # its chain secret, as its node keeps it
            s.log.close()
            s.own_log.close()
            trunc = None if cut is None else n.stalled[0] + cut
            n.s[2], _ = resume_session(paths[2], s.identity, secret, RE, own_log_path=f"{paths[2]}.own",
                                       now=n.now, truncate_at=trunc)
            st["resumed_at"] = n.s[2].step
        return n.wake(n)

    net.run(max_time=1e6, max_rounds=5_000_000, hook=hook)
    return RE, net, paths, st


def test_c10_an_honest_peer_restarting_from_its_log_mid_turn_votes_at_the_same_step(tmp_path):
    """§C10 + §C8.3 ("steps applied through a log replay are counted like live ones"): seat 2
    restarts from its whole log 80 steps into the liar's held turn. Its replay rebuilds the count:
    both honest peers vote at first + OWN_STEPS_PER_TURN, the liar is dropped there once."""
    RE, net, paths, st = _run_with_restart(tmp_path, 80, None)
    first = net.stalled[0]
    assert st["at"] >= first + 80 and st["resumed_at"] >= first + 79  # premise: restarted mid-turn
    for i in (0, 2):
        assert _drops(net, i) == [(first + OWN_STEPS_PER_TURN, LIAR)], (i, _drops(net, i))
    finish_together(net, net.s, paths, (0, 2), cheaters=(), engine=RE)


def test_c8_3_a_roll_back_into_the_held_turn_then_catch_up_votes_at_the_same_step(tmp_path):
    """§C8.3 ("a roll back to step c keeps the counts of the steps before c") on the peer
    that rolled back: seat 2's log is cut 40 steps into the held turn when it is 120 steps in; it
    replays to the cut and catches the rest up from the others. The caught-up steps are counted:
    both honest peers vote at first + OWN_STEPS_PER_TURN (no split: the liar gains no second
    bound from an honest peer's roll back)."""
    RE, net, paths, st = _run_with_restart(tmp_path, 120, 40)
    first = net.stalled[0]
    assert st["at"] >= first + 120 and st["resumed_at"] <= first + 41  # premise: rolled back into the turn
    for i in (0, 2):
        assert _drops(net, i) == [(first + OWN_STEPS_PER_TURN, LIAR)], (i, _drops(net, i))
    finish_together(net, net.s, paths, (0, 2), cheaters=(), engine=RE)


def test_c8_3_a_liar_forcing_a_roll_back_mid_turn_is_proven_and_gets_no_second_bound(tmp_path):
    """§C8.3 (a roll back keeps the counts before the cut) vs §C3.4 ('Two versions applied'): 100 steps
    into its held turn the liar signs two versions of its step message, nil for seat 0 and a
    refused PayJailFine for seat 2 (both hold its roll: each honest peer applies the one it got),
    to force a roll back and a fresh count. Measured: the two versions are caught, the liar is
    proven and dropped long before first + OWN_STEPS_PER_TURN, the honest peers finish together
    and their logs name it; a forced roll back costs the liar its seat, not the clock a bound."""
    RE, sessions, paths = _classico(tmp_path)
    for s, p in zip(sessions, paths):
        s.own_log = OwnLog(f"{p}.own")
    secrets = [s.own.chain.value(0) for s in sessions]
    net = OwnRollNet(RE, sessions)
    plan: dict = {}
    other = RE.encode_action(RE.actions.PayJailFine())

    def drop(src, dst, data):
        if src != LIAR or dst != 2 or not net.stalled or net.s[dst] is None:
            return False
        b = _step_msg(data)
        if b is None or b.step != net.stalled[0] + 100 or b.input is not None:
            return False
        plan.setdefault("raw", seal(net.s[LIAR].identity, MSG_STEP, [*b[:5], other]))
        plan["k"] = b.step
        net.s[dst].receive_message(plan["raw"], net.now)
        return True

    net.drop = drop
    restarts: list = []
    net.run(max_time=1e6, max_rounds=5_000_000, hook=restart_overturned(paths, secrets, restarts, engine=RE))
    first = net.stalled[0]
    assert plan.get("k") == first + 100  # premise: the second version went to seat 2
    for i in (0, 2):
        drops = _drops(net, i)
        assert drops == [(first + 101, LIAR)], (i, drops, restarts)  # measured: the next step
    assert (2, first + 100, True) in restarts  # seat 2 rolled back to the kept version
    finish_together(net, net.s, paths, (0, 2), cheaters={LIAR}, engine=RE)
