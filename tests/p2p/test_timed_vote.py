"""Dropped seats in a timed game (protocol.md §C8.4, protocol.md part E "TimeUp contract"): the filled input
of a dropped seat is TimeUp once a strict majority of the present seats voted, else its bot's."""
from engine import new_game
from engine.actions import TimeUp
from engine.testing import scenario, step
from p2p.drop_rules import dropped_input


def _bot(state, seat):
    return ("bot", seat)


def test_dropped_seat_votes_with_a_majority_of_the_present_seats():
    s = scenario(5, edition="editrice-giochi", options={"timed_minutes": 1})
    dropped = {3, 4}
    assert dropped_input(_bot, s, 3, dropped) == ("bot", 3)
    s, _ = step(s, seat0=TimeUp())
    assert dropped_input(_bot, s, 3, dropped) == ("bot", 3)  # 1 of 3 present seats
    s, _ = step(s, seat2=TimeUp())
    assert dropped_input(_bot, s, 3, dropped) == TimeUp()
    assert dropped_input(_bot, s, 4, dropped) == TimeUp()


def test_untimed_game_and_foreign_states_get_the_bot():
    s = new_game("classico", 3)
    assert dropped_input(_bot, s, 2, {2}) == ("bot", 2)
    assert dropped_input(_bot, object(), 1, {1}) == ("bot", 1)
