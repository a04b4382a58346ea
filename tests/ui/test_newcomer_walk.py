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
