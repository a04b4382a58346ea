"""p2p/channel_auth.EpochProof: a new instance (epoch) of a peer is believed only once it echoes
our nonce, and unsolicited answers are rate-limited (protocol.md §N2.2)."""

from __future__ import annotations

from p2p.channel_auth import ANSWER_INTERVAL, EpochProof


def test_a_new_epoch_is_proven_only_by_the_nonce_of_our_challenge():
    proof = EpochProof()
    assert not proof.due
    assert proof.unproven(7, now=1.0)
    respond, challenge = proof.take()
    assert respond is None and challenge[0] == 7 and challenge[1] != 0
    assert not proof.due
    assert not proof.proves(7, challenge[1] ^ 1)  # a guessed or replayed nonce proves nothing
    assert not proof.proves(8, challenge[1])  # another instance's echo neither
    assert proof.proves(7, challenge[1])
    proof.proven()
    assert proof.pending == (None, None) and not proof.proves(7, challenge[1])


def test_the_same_epoch_is_challenged_with_the_same_nonce_a_new_one_with_a_fresh_one():
    proof = EpochProof()
    proof.unproven(7, now=1.0)
    first = proof.take()[1]
    proof.unproven(7, now=2.0)
    assert proof.take()[1] == first
    proof.unproven(9, now=3.0)
    assert proof.take()[1][0] == 9


def test_the_return_routability_check_keeps_its_nonce_per_epoch_whether_answered_or_asked():
    """§N2.2, §N2.6 'Reflection': ``check`` (a datagram's) and ``ask`` (the owner's, unasked) share
    the return-routability slot: the same epoch keeps its nonce, a rate-limited check too, so an
    earlier CHALLENGE's RESPONSE still proves it; a new epoch gets a fresh one; never 0."""
    proof = EpochProof()
    assert proof.check(7, now=1.0)
    first = proof.take_check()
    assert first[0] == 7 and first[1] != 0
    assert not proof.check(7, now=1.0) and proof.pending_check == first  # rate-limited, nonce kept
    proof.ask(7)
    assert proof.take_check() == first and proof.checks(*first)
    proof.ask(9)
    assert proof.pending_check[0] == 9 and not proof.checks(*first)
    assert proof.pending == (None, None)  # the new-instance slot is untouched


def test_a_challenge_to_us_is_answered_with_its_nonce():
    proof = EpochProof()
    assert proof.challenged(5, 1234, now=0.0)
    assert proof.due and proof.take() == ((5, 1234), None)
    assert proof.take() == (None, None)


def test_each_kind_of_answer_at_most_every_answer_interval():
    proof = EpochProof()
    assert proof.challenged(5, 1, now=0.0)
    assert not proof.challenged(5, 2, now=ANSWER_INTERVAL / 2)  # rate-limited: nothing queued
    assert proof.take() == ((5, 1), None)
    assert proof.unproven(6, now=ANSWER_INTERVAL / 2)  # another kind: its own limit
    assert not proof.unproven(6, now=ANSWER_INTERVAL * 0.9)
    assert proof.may_answer(EpochProof.STALE, 0.0) and not proof.may_answer(EpochProof.STALE, 0.001)
    assert proof.challenged(5, 3, now=ANSWER_INTERVAL)
