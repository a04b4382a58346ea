"""What H108's session 11 walk of ``lanopoli play`` left (H119): the tax line names the square
("pays €200 in tax (Income Tax)", "paga €200 di tasse (Tassa patrimoniale)"); an accepted trade's
"accepts" line comes before the transfers it caused; in niente-e-come-sembra the magnifier lines
of a rent claimed under the next turn come before that turn's line, as the rent line itself
(ui.narrate.Narrator.lines, H108 0c091cd/c111f5f); a joiner's waiting room says the host may
start sooner with bots."""

from __future__ import annotations

import pytest

import engine
from engine.actions import AcceptTrade, ProposeTrade
from engine.events import DiceRolled, Moved, MoneyPaid, PropertyTransferred, RentDue, TradeClosed, TurnStarted
from engine.rules.niente_events import BillChoiceOpened, BillInspected, BillsMoved, InspectionOpened
from engine.testing import scenario, step
from pilot_support import sync, waiting_room_text
from ui.i18n import format_money, set_language
from ui.narrate import Narrator
from ui.net_game import NetGame

NAMES = ("Anna", "Bruno", "Carla")


@pytest.fixture
def lang(each_language):
    """Each test once in Italian, once in English (conftest.each_language)."""
    return each_language


def test_the_tax_line_says_in_tax_and_names_the_square(lang):
    """engine.rules.movement: landing on a tax square pays its amount to the bank (Tassa
    patrimoniale, square 4; Tassa di lusso, square 38 in classico); the walk read "pays €200 of
    tax". Money is "€1.500" in both languages (ui.i18n.format_money)."""
    n = Narrator(engine.EDITIONS["classico"], NAMES)
    lines = n.lines([Moved(0, 1, 4), MoneyPaid(0, -1, 200, "tax"), Moved(1, 30, 38), MoneyPaid(1, -1, 1500, "tax")])
    assert lines[1::2] == {
        "it": ["Anna paga €200 di tasse (Tassa patrimoniale)", "Bruno paga €1.500 di tasse (Tassa di lusso)"],
        "en": ["Anna pays €200 in tax (Income Tax)", "Bruno pays €1.500 in tax (Luxury Tax)"]}[lang]
    # A tax without a tax square just landed on (no Moved told): the amount alone.
    assert Narrator(engine.EDITIONS["classico"], NAMES).lines([MoneyPaid(2, -1, 100, "tax")]) == [
        {"it": "Carla paga €100 di tasse", "en": "Carla pays €100 in tax"}[lang]]
    assert format_money(1500) == "€1.500"


def test_the_real_engine_names_the_tax_square_it_charged(english):
    """The engine's own events of a landing on Tassa patrimoniale (dice 1+3 from GO)."""
    from engine.testing import roll

    s = scenario(2)
    s, ev = roll(s, 1, 3)
    lines = Narrator(s.ed, NAMES[:2]).lines(ev)
    assert any(line.startswith("Anna pays €") and line.endswith(" in tax (Income Tax)") for line in lines), lines


def test_the_trade_is_accepted_before_its_transfers(lang):
    """engine.rules.trade.accept tells the cash, the properties (and a mortgage's fee) before
    TradeClosed("accepted"); the log read the transfers, then "Bruno accepts the trade"."""
    s = scenario(2, owners={12: 1, 1: 0}, mortgaged=[12])
    s, _ = step(s, seat0=ProposeTrade(1, (1,), (12,), 100, 0, (), (), ()))
    s, ev = step(s, seat1=AcceptTrade(0, ()))
    kinds = [type(e).__name__ for e in ev]
    assert kinds.index("TradeClosed") > kinds.index("PropertyTransferred")  # the engine's order
    lines = Narrator(s.ed, NAMES[:2]).lines(ev)
    accepts = {"it": "Bruno accetta lo scambio proposto da Anna", "en": "Bruno accepts the trade offered by Anna"}[lang]
    assert accepts in lines and len(lines) >= 3
    assert lines.index(accepts) == 0, lines
    # Two trades in one batch: each "accepts" goes before its own transfers only.
    n = Narrator(s.ed, NAMES)
    lines = n.lines([MoneyPaid(0, 1, 50, "trade"), TradeClosed(0, 1, "accepted"),
                     PropertyTransferred(2, 0, 3), MoneyPaid(0, -1, 3, "mortgage_fee"), TradeClosed(2, 0, "accepted")])
    first = {"it": "Anna accetta lo scambio proposto da Carla", "en": "Anna accepts the trade offered by Carla"}[lang]
    assert lines[0] == accepts and lines[2] == first and len(lines) == 5, lines
    assert "€50" in lines[1] and "Vicolo Stretto" in lines[3] and "€3" in lines[4]


def test_the_magnifier_lines_of_a_late_rent_come_before_the_next_turn(lang):
    """niente-e-come-sembra, the engine's own steps: Bruno lands on Anna's Viale Monterosa, the
    landing's step starts Carla's turn, Anna claims one step later (engine.rules.rent), Bruno
    pays with bills, chooses them (engine.rules.bill_choice: BillChoiceOpened), a magnifier
    window opens on the payment (engine.rules.counterfeit: InspectionOpened), Carla inspects, the
    outcome comes in a chance step (a fake bill: both pay again, a new choice of bills). The
    walk saw the magnifier line under "— Carla's turn —"; the turn line held for the rent (H108)
    now waits for all of it, and comes before Carla's roll."""
    from engine import actions as A
    from engine.testing import forced_chance, roll

    s = scenario(3, edition="niente-e-come-sembra", owners={7: 0}, pos={1: 4, 2: 20}, current=1,
                 magnifiers={0: 2, 2: 2})
    n = Narrator(s.ed, NAMES)
    n.denominations = engine.observation.denominations(s)
    s, ev = roll(s, 1, 2)
    out = [n.lines(ev)]
    s, ev = step(s, seat0=A.ClaimRent(7, 1))
    out.append(n.lines(ev))
    s, ev = step(s)  # Bruno's bills as they are: the window opens
    out.append(n.lines(ev))
    s, ev = step(s, seat2=engine.legal_actions(s, 2)[0])  # Carla inspects Bruno's bill
    out.append(n.lines(ev))
    s, ev = forced_chance(s, picks=[0])  # found fake
    out.append(n.lines(ev))
    while engine.pending(s).kind != "roll":  # the new bills, a window nobody uses (no events: no call)
        s, ev = step(s)
        out.append(n.lines(ev) if ev else [])
    s, ev = roll(s, 2, 3)
    out.append(n.lines(ev))
    flat = [line for batch in out for line in batch]
    turn = {"it": "— Tocca a Carla —", "en": "— Carla's turn —"}[lang]
    inspects = next(i for i, line in enumerate(flat) if "Carla" in line and "€10" in line and "Bruno" in line)
    assert flat.count(turn) == 1 and inspects < flat.index(turn) < len(flat) - 2, flat
    assert flat[flat.index(turn) + 1].startswith("Carla"), flat  # her roll, right after her turn's line
    assert not n.holding


def test_the_turn_line_waits_for_the_window_on_a_late_rent(lang):
    """The same with events as the screen may hand them (ui.narrate.Narrator.lines): a window
    nobody uses closes silently, and the next line lets the turn line out first; several steps
    in one batch keep the order."""
    n = Narrator(engine.EDITIONS["niente-e-come-sembra"], NAMES)
    n.denominations = [10] * 7 + [50]  # bill id -> euro
    turn = {"it": "— Tocca a Carla —", "en": "— Carla's turn —"}[lang]
    n.lines([RentDue(0, 1, 7, 6), TurnStarted(2)])
    paid = n.lines([MoneyPaid(1, 0, 6, "rent"), BillsMoved(1, 0, (7,)), BillChoiceOpened((1,))])
    assert len(paid) == 1 and n.holding
    assert n.lines([InspectionOpened("bills", (0, 2))]) == [] and n.holding
    assert n.lines([DiceRolled(2, 3, 4)])[0] == turn and not n.holding
    n.lines([RentDue(0, 1, 7, 6), TurnStarted(2)])
    both = n.lines([MoneyPaid(1, 0, 6, "rent"), BillsMoved(1, 0, (7,)), InspectionOpened("bills", (0, 2)),
                    BillInspected(2, 1, 7, False), DiceRolled(2, 5, 6)])
    assert both.index(turn) == 2 and "€50" in both[1] and len(both) == 4, both
    # A plain payment with bills and nothing to wait for: the turn line comes at the end of the batch.
    n.lines([RentDue(0, 1, 7, 6), TurnStarted(2)])
    assert n.lines([MoneyPaid(1, 0, 6, "rent"), BillsMoved(1, 0, (7,))])[-1] == turn and not n.holding


@pytest.mark.parametrize("language, words", [("it", "L'host può anche iniziare prima"),
                                         ("en", "The host may also start sooner: bots then take the empty seats.")])
@sync
async def test_a_joiner_s_room_says_the_host_may_start_with_bots(language, words):
    """A joiner has no Start button (ui.screens.WaitingScreen, bots only for the host): the room
    said only that the game starts when every seat is taken. The host's room does not say it."""
    set_language(language)
    try:
        joiner = await waiting_room_text(NetGame({"role": "join", "name": "Bruno"}), "seats")
        host = await waiting_room_text(NetGame({"role": "host", "name": "Anna", "seats": 3}), "seats", bots=True)
    finally:
        set_language("en")
    assert words in joiner and words not in host
    assert all(len(line) <= 76 for line in joiner.split("\n")), joiner


@pytest.mark.parametrize("keys, value", [(["backspace", "backspace", "5", "0"], "50"),
                                         (["backspace", "5", "left", "1", "end", "0"], "150"),
                                         (["home", "delete", "7"], "70")])
@sync
async def test_the_bid_box_keeps_a_burst_of_keys_in_order(english, keys, value):
    """Session 11's walk: "Backspace Backspace 5 0 Enter" sent at once to the auction's bid box
    (tmux) did not bid €50. Keys that reach the app together (it was busy: a redraw, bots
    bidding) went out of order: Textual runs an Input's Backspace as a binding once the key has
    bubbled up, after the "5" and "0" queued behind it were inserted, and then deleted them
    (ui.screens.modal.InOrderInput handles the editing keys in the Input's own queue)."""
    from textual import events

    from engine.actions import DeclineProperty
    from engine.testing import roll
    from pilot_support import commands, until
    from ui.app import LanopoliApp
    from ui.play import LocalGame
    from ui.screens.dialogs import BidDialog

    s = scenario(3)
    s, _ = roll(s, 2, 4)
    s, _ = step(s, seat0=DeclineProperty())  # Bastioni Gran Sasso goes to auction
    app = LanopoliApp(driver=LocalGame(NAMES, 0, state=s, delay=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "bid" in commands(app))
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, BidDialog))
        box = app.screen.query_one("#amount")
        assert box.value == "10" and app.screen.focused is box
        for key in keys:  # one burst: every key in the app's queue before any is handled
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await pilot.pause(0.2)
        assert box.value == value


@sync
async def test_every_text_box_of_the_screens_keeps_a_burst_in_order():
    """The same race in every text box of ``lanopoli play`` (name, chat, join code, create and
    trade amounts): ui/screens builds them all as InOrderInput; a chat line typed in a burst
    with a correction ("ciap", Backspace, "o") reads "ciao"."""
    import pathlib

    from textual import events
    from textual.app import App

    from ui.screens.modal import InOrderInput

    screens = pathlib.Path(__file__).resolve().parents[2] / "ui" / "screens"
    plain = [p.name for p in screens.glob("*.py") if "yield Input(" in p.read_text(encoding="utf-8")]
    assert plain == []

    class Box(App):
        def compose(self):
            yield InOrderInput(id="chat")

    app = Box()
    async with app.run_test() as pilot:
        await pilot.pause()
        for key in ["c", "i", "a", "p", "backspace", "o"]:
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await pilot.pause(0.2)
        assert app.query_one(InOrderInput).value == "ciao"
