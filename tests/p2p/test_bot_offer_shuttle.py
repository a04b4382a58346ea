"""Two colluding non-actors shuttle the street an honest bot asks for (RV16-D F1 [HIGH], session 16;
protocol.md §C8.3 'Own decision across steps', Part B 'Decisions' row 6, 'What changed in
version 6').

Live game, classico, 5 seats (Q = 3), demo seed b"s1", turn time 40 s, drop timeout 10 s, virtual
clock; liars L1 = 3 and L2 = 4. Honest seat 0's bot offers L1 a trade at its roll at step 145,
asking for street 18. In each step the bot offers, L1 accepts L2's standing offer for that street
(or hands it back), so at the next state the bot's offer asks for a street its partner no longer
owns; L2, applied after L1, makes the reverse offer. Their trades name each other, never the
actor, so the turn clock (p2p/session_turn_clock.held_seats) counts neither of them.

Before the fix the bot withdrew its stale offer (a held step of the honest actor) and offered again
(another), at every step: the honest peers themselves voted seat 0 out at 306 = 146 + 160, and its
dropped seat's bot was then held the same way for ever (4 of 5 seats active, a drop possible,
nobody counted; RV16-D's repro, both broke at 6b3d34f). Now the bot rolls with its stale offer
open: one held step, then the turn goes on, nobody is dropped and the game ends.
"""

from __future__ import annotations

import warnings

from p2p import const as C
from p2p.gamelog import LogWriter
from p2p.session_events import SeatDropped
from p2p.session_turn_clock import OWN_STEPS_PER_TURN

from p2p_harness import Net, make_lobbies, pump_lobbies

OPTS = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 10, C.OPT_TURN_TIME: 40}
N, L1, L2 = 5, 3, 4


def _engine():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import engine as E
    return E


class ShuttleNet(Net):
    """Seats L1, L2 shuttle street ``X`` (the first street an honest bot asks L1 for) between them
    in every step an honest actor offers L1 a trade for it; the other seats play the default bot."""

    def __init__(self, E, sessions):
        self.E = E
        super().__init__(sessions, self._choose)
        self.X = None
        self.log: list = []  # (step, seat, action name) of the honest actor at its roll, from X on
        self.liar_moves = 0
        self.stale_rolls = 0  # honest rolls decided with the actor's own offer open and stale

    def _standing(self, S, kind):
        for o in S.offers:
            if o[0] == L2 and o[1] == L1 and self.X in (o[3] if kind == "get" else o[2]):
                return o
        return None

    def _l1(self, S):
        E = self.E
        p = E.pending(S)
        d = p.actors[0] if (p.kind == "roll" and not p.chance and p.actors and p.actors[0] < L1) else None
        bot = E.bots.choose(S, d) if d is not None else None
        offers_me = type(bot).__name__ == "ProposeTrade" and bot.partner == L1 and bot.get_squares
        if offers_me and self.X is None:
            self.X = bot.get_squares[0]
        if self.X is not None and d is not None:
            if offers_me and self.X in bot.get_squares:
                if self._standing(S, "get") is not None and S.owner[self.X] == L1:
                    return "take", E.actions.AcceptTrade(L2, ())
                return "first", E.actions.RejectTrade(d)
            if self._standing(S, "give") is not None and S.owner[self.X] == L2:
                return "back", E.actions.AcceptTrade(L2, ())
        return None, E.bots.choose(S, L1)

    def _choose(self, s):
        E, S, me = self.E, s.state, s.my_seat
        if me == L1:
            tag, a = self._l1(S)
            self.liar_moves += tag is not None
            return a
        if me == L2:
            tag, _ = self._l1(S)
            if tag == "take":
                return E.actions.ProposeTrade(L1, (self.X,), (), 0, 0, (), (), ())
            if tag in ("back", "first"):
                return E.actions.ProposeTrade(L1, (), (self.X,), 0, 0, (), (), ())
            return E.bots.choose(S, L2)
        a = E.bots.choose(S, me)
        p = E.pending(S)
        if self.X is not None and not p.chance and p.kind == "roll" and p.actors == (me,):
            self.log.append((s.step, me, type(a).__name__))
            mine = [o for o in S.offers if o[0] == me]
            if mine and E.actions.AcceptTrade(me, ()) not in E.legal_actions(S, mine[0][1]):
                self.stale_rolls += 1
        return a


def _run(tmp_path):
    E = _engine()
    lobbies = make_lobbies(N, edition="classico", options=OPTS, demo_seed=b"s1")
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda lob: lob.my_seat)
    paths = [tmp_path / f"{i}.log" for i in range(N)]
    sessions = [lob.start_session(E, log=LogWriter(p, lob.log_header())) for lob, p in zip(ordered, paths)]
    net = ShuttleNet(E, sessions)
    st = {"turn": None, "since": 0, "longest": 0}

    def hook(n):
        s = n.s[1]
        if s is None:
            return None
        if s.state.turn != st["turn"]:
            st["turn"], st["since"] = s.state.turn, s.step
        st["longest"] = max(st["longest"], s.step - st["since"])
        if st["longest"] > 3 * OWN_STEPS_PER_TURN:  # held: stop (the failure the test guards)
            n.s[:] = [None] * len(n.s)
        return None

    net.run(max_time=1e6, max_rounds=3_000_000, hook=hook)
    return net, st


def test_two_non_actors_shuttling_the_asked_street_hold_the_honest_bot_for_one_step(tmp_path):
    """§C8.3: the clock must never vote out a seat whose bot plays, and no seat holds the game for
    ever while a drop is possible. The bot offers once more after L1's same-step reject (counted
    against L1), then rolls with its offer stale: no WithdrawTrade, nobody dropped, no long turn."""
    net, st = _run(tmp_path)
    dropped = sorted({(e.step, e.seat) for ev in net.events for e in ev if isinstance(e, SeatDropped)})
    # the premise: the liars shuttled X and the honest bot met its own offer open and stale
    assert net.X is not None and net.liar_moves >= 2 and net.stale_rolls >= 1, (net.X, net.liar_moves, net.log[:6])
    names = [a for _, _, a in net.log]
    assert "WithdrawTrade" not in names, net.log[:12]
    assert names[:2] == ["ProposeTrade", "RollDice"], net.log[:4]  # at 146 (after L1's reject at 145), 147
    assert dropped == [], dropped
    assert st["longest"] <= 40, st  # the longest turn of the game, in steps (a held turn: 160+)
    assert [s.phase for s in net.s] == ["finished"] * N  # the game ended (never stopped by the hook)
