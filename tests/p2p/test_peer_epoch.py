"""``p2p.peer_epoch.PeerEpoch`` alone (protocol.md §N2.2): which streams a proven new epoch
restarts, and which epochs stay retired. The channel-level cases are in test_transport_auth.py
and test_forged_epoch.py."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from p2p.peer_epoch import RETIRED_EPOCHS, PeerEpoch


def test_the_first_proven_epoch_restarts_nothing():
    p = PeerEpoch()
    assert p.replace(7, 0) is None
    assert p.current == 7 and p.proven and not p.is_retired(7)


def test_a_proven_new_epoch_restarts_both_streams_and_retires_the_old_one():
    p = PeerEpoch()
    p.take(7)
    p.checked()
    p.unproven(8, 3)  # it acknowledged our stream, but the epoch it replaces was proven
    assert p.replace(8, 5) is True
    assert p.current == 8 and p.is_retired(7)


def test_the_peer_behind_a_forged_first_epoch_keeps_our_stream():
    p = PeerEpoch()
    p.take(9)  # unproven first contact (a forged datagram's, H86)
    p.unproven(8, 2)
    p.unproven(8, 4)
    assert p.replace(8, 4) is False  # only the peer's stream starts again
    p2 = PeerEpoch()
    p2.take(9)
    p2.unproven(8, 5)
    assert p2.replace(8, 4) is True  # it acknowledged more than we sent: not the same peer


def test_only_the_last_retired_epochs_are_remembered():
    p = PeerEpoch()
    p.take(1)
    for e in range(2, RETIRED_EPOCHS + 3):
        p.replace(e, 0)
    assert not p.is_retired(1)
    assert all(p.is_retired(e) for e in range(2, RETIRED_EPOCHS + 2))


@given(proven=st.booleans(), acks=st.lists(st.tuples(st.sampled_from([8, 9]), st.integers(0, 9)), max_size=6),
       next_seq=st.integers(0, 9))
def test_only_an_unproven_epochs_successor_that_acked_within_our_stream_keeps_it(proven, acks, next_seq):
    """§N2.2 (H86), the rule ``replace`` words: our stream goes on (False) exactly when the epoch
    replaced was never proven and the new epoch's dropped datagrams, since the last ones of another
    epoch, acknowledged at most ``next_seq``; else both streams restart (True)."""
    p = PeerEpoch()
    p.take(7)
    if proven:
        p.checked()
    last = None  # (epoch, highest ack) of the latest run of acknowledging datagrams of one epoch
    for epoch, ack in acks:
        p.unproven(epoch, ack)
        if ack:
            last = (epoch, max(ack, last[1] if last and last[0] == epoch else 0))
    keeps_ours = not proven and last is not None and last[0] == 8 and last[1] <= next_seq
    assert p.replace(8, next_seq) is (not keeps_ours)
    assert p.current == 8 and p.proven and p.is_retired(7)
