"""What the session-4 newcomer walk (issue 11: tmux at 80x24, 120x40, 160x50, Italian and
English) found in the game log, each checked in both languages."""

from __future__ import annotations

import pytest

import engine
from engine.events import SentToJail
from ui.i18n import set_language
from ui.narrate import Narrator


@pytest.fixture(params=["it", "en"])
def lang(request):
    set_language(request.param)
    yield request.param
    set_language("en")


def test_three_doubles_say_why_the_player_goes_to_jail(lang):
    """Seen watching at 120x40: "Bot 2 rolls 6 and 6" then "Bot 2 goes to jail", which reads as
    if a 12 led to jail. The third double now says so (engine SentToJail.why == "doubles", the
    rulebooks' "tre volte di seguito un doppio"); a jail by square or card keeps the short line
    (the move or the card is the line before it)."""
    n = Narrator(engine.EDITIONS["classico"], ("Anna", "Bruno"))
    lines = n.lines([SentToJail(1, "doubles"), SentToJail(0, "square")])
    assert lines == {"it": ["Bruno va in prigione: tre doppi di fila", "Anna va in prigione"],
                     "en": ["Bruno goes to jail: three doubles in a row", "Anna goes to jail"]}[lang]


@pytest.mark.parametrize("screen", ["lobby", "watch"])
def test_a_classico_row_shows_its_address_whole_at_80_columns(screen, tmp_path, lang):
    """Seen in the lobby at 80x24: "Giulia classico 4/4 Bot 1, Bot 2, G… in corso, turno 5
    127.0.0.1:3434" — the port cut by one digit, so a wrong address. The lobby's state is short
    now ("turno 5"); the watch list puts the address before the long standings. Checked: the
    columns up to the address fit the table's width."""
    import asyncio

    from p2p.const import PROTOCOL_VERSION
    from p2p.ad_record import GameAd, Standings
    from ui.app import LanopoliApp
    from ui.backends import LocalLobby, Settings

    ad = GameAd(version=PROTOCOL_VERSION, game_id=bytes([3]) * 16, edition="classico", seats_taken=4, seats_total=4,
                state="running", fingerprint="ab" * 8, address="192.168.100.200", port=34346, host_name="Giulia",
                players=("Bot 1", "Bot 2", "Giulia", "Bot 3"), standings=Standings(5, 2, (1500, 1525, 1500, 1550)),
                watch_port=34347)
    app = LanopoliApp(backend=LocalLobby([ad]), settings=Settings(name="Anna", path=tmp_path / "p.json"),
                      watch=screen == "watch")

    async def run():
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.2)
            table = app.screen.query_one("#games")
            labels = [str(c.label) for c in table.columns.values()]
            where = labels.index({"it": "Dove", "en": "Where"}[lang])
            widths = [c.get_render_width(table) for c in table.columns.values()]
            row = [str(c) for c in table.get_row_at(0)]
            return row[where], sum(widths[: where + 1]), table.size.width

    address, used, room = asyncio.run(run())
    assert address == "192.168.100.200:34346" and used <= room, (used, room)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_niente_keeps_quit_on_the_bottom_line_and_the_magnifier_legend_whole(size, lang):
    """Seen in niente-e-come-sembra at 80x24: "Tu: €1.500 · Tocca a Bot 3 · ancora 298 s · l:
    lente sempre · a: gioca il bot" — "q: esci" cut off, and the players panel's "Lenti: ● può
    ispezionare … (torna verde al" cut too. The magnifier setting leaves the bottom line when it
    does not fit (the legend, "?", names the l key) and the panel's legend takes a short form."""
    import asyncio

    from engine.testing import scenario
    from ui.app import LanopoliApp
    from ui.play import LocalGame
    from ui.widgets import PlayersPanel

    game = LocalGame(("Carla", "Bot 1", "Bot 2", "Bot 3"), 0, state=scenario(4, edition="niente-e-come-sembra",
                                                                            current=3), delay=0)
    app = LanopoliApp(driver=game)

    async def run():
        async with app.run_test(size=size) as pilot:
            for _ in range(100):
                if type(app.screen).__name__ == "GameScreen":
                    break
                await pilot.pause(0.05)
            await pilot.pause(0.2)
            panel = app.screen.query_one(PlayersPanel)
            lines = panel.render().plain.split("\n")
            return app.screen.footer_text(), lines, panel.size.width

    footer, panel_lines, panel_width = asyncio.run(run())
    quit_key = {"it": "q: esci", "en": "q: quit"}[lang]
    assert footer.endswith(quit_key) and len(footer) <= size[0]
    legend = next(line for line in panel_lines if "●" in line and "·" in line)
    assert len(legend) <= panel_width


def test_the_rent_of_a_landing_is_told_before_the_next_turns_line(lang):
    """Session 10's walk: "— Tocca a Bot 3 —" then "Bot 2 riscuote l'affitto: ...": the owner
    claims in the step after the landing (engine.rules.rent: until "il giocatore successivo
    abbia lanciato i dadi"), and the landing's step already starts the next turn. The narrator
    holds the turn line until the claim, the lapse or the debt of that rent (Narrator.lines);
    a rent paid within its own turn reads as before; a debt holds the line until it is paid (H130:
    the next player cannot roll meanwhile); a claim after the held line was let out
    (Narrator.flush, or any other line) says the owner claims it. On the network the claim goes
    with the next player's decision (HumanSeat claims at once, the step waits for the roll), so
    the line is held until that player decides; the board's centre and the bottom line say
    whose turn it is meanwhile."""
    from engine.events import DebtOpened, DiceRolled, MoneyPaid, PropertyMortgaged, RentDue, RentLapsed, TurnStarted

    n = Narrator(engine.EDITIONS["classico"], ("Anna", "Bruno", "Carla"))
    steps = [[RentDue(0, 1, 9, 6), TurnStarted(2)],  # Bruno lands on Anna's Viale Vesuvio; Carla's turn
             [MoneyPaid(1, 0, 6, "rent")],  # Anna's claim, one step later
             [RentDue(0, 2, 9, 6), MoneyPaid(2, 0, 6, "rent")],  # Carla rolled a double: her own turn
             [RentDue(1, 2, 6, 6), TurnStarted(0)],  # Carla on Bruno's square; Anna's turn
             [RentLapsed(1, 2, 6), DiceRolled(0, 1, 2)],  # Bruno never asked; Anna rolls
             [RentDue(0, 1, 9, 6), TurnStarted(2)],
             [DebtOpened(1, 0, 6)],  # Bruno cannot pay: the debt of that rent comes first,
             [PropertyMortgaged(1, 6), MoneyPaid(1, 0, 6, "rent")],  # and its payment (H130)
             [RentDue(0, 1, 9, 6), TurnStarted(2)],
             [DiceRolled(2, 3, 4)], [MoneyPaid(1, 0, 6, "rent")]]  # Carla's roll let the turn line out
    lines = [n.lines(batch) for batch in steps]
    assert lines == {
        "it": [[], ["Bruno paga €6 di affitto ad Anna per Viale Vesuvio", "— Tocca a Carla —"],
               ["Carla paga €6 di affitto ad Anna per Viale Vesuvio"], [],
               ["Bruno non ha chiesto in tempo l'affitto di Bastioni Gran Sasso", "— Tocca ad Anna —",
                "Anna tira 1 e 2"], [],
               ["Bruno deve €6 ad Anna (affitto di Viale Vesuvio) e non ha abbastanza contanti: vendere, ipotecare "
                "o dichiarare bancarotta"],
               ["Bruno ipoteca Bastioni Gran Sasso", "Bruno paga €6 di affitto ad Anna per Viale Vesuvio",
                "— Tocca a Carla —"], [],
               ["— Tocca a Carla —", "Carla tira 3 e 4"],
               ["Anna riscuote l'affitto: Bruno paga €6 per Viale Vesuvio"]],
        "en": [[], ["Bruno pays €6 rent to Anna for Viale Vesuvio", "— Carla's turn —"],
               ["Carla pays €6 rent to Anna for Viale Vesuvio"], [],
               ["Bruno did not ask for the rent of Bastioni Gran Sasso in time", "— Anna's turn —",
                "Anna rolls 1 and 2"], [],
               ["Bruno owes €6 to Anna (rent for Viale Vesuvio) and lacks the cash: sell, mortgage or declare "
                "bankruptcy"],
               ["Bruno mortgages Bastioni Gran Sasso", "Bruno pays €6 rent to Anna for Viale Vesuvio",
                "— Carla's turn —"], [],
               ["— Carla's turn —", "Carla rolls 3 and 4"],
               ["Anna claims the rent: Bruno pays €6 for Viale Vesuvio"]],
    }[lang]
    # Two steps in one batch (the screen redraws every REDRAW_S), another seat's line in the claim's
    # step (the snapshot game: Anna lifts a mortgage while Luca claims): the claim still comes first.
    from engine.events import MortgageLifted

    both = n.lines([RentDue(0, 1, 9, 6), TurnStarted(2), MoneyPaid(2, -1, 55, "lift"), MortgageLifted(2, 16),
                    MoneyPaid(1, 0, 6, "rent"), TurnStarted(0), DiceRolled(0, 1, 1)])
    assert both[:2] == {"it": ["Bruno paga €6 di affitto ad Anna per Viale Vesuvio", "— Tocca a Carla —"],
                        "en": ["Bruno pays €6 rent to Anna for Viale Vesuvio", "— Carla's turn —"]}[lang]
    assert len(both) == 5 and "Via Verdi" in both[2] and "Anna" in both[3]
    n.lines([RentDue(0, 1, 9, 6), TurnStarted(2)])
    assert n.holding and n.flush() == [{"it": "— Tocca a Carla —", "en": "— Carla's turn —"}[lang]]
    assert not n.holding and n.flush() == []
