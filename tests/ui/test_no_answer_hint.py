"""A joiner the host never answers (a mistyped join code, a wrong port, a host gone) stops with
``ui.display.NO_ANSWER`` after JOIN_TIMEOUT; the command line then says what to check, in Italian
by default (H101's walk: a student who mistyped the code read only "La partita non è potuta
cominciare" and an English detail)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ui.display import NO_ANSWER, fault_hint

from test_same_key_hint import join_by_code, stops_with  # noqa: F401  (stops_with: a fixture)

ROOT = Path(__file__).resolve().parents[2]


def test_the_reason_is_the_lobbys_own():
    assert f'self.abort("{NO_ANSWER}")' in (ROOT / "p2p" / "lobby.py").read_text(encoding="utf-8")


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
