"""Turn skip at sealed decision steps (protocol.md §C8.10 with §C13): a skip at a sealed commit step
is a withdrawal at the open step (the skipped seat has no commitment and sends nil), and a seat
whose late commitment was skipped does not open it. Classico, the real engine and bots, 3 seats,
in memory, virtual clock; every log verifies (§C6).
"""

from __future__ import annotations

from p2p import const as C
from p2p.gamelog import LogWriter
from p2p.lockstep import GameOver
from p2p.session_events import TurnSkipped
from p2p.verify import verify_log

from p2p.wire import decode_step_body, open_envelope

from p2p_harness import Net, drain, make_lobbies, pump_lobbies


def _classico_table(tmp_path):
    """3 seats of the real engine (classico, drop rule ``bot``), each logging to
    ``tmp_path/<seat>.log``: (log writers, sessions), seat order."""
    import engine as RE

    lobbies = make_lobbies(3, edition="classico", options={C.OPT_ON_DROP: "bot"})
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    writers = [LogWriter(tmp_path / f"{i}.log", lob.log_header()) for i, lob in enumerate(ordered)]
    return writers, [lob.start_session(RE, log=w) for lob, w in zip(ordered, writers)]


def _assert_clean_finish(net, writers, tmp_path):
    """After ``net.run`` of a ``_classico_table``: nobody misbehaved, every peer ended the game
    once with the same final hash, and every log verifies complete (§C6)."""
    import engine as RE
    from p2p.lockstep import PeerMisbehaved

    for w in writers:
        w.close()
    assert not [e for evs in net.events for e in evs if isinstance(e, PeerMisbehaved)]
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
    for i in range(len(writers)):
        rep = verify_log(tmp_path / f"{i}.log", engine=RE)
        assert rep.ok and rep.complete, rep.error


class CommitIdleNet(Net):
    """Classico, real engine and bots: seat ``idle`` withholds its input at the first sealed
    commit step (§C13.2) from step 5 on; the others vote to skip its turn there."""

    def __init__(self, sessions, idle: int) -> None:
        import engine as RE
        super().__init__(sessions, lambda s: RE.bots.choose(s.state, s.my_seat))
        self.idle = idle
        self.commit_step: int | None = None

    def inputs(self) -> bool:
        from p2p.sealed import COMMIT
        moved = False
        for s in self.s:
            if s.needs_local_input() is None:
                continue
            if s.my_seat == self.idle and s.step >= 5 and s.sealed.phase == COMMIT and self.commit_step in (None, s.step):
                self.commit_step = s.step
                continue
            s.submit_local_input(self.choose(s), now=self.now)
            moved = True
        for s in self.s:
            if s.my_seat != self.idle and s.step == self.commit_step and s.waiting_for() == (self.idle,):
                moved = s.skip_turn(self.idle, self.now) or moved
        return moved


def test_a_skip_at_a_sealed_commit_step_is_a_withdrawal_at_the_open_step(tmp_path):
    """§C8.10 with §C13: seat 2's turn is skipped at an auction's commit step, so it has no
    commitment; at the open step it sends nil (no 'opening without a commitment'), the
    auction goes on without its bid, the game ends the same on every peer and the logs verify."""
    writers, sessions = _classico_table(tmp_path)
    net = CommitIdleNet(sessions, idle=2)
    net.run(max_time=1e6, max_rounds=5_000_000)
    k = net.commit_step
    assert k is not None
    skipped = [[(e.step, e.seat) for e in evs if isinstance(e, TurnSkipped)] for evs in net.events]
    assert skipped == [[(k, 2)]] * 3
    _assert_clean_finish(net, writers, tmp_path)


def test_a_seat_whose_late_commitment_was_skipped_does_not_open_it(tmp_path):
    """§C8.10 with §C13.3: seat 2 commits at a commit step k while it still lacks seat 1's
    commitment; the votes of seats 0 and 1 (a quorum) reach it before seat 1's commitment. It
    applies k with its own turn skipped, so it has no commitment there: at the open step it
    sends nil, not its opening (which the others would call 'an opening without a commitment')."""
    import engine as RE
    from p2p.sealed import COMMIT

    writers, ss = _classico_table(tmp_path)
    bot = lambda s: RE.bots.choose(s.state, s.my_seat)  # noqa: E731
    net = Net(ss, bot)
    for _ in range(100_000):
        if all(s.sealed.phase == COMMIT and s.step == ss[0].step and s.needs_local_input() is not None for s in ss):
            break
        if not net.inputs():
            net.deliver()
    k = ss[0].step
    assert ss[0].sealed.phase == COMMIT

    def send(src, dsts, raws):
        for raw in raws:
            for d in dsts:
                ss[d].receive_message(raw, 0.0)

    ss[0].submit_local_input(bot(ss[0]))
    ss[1].submit_local_input(bot(ss[1]))
    c0, c1 = ss[0].messages_to_send(), ss[1].messages_to_send()
    send(0, (1, 2), c0)
    send(1, (0,), c1)
    ss[2].submit_local_input(bot(ss[2]))
    c2 = ss[2].messages_to_send()  # its commitment: held back
    assert ss[0].skip_turn(2) and ss[1].skip_turn(2)
    v0, v1 = ss[0].messages_to_send(), ss[1].messages_to_send()
    send(0, (1, 2), v0)
    send(1, (0, 2), v1)
    assert ss[0].step == ss[1].step == k + 1 and ss[2].step == k  # seat 2 still lacks seat 1's
    send(1, (2,), c1)
    assert ss[2].step == k + 1 and [(e.step, e.seat) for e in drain(ss[2]) if isinstance(e, TurnSkipped)] == [(k, 2)]
    mine = ss[2].steps.own(k + 1)
    assert mine is not None and decode_step_body(open_envelope(mine, C.MAX_STEP_MSG).body).input is None
    send(2, (0, 1), c2)  # its superseded commitment, late: stale
    net.run(max_time=1e6, max_rounds=5_000_000)
    _assert_clean_finish(net, writers, tmp_path)
