"""Version 5's open and released DROP votes (protocol.md §C8.3 'Shares in votes that decide
nothing', rules (a)-(c), H121; the break: H107's tests/p2p/test_redteam_s11_vote_shares.py).

Version 4 could not withhold a vote's share (H113): a bare vote and the same vote with its share
were an equivocation, and a bare vote meant "I hold no share", so the first voters' bare votes
decided the stand-in where their released versions recombined the chain (a fork). Version 5
changes both, and these tests pin what holds now:

1. an open vote and the same voter's released vote of one seat are one vote (the released kept,
   in either order, ``SeatLoss.add_vote``, and no kind-1 complaint, ``check_equivocation``); two
   released versions that differ are an equivocation;
2. an open vote never decides the stand-in: Q open votes wait for t released shares, which
   recombine the chain (no fork between peers holding open and released versions);
3. a released key (32 bytes, rule (a)) proves the voter's entry bad: the stand-in, the dealer
   named; a key that opens no bad entry proves the voter (kind 5);
4. a seat releases only holding a quorum (rule (b)), once, and forwards the quorum;
5. the two-phase precommits of ``drop_vote.py`` carry shares too (a design not on the wire).

In memory, no session; real escrow crypto (commitments, Shamir, AEAD) and real ``DropRound``.
"""

from __future__ import annotations

import pytest

import fake_engine as E
from p2p import const as C
from p2p.beacon import HashChain
from p2p.drop_vote import NIL, PRECOMMIT, PREVOTE, DropRound, Vote
from p2p import aead
from p2p.complaints import check_drop_share, check_equivocation
from p2p.escrow import (BAD_ENTRY, NONCE, UNDECIDED, key_proves_bad, make_escrow, make_shares, open_share, pair_key,
                        quorum, recover_chain, share_commit, share_ctx)
from p2p.seat_loss import SeatLoss
from p2p.threshold import combine
from p2p.wire import (MSG_DROP, MSG_ESCROW, DropVote, Escrow, EscrowEntry, decode_drop, decode_escrow, open_envelope,
                      seal_message)

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


def _table3():
    """(setup, identities by seat) of a 3-seat game with seat loss on."""
    lobbies = make_lobbies(3, options={C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30})
    pump_lobbies(lobbies)
    by_seat = sorted(lobbies.values(), key=lambda lb: lb.my_seat)
    return by_seat[0].setup, [lb.identity for lb in by_seat]


def test_an_open_vote_and_its_release_are_one_vote_two_releases_that_differ_are_two():
    """§C8.3 rule (a): the voter's open vote and its released vote of one seat are one vote, in
    either order of arrival (the released one is kept) and no COMPLAINT kind 1 proves them; two
    released votes of one slot that differ (a share and a key) are an equivocation, as are
    votes for two seats."""
    setup, ids = _table3()
    gid = setup.game_id
    _, dealt = _escrow(3, 2)
    sign = lambda v: seal_message(ids[1], MSG_DROP, v)  # noqa: E731
    open_ = sign(DropVote(gid, 1, 5, 2, 0, None))
    shared = sign(DropVote(gid, 1, 5, 2, 0, dealt[1]))
    keyed = sign(DropVote(gid, 1, 5, 2, 0, bytes(32)))
    other = sign(DropVote(gid, 1, 5, 0, 0, None))
    for first, second in ((open_, shared), (shared, open_)):
        seats = SeatLoss(setup, 0, ids[0], SECRET, E)
        envs = [open_envelope(r, C.MAX_STEP_MSG) for r in (first, second)]
        assert seats.add_vote(envs[0], decode_drop(envs[0].body)) is None
        assert seats.add_vote(envs[1], decode_drop(envs[1].body)) is None  # one vote
        assert seats._votes[(5, 2)][1][1] == shared  # the released one is kept
        assert check_equivocation(setup, first, second) is None
    seats = SeatLoss(setup, 0, ids[0], SECRET, E)
    env = open_envelope(shared, C.MAX_STEP_MSG)
    seats.add_vote(env, decode_drop(env.body))
    for lie in (keyed, other):
        env = open_envelope(lie, C.MAX_STEP_MSG)
        assert seats.add_vote(env, decode_drop(env.body)) == shared  # the other vote: kind 1
        assert check_equivocation(setup, shared, lie) == 1
    assert check_equivocation(setup, open_, other) == 1  # an open vote for another seat: two votes


@pytest.mark.parametrize("n", range(3, 9))
def test_open_votes_never_decide_the_stand_in_and_released_shares_recombine(n):
    """§C8.3 'Recombination' (version 5): a quorum of open votes is the decision of the drop but
    decides no reveal (``UNDECIDED``: version 4's m - t + 1 shareless votes deciding the
    stand-in is gone), nor does a quorum with t - 1 released shares; with t released shares the
    chain is recombined. So peers holding the open versions and peers holding the released
    ones never apply two reveals of d (item 2 of version 4's 'why not')."""
    dealer, t = n - 1, quorum(n)
    esc, dealt = _escrow(n, dealer)
    m = n - 1
    voters = list(range(t))
    open_votes = [DropVote(GID, v, 5, dealer, 0, None) for v in voters]
    short = [DropVote(GID, v, 5, dealer, 0, None if v == 0 else dealt[v]) for v in voters]
    released = [DropVote(GID, v, 5, dealer, 0, dealt[v]) for v in voters]
    assert recover_chain(_Setup(n), esc, open_votes, m).chain == UNDECIDED
    assert recover_chain(_Setup(n), esc, short, m).chain == UNDECIDED
    assert recover_chain(_Setup(n), esc, open_votes, m, confirmed=False).chain is None  # unconfirmed: stand-in
    b = recover_chain(_Setup(n), esc, released, m)
    assert isinstance(b.chain, HashChain) and b.chain.head == HashChain(SECRET, 16).head  # d's real chain


def test_a_released_key_proves_a_bad_entry_and_a_false_key_proves_its_voter():
    """§C8.3 rule (a): seat 2 deals seat 1 an entry whose ciphertext opens (under their pairwise
    key) to a share that does not match its commitment. Seat 1's released vote carries that key:
    ``key_proves_bad``, the quorum decides the stand-in with the dealer named (``BAD_ENTRY``),
    and a kind-5 complaint against the key is false. A random key, or seat 0's key of its good
    entry, proves its voter instead (it opens no bad entry: a liar cannot claim "no share")."""
    setup, ids = _table3()
    gid = setup.game_id
    xkeys = [p.x25519_key for p in setup.players]
    good = make_escrow(ids[2], SECRET, gid, 2, 0, [0, 1], xkeys, 2)
    e = decode_escrow(open_envelope(good).body)
    key1 = pair_key(ids[1], xkeys[2], gid, 2, 1, 0)
    bad_ct = aead.encrypt(key1, NONCE, bytes(C.SHARE_LEN), share_ctx(gid, 2, 1, 0))
    entries = (e.entries[0], e.entries[1]._replace(ct=bad_ct))
    bad = seal_message(ids[2], MSG_ESCROW, e._replace(entries=entries))
    esc = decode_escrow(open_envelope(bad).body)
    assert key_proves_bad(esc, 1, key1)
    key0 = pair_key(ids[0], xkeys[2], gid, 2, 0, 0)
    share0 = open_share(ids[0], esc, 0, xkeys[2])
    assert not key_proves_bad(esc, 0, key0) and not key_proves_bad(esc, 1, bytes(32))
    votes = [DropVote(gid, 0, 5, 2, 0, share0), DropVote(gid, 1, 5, 2, 0, key1)]
    r = recover_chain(setup, esc, votes, 2)
    assert (r.chain, r.cheat, r.used, r.liars) == (None, BAD_ENTRY, (0, 1), ())
    for v, guilty in ((votes[1], 0), (DropVote(gid, 1, 5, 2, 0, bytes(32)), 1), (DropVote(gid, 0, 5, 2, 0, key0), 0)):
        raw = seal_message(ids[v.voter], MSG_DROP, v)
        verdict = check_drop_share(setup, 0 if v.voter == 1 else 1, [raw, bad])
        assert verdict[0] == (guilty if v.share != key1 else 0), verdict
    liar = [DropVote(gid, 0, 5, 2, 0, key0), DropVote(gid, 1, 5, 2, 0, key1)]
    assert recover_chain(setup, esc, liar, 2).liars == (0,)


def test_a_seat_releases_only_holding_a_quorum_and_a_bad_entry_releases_its_key():
    """§C8.3 rule (b) on ``SeatLoss`` (3 seats, Q = 2): our vote is open; with one vote held
    (ours) nothing is released; with Q, our vote is re-signed with our share, once. A seat whose
    entry did not open releases its pairwise key instead (rule (a))."""
    setup, ids = _table3()
    seats = [SeatLoss(setup, i, ids[i], SECRET, E) for i in range(3)]
    for dealer in seats:
        raw, _ = dealer.own_escrow(False)
        env = open_envelope(raw, C.MAX_STEP_MSG)
        for other in seats:
            if other is not dealer:
                other.receive_escrow(env, decode_escrow(env.body), 5, False)
    mine = decode_drop(open_envelope(seats[0].vote(5, 1)).body)
    assert mine.share is None and seats[0].release(5, 1) is None  # no quorum: nothing leaves
    raw = seats[2].vote(5, 1)
    env = open_envelope(raw, C.MAX_STEP_MSG)
    assert seats[0].add_vote(env, decode_drop(env.body)) is None
    out = decode_drop(open_envelope(seats[0].release(5, 1)).body)
    assert out.share == seats[0]._shares[1] and seats[0].release(5, 1) is None  # released once
    assert seats[0].quorum_at(5) == 1 and seats[0].own_votes(5)[1:] == [raw]  # the quorum goes along
    seats[2]._shares.pop(1)
    seats[2]._bad_keys[1] = key = seats[2].share_key(1)
    env = open_envelope(seats[0].own_votes(5)[0], C.MAX_STEP_MSG)  # seat 0's released vote
    assert seats[2].add_vote(env, decode_drop(env.body)) is None
    assert decode_drop(open_envelope(seats[2].release(5, 1)).body).share == key


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


def test_the_quorum_kept_with_a_release_promises_nothing_of_ours_after_a_restart():
    """§C8.3 rule (b), §C10: the other votes of the quorum we released on sit in our own-message
    log (s12 #8). After a restart from a damaged log they are adopted when their step comes, but,
    not being ours, they are no promise of ours (``Restart.keep(own=False)``: no vote barred
    below their step), while our own vote of that step is one."""
    from p2p.resume import Restart, _voter

    setup, ids = _table3()
    other = seal_message(ids[2], MSG_DROP, DropVote(setup.game_id, 2, 9, 1, 0, None))
    mine = seal_message(ids[0], MSG_DROP, DropVote(setup.game_id, 0, 9, 1, 0, None))
    assert (_voter(other), _voter(mine)) == (2, 0)
    r = Restart()
    r.keep(9, other, own=_voter(other) in (None, 0))
    assert not r.promised(8)
    r.keep(9, mine, own=_voter(mine) in (None, 0))
    assert r.promised(8) and not r.promised(9)


def test_a_restarted_peer_holds_its_shares_again(tmp_path):
    """§C8.2, §C8.3 rule (b) (version 5): the ESCROWs we held are kept in our own-message log, so
    a peer resumed from its logs holds its shares of the current epoch again and can release on a
    quorum (without them every honest peer restarted after a roll back held an undecidable
    quorum against a vanished equivocator: test_decision_equivocation.py, n = 5)."""
    from p2p.resume import resume_session
    from p2p_harness import Net, random_legal
    from test_resilience import logged_game

    sessions, paths, secrets, _ = logged_game(tmp_path, 3, {"target": 40, C.OPT_ON_DROP: "bot",
                                                           C.OPT_DROP_TIMEOUT: 30})
    net = Net(list(sessions), random_legal(E, seed=1))
    s0 = sessions[0]
    for _ in range(400):  # play until step 4 (escrows dealt at the start, epoch 0)
        if s0.step >= 4:
            break
        if not net.inputs():
            net.deliver()
    held = dict(s0.seats._shares)
    assert set(held) == {1, 2} and s0.step >= 4
    s0.log.close()
    s0.own_log.close()
    again, _ = resume_session(paths[0], s0.identity, secrets[0], E, own_log_path=str(paths[0]) + ".own", now=net.now)
    assert again.seats._shares == held and again.seats.escrow_of(1) == s0.seats.escrow_of(1)


@pytest.mark.parametrize("n", [3, 5])
def test_open_votes_seen_first_never_make_a_peer_apply_the_stand_in(tmp_path, n):
    """Item 2 of version 4's 'why not', in a session (§C8.3 'Recombination', version 5): a seat
    crashes at step 5 of an n-seat game; every peer holds the first voters' open votes (a quorum)
    before their releases. None applies the stand-in: every live peer drops the seat with its
    chain recombined (``SeatDropped.reconstructed``) at the same step, and all end with one final
    hash."""
    from p2p.lockstep import GameOver, SeatDropped
    from p2p_harness import Net, crash_at, random_legal
    from test_resilience import logged_game

    sessions, *_ = logged_game(tmp_path, n, {"target": 40, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 30})
    net = Net(list(sessions), random_legal(E, seed=2))
    net.run(max_time=1e5, hook=crash_at(n - 1, 5))
    live = range(n - 1)
    drops = [[e for e in net.events[i] if isinstance(e, SeatDropped)] for i in live]
    assert all(len(d) == 1 and d[0].seat == n - 1 and d[0].reconstructed for d in drops), drops
    assert len({d[0].step for d in drops}) == 1
    overs = [[e for e in net.events[i] if isinstance(e, GameOver)] for i in live]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1
