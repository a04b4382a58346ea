"""Red team s12d #1 (H136; H135's lead): DROP votes against OUR seat of past steps, one per epoch
value, kept for the rest of the game.

``SessionVotes.receive`` keeps a verified vote DROP(j, us, e) of a step j we applied while j is
within KEEP_STEPS of our step (``SeatLoss.own_drop_counts``: it may still make us halt
``SeatLost(j)``), whatever its epoch field e (0..MAX_EPOCH on the wire, ``wire.EPOCH``). Each one
also goes to ``SlotVotes`` by slot (step, epoch, seat), and ``SlotVotes.forget`` never forgets a
slot against our own seat. ``SlotVotes`` is read only at the current step (``bound``,
``bound_votes``: rule (c), s12b #2) and ``SeatLost`` counts ``SeatLoss._votes``, not the slots:
a slot of a past step against us is never read again. One hostile seat signing DROP(j, us, e)
for every e (256 votes, ~150 bytes each on the wire) at every step grows our memory by 256 slots
per step of the game, for good, and ``SlotVotes.bound`` walks every slot at every step (CPU per
step grows with the game). In memory, virtual clock, fake engine, 5 seats. Fixed (coordinator):
``SlotVotes.forget`` forgets every slot of an applied step, ours included.
"""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.lockstep import GameOver, SeatLost
from p2p.wire import MSG_DROP, DropVote, seal_message

from p2p_harness import Net, random_legal, started_sessions

OPTS = {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30}
US, HOSTILE = 0, 3
FROM = 6


class PastEpochFlood:
    """Run hook: from our step FROM on, HOSTILE signs DROP(j, US, e, open) for every step j we
    applied that ``own_drop_counts`` still keeps and every epoch value e in 0..MAX_EPOCH, once
    each, delivered to US only. Records len(slots._held) at each step reached."""

    def __init__(self, sessions, epochs: range = range(C.MAX_EPOCH + 1)) -> None:
        self.s, self.epochs = sessions, epochs
        self.done: set[int] = set()
        self.sent = 0
        self.held: dict[int, int] = {}

    def hook(self, net: Net) -> None:
        me = net.s[US]
        if me is None or me.phase != "running" or me.step < FROM:
            return None
        k = me.step
        self.held[k] = len(me.seats.slots._held)
        gid = me.setup.game_id
        for j in range(max(FROM, k - C.KEEP_STEPS), k):
            if j in self.done:
                continue
            self.done.add(j)
            for e in self.epochs:
                me.receive_message(seal_message(self.s[HOSTILE].identity, MSG_DROP,
                                                DropVote(gid, HOSTILE, j, US, e, None)), net.now)
                self.sent += 1
        return None


def run(epochs: range = range(C.MAX_EPOCH + 1)) -> tuple[PastEpochFlood, Net]:
    sessions = started_sessions(5, E, OPTS)
    atk = PastEpochFlood(sessions, epochs)
    net = Net(list(sessions), random_legal(E, seed=5))
    net.run(max_time=1e4, hook=atk.hook)
    return atk, net


def past_own_slots(s) -> list:
    """The slots against our seat of steps no vote can make us halt for any more."""
    return [key for key in s.seats.slots._held if key[2] == US and not s.seats.own_drop_counts(key[0], s.step)]


def test_one_vote_per_past_step_is_kept_only_while_it_can_count():
    """Control (what holds): the same hostile seat with ONE epoch value (0) per past step: we
    never halt (one vote is no quorum), the game ends, and at most one slot per past step is held."""
    atk, net = run(range(1))
    me = net.s[US]
    assert atk.sent > 20, atk.sent
    assert not [e for e in net.events[US] if isinstance(e, SeatLost)]
    assert any(isinstance(e, GameOver) for e in net.events[US])
    assert len(me.seats.slots._held) <= me.step  # one per step at most: H135's growth, x1


def test_votes_against_us_of_past_steps_are_not_held_for_the_rest_of_the_game():
    """The rule (§C8.3 'Stale votes', ``own_drop_counts``): a vote of a step older than KEEP_STEPS
    can make us halt no more, so nothing of it need be held; our memory of votes does not grow
    with the game's length under a flood of signed votes of every epoch value."""
    atk, net = run()
    me = net.s[US]
    assert atk.sent > 256 * 20, atk.sent  # the premise: the flood went in, every epoch value
    assert not [e for e in net.events[US] if isinstance(e, SeatLost)]
    assert any(isinstance(e, GameOver) for e in net.events[US])
    stale = past_own_slots(me)
    assert len(stale) == 0, (len(stale), len(me.seats.slots._held), me.step, sorted(atk.held.items())[-3:])
