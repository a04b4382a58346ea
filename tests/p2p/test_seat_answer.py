"""p2p/seat_answer.py: who answers for our seat (issue 13: one policy for p2p/node.py and
ui/play.py). Order: the timed-game vote (protocol.md §N8) unless a local player is deciding,
then the bot: a configured bot function as given, else the edition's bot with our private
view (§C12.7)."""

import engine
from engine.actions import TimeUp
from engine.testing import scenario
from p2p.seat_answer import SeatAnswer

TIMED = {"timed_minutes": 1}


def test_the_edition_bot_is_engine_choose_with_our_private_view():
    s = scenario(3, edition="editrice-giochi")  # seat 0 to roll
    seen = []

    def view():
        seen.append(True)
        return {}

    answer = SeatAnswer("default")
    assert not answer.custom
    assert answer.bot(s, 0, view) == engine.choose(s, 0, "default", {})
    assert seen == [True]  # the view is read only when the bot decides
    assert answer.bot(s, 0) == engine.choose(s, 0, "default", None)


def test_a_configured_bot_function_is_used_as_given():
    calls = []

    def choose(state, seat, bot):
        calls.append((seat, bot))
        return "mine"

    answer = SeatAnswer("cauto", choose)
    assert answer.custom
    assert answer.bot(object(), 2, lambda: {"never": "read"}) == "mine"
    assert calls == [(2, "cauto")]


def test_timed_vote_after_the_agreed_time_unless_a_local_player_decides_this_step():
    """§N8: TimeUp once our clock passed the agreed time, counted from when our game started;
    a human deciding the step keeps it."""
    s = scenario(3, edition="editrice-giochi", options=TIMED)
    answer = SeatAnswer()
    assert answer.timed_vote(engine, s, 1, 1e9, False) is None  # untimed until a game starts
    answer.start_clock(TIMED, 100.0)
    assert answer.timed_vote(engine, s, 1, 159.0, False) is None
    assert answer.timed_vote(engine, s, 1, 160.0, True) is None
    assert answer.timed_vote(engine, s, 1, 160.0, False) == TimeUp()
