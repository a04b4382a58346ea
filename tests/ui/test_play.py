"""Unit tests of the UI's pure parts: the game log sentences (Italian by default), the board
geometry, the human seat's input policy, join codes and remembered settings."""

from __future__ import annotations

import asyncio

import pytest

import engine
from engine import actions as A
from engine.editions import K_JAIL
from engine.events import MoneyPaid, RentDue, TurnStarted
from engine.testing import scenario
from ui.board_layout import cell_of, short_name
from ui.i18n import set_language
from ui.narrate import Narrator
from ui.backends import Settings, parse_join_code
from ui.play import HumanSeat


@pytest.fixture
def italian():
    set_language("it")
    yield
    set_language("en")


def test_rent_sentence_in_plain_italian(italian):
    n = Narrator(engine.EDITIONS["classico"], ("Marco", "Giulia"))
    lines = n.lines([RentDue(1, 0, 9, 50), MoneyPaid(0, 1, 50, "rent"), TurnStarted(1)])
    assert lines == ["Marco paga €50 di affitto a Giulia per Viale Vesuvio", "— Tocca a Giulia —"]


def test_money_uses_the_italian_thousands_dot(italian):
    n = Narrator(engine.EDITIONS["classico"], ("Marco", "Giulia"))
    assert n.lines([MoneyPaid(0, 1, 1500, "trade")]) == ["Marco paga €1.500 a Giulia"]


def test_board_corners_follow_the_printed_board():
    # VIA! bottom right, Prigione bottom left, Parcheggio top left, In prigione! top right.
    assert [cell_of(sq) for sq in (0, 10, 20, 30)] == [(10, 10), (0, 10), (0, 0), (10, 0)]
    cells = {cell_of(sq) for sq in range(40)}
    assert len(cells) == 40 and all(c in (0, 10) or r in (0, 10) for c, r in cells)
    with pytest.raises(ValueError):
        cell_of(40)


def test_short_names_fit_their_cell(italian):
    assert short_name("Viale Vesuvio", 7) == "V.Vesuv"
    assert short_name("Parco della Vittoria", 4) == "Vitt"
    assert short_name("VIA!", 4) == "VIA!"
    assert short_name("Prigione / Transito", 4, kind=K_JAIL) == "Prig"


def test_human_seat_waits_only_when_the_game_waits_for_it():
    async def run():
        st = scenario(2)  # seat 0 must roll
        human = HumanSeat()
        assert human.decide(st, 1) is None  # not our turn, nothing queued: "nothing"
        pending = human.decide(st, 0)
        assert asyncio.iscoroutine(pending)
        task = asyncio.ensure_future(pending)
        await asyncio.sleep(0)
        assert human.deciding and not task.done()
        human.submit(A.RollDice())
        assert await task == A.RollDice()
        human.set_autoplay(True)
        assert human.decide(st, 0) == engine.bots.choose(st, 0)
    asyncio.run(run())


def test_human_seat_claims_rent_by_itself():
    st = scenario(2)
    st.owner[9] = 0
    st.claims.append([0, 1, 9, 8, st.turn])
    human = HumanSeat()
    assert A.ClaimRent(9, 1) in engine.legal_actions(st, 0)
    assert human.decide(st, 0) == A.ClaimRent(9, 1)


def test_join_codes():
    assert parse_join_code("127.0.0.1:4000/" + "ab" * 16) == ("127.0.0.1", 4000, bytes([0xab]) * 16, None)
    # the short code (protocol.md §N3.1): 10 Crockford base32 characters of the tag
    from p2p.join_code import format_code
    assert parse_join_code(format_code("10.0.0.7", 40000, 12345)) == ("10.0.0.7", 40000, None, 12345)
    assert parse_join_code(" 10.0.0.7:40000/OOOOO oOcls ").tag == 12345  # read out loud, typed loosely
    for bad in ("127.0.0.1:4000", "nohost:1/" + "ab" * 16, "127.0.0.1:0/" + "ab" * 16, "127.0.0.1:9/abcd",
                # not one machine (protocol.md §N3.1): every joiner would probe a group (H85)
                format_code("224.0.0.251", 5353, 12345), format_code("255.255.255.255", 4000, 12345),
                format_code("0.0.0.0", 4000, 12345), "ff02::fb:5353/" + "ab" * 16):
        with pytest.raises(ValueError):
            parse_join_code(bad)


def test_settings_remember_the_name(tmp_path):
    s = Settings.load(tmp_path)
    assert s.name == ""
    s.name = "Marco"
    s.save()
    assert Settings.load(tmp_path).name == "Marco"
    (tmp_path / "play.json").write_text("{broken")
    assert Settings.load(tmp_path).name == ""


def test_footer_counts_down_the_turn_time_only_while_it_runs():
    """protocol.md §C8.3: while the game waits for our decision the footer shows the seconds left
    of the turn time (the others vote our seat out when it ends); local games have none."""
    from ui.play import LocalGame
    from ui.screens.game import GameScreen

    local = LocalGame(["Marco", "Bot 1"], 0, delay=0)
    assert local.turn_left() is None
    assert " s left" not in GameScreen(local).footer_text()

    class Timed(LocalGame):
        def turn_left(self):
            return 42.4

    assert "42 s left" in GameScreen(Timed(["Marco", "Bot 1"], 0, delay=0)).footer_text()


def test_italian_prepositions_fold_with_the_name(italian):
    """"a la banca" -> "alla banca", "a Anna" -> "ad Anna" (issue 11, defect 6)."""
    from engine.events import WentBankrupt

    n = Narrator(engine.EDITIONS["classico"], ("Anna", "Bruno"))
    lines = n.lines([TurnStarted(0), MoneyPaid(1, -1, 5, "fine"), MoneyPaid(1, 0, 20, "card"),
                     WentBankrupt(1, -1)])
    assert lines == ["— Tocca ad Anna —", "Bruno paga €5 alla banca", "Bruno paga €20 ad Anna",
                     "Bruno va in bancarotta; tutto va alla banca"]


def test_every_bid_of_a_round_stays_in_the_log(italian):
    """The engine tells every bid of an auction step (BidOffered for the beaten or tied ones,
    then BidPlaced or AuctionTied), so everybody's log shows "Anna offre €120" before "Bruno
    offre €130" (issue 11, defect 9), and a tie and its roll (engine.rules.auction)."""
    from engine.events import (AuctionStarted, AuctionTied, AuctionTieRolled, BidOffered,
                               BidPlaced)
    from ui.play import OwnInput

    n = Narrator(engine.EDITIONS["classico"], ("Anna", "Bruno"), me=1)
    lines = n.lines([AuctionStarted(3, "property"), OwnInput(1, A.Bid(130)), BidOffered(0, 120),
                     BidPlaced(1, 130), BidOffered(0, 140), BidOffered(1, 140), AuctionTied((0, 1), 140),
                     AuctionTieRolled((0, 1), (8, 5))])
    assert lines == ["Asta per Vicolo Stretto", "Anna offre €120", "Bruno offre €130", "Anna offre €140",
                     "Bruno offre €140", "Parità a €140 tra Anna, Bruno: si rilancia",
                     "Spareggio ai dadi: Anna 8, Bruno 5"]


def test_seat_changes_are_a_log_line_and_a_panel_mark(italian):
    """Every seat change the session reports (p2p.lockstep SeatDropVoted, SeatDropped,
    SeatLost) is a line in the log and a mark for the players panel (issue 11)."""
    from p2p.lockstep import SeatDropped, SeatDropVoted, SeatLost
    from ui.play import NetGame
    from ui.widgets.players import seat_change_mark

    game = NetGame({"role": "join", "name": "Anna"})
    game.seat, game.names = 0, ("Anna", "Bruno", "Carla")
    kinds: list[str] = []
    game.listener = kinds.append
    game.observe(SeatDropVoted(12, 1))
    game.observe(SeatDropped(12, 1, "bot", True))
    game.observe(SeatDropped(30, 2, "bankrupt", False))
    assert kinds == ["step"] * 3
    assert game.seat_changes == {1: "bot", 2: "bankrupt"}
    n = Narrator(engine.EDITIONS["classico"], game.names, me=0)
    assert n.lines(game.take_events()) == [
        "Bruno: nessuna risposta da troppo tempo; voto per continuare la partita senza",
        "Bruno: connessione persa, gioca il bot", "Carla: connessione persa, il posto va in bancarotta"]
    assert seat_change_mark("bot") == "connessione persa, gioca il bot"
    game.observe(SeatLost(40))
    assert game.seat_changes[0] == "lost"
    assert n.lines(game.take_events()) == [
        "Gli altri hanno perso il contatto con te e hanno tolto il tuo posto dal gioco: ora guardi la partita."]


def test_magnifier_setting_decides_which_windows_are_offered():
    """niente-e-come-sembra: "ask" offers every window, "mine" only payments made to us (and
    cards), "never" none — the window then passes with "nothing" at once (issue 11)."""
    from ui.play import inspect_wanted

    st = scenario(3, edition="niente-e-come-sembra", window=[(1, 2, 7)])  # seat 1 paid seat 2 with bill 7
    assert inspect_wanted(st, 0, "ask") and inspect_wanted(st, 2, "mine")
    assert not inspect_wanted(st, 0, "mine") and not inspect_wanted(st, 2, "never")
    st = scenario(3, edition="niente-e-come-sembra", card_in_use=(1, 1, 5, -1))  # a card being used
    assert inspect_wanted(st, 0, "mine")
    seat = HumanSeat()
    assert [seat.cycle_inspect() for _ in range(3)] == ["mine", "never", "ask"]


def test_a_paced_bot_thinks_before_the_decisions_the_game_waits_for():
    seat = HumanSeat(pace=0.01)
    seat.set_autoplay(True)
    st = scenario(2)  # seat 0 must roll
    assert seat.decide(st, 1) is None  # not asked: answers at once
    answer = seat.decide(st, 0)
    assert asyncio.iscoroutine(answer)
    assert isinstance(asyncio.run(answer), A.RollDice)


def test_a_seat_voted_silent_that_sends_again_is_back_in_the_log_and_the_panel():
    """issue 11: every seat change is a log line and a panel mark — a seat we voted on as silent
    is marked "silent"; the next applied step without its drop means its message was there:
    a "back" line, and the mark goes (protocol.md Part U, §C8.3)."""
    from types import SimpleNamespace

    from p2p.session_events import SeatDropVoted, StepApplied
    from ui.play import NetGame, SeatChanged

    import asyncio

    game = NetGame(dict(role="join", name="Marco"))
    game.node = SimpleNamespace(session=SimpleNamespace(state="s"))
    game.observe(SeatDropVoted(7, 2))
    assert game.seat_changes == {2: "silent"}

    async def step() -> None:  # the driver reads the loop clock when a step applies
        game.observe(StepApplied(7, "decision", (), b"h" * 32))

    asyncio.run(step())
    assert game.seat_changes == {}
    assert [(e.seat, e.change) for e in game.take_events() if isinstance(e, SeatChanged)] == [(2, "silent"), (2, "back")]
