"""A joiner the host never answers (a mistyped join code, a wrong port, a host gone) stops with
``p2p.lobby.NO_ANSWER`` after JOIN_TIMEOUT; the command line then says what to check, in Italian
by default (H101's walk: a student who mistyped the code read only "La partita non è potuta
cominciare" and an English detail)."""

from __future__ import annotations

import pytest

from p2p import const as C
from p2p.identity import Identity
from p2p.lobby import ABORTED, NO_ANSWER, Lobby, LobbyAborted
from ui.display import fault_hint

from test_same_key_hint import join_by_code, stops_with  # noqa: F401  (stops_with: a fixture)


def test_the_reason_is_the_lobbys_own():
    """§N3.1: a joiner by code whose PROBEs nobody answers aborts at JOIN_TIMEOUT with NO_ANSWER."""
    lob = Lobby.join(Identity.from_seed(b"h110-no-answer"), endpoint=("10.0.0.2", 5000),
                     host_addr=("10.0.0.1", 5000), game_id=None,
                     name="j", chain_length=8, now=0.0, code_tag=1)
    lob.handle_timer(C.JOIN_TIMEOUT - 0.01)
    assert lob.phase != ABORTED
    lob.handle_timer(C.JOIN_TIMEOUT)
    events = []
    while (ev := lob.next_event()) is not None:
        events.append(ev)
    assert LobbyAborted(NO_ANSWER) in events


@pytest.mark.parametrize("lang, words", [(None, "Chi ha creato la partita non ha risposto"),
                                         ("en", "The host did not answer")])
def test_a_joiner_nobody_answers_is_told_what_to_check(capsys, stops_with, tmp_path, lang, words):  # noqa: F811
    stops_with.append(NO_ANSWER)
    status, err = join_by_code(capsys, tmp_path, lang)
    assert status == 1
    assert any(words in line for line in err.splitlines()), err
    assert "--config-dir" not in err


def test_only_that_lobby_fault_gets_it():
    assert fault_hint("lobby", NO_ANSWER) is not None
    assert fault_hint("timeout", NO_ANSWER) is None and fault_hint("lobby", "the lobby is full") is None
