"""The default bot rolls with its own offer open even when that offer can no longer be carried out
(protocol.md Part B, 'Decisions' row 6; §C8.3 'Own decision across steps'; 'What changed in
version 6').

RV16-D F1 [HIGH] (session 16): the bot used to withdraw a stale own offer at its roll
(``offer_is_valid`` false) and, with no offer open at the next state, propose again. Two other seats
trading the asked street back and forth between them, one move in each step the bot offered, made
its offer stale at every step: the bot withdrew and proposed for ever, each a held step of the
honest actor (their own trades name each other, never the actor, so the turn clock counted nobody
else): it was voted out at first + 160, then its dropped seat's bot was held the same way for ever.
Now the stale offer stays open (the partner's bot rejects it) and the bot rolls: one proposal per
turn, as its comment always said."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import engine as E
from engine.bots._trade import offer_is_valid
from engine.bots.play import beacon
from engine.testing import scenario

A = E.actions
D, P, Q = 0, 1, 2  # the actor, its offer's partner, the seat the asked street moves to
STREET = 18


def _stale_offer_state() -> object:
    """D (at its roll) asks P for STREET; in the same step P accepts Q's standing offer for STREET,
    applied after D's (seat order): at the next state D's offer is open and stale."""
    s = scenario(3, current=D, cash={D: 1500, P: 1500, Q: 1500}, owners={STREET: P, 39: D})
    s, _ = E.apply_step(s, [None, None, A.ProposeTrade(P, (), (STREET,), 0, 0, (), (), ())])
    s, _ = E.apply_step(s, [A.ProposeTrade(P, (39,), (STREET,), 0, 0, (), (), ()), A.AcceptTrade(Q, ()), None])
    mine = [o for o in s.offers if o[0] == D]
    assert mine and s.owner[STREET] == Q  # the premise: D's offer is open, P no longer owns what it asks
    assert A.AcceptTrade(D, ()) not in E.legal_actions(s, P)
    return s


def test_the_bot_rolls_with_its_stale_offer_open_and_its_partner_rejects_it_in_that_step():
    s = _stale_offer_state()
    assert E.pending(s).actors == (D,)
    x = E.bots.choose(s, D)
    assert x == A.RollDice()  # before: WithdrawTrade(), then a new ProposeTrade at the next step
    y = E.bots.choose(s, P)
    assert y == A.RejectTrade(D)
    s, _ = E.apply_step(s, [x, y, E.bots.choose(s, Q)])
    assert not [o for o in s.offers if o[0] == D]
    assert E.pending(s).chance  # the dice: the turn went on in one step


def test_a_jailed_bot_with_its_stale_offer_open_leaves_jail_as_it_would_with_a_valid_one():
    s = _stale_offer_state()
    s.jail[D] = 1
    x = E.bots.choose(s, D)
    assert type(x).__name__ in ("PayJailFine", "UseJailCard", "RollDice"), x


def _open_offer_at_own_roll(s) -> int | None:
    p = E.pending(s)
    if p.chance or p.kind != "roll" or len(p.actors) != 1:
        return None
    d = p.actors[0]
    return d if any(o[0] == d for o in s.offers) else None


def _perturbed_game(seed: int, edition: str, seats: int) -> tuple[int, int]:
    """A bot game where half the non-actors' inputs are a random legal action (streets, cash and
    mortgages move under open offers); asserts at every roll of a seat with its own offer open
    that its bot rolls or leaves jail. Returns (such rolls, those where the offer was stale)."""
    r = random.Random(seed)
    s = E.new_game(edition, seats)
    k = seen = stale = 0
    for _ in range(400):
        if E.is_terminal(s):
            break
        p = E.pending(s)
        if p.chance:
            s, _ = E.apply_chance(s, beacon(seed, k))
            k += 1
            continue
        inputs = [E.bots.choose(s, i) for i in range(seats)]
        for i in range(seats):
            legal = E.legal_actions(s, i) if i not in p.actors and r.random() < 0.5 else None
            if legal:
                inputs[i] = r.choice(legal)
        d = _open_offer_at_own_roll(s)
        if d is not None:
            seen += 1
            stale += not offer_is_valid(s, next(o for o in s.offers if o[0] == d))
            assert type(inputs[d]).__name__ in ("RollDice", "PayJailFine", "UseJailCard"), inputs[d]
        s, _ = E.apply_step(s, inputs)
    return seen, stale


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), edition=st.sampled_from(["classico", "editrice-giochi", "fabrianopoli"]),
       seats=st.integers(3, 5))
def test_property_at_its_roll_with_its_own_offer_open_the_bot_only_rolls_or_leaves_jail(seed, edition, seats):
    """Whatever the other seats do meanwhile, the bot at its roll with its own offer open neither
    withdraws it nor offers again: it rolls (or leaves jail). Fails before RV16-D F1's fix."""
    _perturbed_game(seed, edition, seats)


def test_the_property_meets_stale_offers():
    """The premise of the property: such games do reach a roll with the roller's own offer open and
    stale (4 of the 100 rolls with an own offer open in these 30 games; before the fix the bot
    withdrew there and this test fails)."""
    totals = [_perturbed_game(seed, ed, 4) for seed in range(15) for ed in ("classico", "fabrianopoli")]
    assert sum(t[1] for t in totals) >= 3, totals
