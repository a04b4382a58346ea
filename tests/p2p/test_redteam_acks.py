"""Red team of the escrow acknowledgements and the escrow round (protocol.md §C8.2
"Acknowledgements and the escrow round", §C8.3 fault table, §C8.5; p2p/escrow_acks.py; issue 10).

One laptop is hostile: it signs whatever it likes in its own STEP's 9th field (acks), deals its
escrow to whom it likes, and lies in its final attestation. Each test names the attack. A rule
that holds is asserted as a regression test; a rule that breaks is a strict xfail naming the
protocol.md section it contradicts (it turns into a failure the day it is fixed: remove the mark
then). In memory, virtual clock, fake engine (tests/p2p/p2p_harness.py): seconds each.

Findings (09:00 UTC, session 4):
* BREAK, fixed by H23 (09:20): one recipient that acknowledges an honest dealer's escrow with a
  made-up hash got the dealer proven ("signed two escrows, acknowledged with two hashes") and
  dropped, at no cost. Now two hashes prove nothing; the liar is voted out at the repeated round.
* BREAK, fixed by H23 (09:20): a seat whose final attestation carried an ack halted every honest
  peer (no GameOver). Now those acks are not applied, the seat is named, the game ends.
* FIXED (H31, 09:55): an input in the final attestation halted every honest peer; now it is
  not applied, the signer is named (session and verify), the game ends.
* Hold: Q - 1 liars forging ack hashes are dropped one per epoch, the dealer kept (the fix
  above); a recipient that acknowledges one escrow per STEP delays the first roll by n - 2
  escrow rounds, no more (§C8.5 (c)); a recipient that never acknowledges one dealer, or
  acknowledges with old-epoch acks, or stops acknowledging after a re-seat, is proven by
  history at the repeated round and dropped (the dealer keeps its seat); a dealer that deals to
  one seat only is forwarded by the others; two seats (and 3 after a drop) never hold an escrow
  round; a restart inside an escrow round resumes; a seat dropped at the escrow round gets the
  stand-in and its spectator agrees on the end; an input at an escrow round is ignored by every
  peer and verify; acks signed for the next epoch before it began count as lies (dropped).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import fake_engine as E
from p2p import const as C
from p2p.bodies import EscrowAck
from p2p.lockstep import CheaterProven, GameOver, SeatDropped, StepApplied
from p2p.verify import verify_log
from p2p.wire import MSG_ESCROW, MSG_STEP, decode_escrow, decode_step_body, open_envelope, seal_message

from p2p_harness import Net, crash_at, finish_together, random_legal
from test_resilience import crash_and_restart, logged_game

OPTS = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}


def _dropped(net: Net, i: int) -> list[tuple[int, int]]:
    return [(e.step, e.seat) for e in net.events[i] if isinstance(e, SeatDropped)]


def _proven(net: Net, i: int) -> set[int]:
    return {e.seat for e in net.events[i] if isinstance(e, CheaterProven)}


def _escrow_rounds(net: Net, i: int) -> int:
    return [e.kind for e in net.events[i] if isinstance(e, StepApplied)].count("escrow")


def _lying_acks(session, lie) -> None:
    """The hostile seat signs ``lie(real_acks)`` as its STEP's 9th field (its own key: allowed to
    sign anything)."""
    real = session.seats.owed_acks
    session.seats.owed_acks = lambda: tuple(lie(real()))


# -- acknowledgements that lie --------------------------------------------------------------------

@pytest.mark.parametrize("n", [4, 5])
def test_a_forged_ack_hash_does_not_convict_an_honest_dealer(tmp_path, n):
    """Attack: the last seat acknowledges honest dealer 0's escrow with 32 bytes of 0xee (an escrow
    nobody ever signed) and everything else truly. Wanted: dealer 0 is not proven nor dropped, the
    game ends for everyone. Seen (09:00): every honest peer proves seat 0 at step 0 'signed two
    escrows, acknowledged with two hashes' and drops it at step 1; seat 0 halts (SeatLost)."""
    sessions, paths, _, _ = logged_game(tmp_path, n, OPTS)
    liar = n - 1
    _lying_acks(sessions[liar], lambda acks: [EscrowAck(a.dealer, a.epoch, b"\xee" * 32) if a.dealer == 0 else a
                                              for a in acks])
    net = Net(list(sessions), random_legal(E, seed=1))
    net.run(max_time=1e4)
    for i in range(n):
        assert 0 not in _proven(net, i) and all(seat != 0 for _, seat in _dropped(net, i)), (i, net.describe())
    finish_together(net, sessions, paths, range(n - 1), cheaters=None)
    for i in range(n - 1):
        assert 0 not in {c["seat"] for c in verify_log(paths[i], engine=E).cheaters}


@pytest.mark.parametrize("n,liars,same", [(5, (3, 4), True), (6, (4, 5), False), (7, (5, 6), True)])
def test_q_minus_1_liars_forging_ack_hashes_lose_their_seats_not_the_dealer(tmp_path, n, liars, same):
    """Attack on the fix of the forged-ack break (§C8.2 'Two acknowledged hashes prove nothing'):
    Q - 1 lying recipients acknowledge honest dealer 0's escrow with made-up hashes (one shared
    lie, ``same``, or one each), hoping the honest voters, who vote out "the recipients whose hash
    is not our copy's", split or turn on an honest seat. Holds: every honest holder of dealer 0's
    one signed escrow names the same lowest liar; it is dropped, the next epoch's escrows are
    dealt, the other liar lies again and is dropped too; dealer 0 keeps its seat and the game
    ends together (the liars are dropped, not named: nothing they signed proves which copy they
    were dealt)."""
    sessions, paths, _, _ = logged_game(tmp_path, n, OPTS)
    for h in liars:
        lie = (b"\xee" if same else bytes([h])) * 32
        _lying_acks(sessions[h], lambda acks, lie=lie: [EscrowAck(a.dealer, a.epoch, lie) if a.dealer == 0 else a
                                                        for a in acks])
    net = Net(list(sessions), random_legal(E, seed=1))
    net.run(max_time=1e4)
    honest = [i for i in range(n) if i not in liars]
    for i in honest:
        assert [seat for _, seat in _dropped(net, i)] == list(liars), net.describe()
        assert _proven(net, i) == set()
    finish_together(net, sessions, paths, honest)


@pytest.mark.parametrize("crash_step,target", [(0, 0), (1, 0), (5, 0), (0, 3), (1, 3)])
def test_a_forged_ack_with_a_crash_drops_the_crashed_seat_and_the_liar_only(tmp_path, crash_step, target):
    """The forged-ack attack while seat 3 of 6 (Q = 4) crashes at the game-start escrow round (0),
    at the repeated round (1) or later (5); the liar (seat 5) forges dealer ``target``'s ack: an
    honest dealer (0) or the crashed seat itself (3). Holds: silence is voted first, then the
    liar (one vote per step and epoch, every honest voter in the same order); the crashed seat
    gets the stand-in where its escrow was not confirmed; no honest seat is dropped or named; the
    honest seats end together with logs that verify. A lie about the crashed seat's escrow dies
    with its drop (the liar keeps its seat: nothing left to settle)."""
    sessions, paths, _, _ = logged_game(tmp_path, 6, OPTS)
    _lying_acks(sessions[5], lambda acks: [EscrowAck(a.dealer, a.epoch, b"\xee" * 32) if a.dealer == target else a
                                           for a in acks])

    def hook(net):
        if net.s[3] is not None and net.s[3].step >= crash_step:
            net.s[3] = None
    net = Net(list(sessions), random_legal(E, seed=1))
    net.run(max_time=1e4, hook=hook)
    honest = (0, 1, 2, 4)
    for i in honest:
        dropped = {seat for _, seat in _dropped(net, i)}
        assert 3 in dropped and dropped <= {3, 5} and (target == 3 or 5 in dropped), net.describe()
        assert _proven(net, i) == set()
    finish_together(net, sessions, paths, honest)


def test_a_seat_that_never_acks_one_honest_dealer_loses_its_seat_not_the_dealer(tmp_path):
    """Attack: seat 3 of 4 acknowledges every escrow but honest dealer 0's, hoping every chance
    step becomes an escrow round for ever or that the dealer is blamed. Holds: at the second
    (repeated) escrow round its STEP acknowledges none of what it owes: proven by history, dropped
    (its escrow was confirmed: reconstructed), the dealer keeps its seat; 3 seats of 4 left, no
    escrow is dealt any more, so no more escrow rounds (3 in the whole game)."""
    sessions, paths, _, _ = logged_game(tmp_path, 4, OPTS)
    _lying_acks(sessions[3], lambda acks: [a for a in acks if a.dealer != 0])
    net = Net(list(sessions), random_legal(E, seed=1))
    net.run(max_time=1e4)
    for i in range(3):
        assert _proven(net, i) == {3} and _dropped(net, i) == [(2, 3)], net.describe()
        assert _escrow_rounds(net, i) == 3
    finish_together(net, sessions, paths, range(3), cheaters={3})


def test_acks_replayed_from_an_older_epoch_do_not_count(tmp_path):
    """Attack: after a drop (seat 4 of 5 crashes at step 8: epoch 1), seat 3 keeps acknowledging
    with its epoch-0 acks (replayed, validly signed inside its own STEPs) instead of the new
    escrows. Holds: an ack of another epoch confirms nothing (``AckLedger.add`` takes only the
    epoch's recipients), the chance step waits, the repeated round proves seat 3 by history and
    it is dropped; the other three finish together."""
    sessions, paths, _, _ = logged_game(tmp_path, 5, OPTS)
    first: dict[int, EscrowAck] = {}

    def replay(acks):
        out = []
        for a in acks:
            if a.epoch == 0:
                first[a.dealer] = a
            out.append(a if a.epoch == 0 else first.get(a.dealer, EscrowAck(a.dealer, 0, a.hash)))
        return out
    _lying_acks(sessions[3], replay)

    net = Net(list(sessions), random_legal(E, seed=2))
    net.run(max_time=1e4, hook=crash_at(4, 8))
    for i in range(3):
        assert _proven(net, i) == {3}, net.describe()
        assert [seat for _, seat in _dropped(net, i)] == [4, 3]
    finish_together(net, sessions, paths, range(3), cheaters={3})


@pytest.mark.parametrize("n", [4, 5, 6])
def test_a_seat_that_acks_one_escrow_per_round_delays_the_first_roll_by_n_minus_2_rounds(tmp_path, n):
    """Attack: the last seat acknowledges only the first escrow it owes in each STEP (the least
    that is not proven at a repeated round), to stretch the escrow rounds. Holds as §C8.5 (c)
    says: it owes n - 1 acks, so the first chance step waits n - 1 escrow rounds (n - 2 more than
    an honest table), nobody is dropped or named, the game ends together; later chance steps are
    not delayed (no new epoch)."""
    sessions, paths, _, _ = logged_game(tmp_path, n, OPTS)
    _lying_acks(sessions[n - 1], lambda acks: acks[:1])
    net = Net(list(sessions), random_legal(E, seed=1))
    net.run(max_time=1e4)
    for i in range(n):
        kinds = [e.kind for e in net.events[i] if isinstance(e, StepApplied)]
        assert kinds[:n - 1] == ["escrow"] * (n - 1) and kinds.count("escrow") == n - 1
        assert _dropped(net, i) == [] and _proven(net, i) == set()
    finish_together(net, sessions, paths, range(n))


@pytest.mark.parametrize("field", [
    "acks",
    "input",  # a strict xfail until H31 (09:55): it halted every honest peer (CheatDetected)
])
def test_a_field_in_the_final_attestation_does_not_veto_the_finished_game(tmp_path, field):
    """Attack: the game is over (terminal state, one attestation round left, §C3.5); seat 3, which
    lost, signs its attestation with an ack in the 9th field (``acks``) or an input (``input``).
    Wanted: the honest seats end the game (GameOver, complete logs), seat 3 named. Seen (09:00,
    both): seats 0-2 halt with CheatDetected 'final attestation carries an input' at the last
    step, no GameOver, logs verify but are not complete: the loser vetoed the result. The ack
    case is fixed (H23: named by history, the attestation's acks not applied)."""
    sessions, paths, _, _ = logged_game(tmp_path, 4, OPTS)
    forged: dict[int, bytes] = {}

    def drop(src, dst, raw):
        if src != 3 or raw[:2] != bytes([0x93, MSG_STEP]):
            return False
        b = decode_step_body(open_envelope(raw, C.MAX_STEP_MSG).body)
        if b.step != sessions[3].final_step:
            return False
        if b.step not in forged:
            lie = {"acks": (EscrowAck(0, 0, b"\x01" * 32),)} if field == "acks" else {"input": b"\x01" * 32}
            forged[b.step] = seal_message(sessions[3].identity, MSG_STEP, b._replace(**lie))
        net.s[dst].receive_message(forged[b.step], net.now)
        return True
    net = Net(list(sessions), random_legal(E, seed=1), drop=drop)
    net.run(max_time=1e4)
    assert forged
    finish_together(net, sessions, paths, range(3), cheaters={3})


def test_a_seat_that_stops_acking_after_a_re_seat_loses_its_seat(tmp_path):
    """Escrow rounds after a drop and a re-seat: seat 4 of 5 crashes at step 8, is dropped,
    restarts, follows as a spectator and is re-seated (a new epoch, new escrows: an escrow round
    before the next chance step); from that epoch on seat 3 acknowledges nothing. Holds: seat 3
    is proven by history at the repeated round and dropped, the re-seated seat keeps playing, and
    every peer (seat 3's too) ends with one final hash and a complete log naming only seat 3."""
    from p2p.lockstep import SeatReturned
    from test_reseat_session import _returning

    sessions, paths, secrets, _ = logged_game(tmp_path, 5, dict(OPTS, target=60))
    real = sessions[3].seats.owed_acks
    sessions[3].seats.owed_acks = lambda: () if sessions[3].epoch >= 2 else real()  # epoch 2: after the re-seat
    hook, st = _returning(sessions, paths, secrets, 4, 8)
    net = Net(list(sessions), random_legal(E, seed=3))
    net.run(max_time=1e5, hook=hook)
    assert st["asked"]
    back = [(e.step, e.seat) for e in net.events[0] if isinstance(e, SeatReturned)]
    assert [seat for _, seat in back] == [4]
    for i in (0, 1, 2, 4):
        assert _proven(net, i) == {3}, net.describe()
        drops = _dropped(net, i)
        assert [seat for _, seat in drops] == [4, 3] and drops[1][0] > back[0][0]
    sessions[4] = net.s[4]
    finish_together(net, sessions, paths, range(5), cheaters={3})


@pytest.mark.parametrize("what", ["reveal", "action"])
def test_an_input_at_an_escrow_round_is_ignored_by_every_peer_and_verify(tmp_path, monkeypatch, what):
    """Attack: seat 3 of 4 signs its game-start escrow-round STEP with an input (its real next
    reveal, or an action) instead of nil, the same bytes to everyone, hoping some peer or
    ``verify`` applies it (an engine transition at an escrow round, a fork). Holds (§C8.2 'Escrow
    round': an input other than nil is a PeerMisbehaved problem and ignored): every other peer
    reports it, nobody applies it, every peer (seat 3 too) ends with one final hash and a log
    that verifies."""
    import p2p.own_step as L  # our STEP is sealed there (OwnStep.send_own)
    from p2p.lockstep import PeerMisbehaved

    sessions, paths, _, _ = logged_game(tmp_path, 4, OPTS)
    real, hostile = L.seal_envelope, sessions[3]

    def forged(identity, mtype, body):
        if mtype == MSG_STEP and identity is hostile.identity and body.step == 0:
            body = body._replace(input=hostile.chain.reveal_at(1) if what == "reveal" else [0])
        return real(identity, mtype, body)
    monkeypatch.setattr(L, "seal_envelope", forged)
    net = Net(list(sessions), random_legal(E, seed=1))
    net.run(max_time=1e4)
    for i in range(3):
        assert [(e.step, e.seat, e.reason) for e in net.events[i] if isinstance(e, PeerMisbehaved)] \
            == [(0, 3, "input at an escrow round")]
        assert _escrow_rounds(net, i) == 1 and _dropped(net, i) == []
    finish_together(net, sessions, paths, range(4))


def test_an_ack_signed_for_the_next_epoch_before_it_began_counts_as_a_lie(tmp_path):
    """Attack: seat 3 of 5, once its epoch-0 acks are applied, puts in every STEP acks of the
    NEXT epoch (made-up hashes: that epoch's escrows do not exist yet), hoping that when a drop
    opens that epoch at the very step its message is applied, peers and ``verify`` disagree on
    whether the acks count. Seat 4 crashes at step 8 (epoch 1 from its drop). Holds: every peer
    and ``verify`` apply the same acks in the same order (the drop opens the epoch before the
    step's acks are applied, everywhere): the made-up hashes are a lie against the real escrows,
    seat 3 is voted out at the repeated round; the honest seats end together, logs verify."""
    sessions, paths, _, _ = logged_game(tmp_path, 5, OPTS)
    hostile = sessions[3]
    real = hostile.seats.owed_acks

    def predict():
        acks = real()
        if acks or hostile.epoch > 0:
            return acks
        return tuple(EscrowAck(d, hostile.epoch + 1, b"\xab" * 32) for d in (0, 1, 2))
    hostile.seats.owed_acks = predict

    net = Net(list(sessions), random_legal(E, seed=2))
    net.run(max_time=1e4, hook=crash_at(4, 8))
    for i in range(3):
        assert [seat for _, seat in _dropped(net, i)] == [4, 3], net.describe()
        assert 0 not in _proven(net, i)
    finish_together(net, sessions, paths, range(3))


# -- dealers that do not deal ----------------------------------------------------------------------

def test_a_dealer_that_deals_to_one_seat_only_is_forwarded_and_keeps_its_seat(tmp_path):
    """Attack: seat 3 of 4 deals its escrow to seat 1 only, hoping seats 0 and 2 wait for it for
    ever or vote against an honest seat. Holds: at the escrow round seat 1 forwards every escrow
    it holds, every recipient acknowledges the one signed envelope, it is CONFIRMED at the second
    round, nobody is dropped or proven (silence toward some seats is not provable, and here it
    cost the table one escrow round)."""
    sessions, paths, _, _ = logged_game(tmp_path, 4, OPTS)

    def drop(src, dst, data):
        return src == 3 and dst != 1 and data[:2] == bytes([0x93, MSG_ESCROW]) \
            and decode_escrow(open_envelope(data, C.MAX_STEP_MSG).body).seat == 3
    net = Net(list(sessions), random_legal(E, seed=3), drop=drop)
    net.run(max_time=1e4)
    for i in range(4):
        assert _dropped(net, i) == [] and _proven(net, i) == set(), net.describe()
        assert _escrow_rounds(net, i) == 2
    finish_together(net, sessions, paths, range(4))


# -- where no escrow is dealt ---------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3])
def test_no_escrow_round_where_nobody_can_be_dropped(tmp_path, n):
    """Two seats (Q = 2: nobody is ever dropped) never hold an escrow round, so nothing there can be
    stalled by withheld acks; 3 seats hold the one at game start and none after a drop (then
    active - 1 < Q, no escrow is dealt)."""
    sessions, paths, _, _ = logged_game(tmp_path, n, OPTS)

    def hook(net):
        if n == 3 and net.s[2] is not None and net.s[2].step >= 8:
            net.s[2] = None
    net = Net(list(sessions), random_legal(E, seed=4))
    net.run(max_time=1e4, hook=hook)
    honest = range(2)
    for i in honest:
        assert _escrow_rounds(net, i) == (0 if n == 2 else 1)
        assert [seat for _, seat in _dropped(net, i)] == ([] if n == 2 else [2])
    finish_together(net, sessions, paths, honest)


# -- restarts, drops and spectators across an escrow round ----------------------------------------

@pytest.mark.parametrize("mute,crash_step", [(None, 0), (None, 1), (3, 1), (3, 2)])
def test_a_seat_restarting_inside_an_escrow_round_resumes(tmp_path, mute, crash_step):
    """Seat 1 of 4 crashes as it enters step ``crash_step`` and restarts from its log 1 s later
    (below the drop timeout): at the game-start escrow round (0), at the step after it, and with a
    mute acknowledger (seat 3) at the repeated round (1) and at the drop of the mute seat (2).
    Holds: the restarted seat resumes with no damage, nobody honest is dropped or proven, every
    honest peer ends with one final hash and a complete log naming only the mute seat."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, OPTS)
    if mute is not None:
        sessions[mute].seats.owed_acks = lambda: ()
    net = Net(list(sessions), random_legal(E, seed=7))
    hook, st = crash_and_restart(net, sessions, paths, secrets, seat=1, crash_step=crash_step, down_for=1.0)
    net.run(max_time=1e5, hook=hook)
    assert st["report"] is not None and st["report"].damage is None
    honest = [i for i in range(4) if i != mute]
    cheaters = set() if mute is None else {mute}
    for i in honest:
        assert _proven(net, i) == cheaters and {seat for _, seat in _dropped(net, i)} == cheaters
    sessions[1] = net.s[1]
    finish_together(net, sessions, paths, honest, cheaters)


def test_a_seat_dropped_at_the_escrow_round_gets_the_stand_in_and_its_spectator_agrees(tmp_path):
    """Seat 4 of 5 crashes at the game-start escrow round before sending anything and comes back
    10 s later. Holds: it is dropped at step 0 with the stand-in (its escrow was never confirmed:
    nobody had revealed, §C8.2 'What the confirmation decides'), not named a cheater; its restarted
    peer follows the game as a spectator and ends with the same final hash; every log verifies."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 5, OPTS)
    net = Net(list(sessions), random_legal(E, seed=8))
    hook, st = crash_and_restart(net, sessions, paths, secrets, seat=4, crash_step=0, down_for=10.0)
    net.run(max_time=1e5, hook=hook)
    assert st["report"] is not None and net.s[4].spectator
    for i in range(5):
        assert [(e.step, e.seat, e.reconstructed) for e in net.events[i] if isinstance(e, SeatDropped)] \
            == [(0, 4, False)], net.describe()
    sessions[4] = net.s[4]
    finish_together(net, sessions, paths, range(5))


# -- one hostile recipient, any mix of lies (property) -----------------------------------------------

_LIES = ("true", "forge", "omit", "old_epoch", "next_epoch")


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.sampled_from([4, 5, 6]), lies=st.lists(st.sampled_from(_LIES), min_size=6, max_size=6),
       crash=st.sampled_from([None, 0, 1, 6]), seed=st.integers(0, 2**16))
def test_any_mix_of_ack_lies_by_one_seat_never_costs_an_honest_seat(tmp_path_factory, n, lies, crash, seed):
    """Property: the last seat lies in its acks, per dealer (``lies[dealer]``): truly, with a
    made-up hash, not at all, with the hash under the previous epoch, or under the next one;
    seat 1 may crash (at the escrow round, the repeated round, or later). Invariant: no honest
    seat is dropped or named a cheater; every honest seat that is up ends the game with one final
    hash and a complete log that verifies (the liar and the crashed seat are dropped or not,
    whatever the rules say). With 4 seats (Q = 3) no crash: after the liar's drop nobody more
    can be dropped, and a crash then pauses the table by design (§C8.5 'Where nobody can be
    dropped')."""
    if n == 4:
        crash = None
    tmp = tmp_path_factory.mktemp("lies")
    sessions, paths, _, _ = logged_game(tmp, n, OPTS)
    liar = n - 1

    def lie(acks):
        out = []
        for a in acks:
            how = lies[a.dealer]
            if how == "forge":
                out.append(EscrowAck(a.dealer, a.epoch, b"\xee" * 32))
            elif how == "old_epoch" and a.epoch > 0:
                out.append(EscrowAck(a.dealer, a.epoch - 1, a.hash))
            elif how == "next_epoch":
                out.append(EscrowAck(a.dealer, a.epoch + 1, a.hash))
            elif how != "omit":
                out.append(a)
        return out
    _lying_acks(sessions[liar], lie)

    def hook(net):
        if crash is not None and net.s[1] is not None and net.s[1].step >= crash:
            net.s[1] = None
    net = Net(list(sessions), random_legal(E, seed=seed))
    net.run(max_time=1e5, hook=hook)
    honest = [i for i in range(n) if i not in (liar, 1 if crash is not None else -1)]
    for i in honest:
        assert not {seat for _, seat in _dropped(net, i)} & set(honest), net.describe()
        assert not _proven(net, i) & set(honest)
    finish_together(net, sessions, paths, honest, cheaters=None)
    for i in honest:
        assert not {c["seat"] for c in verify_log(paths[i], engine=E).cheaters} & set(honest)
