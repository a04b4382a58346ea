"""``SeatLoss.past_drop`` (protocol.md §C8.3 ``SeatLost``, §C6 DROP record): a DROP record from a
catch-up page, decoded with the table ``gamelog.DROP_RECORD``, names a past drop only with a
quorum of valid votes of other seats; anything else (malformed, out of range, a voter seat the
game does not have) is None, never an exception."""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p.escrow import drop_record
from p2p.identity import Identity
from p2p.schema import pack
from p2p.wire import MSG_DROP, DropVote, seal_message

from p2p_harness import make_lobbies, pump_lobbies

N = 3


@pytest.fixture(scope="module")
def seats():
    lobbies = make_lobbies(N)
    pump_lobbies(lobbies)
    lobby = min(lobbies.values(), key=lambda l: l.my_seat)
    return lobby.start_session(E).seats


def vote(seats, voter: int, step: int = 1, seat: int = 2) -> bytes:
    """A DROP vote signed by the player of seat ``voter`` (the harness's identities are
    from_seed(bytes([i])), seats in the setup's order); beyond the game, by a stranger."""
    ids = [Identity.from_seed(bytes([i])) for i in range(N)]
    keys = [p.public_key for p in seats.setup.players]
    who = next((i for i in ids if i.public_key == keys[voter]), None) if voter < N else Identity.from_seed(b"x")
    return seal_message(who, MSG_DROP, DropVote(seats.setup.game_id, voter, step, seat, 0, None))


def test_a_quorum_of_valid_votes_names_the_past_drop(seats):
    assert seats.past_drop(drop_record(1, 2, [vote(seats, 0), vote(seats, 1)], None), applied=5) == (1, 2)


def test_fewer_than_a_quorum_is_not_a_drop(seats):
    assert seats.past_drop(drop_record(1, 2, [vote(seats, 0)], None), applied=5) is None


def test_a_vote_of_a_seat_beyond_the_game_is_ignored_not_an_index_error(seats):
    """The vote table bounds a voter by MAX_SEATS only: voter 5 of a 3-seat game is refused
    before its key is looked up."""
    assert seats.past_drop(drop_record(1, 2, [vote(seats, 0), vote(seats, 5)], None), applied=5) is None


@pytest.mark.parametrize("payload", [
    drop_record(1, 2, [], None)[:-1],  # truncated
    b"\xc1",  # not msgpack
    pack([1, 2, []]),  # three fields
    pack([1, 2, [], None, None]),  # five fields
    pack([1, 2, [], 7]),  # escrow neither bin nor nil
    pack([-1, 2, [], None]),  # negative step
    pack([True, 2, [], None]),  # a bool is not a step
    pack([1, 2, [7], None]),  # a vote that is not a bin
    pack([1, 2, [b"junk"], None]),  # a vote that is not an envelope
])
def test_a_malformed_record_is_none(seats, payload):
    assert seats.past_drop(payload, applied=5) is None


def test_a_step_not_before_ours_or_a_seat_beyond_the_game_is_none(seats):
    votes = [vote(seats, 0), vote(seats, 1)]
    assert seats.past_drop(drop_record(1, 2, votes, None), applied=1) is None
    assert seats.past_drop(drop_record(1, N, [vote(seats, 0, seat=N), vote(seats, 1, seat=N)], None), applied=5) is None
