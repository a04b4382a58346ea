"""A player's queued answer to a trade offer is sent only while that offer is still open to it with
the terms it had when the player clicked (ui/human_seat.py; RV16-D F2 [LOW], session 16;
protocol.md §C8.3 'Own decision across steps': an honest seat never answers an offer not open at
the state it decides on).

Before: the click was queued and sent at the next step the seat was asked, whatever had happened
to the offer. If the proposer withdrew meanwhile, the answer named no open offer: the engine refused
it, and the turn clock counted it as the player's held step (once per click). If the proposer
replaced the offer, a queued AcceptTrade accepted terms the player never saw."""

from __future__ import annotations

import warnings

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p import session_turn_clock as TC
from ui.human_seat import HumanSeat

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import engine as E

A = E.actions


def _at_roll(n: int = 3):
    s = E.new_game("classico", n)
    for _ in range(50):
        p = E.pending(s)
        if not p.chance and p.kind == "roll":
            return s, p.actors[0]
        s, _ = E.apply_chance(s, bytes(32)) if p.chance else E.apply_step(s, [None] * n)
    raise AssertionError("no roll")


def _step(s, d: int, action):
    s, _ = E.apply_step(s, [action if i == d else None for i in range(s.n)])
    return s


def _offer(e: int, cash: int = 10):
    return A.ProposeTrade(e, (), (), 0, cash, (), (), ())


def _opened():
    """Seat d at its roll offers seat e a trade; the human (seat e) sees the offer open."""
    state, d = _at_roll()
    e = (d + 1) % state.n
    opened = _step(state, d, _offer(e))
    assert A.RejectTrade(d) in E.legal_actions(opened, e)
    return state, opened, d, e


def test_a_queued_reject_of_an_offer_withdrawn_meanwhile_is_dropped_not_sent():
    _, opened, d, e = _opened()
    h = HumanSeat()
    assert h.decide(opened, e) is None  # the seat is asked at the state the player looks at
    h.submit(A.RejectTrade(d))  # the player clicks
    closed = _step(opened, d, A.WithdrawTrade())  # meanwhile d withdrew
    sent = h.decide(closed, e)
    assert sent is None and h.stale_dropped == 1  # before: RejectTrade(d) went out
    # had it been sent, with d offering again in that step, the clock would count the human (RV16-D)
    q = E.pending(closed)
    enc = E.encode_action
    assert TC.held_seats(E, closed, closed.n, q, {d: enc(_offer(e)), e: enc(A.RejectTrade(d))}) == (e,)


def test_a_queued_accept_of_an_offer_replaced_meanwhile_is_dropped_not_sent():
    """d replaces its offer (asks 10, then 300) before the human's accept of the first is sent."""
    _, opened, d, e = _opened()
    h = HumanSeat()
    h.decide(opened, e)
    h.submit(A.AcceptTrade(d, ()))
    replaced = _step(opened, d, _offer(e, 300))
    assert A.AcceptTrade(d, ()) in E.legal_actions(replaced, e)  # the engine would take it
    assert h.decide(replaced, e) is None and h.stale_dropped == 1


def test_a_queued_answer_to_the_offer_still_open_is_sent():
    _, opened, d, e = _opened()
    h = HumanSeat()
    h.decide(opened, e)
    h.submit(A.AcceptTrade(d, ()))
    again = _step(opened, d, None)  # nil from d: the state moved on, the offer is the same
    assert h.decide(again, e) == A.AcceptTrade(d, ()) and h.stale_dropped == 0


def test_an_answer_queued_before_the_seat_was_ever_asked_is_sent_while_its_offer_is_open():
    """No offer seen yet (the board showed it before our seat was asked): only 'open now' is
    checked."""
    _, opened, d, e = _opened()
    h = HumanSeat()
    h.submit(A.RejectTrade(d))
    assert h.decide(opened, e) == A.RejectTrade(d)


def test_other_queued_actions_behind_a_dropped_answer_are_still_sent():
    _, opened, d, e = _opened()
    h = HumanSeat()
    h.decide(opened, e)
    h.submit(A.RejectTrade(d))
    h.submit(A.Mortgage(1))  # whatever it is: not an answer, sent as queued
    closed = _step(opened, d, A.WithdrawTrade())
    assert h.decide(closed, e) == A.Mortgage(1) and h.stale_dropped == 1


@settings(max_examples=40, deadline=None)
@given(moves=st.lists(st.sampled_from(["nil", "withdraw", "same", "other"]), min_size=1, max_size=4),
       accept=st.booleans())
def test_property_a_sent_answer_answers_the_very_offer_the_player_saw(moves, accept):
    """Whatever d does between the click and our next decision (nil, withdraw, offer the same
    terms again, offer other terms), an answer the seat sends names an offer open to it now, with
    the terms it had when clicked; else nothing is sent."""
    _, opened, d, e = _opened()
    h = HumanSeat()
    h.decide(opened, e)
    seen = [o for o in opened.offers if o[0] == d][0]
    h.submit(A.AcceptTrade(d, ()) if accept else A.RejectTrade(d))
    s = opened
    for m in moves:
        s = _step(s, d, {"nil": None, "withdraw": A.WithdrawTrade(), "same": _offer(e),
                         "other": _offer(e, 300)}[m])
    sent = h.decide(s, e)
    now = [o for o in s.offers if o[0] == d]
    if sent is not None:
        assert now and now[0] == seen and sent in (A.AcceptTrade(d, ()), A.RejectTrade(d))
        assert A.RejectTrade(d) in E.legal_actions(s, e)
    else:
        assert not now or now[0] != seen


def test_a_queued_none_is_still_sent_as_the_players_pass():
    """None queued (e.g. letting niente's magnifier window pass, key s) is an input, not 'nothing
    queued': it is handed to the game as before."""
    state, d = _at_roll()
    h = HumanSeat()
    h.submit(None)
    h.submit(A.RollDice())
    assert h.decide(state, d) is None and h.decide(state, d) == A.RollDice()


def test_an_answer_goes_with_the_offer_the_dialog_showed_not_the_last_step_s():
    """§C8.3 'A stale own offer' / a queued click (RV16S-B F1): the dialog opened on offer O1; the
    proposer withdrew it and offered O2 (two steps) before the player clicked Accept. The answer
    is kept with O1, the offer the dialog showed (``shown``), so it is dropped, never sent for O2."""
    _, opened, d, e = _opened()
    h = HumanSeat()
    assert h.decide(opened, e) is None
    s = _step(opened, d, A.WithdrawTrade())
    assert h.decide(s, e) is None
    s = _step(s, d, _offer(e, 300))
    assert h.decide(s, e) is None
    h.submit(A.AcceptTrade(d, ()), shown=opened)
    assert h.decide(s, e) != A.AcceptTrade(d, ()) and h.stale_dropped == 1
