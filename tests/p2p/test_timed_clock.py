"""The node's clock for a timed game (protocol.md §N8): the duration from the setup options,
fractions of a minute, and when our seat sends its one TimeUp vote."""
import pytest

import engine
from engine.actions import RollDice, TimeUp
from engine.testing import scenario, step
from p2p import const as C
from p2p.timed_clock import TimeKeeper, check_timed_options, time_limit_s, timed_options

TIMED = {"timed_minutes": 1}


def test_timed_options_whole_and_fractional_minutes():
    assert timed_options(90) == {"timed_minutes": 90}
    assert timed_options(0.05) == {"timed_minutes": 1, C.OPT_TIMED_MS: 3000}
    assert time_limit_s(timed_options(0.05)) == 3.0 and time_limit_s({"timed_minutes": 2}) == 120.0
    assert time_limit_s({}) is None and time_limit_s({"timed_minutes": 0}) is None
    for bad in (0, -1, 1441, float("nan")):
        with pytest.raises(ValueError):
            timed_options(bad)
    assert check_timed_options({"timed_minutes": 2, C.OPT_TIMED_MS: 3000}) is not None
    assert check_timed_options({"timed_minutes": 1, C.OPT_TIMED_MS: 3000}) is None


def test_vote_once_after_the_deadline_and_only_when_silence_costs_nothing():
    s = scenario(3, edition="editrice-giochi", options=TIMED)  # seat 0 to roll
    clock = TimeKeeper(TIMED, now=100.0)
    assert not clock.due(engine, s, 0, 159.0)  # 60 s not yet passed
    assert clock.due(engine, s, 0, 160.0)  # our roll only waits a step
    assert clock.due(engine, s, 1, 160.0)  # not an actor
    s, _ = step(s, seat1=TimeUp())
    assert not clock.due(engine, s, 1, 161.0) and clock.done  # voted: never again
    s, _ = step(s, seat0=RollDice())  # chance step next: no vote there
    other = TimeKeeper(TIMED, now=0.0)
    assert not other.due(engine, s, 2, 999.0) and not other.done


def test_untimed_game_never_votes():
    s = scenario(2, edition="editrice-giochi")
    clock = TimeKeeper({}, now=0.0)
    assert clock.done and not clock.due(engine, s, 0, 1e9)
