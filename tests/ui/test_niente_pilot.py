"""Pilot tests of niente-e-come-sembra in ``lanopoli play`` against in-process bots
(ui.play.LocalGame with pinned fake/genuine statuses, ui.hidden.LocalSecrets), and of the
create dialog's lobby options. Rules: tests/engine/test_niente_*.py; here: that the UI offers
the magnifier and the face-up cards, sends the chosen action, shows the outcome in plain words
and passes the lobby options on exactly as ``lanopoli host`` does (ui/peer.py)."""

from __future__ import annotations

import pytest

import engine
from engine import observation as obs
from engine.testing import forced_chance, scenario
from pilot_support import commands, log_text, sync, until
from ui.app import LanopoliApp
from ui.hidden import LocalSecrets
from ui.backends import CreateRequest, LocalLobby, NetLobby, Settings
from ui.play import LocalGame
from ui.screens import GameScreen
from ui.screens.dialogs import ConfirmDialog, CreateDialog
from ui.screens.niente_dialogs import BillsDialog, InspectDialog, TakeCardDialog
from ui.widgets import PlayersPanel

ED = "niente-e-come-sembra"
IMP = 1
NAMES = ("Marco", "Giulia")

pytestmark = pytest.mark.usefixtures("english")


def wallet(state, seat):
    """``seat``'s bill ids, wallet order (engine.observation)."""
    return [b for kind, b in obs.held_items(state, seat) if kind == "bill"]


def script(*pairs):
    """chance(state, k): dice from ``pairs`` in order, the top card for a card step."""
    seq = list(pairs)

    def chance(state, k):
        if engine.pending(state).kind == "card":
            return forced_chance(state, picks=[0])
        return forced_chance(state, dice=seq.pop(0) if seq else (1, 2))
    return chance


def rent_window_game(fake: bool):
    """Giulia (bot) rolls 1+2 from square 34 onto Marco's Vicolo Corto (rent €10); Marco
    claims it and may inspect her payment. Every bill of Giulia is pinned ``fake``, Marco's
    are genuine."""
    st = scenario(2, edition=ED, owners={1: 0}, current=1, pos={1: 34})
    statuses = {("bill", b): fake for b in wallet(st, 1)}
    statuses.update({("bill", b): False for b in wallet(st, 0)})
    return LocalGame(NAMES, 0, state=st, chance=script((1, 2)), delay=0, statuses=statuses)


@sync
async def test_inspecting_a_fake_bill_of_a_bot_keeps_it():
    """Rulebook "Se trovate un falso, ditelo a tutti e tenetelo voi!": the inspector keeps the
    bill, the payer pays its value again; one green token spent."""
    game = rent_window_game(fake=True)
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "inspect" in commands(app))
        assert "skip" in commands(app)
        paid = [b for p in obs.window_payments(game.state) for b in p.bills]
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, InspectDialog))
        await pilot.press("enter")  # the first bill of the payment
        await until(pilot, lambda: "it is fake!" in log_text(app))
        bill = paid[0]
        assert "Marco inspects a €10 bill of Giulia: it is fake!" in log_text(app)
        assert "Giulia pays €10 again to Marco in place of the fake bill" in log_text(app)
        s = game.state
        assert bill in wallet(s, 0) and obs.public_status(s, ("bill", bill)) == obs.FAKE
        assert obs.green_lenses(s, 0) == 1
        assert s.cash[:2] == [1520, 1680]  # Marco: rent 10 (the fake, kept) + 10 again; Giulia: VIA! 200 − 20
        panel = app.screen.query_one(PlayersPanel)
        # Our three €10 and the two of Giulia: the fake rent bill, kept, and the €10 she paid
        # again (also pinned fake: we know it since we hold it).
        assert "€10×3 €10×2✗" in panel.render().plain


@sync
async def test_inspecting_a_genuine_bill_changes_nothing():
    """Rulebook "Se le banconote sono autentiche ... non succederà nulla": only the token is
    spent."""
    game = rent_window_game(fake=False)
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "inspect" in commands(app))
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, InspectDialog))
        await pilot.press("enter")
        await until(pilot, lambda: "it is genuine." in log_text(app))
        assert "Marco inspects a €10 bill of Giulia: it is genuine." in log_text(app)
        s = game.state
        assert s.cash[:2] == [1510, 1690] and obs.green_lenses(s, 0) == 1
        assert "✗" not in app.screen.query_one(PlayersPanel).render().plain


@sync
async def test_letting_the_window_pass_spends_nothing():
    game = rent_window_game(fake=True)
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "skip" in commands(app))
        await pilot.press("s")
        await until(pilot, lambda: engine.pending(game.state).kind != "inspect_window")
        assert obs.green_lenses(game.state, 0) == 2 and "inspects" not in log_text(app)


def faceup_game(keep_top=False):
    """Marco on square 3 rolls 1+2 onto Imprevisti (6); the face-up row is pinned: the lottery
    card and the first two others of the deck. ``keep_top``: Marco also keeps the next card of
    the deck. Returns (game, the lottery card, the card kept or None)."""
    st = scenario(2, edition=ED)
    lottery = next(c.index for c in st.ed.decks[IMP] if c.kind == "collect" and c.amount == 150)
    rest = [c for c in st.decks[IMP] if c != lottery]
    row, mine = [lottery] + rest[:2], rest[2] if keep_top else None
    st = scenario(2, edition=ED, pos={0: 3}, faceup=row, kept={0: [mine]} if keep_top else None)
    return LocalGame(NAMES, 0, state=st, chance=script((1, 2)), delay=0), lottery, mine


@sync
async def test_taking_a_face_up_card():
    """Rulebook "prendete una qualsiasi delle carte Imprevisti al centro del tabellone": the
    dialog lists the face-up cards; the chosen one is kept (shown in our panel)."""
    game, lottery, _ = faceup_game()
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "roll" in commands(app))
        panel = app.screen.query_one(PlayersPanel)
        assert "Face-up Chance cards: You have won the lotter" in panel.render().plain  # English words and card
        await pilot.press("r")
        await until(pilot, lambda: "take" in commands(app))
        assert "leave_card" in commands(app)
        await pilot.press("k")
        await until(pilot, lambda: isinstance(app.screen, TakeCardDialog))
        await pilot.press("enter")  # slot 0: the lottery card
        await until(pilot, lambda: ("card", lottery) in obs.held_items(game.state, 0))
        assert "Marco takes the face-up Chance card “You have won the lottery”" in log_text(app)
        await until(pilot, lambda: "cards: You have won the lottery" in panel.render().plain)


@sync
async def test_swapping_the_held_imprevisti_asks_first():
    """"Potete avere una sola carta Imprevisti alla volta": taking another one discards ours,
    so the screen asks; "No" keeps the choice open."""
    game, _, mine = faceup_game(keep_top=True)
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "roll" in commands(app))
        await pilot.press("r")
        await until(pilot, lambda: "take" in commands(app))
        await pilot.press("k")
        await until(pilot, lambda: isinstance(app.screen, TakeCardDialog))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.click("#no")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert engine.pending(game.state).kind == "take_card"
        await pilot.press("d")  # leave the cards
        await until(pilot, lambda: engine.pending(game.state).kind != "take_card")
        assert ("card", mine) in obs.held_items(game.state, 0)


# --- paying with the bills we choose (issue 12, item 3) --------------------------------------

BILL_PASSAGE = ("Se sapete di avere una banconota falsa, cercate di tenerla fino alla fine del gioco "
                "(monopoly-niente-e-come-sembra.txt)")


def rent_to_pay_game(policy, settings=None):
    """Marco (us) rolls 1+2 from square 34 onto Giulia's Vicolo Corto (rent €10); Giulia (bot)
    claims it and Marco pays. Marco knows his first €10 (the one the engine would hand over)
    is fake; every other bill of the game is genuine. ``policy``: Marco's standing choice of bills."""
    st = scenario(2, edition=ED, owners={1: 1}, current=0, pos={0: 34})
    den = obs.denominations(st)
    fake = min(b for b in wallet(st, 0) if den[b] == 10)
    statuses = {("bill", b): b == fake for b in range(len(den))}
    game = LocalGame(NAMES, 0, state=st, chance=script((1, 2)), delay=0, statuses=statuses)
    game.human.set_bills(policy)
    return game, fake


@sync
async def test_keep_my_fakes_is_the_default_and_asks_nothing():
    """BILL_PASSAGE: with the standing choice "keep my fakes" (the default) the payment goes
    with a genuine €10 without a question; our fake stays with us."""
    game, fake = rent_to_pay_game("keep")
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(120, 30)) as pilot:
        assert app.screen.driver.human.bills == "keep"
        await until(pilot, lambda: "roll" in commands(app))
        assert "v: keep fakes" in app.screen.footer_text()
        await pilot.press("r")
        await until(pilot, lambda: "Giulia buys Vicolo Stretto" in log_text(app))  # her turn went on
        log = log_text(app)  # the rent of Marco's landing before Giulia's turn line (H108)
        assert log.index("Marco pays €10 rent to Giulia for Vicolo Corto") < log.index("— Giulia's turn —")
        assert not isinstance(app.screen, BillsDialog)
        assert fake in wallet(game.state, 0)  # we still hold our fake


@sync
async def test_spend_my_fakes_first_hands_over_the_fake():
    """The other standing choice: the known fake €10 pays the rent, without a question."""
    game, fake = rent_to_pay_game("spend")
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: "roll" in commands(app))
        assert "v: spend fakes" in app.screen.footer_text()
        await pilot.press("r")
        await until(pilot, lambda: fake not in wallet(game.state, 0))
        assert not isinstance(app.screen, BillsDialog)
        assert fake in wallet(game.state, 1) or any(fake in p.bills for p in obs.window_payments(game.state))


@sync
async def test_ask_opens_the_bills_dialog_by_denomination():
    """With "ask" the game waits for us: 'z' opens the dialog, one row per denomination and
    known status, starting at "keep my fakes"; 'f' fills it the "spend my fakes first" way, a
    row can be changed with ←/→, Enter pays with exactly those bills (a bill to spare is
    refused on the spot)."""
    game, fake = rent_to_pay_game("ask")
    app = LanopoliApp(driver=game)
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: "roll" in commands(app))
        await pilot.press("r")
        await until(pilot, lambda: "bills" in commands(app))
        assert engine.pending(game.state).kind == "pay_bills"
        await pilot.press("z")
        await until(pilot, lambda: isinstance(app.screen, BillsDialog))
        dialog = app.screen
        rows = [dialog.row_text(i) for i in range(len(dialog.groups))]
        assert "€10 fake ✗: pay 0 of 1" in rows and "€10 genuine: pay 1 of 2" in rows
        assert "Pay €10 to Giulia: choose the bills" in str(dialog.query_one(".title").render())
        await pilot.press("f")
        assert dialog.chosen() == (fake,)
        await pilot.press("home", "right")  # one €500 more: a bill to spare
        assert "a bill is not needed" in str(dialog.query_one("#bill-summary").render())
        await pilot.press("enter")
        assert app.screen is dialog  # refused on the spot
        await pilot.press("left", "enter")
        await until(pilot, lambda: fake not in wallet(game.state, 0))
        assert isinstance(app.screen, GameScreen)


@sync
async def test_v_cycles_the_standing_choice_and_remembers_it(tmp_path):
    """'v' goes keep -> spend -> ask -> keep, and the choice is saved in the settings for the
    next game (Settings.bills)."""
    settings = Settings.load(tmp_path)
    assert settings.bills == "keep"
    game, _ = rent_to_pay_game("keep")
    app = LanopoliApp(driver=game, settings=settings)
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: "roll" in commands(app))
        await pilot.press("v")
        assert game.human.bills == "spend" and Settings.load(tmp_path).bills == "spend"
        await pilot.press("v")
        assert game.human.bills == "ask" and "v: ask for bills" in app.screen.footer_text()
        await pilot.press("v")
        assert game.human.bills == "keep" and Settings.load(tmp_path).bills == "keep"


def test_local_secrets_one_fake_per_pair_and_own_items_only():
    """protocol.md §C12.1 "exactly one of each pair" and §12.7: a seat's view holds only the items it
    holds or held; pinning a card fixes its twin."""
    st = engine.new_game(ED, 3)
    sec = LocalSecrets(seed=7, pinned={("card", 4): True})
    for pair in range(12):
        assert sec.is_fake(st, ("card", 2 * pair)) != sec.is_fake(st, ("card", 2 * pair + 1))
    assert sec.is_fake(st, ("card", 5)) is False
    sec.observe(st)
    view = sec.view(st, 1)
    assert {ident for kind, ident in view} == set(wallet(st, 1))
    fakes = sum(LocalSecrets(seed=s).is_fake(st, ("bill", 0)) for s in range(400))  # a €500: 1/10
    assert 15 < fakes < 70


# --- the create dialog ---------------------------------------------------------------------


class RecordingLobby(LocalLobby):
    """A LocalLobby that keeps the CreateRequest it was given."""

    def create(self, name, req):
        self.req = req
        return super().create(name, req)


async def open_create(pilot, app):
    await pilot.pause()
    await pilot.click("#name")
    await pilot.press(*"Marco", "enter")
    await pilot.press("c")
    await until(pilot, lambda: isinstance(app.screen, CreateDialog))


@sync
async def test_create_dialog_defaults_are_off(tmp_path):
    """House rules and the timed game are off unless chosen; a dropped player's seat goes to a
    bot after 30 s (``lanopoli host``'s defaults)."""
    backend = RecordingLobby(seed=5)
    app = LanopoliApp(backend=backend, settings=Settings.load(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_create(pilot, app)
        assert not any(app.screen.query_one("#" + w).value for w in ("pot", "no-auctions", "double-go"))
        assert app.screen.query_one("#timed-row").display is False  # classico has no timed game
        await pilot.click("#create-game")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
    assert backend.req == CreateRequest("classico", 4, True, {}, "bot", 30)
    cfg = NetLobby("127.0.0.1").create("Marco", backend.req).cfg
    assert cfg["options"] is None and cfg["on_drop"] == "bot" and cfg["drop_timeout"] == 30


@sync
async def test_create_dialog_passes_the_options_like_lanopoli_host(tmp_path):
    """The options reach PeerConfig exactly as ``lanopoli host --timed 1.5 --free-parking-pot
    --double-go --on-drop bankrupt --drop-timeout 45`` sends them (ui/peer.py game_options)."""
    import argparse

    from p2p.node import PeerConfig
    from ui.peer import game_options

    backend = RecordingLobby(seed=5)
    app = LanopoliApp(backend=backend, settings=Settings.load(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_create(pilot, app)
        dialog = app.screen
        dialog.query_one("#edition").value = "editrice-giochi"
        await pilot.pause(0.1)
        assert dialog.query_one("#timed-row").display is True
        dialog.query_one("#pot").value = True
        dialog.query_one("#double-go").value = True
        dialog.query_one("#on_drop").value = "bankrupt"
        dialog.query_one("#drop_timeout").value = "1"  # below the minimum: refused
        dialog.query_one("#timed").value = "1.5"
        await pilot.click("#create-game")
        await pilot.pause(0.1)
        assert isinstance(app.screen, CreateDialog) and "between" in str(dialog.query_one("#error").render())
        dialog.query_one("#drop_timeout").value = "45"
        # A Textual Button ignores a click while its press effect shows (class "-active", 0.2 s
        # after the first press: textual.widgets.Button._on_click), so a second click at once was
        # lost when the file ran fast. Wait for that, not for a guessed time.
        button = dialog.query_one("#create-game")
        await until(pilot, lambda: not button.has_class("-active"))
        await pilot.click("#create-game")
        await until(pilot, lambda: not isinstance(app.screen, CreateDialog))
    req = backend.req
    args = argparse.Namespace(edition="editrice-giochi", seats=4, timed=1.5, free_parking_pot=True,
                              no_auctions=False, double_go=True)
    assert req.options == game_options(args) == {"free_parking_pot": True, "double_go_salary": True,
                                                  "timed_minutes": 2, "p2p.timed_ms": 90000}
    cfg = NetLobby("127.0.0.1").create("Marco", req).cfg
    peer = PeerConfig(**cfg)
    assert peer.edition == "editrice-giochi" and peer.on_drop == "bankrupt" and peer.drop_timeout == 45
    assert peer.host_options() == {**game_options(args), "p2p.on_drop": "bankrupt", "p2p.drop_timeout": 45}


def test_create_request_off_turns_seat_loss_off():
    """``--on-drop off`` is PeerConfig(on_drop=None): no p2p seat-loss options in the setup."""
    kw = CreateRequest(on_drop="off").peer_options()
    assert kw == {"options": None, "on_drop": None, "drop_timeout": 30}


@sync
async def test_create_dialog_says_which_seat_counts_the_edition_takes(tmp_path):
    """niente-e-come-sembra is for 2 to 6 players: 8 seats give a translated line naming the
    edition's range (not the engine's English 'seats must be 2..6') and keep the dialog open."""
    backend = RecordingLobby(seed=5)
    app = LanopoliApp(backend=backend, settings=Settings.load(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_create(pilot, app)
        dialog = app.screen
        dialog.query_one("#edition").value = "niente-e-come-sembra"
        dialog.query_one("#seats").value = 8
        await pilot.pause()
        await pilot.click("#create-game")
        await pilot.pause()
        error = str(dialog.query_one("#error").render())
        assert app.screen is dialog and dialog.query_one("#error").display
        assert "niente-e-come-sembra is for 2 to 6 players, not 8" in error
    assert not hasattr(backend, "req")
