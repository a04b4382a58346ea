"""One seat's word does not halt an honest peer (protocol.md §C3.4 'One seat's word', §C8.8).

A current-step message over our digest with another state hash, a digest the disputed seat's
own answer does not explain, or another step-0 digest is refused as a lone mismatch while seat
loss can act (``referee.Referee._lone``): not held, counted ``superseded``, reported once
(``PeerMisbehaved``), the records of our current step asked for. It stays a **Desync** halt
when no quorum could drop the seats over other histories: more than ``active - Q`` distinct
seats signed this step over other histories than ours (we may be the odd one: a genuine
divergence; a seat under a digest dispute counts only once its own answer leaves it
unexplained), or no drop is possible (seat loss off, two seats:
``test_lockstep.test_wrong_prev_hash_is_a_desync_with_evidence``). H94's attacks are in
``test_redteam_s10_desync.py``. In memory, virtual clock, fake engine.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import fake_engine as E
from p2p import const as C
from p2p.gamelog import LogWriter
from p2p.lockstep import CheaterProven, Desync, GameOver, PeerMisbehaved, SeatDropped
from p2p.step_collect import kept_version
from p2p.wire import MSG_CATCHUP_RESP, MSG_STEP, decode_step_body, open_envelope, seal

from p2p_harness import Net, make_lobbies, pump_lobbies, random_legal
from test_redteam_s10_desync import CHEAT, OPTS, WrongStateHash, _attack


class Diverged:
    """The fake engine, except that its state hash differs from the ``after``-th call on: a
    peer whose engine diverged from the others' (a bug, not a lie)."""

    def __init__(self, after: int) -> None:
        self.calls, self.after = 0, after

    def __getattr__(self, name: str) -> Any:
        return getattr(E, name)

    def state_hash(self, state: Any) -> bytes:
        self.calls += 1
        h = E.state_hash(state)
        return h if self.calls < self.after else bytes([h[0] ^ 0xFF]) + h[1:]


def _sessions(tmp_path, n: int, options: dict, engines: dict) -> list:
    """Sessions of an ``n``-seat game; seat i runs ``engines.get(i, E)``."""
    lobbies = make_lobbies(n, options=options)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    return [l.start_session(engines.get(i, E), log=LogWriter(tmp_path / f"seat{i}.log", l.log_header()))
            for i, l in enumerate(ordered)]


def _outcome(net: Net, seats) -> tuple[list, set, list]:
    halted = [i for i in seats if any(isinstance(e, Desync) for e in net.events[i])]
    dropped = {e.seat for i in seats for e in net.events[i] if isinstance(e, SeatDropped)}
    finished = [i for i in seats if any(isinstance(e, GameOver) for e in net.events[i])]
    return halted, dropped, finished


@pytest.mark.parametrize("n, odd, finish", [(4, (0,), True), (3, (0,), True), (5, (0, 1), True), (4, (0, 1), False)],
                         ids=["4_one_odd", "3_one_odd", "5_two_odd", "4_split_two_two"])
def test_a_genuine_divergence_still_halts_the_odd_peers(tmp_path, n, odd, finish):
    """The engines of ``odd`` diverge (their state hash differs from the 6th on). Each odd peer
    sees more than ``active - Q`` seats sign over another history, so it halts with Desync
    ("state"), as before. The others, if they can still form a quorum (``finish``), refuse the
    odd peers' messages as lone mismatches, vote them out as silent and finish; in a 2-2 split
    of 4 seats nobody can drop anybody and every peer halts with Desync, as before."""
    sessions = _sessions(tmp_path, n, OPTS, {i: Diverged(6) for i in odd})
    net = Net(sessions, random_legal(E, seed=5))
    net.run(max_time=1e4)
    rest = tuple(i for i in range(n) if i not in odd)
    for i in odd:
        d = [e for e in net.events[i] if isinstance(e, Desync)]
        assert d and d[0].field == "state", net.describe()
    halted, dropped, finished = _outcome(net, rest)
    if finish:
        assert not halted and dropped == set(odd) and finished == list(rest), net.describe()
        assert all(sessions[i].stats["superseded"] >= 1 for i in rest)
    else:
        assert halted == list(rest) and not finished, net.describe()


def test_without_seat_loss_a_lone_wrong_state_hash_still_halts(tmp_path):
    """Seat loss off: no drop could remove a liar, so the lone mismatch halts as before (§C3.4
    'One seat's word', documented): the victim halts with Desync."""
    sessions = _sessions(tmp_path, 4, {"target": 40}, {})
    atk = WrongStateHash(sessions, (0,), "state")
    net = atk.net = Net(sessions, random_legal(E, seed=5), drop=atk)
    net.run(max_time=1e4)
    assert atk.k is not None and [e for e in net.events[0] if isinstance(e, Desync)], net.describe()


def test_a_lone_wrong_state_hash_is_counted_and_reported_once(tmp_path):
    """The victim of a flipped state hash counts it ``superseded``, reports the seat once with
    the lie as evidence, and applies the seat's real message (nobody dropped)."""
    from test_resilience import logged_game
    sessions, _, _, _ = logged_game(tmp_path, 4, OPTS)
    atk = WrongStateHash(sessions, (0,), "state")
    net = atk.net = Net(list(sessions), random_legal(E, seed=5), drop=atk)
    net.run(max_time=1e4)
    reports = [e for e in net.events[0] if isinstance(e, PeerMisbehaved) and "another history" in e.reason]
    assert [(e.seat, e.step, e.evidence) for e in reports] == [(CHEAT, atk.k, atk.lie)]
    assert sessions[0].stats["superseded"] >= 1
    assert _outcome(net, (0, 1, 2)) == ([], set(), [0, 1, 2]), net.describe()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(victims=st.sets(st.sampled_from([0, 1, 2]), min_size=1),
       field=st.sampled_from(["state", "digest_page", "digest_at_0", "attestation", "state_record", "digest"]))
def test_property_no_subset_of_victims_halts_or_is_dropped(tmp_path_factory, victims, field):
    """Whichever honest peers get the lie, of whichever kind: no honest peer halts or is
    dropped, all three finish (§C8.8 'does not halt alone')."""
    halted, dropped, finished, where = _attack(tmp_path_factory.mktemp("g"), tuple(sorted(victims)), field)
    assert not halted and not dropped - {CHEAT} and finished == [0, 1, 2], where



class LieAndWithhold(WrongStateHash):
    """The lie of ``WrongStateHash`` ("state"), and the liar never gives a victim its real
    message: its catch-up pages to them are dropped too."""

    def __call__(self, src: int, dst: int, data: bytes) -> bool:
        if src == CHEAT and dst in self.told and data[:2] == bytes([0x93, MSG_CATCHUP_RESP]):
            return True
        return super().__call__(src, dst, data)


def test_a_liar_that_never_sends_its_real_message_to_every_honest_peer_is_voted_out(tmp_path):
    """Every honest peer gets the lie and never the liar's real message (no re-send, no page):
    none halts; they vote the liar out as silent (§C8.3), a quorum of three, and finish."""
    from test_resilience import logged_game
    sessions, _, _, _ = logged_game(tmp_path, 4, OPTS)
    atk = LieAndWithhold(sessions, (0, 1, 2), "state")
    net = atk.net = Net(list(sessions), random_legal(E, seed=5), drop=atk)
    net.run(max_time=1e4)
    assert atk.k is not None
    assert _outcome(net, (0, 1, 2)) == ([], {CHEAT}, [0, 1, 2]), net.describe()


class EquivocateThenLie:
    """H95's review #5: seat CHEAT equivocates at its first decision step k1 >= 6 (a version
    with another input to victim 0 only, its real one to seats 1, 2), so at k1+1 the honest
    seats' messages carry another digest at 0 and open a digest dispute there; while it is
    open, CHEAT sends 0 a lie over 0's own digest with another state hash (its real step-k1+1
    message to 0 withheld). Its version to 0 is the one ``kept_version`` keeps (else 0 would
    roll back to the others' and the premise, 0 in a dispute at k1+1, never comes: a different
    path, tested in ``test_record_equivocation.py``), searched as ``["adv", n]``, n = 99, 100..."""

    def __init__(self, sessions) -> None:
        self.s, self.k1, self.a, self.lied, self.net = sessions, None, None, False, None

    def __call__(self, src: int, dst: int, data: bytes) -> bool:
        if src != CHEAT or data[:2] != bytes([0x93, MSG_STEP]):
            return False
        b = decode_step_body(open_envelope(data).body)
        if self.k1 is None and b.step >= 6 and type(b.input) is not bytes:
            self.k1 = b.step
        if b.step == self.k1 and dst == 0:
            n = 99
            while self.a is None:  # the version the table keeps (§C3.4 'Two versions applied'): 0 goes
                # on, seats 1, 2 roll back; ["adv", 99] was kept only by the setup's bytes (H173, H179)
                a = seal(self.s[CHEAT].identity, MSG_STEP, [b.game_id, b.step, CHEAT, b.prev_hash,
                                                            b.prev_digest, ["adv", n]])
                if kept_version(open_envelope(data).body, open_envelope(a).body) == open_envelope(a).body:
                    self.a = a
                n += 1
            self.net.s[0].receive_message(self.a, self.net.now)
            return True
        return self.k1 is not None and b.step == self.k1 + 1 and dst == 0

    def hook(self, net: Net) -> None:
        p = net.s[0]
        if self.lied or self.k1 is None or p.step != self.k1 + 1 \
                or not any(isinstance(e, CheaterProven) for e in net.events[0]):
            return None  # once the dispute at 0 found the equivocation
        h = p.state_hash
        self.lied = True
        p.receive_message(seal(self.s[CHEAT].identity, MSG_STEP, [p.setup.game_id, p.step, CHEAT,
                                                                  h[:31] + bytes([h[31] ^ 1]), p.steps.prev_digest,
                                                                  None]), net.now)
        return None


def test_a_seat_under_a_digest_dispute_does_not_count_towards_a_halt(tmp_path):
    """H95 #5: a seat whose message opened a digest dispute is not counted among the seats
    over another history (the dispute may find an equivocation: a fork the table converges
    from); only an unexplained mismatch counts. So one liar's equivocation plus its state lie
    to the same victim do not halt it with Desync (it was: seat 1 under the dispute + the liar
    = 2 > active - Q): the lie is refused and reported. (Seats 1 and 2 end with
    StepOverturned, which a node restarts from its log and the harness does not.)"""
    from test_resilience import logged_game
    sessions, _, _, _ = logged_game(tmp_path, 4, OPTS)
    atk = EquivocateThenLie(sessions)
    net = atk.net = Net(list(sessions), random_legal(E, seed=5), drop=atk)
    net.run(max_time=1e4, hook=atk.hook)
    assert atk.lied, net.describe()
    assert not [e for e in net.events[0] if isinstance(e, Desync)], net.describe()
    assert [e.seat for e in net.events[0] if isinstance(e, PeerMisbehaved) and "another history" in e.reason] == [CHEAT]
