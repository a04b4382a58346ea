"""``node_events.NodeEvents``: what each session event means to the node (protocol.md §N4, §N5,
§C8.9, §N3.2), driven with a stand-in node that records its calls (nothing runs on a loop)."""

from __future__ import annotations

from types import SimpleNamespace

from p2p.node_events import NodeEvents
from p2p.session_events import (CaughtUp, Desync, GameAbandoned, GameOver, PeerMisbehaved, PeerStalled,
                                SeatDropped, SeatDropVoted, SeatLost, StepApplied, StepOverturned)

H = b"\x01" * 32


class Node:
    """The ``NodeHost`` calls, recorded in order."""

    def __init__(self, seat: int) -> None:
        self.seat, self.calls = seat, []
        rec = self.calls.append
        self.restart = SimpleNamespace(ask_reseat=lambda: rec(("ask_reseat",)),
                                       want_rendezvous=lambda: rec(("want_rendezvous",)),
                                       become_spectator=lambda ev: rec(("become_spectator", ev)))
        self.watchdog = SimpleNamespace(on_trouble=lambda ev: rec(("trouble", ev)))

    def finish(self, ev, abandoned=None):
        self.calls.append(("finish", ev, abandoned))

    def report(self, msg):
        self.calls.append(("report", msg))


class Moved:
    pass


class Bought:
    pass


def test_applied_steps_count_engine_events_and_misbehaving_peers_are_counted():
    node = Node(0)
    ev = NodeEvents(node)
    assert ev.on(StepApplied(0, "chance", (Moved(),), H))
    assert ev.on(StepApplied(1, "decision", (Moved(), Bought()), H))
    assert ev.on(PeerMisbehaved(2, 1, "bad signature", b""))
    assert dict(ev.by_type) == {"Moved": 2, "Bought": 1} and ev.misbehaved == 1 and node.calls == []


def test_the_end_the_reports_and_the_seat_moves():
    node = Node(1)
    ev = NodeEvents(node)
    over, quit_ = GameOver(2, H, 40), GameAbandoned(7, 3, H)
    mine, other, voted, caught = SeatDropped(5, 1, "bot", True), SeatDropped(5, 2, "bot", True), \
        SeatDropVoted(5, 2), CaughtUp(0, 3, 9)
    for e in (over, quit_, mine, other, voted, caught):
        assert ev.on(e)
    ended = {"seat": 3, "step": 7, "reason": ""}  # PeerResult.abandoned (§C8.7)
    assert node.calls == [("finish", over, None), ("finish", GameOver(None, H, 7), ended),
                          ("report", mine), ("ask_reseat",),  # our seat: take it back (§C8.9)
                          ("report", other), ("want_rendezvous",),  # another: look for it (§N3.2)
                          ("report", voted), ("report", caught)]


def test_a_lost_seat_or_an_overturned_step_stops_the_pump_and_the_rest_is_trouble():
    node = Node(0)
    ev = NodeEvents(node)
    lost, over = SeatLost(4), StepOverturned(4, 2, b"a", b"b")
    stall, desync = PeerStalled(4, (2,), 9.0), Desync(4, 2, "prev_hash", "aa", "bb")
    assert not ev.on(lost) and not ev.on(over)
    assert ev.on(stall) and ev.on(desync)
    assert node.calls == [("become_spectator", lost), ("become_spectator", over),
                          ("trouble", stall), ("trouble", desync)]
