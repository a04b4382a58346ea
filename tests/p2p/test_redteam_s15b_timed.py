"""Red team session 15, second round (H169): a timed game (protocol.md §N8, part E "TimeUp contract")
that a liar holds with the turn clock's room (§C8.3 'Own decision across steps', 41c93be). Tests
only.

The time ends when a strict majority of the seats still in voted ``TimeUp``; the game then ends at
the end of the current turn. A liar (seat 1) that never votes and answers nil at its own roll
holds that turn: the time is up, but the turn never ends -- unless the turn clock drops it.

Hold (editrice-giochi, the timed edition, 3 seats, 1 minute, drop timeout 10 s, turn time 40 s, virtual clock): the liar
answers nil 1 s into each step of its own roll from step 20; seats 0 and 2 vote ``TimeUp`` once
the minute is over, at the next decision step where their silence costs nothing (§N8). Both honest
peers drop the liar at the turn clock's bound (first + OWN_STEPS_PER_TURN, the same step as
untimed: the votes change no count), its bot rolls, the turn ends and so does the game: one final
hash, logs verify, no cheater (measured: first stall 21, both votes at step 81 (60 s), drop at
181, game over at step 183, 161 s). Stated (not a break): the time is over ~OWN_STEPS_PER_TURN x the
liar's answer time before the game ends (~160 turn times at worst, §C8.3's stated limit).
"""

from __future__ import annotations

from engine.actions import TimeUp

from p2p.gamelog import LogWriter
from p2p.session_events import GameOver, SeatDropped, StepApplied
from p2p.session_turn_clock import OWN_STEPS_PER_TURN
from p2p.timed_clock import timed_options

from p2p_harness import finish_together, make_lobbies, pump_lobbies
from test_turn_clock import LIAR, OPTS, OwnRollNet

MINUTE = 60.0


class TimedNet(OwnRollNet):
    """``OwnRollNet`` (the liar's nil at its roll, ``delay`` s into each step); seats 0 and 2 vote
    ``TimeUp`` once ``MINUTE`` s have passed, at the first decision step where they are not an
    actor or only their roll waits (§N8), once; ``votes``: seat -> the step of its vote."""

    def __init__(self, RE, sessions, delay):
        super().__init__(RE, sessions, delay=delay)
        self.votes: dict[int, int] = {}
        self._roll_choose = self.choose
        self.choose = self._timed

    def _timed(self, s):
        p = self.E.pending(s.state)
        free = s.my_seat not in p.actors or p.kind in ("roll", "jail")
        if s.my_seat != LIAR and s.my_seat not in self.votes and self.now >= MINUTE and free \
                and TimeUp() in self.E.legal_actions(s.state, s.my_seat):
            self.votes[s.my_seat] = s.step
            return TimeUp()
        return self._roll_choose(s)


def test_n8_time_up_still_ends_a_game_the_liar_holds_once_the_turn_clock_drops_it(tmp_path):
    """§N8 + §C8.3: see the module docstring. Premises: both honest votes are in during the liar's
    held turn (after its first stall, before its drop), i.e. the time is up while it holds."""
    import engine as RE

    lobbies = make_lobbies(3, edition="editrice-giochi", options={**OPTS, **timed_options(1)})
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    paths = [tmp_path / f"{i}.log" for i in range(3)]
    sessions = [lob.start_session(RE, log=LogWriter(p, lob.log_header())) for lob, p in zip(ordered, paths)]
    net = TimedNet(RE, sessions, delay=1.0)
    net.run(max_time=1e7, max_rounds=5_000_000, hook=net.wake)
    first = net.stalled[0]
    bound = first + OWN_STEPS_PER_TURN
    assert sorted(net.votes) == [0, 2] and all(first < k < bound for k in net.votes.values()), net.votes
    for i in (0, 2):
        assert [(d.step, d.seat) for d in net.events[i] if isinstance(d, SeatDropped)] == [(bound, LIAR)], i
        last = max(e.step for e in net.events[i] if isinstance(e, StepApplied))
        assert any(isinstance(e, GameOver) for e in net.events[i])
        assert last <= bound + 10, (i, last)  # the bot rolls, the turn ends, so does the game
    finish_together(net, net.s, paths, (0, 2), cheaters=(), engine=RE)
