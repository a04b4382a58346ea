"""The bid dialog during an auction tie (engine.rules.auction, AuctionTied; issue 11 leftover):
it shows the tied amount and who holds it ("Parità a €20 (Marco, Giulia): rilancia"), says
that the tied bidders roll if nobody raises, and the tied seat's pass button is "Don't raise"
(it keeps its tied bid); a seat outside the tie still sees "Leave the auction"."""

from __future__ import annotations

import pytest

from engine import pending
from engine.actions import Bid, DeclineProperty
from engine.testing import roll, scenario, step
from pilot_support import commands, sync, until
from ui.app import LanopoliApp
from ui.i18n import set_language
from ui.play import LocalGame
from ui.screens.dialogs import BidDialog

NAMES = ("Marco", "Giulia", "Anna")


def _tied_state():
    """Seat 0 declines Bastioni Gran Sasso (2 + 4); Marco and Giulia both bid €20: a tie."""
    s = scenario(3)
    s, _ = roll(s, 2, 4)
    s, _ = step(s, seat0=DeclineProperty())
    s, _ = step(s, seat0=Bid(20), seat1=Bid(20), seat2=Bid(15))
    assert s.auc_bidder == -1 and s.auc_high == 20 and pending(s).kind == "auction_bid"
    return s


def _texts(screen):
    return [str(w.render()) for w in screen.query("Label, Button")]


async def _open(seat):
    game = LocalGame(NAMES, seat, state=_tied_state(), delay=0)
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "bid" in commands(app))
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, BidDialog))
        return _texts(app.screen)


@pytest.mark.parametrize("lang, tie, rolls, keep", [
    ("en", "Tie at €20 (Marco, Giulia): raise", "If nobody raises, the tied bidders roll the dice for it.",
     "Don't raise"),
    ("it", "Parità a €20 (Marco, Giulia): rilancia",
     "Se nessuno rilancia, chi è in parità tira i dadi per aggiudicarsela.", "Non rilanciare"),
])
def test_a_tied_seat_sees_the_tie_and_keeps_its_bid(lang, tie, rolls, keep):
    set_language(lang)
    try:
        texts = sync(lambda: _open(0))()
    finally:
        set_language("en")
    assert tie in texts and rolls in texts and keep in texts
    assert not any("Highest bid" in t or "Offerta più alta" in t for t in texts)


def test_a_seat_outside_the_tie_may_leave_the_auction():
    set_language("en")
    texts = sync(lambda: _open(2))()
    assert "Tie at €20 (Marco, Giulia): raise" in texts and "Leave the auction" in texts
    assert "Don't raise" not in texts


def test_typing_clears_the_refusal_of_the_previous_amount():
    async def run():
        game = LocalGame(NAMES, 0, state=_tied_state(), delay=0)
        app = LanopoliApp(driver=game)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: "bid" in commands(app))
            await pilot.press("o")
            await until(pilot, lambda: isinstance(app.screen, BidDialog))
            field = app.screen.query_one("#amount")
            field.value = "5"
            await pilot.press("enter")  # below the minimum: refused, the dialog stays
            await pilot.pause(0.1)
            refused = str(app.screen.query_one("#error").render())
            await pilot.press("0")  # €50 is a valid amount now: the refusal goes
            await pilot.pause(0.1)
            return refused, str(app.screen.query_one("#error").render()), isinstance(app.screen, BidDialog)

    set_language("en")
    refused, after, still = sync(run)()
    assert "between" in refused and after.strip() == "" and still
