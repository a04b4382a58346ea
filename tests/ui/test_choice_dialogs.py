"""``ChoiceDialog`` (ui/screens/modal.py): each dialog offers exactly the legal actions of its
kinds, in the order the engine listed them. Manage: houses editions build, sell, mortgage and lift;
niente-e-come-sembra (hotels only) has no mortgages and sells deeds back to the bank instead
(its rulebook: "rivendendo le vostre proprietà alla Banca al costo indicato")."""

from engine import actions as A
from engine.testing import scenario
from ui.screens.dialogs import ManageDialog, SettleDialog
from ui.screens.niente_dialogs import TakeCardDialog, UseCardDialog

#: One action of every kind the dialogs sort, plus two that no dialog offers (RollDice, DeclineCard).
LEGAL = [A.RollDice(), A.BuildHouse(1), A.SellBuilding(1), A.Mortgage(3), A.LiftMortgage(6),
         A.SellProperty(8), A.SettleMortgages((3,)), A.SettleMortgages(()), A.TakeCard(0),
         A.TakeCard(2), A.DeclineCard(), A.UseCard(1, 4, 1)]


def _kinds(dialog) -> list:
    return [type(a) for a in dialog.choices]


def test_manage_offers_builds_sales_mortgages_and_lifts_in_a_houses_edition():
    assert _kinds(ManageDialog(scenario(2), LEGAL)) == [A.BuildHouse, A.SellBuilding, A.Mortgage,
                                                          A.LiftMortgage]


def test_manage_sells_deeds_back_and_has_no_mortgages_with_hotels_only():
    s = scenario(2, edition="niente-e-come-sembra")
    assert _kinds(ManageDialog(s, LEGAL)) == [A.BuildHouse, A.SellBuilding, A.SellProperty]


def test_settle_take_and_use_offer_their_own_kind_only():
    s = scenario(2, edition="niente-e-come-sembra")
    assert SettleDialog(s, LEGAL).choices == [A.SettleMortgages((3,)), A.SettleMortgages(())]
    take = TakeCardDialog(s, 0, LEGAL, {})
    assert take.choices == [A.TakeCard(0), A.TakeCard(2)] and take.seat == 0 and take.state is s
    assert UseCardDialog(s, LEGAL).choices == [A.UseCard(1, 4, 1)]
