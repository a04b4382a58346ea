"""What a newcomer reads on the command line (H60's fresh-clone walk, session 6).

* ``lanopoli demo --peers 8 --edition niente-e-come-sembra`` (an edition for 2-6 players) used to
  end with the engine's English ``seats must be 2..6`` inside an Italian usage error; the check
  is now in ``ui.peer.game_options`` and says the edition's range in the user's language.
* Durations in messages: Italian writes the decimal comma, so "3.765 s" (the dot is the
  thousands separator of ``format_money``) read like an hour; ``ui.i18n.format_seconds``.
"""

from __future__ import annotations

import argparse

import pytest

import engine
from ui.errors import UsageError
from ui.i18n import format_seconds, set_language
from ui.peer import HumanProgress, game_options


@pytest.fixture(autouse=True)
def _english_after():
    yield
    set_language("en")


def _demo_args(peers: int, edition: str) -> argparse.Namespace:
    return argparse.Namespace(peers=peers, edition=edition, free_parking_pot=False, no_auctions=False,
                              double_go=False, timed=None)


@pytest.mark.parametrize("edition", sorted(engine.EDITIONS))
def test_every_seat_count_of_an_edition_is_accepted_and_one_more_is_refused_in_italian(edition):
    ed = engine.EDITIONS[edition]
    for seats in range(ed.min_players, ed.max_players + 1):
        assert game_options(_demo_args(seats, edition)) == {}
    if ed.max_players < 8:  # the CLI's own limit is 8 (``--peers 2-8``)
        set_language("it")
        with pytest.raises(UsageError) as err:
            game_options(_demo_args(ed.max_players + 1, edition))
        text = str(err.value)
        assert f"l'edizione {edition} è per {ed.min_players}–{ed.max_players} giocatori" in text
        assert "seats must be" not in text


def test_the_seat_range_message_in_english():
    ed = engine.EDITIONS["niente-e-come-sembra"]
    with pytest.raises(UsageError, match=f"is for {ed.min_players} to {ed.max_players} players, not 8"):
        game_options(_demo_args(8, "niente-e-come-sembra"))


@pytest.mark.parametrize("lang, seconds, text", [
    ("it", 3.765, "3,8"), ("it", 0, "0,0"), ("it", 1234.56, "1234,6"),
    ("en", 3.765, "3.8"), ("en", 0.04, "0.0"),
])
def test_format_seconds_uses_the_language_s_decimal_mark(lang, seconds, text):
    set_language(lang)
    assert format_seconds(seconds) == text


def test_the_found_line_shows_seconds_with_a_decimal_comma_in_italian(capsys):
    set_language("it")
    HumanProgress(seats=4)({"type": "found", "peers": 4, "elapsed_s": 3.765})
    err = capsys.readouterr().err
    assert "(4, in 3,8 s)" in err, err


@pytest.mark.parametrize("lang", ["it", "en"])
def test_an_auction_won_is_told_once_not_again_as_a_purchase(lang):
    """Seen at 80x24: "Bot 2 si aggiudica Società Elettrica all'asta per €165" and on the next
    line "Bot 2 compra Società Elettrica per €165" (the engine emits AuctionEnded and
    PropertyBought): one line now. A purchase after landing is still told, also by the seat that
    won an auction earlier."""
    from engine.events import AuctionEnded, Moved, PropertyBought
    from ui.narrate import Narrator

    set_language(lang)
    n = Narrator(engine.EDITIONS["classico"], ("Anna", "Bruno"))
    won = n.lines([AuctionEnded(12, 1, 165), PropertyBought(1, 12, 165)])
    assert won == {"it": ["Bruno si aggiudica Società Elettrica all'asta per €165"],
                   "en": ["Bruno wins Società Elettrica at auction for €165"]}[lang]
    later = n.lines([Moved(1, 12, 15), PropertyBought(1, 15, 200)])
    assert len(later) == 2 and later[1] == {"it": "Bruno compra Stazione Ovest per €200",
                                            "en": "Bruno buys Stazione Ovest for €200"}[lang]


@pytest.mark.parametrize("lang", ["it", "en"])
def test_a_joiner_s_end_lines_say_the_game_was_abandoned(lang, capsys):
    """Seen with `join` after the host's process died with its two bots: the game ended
    abandoned and the peer printed only "Vincitore: nessuno"; now also the reason, in the words
    `lanopoli verify` uses (protocol.md §C8.7)."""
    from p2p.node_config import PeerResult
    from ui.peer import print_result

    set_language(lang)
    names = ("Carla", "Dario", "Bot 1", "Bot 2")
    print_result(PeerResult(final_state_hash=bytes(32), winner=None, steps=14, log_path=None, seat=1,
                            events_by_type={}, names=names, abandoned={"seat": 1, "step": 14}))
    out = capsys.readouterr().out
    # Our own seat signed it (the stall limit, §N5): the line says our program stopped waiting (H108),
    # not "by Dario (seat 2)" as if Dario had left.
    assert {"it": "La partita è stata abbandonata al passo 14: gli altri giocatori hanno smesso di rispondere",
            "en": "The game was abandoned at step 14: the other players stopped answering"}[lang] in out, out
    print_result(PeerResult(final_state_hash=bytes(32), winner=None, steps=14, log_path=None, seat=0,
                            events_by_type={}, names=names, abandoned={"seat": 1, "step": 14}))
    assert {"it": "La partita è stata abbandonata al passo 14 da Dario (posto 2): nessun vincitore.",
            "en": "The game was abandoned at step 14 by Dario (seat 2): no winner."}[lang] in capsys.readouterr().out
    print_result(PeerResult(final_state_hash=bytes(32), winner=0, steps=300, log_path=None, seat=1,
                            events_by_type={}, names=names))
    assert "abbandonata" not in capsys.readouterr().out


def test_the_reconnect_wait_line_reads_for_several_seats_in_italian():
    """'in attesa che Bot 1 (posto 3), Bot 2 (posto 4) si riconnetta': a singular verb for two
    seats; the Italian line names the reconnection instead (one wording for one or many)."""
    from ui.i18n import _

    set_language("it")
    text = _("step {step}: waiting for {seats} to reconnect ({waited} s)")
    assert text == "passo {step}: in attesa della riconnessione di {seats} ({waited} s)"


def test_a_headless_host_prints_the_join_code_play_takes(capsys):
    """`lanopoli host` printed only 'Game <id> advertised on ADDR:PORT': without mDNS a player
    of `lanopoli play` had no code to type under "Indirizzo" (the waiting room of `play` shows
    one). The hosting line is followed by the same code (protocol.md §N3.1), and the code reads
    back to the host's address, port and tag."""
    from p2p.identity import Identity
    from p2p.join_code import join_code_tag, parse_code_tag

    ident = Identity.generate()
    gid = bytes(range(16))
    HumanProgress(seats=3, host_key=ident.public_key)(
        {"type": "hosting", "game_id": gid.hex(), "address": "192.168.1.20", "port": 40000})
    err = capsys.readouterr().err
    code = err.strip().splitlines()[-1].rsplit(" ", 1)[-1]
    assert code.startswith("192.168.1.20:40000/"), err
    assert parse_code_tag(code.split("/", 1)[1]) == join_code_tag(gid, ident.public_key)
    HumanProgress(seats=3)({"type": "hosting", "game_id": gid.hex(), "address": "192.168.1.20", "port": 40000})
    assert "/" not in capsys.readouterr().err.split("40000", 1)[1]  # a joiner has no code to show
