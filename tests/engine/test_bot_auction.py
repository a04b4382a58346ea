"""The bots' auction bids are not easy prey (issue 10; protocol.md part B, decision 1).

Rulebook (monopoly-classico-hasbro.txt, "Proprietà non possedute da alcun giocatore"): "Le
offerte partono da a10 e tutti i giocatori vi possono partecipare aumentando l'offerta
precedente di un minimo di a1 ... termina l'asta quando non c'è più alcun giocatore disposto a
rilanciare". An ascending auction with €1 raises ends at the best rival ceiling + €1: that is
the price the bot now bids at once, so a seat that always bids the minimum, or one that waits
for the others' bids of the round (unsealed lockstep), wins nothing cheaper than the bot would.
Equal bids of a round tie and everybody bids again; tied bids nobody raises roll for the lot
(engine.rules.auction, "auction_tie"): no seat wins a tie by its place in turn order.
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import step_inplace
from engine.game import chance_inplace
from engine.rng import BeaconRng
from engine.actions import Bid, DeclineProperty, PassBid
from engine.bots import choose
from engine.bots._decide import auction_top
from engine.bots._profile import scaled
from engine.bots._value import static
from engine.events import AuctionEnded, AuctionTied
from engine.rules.auction import TIED, min_bid
from engine.state import P_AUCTION, P_AUCTION_TIE
from engine.testing import roll, scenario, step

VIALE_MONTEROSA = 8   # light blue, €100; Bastioni (6) and Viale Vesuvio (9) complete the set


def _auction(cash: dict, owners: dict, dice=(4, 4)):
    """Seat 0 (4 seats) lands on the square ``dice`` reach from Via (8: Viale Monterosa) and
    declines: the auction of that deed waits for its first round."""
    s = scenario(4, cash=cash, owners=owners)
    s, _ = roll(s, *dice)
    s, _ = step(s, seat0=DeclineProperty())
    assert s.phase == P_AUCTION
    return s


def _tops(s) -> list[int]:
    prof = scaled("default", s.ed.go_salary)
    return [auction_top(s, static(s), prof, i)[0] for i in range(s.n)]


def _run(s, cheats: dict, beacon: bytes = b"tie", trace: list | None = None):
    """Play the auction to its end; ``cheats[seat]`` = "minimum" or "patient" replaces that
    seat's bot (same ceiling); "stop" bids the minimum like "minimum" but never raises a tied
    bid it holds. A tie nobody raises is rolled with ``beacon``. ``trace`` collects the events.
    Returns (winner, price)."""
    s = s.copy()
    top = _tops(s)
    while s.phase in (P_AUCTION, P_AUCTION_TIE):
        ev: list = []
        if s.phase == P_AUCTION_TIE:
            chance_inplace(s, BeaconRng(beacon), ev)
        else:
            step_inplace(s, _inputs(s, cheats, top), ev)
        if trace is not None:
            trace.extend(ev)
        for e in ev:
            if type(e) is AuctionEnded:
                return e.winner, e.amount
    raise AssertionError("the auction did not end")


def _inputs(s, cheats: dict, top: list[int]) -> list:
    """The bots' inputs for one auction step, with ``cheats`` (see _run) in their seats."""
    inputs = [choose(s, i) for i in range(s.n)]
    for seat, how in cheats.items():
        if not s.auc_in[seat] or s.auc_bidder == seat:
            continue
        low = min_bid(s)
        if top[seat] < low or (how == "stop" and s.auc_in[seat] == TIED):
            inputs[seat] = PassBid()
            continue
        seen = [a.amount for i, a in enumerate(inputs) if i != seat and type(a) is Bid]
        beat = max(seen) + 1 if how == "patient" and seen else low
        inputs[seat] = Bid(beat if beat <= top[seat] else low)
    return inputs


def test_the_bot_with_the_highest_ceiling_bids_the_next_ceiling_plus_one_at_once():
    # Seat 1 owns the other two light blues: the deed completes its set, so it values it most.
    s = _auction({i: 1500 for i in range(4)}, {6: 1, 9: 1})
    top = _tops(s)
    assert top[1] > max(top[0], top[2], top[3])
    rival = max(top[0], top[2], top[3])
    assert choose(s, 1) == Bid(rival + 1)
    for seat in (0, 2, 3):  # the others bid their own ceiling: a winner pays at least that
        assert choose(s, seat) == Bid(top[seat])
    assert _run(s, {}) == (1, rival + 1)
    # In seat 1's place a minimum bidder, or one that sees the round's bids first, pays the same.
    assert _run(s, {1: "minimum"}) == _run(s, {1: "patient"}) == (1, rival + 1)
    # In another seat's place it does not win, and seat 1 still pays the same.
    assert _run(s, {2: "minimum"}) == _run(s, {0: "patient"}) == (1, rival + 1)


def test_equal_ceilings_end_at_the_ceiling():
    """On a tie of ceilings every bot bids its ceiling: the bids tie, nobody can raise, and
    the tied seats roll for the lot at the ceiling (the winner depends on the dice only)."""
    s = _auction({i: 1500 for i in range(4)}, {})
    top = _tops(s)
    assert len(set(top)) == 1
    assert [choose(s, i) for i in range(4)] == [Bid(top[0])] * 4
    winners = set()
    for k in range(12):
        winner, price = _run(s, {}, beacon=b"roll %d" % k)
        assert price == top[0]
        winners.add(winner)
    assert len(winners) > 1  # not the first in turn order every time
    for cheat in range(4):  # a minimum bidder gets it at the ceiling too, never below
        assert _run(s, {cheat: "minimum"})[1] == top[0]


def test_a_tie_at_the_opening_bid_is_not_won_by_turn_order():
    """The case the former tie rule (first in turn order) lost: the best rival's ceiling is the
    opening bid (seat 3's, cash [20, 200, 20, 85], Viale Monterosa). Seat 1, before seat 3 in
    turn order, bids the minimum and ties seat 3 at €10 (the old rule gave it the lot there);
    both bid again, seat 1 raises to €11 and wins at the fair price. A seat that ties and then
    never raises ("stop") wins at €10 only through the roll, against the other tied seat, and
    loses it otherwise."""
    s = _auction({0: 20, 1: 200, 2: 20, 3: 85}, {})
    top = _tops(s)
    assert max(top[0], top[2]) < top[3] == s.ed.auction_open < top[1]
    trace: list = []
    assert _run(s, {1: "minimum"}, trace=trace) == (1, s.ed.auction_open + 1)
    assert any(type(e) is AuctionTied and 1 in e.seats for e in trace)
    outcomes = set()
    for k in range(16):
        trace = []
        w, price = _run(s, {1: "stop"}, beacon=b"stop %d" % k, trace=trace)
        tied = next(e for e in trace if type(e) is AuctionTied)
        assert w in tied.seats and price == tied.amount
        outcomes.add(w == 1)
    assert outcomes == {True, False}


def test_a_seat_that_cannot_reach_the_minimum_passes():
    s = _auction({0: 1500, 1: 15, 2: 1500, 3: 1500}, {})
    assert choose(s, 1) == PassBid()


@settings(max_examples=40, deadline=None)
@given(cash=st.lists(st.integers(20, 1500), min_size=4, max_size=4),
       owner=st.sampled_from([{}, {6: 1}, {6: 1, 9: 1}, {6: 2}, {15: 3}, {25: 1, 35: 2}]),
       cheat=st.integers(0, 3), how=st.sampled_from(["minimum", "patient"]),
       dice=st.sampled_from([(4, 4), (2, 3), (5, 6)]))
def test_a_minimum_or_patient_bidder_never_wins_for_less_than_the_bot_would_pay(cash, owner, cheat, how, dice):
    """Whatever the cash and the sets (dice: Viale Monterosa, Stazione Sud, Via Accademia), a
    cheat with the bot's ceiling never wins for less than the fair price: the best rival
    ceiling + €1 (its own ceiling on a tie, the opening bid at least), where an ascending
    auction with €1 raises ends; the bot in its place pays exactly that when it wins."""
    s = _auction({i: c for i, c in enumerate(cash)}, owner, dice=dice)
    top = _tops(s)

    def fair(seat):
        rival = max((t for i, t in enumerate(top) if i != seat and s.auc_in[i]), default=-1)
        return max(s.ed.auction_open, min(top[seat], rival + 1))
    honest = _run(s, {})
    if honest[0] >= 0:
        assert honest[1] == fair(honest[0])
    cheated = _run(s, {cheat: how})
    if cheated[0] == cheat:
        assert cheated[1] >= fair(cheat)
