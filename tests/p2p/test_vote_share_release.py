"""Why the escrow shares of DROP votes that decide nothing cannot be withheld within version 4
(protocol.md §C8.3 'Shares in votes that decide nothing', H113; the break: H107's strict xfail
tests/p2p/test_redteam_s11_vote_shares.py).

The tempting fix is "sign the vote without the share, re-sign it with the share once a quorum is
held". These tests pin the three facts of version 4 (and of the two-phase design, §C8.3
'Two-phase votes') that make it a new protocol version rather than a local change:

1. a voter's bare vote and its re-signed vote with its share are an equivocation (``add_vote``);
2. a bare vote means "I hold no share": for every N the first m - t + 1 bare votes fit in a
   quorum and decide the public stand-in, while the same voters' votes with shares recombine
   the chain: a bare-first vote would fork d's reveals among peers holding different versions;
3. the two-phase precommits carry shares too, and a POL completed by colluders' prevotes makes
   honest seats precommit (release) without a decision, then apply the step with d's message.

In memory, no session; real escrow crypto (commitments, Shamir) and real ``DropRound``.
"""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.beacon import HashChain
from p2p.drop_vote import NIL, PRECOMMIT, PREVOTE, DropRound, Vote
from p2p.escrow import make_shares, quorum, recover_chain, share_commit
from p2p.seat_loss import SeatLoss
from p2p.threshold import combine
from p2p.wire import MSG_DROP, DropVote, Escrow, EscrowEntry, decode_drop, open_envelope, seal_message

from p2p_harness import make_lobbies, pump_lobbies

GID = b"G" * 16
SECRET = bytes(range(32))


class _Setup:
    """The two fields of a Setup that ``recover_chain`` reads, for a dealer whose head is SECRET's."""

    def __init__(self, n: int) -> None:
        self.seats, self.chain_length = n, 16
        self.players = [type("P", (), {"chain_head": HashChain(SECRET, 16).head})()] * n


def _escrow(n: int, dealer: int) -> tuple[Escrow, dict[int, bytes]]:
    """An honest escrow of SECRET by ``dealer`` to every other seat (commitments only: the
    ciphertexts are not read here) and the dealt shares."""
    recipients = [i for i in range(n) if i != dealer]
    dealt = make_shares(SECRET, GID, 0, recipients, quorum(n))
    entries = tuple(EscrowEntry(v, share_commit(dealt[v], GID, dealer, v, 0), b"") for v in recipients)
    return Escrow(GID, dealer, 0, entries), dealt


def test_a_bare_vote_re_signed_with_its_share_is_an_equivocation_in_version_4():
    """§C8.3 'One vote per step and epoch': two votes of one voter in one step and epoch 'with
    two shares' (nil and a share differ) are an equivocation, in either order of arrival: an
    honest voter that released its share after a bare vote would be proven (COMPLAINT kind 1)."""
    lobbies = make_lobbies(3, options={C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30})
    pump_lobbies(lobbies)
    by_seat = sorted(lobbies.values(), key=lambda lb: lb.my_seat)
    setup = by_seat[0].setup
    voter = by_seat[1].identity
    _, dealt = _escrow(3, 2)
    bare = seal_message(voter, MSG_DROP, DropVote(setup.game_id, 1, 5, 2, 0, None))
    shared = seal_message(voter, MSG_DROP, DropVote(setup.game_id, 1, 5, 2, 0, dealt[1]))
    for first, second in ((bare, shared), (shared, bare)):
        seats = SeatLoss(setup, 0, by_seat[0].identity, SECRET, E)
        envs = [open_envelope(r, C.MAX_STEP_MSG) for r in (first, second)]
        assert seats.add_vote(envs[0], decode_drop(envs[0].body)) is None
        assert seats.add_vote(envs[1], decode_drop(envs[1].body)) == first  # the other vote: kind 1


@pytest.mark.parametrize("n", range(3, 9))
def test_bare_first_votes_and_their_released_versions_decide_different_reveals(n):
    """§C8.3 'Recombination': >= m - t + 1 bare votes decide the stand-in, t shares the real
    chain. With m = N - 1 recipients and t = Q, m - t + 1 <= t for every N, so the first voters'
    bare votes and any others form a quorum that decides the stand-in, while the SAME voters'
    votes with their shares recombine the chain: a peer holding the bare versions and one
    holding the released ones would apply two different reveals of d (a fork), unless a bare
    vote stops meaning 'I hold no share' (a new version)."""
    dealer, t = n - 1, quorum(n)
    esc, dealt = _escrow(n, dealer)
    m = n - 1
    bare_count = m - t + 1
    assert bare_count <= t
    voters = list(range(t))
    held_bare = [DropVote(GID, v, 5, dealer, 0, None if v < bare_count else dealt[v]) for v in voters]
    held_released = [DropVote(GID, v, 5, dealer, 0, dealt[v]) for v in voters]
    a = recover_chain(_Setup(n), esc, held_bare, m)
    b = recover_chain(_Setup(n), esc, held_released, m)
    assert a.chain is None and a.cheat is None  # the public stand-in
    assert isinstance(b.chain, HashChain) and b.chain.head == HashChain(SECRET, 16).head  # d's real chain


def test_a_two_phase_precommit_hands_out_its_share_without_a_decision():
    """§C8.3 'Two-phase votes', 'Where the shares travel': 3 seats, Q = t = 2; H = 0 honest, d = 1
    still deciding, C = 2 colluding. H prevotes d (d silent to it for a drop timeout), C prevotes
    d: a POL, so H precommits d with its share. C precommits NIL: the round can no longer decide,
    H's lock no longer binds, and C's step-(k+1) message over d's message is H's certificate: H
    applies the step with d's message and d plays on, while C holds H's share and its own, t = 2:
    d's chain secret. Shares must wait for the decision (Q precommits) there too."""
    h, d, c = 0, 1, 2
    dr = DropRound(3, 2, [True] * 3, h, period=1.0)
    dr.cast(Vote(h, 0, PREVOTE, d, None, "h-prevote"), now=0.0)
    dr.add(Vote(c, 0, PREVOTE, d, None, "c-prevote"))
    assert dr.precommit(now=0.1) == d  # POL(d, 0): H precommits d, its share in it (the spec)
    esc, dealt = _escrow(3, d)
    dr.cast(Vote(h, 0, PRECOMMIT, d, dealt[h], "h-precommit"), now=0.1)
    dr.add(Vote(c, 0, PRECOMMIT, NIL, None, "c-nil"))
    assert dr.decision() is None and not dr.possible(d, 0) and dr.locked() is None
    assert dr.may_apply(signers=[c])  # H applies step k with d's message: d stays active
    assert combine({h: dealt[h], c: dealt[c]}) == SECRET  # C recombines d's chain secret
