"""The default bot accepts only an offer the engine accepts (protocol.md Part B, 'Decisions': trades;
§E6 / engine/rules/trade.py ``check_accept``: the proposer must also pay the fees of what it lifts).

RV15-T4 (session 15): the bot's own test (``offer_is_valid``) looked only at the proposer's cash
against the cash it offered, so a liar offering cash for a mortgaged lot with its mortgage lifted,
then spending below cash + lift fee, made the bot send an AcceptTrade the engine refused at every
step: the offer stayed open and the bot answered it again instead of rolling, for ever (and the
turn clock of §C8.3 counted the honest seat). Now it refuses such an offer and plays on."""

from __future__ import annotations

import engine as E
from engine.testing import scenario

A = E.actions
D, LIAR = 0, 1
CASH = 1200


def _offer_it_cannot_pay() -> object:
    """Seat D at its roll owns lot 39 mortgaged; LIAR offers CASH for it, lifting the mortgage (LIAR
    pays the lift fee at acceptance), then lifts its own lot 37: it can still pay CASH, not the fee."""
    s = scenario(3, current=D, cash={D: 1500, LIAR: CASH + 230, 2: 1500}, owners={39: D, 37: LIAR},
                 mortgaged=(39, 37))
    s, _ = E.apply_step(s, [None, A.ProposeTrade(D, (), (39,), CASH, 0, (), (), (39,)), None])
    s, _ = E.apply_step(s, [None, A.LiftMortgage(37), None])
    assert s.offers and CASH <= s.cash[LIAR]  # the premise: the cash is there, the fee is not
    assert A.AcceptTrade(LIAR, ()) not in E.legal_actions(s, D)
    return s


def test_the_bot_refuses_an_offer_whose_proposer_cannot_pay_its_fees_and_then_rolls():
    s = _offer_it_cannot_pay()
    x = E.bots.choose(s, D)
    assert x == A.RejectTrade(LIAR) and x in E.legal_actions(s, D)
    s, _ = E.apply_step(s, [x, None, None])
    assert not s.offers
    p = E.pending(s)
    assert p.kind == "roll" and p.actors == (D,)
    for _ in range(20):  # it may mortgage or offer a trade first; it accepts nothing refused, and rolls
        x = E.bots.choose(s, D)
        assert type(x).__name__ != "AcceptTrade", x
        if type(x).__name__ == "RollDice":
            break
        s, _ = E.apply_step(s, [x, None, None])
    else:
        raise AssertionError("the bot never rolled")


def test_the_bot_still_accepts_an_offer_the_engine_accepts():
    """The same offer while LIAR can pay the fee too (before it lifted its own lot): accepted."""
    s = scenario(3, current=D, cash={D: 1500, LIAR: CASH + 230, 2: 1500}, owners={39: D, 37: LIAR},
                 mortgaged=(39, 37))
    s, _ = E.apply_step(s, [None, A.ProposeTrade(D, (), (39,), CASH, 0, (), (), (39,)), None])
    x = E.bots.choose(s, D)
    assert x == A.AcceptTrade(LIAR, ()) and x in E.legal_actions(s, D)
