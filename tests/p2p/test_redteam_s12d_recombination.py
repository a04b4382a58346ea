"""Red team s12d #2 (H136): 597c82d + 179a3e6 (H133, protocol.md §C8.3 'Recombination': t released
shares -> the chain, m - t + 1 released keys -> the stand-in, else wait; a kind-3 complaint only
when the key decrypts; a key that does not decrypt proves nothing).

Tried: a dealer (with accomplices) choosing every recipient's entry among good / garbage under
the true key / sealed under another key / a share of another secret, to (a) frame an honest
recipient (its release judged a lie, kind 5, or its complaint false), (b) have a lying voter's
made-up 32-byte key prove an entry bad (ChaCha20-Poly1305 is not key-committing, but only the
dealer chooses the ciphertext: a voter's key must pass the tag of a ciphertext it did not make),
(c) make two quorums of honest releases decide differently. Holds: every honest release is
valid at every judge, a made-up key proves nothing, any two sets of honest releases that decide
decide the same. What the dealer keeps is stated: entries no honest release can count (sealed,
or garbage with fewer than m - t + 1 of them) stall its drop once fewer than t good entries are
left (§C8.5 'm - u >= t', §C8.3 'What is left'; here one sealed + one garbage at n = 5: the
garbage one's holder proves the dealer a cheater, the drop waits); the accomplice that releases
both forms (kind 1) is stated open in §C8.3 'What is left' and not re-tested. Real escrow crypto,
no session (the helpers of tests/p2p/test_escrow_decision.py).
"""

from __future__ import annotations

import hashlib
import itertools

from p2p.escrow import UNDECIDED, key_proves_bad, quorum, recover_chain, valid_release
from p2p.wire import DropVote

from test_escrow_decision import GARBAGE, GID, GOOD, ODD, SEALED, _escrow, _outcome, _released, _Setup

KINDS = (GOOD, GARBAGE, SEALED, ODD)


def _vote(esc, v: int) -> DropVote:
    return DropVote(GID, v, 9, esc.seat, 0, _released(esc, v))


def test_no_entry_a_dealer_deals_makes_an_honest_recipients_release_a_lie():
    """n = 4 and 5, the dealer last, every assignment of entry kinds to its recipients: each honest
    recipient releases its share, its key (only if the key proves its entry bad) or nothing, and
    every release is ``valid_release`` (so never proven a liar, kind 5; its kind-3 complaint, the
    same key, proves the dealer)."""
    for n in (4, 5):
        d = n - 1
        for kinds in itertools.product(KINDS, repeat=n - 1):
            esc = _escrow(n, d, dict(enumerate(kinds)))
            for v, kind in enumerate(kinds):
                rel = _released(esc, v)
                assert (rel is None) == (kind == SEALED), (n, kinds, v)
                if rel is not None:
                    assert valid_release(esc, DropVote(GID, v, 9, d, 0, rel)), (n, kinds, v)


def test_a_made_up_key_never_proves_an_entry_bad():
    """A lying voter's 32-byte key (200 made-up ones per entry, and the other recipients' true
    keys) fails the AEAD tag of every entry it did not seal: no entry is proven bad by it, so no
    honest dealer is framed and no stand-in comes of it (kind 5 proves the liar)."""
    esc = _escrow(5, 4, {0: GOOD, 1: GARBAGE, 2: SEALED, 3: ODD})
    others = {v: _released(esc, v) for v in range(4)}
    for v in range(4):
        made_up = [hashlib.sha256(b"made up %d %d" % (v, i)).digest() for i in range(200)]
        made_up += [k for w, k in others.items() if w != v and k is not None and len(k) == 32]
        assert not any(key_proves_bad(esc, v, k) for k in made_up), v


def test_any_two_sets_of_honest_releases_that_decide_decide_the_same():
    """n = 5 and 6, every assignment of entry kinds, every subset (a quorum or more) of honest
    recipients' votes, each released as rule (a) says: every subset that decides decides the same
    (chain head or stand-in, cheat) as every other; sealed + garbage with fewer than t good
    entries and fewer than m - t + 1 garbage ones never decides (stated, §C8.5 / §C8.3)."""
    for n in (5, 6):
        d, m, t = n - 1, n - 1, quorum(n)
        for kinds in itertools.product(KINDS, repeat=m):
            esc = _escrow(n, d, dict(enumerate(kinds)))
            votes = {v: _vote(esc, v) for v in range(m)}
            seen = set()
            for size in range(t, m + 1):
                for sub in itertools.combinations(range(m), size):
                    r = recover_chain(_Setup(n), esc, [votes[v] for v in sub], m)
                    if r.chain is not UNDECIDED:
                        seen.add(_outcome(r))
            assert len(seen) <= 1, (n, kinds, seen)
            good = sum(k in (GOOD, ODD) for k in kinds)  # entries that open: a share is released
            garbage = kinds.count(GARBAGE)
            assert (not seen) == (good < t and garbage < m - t + 1), (n, kinds, seen)


def test_one_sealed_and_one_garbage_entry_at_five_seats_stall_the_dealers_drop_as_stated():
    """n = 5 (m = 4, t = 3): entries of 0 and 1 good, 2 garbage, 3 sealed; all four release what
    they hold: two shares, one key (proving the dealer a cheater), one open vote: no rule decides,
    the drop waits (§C8.5: 'm - u >= t'; the dealer's abort option, no bias)."""
    esc = _escrow(5, 4, {2: GARBAGE, 3: SEALED})
    assert key_proves_bad(esc, 2, _released(esc, 2))
    r = recover_chain(_Setup(5), esc, [_vote(esc, v) for v in range(4)], 4)
    assert r.chain is UNDECIDED and not r.liars
