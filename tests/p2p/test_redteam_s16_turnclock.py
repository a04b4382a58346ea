"""Red team session 16 (H174), tests only: the turn clock (protocol.md §C8.3 'Own decision across
steps', p2p/session_turn_clock.py) against a liar that plays with trades.

BREAK (HIGH): a liar rejecting an honest bot's offer IN THE SAME STEP gets the honest seat voted
out. The default bot (a player's autoplay, and a dropped seat's bot) makes one offer at its own
roll and rolls once that offer is open (engine/bots/_decide.on_roll: "One proposal per turn: with
our offer open we roll at once, so a rejection cannot reach us before this turn's roll"). But the
engine applies a step's inputs in seat order (engine/game.step_inplace): a partner seated after
the proposer that sends RejectTrade(proposer) at every step closes the offer in the very step
that opens it. The bot sees no open offer, proposes the same trade again, and so on: every step
is a held step of the honest actor (its ProposeTrade keeps the turn), while the liar's
RejectTrade is never counted (session_turn_clock.held_seats counts a non-actor only for a
ProposeTrade naming the actor). At OWN_STEPS_PER_TURN the honest peers vote the HONEST proposer
out. The liar pays nothing (a refused RejectTrade at the other steps is nil).

BREAK (HIGH), the same lever against a dropped seat (after that drop, or any crash): its bot
(§C8.4, on_drop "bot"), applied by every peer, makes the same offer again; the liar rejects it
in the same step; the
dropped seat is not active (never counted) and the liar is no actor (never counted): the turn
never passes, the game is held for ever at LAN speed (no wall time passes at all), and every
peer's log grows by a step record per step without end. Shown with 4 seats, 3 of them active
after the drop (first read as a game where a drop of the liar is possible; H175: it is not, Q = 3
of 4 needs 3 voters other than the liar: §C8.3 'Where no drop is possible', four seats with at
least one dropped). H177: where no drop is possible the game now ends as abandoned at
ABANDON_STEPS_PER_TURN held steps; where one is possible (5 seats) the liar is voted out at the
bound (tests/p2p/test_turn_clock_same_step.py).

Live games: classico, 3 seats (4 for the second break), turn time 40 s, drop timeout 10 s,
virtual clock; the table's demo seed b"s3" (honest seat 1 offers seat 2 a trade at its roll at
step 97; the seeds s0-s4 all show it, s3 is the shortest; with 4 seats and seat 0 crashed at step
10: s0, s1, s3, s5, s6).
"""

from __future__ import annotations

import warnings

import pytest

from p2p import const as C
from p2p.gamelog import LogWriter
from p2p.session_events import GameAbandoned, SeatDropped, SeatDropVoted
from p2p.session_turn_clock import ABANDON_STEPS_PER_TURN, OWN_STEPS_PER_TURN
from p2p.verify import verify_log

from p2p_harness import Net, finish_together, make_lobbies, pump_lobbies

LIAR = 2
OPTS = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 10, C.OPT_TURN_TIME: 40}


def _engine():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import engine as RE
    return RE


class SameStepRejectNet(Net):
    """Classico, 3 seats; seat ``LIAR`` plays its bot, except that when its bot has nothing to
    send at a roll of a lower seat it sends RejectTrade(that seat) (refused, nil, when no offer of
    that seat is open). Every other seat is the default bot. ``proposals``: (step, seat) of each
    honest offer to the liar."""

    def __init__(self, RE, sessions, liar: int = LIAR):
        self.E = RE
        super().__init__(sessions, self._choose)
        self.liar = liar
        self.proposals: list = []

    def _choose(self, s):
        E, st = self.E, s.state
        a = E.bots.choose(st, s.my_seat)
        if s.my_seat != self.liar:
            if type(a).__name__ == "ProposeTrade" and a.partner == self.liar:
                self.proposals.append((s.step, s.my_seat))
            return a
        p = E.pending(st)
        if a is None and p.kind == "roll" and not p.chance and p.actors and p.actors[0] != self.liar:
            return E.actions.RejectTrade(p.actors[0])
        return a

    def stop_at_first_drop(self, net):
        """A ``run`` hook: once a peer reports a drop, stop (the run then shows who)."""
        if any(isinstance(e, SeatDropped) for ev in self.events for e in ev):
            self.stopped = [s.step if s is not None else None for s in self.s]
            self.s[:] = [None] * len(self.s)
        return None


def _sessions(tmp_path, RE, seed: bytes = b"s3", n: int = 3):
    lobbies = make_lobbies(n, edition="classico", options=OPTS, demo_seed=seed)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    paths = [tmp_path / f"{i}.log" for i in range(n)]
    return [lob.start_session(RE, log=LogWriter(p, lob.log_header())) for lob, p in zip(ordered, paths)], paths


def test_c8_3_a_same_step_reject_never_gets_the_honest_proposer_voted_out(tmp_path):
    """§C8.3 'Own decision across steps' (a local voting policy that must never vote out a seat
    whose bot plays): the liar (seat 2) sends RejectTrade(current) at every roll of seats 0/1.
    Rule checked: no honest seat is voted out or dropped; the honest peers finish the game."""
    RE = _engine()
    sessions, paths = _sessions(tmp_path, RE)
    net = SameStepRejectNet(RE, sessions)
    net.run(max_time=1e6, max_rounds=3_000_000, hook=net.stop_at_first_drop)
    assert net.proposals, "premise: an honest bot offered the liar a trade"
    dropped = {(e.step, e.seat) for i in (0, 1) for e in net.events[i] if isinstance(e, SeatDropped)}
    voted = {(e.step, e.seat) for i in (0, 1) for e in net.events[i] if isinstance(e, SeatDropVoted)}
    first = net.proposals[0][0]
    assert not [d for d in dropped if d[1] != LIAR], (first, sorted(dropped), sorted(voted)[:4], net.proposals[:3])


def test_premise_the_same_step_reject_closes_the_offer_the_bot_made_and_the_bot_offers_again(tmp_path):
    """Hold of the premise (engine seat order, engine/game.step_inplace; the default bot's
    on_roll): the honest seat's offer made at step k is rejected within step k, so from its first
    offer on the honest bot offers the liar the same trade at every step of its roll until a seat
    is dropped (at HEAD 81bfeb5 the honest proposer at first + OWN_STEPS_PER_TURN, the break
    above; whoever a fix drops, the bot's offers come at every step until then), with no wall
    time passing at all: the whole stall runs at LAN speed."""
    RE = _engine()
    sessions, paths = _sessions(tmp_path, RE)
    net = SameStepRejectNet(RE, sessions)
    net.run(max_time=1e6, max_rounds=3_000_000, hook=net.stop_at_first_drop)
    first, victim = net.proposals[0]
    assert victim != LIAR and net.now == 0.0
    drops = sorted({(e.step, e.seat) for ev in net.events for e in ev if isinstance(e, SeatDropped)})
    assert drops and drops[0][0] >= first + OWN_STEPS_PER_TURN, (first, drops)
    steps = [k for k, seat in net.proposals if seat == victim]
    assert steps[:OWN_STEPS_PER_TURN] == list(range(first, first + OWN_STEPS_PER_TURN))


def test_c8_3_a_dropped_seats_bot_cannot_be_held_for_ever_by_same_step_rejects(tmp_path):
    """§C8.3 'Own decision across steps' (where no drop is possible, a seat past
    ABANDON_STEPS_PER_TURN held steps in one turn ends the game, H177) with §C8.4 (a dropped seat's
    bot plays its turns) and §C8.7 (the game ends as abandoned, signed). Classico, 4 seats, demo
    seed b"s1", the liar at seat 3 (SameStepRejectNet): seat 0's peer crashes at step 10 and is
    dropped at the drop timeout; at its roll at step 83 its bot, applied by every peer, offers the
    liar a trade, and does again at every step, the liar rejecting it in the same step. Seats 1, 2,
    3 stay active: Q = 3 needs 3 voters other than the liar, so no drop is possible and nobody may
    vote (before H177 the turn never passed: held for ever at LAN speed, every log growing). Rule
    checked: every peer still running (1, 2 and the liar's own, which runs the same clock) ends
    the game as abandoned at the same step, the gate of the liar's ABANDON_STEPS_PER_TURN + 1-th
    held step, with its own signed ABANDON naming the liar and the bound; no turn lasts more than
    ABANDON_STEPS_PER_TURN + 1 steps; no wall time passes; every log verifies, ending abandoned."""
    RE = _engine()
    sessions, paths = _sessions(tmp_path, RE, b"s1", n=4)
    net = SameStepRejectNet(RE, sessions, liar=3)
    st: dict = {"turn": None, "since": 0, "longest": 0}
    watcher = 1  # an honest peer that stays

    def hook(n):
        if n.s[0] is not None and n.s[0].step >= 10:
            n.s[0] = None  # seat 0's peer crashes for good
        s = n.s[watcher]
        if s is None:
            return None
        if s.state.turn != st["turn"]:
            st["turn"], st["since"] = s.state.turn, s.step
        st["longest"] = max(st["longest"], s.step - st["since"])
        if st["longest"] > 3 * OWN_STEPS_PER_TURN:
            st["held"] = (st["since"], s.step, s.state.turn)
            n.s[:] = [None] * len(n.s)
        return None

    net.run(max_time=1e6, max_rounds=3_000_000, hook=hook)
    dropped = [(e.step, e.seat) for e in net.events[watcher] if isinstance(e, SeatDropped)]
    assert dropped[:1] == [(10, 0)], ("premise: seat 0 dropped at its crash", dropped)
    assert net.now < 60.0 and "held" not in st, (net.now, st)  # the hold ran at LAN speed; it ended
    assert st["longest"] <= ABANDON_STEPS_PER_TURN + 1, st
    ends = {i: [e for e in net.events[i] if isinstance(e, GameAbandoned)] for i in (1, 2, 3)}
    assert all(len(ev) == 1 for ev in ends.values()), ends
    steps = {ev[0].step for ev in ends.values()}
    assert len(steps) == 1, ends  # every peer at the same step: its gate
    k = steps.pop()
    assert k == st["since"] + ABANDON_STEPS_PER_TURN, (k, st)  # the liar held every step of the turn
    for i in (1, 2, 3):
        assert sessions[i].phase == "abandoned" and sessions[i].step == k, i
        e = ends[i][0]
        assert e.seat == i and f"seat 3 held its turn {ABANDON_STEPS_PER_TURN + 1} steps" in e.reason, e
        assert str(ABANDON_STEPS_PER_TURN) in e.reason.split("bound of")[1], e.reason
        assert not [v for v in net.events[i] if isinstance(v, SeatDropVoted) and v.step > 10], i  # nobody could
        sessions[i].log.close()
        rep = verify_log(paths[i], engine=RE)
        assert rep.ok and not rep.complete and rep.abandoned == {"seat": i, "step": k}, (i, rep.error)


def test_hold_a_liar_seated_before_the_proposer_gains_nothing_by_rejecting_at_every_step(tmp_path):
    """Hold (engine seat order, engine/game.step_inplace; §C8.3): the same liar at seat 0 sends
    RejectTrade(current) at every roll of seats 1 and 2. Its reject is applied before the honest
    bot's offer of the same step (refused: no offer yet), so the offer stays open, the bot rolls
    at the next step (its reject then closes it, the roll goes on): no step is held twice, nobody
    is voted out, the three finish one game and their logs verify."""
    RE = _engine()
    sessions, paths = _sessions(tmp_path, RE)
    net = SameStepRejectNet(RE, sessions, liar=0)
    net.run(max_time=1e6, max_rounds=3_000_000)
    assert net.proposals and len(net.proposals) < 5  # premise: honest bots offered the liar trades
    for i in range(3):
        assert not [e for e in net.events[i] if isinstance(e, (SeatDropped, SeatDropVoted))], i
    finish_together(net, sessions, paths, (0, 1, 2), cheaters=(), engine=RE)
