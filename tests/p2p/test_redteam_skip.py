"""Red team of the turn skip (protocol.md §C8.10): a hostile seat serves, in a catch-up page, a
kind-6 record whose votes mix epochs. ``check_skip_payload`` (what a peer applies and what
``verify`` checks) wants Q votes of one epoch, so no peer can apply such a record; but the
roll-back trigger ``past_skip`` counted voters across epochs, so the record halted an honest
peer that had applied the step with StepOverturned, and again after each restart from its log
as long as the hostile responder served it. Now ``past_skip`` wants Q voters of one epoch too."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from p2p.identity import Identity
from p2p.seat_loss import quorum
from p2p.turn_skip import TurnSkip, check_skip_payload, past_skip, skip_record

GID = bytes(range(16))
IDS = [Identity.from_seed(bytes([40 + i]) * 32) for i in range(8)]
KEYS = [i.public_key for i in IDS]


def _votes(n, step, seat, epochs):
    """One SKIP(step, seat) per voter, voter i in epochs[i] (None: no vote), ascending voters."""
    return [TurnSkip(GID, KEYS[:n], i, IDS[i]).vote(step, seat, e) for i, e in enumerate(epochs) if e is not None]


def test_votes_of_two_epochs_neither_apply_nor_overturn():
    # 4 seats, Q = 3: seats 0 and 1 voted to skip seat 3 at step 5 in epoch 0, seat 2 in epoch 1.
    raws = _votes(4, 5, 3, [0, 0, 1])
    payload = skip_record(5, 3, raws)
    for epoch in (0, 1):
        with pytest.raises(ValueError):
            check_skip_payload(GID, KEYS[:4], [True] * 4, epoch, 5, payload)
    assert past_skip(GID, KEYS[:4], payload, 9) is None
    # The same three voters in one epoch: a certificate, and a roll back for whoever applied 5.
    good = skip_record(5, 3, _votes(4, 5, 3, [1, 1, 1]))
    assert check_skip_payload(GID, KEYS[:4], [True] * 4, 1, 5, good)[0] == 3
    assert past_skip(GID, KEYS[:4], good, 9) == (5, 3)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(3, 8), data=st.data())
def test_past_skip_overturns_only_what_some_epoch_certifies(n, data):
    """Property: ``past_skip`` names the step iff some epoch has Q voters, i.e. iff
    ``check_skip_payload`` accepts the votes of that epoch alone."""
    seat = n - 1
    epochs = data.draw(st.lists(st.one_of(st.none(), st.integers(0, 2)), min_size=n - 1, max_size=n - 1))
    raws = _votes(n, 4, seat, epochs)
    if not raws:
        return
    found = past_skip(GID, KEYS[:n], skip_record(4, seat, raws), 7)
    certified = any(sum(1 for x in epochs if x == e) >= quorum(n) for e in (0, 1, 2))
    assert (found == (4, seat)) == certified
