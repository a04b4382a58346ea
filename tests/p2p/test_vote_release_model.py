"""MODEL OF VERSION 5, NOT LIVE (tests/p2p/vote_release_model.py; protocol.md §C8.3 'Shares in votes that
decide nothing', rules (a)-(c)): no set of DROP votes short of a quorum lets anyone recombine a
seat's chain, and what the quorum decides is one outcome.

N seats, a target d, up to N - Q colluders (not d) that see every message, sign what they like
(open or released with their real share, against d or another seat; two versions to different
peers) and relay any signed message to any honest seat; honest seats vote open against d or not
at all, take deliveries in any order (some lost), release by ``ReleaseBook.release``, then re-send
their votes and forwarded quorums until nothing changes. Shares are opaque tokens here (the
commitments and Shamir are tested in test_escrow.py); a share is worth one of the t = Q needed.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.escrow import quorum
from vote_release_model import Ballot, ReleaseBook, released


def _share(voter: int, dealer: int) -> tuple:
    return ("share", voter, dealer)


def _book(n: int, me: int) -> ReleaseBook:
    mine = {d: Ballot(me, d, _share(me, d)) for d in range(n) if d != me}
    return ReleaseBook(n, quorum(n), [True] * n, me, mine)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(min_value=3, max_value=7))
def test_no_votes_short_of_a_quorum_release_a_share_and_a_quorum_decides_one_outcome(data, n):
    q = quorum(n)
    d = data.draw(st.integers(0, n - 1), label="target")
    others = [i for i in range(n) if i != d]
    colluders = set(data.draw(st.lists(st.sampled_from(others), unique=True, max_size=n - q), label="colluders"))
    honest = [i for i in others if i not in colluders]
    books = {h: _book(n, h) for h in honest}
    pending: list[tuple[int, Ballot]] = []
    seen: list[Ballot] = []  # everything the colluders see (they see every message)
    releases: dict[int, list[int]] = {}  # honest releaser -> voters it held against d then

    def send(b: Ballot, to) -> None:
        seen.append(b)
        pending.extend((h, b) for h in to if h in books and h != b.voter)

    def take(h: int, b: Ballot) -> None:
        books[h].add(b)
        out = books[h].release(current=True)
        if out is not None:
            releases[h] = books[h].quorum(out.seat)
            send(out, honest)

    for h in data.draw(st.lists(st.sampled_from(honest), unique=True), label="honest voters") if honest else []:
        send(books[h].vote(d), honest)
    for c in sorted(colluders):
        for _ in range(data.draw(st.integers(0, 2), label="versions")):
            target = data.draw(st.sampled_from([i for i in range(n) if i != c]), label="lie target")
            share = _share(c, target) if data.draw(st.booleans(), label="released") else None
            send(Ballot(c, target, share), data.draw(st.lists(st.sampled_from(honest), unique=True), label="to")
                 if honest else [])
    while pending:
        h, b = pending.pop(data.draw(st.integers(0, len(pending) - 1), label="next"))
        if data.draw(st.integers(0, 4), label="loss") == 0:
            continue
        take(h, b)
        if seen and data.draw(st.integers(0, 5), label="relay?") == 0:  # a colluder relays a signed vote
            pending.append((data.draw(st.sampled_from(honest)), data.draw(st.sampled_from(seen))))
    for _ in range(4 * n):  # re-sends without loss: own vote and forwarded quorum, to every honest seat
        for h in honest:
            for b in ([books[h].votes[h]] if h in books[h].votes else []) + books[h].forward():
                for g in honest:
                    if g != b.voter:
                        take(g, b)

    # Secrecy: an honest share of d leaves only from a seat holding Q votes against d.
    for h, voters in releases.items():
        assert len(voters) >= q and d not in voters, (h, voters)
    known = {c for c in colluders} | {b.voter for b in seen if b.seat == d and b.share is not None}
    if len(known) >= q:
        assert releases, "the colluders hold t shares of d and no honest seat ever held a quorum"
    # A decided drop is never undone by a certificate; every outcome reached is the same.
    for h, book in books.items():
        if h in releases:
            assert not book.may_apply_with(d)
    outs = {book.outcome(confirmed=True) for book in books.values()} - {None}
    assert outs <= {"chain"}  # honest dealer: no key can be released, t shares give the chain
    if not colluders and len(honest) >= q and all(h in books[h].votes for h in honest):
        assert all(book.outcome(confirmed=True) == "chain" for book in books.values())  # live


def test_one_open_vote_and_a_silent_colluder_release_nothing_where_version_4_leaks():
    """H107's break, 3 seats: version 4's vote hands the colluder t = 2 shares (its own and the
    vote's); version 5's open vote hands it none until a quorum is held."""
    h, d, c = 0, 1, 2
    book_h = _book(3, h)
    v5 = book_h.vote(d)
    assert not released(v5) and book_h.release(current=True) is None
    v4_shares = {c, h}  # the v4 vote carries h's share
    v5_shares = {c} | ({h} if released(v5) else set())
    assert len(v4_shares) >= quorum(3) > len(v5_shares)


def test_a_colluder_completes_the_quorum_then_cannot_free_the_releaser():
    """Rule (c): the colluder's open vote completes the quorum, the honest voter releases; the
    colluder withholds its release (no chain: a stall, not a leak of a live seat) and signs the
    next step over d's message: the releaser still may not apply d's message."""
    h, d, c = 0, 1, 2
    book = _book(3, h)
    book.vote(d)
    assert book.add(Ballot(c, d)) == "held"
    out = book.release(current=True)
    assert out == Ballot(h, d, _share(h, d)) and not book.may_apply_with(d)
    assert book.outcome(confirmed=True) is None  # one share of two: wait (paused, abandoned at the stall limit)
    assert book.add(Ballot(c, d, _share(c, d))) == "upgrade" and book.outcome(confirmed=True) == "chain"
    assert book.add(Ballot(c, d, ("another", c))) == "equivocation"


def test_a_stale_quorum_never_releases():
    """Rule (b): a quorum of a step we left (not current) releases nothing."""
    book = _book(3, 0)
    book.vote(1)
    book.add(Ballot(2, 1))
    assert book.release(current=False) is None and not released(book.votes[0])


def test_one_released_key_does_not_decide_against_t_shares_of_the_same_escrow():
    """§C8.3 'Recombination' (H127 review #1, H133): with n = 5 (t = 3, m = 4) one released key
    beside open votes waits; t released shares give the chain and m - t + 1 = 2 keys the
    stand-in, whatever else is held, so two peers holding different quorums of one escrow
    never decide differently (before: any released key decided the stand-in)."""
    d = 4
    one_key = _book(5, 0)
    for v in (0, 2):
        one_key.add(Ballot(v, d))
    one_key.add(Ballot(1, d, None, ("key", 1)))
    assert one_key.decided() == d and one_key.outcome(confirmed=True) is None
    shares = _book(5, 0)
    for v in (0, 2, 3):
        shares.add(Ballot(v, d, _share(v, d)))
    shares.add(Ballot(1, d, None, ("key", 1)))
    assert shares.outcome(confirmed=True) == "chain"
    keys = _book(5, 0)
    keys.add(Ballot(0, d))
    for v in (1, 2):
        keys.add(Ballot(v, d, None, ("key", v)))
    assert keys.outcome(confirmed=True) == "stand-in"
