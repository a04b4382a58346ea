"""Keyboard path through the create dialog (issue 11, tried as a new user would): Create has
the focus (Enter creates), and Tab from Cancel goes straight to Edition — the scrolling
container is not an invisible Tab stop in between."""

from __future__ import annotations

from textual.app import App

from pilot_support import sync
from ui.screens.dialogs import CreateDialog


class _Host(App):
    def on_mount(self) -> None:
        self.push_screen(CreateDialog())


@sync
async def test_tab_walks_the_create_dialog_without_an_invisible_stop():
    app = _Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        seen = [app.focused.id]
        for _ in range(11):
            await pilot.press("tab")
            seen.append(app.focused.id)
        assert seen == ["create-game", "cancel", "edition", "seats", "bots", "on_drop", "drop_timeout", "pot",
                        "no-auctions", "double-go", "create-game", "cancel"]
        await pilot.press("tab", "enter", "down", "enter")  # Edition: open, the next one, chosen
        await pilot.pause(0.2)
        assert app.screen.query_one("#edition").value != "classico"


class _Answer(App):
    """Pushes a CreateDialog and keeps its answer."""

    answer: object = "none yet"

    def on_mount(self) -> None:
        self.push_screen(CreateDialog(), lambda req: setattr(self, "answer", req))


@sync
async def test_space_ticks_a_house_rule_and_enter_on_it_creates_as_the_hint_says():
    """The hint says "Enter: create"; a plain Checkbox toggled on Enter, so Enter on the house
    rule just ticked un-ticked it and created nothing (H101's walk)."""
    app = _Answer()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        for _ in range(7):  # create-game -> cancel, edition, seats, bots, on_drop, drop_timeout, pot
            await pilot.press("tab")
        assert app.focused.id == "pot"
        await pilot.press("space")
        assert app.screen.query_one("#pot").value is True
        await pilot.press("enter")
        await pilot.pause(0.1)
        assert app.answer is not None and app.answer != "none yet"
        assert app.answer.options == {"free_parking_pot": True} and app.answer.bots is True


def test_an_offer_to_us_says_you_give_for_our_side():
    from engine.testing import scenario
    from ui.i18n import set_language
    from ui.screens.dialogs import describe_offer

    st = scenario(2, owners={1: 0, 3: 1})
    o = [1, 0, [], [1], 100, 0, [], [], []]  # Giulia offers €100 for our Vicolo Corto
    set_language("it")
    try:
        ours = describe_offer(st, o, ("Marco", "Giulia"), me=0)
        theirs = describe_offer(st, o, ("Marco", "Giulia"))
    finally:
        set_language("en")
    assert ours == ["Giulia dà: €100", "Tu dai: Vicolo Corto"]
    assert theirs[1] == "Marco dà: Vicolo Corto"


def test_a_bill_paid_to_the_bank_reads_alla_banca(monkeypatch):
    """Issue 11 defect 6 in the inspection dialog: "pagata alla banca" / "pagata ad Anna"."""
    from types import SimpleNamespace

    from ui.i18n import set_language
    from ui.screens import niente_dialogs as nd

    pays = [SimpleNamespace(payer=1, taker=-1, bills=(7,)), SimpleNamespace(payer=1, taker=0, bills=(8,))]
    monkeypatch.setattr(nd.obs, "window_payments", lambda state: pays)
    monkeypatch.setattr(nd.obs, "bill_value", lambda state, bill: 50)
    monkeypatch.setattr(nd.obs, "public_status", lambda state, item: None)
    set_language("it")
    try:
        texts = [nd.bill_label(None, b, ("Anna", "Bruno"), {}) for b in (7, 8)]
    finally:
        set_language("en")
    assert texts == ["€50 di Bruno (pagata alla banca)", "€50 di Bruno (pagata ad Anna)"]
    assert nd.bill_label(None, 7, ("Anna", "Bruno"), {}) == "€50 of Bruno (paid to the bank)"
