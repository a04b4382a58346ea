"""p2p/node_watchdog.py: when a peer reports whom it waits for, how long a step may wait, and
which session faults stop it (protocol.md §C8.3, §C8.7, §N5, part L ``waiting``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from p2p.const import STALL_TIMEOUT
from p2p.lockstep import BeaconExhausted, CheatDetected, Desync, Equivocation, PeerStalled
from p2p.node_watchdog import (ABANDON, STALL_LIMIT, WAIT_NOTICE, WAIT_REPEAT, WaitReports, fault_error, idle_seats,
                               stall_limit, stall_verdict)


@dataclass
class Session:
    """The part of a ``LockstepSession`` the watchdog reads."""

    step: int = 7
    step_started: float = 100.0
    waiting: tuple = (0, 2)
    deadline: float | None = 130.0
    is_paused: bool = False
    seat_loss: bool = True
    drop_timeout: int = 30
    heard: dict = field(default_factory=dict)

    def waiting_for(self) -> tuple:
        return self.waiting

    def drop_deadline(self) -> float | None:
        return self.deadline

    def paused(self) -> bool:
        return self.is_paused

    @property
    def live(self) -> "Session":
        return self

    def last_heard(self, seat: int) -> float:
        """When we last heard from ``seat`` (its ALIVE): ``heard``, else the step's start."""
        return self.heard.get(seat, self.step_started)


def test_waiting_is_reported_after_the_notice_then_at_most_every_repeat():
    """Part L ``waiting``: not before WAIT_NOTICE s, then once per WAIT_REPEAT s; our own seat
    is never among the seats we wait for."""
    s, w = Session(), WaitReports()
    assert w.waiting(s, 0, ("a", "b", "c"), s.step_started + WAIT_NOTICE / 2) is None
    t = s.step_started + WAIT_NOTICE
    r = w.waiting(s, 0, ("a", "b", "c"), t)
    assert r is not None and r.seats == (2,) and r.names == ("c",) and r.waited == WAIT_NOTICE
    assert r.deadline == 130.0 - t and not r.paused and r.abandon is None
    assert w.waiting(s, 0, ("a", "b", "c"), t + WAIT_REPEAT / 2) is None
    assert w.waiting(s, 0, ("a", "b", "c"), t + WAIT_REPEAT / 2, force=True) is not None  # PeerStalled
    assert w.waiting(s, 0, ("a", "b", "c"), t + 2 * WAIT_REPEAT) is not None


def test_nothing_to_report_when_only_our_own_message_is_missing():
    s = Session(waiting=(0,))
    assert WaitReports().waiting(s, 0, ("a",), s.step_started + 10, force=True) is None


def test_a_paused_step_reports_when_the_game_will_be_abandoned():
    """§C8.3: no majority can drop the silent seats; ``abandon`` counts down the stall limit
    from the last sign of life of the seats silent for STALL_TIMEOUT s (as PeerStalled does)."""
    s = Session(is_paused=True, deadline=None, heard={2: 103.0})
    r = WaitReports().waiting(s, 1, ("a", "b", "c"), s.step_started + 20.0)
    assert r.paused and r.deadline is None and r.abandon == stall_limit(s) - 17.0


def test_a_seat_thinking_alive_on_a_paused_step_is_not_awaited_back():
    """H60's finding (2 seats: ``paused`` whenever the step waits): a seat whose ALIVE keeps
    coming is thinking, not gone: no "reconnect / abandoned in 0 s" line, whatever the step's age."""
    s = Session(is_paused=True, deadline=None, waiting=(0,), heard={0: 160.0})
    r = WaitReports().waiting(s, 1, ("a", "b"), s.step_started + 64.0)
    assert r is not None and r.waited == 64.0 and not r.paused and r.abandon is None
    r = WaitReports().waiting(s, 1, ("a", "b"), 160.0 + STALL_TIMEOUT)
    assert r.paused and r.abandon == stall_limit(s) - STALL_TIMEOUT


def test_stall_limit_leaves_room_for_a_drop():
    """A drop needs every other seat's vote: the node waits at least twice the drop timeout."""
    assert stall_limit(None) == STALL_LIMIT
    assert stall_limit(Session(seat_loss=False, drop_timeout=300)) == STALL_LIMIT
    assert stall_limit(Session(drop_timeout=10)) == STALL_LIMIT
    assert stall_limit(Session(drop_timeout=45)) == 90.0


def test_session_faults_become_node_errors_naming_the_seat():
    """Desync, equivocation, a detected cheat and an exhausted beacon stop the node (code, step,
    seat); any other event does not."""
    cases = [(Desync(4, 2, "state", b"", b""), "desync", 2), (Equivocation(4, 1, b"", b""), "equivocation", 1),
             (CheatDetected(4, 3, "bad reveal", b""), "cheat", 3), (BeaconExhausted(4), "beacon", None)]
    for ev, code, seat in cases:
        err = fault_error(ev)
        assert (err.code, err.step, err.seat) == (code, 4, seat)
    assert fault_error(PeerStalled(4, (1,), 3.0)) is None


def test_a_stall_past_the_limit_abandons_when_no_drop_can_come_else_fails():
    """§C8.7, §N5: under the stall limit nothing; past it a paused table is abandoned (signed),
    any other stops the node with NodeError("stalled")."""
    s = Session()
    limit = stall_limit(s)
    assert stall_verdict(s, PeerStalled(4, (1,), limit - 1)) is None
    err = stall_verdict(s, PeerStalled(4, (1,), limit))
    assert (err.code, err.step) == ("stalled", 4)
    assert stall_verdict(Session(is_paused=True), PeerStalled(4, (1,), limit)) == ABANDON


@dataclass
class Skippable(Session):
    can_skip: bool = True

    def skippable(self) -> bool:
        return self.can_skip


def test_idle_seats_after_the_players_patience():
    """§C8.10 ``skip_idle_after``: the other seats still owed, once the step waited that long
    and a skip is possible; never our own seat, never without patience."""
    s = Skippable()
    assert idle_seats(s, 0, None, s.step_started + 999) == ()
    assert idle_seats(s, 0, 10.0, s.step_started + 9.9) == ()
    assert idle_seats(s, 0, 10.0, s.step_started + 10.0) == (2,)
    assert idle_seats(Skippable(can_skip=False), 0, 10.0, s.step_started + 99) == ()
    assert idle_seats(None, 0, 10.0, 0.0) == ()
