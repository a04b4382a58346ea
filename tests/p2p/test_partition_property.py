"""Issue 9, "How it is checked": an in-memory property test over 2-6 seats of the sans-I/O lockstep
sessions (protocol.md §C3, §C8, §C9, §C10) under random partitions, heals, loss, duplication,
reordering and crashes with restarts from the log.

Properties (issue 9 text):

* **Safety**: no two honest peers ever log different messages for the same step. Every peer here
  is honest; at the end every peer's game log (the file, as ``resume`` left it after restarts and
  after a peer lost its seat and became a spectator, protocol.md §C8.3) is read back and each
  step record (kind 1, protocol.md §C6) must be byte-identical on every peer that logged it.
  No peer may halt on Desync/Equivocation/CheatDetected (nobody lies).
* **Liveness**, as protocol.md §C8.3 "Fault model" promises it (``check_liveness``): once the
  faults are over, every peer that is up ends its game, finished or — after the node's stall
  limit, modelled by letting every paused peer abandon (§C8.7) — abandoned; and if at least
  Q = quorum(all setup seats) seats are up and still active (not dropped), every up peer
  finishes with no abandon. Excluded from that last clause, exactly: split drop votes at the
  stalled step (§C8.5 "Liveness after split votes"); a peer stuck on split votes still
  ends. A dropped seat's peer follows the game as a spectator and ends as the players do.

The network is a heap of deliveries on a virtual clock (nothing real: no sockets, no sleeping),
modelling what the reliable transport hands to the session (protocol.md §N2): each message to
each other seat arrives after a random delay of up to 50 ms (messages of different senders
overtake each other; one sender's arrive in order, as the transport delivers them, §N2.3),
with P(loss) up to 1 s later (lost, then retransmitted: the transport never gives up, §N2.5),
and a second time with P(duplicate); a message due while its sender and receiver are on
different sides of an active partition arrives after the partition heals; everything in flight
from or to a crashed peer is lost (its new epoch discards it, §N2.2). A crashed peer's session is thrown
away (its logs closed as they are) and, unless the crash is permanent, rebuilt after ``down_for``
s with ``p2p.resume.resume_session`` (what the node does, protocol.md §C10); a peer told
``SeatLost`` is rebuilt as a spectator with ``truncate_at`` (protocol.md §N5), a peer told
``StepOverturned`` the same way as a player (§C8.3 "asymmetric race").

Engine: the harness's dice race (tests/p2p/fake_engine.py), so one example plays a whole game
in milliseconds of CPU.
"""

from __future__ import annotations

import heapq
import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import msgpack
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import pytest


import fake_engine as E
from p2p import const as C
from p2p.gamelog import KIND_STEP, LogReader, LogWriter, OwnLog
from p2p.lockstep import (RUNNING, CheatDetected, Desync, Equivocation, GameAbandoned, GameOver, SeatDropped,
                          SeatLost, StepOverturned)
from p2p.seat_loss import quorum
from p2p.resume import resume_session

from p2p_harness import drain, make_lobbies, pump_lobbies

MAX_DELAY = 0.05  # s, largest delivery delay (reordering)
RETRANSMIT = 1.0  # s, largest extra delay of a lost datagram (the transport resends it, MAX_RTO)
SETTLE = 400.0  # s of virtual time after the last fault for the game to end
GIVE_UP_SETTLE = 60.0  # s after the paused peers abandon (an ABANDON, or a vote out, is seconds away)
HALTS = (Desync, Equivocation, CheatDetected)


@dataclass(frozen=True)
class Partition:
    """Between ``start`` and ``start + length`` s, seats in ``side`` and the others are cut off."""

    start: float
    length: float
    side: frozenset

    def cuts(self, a: int, b: int, now: float) -> bool:
        return self.start <= now < self.start + self.length and ((a in self.side) != (b in self.side))


@dataclass(frozen=True)
class Crash:
    """Seat ``seat`` dies at ``at`` s and comes back ``down_for`` s later (None: never)."""

    seat: int
    at: float
    down_for: float | None


@dataclass
class Scenario:
    seats: int
    drop_timeout: int
    loss: float
    duplicate: float
    partitions: list
    crashes: list
    seed: int
    target: int = 25

    def quiet_from(self) -> float:
        """Virtual time after which no fault starts or lasts (every partition healed, every
        returning peer restarted)."""
        ends = [p.start + p.length for p in self.partitions]
        ends += [c.at + (c.down_for or 0.0) for c in self.crashes]
        return max(ends, default=0.0)

    def never_back(self) -> set:
        return {c.seat for c in self.crashes if c.down_for is None}


@st.composite
def scenarios(draw) -> Scenario:
    n = draw(st.integers(2, 6))
    seat = st.integers(0, n - 1)
    parts = draw(st.lists(st.builds(
        Partition, start=st.floats(0.0, 20.0), length=st.floats(0.2, 15.0),
        side=st.frozensets(seat, min_size=1, max_size=n - 1)), max_size=3))
    crashes = draw(st.lists(st.builds(
        Crash, seat=seat, at=st.floats(0.0, 20.0),
        down_for=st.one_of(st.none(), st.floats(0.5, 15.0))), max_size=2, unique_by=lambda c: c.seat))
    return Scenario(seats=n, drop_timeout=draw(st.integers(C.MIN_DROP_TIMEOUT, 5)),
                    loss=draw(st.sampled_from([0.0, 0.05, 0.2])), duplicate=draw(st.sampled_from([0.0, 0.1, 0.3])),
                    partitions=parts, crashes=crashes, seed=draw(st.integers(0, 2**32 - 1)))


@dataclass
class Peer:
    """One honest peer: its session (None while crashed), its files and secret."""

    session: object
    identity: object
    secret: bytes
    path: Path
    events: list = field(default_factory=list)
    crashed: bool = False


class World:
    """The seats of one game on the simulated network of the module docstring."""

    def __init__(self, sc: Scenario, tmp: Path) -> None:
        self.sc = sc
        self.rng = random.Random(sc.seed)
        self.now = 0.0
        self._heap: list = []
        self._last: dict[tuple[int, int], float] = {}  # (sender, receiver) -> latest delivery time
        self._n = 0
        opts = {"target": sc.target, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: sc.drop_timeout}
        lobbies = make_lobbies(sc.seats, options=opts)
        pump_lobbies(lobbies)
        ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
        self.peers: list[Peer] = []
        for i, lob in enumerate(ordered):
            path = tmp / f"seat{i}.log"
            s = lob.start_session(E, log=LogWriter(path, lob.log_header()))
            s.own_log = OwnLog(str(path) + ".own")
            self.peers.append(Peer(s, lob.identity, lob.chain.value(0), path))
        self._pending_crashes = sorted(sc.crashes, key=lambda c: c.at)
        self._restarts: list[tuple[float, int]] = []

    # -- faults ---------------------------------------------------------------------------

    def _crash_and_restart(self) -> None:
        while self._pending_crashes and self._pending_crashes[0].at <= self.now:
            c = self._pending_crashes.pop(0)
            p = self.peers[c.seat]
            if p.session is None:
                continue
            self._close(p)
            p.crashed = True
            # What was in flight from or to the dead instance is gone (a new transport epoch
            # discards it, protocol.md §N2.2).
            self._heap = [e for e in self._heap if c.seat not in (e[2], e[3])]
            heapq.heapify(self._heap)
            if c.down_for is not None:
                self._restarts.append((self.now + c.down_for, c.seat))
        for when, seat in [r for r in self._restarts if r[0] <= self.now]:
            self._restarts.remove((when, seat))
            self._resume(seat, None)

    def _close(self, p: Peer) -> None:
        for f in (p.session.log, p.session.own_log):
            if f is not None:
                f.close()
        p.session = None

    def _resume(self, seat: int, truncate_at: int | None) -> None:
        p = self.peers[seat]
        p.session, _ = resume_session(p.path, p.identity, p.secret, E, own_log_path=str(p.path) + ".own",
                                      now=self.now, truncate_at=truncate_at)
        p.crashed = False

    def wake_times(self) -> list[float]:
        """Times at which a fault starts or ends (the clock must stop there)."""
        out = [c.at for c in self._pending_crashes] + [w for w, _ in self._restarts]
        for p in self.sc.partitions:
            out += [p.start, p.start + p.length]
        return [t for t in out if t > self.now]

    # -- one round --------------------------------------------------------------------------

    def _heal_time(self, a: int, b: int) -> float | None:
        """When the partitions cutting a from b now are over (None: not cut)."""
        ends = [p.start + p.length for p in self.sc.partitions if p.cuts(a, b, self.now)]
        return max(ends) if ends else None

    def _push(self, when: float, i: int, j: int, raw: bytes) -> None:
        # One channel per pair delivers in order (protocol.md §N2.3): no overtaking within it.
        when = max(when, self._last.get((i, j), 0.0))
        self._last[(i, j)] = when
        self._n += 1
        heapq.heappush(self._heap, (when, self._n, i, j, raw))

    def _send(self, i: int, raw: bytes) -> None:
        for j in range(self.sc.seats):
            if j == i:
                continue
            when = self.now + self.rng.uniform(0, MAX_DELAY)
            if self.rng.random() < self.sc.loss:
                when += self.rng.uniform(0.05, RETRANSMIT)  # lost, then retransmitted
            self._push(when, i, j, raw)
            if self.rng.random() < self.sc.duplicate:
                self._push(self.now + self.rng.uniform(0, MAX_DELAY), i, j, raw)

    def _deliver_due(self) -> bool:
        moved = False
        while self._heap and self._heap[0][0] <= self.now:
            _, _, i, j, raw = heapq.heappop(self._heap)
            healed = self._heal_time(i, j)
            if healed is not None:  # the transport keeps retransmitting until the link heals
                self._push(healed + self.rng.uniform(0, MAX_DELAY), i, j, raw)
                continue
            s = self.peers[j].session
            if s is not None:
                s.receive_message(raw, self.now)
                moved = True
        return moved

    def step(self) -> bool:
        """Inputs, sends, due deliveries, events. True if anything happened."""
        moved = False
        self._crash_and_restart()
        for i, p in enumerate(self.peers):
            s = p.session
            if s is None:
                continue
            while s.needs_local_input() is not None:
                s.submit_local_input((E.legal_actions(s.state, i) or [None])[0], self.now)
                moved = True
            for raw in s.messages_to_send():
                self._send(i, raw)
                moved = True
        moved = self._deliver_due() or moved
        for i, p in enumerate(self.peers):
            if p.session is None:
                continue
            for ev in drain(p.session):
                p.events.append(ev)
                if isinstance(ev, (SeatLost, StepOverturned)):
                    # What the node does (protocol.md §N5, §C8.3 "asymmetric race"): restart from
                    # the log cut at that step; SeatLost comes back a spectator, StepOverturned a
                    # player that catches up the drop.
                    self._close(p)
                    self._resume(i, ev.step)
                    moved = True
                    break
        return moved

    def run(self, until: float) -> None:
        for _ in range(500000):
            moved = self.step()
            live = [p.session for p in self.peers if p.session is not None]
            if not moved:
                if all(s.phase != "running" for s in live) and not self._restarts and not self._pending_crashes:
                    return
                times = [t for s in live if (t := s.get_timer()) is not None]
                times += self.wake_times()
                if self._heap:
                    times.append(self._heap[0][0])
                nxt = min(times, default=None)
                if nxt is None or nxt > until:
                    return
                self.now = max(self.now, nxt)
                for s in live:
                    t = s.get_timer()
                    if t is not None and t <= self.now:
                        s.handle_timer(self.now)
        raise AssertionError("the simulation did not settle")

    def give_up(self) -> bool:
        """The node's stall limit (protocol.md §N5, §C8.7): every seated peer that is paused
        (waits for seats no drop of its own will remove) abandons. True if one did."""
        out = False
        for p in self.peers:
            s = p.session
            if s is not None and s.phase == RUNNING and s.paused():
                s.abandon(self.now)
                out = True
        return out

    def close(self) -> None:
        for p in self.peers:
            if p.session is not None:
                self._close(p)


def step_records(path: Path) -> dict[int, bytes]:
    """step -> kind-1 record payload of a game log (its readable prefix)."""
    out: dict[int, bytes] = {}
    for rec in LogReader(path):
        if rec.kind == KIND_STEP:
            step = msgpack.unpackb(rec.payload, raw=False)[0]
            out[step] = rec.payload
    return out


def check(sc: Scenario) -> None:
    with tempfile.TemporaryDirectory(prefix="lnpart") as d:
        w = World(sc, Path(d))
        try:
            w.run(until=sc.quiet_from() + SETTLE)
            stalled = {i: p.session.step for i, p in enumerate(w.peers)
                       if p.session is not None and p.session.phase == RUNNING}
            split = split_votes(w)
            for _ in range(sc.seats):  # each round, the paused peers give up; the others may go on
                if not w.give_up():
                    break
                w.run(until=w.now + GIVE_UP_SETTLE)
            ends = {i: p.session.phase for i, p in enumerate(w.peers) if p.session is not None}
            waits = {i: p.session.paused() for i, p in enumerate(w.peers) if p.session is not None}
            watchers = {i for i, p in enumerate(w.peers) if p.session is not None and p.session.spectator}
        finally:
            w.close()
        check_safety(sc, w)
        check_liveness(sc, w, stalled, ends, waits, split, watchers)


def split_votes(w: World) -> dict:
    """The drop votes of the current epoch held by the running peers at their step, if they name
    more than one seat ({voter: target}), else {}: the liveness gap of protocol.md §C8.5
    ("Liveness after split votes") — one vote per step and epoch, so once the votes are split
    among seats of which one stays missing, no seat may reach the quorum."""
    votes: dict = {}
    for p in w.peers:
        s = p.session
        if s is not None and s.phase == RUNNING:
            votes.update(s.seats.targets(s.step))
    return votes if len(set(votes.values())) > 1 else {}


def check_safety(sc: Scenario, w: World) -> None:
    """No halt (nobody lies) and no two peers' logs differ at a step: absolute, whatever the faults."""
    for i, p in enumerate(w.peers):
        halts = [e for e in p.events if isinstance(e, HALTS)]
        assert not halts, f"honest seat {i} halted: {halts[0]!r}"
    logs = [step_records(p.path) for p in w.peers]
    # A seat dropped at step k whose peer never came back may have applied k with its own
    # message before it died (its message never arrived); a returning peer cuts its log
    # there (SeatLost, truncate_at, protocol.md §C8.3). So its log counts only below k.
    for p in w.peers:
        for ev in p.events:
            if isinstance(ev, SeatDropped) and ev.seat in sc.never_back():
                logs[ev.seat] = {k: v for k, v in logs[ev.seat].items() if k < ev.step}
    for a in range(sc.seats):
        for b in range(a + 1, sc.seats):
            for k in logs[a].keys() & logs[b].keys():
                assert logs[a][k] == logs[b][k], f"seats {a} and {b} logged different step {k}"
    overs = {e.final_hash for p in w.peers for e in p.events if isinstance(e, GameOver)}
    assert len(overs) <= 1, f"two final hashes: {overs}"


def check_liveness(sc: Scenario, w: World, stalled: dict, ends: dict, waits: dict, split: dict,
                   watchers: set) -> None:
    """The fault model of protocol.md §C8.3, "live" column, as promised:

    * Always: once the faults are over, every peer that is up ends its game, finished or (after
      its stall limit, §C8.7) abandoned — no peer is left running without being paused.
    * If at least Q = quorum(all setup seats) seats are up (not crashed for good) and still
      active (not dropped) once the faults are over, they drop the others and every up peer
      (players and spectators) finishes, with no abandon needed. A dropped seat's peer never
      votes, so when fewer remain the game may pause for good ("crashes" row); that is allowed.
      A dropped seat's peer (a spectator, §C8.4) follows the game: if any peer finished, so
      did every spectator that is up (another seat's ABANDON does not end its game).
      Excluded from the second point only, exactly: the votes of the stalled step are split
      among several seats (``split_votes``), the gap protocol.md §C8.5 "Liveness after split
      votes" documents. Even then every up peer ends its game: a voter that holds every message
      of its step but neither a certificate nor a quorum is ``paused()`` and gives up like the
      others (§C8.3 "Split votes"; before, it waited for ever and was excluded as ``stuck``).
    """
    up = [i for i in range(sc.seats) if i not in sc.never_back()]
    left = [i for i in up if ends[i] == RUNNING]
    assert not left, f"peers still running after giving up: {ends}, paused {waits}, votes {split}"
    dropped = {e.seat for p in w.peers for e in p.events if isinstance(e, SeatDropped)}
    if any(isinstance(e, GameOver) for p in w.peers for e in p.events):
        for i in watchers:
            assert ends[i] == "finished", f"spectator {i} ended {ends[i]} while the game finished"
    if len(set(up) - dropped) >= quorum(sc.seats) and not split:
        assert not stalled, f"{len(set(up) - dropped)} up active seats of {sc.seats} stalled at {stalled}"
        for i in up:
            assert any(isinstance(e, GameOver) for e in w.peers[i].events), f"seat {i} never finished"


@settings(max_examples=25, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
          report_multiple_bugs=False, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_partitions_loss_duplicates_and_crashes_never_fork_and_a_majority_finishes(sc):
    check(sc)


def test_two_seats_cut_off_longer_than_the_drop_timeout_do_not_fork():
    """Issue 9 item 7 in memory: the demo's `--peers 2 --partition 0.3:8 --drop-timeout 3`."""
    check(Scenario(seats=2, drop_timeout=3, loss=0.0, duplicate=0.0,
                   partitions=[Partition(0.3, 8.0, frozenset({1}))], crashes=[], seed=5))


def test_three_seats_a_dropped_seat_then_the_last_two_cut_off_do_not_fork():
    """Issue 9 item 7: "a 3-seat game forks the same way once one seat has dropped and the other
    two are cut off from each other"."""
    check(Scenario(seats=3, drop_timeout=2, loss=0.0, duplicate=0.0,
                   partitions=[Partition(3.0, 8.0, frozenset({1}))], crashes=[Crash(2, 0.1, None)], seed=7,
                   target=60))


def test_a_seat_dropped_while_cut_off_comes_back_without_a_desync():
    """Found by the property test above (4 seats, loss, duplicates, three partitions, two crashes)."""
    check(Scenario(seats=4, drop_timeout=3, loss=0.05, duplicate=0.1,
                   partitions=[Partition(17.48609543625939, 12.900314343228546, frozenset({0, 1, 3})),
                               Partition(8.103698591231046, 6.909317396902598, frozenset({0, 2, 3})),
                               Partition(1.9187051729214878e-50, 3.2818913599180886, frozenset({0, 1, 3}))],
                   crashes=[Crash(3, 18.09890761568493, 12.254499128025003),
                            Crash(1, 3.1469096968296744, 1.8407984545526708)],
                   seed=9862))


def test_a_voter_that_crashed_before_the_others_votes_arrived_learns_of_the_drop():
    """Found by the property test (3 seats): seat 1 never starts; seats 0 and 2 vote it out at
    step 0, but seat 2's vote is in flight when seat 0 crashes. Seat 2 drops seat 1 (epoch 1)
    and waits for seat 0's reveal; seat 0, back in epoch 0, holds no escrow of seat 1 and
    withholds its reveal (the gate, protocol.md §C8.2) for ever. Seat 0's re-sent escrow of
    epoch 0 now makes seat 2 push it the drop record (§C8.3)."""
    check(Scenario(seats=3, drop_timeout=2, loss=0.0, duplicate=0.0, partitions=[],
                   crashes=[Crash(0, 1.5, 1.0), Crash(1, 0.0, None)], seed=0))


def test_a_voter_whose_catch_up_page_starts_the_next_step_with_a_drop_applies_its_step():
    """Found by the property test (3 seats): seat 0, cut off then crashed, voted against seat 1
    at step 19 while seats 1 and 2 applied 19 and dropped seat 0 at 20. Seat 0's catch-up page
    holds step 19, the DROP record of step 20, then the step-20 record (its certificate, §C8.3);
    the DROP record used to stop the page first ("records skip a step"), so seat 0 asked again
    for ever. It must become a spectator and see the same end."""
    check(Scenario(seats=3, drop_timeout=2, loss=0.0, duplicate=0.0,
                   partitions=[Partition(0.0, 0.25, frozenset({0})), Partition(1.0, 2.0, frozenset({0}))],
                   crashes=[Crash(0, 3.0, 1.0)], seed=3))



def test_a_seat_cut_off_twice_gets_nobody_proven_an_equivocator():
    """Found by the property test's strategy, randomized (6 seats, 20% loss, seat 0 cut off twice):
    seat 5, overturned at step 17, re-signs step 18 over the new history; a message over another
    history is no equivocation and is never applied (issue 9, protocol.md §C8.3, §C8.8)."""
    check(Scenario(seats=6, drop_timeout=2, loss=0.2, duplicate=0.0,
                   partitions=[Partition(15.461891987946125, 2.0, frozenset({0})),
                               Partition(0.0, 0.5, frozenset({0}))],
                   crashes=[], seed=0))
