"""niente-e-come-sembra, bills: one test per rule, each naming the rulebook passage
(rulebooks/monopoly-niente-e-come-sembra.txt) or the design choice of docs/RULES.md.

Paying the bank and change from the bank, the inspection window after a payment (fake and genuine
bills), and the bills a payer chooses to pay with (BILL_PASSAGE: the players' and the bot's choice).
Shared helpers: tests/engine/niente_kit.py.
"""

import pytest
from hypothesis import given, settings, strategies as st

from engine import apply_action, legal_actions, pending
from engine import actions as A
from engine.rules import banknotes as B
from engine.rules.niente_events import BillInspected, BillsMoved
from engine import apply_reveal
from engine.state import P_BUY
from engine.testing import step

from niente_kit import scenario_with_bills as _state


def test_paying_the_bank_moves_bills_to_the_bottom_of_the_pile():
    """"ogni volta che pagate la Banca, posizionate il denaro in fondo al mazzo"; the 60 is paid
    with exact bills (50+10)."""
    s = _state()
    s.pos[0] = 1
    s.phase = P_BUY  # buy_or_auction on Vicolo Corto (60)
    s2, ev = apply_action(s, 0, A.BuyProperty())
    moved = [e for e in ev if isinstance(e, BillsMoved)]
    assert moved[0].frm == 0 and moved[0].to == -1
    assert sorted(s.nx[B.NX_DEN][b] for b in moved[0].bills) == [10, 50]
    assert s2.nx[B.NX_PILE][-2:] == list(moved[0].bills)
    B.check_bills(s2)


def test_change_comes_from_the_bank():
    """Design (docs/RULES.md): a payment that needs change goes through the bank, which pays the
    payee and gives the payer the change from the top of its pile."""
    s = _state()
    w = s.nx[B.NX_WALLET][0]
    five = [b for b in w if s.nx[B.NX_DEN][b] == 500]
    rest = [b for b in w if b not in five]
    s.nx[B.NX_WALLET][0] = sorted(five)  # only 2×500 left: 1000 euro
    s.nx[B.NX_PILE].extend(rest)
    s.bank += 500
    s.cash[0] = 1000
    s.pos[0] = 1
    s.phase = P_BUY
    s2, ev = apply_action(s, 0, A.BuyProperty())
    assert s2.cash[0] == 940
    assert [e.frm for e in ev if isinstance(e, BillsMoved)] == [0, -1]
    B.check_bills(s2)


def _paid_rent_window():
    s = _state(3, owners={1: 0}, current=1)
    s.claims.append([0, 1, 1, 10, s.turn])
    s, ev = apply_action(s, 0, A.ClaimRent(1, 1))
    assert pending(s).kind == "pay_bills" and pending(s).actors == (1,)
    s, ev2 = step(s)  # the payer keeps the default bills (silence)
    return s, ev + ev2


def test_payment_opens_inspection_window_for_others_not_payer():
    """"un giocatore qualsiasi può utilizzare un gettone ... Non potete controllare il vostro
    denaro": the payer may not inspect its own payment; the others may."""
    s, ev = _paid_rent_window()
    p = pending(s)
    assert p.kind == "inspect_window" and 1 not in p.actors and set(p.actors) == {0, 2}
    assert not any(isinstance(a, A.InspectBill) for a in legal_actions(s, 1))


def test_no_window_when_nobody_can_inspect():
    """"Non potete utilizzare la lente di ingrandimento" in jail; red tokens cannot be used:
    then no window opens (keeps games fast)."""
    s = _state(3, owners={1: 0}, current=1, jail={2: 1})
    s.nx[B.NX_LENS][0] = 0
    s.claims.append([0, 1, 1, 10, s.turn])
    s, _ = apply_action(s, 0, A.ClaimRent(1, 1))
    s, _ = step(s)  # pay_bills: the default bills
    assert pending(s).kind == "roll"


def test_fake_bill_kept_by_inspector_payer_pays_again():
    """"Se trovate un falso, ditelo a tutti e tenetelo voi! Il giocatore ... dovrà utilizzarne
    altre per portare a termine il pagamento" (outcome pinned: fake)."""
    s, ev = _paid_rent_window()
    bill = next(e for e in ev if isinstance(e, BillsMoved) and e.frm == 1).bills[0]
    s, _ = apply_action(s, 2, A.InspectBill(bill))
    assert pending(s).kind == "inspection" and s.nx[B.NX_LENS][2] == 1
    s, ev = apply_reveal(s, [True])
    assert any(isinstance(e, BillInspected) and e.fake for e in ev)
    assert bill in s.nx[B.NX_WALLET][2]
    assert s.cash == [1510, 1480, 1510]  # payee still got 10, payer paid 20, inspector +10
    B.check_bills(s)


def test_genuine_bill_changes_nothing():
    """"Se le banconote sono autentiche ... non succederà nulla" (outcome pinned: genuine)."""
    s, ev = _paid_rent_window()
    bill = next(e for e in ev if isinstance(e, BillsMoved) and e.frm == 1).bills[0]
    s, _ = apply_action(s, 2, A.InspectBill(bill))
    s, _ = apply_reveal(s, [False])
    assert s.cash == [1510, 1490, 1500] and s.nx[B.NX_PUB][bill] == B.GENUINE
    assert s.nx[B.NX_LENS][2] == 1


def test_inspection_outcomes_count_is_checked():
    """protocol.md §E8: apply_reveal takes one outcome per inspected item; a wrong count raises."""
    s, ev = _paid_rent_window()
    bill = next(e for e in ev if isinstance(e, BillsMoved) and e.frm == 1).bills[0]
    s, _ = apply_action(s, 2, A.InspectBill(bill))
    with pytest.raises(ValueError):
        apply_reveal(s, [])


BILL_PASSAGE = ("\"Se sapete di avere una banconota falsa, cercate di tenerla fino alla fine del "
                "gioco ... Cercate anche di non far capire agli altri giocatori quali sono le "
                "banconote false\" (monopoly-niente-e-come-sembra.txt)")


def _rent_due(amount=10):
    """Seat 1 has just paid seat 0 ``amount`` of rent with the default bills: pay_bills."""
    s = _state(3, owners={1: 0}, current=1)
    s.claims.append([0, 1, 1, amount, s.turn])
    s, ev = apply_action(s, 0, A.ClaimRent(1, 1))
    return s, ev


def test_payer_chooses_the_bills_it_pays_with():
    """BILL_PASSAGE: a payment is made with the bills the payer chooses (issue 12, item 3).
    The default 10 goes back to the payer, the chosen one to the payee; the choice is public
    (BillsChosen) and only then may others inspect it."""
    s, ev = _rent_due()
    tens = [b for b in s.nx[B.NX_WALLET][1] if s.nx[B.NX_DEN][b] == 10]
    default = next(e for e in ev if isinstance(e, BillsMoved) and e.frm == 1).bills
    assert pending(s).kind == "pay_bills" and A.PayBills(default) in legal_actions(s, 1)
    other = max(tens)
    assert other not in default
    s, ev = apply_action(s, 1, A.PayBills((other,)))
    assert other in s.nx[B.NX_WALLET][0] and default[0] in s.nx[B.NX_WALLET][1]
    assert s.cash[:2] == [1510, 1490] and pending(s).kind == "inspect_window"
    assert [p for p in s.nx[B.NX_WIN]] == [[1, 0, other]]
    B.check_bills(s)


def test_paying_with_a_larger_bill_gets_change_from_the_bank():
    """"dovrà utilizzarne altre ... per completare il pagamento"; change comes from the bank
    (docs/RULES.md "Paying"): a 500 for a rent of 10 goes to the pile, the payee gets 10 and the
    payer 490 from the bank."""
    s, _ = _rent_due()
    big = next(b for b in s.nx[B.NX_WALLET][1] if s.nx[B.NX_DEN][b] == 500)
    s, _ = apply_action(s, 1, A.PayBills((big,)))
    assert big in s.nx[B.NX_PILE] and s.cash[:2] == [1510, 1490]
    assert s.nx[B.NX_WIN] == [[1, -1, big]]
    B.check_bills(s)


@pytest.mark.parametrize("pick, code", [("two_tens", "overpaid"), ("none", "not_enough"),
                                        ("theirs", "not_your_bill")])
def test_a_bad_bill_choice_is_refused_and_the_default_stands(pick, code):
    """The bills must be the payer's, cover the amount, with none to spare; a refused choice is
    silence: the default bills stay (a vanished payer cannot block the game)."""
    s, _ = _rent_due()
    den = s.nx[B.NX_DEN]
    tens = [b for b in s.nx[B.NX_WALLET][1] if den[b] == 10]
    bills = {"two_tens": tuple(sorted(tens[:2])), "none": (),
             "theirs": (s.nx[B.NX_WALLET][2][-1],)}[pick]
    with pytest.raises(Exception) as e:
        apply_action(s, 1, A.PayBills(bills))
    assert e.value.code == code
    s2, _ = step(s, seat1=A.PayBills(bills))
    s3, _ = step(s)
    assert s2 == s3 and pending(s3).kind == "inspect_window"


def test_after_a_fake_is_found_the_payer_chooses_the_other_bills():
    """"Il giocatore a cui avete controllato le banconote dovrà utilizzarne altre per portare a
    termine il pagamento": the fake's value is paid again, with bills the payer chooses."""
    s, ev = _rent_due()
    s, _ = step(s)
    bill = s.nx[B.NX_WIN][0][2]
    s, _ = apply_action(s, 2, A.InspectBill(bill))
    s, ev = apply_reveal(s, [True])
    assert pending(s).kind == "pay_bills" and pending(s).actors == (1,)
    fifty = next(b for b in s.nx[B.NX_WALLET][1] if s.nx[B.NX_DEN][b] == 50)
    s, _ = apply_action(s, 1, A.PayBills((fifty,)))
    assert s.cash == [1510, 1480, 1510] and fifty in s.nx[B.NX_PILE]
    B.check_bills(s)


def test_bot_keeps_a_known_fake_without_changing_the_denominations():
    """BILL_PASSAGE: the bot keeps a bill it knows is fake and pays with an equal genuine one
    (same denominations as the default, so the amount says nothing); with no secret in its view
    it sends nothing (the default bills: no private knowledge used)."""
    from engine.bots import _niente
    s, ev = _rent_due()
    default = next(e for e in ev if isinstance(e, BillsMoved) and e.frm == 1).bills
    view = {("bill", default[0]): True}
    assert _niente.choose(s, 1, "default", view) is None
    a = _niente.choose(s, 1, "default", _niente.PrivateView(view, b"k" * 32))
    assert isinstance(a, A.PayBills) and default[0] not in a.bills
    assert [s.nx[B.NX_DEN][b] for b in a.bills] == [10]
    s2, _ = apply_action(s, 1, a)
    assert default[0] in s2.nx[B.NX_WALLET][1]
    assert _niente.choose(s, 0, "default", _niente.PrivateView({}, b"k" * 32)) is None


def test_bot_bill_order_depends_on_its_secret_not_on_a_public_rule():
    """A careful human gives a random-looking one of several identical genuine bills: with no
    fakes known, two secrets can hand over different (equal) bills, so an observer cannot tell a
    kept fake from a bill that simply was not picked."""
    from engine.bots import _niente
    s, ev = _rent_due()
    default = next(e for e in ev if isinstance(e, BillsMoved) and e.frm == 1).bills
    chosen = set()
    for k in range(8):
        a = _niente.choose(s, 1, "default", _niente.PrivateView({}, bytes([k]) * 32))
        chosen.add(a.bills if a is not None else tuple(default))
    assert len(chosen) >= 2


def test_spending_fakes_first_hands_over_the_known_fake_and_takes_genuine_change():
    """BILL_PASSAGE, the other way round (the player's "spendi prima le false" default, ui):
    a payer that knows a €50 is fake pays a €10 rent with it; the bank gives €40 of change
    ("il resto"), the fake goes to the pile; the choice is a legal PayBills."""
    from engine.bots import _niente
    from engine.rules.bill_choice import choice_error
    s, _ = _rent_due()
    den = s.nx[B.NX_DEN]
    fake = next(b for b in s.nx[B.NX_WALLET][1] if den[b] == 50)
    view = _niente.PrivateView({("bill", fake): True}, b"k" * 32)
    a = _niente.spend_choice(s, 1, view)
    assert a == A.PayBills((fake,)) and choice_error(s, 1, a.bills) is None
    assert _niente.keep_fakes(s, 1, view) != [fake]  # keeping it pays a genuine €10
    s, _ = apply_action(s, 1, a)
    assert fake in s.nx[B.NX_PILE] and s.cash[:2] == [1510, 1490]
    assert sum(den[b] for b in s.nx[B.NX_WALLET][1]) == 1490
    B.check_bills(s)


def test_spending_fakes_first_leaves_out_what_is_not_needed():
    """Two known fake €10 for a €20 rent: both, nothing else; no known fake: the default."""
    from engine.bots import _niente
    s, _ = _rent_due(20)
    den = s.nx[B.NX_DEN]
    tens = [b for b in s.nx[B.NX_WALLET][1] if den[b] == 10][:2]
    view = _niente.PrivateView({("bill", b): True for b in tens}, b"k" * 32)
    assert _niente.spend_fakes(s, 1, view) == sorted(tens)
    assert _niente.spend_choice(s, 1, _niente.PrivateView({}, b"k" * 32)) is None


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 149).map(lambda k: 10 * k), st.sets(st.integers(0, 11)),
       st.binary(min_size=1, max_size=8))
def test_bill_choice_helpers_always_make_a_legal_choice(amount, fake_idx, secret):
    """Property: for any amount the payer can pay and any set of its bills it knows to be
    fake, keep_fakes and spend_fakes name bills that pass choice_error (its own, enough, none
    to spare); keep_fakes pays the default denominations and keeps a known fake unless every
    equal bill is taken; spend_fakes hands over at least as much known-fake money as keep_fakes."""
    from engine.bots import _niente
    from engine.rules.bill_choice import choice_error, choosable_bills, default_bills
    s, _ = _rent_due(amount)
    den = s.nx[B.NX_DEN]
    before = choosable_bills(s, 1)
    fakes = {before[i] for i in fake_idx if i < len(before)}
    view = _niente.PrivateView({("bill", b): True for b in fakes}, secret)
    keep, spend = _niente.keep_fakes(s, 1, view), _niente.spend_fakes(s, 1, view)
    for pick in (keep, spend):
        assert choice_error(s, 1, tuple(pick)) is None, (amount, fakes, pick)
    assert sorted(den[b] for b in keep) == sorted(den[b] for b in default_bills(s, 1))
    for b in set(keep) & fakes:
        assert all(c in keep or c in fakes for c in before if den[c] == den[b])
    assert sum(den[b] for b in set(spend) & fakes) >= sum(den[b] for b in set(keep) & fakes)
