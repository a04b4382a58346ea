"""The ALIVE counter, ALIVE forwarding and the vote in doubt (protocol.md §C8.3 ALIVE, "When an
honest peer votes"; issue 10, H33): a replayed ALIVE counts once; a peer that sees a DROP vote
against a seat still deciding forwards that seat's latest ALIVE; a voter whose due seats are one
vote apart or tied waits one more re-send period. In memory, virtual clock, fake engine."""

from __future__ import annotations

from p2p.liveness import Liveness
from p2p.lockstep import SeatDropVoted
from p2p.wire import MSG_ALIVE, seal

from test_turn_time import DROP_TIMEOUT, game


def _voted(session) -> list[tuple[int, int]]:
    """The (step, seat) of every DROP vote the session signed since last asked."""
    return [(e.step, e.seat) for e in iter(session.next_event, None) if isinstance(e, SeatDropVoted)]


def test_an_alive_counts_once_per_counter_value() -> None:
    """§C8.3 ALIVE counter (H33): our ALIVEs of a step are numbered 0, 1, 2... and again from 0
    at the next step; a received ALIVE restarts the seat's silence clock only for an ``n`` above
    the largest accepted from it at this step, so a replay (or an older one arriving late)
    changes nothing and a crashed seat is voted out one drop timeout after its last real ALIVE."""
    live = Liveness(1.0)
    live.begin(0.0)
    assert [live.next_alive_n() for _ in range(3)] == [0, 1, 2]
    assert live.heard_alive(2, 1, 5.0)  # the first one we get need not be n = 0 (losses)
    assert live.vote_time(2, 3.0, 0.0) == 8.0
    assert not live.heard_alive(2, 1, 7.0)  # the same ALIVE replayed
    assert not live.heard_alive(2, 0, 7.5)  # an older one, late
    assert live.vote_time(2, 3.0, 0.0) == 8.0
    assert live.heard_alive(3, 0, 6.0)  # the counter is per seat
    assert live.heard_alive(2, 4, 7.9) and live.vote_time(2, 3.0, 0.0) == 7.9 + 3.0
    live.begin(20.0)
    assert live.next_alive_n() == 0 and live.heard_alive(2, 0, 21.0)  # a new step: from 0 again


def test_a_vote_against_a_deciding_seat_makes_the_holders_forward_its_latest_alive() -> None:
    """Seat 0 holds seat 1's ALIVE of the step (n = 2) and not its message; seat 2's DROP vote
    against seat 1 makes seat 0 forward that ALIVE (signed by seat 1, byte-equal); seat 3, which
    had lost it, restarts seat 1's clock on the copy, once: a second copy, or the older n = 1,
    change nothing."""
    sessions = game({}, n=4)
    s0, s3 = sessions[0], sessions[3]
    k, t = s0.step, s0.step_started
    for s in sessions:
        s.messages_to_send()
    older = seal(sessions[1].identity, MSG_ALIVE, [s0.game_id, 1, k, 1])
    alive = seal(sessions[1].identity, MSG_ALIVE, [s0.game_id, 1, k, 2])
    s0.receive_message(alive, t + 1)
    assert s0.stats["alive"] == 1 and s0.vote_time(1) == t + 1 + DROP_TIMEOUT
    assert alive not in s0.messages_to_send()
    s0.receive_message(sessions[2].seats.vote(k, 1), t + 2)
    assert alive in s0.messages_to_send() and s0.stats["forwarded"] == 1
    assert s0.vote_time(1) == t + 1 + DROP_TIMEOUT  # the vote does not touch seat 1's clock
    s3.receive_message(alive, t + 2)
    assert s3.stats["alive"] == 1 and s3.vote_time(1) == t + 2 + DROP_TIMEOUT
    s3.receive_message(alive, t + 3)
    s3.receive_message(older, t + 3.5)
    assert s3.stats["alive"] == 1 and s3.vote_time(1) == t + 2 + DROP_TIMEOUT


def test_a_voter_waits_one_more_re_send_period_while_one_vote_or_none_separates_its_due_seats() -> None:
    """§C8.3 vote timing (H33, ``LockstepSession._vote_in_doubt``): seat 0 of 5 waits for seats
    1-4, all due after the drop timeout: it votes one re-send period later (several due). One
    vote held against seat 4 (it may be a spiteful seat's), or a tie of one vote against 4 and
    one against 1: one more re-send period. A second vote against 4 ends the doubt: back to one
    period, and at that time seat 0 names 4."""
    for tie in (False, True):
        sessions = game({}, n=5)
        s0 = sessions[0]
        k, t0 = s0.step, s0.step_started
        first, grace = t0 + DROP_TIMEOUT, s0.live.resend_period
        assert s0.drop_deadline() == first + grace  # no vote held: nothing to doubt
        s0.receive_message(sessions[2].seats.vote(k, 4), t0 + 0.5)
        assert s0.drop_deadline() == first + 2 * grace  # one vote apart
        if tie:
            s0.receive_message(sessions[3].seats.vote(k, 1), t0 + 0.6)
            assert s0.drop_deadline() == first + 2 * grace  # a tie
            s0.handle_timer(first + grace)
            assert _voted(s0) == []  # not yet
            s0.handle_timer(first + 2 * grace)
            assert _voted(s0) == [(k, 1)]  # then today's rule: earliest, lowest
            continue
        s0.receive_message(sessions[1].seats.vote(k, 4), t0 + 0.7)
        assert s0.drop_deadline() == first + grace  # 2 to 0: settled
        s0.handle_timer(first + grace)
        assert _voted(s0) == [(k, 4)]
