"""The forwarding budget (protocol.md §C8.3 "Forwarding budget"): a DROP vote that shows a
voter lacks a seat's message (or ALIVE) makes us forward it, but a replayed vote envelope must not
make us multiply our sends: at most FORWARD_BURST forwards at once per voter, then one per
RESEND_INTERVAL, which every honest re-send still gets. In memory, virtual clock, fake engine."""

from __future__ import annotations

from p2p import const as C
from p2p.wire import MSG_ALIVE, seal

from test_turn_time import game


def test_a_replayed_vote_does_not_multiply_the_forwards() -> None:
    sessions = game({}, n=4)
    s0 = sessions[0]
    k, t = s0.step, s0.step_started
    for s in sessions:
        s.messages_to_send()
    alive = seal(sessions[1].identity, MSG_ALIVE, [s0.game_id, 1, k, 1])
    s0.receive_message(alive, t + 1)
    vote = sessions[2].seats.vote(k, 1)  # seat 2 votes against seat 1, still deciding
    for _ in range(50):  # a replay flood of that one envelope, all at one moment
        s0.receive_message(vote, t + 2)
    sent = s0.messages_to_send()
    assert sent.count(alive) == C.FORWARD_BURST
    assert s0.stats["forwarded"] == C.FORWARD_BURST and s0.stats["forward_limited"] == 50 - C.FORWARD_BURST
    # The voter's next honest re-send, one RESEND_INTERVAL later, still gets its forward.
    s0.receive_message(vote, t + 2 + C.RESEND_INTERVAL)
    assert s0.messages_to_send().count(alive) == 1
    # Another voter has a budget of its own.
    s0.receive_message(sessions[3].seats.vote(k, 1), t + 2 + C.RESEND_INTERVAL)
    assert s0.messages_to_send().count(alive) == 1
