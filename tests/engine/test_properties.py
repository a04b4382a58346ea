"""Property tests over seeded random legal-action playouts (DESIGN.md §6, STYLE.md §11):
money is conserved between players and bank, buildings never exceed the stock, even building
holds, every legal action applies, illegal actions are refused with a reason and change
nothing, encode/decode round-trips, state_hash is stable, clone-then-apply equals apply."""
import pytest
from hypothesis import given, settings, strategies as st

from engine import (EDITIONS, IllegalAction, apply_action, apply_chance, apply_step, decode_state,
                    encode_state, legal_actions, new_game, pending, state_hash)
from engine.actions import (Bid, BuildHouse, LiftMortgage, Mortgage, ProposeTrade, RollDice,
                            SellBuilding)
from engine.editions import K_STREET
from engine.events import ActionRefused
from engine.rng import BeaconRng
from engine.state import HOTEL, P_OVER, P_ROLL
from engine.rules.banknotes import NX_CARD, NX_FACEUP, NX_HAND, check_bills


def check_invariants(s):
    ed = s.ed
    assert sum(s.cash) + s.bank == 0  # bank starts at -seats*start_cash
    assert all(c >= 0 for c in s.cash)
    houses = sum(lv for lv in s.level if lv < HOTEL)
    hotels = sum(1 for lv in s.level if lv == HOTEL)
    assert houses + s.houses == ed.houses and hotels + s.hotels == ed.hotels
    assert 0 <= s.houses and 0 <= s.hotels
    for g in ed.groups:
        if ed.hotels_only:
            break  # niente: one hotel per street, no even building
        lv = [s.level[m] for m in g]
        assert max(lv) - min(lv) <= 1
        if max(lv):
            assert len({s.owner[m] for m in g}) == 1 and not any(s.mort[m] for m in g)
    for sq, o in enumerate(s.owner):
        if o >= 0:
            assert not s.out[o]
        if s.level[sq]:
            assert ed.tables.kind[sq] == K_STREET
    for d in s.debts:
        assert not s.out[d[0]] and (d[1] < 0 or not s.out[d[1]])
    for c in s.claims:
        assert not s.out[c[0]] and not s.out[c[1]]
    if s.phase != P_OVER:
        assert not any(s.out[a] for a in pending(s).actors)
        if s.phase == P_ROLL:
            assert not s.out[s.current]
    cards = sum(len(d) for d in s.decks) + sum(len(h) for h in s.held)
    if s.nx:  # niente: money conserved as banknotes; face-up, kept and in-use cards
        check_bills(s)
        cards += (sum(1 for c in s.nx[NX_FACEUP] if c >= 0) + sum(len(h) for h in s.nx[NX_HAND])
                  + (1 if s.nx[NX_CARD] else 0))
    assert cards == sum(len(d) for d in ed.decks)


def _pick(rnd, s, seat):
    """A random input: None, a legal action, or a random (maybe illegal) one."""
    r = rnd.below(10)
    if r < 3:
        return None
    legal = legal_actions(s, seat)
    if r < 9 and legal:
        a = legal[rnd.below(len(legal))]
        if isinstance(a, Bid):
            a = Bid(a.amount + rnd.below(30))
        return a
    sq = rnd.below(40)
    return [RollDice(), Bid(rnd.below(500)), BuildHouse(sq), SellBuilding(sq), Mortgage(sq),
            LiftMortgage(sq),
            ProposeTrade((seat + 1) % s.n, (sq,), (), 0, rnd.below(300), (), (), ())][
        rnd.below(7)]


@pytest.mark.parametrize("edition", sorted(EDITIONS))
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 6))
@settings(max_examples=25, deadline=None)
def test_random_playouts_keep_invariants(edition, seed, seats):
    rnd = BeaconRng(seed.to_bytes(8, "big"))
    s = new_game(edition, seats)
    for k in range(400):
        p = pending(s)
        if p.terminal:
            assert legal_actions(s, 0) == []
            break
        before = encode_state(s)
        if p.chance:
            s2, _ = apply_chance(s, seed.to_bytes(8, "big") + k.to_bytes(4, "big"))
        else:
            inputs = [_pick(rnd, s, i) for i in range(seats)]
            s2, ev = apply_step(s, inputs)
            for e in ev:
                if isinstance(e, ActionRefused):
                    assert e.reason
        assert encode_state(s) == before  # functional API leaves its argument alone
        s = s2
        check_invariants(s)
        if k % 25 == 0:
            assert decode_state(encode_state(s)) == s
            assert state_hash(decode_state(encode_state(s))) == state_hash(s)


# Decision kinds in which an all-silent step changes the state (protocol.md §E2,
# §6 "Auction silence", RULES.md "silence pays the fine", niente "silence declines", "Debtor
# silent", §8 inspection window, pay_bills: the default bills).
_SILENCE_ACTS = ("auction_bid", "card_choice", "take_card", "raise_money", "inspect_window",
                 "pay_bills")


@pytest.mark.parametrize("edition", sorted(EDITIONS))
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=15, deadline=None)
def test_every_legal_action_applies_and_illegal_changes_nothing(edition, seed):
    rnd = BeaconRng(seed.to_bytes(8, "big"))
    s = new_game(edition, 3)
    for k in range(250):
        p = pending(s)
        if p.terminal:
            break
        if p.chance:
            s, _ = apply_chance(s, seed.to_bytes(8, "big") + k.to_bytes(4, "big"))
            continue
        for seat in range(3):
            for a in legal_actions(s, seat):
                apply_action(s, seat, a)  # must not raise
            bad = _pick(rnd, s, seat)
            if bad is not None:
                h = state_hash(s)
                try:
                    apply_action(s, seat, bad)
                except IllegalAction as e:
                    assert e.code and e.reason and state_hash(s) == h
                    # In a step, a refused input is exactly silence: the step gives the
                    # all-silent step's state and events, after the refusal. Silence itself
                    # acts in some phases (auction: pass; card_choice: pay the fine; niente:
                    # decline the card, the bank buys back a debtor's property, the
                    # inspection window closes), elsewhere it changes nothing.
                    s_step, ev = apply_step(s, [bad if i == seat else None for i in range(3)])
                    s_silent, ev_silent = apply_step(s, [None] * 3)
                    assert ev[0] == ActionRefused(seat, bad.CODE, e.code)
                    assert ev[1:] == ev_silent and state_hash(s_step) == state_hash(s_silent)
                    if p.kind not in _SILENCE_ACTS:
                        assert state_hash(s_step) == h and ev_silent == ()
        s, _ = apply_step(s, [_pick(rnd, s, i) for i in range(3)])
