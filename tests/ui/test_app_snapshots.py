"""Snapshot tests (pytest-textual-snapshot) of the main screens of ``lanopoli play`` at 80×24
(compact layout), 120×40 (the smallest wide layout) and 160×50, in Italian: the game screen,
and the end screen of every edition with its own winning rule. Everything is pinned: a local game against bots with
scripted dice from a built state, fixed lobby ads. The SVGs in __snapshots__/ were reviewed by
eye (rendered to PNG); regenerate with ``pytest tests/ui/test_app_snapshots.py
--snapshot-update`` and look at them again before committing."""

from __future__ import annotations

import pytest

import engine

from engine.testing import forced_chance, scenario
from p2p.const import PROTOCOL_VERSION
from p2p.ad_record import GameAd
from ui.app import LanopoliApp
from ui.i18n import set_language
from ui.backends import LocalLobby, Settings
from ui.play import LocalGame

NAMES = ("Marco", "Giulia", "Anna", "Luca")


@pytest.fixture(autouse=True)
def italian():
    set_language("it")
    yield
    set_language("en")


def midgame_state():
    """Four players, houses, a hotel, a mortgage, one player in jail, tokens spread out."""
    return scenario(4, cash={0: 1230, 1: 480, 2: 2015, 3: 95},
                    owners={1: 0, 3: 0, 5: 0, 6: 1, 8: 1, 9: 1, 16: 2, 18: 2, 39: 3, 12: 3},
                    levels={1: 2, 3: 2, 6: 5, 8: 4, 9: 4}, mortgaged=[16], pos={0: 0, 1: 9, 2: 10, 3: 24},
                    jail={2: 1})


def dice(*pairs):
    seq = list(pairs)
    return lambda state, k: forced_chance(state, dice=seq.pop(0) if seq else (1, 2))


async def wait_for(pilot, cond):
    for _ in range(200):
        if cond():
            return
        await pilot.pause(0.05)
    raise AssertionError("the app never reached the state to snapshot")


def game_app():
    game = LocalGame(NAMES, 0, state=midgame_state(), chance=dice((2, 1)), delay=0)
    return game, LanopoliApp(driver=game)


def _after_roll(game, app):
    async def run(pilot):
        await wait_for(pilot, lambda: game.human.deciding and type(app.screen).__name__ == "GameScreen")
        await pilot.press("r")
        await pilot.pause(0.2)
        await wait_for(pilot, lambda: game.human.deciding and game.state.pos[0] == 3)
        await pilot.pause(0.3)
    return run


SIZES = [(80, 24), (120, 40), (160, 50)]


@pytest.mark.parametrize("size", SIZES)
def test_game_screen(snap_compare, size):
    game, app = game_app()
    assert snap_compare(app, terminal_size=size, run_before=_after_roll(game, app))


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
def test_lobby_screen(snap_compare, size, tmp_path):
    from p2p.ad_record import Standings
    from ui.play import MyGame

    hosts = {1: ("Giulia",), 2: ("Niccolò", "Anna"), 3: ("Prof. Rossi", "Bot 1", "Bot 2", "Bot 3")}
    ads = [GameAd(version=PROTOCOL_VERSION, game_id=bytes([i]) * 16, edition="classico", seats_taken=i, seats_total=4,
                  state="lobby" if i < 3 else "running", fingerprint="ab" * 8, address="192.168.1.2" + str(i),
                  port=40000 + i, host_name=hosts[i][0], players=hosts[i][: i if i < 3 else 4],
                  standings=Standings(14, 2, (1500, 1320, None, 2210)) if i == 3 else None) for i in (1, 2, 3)]
    mine = [MyGame(bytes([9]) * 16, "niente-e-come-sembra", ("Marco", "Bruno", "Carla"), 0, tmp_path / "x.log")]
    settings = Settings(name="Marco", path=tmp_path / "play.json")
    app = LanopoliApp(backend=LocalLobby(ads, my_games=mine), settings=settings)

    async def run(pilot):
        await pilot.pause(0.2)
    assert snap_compare(app, terminal_size=size, run_before=run)


def test_trade_dialog(snap_compare):
    game, app = game_app()

    async def run(pilot):
        await wait_for(pilot, lambda: game.human.deciding and type(app.screen).__name__ == "GameScreen")
        await pilot.press("t")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "TradeDialog")
        app.screen.query_one("#give").select(5)
        await pilot.pause(0.2)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run)


def test_end_screen(snap_compare):
    # Marco (€10, nothing to sell) lands on Giulia's hotel and declares bankruptcy.
    st = scenario(2, cash={0: 10}, owners={3: 1, 1: 1}, levels={3: 5, 1: 5})
    game = LocalGame(("Marco", "Giulia"), 0, state=st, chance=dice((1, 2)), delay=0)
    app = LanopoliApp(driver=game)

    async def run(pilot):
        await wait_for(pilot, lambda: game.human.deciding and type(app.screen).__name__ == "GameScreen")
        await pilot.press("r")
        await wait_for(pilot, lambda: game.human.deciding and game.state.pos[0] == 3)
        await pilot.pause(0.2)
        await pilot.press("x")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmDialog")
        await pilot.click("#yes")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "EndScreen")
        await pilot.pause(0.2)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run)


def niente_app():
    """niente-e-come-sembra (36 squares): Giulia paid Marco's rent and Marco may inspect her
    bill; Marco's bills (one €50 pinned fake: ✗), his kept Imprevisti, everyone's magnifier
    tokens (Anna has one red) and the face-up row. Returns (game, app, run_before)."""
    from engine import observation as obs

    imp = engine.EDITIONS["niente-e-come-sembra"].decks[1]
    hotel = next(c.index for c in imp if c.kind == "free_hotel")
    row = [next(c.index for c in imp if c.kind == k) for k in ("half_price", "collect_from_each_player", "green_lenses")]
    st = scenario(4, edition="niente-e-come-sembra", owners={1: 0, 5: 2}, current=1, pos={1: 34, 2: 7, 3: 12},
                  faceup=row, kept={0: [hotel]}, magnifiers={2: 1})
    den = obs.denominations(st)
    wallet = [b for kind, b in obs.held_items(st, 0) if kind == "bill"]
    fifty = next(b for b in wallet if den[b] == 50)
    statuses = {("bill", b): b == fifty for b in wallet}
    statuses[("card", hotel)] = False
    game = LocalGame(NAMES, 0, state=st, chance=dice((1, 2)), delay=0, statuses=statuses)
    app = LanopoliApp(driver=game)

    async def run(pilot):
        await wait_for(pilot, lambda: game.human.deciding and type(app.screen).__name__ == "GameScreen"
                       and game.state.phase != st.phase)
        await pilot.pause(0.3)
    return game, app, run


def test_niente_game_screen(snap_compare):
    """niente_app at 80×24: the 36-square board in the compact layout, 9 squares a side (VIA!
    bottom right, Prigione bottom left, Parcheggio top left, In prigione! top right), and the
    niente players panel."""
    _, app, run = niente_app()
    assert snap_compare(app, terminal_size=(80, 24), run_before=run)


def test_niente_game_screen_120(snap_compare):
    """niente_app at 120×40: the narrowest wide layout, the players panel beside the board."""
    _, app, run = niente_app()
    assert snap_compare(app, terminal_size=(120, 40), run_before=run)


def test_niente_game_screen_wide(snap_compare):
    """niente_app at 160×50: the 36-square ring in the wide layout with an intact centre
    (dice, turn, status, log), every square once with its name, group colour, owner and
    tokens."""
    _, app, run = niente_app()
    assert snap_compare(app, terminal_size=(160, 50), run_before=run)


def finished(edition: str, ending: str):
    """A finished game of ``edition`` as the engine leaves it, for the end screen: "last" (one
    player left, two bankrupt), "timed" (the agreed time ran out: ``time_up`` EXPIRED) or
    "all_owned" (niente-e-come-sembra: every property owned). Returns (names, state)."""
    from engine.rules.timed import EXPIRED
    from engine.state import P_OVER

    names = ("Marco", "Giulia", "Anna")
    options = {"timed_minutes": 30} if ending == "timed" else None
    st = scenario(3, edition=edition, options=options, cash={0: 820, 1: 1340, 2: 300},
                  owners={1: 0, 3: 0, 6: 1, 8: 1, 11: 2}, levels={1: 2, 3: 2}, mortgaged=[11])
    if ending == "all_owned":
        for i, sq in enumerate(st.tb.properties):
            st.owner[sq] = st.owner[sq] if st.owner[sq] >= 0 else i % 3
    if ending == "last":
        for seat in (0, 2):
            st.out[seat] = 1
            for sq in st.tb.properties:
                if st.owner[sq] == seat:
                    st.owner[sq], st.level[sq], st.mort[sq] = 1, 0, 0
            st.cash[1] += st.cash[seat]
            st.cash[seat] = 0
    if ending == "timed":
        st.time_up = EXPIRED
    st.phase = P_OVER
    st.winner = engine.standings(st)[0][0]
    return names, st


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("edition,ending", [("classico", "last"), ("editrice-giochi", "timed"),
                                            ("fabrianopoli", "timed"), ("niente-e-come-sembra", "all_owned")])
def test_end_screen_of_each_edition(snap_compare, size, edition, ending):
    """The end screen says how this edition decides: the last player left (classico), the
    richest when the time ran out (buildings at half their cost in editrice-giochi, whole in
    fabrianopoli), the most money once every property is owned (niente: cash only)."""
    names, st = finished(edition, ending)
    game = LocalGame(names, 0, state=st, delay=0)
    app = LanopoliApp(driver=game)

    async def run(pilot):
        await wait_for(pilot, lambda: type(app.screen).__name__ == "EndScreen")
        await pilot.pause(0.2)
    assert snap_compare(app, terminal_size=size, run_before=run)
