"""protocol.md §C8.3 rule (c), 'The quorum binds in every epoch of its step' (red team s12b #2,
H128; H132): ``p2p.vote_slots.SlotVotes``, the votes of a step by slot (step, epoch, seat).

Without a liar a quorum of an earlier epoch of the step never binds a seat still active (the epoch
moves on at a step only by a drop there, and two quorums of one slot share a voter): property
test over random honest tables. With one voter's two votes of one slot it does, and only with
votes of seats active in that epoch. The session-level break and its fix are
``tests/p2p/test_redteam_s12b_epoch.py``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.escrow import quorum
from p2p.vote_slots import SlotVotes
from p2p.wire import DropVote

GID = b"G" * 16
K = 9


def _vote(voter: int, seat: int, epoch: int, share: bytes | None = None) -> DropVote:
    return DropVote(GID, voter, K, seat, epoch, share)


def _raw(v: DropVote) -> bytes:
    return bytes([v.voter, v.seat, v.epoch, v.share is not None])


def _drop_round(book: SlotVotes, active: list[bool], epoch: int, picks: list[int | None], n: int) -> int | None:
    """Every active seat casts at most one vote (``picks[i]``: its target or None) in ``epoch``;
    returns the seat that Q of them named (dropped), or None."""
    q = quorum(n)
    named: dict[int, int] = {}
    for voter, target in enumerate(picks):
        if target is None or not active[voter] or target == voter or not active[target]:
            continue
        v = _vote(voter, target, epoch)
        book.add(v, _raw(v))
        named[target] = named.get(target, 0) + 1
    dropped = [t for t, c in named.items() if c >= q]
    assert len(dropped) <= 1  # two quorums of one slot would share a voter
    return dropped[0] if dropped else None


@settings(max_examples=300, deadline=None)
@given(st.integers(3, 8).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.lists(st.one_of(st.none(), st.integers(0, n - 1)), min_size=n, max_size=n),
                         min_size=1, max_size=4))))
def test_property_without_a_liar_no_earlier_epochs_quorum_binds(case):
    """§C8.3 rule (c): honest voters (one vote per slot) at one step over several epochs (each a
    drop at that step, as §C8.3 'Decision and record'): ``bound`` never names an active seat."""
    n, rounds = case
    book, active, epoch = SlotVotes(n, quorum(n)), [True] * n, 0
    for picks in rounds:
        d = _drop_round(book, active, epoch, picks, n)
        assert book.bound(K, epoch, active) is None
        if d is None:
            break
        active[d] = False
        epoch += 1
        book.epoch_began(epoch, active)
        assert book.bound(K, epoch, active) is None


def test_a_liars_two_votes_of_one_slot_bind_the_other_seat_in_the_next_epoch():
    """7 seats (Q = 4), the s12b #2 table: 0, 2, 3, 4 vote against 1; 5, 6, 1 and the liar 3 against
    2. Seat 2 is dropped (epoch 1): the quorum of epoch 0 against 1 binds (liar's vote counted);
    its forward is every vote of that slot (voter order), not those already sent."""
    n = 7
    book, active = SlotVotes(n, quorum(n)), [True] * n
    for voter in (0, 2, 3, 4):
        v = _vote(voter, 1, 0, b"s" * 66 if voter == 0 else None)
        book.add(v, _raw(v))
    for voter in (5, 6, 1, 3):
        v = _vote(voter, 2, 0)
        book.add(v, _raw(v))
    assert book.bound(K, 0, active) is None  # the current epoch's quorums are quorum_at's
    active[2] = False
    book.epoch_began(1, active)
    assert book.bound(K, 1, active) == 1
    sent = [_raw(_vote(0, 1, 0, b"s" * 66))]
    assert book.bound_votes(K, 1, active, sent) == [_raw(_vote(i, 1, 0)) for i in (2, 3, 4)]
    active[3] = False  # the liar dropped next (epoch 2): still bound
    book.epoch_began(2, active)
    assert book.bound(K, 2, active) == 1
    active[1] = False  # the bound seat dropped: nothing binds
    assert book.bound(K, 2, active) is None
    book.forget(K)
    assert book.bound_votes(K, 2, [True] * n, []) == []


def test_votes_of_seats_inactive_in_that_epoch_and_a_released_vote_replacing_its_open_one():
    """Only seats active with the target in that epoch count (a dropped seat's late votes of an
    epoch it was not in make no quorum; a seat active then and dropped since does count); an open
    vote after the same voter's released one keeps the released one."""
    n = 5  # Q = 3
    book = SlotVotes(n, quorum(n))
    active = [True, True, True, True, False]  # seat 4 dropped at an earlier step: epoch 1 began
    book.epoch_began(1, active)
    for voter in (0, 2, 4):
        v = _vote(voter, 1, 1)
        book.add(v, _raw(v))
    active[3] = False
    book.epoch_began(2, active)
    assert book.bound(K, 2, active) is None  # 4 was not active in epoch 1
    released = _vote(3, 1, 1, b"k" * 32)
    book.add(released, _raw(released))
    book.add(_vote(3, 1, 1), _raw(_vote(3, 1, 1)))
    assert book.bound(K, 2, active) == 1  # 3 was active in epoch 1 (dropped later)
    assert _raw(released) in book.bound_votes(K, 2, active, [])
