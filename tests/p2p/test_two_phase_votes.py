"""Two-phase drop votes (p2p/drop_vote.py, protocol.md §C8.3 "Two-phase votes", §C8.5).

A small discrete-time model of one step and epoch: N seats, one crashed seat (it may deliver
its step message to some seats before it crashes), directed links cut or lossy until the
network heals. Honest peers hold step messages, forward a seat's message to a voter that
names it, apply the step at once when they hold every message and never voted (a non-voter,
as in the session), else by a decision or the voter's certificate (signers of the next step).
The model drives ``DropRound`` exactly as a session would; it leaves out signatures, shares
and the wire (unit-tested elsewhere).
"""
from __future__ import annotations

import random

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from p2p.drop_vote import KEEP, NIL, PRECOMMIT, PREVOTE, DropRound, View, Vote, round_timeout

PERIOD = 2.0  # ticks between re-sends
DROP_T = 6  # ticks of silence before a seat is due (the drop timeout)


def quorum(n: int) -> int:
    return n // 2 + 1


class Peer:
    """One honest peer of the model."""

    def __init__(self, me: int, n: int, crashed: int, got_crashed: bool) -> None:
        self.me, self.n = me, n
        self.held = {me} | ({crashed} if got_crashed else set())
        self.signers: set[int] = set()
        self.dr = DropRound(n, quorum(n), [True] * n, me, PERIOD)
        self.outcome: int | None = None
        self.how = ""
        self.forwards: list[tuple] = []
        self.decided_votes: list[Vote] = []
        self.cast_votes: list[Vote] = []
        self.mute = False

    def receive(self, item: tuple, now: float) -> None:
        kind = item[0]
        if kind == "step":
            self.held.add(item[1])
        elif kind == "signed":
            self.signers.add(item[1])
            self.held.update(item[2])  # its catch-up answer: the messages it applied
        elif kind == "vote":
            raw = item[1]  # (voter, round, phase, target): the model's "envelope"
            v = Vote(raw[0], raw[1], raw[2], raw[3], None, raw)
            self.dr.add(v)
            if v.target != KEEP and v.target in self.held:
                self.forwards.append(("step", v.target))  # the voter lacks it (§C8.3 forwarding)

    def _cast(self, r: int, phase: int, target: int, now: float) -> None:
        v = Vote(self.me, r, phase, target, None, (self.me, r, phase, target))
        self.dr.cast(v, now)
        self.cast_votes.append(v)

    def act(self, now: float) -> None:
        if self.outcome is not None:
            return
        dr = self.dr
        complete = len(self.held) == self.n
        d = dr.decision()
        if d is not None and (d.target != KEEP or complete):
            self.outcome, self.how = d.target, "decision"
            self.decided_votes = list(d.votes)
            return
        voted = bool(self.cast_votes)
        if complete and not voted:
            self.outcome, self.how = KEEP, "at once"
            return
        if complete and voted and d is None and dr.may_apply(sorted(self.signers)):
            self.outcome, self.how = KEEP, "certificate"
            return
        for _ in range(3):
            p = dr.precommit(now)
            if p is not None:
                d = dr.decision()
                self._cast(dr.round if d is None else d.round, PRECOMMIT, p, now)
            if dr.tick(now):
                continue
            view = None
            if now >= DROP_T:
                view = View(complete, tuple(i for i in range(self.n) if i not in self.held), frozenset(self.held))
            p = dr.prevote(view)
            if p is not None:
                self._cast(dr.round, PREVOTE, p, now)

    def sends(self) -> list[tuple]:
        out = ([] if self.mute else [("step", self.me)]) + self.forwards
        self.forwards = []
        if self.outcome == KEEP:
            out.append(("signed", self.me, frozenset(self.held)))
        out += [("vote", raw) for raw in self.dr.own_votes()]
        out += [("vote", v.raw) for v in self.decided_votes]
        return out


def run(n: int, crashed: int, got: set[int], cut: set[tuple[int, int]], loss: float, heal: int, seed: int,
        horizon: int = 400, crash_at: int = 0, also_crashed: int | None = None, liar: bool = False) -> list[Peer]:
    """The honest peers at the end. The crashed seat plays honestly until ``crash_at`` (its
    votes count); its step message reaches the seats in ``got`` only. With ``liar`` it never sends
    its step message and, instead of voting, sends each peer its own random votes of the rounds
    seen (a different vote per peer in one slot: equivocation)."""
    rng = random.Random(seed)
    everyone = {i: Peer(i, n, crashed, i in got) for i in range(n)}
    everyone[crashed].mute = True  # its step message reached ``got`` only (a thinking seat, then a crash)
    if also_crashed is not None:  # a second seat, crashed before the step (sends nothing)
        del everyone[also_crashed]
        for p in everyone.values():
            p.held.discard(also_crashed)
    peers = {i: p for i, p in everyone.items() if i != crashed}
    for t in range(heal + horizon):
        up = everyone if t < crash_at else peers
        for p in up.values():
            p.act(float(t))
        batch = [(i, p.sends()) for i, p in up.items()]
        for i, items in batch:
            for j, q in everyone.items():
                if j == i or (j == crashed and t >= crash_at):
                    continue
                if liar and i == crashed:
                    top = max(p.dr.round for p in peers.values()) + 1
                    items = [("vote", (i, rng.randint(0, top), ph, rng.choice([KEEP, NIL] + list(range(n)))))
                             for ph in (PREVOTE, PRECOMMIT) for _ in range(2)]
                    items = [it for it in items if it[1][3] != i and (it[1][3] != NIL or it[1][2] == PRECOMMIT)]
                if i == crashed and t >= crash_at - 1 and rng.random() < 0.5:
                    continue  # it crashes while sending: some get its last votes, some do not
                if t < heal and ((i, j) in cut or rng.random() < loss):
                    continue
                for item in items:
                    q.receive(item, float(t))
        if t >= heal and all(p.outcome is not None for p in peers.values()):
            break
    return list(peers.values()) + ([everyone[crashed]] if crash_at > 0 else [])


def up_peers(peers: list[Peer], crashed: int) -> list[Peer]:
    return [p for p in peers if p.me != crashed]


def global_decisions(peers: list[Peer], n: int) -> set[int]:
    """Every target with Q precommits of one round among ALL the votes cast (not only held)."""
    tally: dict[tuple[int, int], set[int]] = {}
    for p in peers:
        for v in p.cast_votes:
            if v.phase == PRECOMMIT and v.target != NIL:
                tally.setdefault((v.round, v.target), set()).add(v.voter)
    return {t for (r, t), voters in tally.items() if len(voters) >= quorum(n)}


def check(peers: list[Peer], n: int, live: bool = True, crashed: int = -1) -> None:
    decided = global_decisions(peers, n)
    assert len(decided) <= 1, decided  # safety: one outcome of the step and epoch, whatever was held
    drops = {p.outcome for p in peers if p.outcome not in (None, KEEP)}
    assert len(drops) <= 1, drops  # no two honest peers drop different seats
    if decided:
        (target,) = decided
        for p in peers:
            if p.outcome is not None and p.outcome != target and p.me != target:
                # Only a non-voter that applied at once may differ: it rolls back (§C8.3 race).
                # The dropped seat itself halts with SeatLost and follows as a spectator.
                assert p.outcome == KEEP and p.how == "at once", (p.me, p.outcome, p.how, target)
    if live:
        assert all(p.outcome is not None for p in peers if p.me != crashed), \
            [(p.me, p.dr.round, p.dr.lock) for p in peers]


def test_three_seats_split_votes_finish() -> None:
    """§C8.5's example: 3 seats, seat 2 unreachable, 0 and 1 cut from each other at first:
    0 names 1, 1 names 0 (a split); once they hear each other, round r + 1 names 2 and drops it."""
    cut = {(0, 1), (1, 0)}
    peers = run(3, 2, set(), cut, 0.0, heal=12, seed=1)
    check(peers, 3)
    assert {p.outcome for p in peers} == {2}
    first = {p.me: p.cast_votes[0].target for p in peers}
    assert first == {0: 1, 1: 0}  # the split of round 0 that one-phase votes never undid
    assert all(p.dr.decision().round > 0 for p in peers)


def test_five_seats_partition_finishes() -> None:
    """§C8.5's 5-seat case: {0, 1, 2} cut from {3, 4}, seat 4 crashed; the majority side drops
    3 (the lowest it cannot hear), the minority side, once healed, learns the decision."""
    cut = {(i, j) for i in (0, 1, 2) for j in (3, 4)} | {(j, i) for i in (0, 1, 2) for j in (3, 4)}
    peers = run(5, 4, set(), cut, 0.0, heal=30, seed=2)
    check(peers, 5)
    assert {p.outcome for p in peers} == {3}


def test_a_crashed_seats_message_held_by_some_ends_in_keep_or_its_drop() -> None:
    """The crashed seat's message reached seat 0 only, and seat 0 is cut from 1 and 2 until the
    drop timeout passed: 1 and 2 name the crashed seat; once healed, seat 0 forwards the message."""
    cut = {(0, 1), (0, 2), (1, 0), (2, 0)}
    peers = run(4, 3, {0}, cut, 0.0, heal=20, seed=3)
    check(peers, 4)


def test_every_seat_up_a_partition_then_a_heal_finishes() -> None:
    """§C8.5's case with every seat up: {0, 1, 2} cut from {3, 4} for a while. The majority
    side drops 3 (the lowest it cannot hear), 3 and 4 named 0 (no POL: 2 < Q = 3) and, on the
    heal, learn the decision; version 3 paused 3 and 4 for ever (their votes were final)."""
    side = {(i, j) for i in (0, 1, 2) for j in (3, 4)}
    cut = side | {(j, i) for i, j in side}
    peers = run(5, 4, {0, 1, 2, 3}, cut, 0.0, heal=30, seed=4, crash_at=10 ** 6)
    check(peers, 5, crashed=-1)
    assert {p.outcome for p in peers} == {3}


def test_a_seat_silent_to_some_voters_does_not_stall_the_table() -> None:
    """A spiteful seat 2 (5 seats) sends its step message to seats 0 and 1 only, and seat 4 has
    crashed: 3 prevotes 2 (lower than 4) while 0, 1 and 2 prevote 4. In version 3 that was one
    vote of 3 lost for the step; now the POL for 4 makes 3 precommit 4 (a precommit follows the
    POL, not the view) and 4 is dropped in round 0."""
    peers = run(5, 2, {0, 1}, set(), 0.0, heal=0, seed=5, crash_at=10 ** 6, also_crashed=4)
    check(peers, 5, crashed=2)
    assert {p.outcome for p in peers} == {4}
    three = next(p for p in peers if p.me == 3)
    assert [(v.phase, v.target) for v in three.cast_votes[:2]] == [(PREVOTE, 2), (PRECOMMIT, 4)]


def test_round_timeout_grows_by_one_period() -> None:
    assert [round_timeout(r, 2.0) for r in range(3)] == [4.0, 6.0, 8.0]


def test_lock_is_kept_until_a_later_pol() -> None:
    """A seat that precommitted (locked on 2 in round 0) prevotes 2 in round 1 whatever its
    view, and follows a POL of round 1 for 1 in round 2 (Tendermint's lock rule)."""
    dr = DropRound(5, 3, [True] * 5, 0, PERIOD)
    for voter in (1, 3):
        dr.add(Vote(voter, 0, PREVOTE, 2, None, voter))
    dr.cast(Vote(0, 0, PREVOTE, 2, None, "p0"), 0.0)
    assert dr.precommit() == 2
    dr.cast(Vote(0, 0, PRECOMMIT, 2, None, "c0"), 0.0)
    assert dr.lock == (2, 0)
    assert dr.tick(round_timeout(0, PERIOD))
    assert dr.round == 1
    assert dr.prevote(View(True, ())) == 2  # locked: not KEEP although complete
    dr.cast(Vote(0, 1, PREVOTE, 2, None, "p1"), 10.0)
    for voter in (2, 3, 4):
        dr.add(Vote(voter, 1, PREVOTE, 1, None, voter))
    assert dr.precommit() == 1  # POL(1, 1) in our round: precommit and re-lock
    dr.cast(Vote(0, 1, PRECOMMIT, 1, None, "c1"), 10.0)
    assert dr.lock == (1, 1)
    assert dr.tick(10.0 + round_timeout(1, PERIOD))
    assert dr.prevote(View(False, (4,))) == 1  # the latest POL (round 1 >= lock round 0)


def test_equivocation_is_reported_with_the_other_vote() -> None:
    dr = DropRound(3, 2, [True] * 3, 0, PERIOD)
    assert dr.add(Vote(1, 0, PREVOTE, 2, None, "a")) is None
    assert dr.add(Vote(1, 0, PREVOTE, 2, None, "a")) is None  # a duplicate
    assert dr.add(Vote(1, 0, PREVOTE, 0, None, "b")) == "a"
    assert dr.add(Vote(1, 1, PREVOTE, 0, None, "c")) is None  # another round: no equivocation
    assert dr.stats["equivocations"] == 1


def test_votes_against_oneself_or_inactive_seats_are_ignored() -> None:
    dr = DropRound(4, 3, [True, True, True, False], 0, PERIOD)
    dr.add(Vote(1, 0, PREVOTE, 1, None, "x"))
    dr.add(Vote(3, 0, PREVOTE, 1, None, "y"))
    dr.add(Vote(1, 0, PREVOTE, 3, None, "z"))
    assert dr.stats["ignored"] == 3 and dr.votes(0, PREVOTE) == {}


def test_the_certificate_needs_active_minus_q_seats_that_never_precommit_the_target() -> None:
    """5 seats, Q = 3: the certificate needs 2 seats besides the target that never precommit
    it: signers of the next step (not us, not the target), and us while we only prevoted it."""
    dr = DropRound(5, 3, [True] * 5, 0, PERIOD)
    dr.cast(Vote(0, 0, PREVOTE, 4, None, "p"), 0.0)
    assert not dr.may_apply([])
    assert not dr.may_apply([0, 4])  # us and the target do not count as signers
    assert dr.may_apply([1])  # signer 1 and we (a prevote only) never precommit 4
    dr.cast(Vote(0, 0, PRECOMMIT, 4, None, "c"), 0.0)
    assert not dr.may_apply([1])  # we precommitted 4: we count among who may decide it
    assert dr.may_apply([1, 2])


def test_three_seats_a_prevote_alone_is_no_promise() -> None:
    """3 seats: a voter that only prevoted against a seat whose message then arrives applies
    the step without any signer (Q - 1 = 1 other seat could precommit: no decision), where the
    one-phase vote waited for a signer that could be the crashed seat."""
    dr = DropRound(3, 2, [True] * 3, 1, PERIOD)
    dr.cast(Vote(1, 0, PREVOTE, 0, None, "p"), 0.0)
    assert dr.may_apply([])


def test_a_later_round_from_enough_voters_moves_us_there() -> None:
    dr = DropRound(5, 3, [True] * 5, 0, PERIOD)
    dr.add(Vote(1, 4, PREVOTE, 3, None, "a"))
    dr.add(Vote(2, 4, PREVOTE, 3, None, "b"))
    assert dr.round == 0  # N - Q + 1 = 3 voters needed: one liar cannot push the rounds
    dr.add(Vote(3, 5, PREVOTE, 4, None, "c"))
    assert dr.round == 4


SEATS = st.integers(3, 6)


@st.composite
def scenarios(draw):
    n = draw(SEATS)
    crashed = draw(st.integers(0, n - 1))
    honest = [i for i in range(n) if i != crashed]
    got = set(draw(st.lists(st.sampled_from(honest), unique=True, max_size=len(honest))))
    pairs = [(i, j) for i in honest for j in honest if i != j]
    cut = set(draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs))))
    loss = draw(st.sampled_from([0.0, 0.1, 0.3, 0.6]))
    heal = draw(st.integers(0, 60))
    seed = draw(st.integers(0, 2 ** 16))
    return n, crashed, got, cut, loss, heal, seed


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
@example((3, 2, set(), {(0, 1), (1, 0)}, 0.0, 12, 1))
@example((3, 2, {0}, {(0, 1)}, 0.6, 31, 31432))  # a non-voter applied at once, the voter needs no signer
def test_any_schedule_with_one_crashed_seat_is_safe_and_finishes_once_healed(sc) -> None:
    """For any delivery order (loss), cut links (partitions, one-way included) until the heal
    and one crashed seat (its message delivered to any subset first): no two honest peers drop
    different seats, nobody applies an outcome against a decision except a non-voter (which
    rolls back, §C8.3), and once the network heals every honest peer reaches the outcome."""
    n, crashed, got, cut, loss, heal, seed = sc
    check(run(n, crashed, got, cut, loss, heal, seed), n)


def test_a_round_that_times_out_gets_a_nil_precommit_and_a_lock_whose_round_cannot_decide_is_released() -> None:
    """The NIL precommit: without a POL by the round's end we precommit NIL, then move on. A
    lock on (2, 0) (5 seats, Q = 3) is released once two of the four possible voters of 2
    precommitted something else in round 0: fewer than Q could precommit 2 there, so no
    decision can need our lock."""
    dr = DropRound(5, 3, [True] * 5, 0, PERIOD)
    dr.cast(Vote(0, 0, PREVOTE, 3, None, "p"), 0.0)
    assert dr.precommit(1.0) is None and not dr.tick(5.0)  # no precommit yet: we do not move
    assert dr.precommit(round_timeout(0, PERIOD)) == NIL
    locked = DropRound(5, 3, [True] * 5, 0, PERIOD)
    locked.cast(Vote(0, 0, PRECOMMIT, 2, None, "c"), 0.0)
    assert locked.locked() == (2, 0)
    locked.add(Vote(1, 0, PRECOMMIT, NIL, None, 1))
    assert locked.locked() == (2, 0)  # 0, 3 and 4 may still precommit 2 in round 0: Q = 3
    locked.add(Vote(3, 0, PRECOMMIT, 4, None, 3))
    assert locked.locked() is None
    assert locked.prevote(View(False, (3,))) == 3  # by its view again


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios(), st.integers(1, 60))
def test_a_seat_that_votes_then_crashes_never_splits_the_outcome(sc, crash_at) -> None:
    """The crashed seat votes (prevotes, precommits) until ``crash_at``, its last votes reaching
    some peers only: still one outcome (the crashed peer's own included, it may have logged it).
    Every up peer finishes once healed when N >= 5; with 3 or 4 seats the up peers may stay
    locked on an up seat v in a round that the crashed seat's precommit could have decided
    (the up seats other than v are fewer than Q): they wait for it (§C8.5)."""
    n, crashed, got, cut, loss, heal, seed = sc
    peers = run(n, crashed, got, cut, loss, heal, seed, crash_at=crash_at)
    check(peers, n, live=n >= 5, crashed=crashed)


def held_outcomes(peers: list[Peer], liar: int) -> set[int]:
    """The outcomes the honest peers applied as voters (decision or certificate) or hold decided."""
    out = {p.outcome for p in peers if p.me != liar and p.how in ("decision", "certificate")}
    return out | {p.dr.decision().target for p in peers if p.me != liar and p.dr.decision() is not None}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_one_equivocating_seat_cannot_split_an_even_table_and_is_caught_at_an_odd_one(sc) -> None:
    """One seat sends each peer its own random votes (two per slot). N even (4, 6): every two
    quorums share two seats, so no two honest peers decide or apply different outcomes as
    voters (safety only: it can stall a 4-seat table like a seat that votes then crashes).
    N odd (3, 5): two quorums may share only the liar, so it can split them; then some honest
    peer holds two of its votes of one slot (COMPLAINT kind 1): detected, not prevented."""
    n, liar, got, cut, loss, heal, seed = sc
    peers = run(n, liar, set(), cut, loss, heal, seed, horizon=150, crash_at=10 ** 6, liar=True)
    split = len(held_outcomes(peers, liar)) > 1
    if n % 2 == 0:
        assert not split
    elif split:
        assert any(p.dr.stats["equivocations"] for p in peers if p.me != liar)
