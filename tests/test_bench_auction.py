"""bench/bench_auction.py's counterfactual (issue 10): replaying an auction from a copy of the
state reproduces the real one when nothing is swapped, and on the same lot the cheating
bidders never pay less than the honest bot (a property of the bot's bidding, engine.bots
``on_auction``: the winner pays the best rival ceiling + €1 whatever it bids first)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import bench_auction as ba  # noqa: E402

SEEDS = [(3, 0), (3, 1), (4, 2), (4, 5), (3, 7)]


@pytest.mark.parametrize("seats,seed", SEEDS)
def test_an_unswapped_fork_replays_the_real_auction(seats, seed):
    r = ba.play(seats, seed, "honest", False, (("honest", False),))
    lots = r["lots"][("honest", False)]
    assert lots, "the seeded game has auctions the seat takes part in"
    for _price, real, alt in lots:
        assert real == alt


@pytest.mark.parametrize("seats,seed", SEEDS)
@pytest.mark.parametrize("cheat", ba.CHEATS)
def test_a_cheat_pays_what_the_honest_bot_pays_for_the_same_lot(seats, seed, cheat):
    for game, alt, first in ((ba.play(seats, seed, "honest", False, (cheat,)), cheat, False),
                             (ba.play(seats, seed, cheat[0], cheat[1], (("honest", False),)),
                              ("honest", False), True)):
        x = ba._same_lot(game["lots"][alt], game["me"], first)
        for c, h in x["both"]:
            assert c >= h
        assert not x["cheat"], "a cheat never wins a lot the honest bot in its seat would lose"


def test_same_lot_splits_by_who_wins():
    lots = [[100, (0, 50), (0, 40)], [200, (0, 100), (1, 120)], [100, (2, 30), (0, 60)],
            [100, (1, 10), (1, 10)]]
    assert ba._same_lot(lots, 0, True) == {"both": [(0.5, 0.4)], "cheat": [0.5], "honest": [0.6]}
    assert ba._same_lot(lots, 0, False) == {"both": [(0.4, 0.5)], "cheat": [0.6], "honest": [0.5]}
