"""H125's walk (session 12): "— X's turn —" came before a rent's debt was settled and before its
payment, told then as "Anna claims the rent: ..." under the next player's line. The owner claims
in the step after the landing (engine.rules.rent), whose step already started the next turn; a
claim the debtor cannot pay opens a debt (engine.game.advance: DebtOpened, phase "raise"), and
the next player cannot roll until it is paid or the debtor goes bankrupt. The narrator now holds
the turn line until then (ui.narrate.Narrator.lines, ui.log_order.settles_debt): the debt, the
debtor's mortgages and sales, the payment, then the turn line. The engine's own events of a
seeded scenario, each step handed to the narrator alone as the screen does (H130)."""

from __future__ import annotations

import pytest

import engine
from engine.actions import ClaimRent, DeclareBankruptcy, Mortgage
from engine.events import ActionRefused
from engine.testing import roll, scenario, step
from ui.narrate import Narrator

NAMES = ("Anna", "Bruno", "Carla")


@pytest.fixture
def lang(each_language):
    """Each test once in Italian, once in English (conftest.each_language)."""
    return each_language


def _landing(cash: int, owned: dict):
    """Bruno (3 seats, his turn, on GO) rolls 4 + 5 onto Anna's Viale Vesuvio (square 9) with
    ``cash`` euro and the properties ``owned``; the roll's step starts Carla's turn, then Anna
    claims the rent. Returns (state after the claim, narrator, lines so far, claim's events)."""
    s = scenario(3, current=1, cash={1: cash}, owners={9: 0, **owned}, pos={1: 0})
    n = Narrator(s.ed, NAMES)
    s, ev = roll(s, 4, 5)
    lines = [n.lines(ev)]
    assert [type(e).__name__ for e in ev][-1] == "TurnStarted"  # the landing's step starts Carla's turn
    s, ev = step(s, seat0=ClaimRent(9, 1))
    lines.append(n.lines(ev))
    return s, n, lines, [type(e).__name__ for e in ev]


def test_the_turn_line_waits_for_the_debt_of_a_claimed_rent(lang):
    """The debtor mortgages Vicolo Corto and pays: the debt, the mortgage, the payment (as a rent
    of the last turn, not "claims the rent") and only then Carla's turn. Before H130 the turn
    line came right after the debt's line and the payment read "Anna claims the rent: ..."."""
    s, n, lines, kinds = _landing(3, {1: 1})
    assert kinds == ["DebtOpened"]
    assert n.holding
    s, ev = step(s, seat1=Mortgage(1))
    lines.append(n.lines(ev))
    assert not n.holding
    assert lines[1:] == {
        "it": [["Bruno deve €8 ad Anna (affitto di Viale Vesuvio) e non ha abbastanza contanti: vendere, "
                "ipotecare o dichiarare bancarotta"],
               ["Bruno ipoteca Vicolo Corto", "Bruno paga €8 di affitto ad Anna per Viale Vesuvio",
                "— Tocca a Carla —"]],
        "en": [["Bruno owes €8 to Anna (rent for Viale Vesuvio) and lacks the cash: sell, mortgage or "
                "declare bankruptcy"],
               ["Bruno mortgages Vicolo Corto", "Bruno pays €8 rent to Anna for Viale Vesuvio",
                "— Carla's turn —"]],
    }[lang]


def test_the_turn_line_waits_for_the_bankruptcy_of_the_debtor(lang):
    """Nothing to mortgage: Bruno declares bankruptcy; his bankruptcy line comes before Carla's
    turn."""
    s, n, lines, kinds = _landing(3, {})
    assert kinds == ["DebtOpened"] and n.holding
    s, ev = step(s, seat1=DeclareBankruptcy())
    out = n.lines(ev)
    assert not n.holding
    turn = {"it": "— Tocca a Carla —", "en": "— Carla's turn —"}[lang]
    bankrupt = {"it": "Bruno va in bancarotta", "en": "Bruno goes bankrupt"}[lang]
    assert out[-1] == turn and out.count(turn) == 1, out
    assert any(line.startswith(bankrupt) for line in out[:-1]), out


def test_a_batch_of_several_steps_keeps_the_order(lang):
    """The screen may hand over several steps at once (its redraw): the same order."""
    s = scenario(3, current=1, cash={1: 3}, owners={9: 0, 1: 1}, pos={1: 0})
    events = []
    s, ev = roll(s, 4, 5)
    events += ev
    s, ev = step(s, seat0=ClaimRent(9, 1))
    events += ev
    s, ev = step(s, seat1=Mortgage(1))
    events += ev
    out = Narrator(s.ed, NAMES).lines(events)
    turn = {"it": "— Tocca a Carla —", "en": "— Carla's turn —"}[lang]
    assert out[-1] == turn and out.count(turn) == 1 and "Vicolo Corto" in out[-3], out


def test_our_roll_sent_with_the_claim_is_told_as_waiting_for_the_debt(lang):
    """On the network the owner's claim goes in the step of the next player's roll (HumanSeat
    claims at once, protocol.md Part U 'Log order'); the engine applies the claim first, the debt
    opens and the roll is refused (ActionRefused "not_your_roll"). The walk read "Le regole hanno
    rifiutato la tua mossa (not_your_roll)" under the debt; the line now says why and what to do.
    Carla (seat 2) is us; after the debt her next roll is told as usual."""
    s = scenario(3, current=1, cash={1: 3}, owners={9: 0, 1: 1}, pos={1: 0})
    n = Narrator(s.ed, NAMES, me=2)
    s, ev = roll(s, 4, 5)
    n.lines(ev)
    s, ev = step(s, seat0=ClaimRent(9, 1), seat2=engine.legal_actions(s, 2)[0])
    assert [type(e).__name__ for e in ev] == ["DebtOpened", "ActionRefused"]
    out = n.lines(ev)
    assert out[1] == {"it": "Il tuo lancio non vale: prima Bruno deve saldare il debito; poi tira di nuovo",
                      "en": "Your roll does not count: Bruno must settle the debt first; roll again then"}[lang]
    s, ev = step(s, seat1=Mortgage(1))
    assert n.lines(ev)[-1] == {"it": "— Tocca a Carla —", "en": "— Carla's turn —"}[lang]
    s, ev = roll(s, 1, 2)
    n.lines(ev)
    plain = {"it": "Le regole hanno rifiutato la tua mossa (not_your_roll)",
             "en": "Your move was refused by the rules (not_your_roll)"}[lang]
    assert n.lines([ActionRefused(2, 1, "not_your_roll")]) == [plain]  # the roll closed the debt's window
    assert Narrator(s.ed, NAMES, me=2).lines([ActionRefused(2, 1, "not_your_roll")]) == [plain]  # no debt


def test_two_debts_opened_in_one_batch_both_come_before_the_turn_line(lang):
    """protocol.md Part U 'Log order': Bruno owes two held rents (Anna's Viale Vesuvio, Carla's
    Via Accademia) and both claims open a debt in one batch. The second
    debt is a debt too (RV12-C #1): each mortgage comes before the payment it paid for, and
    Carla's turn line waits until both debts are paid (the first payment alone must not let it
    out). Synthetic events (the reviewer's repro), each batch handed to the narrator alone."""
    from engine.events import DebtOpened, MoneyPaid, PropertyMortgaged, RentDue, TurnStarted

    s = scenario(3, current=1, owners={9: 0, 11: 2, 1: 1, 3: 1})
    n = Narrator(s.ed, NAMES)
    n.lines([RentDue(0, 1, 9, 6), RentDue(2, 1, 11, 10), TurnStarted(2)])
    assert n.holding
    first = n.lines([DebtOpened(1, 0, 6), DebtOpened(1, 2, 10)])
    assert len(first) == 2 and n.holding, first
    pay1 = n.lines([PropertyMortgaged(1, 1), MoneyPaid(1, 0, 6, "rent")])
    assert n.holding, pay1  # the other debt is still open: no turn line yet
    pay2 = n.lines([PropertyMortgaged(1, 3), MoneyPaid(1, 2, 10, "rent")])
    assert not n.holding
    turn = {"it": "— Tocca a Carla —", "en": "— Carla's turn —"}[lang]
    out = first + pay1 + pay2
    assert out.count(turn) == 1 and out[-1] == turn, out
    assert "Vicolo Corto" in pay1[0] and "€6" in pay1[1], pay1
    assert "Vicolo Stretto" in pay2[0] and "€10" in pay2[1], pay2
