"""The end screen of a game that ended as abandoned (protocol.md §C8.7) says so, with the step
and who signed ABANDON, in the words ``lanopoli host``/``join`` print (ui/peer.py print_result);
a game that ended normally names its winner and no abandonment."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from textual.app import App

import engine
from pilot_support import sync, until
from ui.i18n import set_language
from ui.screens import EndScreen

NAMES = ("Carla", "Bot 1", "Bot 2", "Dario")


def driver(abandoned):
    return SimpleNamespace(fault=None, state=engine.new_game("classico", 4), names=NAMES, abandoned=abandoned,
                           spectator=False, log_path=None)


async def end_text(d) -> str:
    app = App()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(EndScreen(d))
        await until(pilot, lambda: isinstance(app.screen, EndScreen))
        return " ".join(str(w.render()) for w in app.screen.query("Label"))


@pytest.mark.parametrize("lang, line", [
    ("en", "The game was abandoned at step 14 by Dario (seat 4): no winner."),
    ("it", "La partita è stata abbandonata al passo 14 da Dario (posto 4): nessun vincitore."),
])
@sync
async def test_the_end_screen_of_an_abandoned_game_says_so(lang, line):
    set_language(lang)
    try:
        text = await end_text(driver({"seat": 3, "step": 14}))
    finally:
        set_language("en")
    assert line in text
    assert "wins!" not in text
    assert ("Standings when the game stopped:" if lang == "en" else "Classifica al momento dello stop:") in text


@sync
async def test_a_game_not_abandoned_says_nothing_about_abandonment():
    set_language("en")
    d = driver(None)
    d.state = engine.new_game("classico", 2)
    d.state.out[1] = 1  # one player left: seat 0 wins
    d.names = NAMES[:2]
    text = await end_text(d)
    assert "abandoned" not in text
    assert "Final standings:" in text


@pytest.mark.parametrize("lang, line", [
    ("en", "The game was abandoned at step 14: the other players stopped answering and too few were left to go "
           "on without them, so your program stopped waiting. No winner."),
    ("it", "La partita è stata abbandonata al passo 14: gli altri giocatori hanno smesso di rispondere e non ne "
           "restavano abbastanza per continuare senza di loro, quindi il tuo programma ha smesso di aspettare."),
])
@sync
async def test_our_own_abandon_is_not_told_as_if_we_had_left(lang, line):
    """Session 11's walk (H108): the host quit with its bots, the joiner Dario waited alone (no
    quorum to vote three silent seats out) until his program signed ABANDON (§C8.7, §N5 stall
    limit); his end screen read "abandoned at step 14 by Dario (seat 4)", as if he had left."""
    d = driver({"seat": 3, "step": 14})
    d.seat = 3
    set_language(lang)
    try:
        text = await end_text(d)
    finally:
        set_language("en")
    assert line in text and "Dario (" not in text.split("\n")[0]


def test_a_held_turn_is_named_not_explained_as_silence(english):
    """protocol.md §C8.3 'Where no drop is possible' (H177, RV16R-B F3): when a seat held its turn
    past ABANDON_STEPS_PER_TURN, the line names that seat, whoever signed the ABANDON, instead of
    "the other players stopped answering" (our program) or blaming the honest signer."""
    from p2p.session_turn_clock import ABANDON_STEPS_PER_TURN
    from ui.display import abandoned_text

    names = ("Anna", "Bruno", "Carla")
    reason = f"seat 1 held its turn {ABANDON_STEPS_PER_TURN + 1} steps, over the bound of " \
             f"{ABANDON_STEPS_PER_TURN} where no drop is possible"
    for signer in (0, 2):  # our own program, or another honest peer's ABANDON
        line = abandoned_text({"seat": signer, "step": 340, "reason": reason}, names, me=0)
        assert "Bruno (seat 2) held its turn over 320 steps" in line and "stopped answering" not in line
    silent = abandoned_text({"seat": 0, "step": 340, "reason": ""}, names, me=0)
    assert "stopped answering" in silent


def test_a_held_turn_in_italian(italian):
    from ui.display import abandoned_text

    line = abandoned_text({"seat": 0, "step": 9, "reason": "seat 1 held its turn 321 steps, over the bound of 320 "
                           "where no drop is possible"}, ("Anna", "Bruno"), me=0)
    assert "Bruno" in line and "ha tenuto il turno per più di 320 passi" in line
